"""The compute manager's part in what the scheduler reads: consecutive
failed builds, the I/O workload of the operations it runs, and the
COMPUTE_STATUS_DISABLED trait an administrator's enable or disable puts
on or takes off at once (``test_manager_moves``'s fixtures: a real cell
database and placement, the fake driver).
"""

import threading
import time
from unittest import mock

import fixtures

from nova_lite.compute.flows import rebuild
from nova_lite.compute import resource_tracker
from nova_lite.compute import states
from nova_lite import objects
from nova_lite import servicegroup
from tests.unit.compute import test_manager_moves as moves

STATUS_DISABLED = 'COMPUTE_STATUS_DISABLED'


class ReportsTestCase(moves.BuildTestCase):

    def stats(self):
        return objects.ComputeNode.get_by_host_and_nodename(
            self.context, 'dst', 'dst').stats

    def build_and_count(self, host_list=()):
        mappings = {'': [self.nodes['dst']],
                    '_' + self.port['id']: [self.nics['dst']]}
        return self.manager._build_and_count(
            self.context, self.instance, self.selection(mappings=mappings),
            self.spec, list(host_list), None, None)

    def another_build(self):
        """A second server waiting for this host, as setUp's is."""
        self.instance = self.make_instance(vm_state=states.BUILDING,
                                           task_state=states.SCHEDULING)
        self.allocate(self.instance.uuid, self.allocation_on('dst'))
        self.port = self.ports.add(moves.port_fakes.port(
            project_id=self.instance.project_id, egress=100))
        self.spec.instance_uuid = self.instance.uuid
        self.spec.requested_networks = objects.NetworkRequestList.from_api(
            [{'port': self.port['id']}])
        self.spec.requested_resources = [self.group(self.port)]


class TestFailedBuilds(ReportsTestCase):

    def test_a_build_that_ends_in_error_is_a_failed_build(self):
        self.config.config(fake_fail_spawn_for=['*'], group='compute')
        self.build_and_count()
        self.assertEqual(states.ERROR, self.stored(self.instance).vm_state)
        self.assertEqual('1', self.stats()['failed_builds'])

    def test_a_rescheduled_build_is_one_too(self):
        self.config.config(fake_fail_spawn_for=['*'], group='compute')
        self.build_and_count(host_list=[self.selection('src')])
        self.assertEqual(1, len(self.conductor.reschedules))
        self.assertEqual('1', self.stats()['failed_builds'])

    def test_they_add_up_until_a_build_succeeds(self):
        self.config.config(fake_fail_spawn_for=['*'], group='compute')
        self.build_and_count()
        self.another_build()
        self.build_and_count()
        self.assertEqual('2', self.stats()['failed_builds'])
        self.config.config(fake_fail_spawn_for=[], group='compute')
        self.another_build()
        self.build_and_count()
        self.assertEqual(states.ACTIVE, self.stored(self.instance).vm_state)
        self.assertEqual('0', self.stats()['failed_builds'])

    def test_a_threshold_of_0_counts_none(self):
        self.config.config(fake_fail_spawn_for=['*'],
                           consecutive_build_service_disable_threshold=0,
                           group='compute')
        self.build_and_count()
        self.assertEqual(states.ERROR, self.stored(self.instance).vm_state)
        self.assertEqual('0', self.stats()['failed_builds'])

    def test_a_server_deleted_while_built_is_not_a_failure(self):
        self.instance.destroy()
        self.build_and_count()
        self.assertEqual('0', self.stats()['failed_builds'])

    def test_the_service_stays_enabled_whatever_the_count(self):
        # As in Nova 34: the count only weighs the host down.
        self.config.config(fake_fail_spawn_for=['*'],
                           consecutive_build_service_disable_threshold=1,
                           group='compute')
        service = objects.Service(self.context, host='dst',
                                  binary=servicegroup.COMPUTE_BINARY,
                                  topic='compute')
        service.create()
        self.build_and_count()
        self.another_build()
        self.build_and_count()
        self.assertEqual('2', self.stats()['failed_builds'])
        self.assertFalse(servicegroup.compute_service(self.context,
                                                      'dst').disabled)


