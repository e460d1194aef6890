"""Reusable fixtures of the unit tests: real databases, real RPC plumbing.

``Databases`` syncs an API database and two cell databases (cell0 and
cell1) into temporary SQLite files and maps the cells; ``FakeRPC`` runs
oslo.messaging on the in-memory ``fake:/`` transport; ``ConductorRecorder``
listens on the conductor topic and records what arrives, so tests check
the cast that really went over the transport rather than a mock.
"""

import os
import threading

import fixtures
from oslo_config import fixture as config_fixture
import oslo_messaging as messaging
from oslo_messaging import conffixture as messaging_fixture

from nova_lite import conf as nova_conf
from nova_lite import context as nova_context
from nova_lite.db import api as db_api
from nova_lite.db import migration
from nova_lite import objects
from nova_lite.objects import cell_mapping
from nova_lite import policy
from nova_lite import rpc

CONF = nova_conf.CONF
FAKE_TRANSPORT_URL = 'fake:/'
# Connection refused at once: a cell whose database is down.
UNREACHABLE_DB = 'mysql+pymysql://nova:secret@127.0.0.1:1/nova_cell9'


def map_unreachable_cell(context, name='cell9'):
    """Map a cell whose database does not answer; its CellMapping."""
    cell = objects.CellMapping(context, name=name,
                               transport_url=FAKE_TRANSPORT_URL,
                               database_connection=UNREACHABLE_DB)
    cell.create()
    return cell


class Config(fixtures.Fixture):
    """Parsed global configuration with overrides undone afterwards."""

    def _setUp(self):
        CONF([], project='nova-lite', default_config_files=[])
        self.conf = self.useFixture(config_fixture.Config(CONF))
        self.conf.config(service_down_time=60)
        # The REST apps the unit tests drive authenticate nobody.
        self.conf.config(auth_strategy='noauth2', group='api')
        self.addCleanup(policy.reset)

    def config(self, **kwargs):
        self.conf.config(**kwargs)


class OutageClock(fixtures.Fixture):
    """``nova_lite.outage``'s clock, where a pause between two tries takes
    no time: ``pauses`` lists them. Only that module's (oslo.db sleeps
    with the time module's sleep(0) on every connection checkin). With
    ``config`` and ``wait``, [DEFAULT] outage_wait is set too."""

    def __init__(self, config=None, wait=None):
        super().__init__()
        self.config = config
        self.wait = wait
        self.now = 1000.0
        self.pauses = []

    def _setUp(self):
        self.useFixture(fixtures.MonkeyPatch('nova_lite.outage.time', self))
        if self.wait is not None:
            self.config.config(outage_wait=self.wait)

    def monotonic(self):
        return self.now

    def sleep(self, seconds):
        self.pauses.append(seconds)
        self.now += seconds


class FakeRPC(fixtures.Fixture):
    """``rpc.init`` on the in-memory fake transport."""

    def _setUp(self):
        messaging_conf = self.useFixture(messaging_fixture.ConfFixture(CONF))
        messaging_conf.transport_url = FAKE_TRANSPORT_URL
        rpc.set_defaults(control_exchange='nova_lite')
        rpc.init(CONF)
        self.addCleanup(rpc.cleanup)


class Databases(fixtures.Fixture):
    """Temporary SQLite API, cell0 and cell1 databases, cells mapped."""

    def _setUp(self):
        objects.register_all()
        directory = self.useFixture(fixtures.TempDir()).path
        self.api_url = 'sqlite:///' + os.path.join(directory, 'api.sqlite')
        self.cell0_url = 'sqlite:///' + os.path.join(directory,
                                                     'cell0.sqlite')
        self.cell1_url = 'sqlite:///' + os.path.join(directory,
                                                     'cell1.sqlite')
        overrides = self.useFixture(config_fixture.Config(CONF))
        overrides.config(connection=self.api_url, group='api_database')
        overrides.config(connection=self.cell1_url, group='database')
        self.addCleanup(db_api.dispose_all)
        migration.db_sync(self.api_url, migration.API)
        migration.db_sync(self.cell0_url, migration.MAIN)
        migration.db_sync(self.cell1_url, migration.MAIN)
        admin = nova_context.get_admin_context()
        self.cell0 = objects.CellMapping(
            admin, uuid=cell_mapping.CELL0_UUID, name='cell0',
            transport_url=FAKE_TRANSPORT_URL,
            database_connection=self.cell0_url)
        self.cell0.create()
        self.cell1 = objects.CellMapping(
            admin, name='cell1', transport_url=FAKE_TRANSPORT_URL,
            database_connection=self.cell1_url)
        self.cell1.create()


