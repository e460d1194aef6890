"""RPC version pins: what a pinned client sends, and what it gets back.

During a rolling upgrade ``[upgrade_levels] scheduler`` caps what the
conductor sends to the schedulers; a 1.0 scheduler does not know
``return_alternates``, so a client pinned to 1.0 must not send it. The
messages are captured by a real RPC server on the in-memory transport.
"""

import os
import threading

import fixtures
import oslo_messaging as messaging
from oslo_messaging.rpc import dispatcher as rpc_dispatcher
from oslo_messaging.rpc import server as rpc_server
from oslo_utils import uuidutils
import testtools

from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.conductor import rpcapi as conductor_rpcapi
from nova_lite import context as nova_context
from nova_lite.db import migration
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import service as service_obj
from nova_lite import rpc
from nova_lite.scheduler import filter_scheduler
from nova_lite.scheduler import host_manager
from nova_lite.scheduler import manager as scheduler_manager
from nova_lite.scheduler import rpcapi as scheduler_rpcapi
from tests.unit import fixtures as nova_fixtures

CELL_UUID = uuidutils.generate_uuid()


def make_flavor(memory_mb=512):
    return objects.Flavor(id=1, flavorid='1', name='m1.tiny',
                          memory_mb=memory_mb, vcpus=1, root_gb=1,
                          ephemeral_gb=0, swap=0)


def make_spec(num_instances=1):
    return objects.RequestSpec(instance_uuid=uuidutils.generate_uuid(),
                               project_id='demo', user_id='demo',
                               num_instances=num_instances,
                               flavor=make_flavor())


def make_host_state(host, free_ram_mb=4096):
    state = host_manager.HostState(host, host, CELL_UUID)
    state.uuid = uuidutils.generate_uuid()
    state.total_usable_ram_mb = state.free_ram_mb = free_ram_mb
    state.total_usable_disk_gb = 100
    state.free_disk_mb = 100 * 1024
    state.vcpus_total = 8
    state.service = {'up': True, 'disabled': False, 'forced_down': False,
                     'disabled_reason': None}
    return state