class TestWorkloadOfOperations(ReportsTestCase):

    def test_an_operation_counts_while_it_runs_and_not_after(self):
        instance = self.make_instance(host='dst')
        self.manager.rt.update_available_resource(self.context, 'dst')
        instance.task_state = states.REBUILDING
        instance.save()
        started, finish = threading.Event(), threading.Event()
        during = []

        def rebuild(compute, context, instance):
            started.set()
            finish.wait(30)
            instance.task_state = None
            instance.save()
        running = self.manager._submit(rebuild, self.context, instance)
        self.assertTrue(started.wait(30))
        during.append(self.stats()['io_workload'])
        finish.set()
        running.result(30)
        self.assertEqual(['1', '0'], during + [self.stats()['io_workload']])

    def build_in_the_pool(self):
        return self.manager._submit(
            type(self.manager)._build_and_count, self.context,
            self.instance, self.selection(mappings={
                '': [self.nodes['dst']],
                '_' + self.port['id']: [self.nics['dst']]}),
            self.spec, [], None, None).result(30)

    def test_a_build_counts_from_its_claim_to_its_end(self):
        # A spawn longer than WRITE_SOON_SECONDS: the claim's record is
        # written meanwhile, with a call of its own.
        self.useFixture(fixtures.MockPatchObject(
            resource_tracker, 'WRITE_SOON_SECONDS', 0.05))
        during = []
        real_spawn = self.manager.driver.spawn

        def spawn(context, guest, image):
            deadline = time.monotonic() + 30
            while self.stats().get('io_workload') != '1' and \
                    time.monotonic() < deadline:
                time.sleep(0.02)
            during.append(self.stats()['io_workload'])
            real_spawn(context, guest, image)
        self.manager.driver.spawn = spawn
        self.assertEqual('active', self.build_in_the_pool())
        self.assertEqual(['1', '0'], during + [self.stats()['io_workload']])

    def test_a_build_writes_its_end_with_the_servers_last_save(self):
        # A build quicker than WRITE_SOON_SECONDS writes the node's record
        # only with the save that makes the server ACTIVE: its claim and
        # its end (no I/O operation left, one server ACTIVE) together.
        self.useFixture(fixtures.MockPatchObject(
            resource_tracker, 'WRITE_SOON_SECONDS', 0.05))
        with mock.patch.object(objects.ComputeNode, 'save', autospec=True,
                               side_effect=objects.ComputeNode.save) as saves:
            self.assertEqual('active', self.build_in_the_pool())
            time.sleep(0.2)  # the claim's write would have come by now
        self.assertEqual(0, saves.call_count)
        node = objects.ComputeNode.get_by_host_and_nodename(
            self.context, 'dst', 'dst')
        stats = node.stats
        self.assertEqual(('0', '1', '0'),
                         (stats['io_workload'], stats['num_vm_active'],
                          stats.get('num_vm_building', '0')))
        self.assertEqual(self.instance.flavor.vcpus, node.vcpus_used)

    def test_a_claim_outside_a_build_is_written_at_once(self):
        with mock.patch.object(objects.ComputeNode, 'save', autospec=True,
                               side_effect=objects.ComputeNode.save) as saves:
            self.manager.rt.claim(self.context, self.instance, 'dst')
        self.assertEqual(1, saves.call_count)

    def test_a_rebuild_writes_its_end_with_the_servers_last_save(self):
        # Its start is a save of the node's own; its end (no I/O operation
        # left) goes with the save that ends the rebuild.
        instance = self.make_instance(host='dst')
        self.manager.rt.update_available_resource(self.context, 'dst')
        instance.task_state = states.REBUILDING
        instance.save()
        with mock.patch.object(objects.ComputeNode, 'save', autospec=True,
                               side_effect=objects.ComputeNode.save) as saves:
            self.manager._submit(rebuild.rebuild, self.context, instance,
                                 None, None).result(30)
        self.assertEqual((states.ACTIVE, None),
                         (self.stored(instance).vm_state,
                          self.stored(instance).task_state))
        self.assertEqual(1, saves.call_count)
        self.assertEqual('0', self.stats()['io_workload'])

    def test_a_rebuild_overtaken_at_its_end_still_counts_its_end(self):
        # The server was deleted while it was rebuilt: its last save is
        # refused, and the node's record is written on its own.
        instance = self.make_instance(host='dst')
        self.manager.rt.update_available_resource(self.context, 'dst')
        instance.task_state = states.REBUILDING
        instance.save()
        real_spawn = self.manager.driver.spawn

        def spawn(context, guest, image):
            real_spawn(context, guest, image)
            self.stored(instance).destroy()
        self.manager.driver.spawn = spawn
        self.manager._submit(rebuild.rebuild, self.context, instance,
                             None, None).result(30)
        self.assertEqual('0', self.stats()['io_workload'])


class TestSetHostEnabled(ReportsTestCase):

    def traits(self):
        return self.reportclient.provider_traits(self.nodes['dst'])

    def test_disabling_puts_the_status_trait_on_and_enabling_takes_it_off(
            self):
        self.manager.set_host_enabled(self.context, enabled=False)
        self.assertIn(STATUS_DISABLED, self.traits())
        self.manager.set_host_enabled(self.context, enabled=True)
        self.assertNotIn(STATUS_DISABLED, self.traits())

    def test_a_compute_without_a_node_yet_only_logs(self):
        fresh = self.make_manager('newhost')
        fresh.set_host_enabled(self.context, enabled=False)
        self.assertIn('No compute node yet on newhost', self.logs.output)
