"""Fault injection against a real control plane: a workload, a fault at a
chosen point, then settling and the checks that say nothing was lost and
nothing is half-done.

A scenario is a function ``scenario(plane, row)`` that drives a
``ControlPlane`` (tests/functional/fixtures.py) through the REST API and
injures it (``plane.daemons[name].kill()`` sends SIGKILL; ``PrivateServices``
restarts a broker or database of the plane's own). ``run_scenario`` then
waits for every server to reach a final state and checks:

- every server is ACTIVE, SHUTOFF, SHELVED_OFFLOADED or gone within
  ``settle_timeout`` -- none stays in a task, and no boot is in ERROR: the
  scenarios leave room for every server, so an ERROR would be the fault's
  doing (each one is listed with its fault; a rebuild of an existing
  server cut off by a fault may still end in ERROR, listed but not yet
  failing the row);
- ``nova-lite-manage audit`` finds nothing (allocations, bindings,
  capacity, records);
- every server is listed exactly once;
- deleting every server leaves nothing behind (audited again);
- the daemons serve again: a server booted after that becomes ACTIVE and
  is deleted.

Each run gives a ``Row``: scenario, requests, final states, audit
violations, recovery time. ``tools/fault_suite.py`` prints them as a table;
``tests/functional/test_faults.py`` runs short versions in the normal test
run.
"""

import collections
import concurrent.futures
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time

import requests

from tests.functional import fixtures

FINAL = ('ACTIVE', 'SHUTOFF', 'ERROR', 'SHELVED_OFFLOADED', 'VERIFY_RESIZE')

# What a control plane under fault injection is configured with: builds
# and tasks nothing moves forward are taken over after 20 s, looked for
# every 2 s; RPC calls give up after 10 s.
RECOVERY_CONF = """
[DEFAULT]
rpc_response_timeout = 10
[quota]
instances = -1
cores = -1
ram = -1
[conductor]
interrupted_task_timeout = 20
recovery_interval = 2
scheduler_call_timeout = 10
"""
COMPUTE_RECOVERY_CONF = """
[DEFAULT]
rpc_response_timeout = 10
[compute]
interrupted_task_timeout = 20
recovery_interval = 2
# Room for every server of a scenario: a server in ERROR is then the
# fault's doing, never the capacity's.
fake_vcpus = 64
fake_memory_mb = 65536
fake_local_gb = 1000
"""


class Row:
    """One scenario's outcome, as a line of the table."""

    def __init__(self, scenario):
        self.scenario = scenario
        self.accepted = 0
        self.refused = collections.Counter()   # reason -> count
        self.final = collections.Counter()     # status -> count
        self.not_final = []                    # "uuid: STATUS/task"
        self.errors = []                       # "uuid (name): fault"
        self.violations = []
        self.listing_problems = []
        self.recovery_seconds = None
        self.probe = None                      # the after-fault boot
        self.notes = []

    @property
    def ok(self):
        # Capacity is ample in every scenario, so a server in ERROR is the
        # fault's doing (a boot, or a rebuild of a server that existed
        # before the burst): a fault may delay work, never fail it.
        return (not self.not_final and not self.errors and
                not self.violations and not self.listing_problems and
                self.probe == 'ACTIVE')

    def requests_text(self):
        refused = sum(self.refused.values())
        text = '%d accepted' % self.accepted
        if refused:
            text += ', %d refused (%s)' % (refused, ', '.join(
                '%s %d' % item for item in sorted(self.refused.items())))
        return text

    def final_text(self):
        parts = ['%s %d' % item for item in sorted(self.final.items())]
        if self.not_final:
            parts.append('NOT FINAL %d' % len(self.not_final))
        return ', '.join(parts) or '-'

    def as_dict(self):
        return {'scenario': self.scenario,
                'requests': self.requests_text(),
                'final states': self.final_text(),
                'audit violations': len(self.violations),
                'listing problems': len(self.listing_problems),
                'recovery s': ('%.1f' % self.recovery_seconds
                               if self.recovery_seconds is not None
                               else '-'),
                'probe boot': self.probe or '-'}

    def details(self):
        lines = []
        for title, items in (('not final', self.not_final),
                             ('ERROR', self.errors),
                             ('audit', self.violations),
                             ('listing', self.listing_problems),
                             ('notes', self.notes)):
            for item in items:
                lines.append('%s: %s' % (title, item))
        return '\n'.join(lines)


