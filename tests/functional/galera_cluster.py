"""A MariaDB Galera cluster of three nodes on this machine, behind HAProxy,
for fault tests that stop one database node while the control plane goes
on through the others.

Each node is a ``mariadbd`` of its own (its ports, data directory and
logs) loaded with Debian's galera-4 provider; node 1 bootstraps the
cluster and nodes 2 and 3 join it, taking its data by rsync (SST). A node
started again after a stop catches up from the others' write-set cache
(IST).

PyMySQL, like every MySQL client library, connects to one address, so the
plane reaches the cluster as deployments of Nova do: through HAProxy, one
writer at a time (node 1, the others as backups). When the writer stops,
HAProxy's checks mark it down, its connections are cut, and the next
connection goes to a node still in the cluster. HAProxy checks each node
the way Galera deployments do (clustercheck): over HTTP, against an agent
beside the node that answers 200 only while the node is Synced, so a node
that is still joining (which accepts connections and answers 1047 to
every statement) gets no traffic until it can serve it. HAProxy comes
from the machine if it has one, else from Debian's package, unpacked
into ``.peers/haproxy`` (git-ignored) the first time.

``GaleraCluster`` is what ``fixtures.ControlPlane(services=...)`` takes: a
RabbitMQ node of its own for the broker (``faults.RabbitNode``), the
proxy's port as ``mysql_port_or_none``.
"""

import glob
from http import server as http_server
import os
import shutil
import subprocess
import tempfile
import threading

from tests.functional import faults
from tests.functional import fixtures

PROVIDER = '/usr/lib/galera/libgalera_smm.so'
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
PEERS = os.path.join(ROOT, '.peers')


def available():
    """Why a Galera cluster cannot run here, or None if it can."""
    if not os.path.exists(PROVIDER):
        return 'the galera-4 provider (%s) is not installed' % PROVIDER
    if shutil.which('rsync') is None:
        return 'rsync (for the state transfer) is not installed'
    return None


