"""HostManager.get_host_states against real SQLite API and cell databases:
the host aggregates each host state carries."""

import fixtures
from oslo_utils import uuidutils
import sqlalchemy as sa
import testtools

from nova_lite import context as nova_context
from nova_lite.db import api as db_api
from nova_lite import exception
from nova_lite import objects
from nova_lite.scheduler import host_manager
from tests.unit import fixtures as nova_fixtures


class HostManagerTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.logs = self.useFixture(fixtures.FakeLogger())
        self.config = self.useFixture(nova_fixtures.Config())
        self.databases = self.useFixture(nova_fixtures.Databases())
        self.context = nova_context.get_admin_context()
        for host in ('compute1', 'compute2'):
            self.add_compute(host)
        self.manager = host_manager.HostManager()

    def add_compute(self, host):
        with nova_context.target_cell(self.context,
                                      self.databases.cell1) as cctxt:
            objects.Service(cctxt, host=host, binary='nova-lite-compute',
                            topic='compute').create()
            objects.ComputeNode(
                cctxt, host=host, hypervisor_hostname=host,
                hypervisor_type='fake', hypervisor_version=1, vcpus=8,
                memory_mb=4096, local_gb=100, vcpus_used=0,
                memory_mb_used=0, local_gb_used=0, free_ram_mb=4096,
                free_disk_gb=100, running_vms=0, current_workload=0,
                cpu_allocation_ratio=1.0, ram_allocation_ratio=1.0,
                disk_allocation_ratio=1.0, mapped=True).create()

    def make_aggregate(self, name, hosts, **metadata):
        aggregate = objects.Aggregate(self.context, name=name, hosts=hosts,
                                      metadata=metadata)
        aggregate.create()
        return aggregate

    def states(self):
        return {state.host: state
                for state in self.manager.get_host_states(self.context)}


class TestAggregatesOfHostStates(HostManagerTestCase):

    def test_hosts_in_no_aggregate_have_none(self):
        states = self.states()
        self.assertEqual([], states['compute1'].aggregates)
        self.assertEqual('nova', states['compute1'].availability_zone)

    def test_each_host_gets_the_aggregates_it_belongs_to(self):
        self.make_aggregate('az1-agg', ['compute2'], availability_zone='az1')
        self.make_aggregate('ssd', ['compute1', 'compute2'], ssd='true')
        states = self.states()
        self.assertEqual(['ssd'],
                         [a.name for a in states['compute1'].aggregates])
        self.assertEqual(['az1-agg', 'ssd'],
                         [a.name for a in states['compute2'].aggregates])

    def test_the_aggregate_carries_its_metadata_and_hosts(self):
        self.make_aggregate('ssd', ['compute1', 'compute2'], ssd='true')
        [aggregate] = self.states()['compute1'].aggregates
        self.assertIsInstance(aggregate, host_manager.Aggregate)
        self.assertEqual(({'ssd': 'true'}, {'compute1', 'compute2'}),
                         (aggregate.metadata, aggregate.hosts))

    def test_zone_and_metadata_reach_the_filters_view(self):
        self.make_aggregate('az1-agg', ['compute2'], availability_zone='az1',
                            ssd='true')
        state = self.states()['compute2']
        self.assertEqual('az1', state.availability_zone)
        self.assertEqual({'ssd': {'true'}, 'availability_zone': {'az1'}},
                         state.aggregate_metadata())

    def test_a_cached_state_follows_the_latest_aggregates(self):
        aggregate = self.make_aggregate('az1-agg', ['compute1'],
                                        availability_zone='az1')
        self.assertEqual('az1', self.states()['compute1'].availability_zone)
        aggregate.delete_host('compute1')
        self.assertEqual('nova', self.states()['compute1'].availability_zone)

    def test_aggregates_that_cannot_be_read_leave_hosts_schedulable(self):
        # As when the scheduler is upgraded before the API database.
        self.make_aggregate('az1-agg', ['compute1'], availability_zone='az1')
        with db_api.get_engine(self.databases.api_url).begin() as connection:
            for table in ('aggregate_hosts', 'aggregate_metadata',
                          'aggregates'):
                connection.execute(sa.text('DROP TABLE %s' % table))
        states = self.states()
        self.assertEqual({'compute1', 'compute2'}, set(states))
        self.assertEqual([], states['compute1'].aggregates)
        self.assertIn('Cannot read the host aggregates', self.logs.output)

    def test_aggregates_of_a_database_that_does_not_answer_offer_no_host(
            self):
        # Every host would be taken for one of the default zone.
        self.make_aggregate('az1-agg', ['compute1'], availability_zone='az1')
        self.useFixture(fixtures.MockPatch(
            'nova_lite.objects.AggregateList.get_all',
            side_effect=exception.DatabaseUnavailable(
                url='mysql+pymysql://api', reason='1047 WSREP not ready')))
        self.assertEqual({}, self.states())
        self.assertEqual(['the host aggregates (the API database does not '
                          'answer)'], self.manager.unread)

    def test_hosts_of_an_aggregate_without_compute_nodes_are_ignored(self):
        self.make_aggregate('agg', ['compute1', 'gone'])
        self.assertEqual({'compute1', 'compute2'}, set(self.states()))


