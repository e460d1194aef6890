"""What the resource tracker reports for the scheduler's filters and
weighers (the node record's stats, workload and hypervisor) and the traits
it keeps on the node's provider -- against a real cell database, the real
placement app and the fake driver (``test_resource_tracker``'s fixtures).
"""

from unittest import mock

from oslo_serialization import jsonutils
from sqlalchemy import event as sa_event
from sqlalchemy import orm

from nova_lite.compute import states
from nova_lite.db import api as db
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import service as service_obj
from nova_lite import placement_client
from nova_lite.scheduler.filters import image_props_filter
from nova_lite.scheduler import host_manager
from nova_lite import servicegroup
from tests.unit.compute import test_resource_tracker as base
from tests.unit.scheduler import fakes as scheduler_fakes

HOST = base.HOST
STATUS_DISABLED = 'COMPUTE_STATUS_DISABLED'


class ReportsTestCase(base.ResourceTrackerTestCase):

    def make_instance(self, vm_state=states.ACTIVE, task_state=None,
                      **flavor):
        instance = super().make_instance(**flavor)
        instance.vm_state = vm_state
        instance.task_state = task_state
        instance.save()
        return instance

    def stats(self):
        return self.stored_node().stats

    def host_state(self):
        """The scheduler's view of the node, from its record."""
        state = host_manager.HostState(HOST, self.node, None)
        service = self.service()
        state.update(self.stored_node(), service_obj.ServiceState(
            HOST, False, None, False, True) if service is None else
            service_obj.service_states(
                self.context, servicegroup.COMPUTE_BINARY)[HOST])
        return state

    def service(self):
        return servicegroup.compute_service(self.context, HOST)

    def register_service(self, disabled=False):
        service = objects.Service(self.context, host=HOST,
                                  binary=servicegroup.COMPUTE_BINARY,
                                  topic='compute', disabled=disabled)
        service.create()
        return service

    def client(self):
        return placement_client.PlacementClient(self.placement.endpoint)

    def traits(self):
        return self.client().provider_traits(self.stored_node().uuid)


class TestWhatTheDriverRuns(ReportsTestCase):

    def test_the_hypervisor_and_the_kinds_of_guest_reach_the_scheduler(self):
        self.audit()
        state = self.host_state()
        self.assertEqual(('fake', 1000, [('x86_64', 'fake', 'hvm')]),
                         (state.hypervisor_type, state.hypervisor_version,
                          state.supported_instances))

    def test_an_image_for_x86_64_passes_the_image_properties_filter(self):
        self.audit()
        spec = scheduler_fakes.make_spec(
            image_props={'hw_architecture': 'x86_64'})
        self.assertTrue(image_props_filter.ImagePropertiesFilter()
                        .host_passes(self.host_state(), spec))

    def test_the_configured_kinds_of_guest_are_reported(self):
        self.config.config(group='compute', fake_supported_instances=[
            'aarch64/fake/hvm', 'x86_64/fake/hvm'])
        self.audit()
        self.assertEqual([['aarch64', 'fake', 'hvm'],
                          ['x86_64', 'fake', 'hvm']],
                         jsonutils.loads(self.stats()['supported_instances']))

    def test_a_record_of_an_older_release_gets_them_at_the_next_audit(self):
        self.audit()
        stored = self.stored_node()
        stored.stats = {}
        stored.hypervisor_version = 1
        stored.save()
        restarted = base.resource_tracker.ResourceTracker(HOST, self.driver)
        restarted.update_available_resource(self.context, self.node)
        self.assertEqual(1000, self.stored_node().hypervisor_version)
        self.assertIn('supported_instances', self.stats())