class VersionRecordingDispatcher(rpc_dispatcher.RPCDispatcher):
    """oslo.messaging's dispatcher, noting the version of each message."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.versions = []

    def dispatch(self, incoming):
        self.versions.append(incoming.message.get('version'))
        return super().dispatch(incoming)


class SchedulerServer:
    """A real RPC server on the scheduler topic serving ``endpoint``."""

    def __init__(self, test, endpoint):
        self.dispatcher = VersionRecordingDispatcher(
            [endpoint], rpc.RequestContextSerializer(),
            rpc_dispatcher.DefaultRPCAccessPolicy)
        server = rpc_server.RPCServer(
            rpc.TRANSPORT,
            messaging.Target(topic=scheduler_rpcapi.RPC_TOPIC,
                             server='scheduler1'),
            self.dispatcher, executor='threading')
        server.start()
        test.addCleanup(server.wait)
        test.addCleanup(server.stop)

    @property
    def versions(self):
        return self.dispatcher.versions


class RecordingScheduler:
    """A 1.5 scheduler that answers one fixed host per instance."""

    target = messaging.Target(version='1.5')

    def __init__(self):
        self.calls = []
        self._lock = threading.Lock()

    def select_destinations(self, context, **kwargs):
        with self._lock:
            self.calls.append(kwargs)
        return [[objects.Selection(
            compute_node_uuid=uuidutils.generate_uuid(),
            service_host='compute1', nodename='compute1',
            cell_uuid=CELL_UUID, limits=None)]
            for _uuid in kwargs['instance_uuids']]


class RPCTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.config = self.useFixture(nova_fixtures.Config())
        self.useFixture(nova_fixtures.FakeRPC())
        objects.register_all()
        self.context = nova_context.get_admin_context()

    def pin_scheduler(self, level):
        self.config.config(scheduler=level, group='upgrade_levels')


class TestSelectDestinationsVersions(RPCTestCase):

    def setUp(self):
        super().setUp()
        self.scheduler = RecordingScheduler()
        self.server = SchedulerServer(self, self.scheduler)

    def select(self, **kwargs):
        uuid = uuidutils.generate_uuid()
        return scheduler_rpcapi.SchedulerAPI().select_destinations(
            self.context, make_spec(), [uuid], **kwargs)

    def test_unpinned_client_sends_1_5_with_return_alternates(self):
        self.select()
        self.assertEqual(['1.5'], self.server.versions)
        self.assertIs(True, self.scheduler.calls[0]['return_alternates'])

    def test_unpinned_client_sends_the_server_group(self):
        spec = make_spec()
        spec.instance_group = objects.InstanceGroup(
            uuid=uuidutils.generate_uuid(), policy='anti-affinity')
        scheduler_rpcapi.SchedulerAPI().select_destinations(
            self.context, spec, [uuidutils.generate_uuid()])
        received = self.scheduler.calls[0]['spec_obj']
        self.assertEqual('anti-affinity', received.instance_group.policy)

    def test_unpinned_client_sends_the_requested_networks(self):
        spec = make_spec()
        spec.requested_networks = objects.NetworkRequestList.from_api(
            [{'uuid': uuidutils.generate_uuid()}])
        scheduler_rpcapi.SchedulerAPI().select_destinations(
            self.context, spec, [uuidutils.generate_uuid()])
        received = self.scheduler.calls[0]['spec_obj']
        self.assertEqual(spec.requested_networks.to_api(),
                         received.requested_networks.to_api())

    def test_unpinned_client_sends_the_port_request_groups(self):
        spec = make_spec()
        spec.requested_resources = [objects.RequestGroup(
            requester_id='port-1',
            resources={'NET_BW_EGR_KILOBIT_PER_SEC': 1000},
            required_traits=['CUSTOM_PHYSNET_PHYSNET0'])]
        scheduler_rpcapi.SchedulerAPI().select_destinations(
            self.context, spec, [uuidutils.generate_uuid()])
        [group] = self.scheduler.calls[0]['spec_obj'].requested_resources
        self.assertEqual(('port-1', {'NET_BW_EGR_KILOBIT_PER_SEC': 1000}),
                         (group.requester_id, group.resources))

    def test_unpinned_client_sends_the_requested_destination(self):
        spec = make_spec()
        spec.requested_destination = objects.Destination(host='compute2')
        scheduler_rpcapi.SchedulerAPI().select_destinations(
            self.context, spec, [uuidutils.generate_uuid()])
        received = self.scheduler.calls[0]['spec_obj']
        self.assertEqual('compute2', received.requested_destination.host)

    def test_client_pinned_to_1_4_sends_a_1_3_spec(self):
        self.pin_scheduler('1.4')
        spec = make_spec()
        spec.requested_resources = [objects.RequestGroup(
            requester_id='port-1',
            resources={'NET_BW_EGR_KILOBIT_PER_SEC': 1000})]
        scheduler_rpcapi.SchedulerAPI().select_destinations(
            self.context, spec, [uuidutils.generate_uuid()])
        self.assertEqual(['1.4'], self.server.versions)
        received = self.scheduler.calls[0]['spec_obj']
        self.assertFalse(received.obj_attr_is_set('requested_destination'))
        self.assertEqual(['port-1'], [g.requester_id for g in
                                      received.requested_resources])

    def test_client_pinned_to_1_4_refuses_a_requested_destination(self):
        # A 1.4 scheduler would not know the move named a host, and place
        # the server on any.
        self.pin_scheduler('1.4')
        spec = make_spec()
        spec.requested_destination = objects.Destination(host='compute2')
        error = self.assertRaises(
            exception.NoValidHost,
            scheduler_rpcapi.SchedulerAPI().select_destinations,
            self.context, spec, [uuidutils.generate_uuid()])
        self.assertIn('pinned to scheduler RPC API 1.4', str(error))
        self.assertEqual([], self.server.versions)

    def test_client_pinned_to_1_3_sends_a_1_2_spec(self):
        self.pin_scheduler('1.3')
        spec = make_spec()
        spec.requested_networks = objects.NetworkRequestList.from_api('auto')
        scheduler_rpcapi.SchedulerAPI().select_destinations(
            self.context, spec, [uuidutils.generate_uuid()])
        self.assertEqual(['1.3'], self.server.versions)
        received = self.scheduler.calls[0]['spec_obj']
        self.assertFalse(received.obj_attr_is_set('requested_resources'))
        self.assertEqual('auto', received.requested_networks.to_api())

    def test_client_pinned_to_1_3_refuses_port_request_groups(self):
        self.pin_scheduler('1.3')
        spec = make_spec()
        spec.requested_resources = [objects.RequestGroup(
            requester_id='port-1',
            resources={'NET_BW_EGR_KILOBIT_PER_SEC': 1000})]
        error = self.assertRaises(
            exception.NoValidHost,
            scheduler_rpcapi.SchedulerAPI().select_destinations,
            self.context, spec, [uuidutils.generate_uuid()])
        self.assertIn('pinned to scheduler RPC API 1.3', str(error))
        self.assertEqual([], self.server.versions)

    def test_client_pinned_to_1_2_sends_a_1_1_spec_without_networks(self):
        self.pin_scheduler('1.2')
        spec = make_spec()
        spec.instance_group = objects.InstanceGroup(
            uuid=uuidutils.generate_uuid(), policy='anti-affinity')
        spec.requested_networks = objects.NetworkRequestList.from_api('auto')
        scheduler_rpcapi.SchedulerAPI().select_destinations(
            self.context, spec, [uuidutils.generate_uuid()])
        self.assertEqual(['1.2'], self.server.versions)
        received = self.scheduler.calls[0]['spec_obj']
        self.assertFalse(received.obj_attr_is_set('requested_networks'))
        self.assertEqual('anti-affinity', received.instance_group.policy)

    def test_client_pinned_to_1_1_sends_a_1_0_spec_without_the_group(self):
        self.pin_scheduler('1.1')
        spec = make_spec()
        spec.instance_group = objects.InstanceGroup(
            uuid=uuidutils.generate_uuid(), policy='anti-affinity')
        scheduler_rpcapi.SchedulerAPI().select_destinations(
            self.context, spec, [uuidutils.generate_uuid()])
        self.assertEqual(['1.1'], self.server.versions)
        received = self.scheduler.calls[0]['spec_obj']
        self.assertIsInstance(received, objects.RequestSpec)
        self.assertFalse(received.obj_attr_is_set('instance_group'))
        self.assertEqual(spec.flavor.memory_mb, received.flavor.memory_mb)

    def test_unpinned_client_passes_return_alternates_false_through(self):
        self.select(return_alternates=False)
        self.assertIs(False, self.scheduler.calls[0]['return_alternates'])

    def test_client_pinned_to_1_0_sends_1_0_without_return_alternates(self):
        self.pin_scheduler('1.0')
        self.select()
        self.assertEqual(['1.0'], self.server.versions)
        self.assertEqual({'spec_obj', 'instance_uuids'},
                         set(self.scheduler.calls[0]))

    def test_client_pinned_to_1_1_sends_1_1(self):
        self.pin_scheduler('1.1')
        self.select()
        self.assertEqual(['1.1'], self.server.versions)

    def test_the_answer_arrives_as_selection_objects(self):
        [[selection]] = self.select()
        self.assertIsInstance(selection, objects.Selection)
        self.assertEqual('compute1', selection.service_host)


class TestPinnedClientAgainstARealScheduler(RPCTestCase):
    """SchedulerManager over RPC, with two hosts in cell1's database."""

    def setUp(self):
        super().setUp()
        self.databases = self.useFixture(nova_fixtures.Databases())
        with nova_context.target_cell(self.context,
                                      self.databases.cell1) as cctxt:
            for host in ('compute1', 'compute2'):
                objects.Service(cctxt, host=host, binary='nova-lite-compute',
                                topic='compute').create()
                objects.ComputeNode(
                    cctxt, host=host, hypervisor_hostname=host,
                    hypervisor_type='fake', hypervisor_version=1,
                    vcpus=8, memory_mb=4096, local_gb=100, vcpus_used=0,
                    memory_mb_used=0, local_gb_used=0, free_ram_mb=4096,
                    free_disk_gb=100, running_vms=0, current_workload=0,
                    cpu_allocation_ratio=1.0, ram_allocation_ratio=1.0,
                    disk_allocation_ratio=1.0, mapped=True).create()
            placement = self.useFixture(nova_fixtures.PlacementServer())
            for node in objects.ComputeNodeList.get_all(cctxt):
                placement.add_compute_node(node.uuid, node.host)
        SchedulerServer(self, scheduler_manager.SchedulerManager())

    def select(self):
        return scheduler_rpcapi.SchedulerAPI().select_destinations(
            self.context, make_spec(), [uuidutils.generate_uuid()])

    def test_1_1_call_gets_the_chosen_host_and_an_alternate(self):
        [host_list] = self.select()
        self.assertEqual(2, len(host_list))

    def test_1_0_call_gets_only_the_chosen_host(self):
        self.pin_scheduler('1.0')
        [host_list] = self.select()
        self.assertEqual(1, len(host_list))