def table(rows):
    """The rows as a Markdown table."""
    columns = ['scenario', 'requests', 'final states', 'audit violations',
               'listing problems', 'recovery s', 'probe boot']
    lines = ['| ' + ' | '.join(columns) + ' |',
             '|' + '---|' * len(columns)]
    for row in rows:
        values = row.as_dict()
        lines.append('| ' + ' | '.join(str(values[c]) for c in columns) +
                     ' |')
    return '\n'.join(lines)


# -- workload -----------------------------------------------------------------

class Workload:
    """Requests sent through the compute API from a pool of client
    threads, counted into a Row as accepted or refused."""

    def __init__(self, plane, row, threads=8):
        self.plane = plane
        self.row = row
        self.admin = plane.client('admin')
        self.pool = concurrent.futures.ThreadPoolExecutor(threads)
        self.futures = []
        self.lock = threading.Lock()
        self.accepted_ids = []

    def _count(self, response=None, error=None):
        with self.lock:
            if response is not None and response.status_code < 300:
                self.row.accepted += 1
                return True
            reason = ('HTTP %d' % response.status_code if response is not
                      None else type(error).__name__)
            self.row.refused[reason] += 1
            if response is not None and response.status_code >= 500:
                self.row.notes.append('5xx: %s' % response.text[:300])
            return False

    def _boot(self, name, networks=None, hints=None):
        body = {'server': {'name': name, 'flavorRef': '2',
                           'imageRef': self.plane.image_id}}
        if networks:
            body['server']['networks'] = networks
        if hints:
            body['os:scheduler_hints'] = hints
        try:
            response = self.admin.post('/servers', body, timeout=30)
        except requests.RequestException as error:
            self._count(error=error)
            return None
        if self._count(response):
            server_id = response.json()['server']['id']
            with self.lock:
                self.accepted_ids.append(server_id)
            return server_id
        return None

    def boot(self, name, **kwargs):
        self.futures.append(self.pool.submit(self._boot, name, **kwargs))

    def burst(self, prefix, count, **kwargs):
        for index in range(count):
            self.boot('%s-%d' % (prefix, index), **kwargs)

    def action(self, server_id, body, microversion=None):
        def send():
            try:
                response = self.admin.post(
                    '/servers/%s/action' % server_id, body,
                    microversion=microversion, timeout=30)
            except requests.RequestException as error:
                self._count(error=error)
                return
            self._count(response)
        self.futures.append(self.pool.submit(send))

    def delete(self, server_id):
        def send():
            try:
                response = self.admin.delete('/servers/%s' % server_id,
                                             timeout=30)
            except requests.RequestException as error:
                self._count(error=error)
                return
            self._count(response)
        self.futures.append(self.pool.submit(send))

    def wait(self, timeout=120):
        concurrent.futures.wait(self.futures, timeout)
        self.pool.shutdown(wait=False)


# -- observing ----------------------------------------------------------------

def all_servers(plane):
    """Every server the API lists (all projects), with its task state."""
    response = plane.client('admin').get(
        '/servers/detail', params={'all_tenants': '1', 'limit': '1000'},
        timeout=30)
    response.raise_for_status()
    return response.json()['servers']


def _settled(server):
    return (server['status'] in FINAL and
            not server.get('OS-EXT-STS:task_state'))


