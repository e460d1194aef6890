"""A whole nova_lite control plane for functional tests.

``ControlPlane`` creates its own MariaDB databases and RabbitMQ vhost
(named after a random suffix, removed afterwards), writes the config files
an operator would, prepares the databases with ``nova-lite-manage`` and
starts every daemon as its own process. Tests drive it through the REST API
like a client would.
"""

import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
import uuid

import requests

from tools import ports

RABBIT = 'rabbit://guest:guest@127.0.0.1:5672/'
MYSQL = 'mysql+pymysql://root:@127.0.0.1/%s?charset=utf8mb4'
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


free_port = ports.free_port


def _mysql(statement, port=3306):
    import pymysql
    connection = pymysql.connect(host='127.0.0.1', port=port, user='root',
                                 password='')
    try:
        with connection.cursor() as cursor:
            cursor.execute(statement)
        connection.commit()
    finally:
        connection.close()


def _rabbitmqctl(*args, node_args=()):
    subprocess.run(['rabbitmqctl', '-q'] + list(node_args) + list(args),
                   check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.PIPE)


def query(database, statement, args=None, port=3306):
    """Rows (as dicts) of ``statement`` run directly on ``database``."""
    import pymysql
    connection = pymysql.connect(host='127.0.0.1', port=port, user='root',
                                 password='', database=database,
                                 cursorclass=pymysql.cursors.DictCursor)
    try:
        with connection.cursor() as cursor:
            cursor.execute(statement, args)
            return cursor.fetchall()
    finally:
        connection.close()


class Timeout(AssertionError):
    pass


def wait_for(predicate, timeout=60, interval=0.2, what='condition'):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = predicate()
        if last:
            return last
        time.sleep(interval)
    raise Timeout('%s not reached within %ss (last: %r)' %
                  (what, timeout, last))


def stop_together(daemons, timeout=20):
    """SIGTERM ``daemons`` at once, then wait for each (killing it after
    ``timeout`` seconds): stopping them one after the other would add up
    their shutdown times."""
    running = []
    for daemon in daemons:
        daemon.stopped_on_purpose = True
        if daemon.running:
            daemon.process.send_signal(signal.SIGTERM)
            running.append(daemon)
    deadline = time.monotonic() + timeout
    for daemon in running:
        try:
            daemon.process.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            daemon.process.kill()
            daemon.process.wait()


class Daemon:
    def __init__(self, name, module, config_files, log_path, env):
        self.name = name
        self.module = module
        self.config_files = config_files
        self.log_path = log_path
        self.env = env
        self.process = None
        self.stopped_on_purpose = False

    def start(self):
        self.stopped_on_purpose = False
        args = [sys.executable, '-m', 'nova_lite.cmd.%s' % self.module]
        for path in self.config_files:
            args += ['--config-file', path]
        log = open(self.log_path, 'ab')
        self.process = subprocess.Popen(args, stdout=log,
                                        stderr=subprocess.STDOUT,
                                        env=self.env, cwd=ROOT)
        log.close()

    def stop(self, sig=signal.SIGTERM, timeout=20):
        self.stopped_on_purpose = True
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(sig)
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def kill(self):
        self.stop(signal.SIGKILL)

    @property
    def running(self):
        return self.process is not None and self.process.poll() is None

    def log(self):
        with open(self.log_path, errors='replace') as f:
            return f.read()


