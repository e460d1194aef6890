"""The conductor's build flow, with each step forced to fail once.

The databases (SQLite) and placement (in this process, on a loopback port)
are real; the scheduler and compute RPC clients are stand-ins passed to the
task, so a test can make one of them fail. The stand-in scheduler claims in
placement as the real one does, so each test can check that nothing
claimed is left behind."""

import copy
import datetime

import fixtures
import oslo_messaging as messaging
from oslo_serialization import jsonutils
from oslo_utils import timeutils
from oslo_utils import uuidutils
import sqlalchemy as sa
import testtools

from nova_lite.compute import instance_actions
from nova_lite.compute import states
from nova_lite.conductor.tasks import build
from nova_lite import context as nova_context
from nova_lite.db import api as db
from nova_lite.db import api_models
from nova_lite.db import main_models
from nova_lite import exception
from nova_lite import objects
from nova_lite import placement_client
from tests.unit import fixtures as nl_fixtures


class FakeScheduler:
    """Answers ``answer``; for each instance claims the first selection's
    allocation request in placement, as the scheduler does."""

    def __init__(self, answer, reportclient=None):
        self.answer = answer
        self.reportclient = reportclient

    def select_destinations(self, context, spec, uuids):
        if isinstance(self.answer, Exception):
            raise self.answer
        for uuid, (chosen, *_alternates) in zip(uuids, self.answer):
            if chosen.allocation is not None:
                assert self.reportclient.claim_resources(
                    uuid, chosen.allocation, 'p', 'u')
        return self.answer


class SchedulerWithoutPlacement(FakeScheduler):
    """Cannot reach placement (or fails with ``error``) ``outages``
    times, then answers."""

    def __init__(self, outages, answer, reportclient=None, error=None):
        super().__init__(answer, reportclient)
        self.outages = outages
        self.error = error
        self.calls = 0

    def select_destinations(self, context, spec, uuids):
        self.calls += 1
        if self.calls <= self.outages:
            raise self.error or exception.PlacementUnreachable(
                reason='placement could not be asked (connection refused)')
        return super().select_destinations(context, spec, uuids)


class BlinkingCompute:
    """Its casts cannot be delivered ``blinks`` times, then go out."""

    def __init__(self, blinks):
        self.blinks = blinks
        self.builds = []

    def build_and_run_instance(self, context, instance, host, **kwargs):
        if self.blinks:
            self.blinks -= 1
            raise messaging.MessageDeliveryFailure('broker away')
        self.builds.append((instance.uuid, host.service_host))


class RecordingCompute:
    def __init__(self, error=None):
        self.error = error
        self.builds = []
        self.instances = []

    def build_and_run_instance(self, context, instance, host, **kwargs):
        if self.error is not None:
            raise self.error
        self.builds.append((instance.uuid, host.service_host))
        self.instances.append(instance.obj_to_primitive())


class BuildTaskTestCase(testtools.TestCase):

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
        self.useFixture(nl_fixtures.PlacementServer())
        self.reportclient = placement_client.PlacementClient()
        self.providers = {name: self._provider(name)
                          for name in ('h1', 'h2', 'h3')}

    def _provider(self, name, memory_mb=1024):
        uuid = uuidutils.generate_uuid()
        self.reportclient.ensure_resource_provider(uuid, name)
        self.reportclient.set_inventory(uuid, {
            'VCPU': {'total': 4}, 'MEMORY_MB': {'total': memory_mb},
            'DISK_GB': {'total': 10}})
        return uuid

    def _allocations(self, uuid):
        return self.reportclient.get_allocations(uuid)['allocations']

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

    def _selection(self, host='h1'):
        rp = self.providers[host]
        return objects.Selection(
            compute_node_uuid=rp, service_host=host,
            nodename=host, cell_uuid=self.plane.databases.cell1.uuid,
            limits=objects.SchedulerLimits(),
            allocation_request=jsonutils.dumps({'allocations': {rp: {
                'resources': {'VCPU': 1, 'MEMORY_MB': 512,
                              'DISK_GB': 1}}}}))

    def _run(self, request, spec, answer, compute):
        scheduler = FakeScheduler(answer, self.reportclient)
        build.ScheduleAndBuildTask(self.context, scheduler, compute,
                                   [request], [spec], None,
                                   self.reportclient).execute()

    def _instances_in(self, cell):
        with nova_context.target_cell(self.admin, cell) as cctxt:
            return objects.InstanceList.get_by_filters(
                cctxt, {}, expected_attrs=['fault'])

    def _mapped_cell(self, uuid):
        return objects.InstanceMapping.get_by_instance_uuid(
            self.admin, uuid).cell_mapping