def settle(plane, row, timeout):
    """Wait until every listed server is final; the seconds it took (the
    not-final ones are recorded in ``row`` if the time runs out)."""
    started = time.monotonic()
    deadline = started + timeout
    servers = []
    while time.monotonic() < deadline:
        try:
            servers = all_servers(plane)
        except (requests.RequestException, ValueError):
            time.sleep(1)
            continue
        if all(_settled(s) for s in servers):
            return time.monotonic() - started
        time.sleep(1)
    row.not_final = ['%s: %s/%s' % (s['id'], s['status'],
                                    s.get('OS-EXT-STS:task_state'))
                     for s in servers if not _settled(s)]
    return time.monotonic() - started


def check(plane, row, audit_timeout=30):
    servers = all_servers(plane)
    ids = collections.Counter(s['id'] for s in servers)
    row.listing_problems += ['%s listed %d times' % (uuid, n)
                             for uuid, n in ids.items() if n > 1]
    row.final = collections.Counter(s['status'] for s in servers)
    for server in servers:
        if server['status'] != 'ERROR':
            continue
        fault = server.get('fault') or {}
        message = fault.get('message')
        if not message:
            row.listing_problems.append('%s is in ERROR without a fault' %
                                        server['id'])
        else:
            row.errors.append('%s (%s): %s%s' % (
                server['id'], server['name'], message[:300],
                ' -- %s' % fault['details'][-300:]
                if fault.get('details') else ''))
    result = plane.audit(timeout=audit_timeout)
    if result.returncode != 0:
        row.violations += [line for line in result.stdout.splitlines()
                           if line.strip() and not line.startswith('Checked')]
        if not row.violations:
            row.violations.append((result.stdout + result.stderr)[-500:])


def probe(plane, row, timeout=90):
    """A boot after the fault: the daemons serve again."""
    admin = plane.client('admin')
    try:
        created = admin.create_server('probe', image=plane.image_id)
        server = admin.wait_for_status(created['server']['id'],
                                       ('ACTIVE', 'ERROR'), timeout=timeout)
        row.probe = server['status']
        if server['status'] == 'ERROR':
            row.notes.append('probe fault: %s' % server.get('fault'))
        admin.delete('/servers/%s' % server['id'])
        admin.wait_for_gone(server['id'])
    except Exception as error:
        row.probe = 'failed: %s' % str(error)[:200]


def clean_up(plane, row, timeout=120):
    """Delete every server; what is left afterwards must audit clean."""
    admin = plane.client('admin')
    for server in all_servers(plane):
        admin.delete('/servers/%s' % server['id'])
    try:
        fixtures.wait_for(lambda: not all_servers(plane), timeout,
                          what='every server deleted')
    except fixtures.Timeout as error:
        row.notes.append(str(error)[:300])
    result = plane.audit(timeout=30)
    if result.returncode != 0:
        row.violations += ['after deleting everything: ' + line
                           for line in result.stdout.splitlines()
                           if line.strip() and not line.startswith('Checked')]


def run_scenario(plane, name, scenario, settle_timeout=120):
    """Run ``scenario(plane, row)`` and the checks; the Row."""
    row = Row(name)
    fault_over = scenario(plane, row)
    started = fault_over or time.monotonic()
    settle(plane, row, settle_timeout)
    check(plane, row)
    row.recovery_seconds = time.monotonic() - started
    clean_up(plane, row)
    probe(plane, row)
    return row


# -- scenarios ----------------------------------------------------------------

def mixed_burst(plane, row, count):
    """What runs while a fault hits: ``count`` boots -- every third with a
    bandwidth port, every fourth in a soft-anti-affinity group -- and,
    among them, rebuilds, stops and deletes of servers that were ACTIVE
    before. Returns the Workload (wait() on it)."""
    admin = plane.client('admin')
    network = bandwidth_network(plane)
    response = admin.post('/os-server-groups', {'server_group': {
        'name': 'burst', 'policies': ['soft-anti-affinity']}},
        microversion='2.15')
    assert response.status_code == 200, response.text
    group = response.json()['server_group']
    existing = []
    for index in range(3):
        created = admin.create_server('existing-%d' % index,
                                      image=plane.image_id)
        existing.append(created['server']['id'])
    for server_id in existing:
        admin.wait_for_status(server_id, 'ACTIVE', timeout=90)
    workload = Workload(plane, row)
    for index in range(count):
        kwargs = {}
        if index % 3 == 0:
            kwargs['networks'] = [{'port': network.qos_port()}]
        if index % 4 == 1:
            kwargs['hints'] = {'group': group['id']}
        workload.boot('burst-%d' % index, **kwargs)
    workload.action(existing[0], {'rebuild': {'imageRef': plane.image_id}})
    workload.action(existing[1], {'os-stop': None})
    workload.delete(existing[2])
    return workload