class TestVersionCap(RPCTestCase):

    def setUp(self):
        super().setUp()
        self.databases = self.useFixture(nova_fixtures.Databases())
        self.pin_scheduler('auto')

    def add_scheduler(self, host, version, forced_down=False):
        objects.Service(self.context, host=host,
                        binary='nova-lite-scheduler', topic='scheduler',
                        version=version, forced_down=forced_down).create()

    def cap(self):
        return scheduler_rpcapi.SchedulerAPI().version_cap

    def test_auto_with_a_version_1_scheduler_caps_at_1_0(self):
        self.add_scheduler('s1', 2)
        self.add_scheduler('s2', 1)
        self.assertEqual('1.0', self.cap())

    def test_auto_with_only_version_2_schedulers_caps_at_1_1(self):
        self.add_scheduler('s1', 2)
        self.add_scheduler('s2', 2)
        self.assertEqual('1.1', self.cap())

    def test_auto_with_only_version_3_schedulers_caps_at_1_2(self):
        self.add_scheduler('s1', 3)
        self.add_scheduler('s2', 3)
        self.assertEqual('1.2', self.cap())

    def test_auto_with_only_version_4_schedulers_caps_at_1_3(self):
        self.add_scheduler('s1', 4)
        self.assertEqual('1.3', self.cap())

    def test_auto_ignores_a_forced_down_old_scheduler(self):
        self.add_scheduler('s1', 3)
        self.add_scheduler('old', 1, forced_down=True)
        self.assertEqual('1.2', self.cap())

    def test_auto_with_only_version_5_schedulers_caps_at_1_4(self):
        self.add_scheduler('s1', 5)
        self.assertEqual('1.4', self.cap())

    def test_auto_with_a_version_12_scheduler_caps_at_1_4(self):
        # It cannot judge a move's requested destination.
        self.add_scheduler('s1', 13)
        self.add_scheduler('s2', 12)
        self.assertEqual('1.4', self.cap())

    def test_auto_with_only_version_13_schedulers_caps_at_1_5(self):
        self.add_scheduler('s1', 13)
        self.assertEqual('1.5', self.cap())

    def test_auto_with_a_scheduler_newer_than_this_release_caps_at_ours(self):
        self.add_scheduler('s1', len(service_obj.SERVICE_VERSION_HISTORY))
        self.assertEqual(scheduler_rpcapi.LATEST_VERSION, self.cap())

    def test_auto_without_scheduler_records_does_not_cap(self):
        self.assertEqual(scheduler_rpcapi.LATEST_VERSION, self.cap())

    def test_unset_level_does_not_cap(self):
        self.pin_scheduler(None)
        self.assertEqual(scheduler_rpcapi.LATEST_VERSION, self.cap())

    def test_explicit_pin_is_the_cap(self):
        self.pin_scheduler('1.0')
        self.assertEqual('1.0', self.cap())

    def test_garbage_pin_is_a_configuration_error(self):
        self.pin_scheduler('x.y.z')
        error = self.assertRaises(exception.ConfigurationError,
                                  scheduler_rpcapi.SchedulerAPI)
        self.assertIn('[upgrade_levels] scheduler', str(error))