class TestScheduleAndBuild(BuildTaskTestCase):

    def test_success_places_in_cell_and_casts_to_the_chosen_host(self):
        request, spec = self._accepted()
        compute = RecordingCompute()
        self._run(request, spec, [[self._selection()]],
                  compute)
        self.assertEqual([(request.instance_uuid, 'h1')], compute.builds)
        self.assertEqual([self.providers['h1']],
                         list(self._allocations(request.instance_uuid)))
        self.assertEqual('cell1', self._mapped_cell(request.instance_uuid)
                         .name)
        self.assertRaises(exception.BuildRequestNotFound,
                          objects.BuildRequest.get_by_instance_uuid,
                          self.admin, request.instance_uuid)

    def test_no_valid_host_buries_in_cell0_with_the_reason(self):
        request, spec = self._accepted()
        self._run(request, spec, exception.NoValidHost(
            reason='0/2 hosts available: 2 insufficient RAM'),
            RecordingCompute())
        [buried] = self._instances_in(self.plane.databases.cell0)
        self.assertEqual(states.ERROR, buried.vm_state)
        self.assertEqual('No valid host was found.', buried.fault.message)
        self.assertIn('2 insufficient RAM', buried.fault.details)
        self.assertTrue(self._mapped_cell(request.instance_uuid).is_cell0)
        self.assertEqual([], list(self._instances_in(
            self.plane.databases.cell1)))

    def test_a_scheduler_silent_past_the_wait_buries_with_a_clear_fault(self):
        self.plane.config.config(outage_wait=0)
        request, spec = self._accepted()
        self._run(request, spec,
                  messaging.MessagingTimeout('no reply'),
                  RecordingCompute())
        [buried] = self._instances_in(self.plane.databases.cell0)
        self.assertIn('scheduler did not answer', buried.fault.message)

    def test_an_unanswered_scheduler_is_asked_again(self):
        request, scheduler, compute, pauses = self._run_without_placement(
            2, messaging.MessagingTimeout('no reply'))
        self.assertEqual((3, [1, 2]), (scheduler.calls, pauses))
        self.assertEqual([(request.instance_uuid, 'h1')], compute.builds)

    def _run_without_placement(self, outages, error=None):
        request, spec = self._accepted()
        scheduler = SchedulerWithoutPlacement(
            outages, [[self._selection()]], self.reportclient, error)
        compute = RecordingCompute()
        clock = self.useFixture(nl_fixtures.OutageClock())
        pauses = clock.pauses
        build.ScheduleAndBuildTask(self.context, scheduler, compute,
                                   [request], [spec], None,
                                   self.reportclient).execute()
        return request, scheduler, compute, pauses

    def test_a_placement_outage_delays_the_build(self):
        request, scheduler, compute, pauses = self._run_without_placement(2)
        self.assertEqual(3, scheduler.calls)
        self.assertEqual([1, 2], pauses)
        self.assertEqual([(request.instance_uuid, 'h1')], compute.builds)
        self.assertEqual([], list(self._instances_in(
            self.plane.databases.cell0)))

    def test_a_long_placement_outage_buries_with_nothing_held(self):
        self.plane.config.config(outage_wait=10)
        request, scheduler, compute, pauses = self._run_without_placement(99)
        # 1 + 2 + 4 seconds fit in 10; the next 8 would not.
        self.assertEqual([1, 2, 4], pauses)
        self.assertEqual([], compute.builds)
        [buried] = self._instances_in(self.plane.databases.cell0)
        self.assertEqual(states.ERROR, buried.vm_state)
        self.assertIn('placement could not be asked', buried.fault.details)
        self.assertEqual({}, self._allocations(request.instance_uuid))

    def test_no_wait_fails_at_once(self):
        self.plane.config.config(outage_wait=0)
        _request, scheduler, compute, pauses = self._run_without_placement(1)
        self.assertEqual((1, [], []), (scheduler.calls, pauses,
                                       compute.builds))

    def test_mapping_failure_leaves_the_instance_only_in_cell0(self):
        request, spec = self._accepted()
        map_to_cell = objects.InstanceMapping.map_to_cell
        calls = []

        # MonkeyPatch keeps a classmethod one: the class comes first.
        def fail_first(cls, context, instance_uuid, *args):
            calls.append(instance_uuid)
            if len(calls) == 1:
                # Not a database blink (that is tried again: see
                # test_build_flow_steps.TestEachStepMeetsADatabaseBlink).
                raise exception.Invalid(reason='mapping refused')
            return map_to_cell(context, instance_uuid, *args)
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.objects.cell_mapping.InstanceMapping.map_to_cell',
            fail_first))
        self._run(request, spec, [[self._selection()]],
                  RecordingCompute())
        self.assertEqual([], list(self._instances_in(
            self.plane.databases.cell1)))
        [buried] = self._instances_in(self.plane.databases.cell0)
        self.assertEqual(request.instance_uuid, buried.uuid)
        self.assertTrue(self._mapped_cell(request.instance_uuid).is_cell0)
        self.assertEqual({}, self._allocations(request.instance_uuid))

    def test_unreachable_compute_leaves_error_with_fault_not_build(self):
        # Unreachable past the outage wait.
        self.plane.config.config(outage_wait=0)
        request, spec = self._accepted()
        self._run(request, spec, [[self._selection()]],
                  RecordingCompute(messaging.MessageDeliveryFailure('down')))
        [instance] = self._instances_in(self.plane.databases.cell1)
        self.assertEqual(states.ERROR, instance.vm_state)
        self.assertIsNone(instance.task_state)
        self.assertIn('down', instance.fault.message)
        self.assertEqual({}, self._allocations(request.instance_uuid))

    def test_server_deleted_during_scheduling_is_not_built(self):
        request, spec = self._accepted()
        objects.BuildRequest.get_by_instance_uuid(
            self.admin, request.instance_uuid).destroy()
        compute = RecordingCompute()
        self._run(request, spec, [[self._selection()]],
                  compute)
        self.assertEqual([], compute.builds)
        self.assertEqual([], list(self._instances_in(
            self.plane.databases.cell1)))
        self.assertEqual({}, self._allocations(request.instance_uuid))