class bandwidth_network:
    """A physnet0 network and a minimum-bandwidth QoS policy (1000 kbps
    each way) on the plane's port service, made once per plane."""

    def __new__(cls, plane):
        found = getattr(plane, '_fault_network', None)
        if found is None:
            found = plane._fault_network = super().__new__(cls)
            found._set_up(plane)
        return found

    def _set_up(self, plane):
        self.plane = plane
        self.network = self._post('/networks', {'network': {
            'name': 'physnet0-net', 'shared': True,
            'provider:network_type': 'flat',
            'provider:physical_network': 'physnet0'}})['network']
        self.policy = self._post('/qos/policies', {'policy': {
            'name': 'min-bw', 'shared': True}})['policy']
        for direction in ('egress', 'ingress'):
            self._post('/qos/policies/%s/minimum_bandwidth_rules' %
                       self.policy['id'], {'minimum_bandwidth_rule': {
                           'min_kbps': 1000, 'direction': direction}})
        plane.wait_for_bandwidth_providers(plane.num_computes)

    def _post(self, path, body):
        response = requests.post(self.plane.network_url + '/v2.0' + path,
                                 json=body, headers={'X-Auth-Token': 'admin'},
                                 timeout=30)
        response.raise_for_status()
        return response.json()

    def qos_port(self):
        return self._post('/ports', {'port': {
            'network_id': self.network['id'],
            'qos_policy_id': self.policy['id']}})['port']['id']


def kill_during_build_burst(daemon, count=12, down_seconds=3,
                            kill_after=0.6):
    """A mixed burst (see mixed_burst); ``kill_after`` seconds in,
    SIGKILL ``daemon``; ``down_seconds`` later, start it again."""
    def scenario(plane, row):
        workload = mixed_burst(plane, row, count)
        time.sleep(kill_after)
        plane.daemons[daemon].kill()
        time.sleep(down_seconds)
        plane.daemons[daemon].start()
        if daemon == 'api':
            plane.wait_for_api()
        workload.wait()
        return time.monotonic()
    return scenario


def compute_killed_mid_live_migration(which='source', count=2):
    """``count`` servers on compute1 live migrating to compute2 (the fake
    transfer takes [compute] fake_live_migration_seconds); while they
    run, SIGKILL the ``source`` or the ``destination`` compute and start
    it again."""
    def scenario(plane, row):
        admin = plane.client('admin')
        ids = []
        for index in range(count):
            created = admin.create_server(
                'lm-%d' % index, image=plane.image_id,
                **{'availability_zone': 'nova:compute1'})
            ids.append(created['server']['id'])
        for server_id in ids:
            admin.wait_for_status(server_id, 'ACTIVE', timeout=60)
        workload = Workload(plane, row)
        for server_id in ids:
            workload.action(server_id, {'os-migrateLive': {
                'host': 'compute2', 'block_migration': 'auto'}},
                microversion='2.30')
        workload.wait()
        fixtures.wait_for(lambda: all(
            m['status'] == 'running' for m in admin.get(
                '/os-migrations').json()['migrations']
            if m['instance_uuid'] in ids) or None, 30,
            what='live migrations running')
        victim = 'compute1' if which == 'source' else 'compute2'
        plane.daemons[victim].kill()
        time.sleep(2)
        plane.daemons[victim].start()
        return time.monotonic()
    return scenario


# The flavor the resize scenarios resize to (m1.small is the boots').
RESIZE_FLAVOR = '3'

