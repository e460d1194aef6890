#!/usr/bin/env python3
"""Benchmark: servers/s from POST to ACTIVE, the machine's CPU per boot,
and the conductor RPC round trip.

Starts a real control plane (api, conductor, scheduler and K fake
computes as separate processes, on this machine's RabbitMQ and MariaDB,
with databases and a vhost of their own), lifts the admin project's quota
through the API as an operator would, boots N servers through the REST
API in one multi-create request per batch, waits until all are ACTIVE
(read from the cell database, so that the waiting costs no API work),
then measures a no-op ``ping`` call to the conductor. Prints a report
with machine-readable lines (``cpu_ms_per_boot: X``: the CPU time of the
whole machine -- every process, MariaDB and RabbitMQ included -- from the
first POST until all are ACTIVE, divided by N; ``boots_per_s: Y``);
asserts nothing. The machine's CPU use over two idle seconds before the
first POST is printed too (``background_cpu_ms_per_s``): a run with a
busy background is not a clean one. So are the RPC messages and database
statements per boot (``rpc_messages_per_boot``, ``db_statements_per_boot``,
``db_commits_per_boot``), counted by every daemon (``nova_lite.counters``)
and read through SIGUSR2 before the first POST and after all are ACTIVE,
then where they come from: periodic tasks during the boots included,
at a deployment's default intervals unless ``--test-intervals``. The
CPU each daemon, MariaDB and RabbitMQ used is printed per boot too.

    tools/bench/boot_bench.py --servers 100 --computes 4 --pings 200

With ``--hosts H`` the servers go to H simulated hosts instead, run by
nova-lite-fake-computes processes of ``--hosts-per-process`` hosts each
(``SIMULATED_HOSTS_CONF``: a deployment's intervals, classic queues), on
a RabbitMQ node of the bench's own (``Broker``: oslo.messaging gives each
host's RPC server a connection of its own). Once they are up, what they
cost idle is measured over ``--idle-seconds``: the machine's CPU, and
each process's CPU, memory and threads, and the broker's connections and
queues.

    tools/bench/boot_bench.py --servers 500 --hosts 1000
"""

import argparse
import collections
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

import pymysql  # noqa: E402

from nova_lite import counters  # noqa: E402
from tests.functional import faults  # noqa: E402
from tests.functional import fixtures  # noqa: E402

PING_SCRIPT = r'''
import math, statistics, sys, time
from nova_lite import config, objects, context
config.parse_args(sys.argv[2:], configure_logging=False)
objects.register_all()
from nova_lite.conductor import rpcapi
api = rpcapi.ConductorAPI()
ctxt = context.get_admin_context()
api.ping(ctxt, 'warm-up')
samples = []
cpu = time.process_time()
for i in range(int(sys.argv[1])):
    start = time.perf_counter()
    api.ping(ctxt, i)
    samples.append((time.perf_counter() - start) * 1000)
cpu = (time.process_time() - cpu) * 1000 / len(samples)
samples.sort()
print('%.3f %.3f %.3f' % (statistics.median(samples),
                          samples[math.ceil(len(samples) * 0.95) - 1], cpu))
'''


# The simulated hosts' options: room for many servers; a deployment's
# heartbeat and audit intervals (not the test fixture's 1 s and 2 s: a
# thousand hosts' audits every 2 s would be all the machine does); and
# classic queues for their RPC topics -- three queues a host, which as
# quorum queues (the tests' setting, for broker restarts) cost RabbitMQ
# far more, and simulated hosts need not outlive a broker restart.
SIMULATED_HOSTS_CONF = """
[DEFAULT]
report_interval = 10
[compute]
fake_memory_mb = 1048576
fake_vcpus = 1024
fake_local_gb = 100000
update_resources_interval = 60
resource_provider_association_refresh = 300
[oslo_messaging_rabbit]
rabbit_quorum_queue = false
heartbeat_timeout_threshold = 60
"""
# --quiet-hosts: the audits and recoveries of the simulated hosts and the
# conductor's look for interrupted work ten times rarer, so that the
# boots are measured without the background of a thousand hosts' audits
# at a deployment's pace (which alone keeps this 2-core machine busy).
QUIET_HOSTS_CONF = """
[compute]
update_resources_interval = 600
recovery_interval = 300
"""
QUIET_PLANE_CONF = """
[conductor]
recovery_interval = 300
"""