class TestWorkload(ReportsTestCase):

    def test_a_claimed_build_is_an_io_operation_in_progress(self):
        self.audit()
        instance = self.make_instance(states.BUILDING, states.SPAWNING)
        with self.claim(instance):
            self.assertEqual(1, self.host_state().num_io_ops)
            self.assertEqual(1, self.stored_node().current_workload)

    def test_the_end_of_a_build_ends_its_io_operation_at_once(self):
        self.audit()
        instance = self.make_instance(states.BUILDING, states.SPAWNING)
        self.spawn(instance)
        instance.vm_state, instance.task_state = states.ACTIVE, None
        self.tracker.update_usage(self.context, instance)
        self.assertEqual((0, 0), (self.host_state().num_io_ops,
                                  self.stored_node().current_workload))
        self.assertEqual('1', self.stats()['num_vm_active'])

    def spawned(self):
        """A server built here whose last save is still to be made."""
        self.audit()
        instance = self.make_instance(states.BUILDING, states.SPAWNING)
        self.spawn(instance)
        instance.vm_state, instance.task_state = states.ACTIVE, None
        return instance

    def last_save(self, instance):
        with self.tracker.usage_with_save(self.context, instance) as node:
            instance.save(expected_task_state=[states.SPAWNING], node=node)

    def test_the_end_of_a_build_can_go_with_the_servers_last_save(self):
        instance = self.spawned()
        with mock.patch.object(objects.ComputeNode, 'save', autospec=True,
                               side_effect=objects.ComputeNode.save) as own:
            with self.tracker.usage_with_save(self.context,
                                              instance) as node:
                # Its identity and what changed, not the whole record.
                self.assertEqual({'current_workload', 'stats'},
                                 node.obj_what_changed())
                self.assertFalse(node.obj_attr_is_set('memory_mb'))
                instance.save(expected_task_state=[states.SPAWNING],
                              node=node)
        own.assert_not_called()
        self.assertEqual((0, 0), (self.host_state().num_io_ops,
                                  self.stored_node().current_workload))
        self.assertEqual('1', self.stats()['num_vm_active'])
        # Written: the next change writes only what is new.
        self.assertEqual(set(), self.tracker.compute_nodes[
            self.node].obj_what_changed())

    def test_a_last_save_run_again_after_a_deadlock_writes_the_node(self):
        instance = self.spawned()
        failures = [db.DBDeadlock()]

        def fail_once(session):
            if failures:
                raise failures.pop()
        sa_event.listen(orm.Session, 'before_commit', fail_once)
        self.addCleanup(sa_event.remove, orm.Session, 'before_commit',
                        fail_once)
        self.last_save(instance)
        self.assertEqual([], failures)
        self.assertEqual((0, '1'), (self.host_state().num_io_ops,
                                    self.stats()['num_vm_active']))

    def test_a_refused_last_save_leaves_the_build_counted(self):
        instance = self.spawned()
        deleting = objects.Instance.get_by_uuid(self.context, instance.uuid)
        deleting.task_state = states.DELETING
        deleting.save()
        self.assertRaises(exception.UnexpectedDeletingTaskStateError,
                          self.last_save, instance)
        # Neither the record nor the tracker counts it ACTIVE.
        self.assertEqual((1, '0'), (self.host_state().num_io_ops,
                                    self.stats().get('num_vm_active', '0')))
        self.tracker.drop_instance(self.context, instance, self.node)
        self.assertEqual(0, self.host_state().num_io_ops)

    def test_a_save_already_writing_the_node_takes_the_end_along(self):
        instance = self.spawned()
        self.tracker._writing = True  # another thread's save in flight
        with self.tracker.usage_with_save(self.context, instance) as node:
            self.assertIsNone(node)
            instance.save(expected_task_state=[states.SPAWNING], node=node)
            self.assertEqual(1, self.host_state().num_io_ops)
            self.tracker._writing = False  # ... which ends
        # The end is written as the block ends.
        self.assertEqual(0, self.host_state().num_io_ops)

    def test_a_rebuild_starting_counts_at_once(self):
        instance = self.make_instance()
        self.audit()
        instance.task_state = states.REBUILDING
        self.tracker.update_usage(self.context, instance)
        self.assertEqual(1, self.host_state().num_io_ops)

    def test_an_instance_not_counted_here_changes_nothing(self):
        self.audit()
        before = self.stored_node().updated_at
        elsewhere = self.make_instance(task_state=states.REBUILDING)
        self.tracker.update_usage(self.context, elsewhere)
        self.assertEqual(('0', before), (self.stats()['io_workload'],
                                         self.stored_node().updated_at))

    def test_the_audit_counts_the_tasks_of_the_instances_here(self):
        self.make_instance(task_state=states.RESIZE_MIGRATING)
        self.make_instance(task_state=states.UNSHELVING)
        self.make_instance(task_state=states.POWERING_OFF)
        self.make_instance()
        self.audit()
        node = self.stored_node()
        # Every task counts in current_workload; only the I/O-heavy
        # ones in io_workload, which the scheduler reads.
        self.assertEqual((3, '2', '4'),
                         (node.current_workload, node.stats['io_workload'],
                          node.stats['num_instances']))
        self.assertEqual(2, self.host_state().num_io_ops)

    def test_a_dropped_instance_stops_counting(self):
        self.audit()
        instance = self.make_instance(states.BUILDING, states.SPAWNING)
        self.spawn(instance)
        self.tracker.drop_instance(self.context, instance, self.node)
        self.assertEqual(('0', '0'), (self.stats()['io_workload'],
                                      self.stats()['num_instances']))

    def test_the_audit_keeps_the_activity_of_a_claim_in_progress(self):
        self.audit()
        instance = self.make_instance(states.BUILDING, states.SPAWNING)
        with self.claim(instance):
            # Its record does not say it is here yet.
            instance.host = None
            instance.save()
            self.audit()
            self.assertEqual('1', self.stats()['io_workload'])