# A resize's source sends the disks for this long, and its destination
# spawns for this long: the window each kill lands in.
RESIZE_CONF = {1: '\n[compute]\nfake_resize_seconds = 8\n',
               2: '\n[compute]\nfake_spawn_seconds = 8\n'}


def compute_killed_mid_resize(which='source', count=2):
    """``count`` servers on compute1 resized to a larger flavor, compute2
    being the only other host. While the source sends their disks
    ([compute] fake_resize_seconds on compute1) -- or, for
    ``destination``, while compute2 spawns them ([compute]
    fake_spawn_seconds on compute2) -- SIGKILL that compute and start it
    again. The resizes cut off are undone: the servers ACTIVE on compute1
    as they were."""
    def scenario(plane, row):
        admin = plane.client('admin')
        if admin.get('/flavors/%s' % RESIZE_FLAVOR).status_code == 404:
            plane.manage('flavor', 'create', 'm1.medium', '--id',
                         RESIZE_FLAVOR, '--ram', '4096', '--vcpus', '2',
                         '--disk', '20')
        ids = []
        for index in range(count):
            created = admin.create_server(
                'rz-%d' % index, image=plane.image_id,
                **{'availability_zone': 'nova:compute1'})
            ids.append(created['server']['id'])
        for server_id in ids:
            admin.wait_for_status(server_id, 'ACTIVE', timeout=60)
        workload = Workload(plane, row)
        for server_id in ids:
            workload.action(server_id, {'resize': {
                'flavorRef': RESIZE_FLAVOR}})
        workload.wait()
        cut_at = 'migrating' if which == 'source' else 'post-migrating'
        fixtures.wait_for(lambda: all(
            m['status'] == cut_at for m in admin.get(
                '/os-migrations').json()['migrations']
            if m['instance_uuid'] in ids) or None, 60,
            what='resizes %s' % cut_at)
        victim = 'compute1' if which == 'source' else 'compute2'
        plane.daemons[victim].kill()
        time.sleep(2)
        plane.daemons[victim].start()
        return time.monotonic()
    return scenario


def source_restarted_after_evacuation(count=3):
    """Servers on compute1; compute1 is killed and forced down; every
    server is evacuated; compute1 starts again and must clean up."""
    def scenario(plane, row):
        admin = plane.client('admin')
        ids = []
        for index in range(count):
            created = admin.create_server(
                'ev-%d' % index, image=plane.image_id,
                **{'availability_zone': 'nova:compute1'})
            ids.append(created['server']['id'])
        for server_id in ids:
            admin.wait_for_status(server_id, 'ACTIVE', timeout=60)
        plane.daemons['compute1'].kill()
        [service] = [s for s in admin.get('/os-services').json()['services']
                     if s['host'] == 'compute1' and
                     s['binary'] == 'nova-lite-compute']
        admin.put('/os-services/%s' % service['id'], {'forced_down': True},
                  microversion='2.53').raise_for_status()
        workload = Workload(plane, row)
        for server_id in ids:
            workload.action(server_id, {'evacuate': {}}, microversion='2.29')
        workload.wait()
        for server_id in ids:
            admin.wait_for_status(server_id, FINAL, timeout=60)
        plane.daemons['compute1'].start()
        admin.put('/os-services/%s' % service['id'], {'forced_down': False},
                  microversion='2.53').raise_for_status()
        plane.wait_for_compute_up('compute1')
        return time.monotonic()
    return scenario


def service_restarted_under_load(which, count=12, down_seconds=5):
    """A burst of boots while the plane's own RabbitMQ (``which`` =
    'rabbitmq') or MariaDB ('mariadb') is stopped and started again."""
    def scenario(plane, row):
        workload = mixed_burst(plane, row, count)
        time.sleep(0.5)
        if which == 'rabbitmq':
            plane.services.restart_rabbitmq(down_seconds)
        else:
            plane.services.restart_mariadb(down_seconds)
        workload.wait()
        return time.monotonic()
    return scenario


