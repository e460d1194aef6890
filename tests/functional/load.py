"""Load against a real control plane: a burst of concurrent boots onto
many fake hosts filled to about 95%, with two schedulers and two
conductors; and a soak of mixed operations with the audit every minute.

``burst(...)`` and ``soak(...)`` return a dict of figures;
``tools/load_suite.py`` runs them at full size (200 boots on 50 hosts, a
10-minute soak) and prints them, ``tests/functional/test_load.py`` runs
small versions in the normal test run.
"""

import collections
import concurrent.futures
import os
import random
import re
import signal
import socket
import time
import tracemalloc

import requests

from tests.functional import faults
from tests.functional import fixtures

# A m1.small is 2048 MB; a host has room for 4 or, every fifth host, 5
# (plus the 512 MB [DEFAULT] reserved_host_memory_mb keeps back).
SLOT_MB = 2048
RESERVED_MB = 512


# Unlimited quota; otherwise the defaults an operator runs with: under a
# burst on two cores a scheduler may well take more than the fault
# scenarios' 10 s to answer, and the takeover of interrupted builds must
# wait longer than that (its own default, 300 s); a compute's heartbeat,
# which goes through the busy conductors, may be late by more than the
# functional tests' 5 s without the compute being down.
LOAD_CONF = """
[DEFAULT]
report_interval = 10
service_down_time = 60
[conductor]
scheduler_call_timeout = 60
[quota]
instances = -1
cores = -1
ram = -1
"""


# What each compute runs with besides its size: the same operator
# defaults, and the resource tracker's audit every minute rather than the
# functional tests' 2 s (fifty computes would otherwise send placement and
# the conductors 25 audits a second).
COMPUTE_LOAD_CONF = """
[DEFAULT]
report_interval = 10
service_down_time = 60
[placement]
timeout = 30
[network]
timeout = 30
"""


def host_slots(index):
    return 5 if index % 5 == 0 else 4


def host_memory_mb(index):
    return host_slots(index) * SLOT_MB + RESERVED_MB


def plane_for_burst(hosts, services=None):
    """A control plane of ``hosts`` fake computes (4 or 5 m1.small each)
    and a second scheduler and conductor, started."""
    compute_conf = {
        index: COMPUTE_LOAD_CONF +
        '[compute]\nupdate_resources_interval = 60\n'
        'fake_memory_mb = %d\nfake_vcpus = 64\nfake_local_gb = 1000\n' %
        host_memory_mb(index)
        for index in range(1, hosts + 1)}
    plane = fixtures.ControlPlane(
        computes=hosts, compute_conf=compute_conf,
        extra_conf=LOAD_CONF, services=services)
    plane.start_timeout = max(60, hosts * 3)
    plane.start()
    plane.start_daemon('scheduler2', 'scheduler',
                       '[DEFAULT]\nhost = scheduler2\n')
    plane.start_daemon('conductor2', 'conductor',
                       '[DEFAULT]\nhost = conductor2\n')
    # Serving before the burst starts (and before the soak reads their
    # memory).
    plane.wait_for_service_up('scheduler2', 'nova-lite-scheduler')
    plane.wait_for_service_up('conductor2', 'nova-lite-conductor')
    return plane


def capacity(hosts):
    return sum(host_slots(i) for i in range(1, hosts + 1))


def _log_count(plane, pattern, names):
    expression = re.compile(pattern)
    return sum(len(expression.findall(plane.daemons[name].log()))
               for name in names if name in plane.daemons)


def burst(plane, hosts, boots, threads=25, settle_timeout=600):
    """``boots`` concurrent boots; the figures: accepted, final states,
    ERRORs beyond what capacity forces, over-committed hosts (audit and
    per-hypervisor), placement conflicts and reschedules, seconds."""
    row = faults.Row('burst of %d boots onto %d hosts' % (boots, hosts))
    admin = plane.client('admin')
    started = time.monotonic()

    def boot(index):
        try:
            response = admin.post('/servers', {'server': {
                'name': 'load-%d' % index, 'flavorRef': '2',
                'imageRef': plane.image_id}}, timeout=60)
        except requests.RequestException as error:
            return type(error).__name__
        return response.status_code

    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        answers = collections.Counter(pool.map(boot, range(boots)))
    accepted_seconds = time.monotonic() - started
    row.accepted = answers.get(202, 0)
    for answer, count in answers.items():
        if answer != 202:
            row.refused[str(answer)] += count
    faults.settle(plane, row, settle_timeout)
    settled_seconds = time.monotonic() - started
    faults.check(plane, row, audit_timeout=60)
    room = capacity(hosts)
    forced = max(0, row.accepted - room)
    errors = row.final.get('ERROR', 0)
    over = []
    for hypervisor in admin.get('/os-hypervisors/detail').json()[
            'hypervisors']:
        if hypervisor['memory_mb_used'] > hypervisor['memory_mb']:
            over.append(hypervisor['hypervisor_hostname'])
    schedulers = ['scheduler', 'scheduler2']
    conductors = ['conductor', 'conductor2'] + [
        'compute%d' % i for i in range(1, hosts + 1)]
    return {
        'boots': boots, 'hosts': hosts, 'capacity': room,
        'fill %': round(100.0 * min(row.accepted, room) / room, 1),
        'accepted': row.accepted, 'refused': dict(row.refused),
        'final': dict(row.final), 'not final': len(row.not_final),
        'ERROR beyond capacity': max(0, errors - forced),
        'over-committed hosts': len(over),
        'audit violations': len(row.violations),
        'listing problems': len(row.listing_problems),
        'placement conflicts': _log_count(plane, r'Claim on \S+ refused',
                                          schedulers),
        'reschedules': _log_count(plane, r'Rescheduling \S+ to',
                                  conductors),
        'seconds to accept': round(accepted_seconds, 1),
        'seconds to settle': round(settled_seconds, 1),
        'details': row.details(),
    }