def haproxy():
    """``(argv prefix, env)`` to run HAProxy: the machine's, else Debian's
    package unpacked under ``.peers/haproxy``."""
    installed = shutil.which('haproxy')
    if installed:
        return [installed], dict(os.environ)
    root = os.path.join(PEERS, 'haproxy')
    binary = os.path.join(root, 'usr', 'sbin', 'haproxy')
    if not os.path.exists(binary):
        debs = os.path.join(PEERS, 'debs')
        os.makedirs(debs, exist_ok=True)
        # HAProxy and the two libraries it links that a base system lacks.
        subprocess.run(['apt-get', 'download', 'haproxy', 'liblua5.3-0',
                        'libopentracing-c-wrapper0', 'libopentracing1'],
                       cwd=debs, check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        for deb in glob.glob(os.path.join(debs, '*.deb')):
            subprocess.run(['dpkg-deb', '-x', deb, root], check=True)
    env = dict(os.environ, LD_LIBRARY_PATH=os.path.join(
        root, 'usr', 'lib', 'x86_64-linux-gnu'))
    return [binary], env


def _free_port():
    return faults._free_port()


class GaleraNode:
    """One node: SQL port, Galera replication, IST and SST ports."""

    def __init__(self, workdir, number, name):
        self.workdir = workdir
        self.number = number
        self.name = name
        self.port = _free_port()
        self.gcomm_port = _free_port()
        self.ist_port = _free_port()
        self.sst_port = _free_port()
        self.datadir = os.path.join(workdir, 'data')
        self.process = None

    def argv(self, cluster_address, bootstrap):
        argv = [
            '/usr/sbin/mariadbd', '--no-defaults',
            '--datadir=' + self.datadir, '--user=root',
            '--port=%d' % self.port, '--bind-address=127.0.0.1',
            '--socket=' + os.path.join(self.workdir, 'mysqld.sock'),
            '--pid-file=' + os.path.join(self.workdir, 'mysqld.pid'),
            '--skip-log-bin', '--binlog-format=ROW',
            '--default-storage-engine=InnoDB',
            '--innodb-autoinc-lock-mode=2',
            '--innodb-buffer-pool-size=64M',
            '--innodb-flush-log-at-trx-commit=0',
            '--max-connections=500',
            '--wsrep-on=ON', '--wsrep-provider=' + PROVIDER,
            '--wsrep-cluster-name=nova-lite-galera',
            '--wsrep-cluster-address=' + cluster_address,
            '--wsrep-node-name=' + self.name,
            '--wsrep-node-address=127.0.0.1:%d' % self.gcomm_port,
            '--wsrep-provider-options=base_port=%d; '
            'ist.recv_addr=127.0.0.1:%d; gcache.size=64M' % (
                self.gcomm_port, self.ist_port),
            '--wsrep-sst-method=rsync',
            '--wsrep-sst-receive-address=127.0.0.1:%d' % self.sst_port,
        ]
        if bootstrap:
            argv.append('--wsrep-new-cluster')
        return argv

    def start(self, cluster_address, bootstrap=False):
        os.makedirs(self.workdir, exist_ok=True)
        if bootstrap and not os.path.exists(self.datadir):
            subprocess.run(['mariadb-install-db', '--no-defaults',
                            '--datadir=' + self.datadir,
                            '--auth-root-authentication-method=normal',
                            '--skip-test-db'], check=True,
                           stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
        os.makedirs(self.datadir, exist_ok=True)
        if not bootstrap:
            # A joiner may take the data by rsync, whose daemon, started
            # by root without a uid, writes as nobody.
            subprocess.run(['chown', '-R', 'nobody:nogroup', self.datadir],
                           check=True)
        log = open(os.path.join(self.workdir, 'mysqld.log'), 'ab')
        self.process = subprocess.Popen(
            self.argv(cluster_address, bootstrap), stdout=log,
            stderr=subprocess.STDOUT)
        log.close()

    def status(self, name):
        """A ``wsrep_`` status value of this node, or None if it does not
        answer."""
        import pymysql
        try:
            connection = pymysql.connect(host='127.0.0.1', port=self.port,
                                         user='root', password='',
                                         connect_timeout=2)
        except pymysql.err.OperationalError:
            return None
        try:
            with connection.cursor() as cursor:
                cursor.execute("SHOW STATUS LIKE %s", (name,))
                row = cursor.fetchone()
                return row[1] if row else None
        finally:
            connection.close()

    def stop(self):
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None


class ClusterCheck:
    """The clustercheck agent of one node: HTTP 200 while the node is
    Synced, 503 otherwise (stopped, joining, donor, out of the primary
    component). HAProxy's ``option httpchk`` asks it for the node's
    health, on a port of its own."""

    def __init__(self, node):
        self.node = node
        self.port = _free_port()
        self._server = None

    def start(self):
        node = self.node

        class Handler(http_server.BaseHTTPRequestHandler):
            def do_GET(self):
                synced = node.status('wsrep_local_state_comment') == 'Synced'
                body = b'synced\n' if synced else b'not synced\n'
                try:
                    self.send_response(200 if synced else 503)
                    self.send_header('Content-Type', 'text/plain')
                    self.send_header('Content-Length', str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except ConnectionError:
                    pass  # HAProxy read the status line and hung up

            do_OPTIONS = do_GET

            def log_message(self, *args):
                pass

        self._server = http_server.ThreadingHTTPServer(
            ('127.0.0.1', self.port), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True,
                         name='clustercheck-%s' % node.name).start()

    def stop(self):
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None


class GaleraCluster(faults.NodeCluster):
    """``size`` (three) Galera nodes, numbered from 1, and HAProxy in front
    of them; a RabbitMQ node of its own for the plane's broker."""

    def __init__(self, size=3):
        self.workdir = tempfile.mkdtemp(prefix='nova-lite-galera-')
        os.chmod(self.workdir, 0o777)
        self.nodes = [GaleraNode(os.path.join(self.workdir, 'node%d' % n),
                                 n, 'node%d' % n)
                      for n in range(1, size + 1)]
        self.checks = [ClusterCheck(node) for node in self.nodes]
        self.proxy_port = _free_port()
        self.proxy_stats_port = _free_port()
        self.proxy = None
        self.rabbit_node = faults.RabbitNode(
            os.path.join(self.workdir, 'rabbit'))
        self.stopped = set()

    # -- the control plane's view ------------------------------------------

    @property
    def rabbit(self):
        return self.rabbit_node.url

    @property
    def mysql_port_or_none(self):
        return self.proxy_port

    def rabbitmqctl_args(self):
        return ['-n', self.rabbit_node.name]

    # -- nodes -------------------------------------------------------------

    @property
    def cluster_address(self):
        return 'gcomm://' + ','.join('127.0.0.1:%d' % node.gcomm_port
                                     for node in self.nodes)

    def cluster_size(self):
        """The cluster's size as a running node sees it."""
        for number, node in enumerate(self.nodes, 1):
            if number in self.stopped:
                continue
            size = node.status('wsrep_cluster_size')
            if size is not None:
                return int(size)
        return 0

    def _wait_synced(self, node, timeout=120):
        fixtures.wait_for(
            lambda: node.status('wsrep_local_state_comment') == 'Synced',
            timeout, interval=0.5, what='Galera %s synced' % node.name)

    def wait_for_cluster(self, timeout=120):
        expected = len(self.nodes) - len(self.stopped)
        fixtures.wait_for(lambda: self.cluster_size() == expected, timeout,
                          interval=0.5,
                          what='Galera cluster of %d' % expected)

    # -- lifecycle ---------------------------------------------------------

    def start(self):
        """Bootstrap node 1, join the others one by one (each takes the
        data by rsync), start HAProxy and the broker. Stops whatever
        started if it fails."""
        try:
            first = self.nodes[0]
            first.start(self.cluster_address, bootstrap=True)
            self._wait_synced(first)
            for node in self.nodes[1:]:
                node.start(self.cluster_address)
                self._wait_synced(node)
            self.wait_for_cluster()
            for check in self.checks:
                check.start()
            self._start_proxy()
            self.rabbit_node.start()
        except BaseException:
            self.stop()
            raise

    def _start_proxy(self):
        conf = os.path.join(self.workdir, 'haproxy.cfg')
        servers = '\n'.join(
            '    server %s 127.0.0.1:%d check port %d inter 500 fall 2 '
            'rise 2%s' % (node.name, node.port, check.port,
                          '' if node.number == 1 else ' backup')
            for node, check in zip(self.nodes, self.checks))
        with open(conf, 'w') as f:
            f.write('''global
    maxconn 2000

defaults
    mode tcp
    timeout connect 2s
    timeout client 1h
    timeout server 1h

listen galera
    bind 127.0.0.1:%d
    option tcpka
    option httpchk
    default-server on-marked-down shutdown-sessions
%s
''' % (self.proxy_port, servers))
        argv, env = haproxy()
        log = open(os.path.join(self.workdir, 'haproxy.log'), 'ab')
        self.proxy = subprocess.Popen(argv + ['-db', '-f', conf], env=env,
                                      stdout=log, stderr=subprocess.STDOUT)
        log.close()

        faults.wait_for_mysql(self.proxy_port,
                              'Galera through HAProxy answering', 30)

    def stop(self):
        """Stop the broker, the proxy and every node; remove their
        files."""
        try:
            self.rabbit_node.stop()
            if self.proxy is not None and self.proxy.poll() is None:
                self.proxy.terminate()
                self.proxy.wait(30)
            for check in self.checks:
                check.stop()
            for node in reversed(self.nodes):
                node.stop()
        finally:
            shutil.rmtree(self.workdir, ignore_errors=True)

    def start_node(self, number):
        """Start a stopped node again: it rejoins the cluster (IST) and
        returns once synced."""
        node = self.node(number)
        node.start(self.cluster_address)
        self._wait_synced(node)
        self.stopped.discard(number)
        self.wait_for_cluster()