class TestFailedBuilds(ReportsTestCase):

    def test_failed_builds_are_reported_at_once(self):
        self.audit()
        self.tracker.build_failed(self.node)
        self.tracker.build_failed(self.node)
        self.assertEqual(2, self.host_state().failed_builds)

    def test_a_successful_build_forgives_them(self):
        self.audit()
        self.tracker.build_failed(self.node)
        self.tracker.build_succeeded(self.node)
        self.assertEqual(0, self.host_state().failed_builds)

    def test_the_audit_keeps_the_count(self):
        self.audit()
        self.tracker.build_failed(self.node)
        self.audit()
        self.assertEqual('1', self.stats()['failed_builds'])


class TestTraits(ReportsTestCase):

    def test_the_disk_formats_of_the_driver_are_traits(self):
        self.audit()
        traits = self.traits()
        self.assertEqual({'COMPUTE_IMAGE_TYPE_QCOW2',
                          'COMPUTE_IMAGE_TYPE_RAW'},
                         {t for t in traits
                          if t.startswith('COMPUTE_IMAGE_TYPE_')})
        self.assertIn('COMPUTE_NODE', traits)

    def test_a_format_no_longer_supported_loses_its_trait(self):
        self.audit()
        self.config.config(group='compute', fake_image_types=['raw'])
        self.audit()
        self.assertEqual({'COMPUTE_IMAGE_TYPE_RAW'},
                         {t for t in self.traits()
                          if t.startswith('COMPUTE_IMAGE_TYPE_')})

    def test_a_disabled_service_puts_the_status_trait_on_its_provider(self):
        self.register_service(disabled=True)
        self.audit()
        self.assertIn(STATUS_DISABLED, self.traits())

    def test_an_enabled_service_takes_it_off_and_the_next_audit_agrees(
            self):
        service = self.register_service(disabled=True)
        self.audit()
        # What the API does: the record, then the compute is told.
        service.disabled = False
        service.save()
        self.tracker.set_service_status(disabled=False)
        self.audit()
        self.assertNotIn(STATUS_DISABLED, self.traits())
        # (A change the compute is not told of is read within [compute]
        # resource_provider_association_refresh:
        # test_resource_tracker_provider_cache.)

    def test_without_a_service_record_the_status_trait_is_left_alone(self):
        node = self.audit()
        self.client().update_provider_traits(node.uuid, [STATUS_DISABLED])
        self.audit()
        self.assertIn(STATUS_DISABLED, self.traits())

    def test_set_service_status_writes_it_at_once(self):
        self.register_service()
        self.audit()
        self.assertTrue(self.tracker.set_service_status(disabled=True))
        self.assertIn(STATUS_DISABLED, self.traits())
        self.assertTrue(self.tracker.set_service_status(disabled=False))
        self.assertNotIn(STATUS_DISABLED, self.traits())

    def test_set_service_status_before_the_first_audit_says_so(self):
        self.assertFalse(self.tracker.set_service_status(disabled=True))

    def test_traits_set_by_an_operator_are_kept(self):
        node = self.audit()
        client = self.client()
        client._request('PUT', '/traits/CUSTOM_GOLD', version='1.6')
        client.update_provider_traits(node.uuid, ['CUSTOM_GOLD',
                                                  'HW_CPU_X86_AVX2'])
        self.register_service(disabled=True)
        self.config.config(group='compute', fake_image_types=['raw'])
        self.audit()
        self.tracker.set_service_status(disabled=False)
        traits = self.traits()
        self.assertTrue({'CUSTOM_GOLD', 'HW_CPU_X86_AVX2',
                         'COMPUTE_IMAGE_TYPE_RAW'} <= traits, traits)
        self.assertNotIn('COMPUTE_IMAGE_TYPE_QCOW2', traits)
        self.assertNotIn(STATUS_DISABLED, traits)

    def test_placement_refusing_the_traits_does_not_fail_the_audit(self):
        self.register_service(disabled=True)
        self.config.config(group='compute', fake_image_types=[])
        calls = []

        def refuse(uuid, add=(), remove=(), trust_cache=True):
            calls.append(uuid)
            raise placement_client.PlacementUnavailable(reason='down')
        self.tracker.reportclient.update_provider_traits = refuse
        node = self.audit()
        self.assertEqual([node.uuid], calls)
        self.assertEqual(HOST, self.stored_node().host)


