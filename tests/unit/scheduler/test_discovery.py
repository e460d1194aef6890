"""Host discovery (``discovery.discover_hosts``) against real SQLite API
and cell databases: new computes are mapped to their cell, and a cell
whose database does not answer is reported and searched again next
time."""

import fixtures
import testtools

from nova_lite import context as nova_context
from nova_lite import objects
from nova_lite.scheduler import discovery
from tests.unit import fixtures as nova_fixtures
from tests.unit.objects import test_migration_and_groups as db_fixtures


class DiscoveryTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.logs = self.useFixture(fixtures.FakeLogger())
        self.useFixture(nova_fixtures.Config())
        self.databases = self.useFixture(db_fixtures.MigratedDatabases())
        self.context = nova_context.get_admin_context()

    def add_compute(self, host, cell=None):
        """A compute node not mapped yet, as a new compute reports it."""
        with nova_context.target_cell(
                self.context, cell or self.databases.cell1) as cctxt:
            objects.ComputeNode(
                cctxt, host=host, hypervisor_hostname=host,
                hypervisor_type='fake', hypervisor_version=1, vcpus=8,
                memory_mb=4096, local_gb=100, vcpus_used=0,
                memory_mb_used=0, local_gb_used=0, free_ram_mb=4096,
                free_disk_gb=100, running_vms=0, current_workload=0,
                cpu_allocation_ratio=1.0, ram_allocation_ratio=1.0,
                disk_allocation_ratio=1.0).create()

    def mapped_hosts(self):
        return {m.host: m.cell_mapping.name
                for m in objects.HostMappingList.get_all(self.context)}


class TestDiscoverHosts(DiscoveryTestCase):

    def test_a_new_compute_is_mapped_to_its_cell_once(self):
        self.add_compute('compute1')
        discovered = discovery.discover_hosts(self.context)
        self.assertEqual((['compute1'], {}),
                         ([m.host for m in discovered.mapped],
                          discovered.down))
        self.assertEqual({'compute1': 'cell1'}, self.mapped_hosts())
        self.assertEqual([], discovery.discover_hosts(self.context).mapped)

    def test_a_down_cell_is_reported_and_the_others_hosts_mapped(self):
        nova_fixtures.map_unreachable_cell(self.context)
        self.add_compute('compute1')
        discovered = discovery.discover_hosts(self.context)
        self.assertEqual(['compute1'], [m.host for m in discovered.mapped])
        self.assertEqual(['cell9'], list(discovered.down))
        self.assertIn('Cannot reach the database',
                      str(discovered.down['cell9']))
        self.assertIn('Skipping cell cell9 in a discovery of compute hosts',
                      self.logs.output)

    def test_a_cell_that_was_down_is_searched_again_next_time(self):
        self.add_compute('compute1')
        cell1 = self.databases.cell1
        cell1.database_connection = nova_fixtures.UNREACHABLE_DB
        cell1.save()
        self.assertEqual(['cell1'],
                         list(discovery.discover_hosts(self.context).down))
        self.assertEqual({}, self.mapped_hosts())
        cell1.database_connection = self.databases.cell1_url
        cell1.save()
        discovered = discovery.discover_hosts(self.context)
        self.assertEqual((['compute1'], {}),
                         ([m.host for m in discovered.mapped],
                          discovered.down))

    def test_only_the_cell_asked_for_is_searched(self):
        nova_fixtures.map_unreachable_cell(self.context)
        self.add_compute('compute1')
        discovered = discovery.discover_hosts(
            self.context, cell_uuid=self.databases.cell1.uuid)
        self.assertEqual((['compute1'], {}),
                         ([m.host for m in discovered.mapped],
                          discovered.down))