class TestOneCastManyServers(BuildTaskTestCase):
    """The builds of one cast bound for one cell take each step together:
    one UPDATE records their first step, then their second; one
    transaction creates their instances, one maps them, one DELETE
    removes their build requests. One that is no longer the task's, or
    whose server was deleted, fails alone at the step that finds it."""

    def _run_cast(self, pairs, compute):
        scheduler = FakeScheduler([[self._selection(host)]
                                   for host in ('h1', 'h2', 'h3')],
                                  self.reportclient)
        build.ScheduleAndBuildTask(
            self.context, scheduler, compute, [br for br, _ in pairs],
            [spec for _, spec in pairs], None, self.reportclient).execute()

    def _count(self, name, cls=objects.BuildRequest):
        calls = []
        real = getattr(cls, name)

        # MonkeyPatch keeps a classmethod one: the class comes first.
        # (An instance's method gets the instance, and is called with it.)
        def counted(cls, *args, **kwargs):
            calls.append(copy.deepcopy(args[-1]) if args else cls)
            return real(*args, **kwargs) if args else real(cls)
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.objects.%s.%s' % (cls.__name__, name), counted))
        return calls

    def _at_step_of(self, step, uuid, do):
        """``do()`` as the build of ``uuid`` is about to take ``step``."""
        def before_step(flow, name):
            if name == step and flow.subject == uuid:
                do()
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.flow.Flow.before_step', staticmethod(before_step)))

    def _stored(self, uuid):
        with nova_context.target_cell(self.admin,
                                      self.plane.databases.cell1) as cctxt:
            return objects.Instance.get_by_uuid(cctxt, uuid)

    def test_each_step_is_taken_together(self):
        pairs = [self._accepted() for _ in range(3)]
        together, alone = self._count('record_flows'), \
            self._count('record_flow')
        mapped = self._count('map_all_to_cell', objects.InstanceMapping)
        deleted = self._count('destroy_all')
        created = self._count('create', objects.Instance)
        compute = RecordingCompute()
        self._run_cast(pairs, compute)
        cell = self.plane.databases.cell1.uuid
        created_in = {'cell': cell, 'request_id': self.context.request_id}
        self.assertEqual(
            [{'action': 'create', 'steps': [['schedule', None]]},
             {'action': 'create', 'steps': [['schedule', None],
                                            ['create_in_cell', created_in]]}],
            together)
        self.assertEqual([{'action': 'create', 'steps': [
            ['schedule', None], ['create_in_cell', created_in],
            ['map_to_cell', cell]]}], mapped)
        self.assertEqual(([], [], 1), (alone, created, len(deleted)))
        self.assertEqual(3, len(compute.builds))
        for uuid, _host in compute.builds:
            self.assertEqual('cell1', self._mapped_cell(uuid).name)
            self.assertRaises(exception.BuildRequestNotFound,
                              objects.BuildRequest.get_by_instance_uuid,
                              self.admin, uuid)
            with nova_context.target_cell(
                    self.admin, self.plane.databases.cell1) as cctxt:
                [action] = objects.InstanceActionList.get_by_instance_uuid(
                    cctxt, uuid)
            self.assertEqual(('create', self.context.request_id, 'u', 'p'),
                             (action.action, action.request_id,
                              action.user_id, action.project_id))
        # What each compute was sent is what the cell holds (but for
        # updated_at, by the database's clock).
        for sent in compute.instances:
            [data] = [key for key in sent if key.endswith('.data')]
            stored = self._stored(sent[data]['uuid']).obj_to_primitive()
            for primitive in (sent, stored):
                primitive[data].pop('updated_at')
            self.assertEqual(stored, sent)

    def test_a_failed_create_together_creates_each_alone(self):
        pairs = [self._accepted() for _ in range(3)]

        def refused(cls, *args, **kwargs):
            raise exception.DatabaseUnavailable(url='x', reason='blink')
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.objects.Instance.create_all', refused))
        created = self._count('create', objects.Instance)
        compute = RecordingCompute()
        self._run_cast(pairs, compute)
        self.assertEqual(3, len(created))
        self.assertEqual(3, len(compute.builds))

    def test_one_taken_over_before_its_mapping_fails_alone(self):
        pairs = [self._accepted() for _ in range(3)]
        lost = pairs[1][0].instance_uuid

        def take_over():
            with db.api_session() as session:
                session.execute(sa.update(api_models.BuildRequest).where(
                    api_models.BuildRequest.instance_uuid == lost).values(
                        owner='another-conductor'))
        self._at_step_of('map_to_cell', lost, take_over)
        compute = RecordingCompute()
        self._run_cast(pairs, compute)
        self.assertEqual({pairs[0][0].instance_uuid,
                          pairs[2][0].instance_uuid},
                         {uuid for uuid, _host in compute.builds})
        # What the task made for it is gone; the rest is the new owner's.
        self.assertRaises(exception.InstanceNotFound, self._stored, lost)
        self.assertIsNone(self._mapped_cell(lost))
        for uuid, _host in compute.builds:
            self.assertEqual('cell1', self._mapped_cell(uuid).name)

    def test_one_deleted_before_its_build_request_goes_is_undone(self):
        pairs = [self._accepted() for _ in range(3)]
        gone = pairs[2][0].instance_uuid

        def delete():
            # As the API's delete of a server still building does.
            objects.BuildRequest.get_by_instance_uuid(
                self.admin, gone).destroy()
            objects.InstanceMapping.get_by_instance_uuid(
                self.admin, gone).destroy()
        self._at_step_of('delete_build_request', gone, delete)
        compute = RecordingCompute()
        self._run_cast(pairs, compute)
        self.assertEqual({pairs[0][0].instance_uuid,
                          pairs[1][0].instance_uuid},
                         {uuid for uuid, _host in compute.builds})
        self.assertRaises(exception.InstanceNotFound, self._stored, gone)
        self.assertEqual({}, self._allocations(gone))
        self.assertEqual(2, len(self._instances_in(
            self.plane.databases.cell1)))

    def test_one_taken_over_meanwhile_fails_alone(self):
        pairs = [self._accepted() for _ in range(3)]
        lost = pairs[1][0].instance_uuid
        claim_new = objects.BuildRequest.claim_new

        def claimed_then_lost(cls, context, uuids, owner):
            claimed = claim_new(context, uuids, owner)
            with db.api_session() as session:
                session.execute(sa.update(api_models.BuildRequest).where(
                    api_models.BuildRequest.instance_uuid == lost).values(
                        owner='another-conductor'))
            return claimed
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.objects.BuildRequest.claim_new', claimed_then_lost))
        compute = RecordingCompute()
        self._run_cast(pairs, compute)
        built = {uuid for uuid, _host in compute.builds}
        self.assertEqual({pairs[0][0].instance_uuid,
                          pairs[2][0].instance_uuid}, built)
        # Left to its new owner: not scheduled, placed or buried here.
        self.assertEqual({}, self._allocations(lost))
        self.assertIsNone(self._mapped_cell(lost))
        with db.api_session() as session:
            owner = session.execute(
                sa.select(api_models.BuildRequest.owner).where(
                    api_models.BuildRequest.instance_uuid == lost)).scalar()
        self.assertEqual('another-conductor', owner)


