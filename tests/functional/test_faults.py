"""Faults: daemons killed with SIGKILL in the middle of work, the plane's
broker and database restarted under load. Whatever was accepted ends in a
final state, the audit finds nothing, every server is listed once and the
daemons serve again (tests/functional/faults.py has the checks).

These are the short versions; ``tools/fault_suite.py`` runs longer ones
and prints the table.
"""

from tests.functional import base
from tests.functional import faults
from tests.functional import fixtures
from tests.functional import galera_cluster
from tests.functional import rabbit_cluster


class FaultTestCase(base.ControlPlaneTestCase):
    """Each scenario starts on a clean plane: one that did not end clean
    (a failed check, an error half-way) is replaced by a new one before
    the next scenario, so a failure can never fail the scenarios after
    it."""

    extra_conf = faults.RECOVERY_CONF
    # The scenario audits itself (and after deleting everything).
    audit_after_each_test = False
    # Whether the last scenario on the class's plane did not end clean.
    plane_dirty = False

    def setUp(self):
        cls = type(self)
        if cls.plane_dirty:
            cls.plane.stop()
            cls.plane = None
            cls.plane = cls.start_plane()
            cls.plane_dirty = False
        super().setUp()

    def run_scenario(self, name, scenario, settle_timeout=120):
        type(self).plane_dirty = True
        row = faults.run_scenario(self.plane, name, scenario,
                                  settle_timeout=settle_timeout)
        self.addDetail('row', _text('%s\n%s' % (
            faults.table([row]), row.details())))
        self.assertTrue(row.ok, 'scenario %s: %s\n%s' % (
            name, row.as_dict(), row.details()))
        type(self).plane_dirty = False
        return row


class TestDaemonKilledDuringBuildBurst(FaultTestCase):

    computes = 2
    compute_conf = {1: faults.COMPUTE_RECOVERY_CONF,
                    2: faults.COMPUTE_RECOVERY_CONF + '\n[compute]\n'
                    'fake_spawn_seconds = 1\n'}

    def _burst(self, daemon):
        self.run_scenario('%s killed during a build burst' % daemon,
                          faults.kill_during_build_burst(daemon, count=10))

    def test_conductor(self):
        self._burst('conductor')

    def test_scheduler(self):
        self._burst('scheduler')

    def test_compute(self):
        self._burst('compute2')

    def test_api(self):
        self._burst('api')

    def test_placement(self):
        self._burst('placement')

    def test_network(self):
        self._burst('network')


class TestComputeKilledDuringMoves(FaultTestCase):

    computes = 2
    compute_conf = {
        1: faults.COMPUTE_RECOVERY_CONF + '\n[compute]\n'
        'fake_live_migration_seconds = 8\n',
        2: faults.COMPUTE_RECOVERY_CONF + '\n[compute]\n'
        'fake_live_migration_seconds = 8\n'}

    def test_source_compute_killed_mid_live_migration(self):
        self.run_scenario('source compute killed mid-live-migration',
                          faults.compute_killed_mid_live_migration('source'))

    def test_destination_compute_killed_mid_live_migration(self):
        self.run_scenario(
            'destination compute killed mid-live-migration',
            faults.compute_killed_mid_live_migration('destination'))

    def test_source_compute_restarted_after_evacuation(self):
        self.run_scenario('source compute restarted after evacuation',
                          faults.source_restarted_after_evacuation())


class TestComputeKilledMidResize(FaultTestCase):

    computes = 2
    compute_conf = {index: faults.COMPUTE_RECOVERY_CONF + extra
                    for index, extra in faults.RESIZE_CONF.items()}

    def test_source_compute_killed_mid_resize(self):
        self.run_scenario('source compute killed mid-resize',
                          faults.compute_killed_mid_resize('source'))

    def test_destination_compute_killed_mid_resize(self):
        self.run_scenario('destination compute killed mid-resize',
                          faults.compute_killed_mid_resize('destination'))


class OwnServicesTestCase(FaultTestCase):
    """A fault test on a broker (and database) of the plane's own, made by
    ``make_services()``, so that no other test feels the restarts."""

    computes = 2
    compute_conf = {1: faults.COMPUTE_RECOVERY_CONF,
                    2: faults.COMPUTE_RECOVERY_CONF}

    @classmethod
    def make_services(cls):
        raise NotImplementedError

    @classmethod
    def setUpClass(cls):
        cls.services = cls.make_services()
        cls.services.start()
        try:
            cls.plane = cls.start_plane()
        except BaseException:
            cls.services.stop()
            raise

    @classmethod
    def new_plane(cls):
        return fixtures.ControlPlane(
            computes=cls.computes, compute_conf=cls.compute_conf,
            extra_conf=cls.extra_conf, backend=cls.backend,
            services=cls.services)

    @classmethod
    def tearDownClass(cls):
        try:
            if cls.plane is not None:
                cls.plane.stop()
        finally:
            cls.services.stop()


class TestBrokerAndDatabaseRestarted(OwnServicesTestCase):
    """On a RabbitMQ node and a MariaDB server of the plane's own."""

    make_services = faults.PrivateServices

    def test_rabbitmq_restarted_under_load(self):
        self.run_scenario('RabbitMQ restarted under load',
                          faults.service_restarted_under_load('rabbitmq'),
                          settle_timeout=180)

    def test_mariadb_restarted_under_load(self):
        self.run_scenario('MariaDB restarted under load',
                          faults.service_restarted_under_load('mariadb'),
                          settle_timeout=180)


class TestBrokerClusterNodeRestarted(OwnServicesTestCase):
    """On a three-node RabbitMQ cluster of the plane's own, with quorum
    queues: the node every daemon connects to first goes away under a
    burst, and comes back."""

    make_services = rabbit_cluster.RabbitCluster

    def test_the_first_node_restarted_under_load(self):
        self.run_scenario('RabbitMQ cluster: node 1 of 3 restarted under '
                          'load', faults.cluster_node_stopped_under_load(1),
                          settle_timeout=180)


class TestGaleraNodeRestarted(OwnServicesTestCase):
    """On a three-node MariaDB Galera cluster of the plane's own behind
    HAProxy: the node every connection goes to (the writer) goes away
    under a burst, and comes back."""

    make_services = galera_cluster.GaleraCluster

    @classmethod
    def setUpClass(cls):
        missing = galera_cluster.available()
        if missing:
            raise AssertionError('no Galera cluster can run here: %s' %
                                 missing)
        super().setUpClass()

    def test_the_writer_restarted_under_load(self):
        self.run_scenario('MariaDB Galera: node 1 of 3 (the writer) '
                          'restarted under load',
                          faults.cluster_node_stopped_under_load(1),
                          settle_timeout=180)


def _text(value):
    import testtools.content
    return testtools.content.text_content(value)
