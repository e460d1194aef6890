"""nova-lite-manage commands that read every cell, against real SQLite
API and cell databases: a cell whose database does not answer is named on
standard error with what it left undone, the other cells are still
served, and the exit status is 1 -- never a traceback."""

import io
import types

import fixtures
import testtools

from nova_lite.cmd import manage
from nova_lite import conf as nova_conf
from nova_lite import context as nova_context
from nova_lite import objects
from tests.unit import fixtures as nova_fixtures
from tests.unit.objects import test_migration_and_groups as db_fixtures

CONF = nova_conf.CONF


class _ConfWithCommand:
    """CONF as ``nova-lite-manage`` leaves it: the chosen command's
    options in ``CONF.command``, the rest the configuration."""

    def __init__(self, **options):
        self.command = types.SimpleNamespace(**options)

    def __getattr__(self, name):
        return getattr(CONF, name)


class ManageTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(fixtures.FakeLogger())
        self.config = self.useFixture(nova_fixtures.Config())
        self.databases = self.useFixture(db_fixtures.MigratedDatabases())
        self.context = nova_context.get_admin_context()
        self.stdout = self.useFixture(fixtures.MonkeyPatch(
            'sys.stdout', io.StringIO())).new_value
        self.stderr = self.useFixture(fixtures.MonkeyPatch(
            'sys.stderr', io.StringIO())).new_value

    def manage(self, command, **options):
        """Run ``command`` (a function of manage) with ``options`` as its
        command-line options; its exit status."""
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.cmd.manage.CONF', _ConfWithCommand(**options)))
        return command() or 0

    def add_compute(self, host):
        with nova_context.target_cell(self.context,
                                      self.databases.cell1) as cctxt:
            objects.ComputeNode(
                cctxt, host=host, hypervisor_hostname=host,
                hypervisor_type='fake', hypervisor_version=1, vcpus=8,
                memory_mb=4096, local_gb=100, vcpus_used=0,
                memory_mb_used=0, local_gb_used=0, free_ram_mb=4096,
                free_disk_gb=100, running_vms=0, current_workload=0,
                cpu_allocation_ratio=1.0, ram_allocation_ratio=1.0,
                disk_allocation_ratio=1.0).create()

    def assertDownCellReported(self, consequence):
        self.assertIn('ERROR: cell cell9 did not answer (Cannot reach the '
                      'database', self.stderr.getvalue())
        self.assertIn('): %s. Run the command again when it is back.' %
                      consequence, self.stderr.getvalue())


class TestEveryCellAnswers(ManageTestCase):

    def test_discover_hosts_maps_and_exits_0(self):
        self.add_compute('compute1')
        self.assertEqual(0, self.manage(manage.discover_hosts,
                                        cell_uuid=None, verbose=False))
        self.assertEqual('Mapped host compute1 to cell cell1\n',
                         self.stdout.getvalue())
        self.assertEqual('', self.stderr.getvalue())


class TestADownCell(ManageTestCase):

    def setUp(self):
        super().setUp()
        nova_fixtures.map_unreachable_cell(self.context)

    def test_discover_hosts_maps_the_other_cells_hosts_and_exits_1(self):
        self.add_compute('compute1')
        self.assertEqual(1, self.manage(manage.discover_hosts,
                                        cell_uuid=None, verbose=False))
        self.assertEqual('Mapped host compute1 to cell cell1\n',
                         self.stdout.getvalue())
        self.assertDownCellReported('its hosts were not discovered')

    def test_db_sync_syncs_the_other_cells_and_exits_1(self):
        self.assertEqual(1, self.manage(manage.db_sync, version=None))
        self.assertIn('Synced cell cell0', self.stdout.getvalue())
        self.assertDownCellReported('its database was not synced')

    def test_heal_allocations_heals_the_other_cells_and_exits_1(self):
        self.assertEqual(1, self.manage(manage.placement_heal_allocations,
                                        verbose=False))
        self.assertIn('0 instance(s) checked', self.stdout.getvalue())
        self.assertDownCellReported('its instances were not checked')

    def test_placement_audit_calls_nothing_orphaned_and_exits_1(self):
        # Nothing listens there: placement is not even asked.
        self.config.config(endpoint_override='http://127.0.0.1:9',
                           group='placement')
        self.assertEqual(1, self.manage(manage.placement_audit,
                                        delete=True))
        self.assertEqual('', self.stdout.getvalue())
        self.assertDownCellReported('its instances cannot be told from '
                                    'orphans, so no allocation was audited')