class ConductorRecorder(fixtures.Fixture):
    """An RPC server on the conductor topic that records the builds cast
    (and the rebuilds from cell0, in ``rebuilds``)."""

    target = messaging.Target(version='1.1')

    def _setUp(self):
        self.builds = []
        self.rebuilds = []
        self._arrived = threading.Condition()
        server = rpc.get_server(
            messaging.Target(topic='conductor', server='recorder'), [self],
            executor='threading')
        server.start()
        self.addCleanup(server.wait)
        self.addCleanup(server.stop)

    def schedule_and_build_instances(self, context, **kwargs):
        with self._arrived:
            self.builds.append((context, kwargs))
            self._arrived.notify_all()

    def rebuild_instance_in_cell0(self, context, **kwargs):
        with self._arrived:
            self.rebuilds.append((context, kwargs))
            self._arrived.notify_all()

    def wait_for_rebuilds(self, count=1, timeout=10):
        with self._arrived:
            self._arrived.wait_for(lambda: len(self.rebuilds) >= count,
                                   timeout=timeout)
        return self.rebuilds

    def wait_for_builds(self, count=1, timeout=10):
        with self._arrived:
            self._arrived.wait_for(lambda: len(self.builds) >= count,
                                   timeout=timeout)
        return self.builds


class ControlPlane(fixtures.Fixture):
    """Config + databases + fake RPC: what an API unit test runs against."""

    def _setUp(self):
        self.config = self.useFixture(Config())
        self.databases = self.useFixture(Databases())
        self.rpc = self.useFixture(FakeRPC())


class PlacementServer(fixtures.Fixture):
    """The real placement application on an ephemeral loopback port, in
    this process, against the Databases fixture's API database; sets
    ``[placement] endpoint`` to it."""

    def _setUp(self):
        from nova_lite.api import placement
        from nova_lite.api import wsgi_server
        from nova_lite.placement import resource_classes
        from nova_lite.placement import traits
        # The process's caches of trait and class ids name rows of an
        # earlier test's database.
        for reset in (resource_classes.reset_cache, traits.reset_cache):
            self.addCleanup(reset)
            reset()
        server = wsgi_server.Server('placement-test', placement.make_app(),
                                    '127.0.0.1', 0, 8)
        server.start()
        self.addCleanup(server.wait)
        self.addCleanup(server.stop)
        self.endpoint = 'http://127.0.0.1:%d' % server.port
        overrides = self.useFixture(config_fixture.Config(CONF))
        overrides.config(endpoint_override=self.endpoint, group='placement')

    def add_compute_node(self, uuid, name, vcpus=8, memory_mb=4096,
                         disk_gb=100):
        """A compute node's provider with its inventory, as the compute's
        resource tracker would report it."""
        from nova_lite import placement_client
        client = placement_client.PlacementClient(endpoint=self.endpoint)
        client.ensure_resource_provider(uuid, name)
        client.set_inventory(uuid, {
            'VCPU': {'total': vcpus}, 'MEMORY_MB': {'total': memory_mb},
            'DISK_GB': {'total': disk_gb}})

    def add_host_states(self, states):
        """A provider for each scheduler host state, sized by its totals."""
        for state in states:
            self.add_compute_node(
                state.uuid, '%s/%s' % (state.host, state.nodename),
                vcpus=max(1, int(state.vcpus_total *
                                 state.cpu_allocation_ratio)),
                memory_mb=max(1, int(state.total_usable_ram_mb *
                                     state.ram_allocation_ratio)),
                disk_gb=max(1, int(state.total_usable_disk_gb *
                                   state.disk_allocation_ratio)))