class MemoryTrace:
    """Some daemons of a plane tracing their memory with tracemalloc:
    restarted with PYTHONTRACEMALLOC (``frames`` deep) and told where to
    write a snapshot on each SIGUSR2 (``nova_lite.counters``). ``growth``
    compares two snapshots: where the memory that stayed was allocated."""

    def __init__(self, plane, names, frames=8):
        self.plane = plane
        self.names = list(names)
        self.frames = frames
        self.directory = os.path.join(plane.workdir, 'memory-snapshots')

    def start(self, timeout=180):
        """Restart the daemons traced; return once each serves again
        (its service's heartbeat, still fresh from before the restart,
        does not tell: a daemon importing under tracemalloc takes tens of
        seconds to start)."""
        os.makedirs(self.directory, exist_ok=True)
        logged = {}
        for name in self.names:
            daemon = self.plane.daemons[name]
            daemon.stop()
            daemon.env = dict(daemon.env,
                              PYTHONTRACEMALLOC=str(self.frames),
                              NOVA_LITE_MEMORY_SNAPSHOTS=self.directory)
            logged[name] = len(daemon.log())
            daemon.start()
        for name in self.names:
            daemon = self.plane.daemons[name]
            fixtures.wait_for(
                lambda: 'is serving' in daemon.log()[logged[name]:],
                timeout=timeout, what='%s serving again' % name)
            # A compute's host is its name, and so is that of a second
            # daemon of a kind (conductor2); the first runs on the
            # plane's default host, the machine's name.
            host = name if name[-1].isdigit() else socket.gethostname()
            self.plane.wait_for_service_up(
                host, 'nova-lite-' + daemon.module, timeout=timeout)

    def snapshot(self, timeout=120):
        """{daemon: the path of a snapshot it wrote now}."""
        taken = {}
        for name in self.names:
            daemon = self.plane.daemons[name]
            pattern = '-%d-' % daemon.process.pid
            before = {f for f in os.listdir(self.directory)
                      if pattern in f}
            daemon.process.send_signal(signal.SIGUSR2)

            def written():
                new = {f for f in os.listdir(self.directory)
                       if pattern in f and f.endswith('.snapshot')} - before
                return sorted(new)[-1] if new else None
            fixtures.wait_for(written, timeout=timeout, interval=0.2,
                              what='a memory snapshot of %s' % name)
            taken[name] = os.path.join(self.directory, written())
        return taken

    @staticmethod
    def growth(first, last, top=10):
        """The ``top`` source lines whose allocations grew most from
        snapshot ``first`` to ``last``: [(file:line, kB, blocks)]."""
        old = tracemalloc.Snapshot.load(first)
        new = tracemalloc.Snapshot.load(last)
        found = []
        for stat in new.compare_to(old, 'lineno')[:top]:
            frame = stat.traceback[0]
            found.append(('%s:%d' % (_short_path(frame.filename),
                                     frame.lineno),
                          round(stat.size_diff / 1024.0, 1),
                          stat.count_diff))
        return found


def _short_path(filename):
    for marker in ('site-packages/', '/nova_lite/', '/lib/python'):
        if marker in filename:
            return filename[filename.index(marker):].lstrip('/')
    return filename


def daemon_rss_kb(plane):
    """{daemon: resident memory in kB}, read from /proc."""
    found = {}
    for name, daemon in plane.daemons.items():
        if not daemon.running:
            continue
        try:
            with open('/proc/%d/status' % daemon.process.pid) as status:
                for line in status:
                    if line.startswith('VmRSS:'):
                        found[name] = int(line.split()[1])
        except OSError:
            pass
    return found