class TestVersionCapAcrossCells(RPCTestCase):
    """Computes run in every cell, so "auto" for computes takes the oldest
    of all cells; conductors and schedulers are read in this daemon's own
    cell (a cell conductor only ever hears from its own cell's computes)."""

    def setUp(self):
        super().setUp()
        self.databases = self.useFixture(nova_fixtures.Databases())
        cell2_url = 'sqlite:///' + os.path.join(
            self.useFixture(fixtures.TempDir()).path, 'cell2.sqlite')
        migration.db_sync(cell2_url, migration.MAIN)
        self.cell2 = objects.CellMapping(
            self.context, name='cell2', transport_url='fake:/',
            database_connection=cell2_url)
        self.cell2.create()
        self.config.config(compute='auto', conductor='auto',
                           group='upgrade_levels')

    def add_service(self, binary, host, version, cell=None):
        with nova_context.target_cell(self.context, cell) as cctxt:
            objects.Service(cctxt, host=host, binary=binary, topic=binary,
                            version=version).create()

    def test_an_old_compute_in_another_cell_caps_the_computes(self):
        self.add_service('nova-lite-compute', 'compute1', 4)
        self.add_service('nova-lite-compute', 'compute2', 3, self.cell2)
        self.assertEqual('1.0', compute_rpcapi.ComputeAPI().version_cap)

    def test_an_old_compute_in_this_cell_caps_them_too(self):
        self.add_service('nova-lite-compute', 'compute1', 3)
        self.add_service('nova-lite-compute', 'compute2', 4, self.cell2)
        self.assertEqual('1.0', compute_rpcapi.ComputeAPI().version_cap)

    def test_new_computes_in_every_cell_are_not_capped(self):
        self.add_service('nova-lite-compute', 'compute1', 4)
        self.add_service('nova-lite-compute', 'compute2', 4, self.cell2)
        self.assertEqual('1.1', compute_rpcapi.ComputeAPI().version_cap)

    def test_a_cell_without_computes_does_not_count_as_old(self):
        self.add_service('nova-lite-compute', 'compute2', 4, self.cell2)
        self.assertEqual('1.1', compute_rpcapi.ComputeAPI().version_cap)

    def test_an_old_compute_still_caps_them_while_a_cell_is_down(self):
        # Not "uncapped" because one cell could not be read.
        logs = self.useFixture(fixtures.FakeLogger())
        nova_fixtures.map_unreachable_cell(self.context)
        self.add_service('nova-lite-compute', 'compute1', 4)
        self.add_service('nova-lite-compute', 'compute2', 3, self.cell2)
        self.assertEqual('1.0', compute_rpcapi.ComputeAPI().version_cap)
        self.assertIn('Skipping cell cell9 in the minimum version of '
                      'nova-lite-compute', logs.output)

    def test_an_old_cell_conductor_does_not_cap_the_superconductor(self):
        self.add_service('nova-lite-conductor', 'super', 4)
        self.add_service('nova-lite-conductor', 'cell2-conductor', 3,
                         self.cell2)
        self.assertEqual('1.1', conductor_rpcapi.ConductorAPI().version_cap)

    def test_computes_at_the_version_that_reboots_are_capped_at_1_5(self):
        # The service version that brought compute RPC 1.5 (reboot, pause,
        # suspend) lets the API send it; the one before does not.
        history = service_obj.SERVICE_VERSION_HISTORY
        rebooting = min(version for version, caps in enumerate(history)
                        if caps['compute'] == '1.5')
        self.add_service('nova-lite-compute', 'compute1', rebooting)
        self.add_service('nova-lite-compute', 'compute2', rebooting,
                         self.cell2)
        self.assertEqual('1.5', compute_rpcapi.ComputeAPI().version_cap)
        self.add_service('nova-lite-compute', 'compute3', rebooting - 1,
                         self.cell2)
        self.assertEqual('1.4', compute_rpcapi.ComputeAPI().version_cap)