def cluster_node_stopped_under_load(number, count=12, down_seconds=5):
    """A burst of boots while node ``number`` of the plane's cluster is
    stopped and started again. On a RabbitMQ cluster
    (``rabbit_cluster.RabbitCluster``) the daemons connected to it fail
    over to the other nodes, and the quorum queues keep what they hold;
    on a Galera cluster (``galera_cluster.GaleraCluster``) HAProxy cuts
    the connections to it and sends the new ones to a node still in the
    cluster, which has every committed write."""
    def scenario(plane, row):
        workload = mixed_burst(plane, row, count)
        time.sleep(0.5)
        plane.services.restart_node(number, down_seconds)
        workload.wait()
        return time.monotonic()
    return scenario


# -- a broker and a database of the plane's own -------------------------------

def wait_for_mysql(port, what, timeout=60):
    """Until root can connect to the MySQL protocol on ``port``."""
    import pymysql

    def answers():
        try:
            pymysql.connect(host='127.0.0.1', port=port, user='root',
                            password='', connect_timeout=2).close()
            return True
        except pymysql.err.OperationalError:
            return False
    fixtures.wait_for(answers, timeout, interval=0.3, what=what)


class NodeCluster:
    """What a cluster of the plane's own (``rabbit_cluster``,
    ``galera_cluster``) does with its ``nodes``, numbered from 1: it
    stops one and starts it again (``start_node``, the cluster's own),
    and runs as a context manager (``start``/``stop``)."""

    def node(self, number):
        if not 1 <= number <= len(self.nodes):
            raise IndexError('no node %r in a cluster of %d' %
                             (number, len(self.nodes)))
        return self.nodes[number - 1]

    def stop_node(self, number):
        self.stopped.add(number)
        self.node(number).stop()

    def restart_node(self, number, down_seconds=0):
        self.stop_node(number)
        time.sleep(down_seconds)
        self.start_node(number)

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc_info):
        self.stop()


_free_port = fixtures.free_port


