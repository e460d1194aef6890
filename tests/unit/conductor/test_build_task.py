"""The conductor's build flow, with each step forced to fail once.

The databases are real (SQLite), the scheduler and compute RPC clients are
stand-ins passed to the task, so a test can make one of them fail."""

import fixtures
import oslo_messaging as messaging
from oslo_utils import timeutils
from oslo_utils import uuidutils
import testtools

from nova_lite.compute import states
from nova_lite.conductor.tasks import build
from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite import objects
from tests.unit import fixtures as nl_fixtures


class FakeScheduler:
    def __init__(self, answer):
        self.answer = answer

    def select_destinations(self, context, spec, uuids):
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


class RecordingCompute:
    def __init__(self, error=None):
        self.error = error
        self.builds = []

    def build_and_run_instance(self, context, instance, host, **kwargs):
        if self.error is not None:
            raise self.error
        self.builds.append((instance.uuid, host.service_host))


class TestScheduleAndBuild(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.plane = self.useFixture(nl_fixtures.ControlPlane())
        self.context = nova_context.RequestContext(user_id='u',
                                                   project_id='p')
        self.admin = nova_context.get_admin_context()
        self.flavor = objects.Flavor(
            self.admin, flavorid='1', name='small', memory_mb=512, vcpus=1,
            root_gb=1, ephemeral_gb=0, swap=0)
        self.flavor.create()

    def _accepted(self):
        """What the API writes for one server."""
        uuid = uuidutils.generate_uuid()
        instance = objects.Instance(
            self.context, uuid=uuid, display_name='vm', project_id='p',
            user_id='u', flavor=self.flavor, vm_state=states.BUILDING,
            task_state=states.SCHEDULING, power_state=0,
            created_at=timeutils.utcnow())
        spec = objects.RequestSpec(self.context, instance_uuid=uuid,
                                   flavor=self.flavor, num_instances=1)
        spec.create()
        request = objects.BuildRequest(self.context, instance_uuid=uuid,
                                       project_id='p', instance=instance)
        request.create()
        objects.InstanceMapping(self.context, instance_uuid=uuid,
                                project_id='p', cell_mapping=None).create()
        return request, spec

    def _selection(self):
        return objects.Selection(
            compute_node_uuid=uuidutils.generate_uuid(), service_host='h1',
            nodename='h1', cell_uuid=self.plane.databases.cell1.uuid,
            limits=objects.SchedulerLimits())

    def _run(self, request, spec, scheduler, compute):
        build.ScheduleAndBuildTask(self.context, scheduler, compute,
                                   [request], [spec], None).execute()

    def _instances_in(self, cell):
        with nova_context.target_cell(self.admin, cell) as cctxt:
            return objects.InstanceList.get_by_filters(
                cctxt, {}, expected_attrs=['fault'])

    def _mapped_cell(self, uuid):
        return objects.InstanceMapping.get_by_instance_uuid(
            self.admin, uuid).cell_mapping

    def test_success_places_in_cell_and_casts_to_the_chosen_host(self):
        request, spec = self._accepted()
        compute = RecordingCompute()
        self._run(request, spec, FakeScheduler([[self._selection()]]),
                  compute)
        self.assertEqual([(request.instance_uuid, 'h1')], compute.builds)
        self.assertEqual('cell1', self._mapped_cell(request.instance_uuid)
                         .name)
        self.assertRaises(exception.BuildRequestNotFound,
                          objects.BuildRequest.get_by_instance_uuid,
                          self.admin, request.instance_uuid)

    def test_no_valid_host_buries_in_cell0_with_the_reason(self):
        request, spec = self._accepted()
        self._run(request, spec, FakeScheduler(exception.NoValidHost(
            reason='0/2 hosts available: 2 insufficient RAM')),
            RecordingCompute())
        [buried] = self._instances_in(self.plane.databases.cell0)
        self.assertEqual(states.ERROR, buried.vm_state)
        self.assertEqual('No valid host was found.', buried.fault.message)
        self.assertIn('2 insufficient RAM', buried.fault.details)
        self.assertTrue(self._mapped_cell(request.instance_uuid).is_cell0)
        self.assertEqual([], list(self._instances_in(
            self.plane.databases.cell1)))

    def test_scheduler_timeout_buries_with_a_clear_fault(self):
        request, spec = self._accepted()
        self._run(request, spec,
                  FakeScheduler(messaging.MessagingTimeout('no reply')),
                  RecordingCompute())
        [buried] = self._instances_in(self.plane.databases.cell0)
        self.assertIn('scheduler did not answer', buried.fault.message)

    def test_mapping_failure_leaves_the_instance_only_in_cell0(self):
        request, spec = self._accepted()
        save = objects.InstanceMapping.save
        calls = []

        def fail_first_save(mapping):
            calls.append(mapping.instance_uuid)
            if len(calls) == 1:
                raise exception.DatabaseUnavailable(url='api', reason='down')
            return save(mapping)
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.objects.cell_mapping.InstanceMapping.save',
            fail_first_save))
        self._run(request, spec, FakeScheduler([[self._selection()]]),
                  RecordingCompute())
        self.assertEqual([], list(self._instances_in(
            self.plane.databases.cell1)))
        [buried] = self._instances_in(self.plane.databases.cell0)
        self.assertEqual(request.instance_uuid, buried.uuid)
        self.assertTrue(self._mapped_cell(request.instance_uuid).is_cell0)

    def test_unreachable_compute_leaves_error_with_fault_not_build(self):
        request, spec = self._accepted()
        self._run(request, spec, FakeScheduler([[self._selection()]]),
                  RecordingCompute(messaging.MessageDeliveryFailure('down')))
        [instance] = self._instances_in(self.plane.databases.cell1)
        self.assertEqual(states.ERROR, instance.vm_state)
        self.assertIsNone(instance.task_state)
        self.assertIn('down', instance.fault.message)

    def test_server_deleted_during_scheduling_is_not_built(self):
        request, spec = self._accepted()
        objects.BuildRequest.get_by_instance_uuid(
            self.admin, request.instance_uuid).destroy()
        compute = RecordingCompute()
        self._run(request, spec, FakeScheduler([[self._selection()]]),
                  compute)
        self.assertEqual([], compute.builds)
        self.assertEqual([], list(self._instances_in(
            self.plane.databases.cell1)))
