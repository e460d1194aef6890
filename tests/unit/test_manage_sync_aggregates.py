"""nova-lite-manage placement sync_aggregates: the host aggregates
mirrored into placement again, against real SQLite databases and the real
placement application in this process."""

from oslo_utils import uuidutils

from nova_lite.cmd import manage
from nova_lite import context as nova_context
from nova_lite import objects
from nova_lite import placement_client
from tests.unit import fixtures as nova_fixtures
from tests.unit import test_manage


class SyncAggregatesTestCase(test_manage.ManageTestCase):

    def setUp(self):
        super().setUp()
        self.placement = self.useFixture(nova_fixtures.PlacementServer())
        self.client = placement_client.PlacementClient()

    def node(self, host, nodename=None, provider=True):
        """A compute node of ``host`` in cell1, with its provider."""
        with nova_context.target_cell(self.context,
                                      self.databases.cell1) as cctxt:
            node = objects.ComputeNode(
                cctxt, host=host, hypervisor_hostname=nodename or host,
                hypervisor_type='fake', hypervisor_version=1, vcpus=8,
                memory_mb=4096, local_gb=100, cpu_allocation_ratio=1.0,
                ram_allocation_ratio=1.0, disk_allocation_ratio=1.0)
            node.create()
        if provider:
            self.placement.add_compute_node(node.uuid, node.uuid)
        return node.uuid

    def aggregate(self, name, *hosts):
        """A host aggregate as it was before the mirroring: its hosts in
        the API database only."""
        aggregate = objects.Aggregate(self.context, name=name,
                                      hosts=list(hosts), metadata={})
        aggregate.create()
        return aggregate.uuid

    def sync(self):
        return self.manage(manage.placement_sync_aggregates, verbose=True)

    def aggregates_of(self, uuid):
        return set(self.client.get_aggregates(uuid))


class TestSync(SyncAggregatesTestCase):

    def test_an_aggregate_older_than_the_mirror_is_mirrored(self):
        node1a, node1b = self.node('h1', 'h1a'), self.node('h1', 'h1b')
        node2 = self.node('h2')
        agg = self.aggregate('agg', 'h1')
        self.assertEqual(0, self.sync())
        self.assertEqual(({agg}, {agg}, set()),
                         (self.aggregates_of(node1a),
                          self.aggregates_of(node1b),
                          self.aggregates_of(node2)))
        self.assertIn('3 compute node provider(s) checked, 2 updated.',
                      self.stdout.getvalue())
        self.assertIn('Provider %s (host h1): into %s' % (node1a, agg),
                      self.stdout.getvalue())

    def test_a_second_run_changes_nothing(self):
        self.node('h1')
        self.aggregate('agg', 'h1')
        self.assertEqual(0, self.sync())
        self.assertEqual(0, self.sync())
        self.assertIn('1 compute node provider(s) checked, 0 updated.',
                      self.stdout.getvalue())

    def test_a_host_that_left_while_placement_was_away_is_taken_out(self):
        node = self.node('h1')
        agg = self.aggregate('agg')      # h1 is no member (any more)
        other = uuidutils.generate_uuid()  # no host aggregate's uuid
        self.client.update_provider_aggregates(node, add=[agg, other])
        self.assertEqual(0, self.sync())
        self.assertEqual({other}, self.aggregates_of(node))
        self.assertIn('Provider %s (host h1): out of %s' % (node, agg),
                      self.stdout.getvalue())

    def test_a_provider_that_is_no_compute_node_is_left_alone(self):
        # A sharing provider in the aggregate's mirror stays in it.
        self.node('h1')
        agg = self.aggregate('agg', 'h1')
        sharing = uuidutils.generate_uuid()
        self.placement.add_compute_node(sharing, 'shared-storage')
        self.client.update_provider_aggregates(sharing, add=[agg])
        self.assertEqual(0, self.sync())
        self.assertEqual({agg}, self.aggregates_of(sharing))

    def test_a_host_without_compute_node_is_exit_5(self):
        node = self.node('h1')
        agg = self.aggregate('agg', 'h1', 'h9')
        self.assertEqual(5, self.sync())
        self.assertEqual({agg}, self.aggregates_of(node))
        self.assertIn('No compute node for host(s) h9',
                      self.stderr.getvalue())

    def test_a_node_without_provider_is_exit_6(self):
        node = self.node('h1')
        missing = self.node('h2', provider=False)
        agg = self.aggregate('agg', 'h1', 'h2')
        self.assertEqual(6, self.sync())
        self.assertEqual({agg}, self.aggregates_of(node))
        self.assertIn('No resource provider in placement yet for %s (host '
                      'h2)' % missing, self.stderr.getvalue())

    def test_placement_unreachable_is_exit_2(self):
        self.node('h1')
        self.aggregate('agg', 'h1')
        self.config.config(endpoint_override='http://127.0.0.1:9',
                           timeout=2, group='placement')
        self.assertEqual(2, self.sync())
        self.assertIn('Placement is unavailable', self.stderr.getvalue())


class TestADownCell(SyncAggregatesTestCase):

    def test_the_other_cells_hosts_are_mirrored_and_exit_1(self):
        node = self.node('h1')
        agg = self.aggregate('agg', 'h1', 'h9')
        nova_fixtures.map_unreachable_cell(self.context)
        self.assertEqual(1, self.sync())
        self.assertEqual({agg}, self.aggregates_of(node))
        self.assertDownCellReported('the hosts of its compute nodes were '
                                    'not mirrored')
        self.assertIn('No compute node in the cells that answered for '
                      'host(s) h9', self.stderr.getvalue())