class TestReadingOnlyTheOfferedNodes(HostManagerTestCase):
    """With ``uuids`` (the nodes placement offered) only those are read."""

    def node_uuid(self, host):
        with nova_context.target_cell(self.context,
                                      self.databases.cell1) as cctxt:
            [node] = objects.ComputeNodeList.get_by_host(cctxt, host)
        return node.uuid

    def make_instance(self, host):
        with nova_context.target_cell(self.context,
                                      self.databases.cell1) as cctxt:
            instance = objects.Instance(
                cctxt, uuid=uuidutils.generate_uuid(), project_id='p',
                user_id='u', host=host, node=host, vm_state='active',
                flavor=objects.Flavor(id=1, flavorid='1', name='f',
                                      memory_mb=512, vcpus=1, root_gb=1,
                                      ephemeral_gb=0, swap=0))
            instance.create()
        return instance.uuid

    def test_only_the_named_nodes_are_returned(self):
        states = self.manager.get_host_states(
            self.context, uuids={self.node_uuid('compute2')})
        self.assertEqual(['compute2'], [s.host for s in states])

    def test_the_other_cached_nodes_are_kept(self):
        self.states()
        self.manager.get_host_states(self.context,
                                     uuids={self.node_uuid('compute2')})
        self.assertEqual({'compute1', 'compute2'}, set(self.states()))

    def test_members_on_hosts_not_read_are_still_found(self):
        member = self.make_instance('compute1')
        self.manager.get_host_states(self.context,
                                     uuids={self.node_uuid('compute2')})
        self.assertEqual({'compute1'}, self.manager.hosts_of([member]))

    def test_members_this_scheduler_just_placed_are_found(self):
        [state] = [s for s in self.manager.get_host_states(self.context)
                   if s.host == 'compute2']
        spec = objects.RequestSpec(flavor=objects.Flavor(
            memory_mb=512, vcpus=1, root_gb=1, ephemeral_gb=0, swap=0))
        state.consume_from_instance(spec, 'not-in-the-db-yet')
        self.assertEqual({'compute2'},
                         self.manager.hosts_of(['not-in-the-db-yet']))