class ControlPlane:
    """api + conductor + scheduler + N fake computes on RabbitMQ/MariaDB."""

    # Each compute's bandwidth on physnet0, both directions (kbps): what
    # the port service offers to placement under its node.
    BANDWIDTH_KBPS = 10000

    def __init__(self, computes=2, compute_conf=None, extra_conf='',
                 backend='threading', services=None, placement_url=None):
        self.num_computes = computes
        # Another Placement service (its URL) that every daemon calls
        # instead of a nova-lite-placement of the plane's own, which is
        # then not started.
        self.external_placement_url = placement_url
        # A broker and a database of the plane's own (faults.
        # PrivateServices, started by the caller), or the machine's. A
        # broker of its own may come without a database (rabbit_cluster.
        # RabbitCluster): the plane then uses the machine's MariaDB.
        self.use_services(services)
        # {compute index (1-based): "ini text"} for per-host overrides.
        self.compute_conf = compute_conf or {}
        self.extra_conf = extra_conf
        # Whether the hosts are mapped by running cell_v2 discover_hosts
        # (for a plane whose extra_conf turns the scheduler's periodic
        # discovery off, as a deployment's default does), rather than
        # waited for from the scheduler's.
        self.discover_by_command = False
        self.backend = backend
        self.suffix = uuid.uuid4().hex[:10]
        self.vhost = 'nl_ft_%s' % self.suffix
        self.databases = ['nl_ft_%s_api' % self.suffix,
                          'nl_ft_%s_cell1' % self.suffix,
                          'nl_ft_%s_cell1_cell0' % self.suffix]
        self.workdir = tempfile.mkdtemp(prefix='nova-lite-ft-')
        self.api_port = free_port()
        self.placement_port = free_port()
        self.network_port = free_port()
        # How the tests' administrator says who it is: noauth2's token,
        # unless the test runs another auth mode.
        self.admin_headers = {'X-Auth-Token': 'admin'}
        self.daemons = {}
        # Further real cells (add_cell): name -> Cell; their vhosts are
        # removed by stop() like the first one.
        self.cells = {}
        self.extra_vhosts = []
        self.env = dict(os.environ, NOVA_LITE_CONCURRENCY_BACKEND=backend,
                        PYTHONPATH=ROOT)
        self.env.pop('NOTIFY_SOCKET', None)
        # Seconds start() waits for the API and the computes (more for
        # many computes on two cores).
        self.start_timeout = 60

    def use_services(self, services):
        """Run on ``services`` (see __init__), or on the machine's broker
        and database for None; before start()."""
        self.services = services
        self.rabbit = RABBIT
        self.mysql_port = 3306
        self.rabbitmqctl_args = []
        if services is not None:
            self.rabbit = services.rabbit
            if services.mysql_port_or_none is not None:
                self.mysql_port = services.mysql_port_or_none
            self.rabbitmqctl_args = services.rabbitmqctl_args()

    # -- configuration -----------------------------------------------------

    @property
    def api_url(self):
        return 'http://127.0.0.1:%d' % self.api_port

    @property
    def placement_url(self):
        return self.external_placement_url or \
            'http://127.0.0.1:%d' % self.placement_port

    @property
    def network_url(self):
        return 'http://127.0.0.1:%d' % self.network_port

    def _write(self, name, *parts):
        path = os.path.join(self.workdir, name)
        with open(path, 'w') as f:
            f.write(''.join(textwrap.dedent(part) for part in parts))
        return path

    def _write_configs(self):
        self.transport_url = self.rabbit + self.vhost
        self.conf = self._write('nova-lite.conf', """
            [DEFAULT]
            transport_url = %(transport)s
            report_interval = 1
            service_down_time = 5
            graceful_shutdown_timeout = 10
            concurrency_backend = %(backend)s
            # As etc/nova-lite/nova-lite.conf recommends: queues that keep
            # what they accepted through a broker restart (replicated on a
            # cluster), durable exchanges, quick heartbeats.
            [oslo_messaging_rabbit]
            rabbit_quorum_queue = true
            amqp_durable_queues = true
            heartbeat_timeout_threshold = 10
            [database]
            connection = %(cell1)s
            max_retries = 3
            [api_database]
            connection = %(api)s
            [api]
            auth_strategy = noauth2
            bind_host = 127.0.0.1
            bind_port = %(port)d
            [scheduler]
            discover_hosts_in_cells_interval = 1
            [placement]
            bind_host = 127.0.0.1
            bind_port = %(placement_port)d
            auth_type = noauth2
            endpoint_override = %(placement)s
            [network]
            bind_host = 127.0.0.1
            bind_port = %(network_port)d
            auth_type = noauth2
            endpoint_override = %(network)s
            timeout = 10
            [conductor]
            scheduler_call_timeout = 10
            [compute]
            update_resources_interval = 2
            # Tests change aggregates, sharing providers and traits behind
            # the computes' backs and wait for them to see it.
            resource_provider_association_refresh = 5
            fake_vcpus = 8
            fake_memory_mb = 8192
            fake_local_gb = 100
            """ % {'transport': self.transport_url, 'backend': self.backend,
                   'cell1': self.database_url(self.databases[1]),
                   'api': self.database_url(self.databases[0]),
                   'port': self.api_port,
                   'placement_port': self.placement_port,
                   'placement': self.placement_url,
                   'network_port': self.network_port,
                   'network': self.network_url})
        if self.extra_conf:
            self.extra = self._write('extra.conf', self.extra_conf)
        else:
            self.extra = None
        # Computes get their own file with no database credentials at all.
        self.compute_confs = {}
        for index in range(1, self.num_computes + 1):
            self._write_compute_conf(index)

    def _write_compute_conf(self, index, transport_url=None, extra=None):
        """compute<index>'s config: on ``transport_url`` (default the
        first cell's), with ``extra`` ini text (default compute_conf's)."""
        self.compute_confs[index] = self._write(
            'compute%d.conf' % index,
            self._compute_options('compute%d' % index, transport_url),
            self.compute_conf.get(index, '') if extra is None else extra)
        return self.compute_confs[index]

    def _compute_options(self, host=None, transport_url=None):
        """What a compute's config says (no database credentials), as
        ini text; ``host`` None leaves [DEFAULT] host out."""
        return """
            [DEFAULT]
            %(host)s
            transport_url = %(transport)s
            report_interval = 1
            service_down_time = 5
            concurrency_backend = %(backend)s
            [oslo_messaging_rabbit]
            rabbit_quorum_queue = true
            amqp_durable_queues = true
            heartbeat_timeout_threshold = 10
            [placement]
            auth_type = noauth2
            endpoint_override = %(placement)s
            timeout = 5
            [network]
            auth_type = noauth2
            endpoint_override = %(network)s
            timeout = 5
            bandwidths = physnet0:%(bandwidth)d:%(bandwidth)d
            [compute]
            update_resources_interval = 2
            # Tests change aggregates, sharing providers and traits behind
            # the computes' backs and wait for them to see it.
            resource_provider_association_refresh = 5
            fake_vcpus = 8
            fake_memory_mb = 8192
            fake_local_gb = 100
            """ % {'host': 'host = %s' % host if host else '',
                   'transport': transport_url or self.transport_url,
                   'backend': self.backend,
                   'placement': self.placement_url,
                   'network': self.network_url,
                   'bandwidth': self.BANDWIDTH_KBPS}

    def database_url(self, name):
        return 'mysql+pymysql://root:@127.0.0.1:%d/%s?charset=utf8mb4' % (
            self.mysql_port, name)

    def _rabbitmqctl(self, *args):
        _rabbitmqctl(*args, node_args=self.rabbitmqctl_args)

    def _config_files(self):
        return [self.conf] + ([self.extra] if self.extra else [])

    # -- lifecycle ---------------------------------------------------------

    def manage(self, *args, check=True):
        cmd = [sys.executable, '-m', 'nova_lite.cmd.manage']
        for path in self._config_files():
            cmd += ['--config-file', path]
        result = subprocess.run(cmd + list(args), capture_output=True,
                                text=True, env=self.env, cwd=ROOT)
        if check and result.returncode != 0:
            raise AssertionError('nova-lite-manage %s failed:\n%s%s' % (
                ' '.join(args), result.stdout, result.stderr))
        return result

    def start(self):
        self._rabbitmqctl('add_vhost', self.vhost)
        self._rabbitmqctl('set_permissions', '-p', self.vhost, 'guest',
                          '.*', '.*', '.*')
        self._write_configs()
        self.manage('api_db', 'sync')
        self.manage('db', 'sync')
        self.manage('cell_v2', 'simple_cell_setup')
        self.manage('flavor', 'create', 'm1.small', '--id', '2', '--ram',
                    '2048', '--vcpus', '1', '--disk', '10')
        self.manage('flavor', 'create', 'm1.huge', '--id', '99', '--ram',
                    '16384', '--vcpus', '1', '--disk', '10')
        self.image_id = self.manage(
            'image', 'create', 'cirros').stdout.strip().splitlines()[-1]
        if self.external_placement_url is None:
            # Before the daemons that report to it, as a deployment's
            # units are ordered: a compute that finds no placement at
            # its first audit reports at its next one, a minute later.
            self.start_daemon('placement')
            self.wait_for_placement(self.start_timeout)
        for name in ('network', 'conductor', 'scheduler', 'api'):
            self.start_daemon(name)
        for index in range(1, self.num_computes + 1):
            self.start_compute(index)
        self.wait_for_api(self.start_timeout)
        self.wait_for_hypervisors(self.num_computes, self.start_timeout)

    def start_daemon(self, name, module=None, extra_conf=None):
        """Start daemon ``name`` (``nova_lite.cmd.<module or name>``) with
        ``extra_conf`` (ini text) over the shared config: a second
        scheduler is start_daemon('scheduler2', 'scheduler',
        '[DEFAULT]\\nhost = other')."""
        files = self._config_files()
        if extra_conf:
            files = files + [self._write(name + '.conf', extra_conf)]
        daemon = Daemon(name, module or name, files,
                        os.path.join(self.workdir, name + '.log'), self.env)
        daemon.start()
        self.daemons[name] = daemon
        return daemon

    def add_compute(self, index):
        """Capacity added: a new compute ``compute<index>`` in cell1,
        started and discovered like the first ones."""
        self._write_compute_conf(index)
        self.num_computes = max(self.num_computes, index)
        daemon = self.start_compute(index)
        self.wait_for_compute_up('compute%d' % index)
        self.manage('cell_v2', 'discover_hosts')
        self.wait_for_hypervisors(self.num_computes)
        return daemon

    def start_compute(self, index):
        name = 'compute%d' % index
        daemon = Daemon(name, 'compute', [self.compute_confs[index]],
                        os.path.join(self.workdir, name + '.log'), self.env)
        daemon.start()
        self.daemons[name] = daemon
        return daemon

    def start_fake_computes(self, name, hosts, first_index=1,
                            host_prefix='fake', extra_conf=''):
        """Start ``name``: one nova-lite-fake-computes process hosting
        ``hosts`` simulated computes, <host_prefix><first_index> on, in
        the first cell, configured as the plane's computes are (no
        database credentials) and then by ``extra_conf`` (ini text). It
        is in ``daemons`` like any other (and logs its counters on
        SIGUSR2); wait_for_hypervisors(count, host_prefix) waits for its
        hosts."""
        files = [self._write(
            name + '.conf', self._compute_options(), """
            [fake_computes]
            hosts = %d
            first_index = %d
            host_prefix = %s
            """ % (hosts, first_index, host_prefix))]
        if extra_conf:
            files.append(self._write(name + '-extra.conf', extra_conf))
        daemon = Daemon(name, 'fake_computes', files,
                        os.path.join(self.workdir, name + '.log'), self.env)
        daemon.start()
        self.daemons[name] = daemon
        return daemon

    def start_simulated_hosts(self, hosts, per_process, extra_conf='',
                              host_prefix='fake'):
        """``hosts`` simulated computes in as many nova-lite-fake-computes
        processes (``fake-computes1``, ``2``, ...) of at most
        ``per_process`` hosts each, their hosts numbered on from one
        process to the next; the daemons."""
        daemons = []
        first = 1
        while first <= hosts:
            count = min(per_process, hosts - first + 1)
            daemons.append(self.start_fake_computes(
                'fake-computes%d' % (len(daemons) + 1), count, first,
                host_prefix, extra_conf))
            first += count
        return daemons

    def wait_for_simulated_hosts(self, hosts, timeout, host_prefix='fake'):
        """wait_for_hypervisors(hosts) for simulated hosts, which may take
        minutes to start: until then the cell database is asked every 2 s
        how many have registered, rather than the API listing them all
        five times a second."""
        def registered():
            self.assert_daemons_running()
            return self.query(
                self.databases[1], 'SELECT COUNT(*) AS n FROM services '
                'WHERE `binary` = %s AND deleted = 0 AND host LIKE %s',
                ('nova-lite-compute', host_prefix + '%'))[0]['n'] >= hosts
        wait_for(registered, timeout, 2,
                 what='%d simulated hosts registered' % hosts)
        self.wait_for_hypervisors(hosts, timeout, host_prefix, interval=2)

    def add_cell(self, name, hosts, compute_conf=None, timeout=60):
        """Set up one more real cell the way an operator would, and return
        its ``Cell``.

        The cell gets its own MariaDB database and RabbitMQ vhost;
        ``nova-lite-manage cell_v2 create_cell`` maps it (and syncs its
        schema). Its cell conductor is a nova-lite-conductor holding that
        cell's database and transport only -- no API database: it serves
        the object calls and reschedules of the cell's computes. A compute
        is started per index in ``hosts`` (host ``compute<index>``, so
        numbered after the first cell's), on the cell's vhost and with no
        database credentials; ``compute_conf`` is {index: "ini text"}.
        ``cell_v2 discover_hosts`` then maps them to the cell.
        """
        cell = Cell(name, 'nl_ft_%s_%s' % (self.suffix, name),
                    'nl_ft_%s_%s' % (self.suffix, name), hosts,
                    self.rabbit, self.database_url)
        # Recorded first, so that stop() removes them even if this fails.
        self.databases.append(cell.database)
        self.extra_vhosts.append(cell.vhost)
        self._rabbitmqctl('add_vhost', cell.vhost)
        self._rabbitmqctl('set_permissions', '-p', cell.vhost, 'guest',
                          '.*', '.*', '.*')
        cell.uuid = self.manage(
            'cell_v2', 'create_cell', '--name', name, '--transport-url',
            cell.transport_url, '--database_connection',
            cell.database_url).stdout.strip().splitlines()[-1]
        cell.conductor = 'conductor-%s' % name
        conf = self._write(cell.conductor + '.conf', """
            [DEFAULT]
            host = %(name)s-conductor
            transport_url = %(transport)s
            report_interval = 1
            service_down_time = 5
            graceful_shutdown_timeout = 10
            concurrency_backend = %(backend)s
            [oslo_messaging_rabbit]
            rabbit_quorum_queue = true
            amqp_durable_queues = true
            heartbeat_timeout_threshold = 10
            [database]
            connection = %(database)s
            max_retries = 3
            [placement]
            auth_type = noauth2
            endpoint_override = %(placement)s
            [conductor]
            scheduler_call_timeout = 10
            """ % {'name': name, 'transport': cell.transport_url,
                   'backend': self.backend, 'database': cell.database_url,
                   'placement': self.placement_url})
        daemon = Daemon(cell.conductor, 'conductor', [conf],
                        os.path.join(self.workdir, cell.conductor + '.log'),
                        self.env)
        daemon.start()
        self.daemons[cell.conductor] = daemon
        for index in hosts:
            self._write_compute_conf(index, cell.transport_url,
                                     (compute_conf or {}).get(index, ''))
            self.start_compute(index)
        self.cells[name] = cell
        admin = self.client()
        wanted = {'compute%d' % index for index in hosts}
        wait_for(lambda: self.assert_daemons_running() or wanted <= {
            h['hypervisor_hostname'] for h in admin.get(
                '/os-hypervisors/detail').json()['hypervisors']
            if h['state'] == 'up'}, timeout,
            what='hypervisors of %s up' % name)
        # The scheduler's periodic discovery may map them first; either
        # way they are mapped once the command is done.
        self.manage('cell_v2', 'discover_hosts', '--cell_uuid', cell.uuid)
        mapped = {row['host'] for row in self.query(
            self.databases[0], 'SELECT h.host FROM host_mappings h JOIN '
            'cell_mappings c ON h.cell_id = c.id WHERE c.uuid = %s',
            (cell.uuid,))}
        if not wanted <= mapped:
            raise AssertionError('hosts %s are not mapped to %s' % (
                ', '.join(sorted(wanted - mapped)), name))
        return cell

    def query(self, database, statement, args=None):
        """Rows of ``statement`` run on ``database`` (a name from
        ``databases``), read directly in MariaDB."""
        return query(database, statement, args, port=self.mysql_port)

    def wait_for_compute_up(self, host, timeout=60):
        self.wait_for_service_up(host, 'nova-lite-compute', timeout)

    def wait_for_service_up(self, host, binary, timeout=60):
        admin = self.client()
        wait_for(lambda: [
            s for s in admin.get('/os-services').json()['services']
            if s['host'] == host and s['binary'] == binary and
            s['state'] == 'up'], timeout, what='%s %s up' % (binary, host))

    def stop(self):
        # Computes first, all at once, while the conductors still answer:
        # a compute whose heartbeat waits on a stopped conductor only
        # exits when Daemon.stop kills it, 20 s later. Then the others.
        daemons = list(self.daemons.values())
        computes = ('compute', 'fake_computes')
        stop_together([d for d in daemons if d.module in computes])
        stop_together([d for d in daemons if d.module not in computes])
        for name in self.databases:
            try:
                _mysql('DROP DATABASE IF EXISTS `%s`' % name,
                       port=self.mysql_port)
            except Exception:
                pass
        for vhost in [self.vhost] + self.extra_vhosts:
            try:
                self._rabbitmqctl('delete_vhost', vhost)
            except Exception:
                pass

    def logs(self):
        return '\n'.join('==== %s ====\n%s' % (name, daemon.log()[-6000:])
                         for name, daemon in self.daemons.items())

    # -- REST client -------------------------------------------------------

    def openstack(self, *args):
        """Run the ``openstack`` CLI against this plane with the admin
        token (no Keystone: admin_token auth, endpoint overrides);
        the finished process."""
        path = os.path.join(self.workdir, 'clouds.yaml')
        with open(path, 'w') as f:
            f.write('clouds:\n  nova-lite:\n    auth_type: admin_token\n'
                    '    auth:\n      token: admin\n'
                    '      endpoint: %(url)s/v3\n'
                    '    compute_endpoint_override: %(url)s/v2.1\n'
                    '    image_endpoint_override: %(url)s/v2.1\n'
                    '    network_endpoint_override: %(network)s\n'
                    % {'url': self.api_url, 'network': self.network_url})
        env = dict(os.environ, OS_CLIENT_CONFIG_FILE=path,
                   OS_CLOUD='nova-lite')
        cli = os.path.join(os.path.dirname(sys.executable), 'openstack')
        return subprocess.run([cli] + list(args), capture_output=True,
                              text=True, env=env, timeout=120)

    def client(self, token='admin', microversion=None):
        if token == 'admin':
            return APIClient(self.api_url, None, microversion,
                             headers=self.admin_headers)
        return APIClient(self.api_url, token, microversion)

    def assert_daemons_running(self):
        dead = [name for name, daemon in self.daemons.items()
                if not daemon.running and not daemon.stopped_on_purpose]
        if dead:
            raise AssertionError('daemon(s) %s exited' % ', '.join(dead))

    def wait_for_api(self, timeout=60):
        self._wait_for_version_document(self.api_url, 'API', timeout)

    def wait_for_placement(self, timeout=60):
        self._wait_for_version_document(self.placement_url, 'placement',
                                        timeout)

    def _wait_for_version_document(self, url, what, timeout):
        def answers():
            self.assert_daemons_running()
            try:
                return requests.get(url + '/', timeout=2).ok
            except requests.RequestException:
                return False
        wait_for(answers, timeout, what='%s answering' % what)

    def wait_for_hypervisors(self, count, timeout=60, host_prefix='compute',
                             interval=0.2):
        """Until ``count`` hypervisors are up, their hosts (named
        ``host_prefix``...) mapped to a cell and their providers in
        placement, polling every ``interval`` seconds."""
        admin = self.client()
        wait_for(lambda: self.assert_daemons_running() or len([
            h for h in admin.get(
                '/os-hypervisors/detail').json()['hypervisors']
            if h['state'] == 'up']) >= count,
            timeout, interval, what='%d hypervisors up' % count)

        def mapped():
            # The scheduler maps hosts on its own period (give it one
            # turn), or, where it does not, they are mapped as an
            # operator maps them.
            if self.discover_by_command:
                self.manage('cell_v2', 'discover_hosts')
            return self.manage('cell_v2', 'list_hosts').stdout.count(
                ' ' + host_prefix) >= count
        wait_for(mapped, timeout, interval, what='hosts mapped')
        # A compute whose first report found placement not listening yet
        # reports again a period later; until then it is no candidate.
        wait_for(lambda: len(self.placement_providers_with_room()) >= count,
                 timeout, interval, what='%d computes in placement' % count)

    def wait_for_bandwidth_providers(self, count, timeout=60):
        """Until the port service has put ``count`` bandwidth providers
        (children of compute nodes) in placement."""
        def providers():
            response = requests.get(
                self.placement_url + '/resource_providers',
                params={'resources': 'NET_BW_EGR_KILOBIT_PER_SEC:1'},
                headers={**self.admin_headers,
                         'OpenStack-API-Version': 'placement 1.14'},
                timeout=10)
            response.raise_for_status()
            return [p for p in response.json()['resource_providers']
                    if p['parent_provider_uuid']]
        return wait_for(lambda: len(providers()) >= count and providers(),
                        timeout, what='%d bandwidth providers' % count)

    def audit(self, timeout=15):
        """``nova-lite-manage audit`` until it finds nothing (operations
        that just ended may still be giving back what they held); the
        last run's output if it never does."""
        deadline = time.monotonic() + timeout
        while True:
            result = self.manage('audit', check=False)
            if result.returncode == 0 or time.monotonic() > deadline:
                return result
            time.sleep(1)

    def placement_providers_with_room(self):
        response = requests.get(
            self.placement_url + '/resource_providers',
            params={'resources': 'VCPU:1,MEMORY_MB:1'},
            headers={**self.admin_headers,
                     'OpenStack-API-Version': 'placement 1.4'}, timeout=10)
        response.raise_for_status()
        return response.json()['resource_providers']