class TestLeaseLostMidWay(BuildTaskTestCase):
    """Another conductor takes the build over after this task last
    checked its lease (it stalled past it) and before its next step: what
    the task made since is its stray, and the mapping stays the new
    owner's."""

    def _taken_over_at(self, step):
        def before_step(flow, name):
            if name == step:
                with db.api_session() as session:
                    session.execute(sa.update(api_models.BuildRequest).values(
                        owner='another-conductor'))
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.flow.Flow.before_step', staticmethod(before_step)))

    def test_a_record_created_in_the_cell_is_removed_again(self):
        request, spec = self._accepted()
        self._taken_over_at('map_to_cell')
        compute = RecordingCompute()
        self._run(request, spec, [[self._selection()]], compute)
        self.assertEqual(([], [], None, []),
                         (list(self._instances_in(self.plane.databases.cell1)),
                          list(self._instances_in(self.plane.databases.cell0)),
                          self._mapped_cell(request.instance_uuid),
                          compute.builds))

    def test_a_burial_begun_is_not_finished(self):
        request, spec = self._accepted()
        get_mapping = objects.InstanceMapping.get_by_instance_uuid

        def taken_over_meanwhile(context, uuid):
            # The burial reads the mapping after its lease was checked.
            with db.api_session() as session:
                session.execute(sa.update(api_models.BuildRequest).values(
                    owner='another-conductor'))
            return get_mapping(context, uuid)
        scheduler = FakeScheduler(exception.NoValidHost(reason='full'))
        task = build.ScheduleAndBuildTask(
            self.context, scheduler, RecordingCompute(), [request], [spec],
            None, self.reportclient)
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.objects.InstanceMapping.get_by_instance_uuid',
            staticmethod(taken_over_meanwhile)))
        task.execute()
        self.assertEqual(([], None, True),
                         (list(self._instances_in(self.plane.databases.cell0)),
                          self._mapped_cell(request.instance_uuid),
                          request.instance_uuid in
                          objects.BuildRequestList.pending_among(
                              self.admin, [request.instance_uuid])))