class TestServiceVersionHistory(testtools.TestCase):
    """The record a service writes is the last entry of its history."""

    def test_the_service_version_is_the_last_of_the_history(self):
        # A version added to the history but not to SERVICE_VERSION leaves
        # every service recording the one before, and auto pins then cap
        # at an API the services already speak past.
        self.assertEqual(len(service_obj.SERVICE_VERSION_HISTORY) - 1,
                         service_obj.SERVICE_VERSION)

    def test_the_last_entry_speaks_each_apis_latest_version(self):
        self.assertEqual(
            {'conductor': conductor_rpcapi.LATEST_VERSION,
             'scheduler': scheduler_rpcapi.LATEST_VERSION,
             'compute': compute_rpcapi.LATEST_VERSION},
            service_obj.SERVICE_VERSION_HISTORY[-1])


class RecordingCompute:
    """A 1.5 compute that notes the power actions cast to it."""

    target = messaging.Target(version='1.5')

    def __init__(self):
        self.casts = []
        self.arrived = threading.Semaphore(0)

    def _note(self, method, instance, **kwargs):
        self.casts.append((method, instance.uuid, kwargs))
        self.arrived.release()

    def reboot_instance(self, context, instance, reboot_type):
        self._note('reboot_instance', instance, reboot_type=reboot_type)

    def pause_instance(self, context, instance):
        self._note('pause_instance', instance)

    def unpause_instance(self, context, instance):
        self._note('unpause_instance', instance)

    def suspend_instance(self, context, instance):
        self._note('suspend_instance', instance)

    def resume_instance(self, context, instance):
        self._note('resume_instance', instance)