class _RoomyRabbitNode(faults.RabbitNode):
    """A RabbitMQ node started with as many open files as the system
    lets it have: the packaged start (su to the rabbitmq user) gives it
    1,024, which RabbitMQ turns into 832 connections at most."""

    def start(self, timeout=90):
        self._write_config()
        command = 'ulimit -n "$(ulimit -Hn)" && exec rabbitmq-server -detached'
        if os.getuid() == 0:
            command = ['su', 'rabbitmq', '-s', '/bin/sh', '-c',
                       'cd /var/lib/rabbitmq && ' + command.replace(
                           'rabbitmq-server',
                           '/usr/lib/rabbitmq/bin/rabbitmq-server')]
        else:
            command = ['/bin/sh', '-c', command]
        subprocess.run(command, env=self.env(), check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.ctl('wait', self.pid_file, '--timeout', str(timeout))


class Broker:
    """A RabbitMQ node of the bench's own for a plane with simulated
    hosts (the plane's ``services``, with the machine's MariaDB): every
    host's RPC server has its own connection, a thousand of them more
    than the machine's node is allowed; and the node's CPU and memory are
    the plane's alone."""

    mysql_port_or_none = None

    def __init__(self):
        self.workdir = tempfile.mkdtemp(prefix='nova-lite-bench-')
        self.node = _RoomyRabbitNode(self.workdir, prefix='nlbb')

    @property
    def rabbit(self):
        return self.node.url

    def rabbitmqctl_args(self):
        return ['-n', self.node.name]

    def pid(self):
        with open(self.node.pid_file) as f:
            return int(f.read().strip())

    def start(self):
        try:
            self.node.start()
        except BaseException:
            self.stop()
            raise

    def stop(self):
        try:
            self.node.stop()
        finally:
            shutil.rmtree(self.workdir, ignore_errors=True)

    def count(self, what, vhost):
        """How many ``what`` (connections, queues) the node has."""
        output = self.node.ctl('-q', 'list_' + what, '-p', vhost, 'name')
        return len([line for line in output.splitlines() if line.strip()])


def process_usage(pid):
    """(CPU ms used so far, resident MB, threads) of process ``pid``."""
    with open('/proc/%d/stat' % pid) as f:
        fields = f.read().rsplit(')', 1)[1].split()
    cpu_ms = (int(fields[11]) + int(fields[12])) * 1000.0 / os.sysconf(
        'SC_CLK_TCK')
    return (cpu_ms, int(fields[21]) * os.sysconf('SC_PAGE_SIZE') / 2 ** 20,
            int(fields[17]))


def wait_until_settled(window=5.0, timeout=300):
    """Wait for the hosts' start-up work (their first reports to placement
    and the port service, which go on after they are mapped) to be over:
    until the machine's CPU over ``window`` seconds stops falling (at
    least 90% of the window before). Returns the seconds waited."""
    began = time.perf_counter()
    previous = None
    while time.perf_counter() - began < timeout:
        before = machine_cpu_ms()
        time.sleep(window)
        used = machine_cpu_ms() - before
        if previous is not None and used >= 0.9 * previous:
            break
        previous = used
    return time.perf_counter() - began


def print_idle_cost(plane, broker, hosts, seconds):
    """What the plane with ``hosts`` simulated hosts costs doing nothing,
    over ``seconds``: the machine's CPU, each process's, and the
    broker's connections and queues."""
    pids = {d.name: d.process.pid for d in plane.daemons.values()
            if d.running}
    pids['rabbitmq (the bench\'s node)'] = broker.pid()
    before = {name: process_usage(pid) for name, pid in pids.items()}
    began, machine_before = time.perf_counter(), machine_cpu_ms()
    time.sleep(seconds)
    elapsed = time.perf_counter() - began
    machine = (machine_cpu_ms() - machine_before) / elapsed
    print('idle, %d simulated hosts up, over %.0fs:' % (hosts, elapsed))
    print('idle_cpu_ms_per_s: %.0f' % machine)
    for name, pid in sorted(pids.items()):
        cpu_ms, rss, threads = process_usage(pid)
        print('  %-28s %6.1f ms/s CPU, %5.0f MB resident, %4d threads' % (
            name, (cpu_ms - before[name][0]) / elapsed, rss, threads))
    print('  broker: %d connections, %d queues' % (
        broker.count('connections', plane.vhost),
        broker.count('queues', plane.vhost)))


def machine_cpu_ms():
    """CPU time the whole machine has spent busy since boot, in ms (every
    CPU's user, nice, system, irq, softirq and steal time)."""
    with open('/proc/stat') as f:
        fields = [int(v) for v in f.readline().split()[1:]]
    user, nice, system, _idle, _iowait, irq, softirq, steal = fields[:8]
    busy = user + nice + system + irq + softirq + steal
    return busy * 1000.0 / os.sysconf('SC_CLK_TCK')


def read_counters(plane):
    """{daemon name: its counters}, read from each running daemon's log
    after a SIGUSR2 (``nova_lite.counters``)."""
    def reports(daemon):
        return [counts for counts in map(counters.parse,
                                         daemon.log().splitlines())
                if counts is not None]

    daemons = [d for d in plane.daemons.values() if d.running]
    before = {d.name: len(reports(d)) for d in daemons}
    for daemon in daemons:
        daemon.process.send_signal(signal.SIGUSR2)
    found = {}

    def all_reported():
        for daemon in daemons:
            if daemon.name not in found:
                seen = reports(daemon)
                if len(seen) > before[daemon.name]:
                    found[daemon.name] = seen[-1]
        return len(found) == len(daemons)
    fixtures.wait_for(all_reported, timeout=30, interval=0.05,
                      what='every daemon logging its counters')
    return found


def counted_work(before, after):
    """What every daemon counted between two read_counters(), as
    {(daemon, counter): amount}, zeros left out."""
    work = {}
    for daemon, counts in after.items():
        for name, value in counts.items():
            amount = value - before.get(daemon, {}).get(name, 0)
            if amount:
                work[daemon, name] = amount
    return work


def print_counted_work(work, servers):
    """The RPC messages and database statements per boot: the
    machine-readable totals, then where they came from."""
    # A call is a request and a reply; a cast one message.
    messages = sum(amount * (2 if name.startswith('rpc.call.') else 1)
                   for (_, name), amount in work.items()
                   if name.startswith('rpc.'))
    statements = sum(amount for (_, name), amount in work.items()
                     if name == 'db.statements')
    commits = sum(amount for (_, name), amount in work.items()
                  if name == 'db.commits')
    print('rpc_messages_per_boot: %.1f' % (messages / servers))
    print('db_statements_per_boot: %.1f' % (statements / servers))
    print('db_commits_per_boot: %.1f' % (commits / servers))
    per_daemon = collections.defaultdict(float)
    for (daemon, name), amount in work.items():
        if name == 'db.statements':
            per_daemon[daemon] += amount
    print('  database statements per boot, by daemon: %s' % ', '.join(
        '%s %.1f' % (daemon, amount / servers)
        for daemon, amount in sorted(per_daemon.items(),
                                     key=lambda item: -item[1])))
    received = collections.defaultdict(float)
    for (daemon, name), amount in work.items():
        if name.startswith('rpc.'):
            received[name[len('rpc.'):], daemon.rstrip('0123456789')] += \
                amount
    statements = sorted(((amount, daemon, name[len('sql.'):])
                         for (daemon, name), amount in work.items()
                         if name.startswith('sql.')), reverse=True)
    if statements:
        print('  statements per boot (at least one in 20 boots), by '
              'daemon and text:')
        for amount, daemon, text in statements:
            if amount / servers >= 0.05:
                print('    %6.2f  %-12s %s' % (
                    amount / servers, daemon, text))
    print('  RPC messages received per boot (calls count once here):')
    for (name, daemon), amount in sorted(received.items(),
                                         key=lambda item: -item[1]):
        print('    %6.2f  %-12s %s' % (amount / servers, daemon, name))


def process_cpu_ms(pid):
    """The CPU time process ``pid`` has used, in ms; 0 for one that is
    gone."""
    try:
        return process_usage(pid)[0]
    except OSError:
        return 0.0


def processes(plane):
    """{name: [pid]} of the plane's daemons, and of MariaDB and RabbitMQ
    (whose work for the boots counts too; every RabbitMQ node running)."""
    found = {d.name: [d.process.pid] for d in plane.daemons.values()
             if d.running}
    for entry in os.listdir('/proc'):
        if not entry.isdigit():
            continue
        try:
            with open('/proc/%s/comm' % entry) as f:
                command = f.read().strip()
        except OSError:
            continue
        if command in ('mariadbd', 'mysqld'):
            found.setdefault('mariadb', []).append(int(entry))
        elif command == 'beam.smp':
            found.setdefault('rabbitmq', []).append(int(entry))
    return found


def processes_cpu_ms(pids):
    """{name: CPU ms} of processes() over all their pids."""
    return {name: sum(map(process_cpu_ms, group))
            for name, group in pids.items()}


def checked(response):
    """``response``, or the run stops with its status and body."""
    if not 200 <= response.status_code < 300:
        raise SystemExit('%s %s: %d %s' % (
            response.request.method, response.request.url,
            response.status_code, response.text[:500]))
    return response


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--servers', type=int, default=100)
    parser.add_argument('--computes', type=int, default=4)
    parser.add_argument('--hosts', type=int, default=0,
                        help='boot onto this many simulated hosts '
                             '(nova-lite-fake-computes) instead of '
                             '--computes compute processes')
    parser.add_argument('--hosts-per-process', type=int, default=250,
                        help='simulated hosts per nova-lite-fake-computes '
                             'process')
    parser.add_argument('--idle-seconds', type=float, default=10,
                        help='with --hosts: how long their idle cost is '
                             'measured once they are up')
    parser.add_argument('--quiet-hosts', action='store_true',
                        help='with --hosts: their audits and recoveries, '
                             'and the conductor\'s, ten times rarer than a '
                             'deployment\'s (QUIET_HOSTS_CONF)')
    parser.add_argument('--batch', type=int, default=10,
                        help='servers per POST (max_count)')
    parser.add_argument('--pings', type=int, default=200)
    parser.add_argument('--no-counters', action='store_true',
                        help='do not read the daemons\' counters: for a '
                             'before/after run of code older than them '
                             '(whose daemons SIGUSR2 would stop)')
    parser.add_argument('--by-statement', action='store_true',
                        help='count each daemon\'s statements by their '
                             'text too, and print them per boot')
    parser.add_argument('--test-intervals', action='store_true',
                        help='keep the test fixture\'s 1 s heartbeats and '
                             '2 s resource audits instead of the defaults '
                             'a deployment runs with')
    args = parser.parse_args()
    if args.hosts:
        # The simulated hosts are the computes.
        args.computes = 0

    # Room for N servers; and, unless asked otherwise, the periodic tasks
    # at their deployment defaults (heartbeats every 10 s, audits every
    # 60 s), not at the test fixture's pace, whose audits re-read every
    # server in flight every 2 s.
    room = ('[compute]\nfake_memory_mb = 1048576\nfake_vcpus = 1024\n'
            'fake_local_gb = 100000\n')
    if not args.test_intervals:
        # (the provider caches of computes and the port service too: the
        # tests' 5 s is for tests that change providers behind their
        # backs; and no host discovery in the scheduler, off by default:
        # the bench maps the hosts with cell_v2 discover_hosts)
        room += ('update_resources_interval = 60\n'
                 'resource_provider_association_refresh = 300\n'
                 '[DEFAULT]\nreport_interval = 10\n'
                 'service_down_time = 60\n'
                 '[scheduler]\ndiscover_hosts_in_cells_interval = -1\n')
    plane = fixtures.ControlPlane(computes=args.computes, extra_conf=room)
    plane.discover_by_command = not args.test_intervals
    # Computes read their own files (a later value of an option wins).
    plane.compute_conf = {i: room for i in range(1, args.computes + 1)}
    if args.by_statement:
        plane.env['NOVA_LITE_COUNT_BY_STATEMENT'] = '1'
    broker = Broker() if args.hosts else None
    if broker is not None:
        print('starting a RabbitMQ node of the bench\'s own...')
        broker.start()
        plane.use_services(broker)
        # Heartbeats every 10 s are not late for the scheduler, and one
        # page lists every hypervisor (wait_for_hypervisors).
        plane.extra_conf += (
            '[DEFAULT]\nservice_down_time = 60\n[api]\nmax_limit = %d\n'
            % max(1000, args.hosts))
        if args.quiet_hosts:
            plane.extra_conf += QUIET_PLANE_CONF
    print('starting control plane with %d computes...' % args.computes)
    try:
        plane.start()
    except BaseException:
        # The daemons it started would outlive the bench.
        plane.stop()
        if broker is not None:
            broker.stop()
        raise
    try:
        if args.hosts:
            print('starting %d simulated hosts, %d per process (report_'
                  'interval 10 s, update_resources_interval %d s, classic '
                  'queues)...' % (args.hosts, args.hosts_per_process,
                                  600 if args.quiet_hosts else 60))
            began = time.perf_counter()
            plane.start_simulated_hosts(
                args.hosts, args.hosts_per_process, SIMULATED_HOSTS_CONF +
                (QUIET_HOSTS_CONF if args.quiet_hosts else ''))
            plane.wait_for_simulated_hosts(args.hosts,
                                           timeout=120 + args.hosts)
            print('simulated hosts up and mapped after %.0fs' % (
                time.perf_counter() - began))
            print('their start-up work over after %.0fs more' %
                  wait_until_settled())
            print_idle_cost(plane, broker, args.hosts, args.idle_seconds)
        admin = plane.client()
        # No quota for the benchmark's project: the default (10
        # instances) would refuse the boots.
        checked(admin.put('/os-quota-sets/admin', {'quota_set': {
            'instances': -1, 'cores': -1, 'ram': -1}}))
        # One connection for the polling (its cost is counted too).
        poll = pymysql.connect(host='127.0.0.1', port=plane.mysql_port,
                               user='root', password='', autocommit=True)
        cell, cell0 = plane.databases[1], plane.databases[2]

        def all_active():
            with poll.cursor() as cursor:
                cursor.execute(
                    "SELECT COALESCE(SUM(vm_state = 'active'), 0), "
                    "COALESCE(SUM(vm_state = 'error'), 0) FROM `%s`.instances "
                    "WHERE deleted = 0" % cell)
                active, errors = cursor.fetchone()
                # A build that found no host is buried in cell0.
                cursor.execute('SELECT COUNT(*) FROM `%s`.instances' % cell0)
                buried, = cursor.fetchone()
            if errors or buried:
                raise SystemExit('a server went to ERROR: %s' % plane.query(
                    cell0 if buried else cell,
                    'SELECT message FROM instance_faults LIMIT 1'))
            return active >= args.servers

        idle_from, idle_cpu = time.perf_counter(), machine_cpu_ms()
        time.sleep(2)
        background = (machine_cpu_ms() - idle_cpu) / (
            time.perf_counter() - idle_from)
        counted_before = None if args.no_counters else read_counters(plane)
        pids = processes(plane)
        cpu_before = processes_cpu_ms(pids)
        start, start_cpu = time.perf_counter(), machine_cpu_ms()
        remaining = args.servers
        while remaining:
            batch = min(args.batch, remaining)
            checked(admin.post('/servers', {'server': {
                'name': 'bench', 'flavorRef': '2',
                'imageRef': plane.image_id, 'min_count': batch,
                'max_count': batch}}))
            remaining -= batch
        posted = time.perf_counter() - start
        fixtures.wait_for(all_active, timeout=600, interval=0.1,
                          what='all servers ACTIVE')
        elapsed = time.perf_counter() - start
        cpu_ms = machine_cpu_ms() - start_cpu
        by_process = {name: used - cpu_before[name]
                      for name, used in processes_cpu_ms(pids).items()}
        work = None if args.no_counters else counted_work(
            counted_before, read_counters(plane))

        before_pings = processes_cpu_ms(pids)
        ping = subprocess.run(
            [sys.executable, '-c', PING_SCRIPT, str(args.pings),
             '--config-file', plane.conf],
            capture_output=True, text=True, cwd=ROOT, env=plane.env)
        if ping.returncode:
            raise SystemExit(ping.stderr)
        median, p95, caller_cpu = ping.stdout.split()
        # What a no-op call costs each side: the floor under every
        # object call a boot makes (the daemons' share counts their idle
        # work while the caller started, a few ms).
        ping_cpu = {name: (used - before_pings[name]) / args.pings
                    for name, used in processes_cpu_ms(pids).items()
                    if name in ('conductor', 'rabbitmq')}
        print('servers: %d on %s, batches of %d' % (
            args.servers, '%d simulated hosts' % args.hosts if args.hosts
            else '%d computes' % args.computes, args.batch))
        print('POST phase: %.2fs; POST to all ACTIVE: %.2fs -> %.1f '
              'servers/s' % (posted, elapsed, args.servers / elapsed))
        print('machine CPU from the first POST to all ACTIVE: %.0f ms on '
              '%d CPUs' % (cpu_ms, os.cpu_count()))
        print('background_cpu_ms_per_s: %.0f' % background)
        print('  CPU per boot, by process (ms): %s; the rest of the '
              'machine %.1f' % (', '.join(
                  '%s %.1f' % (name, used / args.servers)
                  for name, used in sorted(by_process.items(),
                                           key=lambda item: -item[1])),
                  (cpu_ms - sum(by_process.values())) / args.servers))
        print('cpu_ms_per_boot: %.1f' % (cpu_ms / args.servers))
        print('boots_per_s: %.1f' % (args.servers / elapsed))
        if work is not None:
            print_counted_work(work, args.servers)
        print('conductor ping round trip over RabbitMQ: median %s ms, '
              'p95 %s ms (%d calls)' % (median, p95, args.pings))
        print('  CPU per ping (ms): caller %s, %s' % (caller_cpu, ', '.join(
            '%s %.2f' % item for item in sorted(ping_cpu.items()))))
    finally:
        plane.stop()
        if broker is not None:
            broker.stop()


if __name__ == '__main__':
    main()