class TestReschedule(BuildTaskTestCase):
    """A failed spawn goes to the next alternate placement has room on."""

    def _placed(self):
        """An instance in the cell whose build failed (its claim was
        given back by the compute)."""
        request, spec = self._accepted()
        self._run(request, spec, [[self._selection()]], RecordingCompute())
        self.reportclient.delete_allocations(request.instance_uuid)
        with nova_context.target_cell(self.admin,
                                      self._mapped_cell(
                                          request.instance_uuid)) as cctxt:
            return objects.Instance.get_by_uuid(cctxt,
                                                request.instance_uuid), spec

    def _fill(self, host):
        self.assertTrue(self.reportclient.claim_resources(
            uuidutils.generate_uuid(), {'allocations': {
                self.providers[host]: {'resources': {'MEMORY_MB': 1024}}}},
            'other', 'other'))

    def _reschedule(self, instance, spec, alternates, compute):
        build.reschedule(instance._context, compute, [instance], spec,
                         [alternates], None, self.reportclient)

    def test_the_alternate_is_claimed_before_the_build_is_sent(self):
        instance, spec = self._placed()
        compute = RecordingCompute()
        self._reschedule(instance, spec, [self._selection('h2'),
                                          self._selection('h3')], compute)
        self.assertEqual([(instance.uuid, 'h2')], compute.builds)
        self.assertEqual([self.providers['h2']],
                         list(self._allocations(instance.uuid)))

    def test_an_alternate_that_filled_up_is_skipped(self):
        instance, spec = self._placed()
        self._fill('h2')
        compute = RecordingCompute()
        self._reschedule(instance, spec, [self._selection('h2'),
                                          self._selection('h3')], compute)
        self.assertEqual([(instance.uuid, 'h3')], compute.builds)
        self.assertEqual([self.providers['h3']],
                         list(self._allocations(instance.uuid)))

    def test_no_alternate_with_room_ends_in_error_holding_nothing(self):
        instance, spec = self._placed()
        self._fill('h2')
        compute = RecordingCompute()
        self._reschedule(instance, spec, [self._selection('h2')], compute)
        self.assertEqual([], compute.builds)
        instance.refresh()
        self.assertEqual(states.ERROR, instance.vm_state)
        self.assertEqual({}, self._allocations(instance.uuid))

    def test_a_broker_blink_delays_the_cast_to_the_compute(self):
        clock = self.useFixture(nl_fixtures.OutageClock())
        request, spec = self._accepted()
        compute = BlinkingCompute(2)
        self._run(request, spec, [[self._selection()]], compute)
        self.assertEqual(([1, 2], [(request.instance_uuid, 'h1')]),
                         (clock.pauses, compute.builds))
        [instance] = self._instances_in(self.plane.databases.cell1)
        self.assertEqual(states.BUILDING, instance.vm_state)

    def test_a_cast_waiting_for_the_broker_keeps_its_build_alive(self):
        # Each blink is a long one: the server's last write is aged past
        # any takeover timeout before the cast is tried again.
        self.useFixture(nl_fixtures.OutageClock())
        request, spec = self._accepted()
        compute = BlinkingCompute(2)
        last_written = []

        def aged(context, instance, host, **kwargs):
            last_written.append(self._updated_at(instance.uuid))
            self._age(instance.uuid)
            return BlinkingCompute.build_and_run_instance(
                compute, context, instance, host, **kwargs)
        compute.build_and_run_instance = aged
        self._run(request, spec, [[self._selection()]], compute)
        self.assertEqual([(request.instance_uuid, 'h1')], compute.builds)
        # Renewed before each try after the first, though aged after the
        # one before.
        recent = timeutils.utcnow() - _minutes(1)
        self.assertEqual([True, True, True],
                         [written > recent for written in last_written])

    def test_a_database_blink_during_the_wait_does_not_stop_the_cast(self):
        clock = self.useFixture(nl_fixtures.OutageClock())

        def database_away(cls, context, uuids, task_state):
            raise exception.DatabaseUnavailable(url='mysql://db',
                                                reason='restarting')
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.objects.Instance.renew', classmethod(database_away)))
        request, spec = self._accepted()
        compute = BlinkingCompute(1)
        self._run(request, spec, [[self._selection()]], compute)
        self.assertEqual(([1], [(request.instance_uuid, 'h1')]),
                         (clock.pauses, compute.builds))

    def test_a_server_deleted_while_its_cast_waited_is_not_sent(self):
        clock = self.useFixture(nl_fixtures.OutageClock())
        request, spec = self._accepted()
        compute = BlinkingCompute(1)

        def deleted_meanwhile(context, instance, host, **kwargs):
            for stored in self._instances_in(self.plane.databases.cell1):
                stored.destroy()
            return BlinkingCompute.build_and_run_instance(
                compute, context, instance, host, **kwargs)
        compute.build_and_run_instance = deleted_meanwhile
        self._run(request, spec, [[self._selection()]], compute)
        self.assertEqual(([1], [], {}),
                         (clock.pauses, compute.builds,
                          self._allocations(request.instance_uuid)))

    def _age(self, uuid):
        with nova_context.target_cell(
                self.admin, self.plane.databases.cell1) as cctxt:
            with db.cell_session(cctxt) as session:
                session.execute(sa.update(main_models.Instance).where(
                    main_models.Instance.uuid == uuid).values(
                        updated_at=timeutils.utcnow() - _minutes(60)))

    def _updated_at(self, uuid):
        [stored] = [i for i in self._instances_in(
            self.plane.databases.cell1) if i.uuid == uuid]
        return stored.updated_at.replace(tzinfo=None)

    def test_unreachable_alternate_gives_its_claim_back(self):
        self.plane.config.config(outage_wait=0)
        instance, spec = self._placed()
        self._reschedule(instance, spec, [self._selection('h2')],
                         RecordingCompute(
                             messaging.MessageDeliveryFailure('down')))
        instance.refresh()
        self.assertEqual(states.ERROR, instance.vm_state)
        self.assertEqual({}, self._allocations(instance.uuid))