class RabbitNode:
    """One RabbitMQ node of a test's own: its node name, AMQP port and
    distribution port, with its config, database and logs in ``workdir``.

    The nodes run as the rabbitmq user (the packaged wrapper switches to
    it when started as root), so ``workdir`` is made writable for all; for
    the same reason every node shares that user's Erlang cookie, which
    lets nodes started this way join each other's cluster."""

    def __init__(self, workdir, prefix='nlft'):
        os.makedirs(workdir, exist_ok=True)
        os.chmod(workdir, 0o777)
        self.workdir = workdir
        self.port = _free_port()
        self.dist_port = _free_port()
        self.name = '%s%d@localhost' % (prefix, self.port)
        self.conf = os.path.join(workdir, 'rabbitmq.conf')
        self.plugins = os.path.join(workdir, 'enabled_plugins')
        self.pid_file = os.path.join(workdir, 'rabbit.pid')

    @property
    def url(self):
        return 'rabbit://guest:guest@127.0.0.1:%d/' % self.port

    def _write_config(self):
        if os.path.exists(self.conf):
            return
        with open(self.conf, 'w') as f:
            f.write('listeners.tcp.local = 127.0.0.1:%d\n'
                    'loopback_users = none\n' % self.port)
        with open(self.plugins, 'w') as f:
            f.write('[].\n')
        os.chmod(self.conf, 0o644)
        os.chmod(self.plugins, 0o644)

    def env(self):
        return dict(os.environ, RABBITMQ_NODENAME=self.name,
                    RABBITMQ_DIST_PORT=str(self.dist_port),
                    RABBITMQ_MNESIA_BASE=os.path.join(self.workdir, 'mnesia'),
                    RABBITMQ_LOG_BASE=os.path.join(self.workdir, 'rlog'),
                    RABBITMQ_ENABLED_PLUGINS_FILE=self.plugins,
                    RABBITMQ_PID_FILE=self.pid_file,
                    RABBITMQ_CONFIG_FILE=self.conf)

    def ctl(self, *args, check=True):
        """``rabbitmqctl -n <this node> args``; its stdout."""
        return subprocess.run(['rabbitmqctl', '-n', self.name] + list(args),
                              env=self.env(), check=check, text=True,
                              stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE).stdout

    def start(self, timeout=90):
        """Start the node; return once its application runs."""
        self._write_config()
        subprocess.run(['rabbitmq-server', '-detached'], env=self.env(),
                       check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        self.ctl('wait', self.pid_file, '--timeout', str(timeout))

    def stop(self):
        """Stop the node, if it runs, and wait for its VM to exit: the
        same node name cannot start again while the old one is there."""
        self.ctl('stop', self.pid_file, check=False)
        pid = self._pid()
        if pid is not None:
            # It did not stop when asked (hung, or refusing): it must not
            # outlive the test.
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def _pid(self):
        """The pid of this node's VM while it runs, else None."""
        try:
            with open(self.pid_file) as f:
                pid = int(f.read().strip())
            with open('/proc/%d/environ' % pid, 'rb') as f:
                environ = f.read().split(b'\0')
        except (OSError, ValueError):
            return None
        # A pid file left behind may name a pid that is now another
        # process's; the VM's command line does not name the node.
        mine = ('RABBITMQ_NODENAME=' + self.name).encode()
        return pid if mine in environ else None


class PrivateServices:
    """A RabbitMQ node and a MariaDB server started for one control plane
    (on their own ports, in a temporary directory), so that restarting
    them hurts no other test running at the same time."""

    def __init__(self, max_connections=500):
        # MariaDB's own default, 151, is less than a plane with two
        # conductors and two schedulers may open under a burst.
        self.max_connections = max_connections
        self.workdir = tempfile.mkdtemp(prefix='nova-lite-svc-')
        os.chmod(self.workdir, 0o777)
        self.rabbit_node = RabbitNode(self.workdir)
        self.mysql_port = _free_port()
        self.mysqld = None

    # The fixture's view: where to connect.
    @property
    def rabbit(self):
        return self.rabbit_node.url

    @property
    def mysql_port_or_none(self):
        return self.mysql_port

    def rabbitmqctl_args(self):
        return ['-n', self.rabbit_node.name]

    def start(self):
        self._start_mariadb(initialise=True)
        self.rabbit_node.start()

    def stop(self):
        self.rabbit_node.stop()
        self._stop_mariadb()
        shutil.rmtree(self.workdir, ignore_errors=True)

    def restart_rabbitmq(self, down_seconds=0):
        self.rabbit_node.stop()
        time.sleep(down_seconds)
        self.rabbit_node.start()

    # -- MariaDB --

    def _start_mariadb(self, initialise=False):
        datadir = os.path.join(self.workdir, 'mysql')
        if initialise:
            subprocess.run(['mariadb-install-db', '--no-defaults',
                            '--datadir=' + datadir,
                            '--auth-root-authentication-method=normal',
                            '--skip-test-db'], check=True,
                           stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
        log = open(os.path.join(self.workdir, 'mysqld.log'), 'ab')
        self.mysqld = subprocess.Popen(
            ['/usr/sbin/mariadbd', '--no-defaults', '--datadir=' + datadir,
             '--port=%d' % self.mysql_port, '--bind-address=127.0.0.1',
             '--socket=' + os.path.join(self.workdir, 'mysqld.sock'),
             '--pid-file=' + os.path.join(self.workdir, 'mysqld.pid'),
             '--user=root', '--skip-log-bin',
             '--innodb-buffer-pool-size=128M',
             '--max-connections=%d' % self.max_connections],
            stdout=log, stderr=subprocess.STDOUT)
        log.close()

        wait_for_mysql(self.mysql_port, 'private MariaDB answering')

    def _stop_mariadb(self):
        if self.mysqld is not None and self.mysqld.poll() is None:
            self.mysqld.terminate()
            try:
                self.mysqld.wait(60)
            except subprocess.TimeoutExpired:
                self.mysqld.kill()
                self.mysqld.wait()

    def restart_mariadb(self, down_seconds=0):
        self._stop_mariadb()
        time.sleep(down_seconds)
        self._start_mariadb()