def soak(plane, seconds, audit_every=60, concurrency=4, seed=None,
         trace=None):
    """Mixed operations for ``seconds``: boots (some with a bandwidth
    port), stops, starts, rebuilds, live migrations and deletes, at most
    ``concurrency`` in flight, the number of servers kept between 2 and
    12; every ``audit_every`` seconds all operations are let finish and
    the audit runs. Figures: operations by kind and answer, audits and
    their violations, memory of each daemon before, after the first audit
    and at the end; with ``trace`` (a started MemoryTrace), for each of
    its daemons the source lines whose allocations grew most from the
    first audit to the end."""
    rng = random.Random(seed)
    admin = plane.client('admin')
    network = faults.bandwidth_network(plane)
    memory_before = memory_warm = daemon_rss_kb(plane)
    operations = collections.Counter()
    audits = []
    # Each daemon's RSS at each audit: whether what grows levels off.
    rss_at_audits = collections.defaultdict(list)
    stuck = []
    deadline = time.monotonic() + seconds
    next_audit = time.monotonic() + audit_every

    def servers():
        return faults.all_servers(plane)

    def act(server_list):
        settled = [s for s in server_list
                   if s['status'] in faults.FINAL and
                   not s.get('OS-EXT-STS:task_state')]
        choices = ['boot'] if len(server_list) < 12 else []
        if len(server_list) > 2:
            choices += ['delete']
        if any(s['status'] == 'ACTIVE' for s in settled):
            choices += ['stop', 'rebuild', 'live-migrate']
        if any(s['status'] == 'SHUTOFF' for s in settled):
            choices += ['start']
        if any(s['status'] == 'ERROR' for s in settled):
            choices += ['delete-error']
        kind = rng.choice(choices or ['boot'])
        active = [s for s in settled if s['status'] == 'ACTIVE']
        if kind == 'boot':
            body = {'server': {'name': 'soak', 'flavorRef': '2',
                               'imageRef': plane.image_id}}
            if rng.random() < 0.3:
                body['server']['networks'] = [{'port': network.qos_port()}]
            response = admin.post('/servers', body)
        elif kind == 'delete':
            response = admin.delete('/servers/%s' %
                                    rng.choice(server_list)['id'])
        elif kind == 'delete-error':
            response = admin.delete('/servers/%s' % rng.choice(
                [s for s in settled if s['status'] == 'ERROR'])['id'])
        elif kind == 'stop':
            response = admin.post('/servers/%s/action' %
                                  rng.choice(active)['id'],
                                  {'os-stop': None})
        elif kind == 'start':
            response = admin.post('/servers/%s/action' % rng.choice(
                [s for s in settled if s['status'] == 'SHUTOFF'])['id'],
                {'os-start': None})
        elif kind == 'rebuild':
            response = admin.post('/servers/%s/action' %
                                  rng.choice(active)['id'],
                                  {'rebuild': {'imageRef': plane.image_id}})
        else:
            response = admin.post(
                '/servers/%s/action' % rng.choice(active)['id'],
                {'os-migrateLive': {'host': None,
                                    'block_migration': 'auto'}},
                microversion='2.30')
        operations['%s %d' % (kind, response.status_code)] += 1

    with concurrent.futures.ThreadPoolExecutor(concurrency) as pool:
        while time.monotonic() < deadline:
            if time.monotonic() >= next_audit:
                audits.append(_audit_now(plane, stuck))
                for name, kb in daemon_rss_kb(plane).items():
                    rss_at_audits[name].append(kb)
                if len(audits) == 1:
                    # Past the start-up (pools, caches, threads): what
                    # grows after this is what the operations leave.
                    memory_warm = daemon_rss_kb(plane)
                    if trace is not None:
                        warm_snapshots = trace.snapshot()
                next_audit = time.monotonic() + audit_every
            server_list = servers()
            futures = [pool.submit(act, server_list)
                       for _ in range(concurrency)]
            for future in futures:
                try:
                    future.result(timeout=120)
                except Exception as error:
                    operations['client error %s' % type(error).__name__] += 1
            time.sleep(0.5)
    audits.append(_audit_now(plane, stuck))
    memory_after = daemon_rss_kb(plane)
    growth = {}
    if trace is not None and len(audits) > 1:
        last = trace.snapshot()
        growth = {name: MemoryTrace.growth(warm_snapshots[name], path)
                  for name, path in last.items()}
    return {
        'traced memory growth after the first audit (file:line, kB, '
        'blocks)': growth,
        'seconds': seconds,
        'operations': dict(sorted(operations.items())),
        'operations total': sum(operations.values()),
        'audits': len(audits),
        'audits with violations': sum(1 for a in audits if a),
        'violations': [v for a in audits for v in a][:20],
        'stuck servers': stuck[:20],
        'rss kB before': memory_before,
        'rss kB after the first audit': memory_warm,
        'rss kB after': memory_after,
        'rss kB at each audit': dict(rss_at_audits),
    }


def _audit_now(plane, stuck, settle_timeout=120):
    """Let what runs finish, then audit; the violations."""
    row = faults.Row('soak audit')
    faults.settle(plane, row, settle_timeout)
    stuck.extend(row.not_final)
    result = plane.audit(timeout=30)
    if result.returncode == 0:
        return []
    return [line for line in result.stdout.splitlines()
            if line.startswith('VIOLATION')]