class TestNodesReadAgainOnlyWhenWritten(HostManagerTestCase):
    """A node read once is read again (whole) only when it was written
    since; the others come from what the scheduler read."""

    node_uuid = TestReadingOnlyTheOfferedNodes.node_uuid

    def setUp(self):
        super().setUp()
        self.read_whole = []
        real = objects.ComputeNodeList.get_by_uuids

        # (fixtures makes it a classmethod again.)
        def get_by_uuids(cls, context, uuids):
            self.read_whole.append(sorted(uuids))
            return real(context, uuids)
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.objects.ComputeNodeList.get_by_uuids',
            get_by_uuids))
        self.uuids = {self.node_uuid(h) for h in ('compute1', 'compute2')}

    def offered(self):
        return {s.host: s for s in self.manager.get_host_states(
            self.context, uuids=self.uuids)}

    def test_nodes_not_written_since_are_not_read_whole_again(self):
        self.offered()
        self.assertEqual([sorted(self.uuids)], self.read_whole)
        self.assertEqual({'compute1', 'compute2'}, set(self.offered()))
        self.assertEqual([sorted(self.uuids)], self.read_whole)

    def test_a_node_written_since_is_read_again(self):
        self.assertEqual(4096, self.offered()['compute1'].free_ram_mb)
        with nova_context.target_cell(self.context,
                                      self.databases.cell1) as cctxt:
            [node] = objects.ComputeNodeList.get_by_host(cctxt, 'compute1')
            node.free_ram_mb = 1024
            node.save()
        self.assertEqual(1024, self.offered()['compute1'].free_ram_mb)
        self.assertEqual([node.uuid], self.read_whole[-1])

    def test_a_deleted_node_is_no_longer_offered(self):
        self.offered()
        with nova_context.target_cell(self.context,
                                      self.databases.cell1) as cctxt:
            [node] = objects.ComputeNodeList.get_by_host(cctxt, 'compute1')
            node.destroy()
        self.assertEqual({'compute2'}, set(self.offered()))

    def test_a_disabled_service_is_seen_at_once(self):
        self.assertFalse(self.offered()['compute1'].service['disabled'])
        with nova_context.target_cell(self.context,
                                      self.databases.cell1) as cctxt:
            service = objects.Service.get_by_host_and_binary(
                cctxt, 'compute1', 'nova-lite-compute')
            service.disabled = True
            service.save()
        self.assertTrue(self.offered()['compute1'].service['disabled'])


class TestTheNodesOfAHost(HostManagerTestCase):
    """node_uuids: a move's named host as placement's tree to ask about."""

    def map_host(self, host):
        objects.HostMapping(self.context, host=host,
                            cell_mapping=self.databases.cell1).create()

    def test_a_mapped_hosts_node_is_read_from_its_cell(self):
        self.map_host('compute2')
        with nova_context.target_cell(self.context,
                                      self.databases.cell1) as cctxt:
            [node] = objects.ComputeNodeList.get_by_host(cctxt, 'compute2')
        self.assertEqual([node.uuid],
                         self.manager.node_uuids(self.context, 'compute2'))

    def test_another_node_name_is_none_of_them(self):
        self.map_host('compute2')
        self.assertEqual([], self.manager.node_uuids(
            self.context, 'compute2', nodename='other'))

    def test_a_host_mapped_to_no_cell_has_none(self):
        self.assertEqual([], self.manager.node_uuids(self.context,
                                                     'compute2'))


class TestACellThatDoesNotAnswer(HostManagerTestCase):
    """A cell whose database is down is left out (cells.scatter): its
    hosts are not scheduled to, the other cells' still are."""

    def test_the_other_cells_hosts_are_still_scheduled(self):
        nova_fixtures.map_unreachable_cell(self.context)
        self.assertEqual({'compute1', 'compute2'}, set(self.states()))
        self.assertIn("Skipping cell cell9 in the scheduler's host states",
                      self.logs.output)

    def test_it_is_named_among_what_was_not_read(self):
        nova_fixtures.map_unreachable_cell(self.context)
        self.states()
        [unread] = self.manager.unread
        self.assertIn('the hosts of cell cell9', unread)

    def test_nothing_is_unread_once_it_answers(self):
        self.states()
        self.assertEqual([], self.manager.unread)

    def test_its_cached_hosts_leave_the_cache_until_it_answers_again(self):
        self.assertEqual({'compute1', 'compute2'}, set(self.states()))
        cell1 = self.databases.cell1
        cell1.database_connection = nova_fixtures.UNREACHABLE_DB
        cell1.save()
        self.assertEqual({}, self.states())
        self.assertIn('Leaving compute node compute1/compute1 out of the '
                      'scheduler cache while its cell does not answer',
                      self.logs.output)
        cell1.database_connection = self.databases.cell1_url
        cell1.save()
        self.assertEqual({'compute1', 'compute2'}, set(self.states()))