class Cell:
    """A real cell added by ``ControlPlane.add_cell``: its database, vhost,
    cell conductor (a daemon name) and compute hosts."""

    def __init__(self, name, database, vhost, hosts, rabbit=RABBIT,
                 database_url=None):
        self.name = name
        self.database = database
        self.database_url = (database_url(database) if database_url
                             else MYSQL % database)
        self.vhost = vhost
        self.transport_url = rabbit + vhost
        self.hosts = ['compute%d' % index for index in hosts]
        self.uuid = None
        self.conductor = None


class APIClient:
    def __init__(self, url, token, microversion=None, headers=None):
        self.url = url.rstrip('/') + '/v2.1'
        self.session = requests.Session()
        if token is not None:
            self.session.headers['X-Auth-Token'] = token
        self.session.headers.update(headers or {})
        if microversion:
            self.session.headers['OpenStack-API-Version'] = (
                'compute %s' % microversion)

    def request(self, method, path, microversion=None, **kwargs):
        kwargs.setdefault('timeout', 30)
        if microversion:
            kwargs['headers'] = dict(kwargs.get('headers') or {}, **{
                'OpenStack-API-Version': 'compute %s' % microversion})
        return self.session.request(method, self.url + path, **kwargs)

    def get(self, path, **kwargs):
        return self.request('GET', path, **kwargs)

    def post(self, path, body=None, **kwargs):
        return self.request('POST', path, json=body, **kwargs)

    def put(self, path, body=None, **kwargs):
        return self.request('PUT', path, json=body, **kwargs)

    def delete(self, path, **kwargs):
        return self.request('DELETE', path, **kwargs)

    # Helpers for servers

    def create_server(self, name, flavor='2', image=None, **extra):
        body = {'server': dict({'name': name, 'flavorRef': flavor,
                                'imageRef': image}, **extra)}
        response = self.post('/servers', body)
        assert response.status_code == 202, response.text
        return response.json()

    def server(self, server_id):
        response = self.get('/servers/%s' % server_id)
        return response.json()['server'] if response.ok else None

    def wait_for_status(self, server_id, statuses, timeout=60):
        statuses = (statuses,) if isinstance(statuses, str) else statuses

        def reached():
            server = self.server(server_id)
            return server if server and server['status'] in statuses \
                else None
        return wait_for(reached, timeout,
                        what='server %s in %s' % (server_id, statuses))

    def wait_for_gone(self, server_id, timeout=60):
        wait_for(lambda: self.get('/servers/%s' % server_id).status_code
                 == 404, timeout, what='server %s deleted' % server_id)