class TestUpdateProviderTraits(ReportsTestCase):
    """The placement client's read-change-write of a provider's traits."""

    def setUp(self):
        super().setUp()
        self.uuid = self.audit().uuid

    def test_nothing_is_written_when_nothing_changes(self):
        client = self.client()
        before = client.get_provider(self.uuid)['generation']
        self.assertIsNone(client.update_provider_traits(
            self.uuid, add=['COMPUTE_NODE'], remove=[STATUS_DISABLED]))
        self.assertEqual(before, client.get_provider(self.uuid)['generation'])

    def test_a_concurrent_change_is_read_again_and_kept(self):
        client = self.client()
        other = self.client()
        other._request('PUT', '/traits/CUSTOM_RACE', version='1.6')
        real_request = client._request
        raced = []

        def request(method, path, *args, **kwargs):
            if method == 'PUT' and path.endswith('/traits') and not raced:
                # Another writer changes the traits between our read and
                # our write.
                raced.append(other.update_provider_traits(
                    self.uuid, add=['CUSTOM_RACE']))
            return real_request(method, path, *args, **kwargs)
        client._request = request
        self.assertEqual(({STATUS_DISABLED}, set()),
                         client.update_provider_traits(
                             self.uuid, add=[STATUS_DISABLED]))
        self.assertEqual([({'CUSTOM_RACE'}, set())], raced)
        self.assertTrue({'CUSTOM_RACE', STATUS_DISABLED} <= self.traits())

    def test_a_provider_that_keeps_changing_is_a_conflict(self):
        client = self.client()
        other = self.client()
        real_request = client._request
        flips = []

        def request(method, path, *args, **kwargs):
            if method == 'PUT' and path.endswith('/traits'):
                # Another writer changes them before each of our writes.
                one, two = 'HW_CPU_X86_AVX', 'HW_CPU_X86_AVX2'
                if len(flips) % 2:
                    one, two = two, one
                flips.append(other.update_provider_traits(
                    self.uuid, add=[one], remove=[two]))
            return real_request(method, path, *args, **kwargs)
        client._request = request
        self.assertRaises(placement_client.PlacementConflict,
                          client.update_provider_traits, self.uuid,
                          add=[STATUS_DISABLED])
        self.assertEqual(placement_client.CONFLICT_RETRIES, len(flips))