class TestRebuildFromCell0(BuildTaskTestCase):
    """The conductor's half of a rebuild from cell0: the API has already
    turned the cell0 record into a BuildRequest (as ``_accepted`` writes)
    whose spec carries the requested networks."""

    def _taken_out_of_cell0(self):
        request, spec = self._accepted()
        spec.requested_networks = objects.NetworkRequestList.from_api(
            [{'uuid': 'net-1'}])
        spec.save()
        return request, spec

    def _rebuild(self, request, spec, answer, compute):
        from nova_lite.conductor.tasks import rebuild_from_cell0
        rebuild_from_cell0.RebuildFromCell0Task(
            self.context, FakeScheduler(answer, self.reportclient), compute,
            request, spec, None, self.reportclient).execute()

    def _stored_networks(self, uuid):
        spec = objects.RequestSpec.get_by_instance_uuid(self.admin, uuid)
        return (spec.requested_networks.to_api()
                if spec.requested_networks is not None else None)

    def test_builds_with_the_same_uuid_and_clears_the_networks(self):
        request, spec = self._taken_out_of_cell0()
        compute = RecordingCompute()
        self._rebuild(request, spec, [[self._selection()]], compute)
        self.assertEqual([(request.instance_uuid, 'h1')], compute.builds)
        self.assertEqual('cell1',
                         self._mapped_cell(request.instance_uuid).name)
        self.assertIsNone(self._stored_networks(request.instance_uuid))

    def test_its_history_moves_from_cell0_to_its_cell(self):
        request, spec = self._taken_out_of_cell0()
        cell0 = self.plane.databases.cell0
        # The create was another request than this rebuild.
        create_request = nova_context.RequestContext(user_id='u',
                                                     project_id='p')
        with nova_context.target_cell(create_request, cell0) as c0ctxt:
            with instance_actions.event(c0ctxt, request.instance_uuid,
                                        'conductor_schedule_and_build_'
                                        'instances',
                                        action='create') as step:
                step.fail('No valid host was found.')
        self._rebuild(request, spec, [[self._selection()]],
                      RecordingCompute())
        cell1 = self.plane.databases.cell1
        with nova_context.target_cell(self.admin, cell1) as cctxt:
            moved = objects.InstanceActionList.get_by_instance_uuid(
                cctxt, request.instance_uuid)
            [create] = [a for a in moved if a.action == 'create']
            [failed] = objects.InstanceActionEventList.get_by_action(
                cctxt, create.id)
        self.assertEqual(['create', 'rebuild'],
                         sorted(a.action for a in moved))
        self.assertEqual('Error', failed.result)
        with nova_context.target_cell(self.admin, cell0) as c0ctxt:
            self.assertEqual([], list(
                objects.InstanceActionList.get_by_instance_uuid(
                    c0ctxt, request.instance_uuid)))

    def test_no_valid_host_again_buries_it_with_its_networks(self):
        request, spec = self._taken_out_of_cell0()
        self._rebuild(request, spec, exception.NoValidHost(reason='full'),
                      RecordingCompute())
        [buried] = self._instances_in(self.plane.databases.cell0)
        self.assertEqual((request.instance_uuid, states.ERROR),
                         (buried.uuid, buried.vm_state))
        self.assertTrue(self._mapped_cell(request.instance_uuid).is_cell0)
        self.assertEqual([{'uuid': 'net-1'}],
                         self._stored_networks(request.instance_uuid))
        self.assertRaises(exception.BuildRequestNotFound,
                          objects.BuildRequest.get_by_instance_uuid,
                          self.admin, request.instance_uuid)

    def test_over_quota_is_refused_and_buried_holding_nothing(self):
        request, spec = self._taken_out_of_cell0()
        self.plane.config.config(instances=0, group='quota')
        compute = RecordingCompute()
        self._rebuild(request, spec, [[self._selection()]], compute)
        self.assertEqual([], compute.builds)
        [buried] = self._instances_in(self.plane.databases.cell0)
        self.assertIn('Quota exceeded', buried.fault.message)
        self.assertEqual({}, self._allocations(request.instance_uuid))
        self.assertEqual([{'uuid': 'net-1'}],
                         self._stored_networks(request.instance_uuid))


def _minutes(count):
    return datetime.timedelta(minutes=count)