class TestPowerActionsVersions(RPCTestCase):
    """Compute RPC 1.5: reboot, pause, unpause, suspend and resume."""

    def setUp(self):
        super().setUp()
        self.compute = RecordingCompute()
        self.dispatcher = VersionRecordingDispatcher(
            [self.compute], rpc.RequestContextSerializer(),
            rpc_dispatcher.DefaultRPCAccessPolicy)
        server = rpc_server.RPCServer(
            rpc.TRANSPORT, messaging.Target(
                topic=compute_rpcapi.topic_for('host1'), server='host1'),
            self.dispatcher, executor='threading')
        server.start()
        self.addCleanup(server.wait)
        self.addCleanup(server.stop)
        self.instance = objects.Instance(
            uuid=uuidutils.generate_uuid(), host='host1', node='host1',
            flavor=make_flavor())

    def send_each(self, client):
        client.reboot_instance(self.context, self.instance, 'HARD')
        for method in ('pause_instance', 'unpause_instance',
                       'suspend_instance', 'resume_instance'):
            getattr(client, method)(self.context, self.instance)

    def test_each_is_cast_to_the_servers_host_at_1_5(self):
        self.send_each(compute_rpcapi.ComputeAPI())
        for _cast in range(5):
            self.assertTrue(self.compute.arrived.acquire(timeout=10))
        self.assertEqual(
            [('reboot_instance', self.instance.uuid, {'reboot_type': 'HARD'}),
             ('pause_instance', self.instance.uuid, {}),
             ('unpause_instance', self.instance.uuid, {}),
             ('suspend_instance', self.instance.uuid, {}),
             ('resume_instance', self.instance.uuid, {})],
            self.compute.casts)
        self.assertEqual(['1.5'] * 5, self.dispatcher.versions)

    def test_computes_pinned_to_1_4_refuse_each_unsent(self):
        self.config.config(compute='1.4', group='upgrade_levels')
        client = compute_rpcapi.ComputeAPI()
        for method, args in (('reboot_instance', ('SOFT',)),
                             ('pause_instance', ()),
                             ('unpause_instance', ()),
                             ('suspend_instance', ()),
                             ('resume_instance', ())):
            error = self.assertRaises(
                exception.ComputeTooOld, getattr(client, method),
                self.context, self.instance, *args)
            self.assertIn('compute RPC API 1.5', error.format_message())
        self.assertFalse(self.compute.arrived.acquire(timeout=0.5))
        self.assertEqual([], self.compute.casts)


class TestScheduleForA10Caller(testtools.TestCase):
    """The scheduler's answer to a 1.0 call: no alternates."""

    def setUp(self):
        super().setUp()
        self.useFixture(nova_fixtures.Config())
        self.useFixture(nova_fixtures.Databases())
        objects.register_all()
        self.hosts = [make_host_state('h%d' % i) for i in range(3)]
        self.useFixture(nova_fixtures.PlacementServer()).add_host_states(
            self.hosts)
        self.scheduler = filter_scheduler.FilterScheduler(
            _FixedHosts(self.hosts))

    def test_without_alternates_each_instance_gets_only_its_host(self):
        spec = make_spec(num_instances=2)
        uuids = [uuidutils.generate_uuid() for _ in range(2)]
        host_lists = self.scheduler.select_destinations(
            None, spec, uuids, return_alternates=False)
        self.assertEqual([1, 1], [len(hosts) for hosts in host_lists])

    def test_with_alternates_each_instance_gets_alternates_too(self):
        spec = make_spec()
        [host_list] = self.scheduler.select_destinations(
            None, spec, [uuidutils.generate_uuid()], return_alternates=True)
        self.assertEqual(3, len(host_list))


class _FixedHosts:
    """A host manager with a fixed list of host states."""

    def __init__(self, hosts):
        self.hosts = hosts
        self.unread = []

    def get_host_states(self, context, with_instances=True, uuids=None):
        return [s for s in self.hosts if uuids is None or s.uuid in uuids]

    def hosts_of(self, instance_uuids):
        return set()
