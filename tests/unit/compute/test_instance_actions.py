"""The event() recorder and record_action(): bookkeeping that never fails
the operation it describes."""

import fixtures
from oslo_utils import uuidutils

from nova_lite.compute import instance_actions
from nova_lite.compute import states
from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import base
from nova_lite.objects import instance_action as instance_action_obj
from tests.unit import fixtures as nova_fixtures
from tests.unit.objects import test_objects


class Boom(Exception):
    pass


class InstanceActionsTestCase(test_objects.DatabaseTestCase):

    def setUp(self):
        super().setUp()
        self.logs = self.useFixture(fixtures.FakeLogger())
        self.uuid = uuidutils.generate_uuid()
        with nova_context.target_cell(
                nova_context.RequestContext(user_id='alice',
                                            project_id='demo',
                                            request_id='req-1'),
                self.databases.cell1) as cctxt:
            self.request = cctxt

    def events(self):
        action = objects.InstanceAction.get_by_request_id(
            self.request, self.uuid, 'req-1')
        return list(objects.InstanceActionEventList.get_by_action(
            self.request, action.id))

    def action(self):
        return objects.InstanceAction.get_by_request_id(
            self.request, self.uuid, 'req-1')


class TestEvent(InstanceActionsTestCase):

    def test_a_block_that_returns_is_a_success(self):
        with instance_actions.event(self.request, self.uuid,
                                    'compute_terminate_instance',
                                    host='c1'):
            [running] = self.events()
            self.assertIsNone(running.result)
        [event] = self.events()
        self.assertEqual(('compute_terminate_instance', 'c1', 'Success'),
                         (event.event, event.host, event.result))
        self.assertIsNotNone(event.finish_time)

    def test_an_escaping_error_is_recorded_and_still_raised(self):
        def fail():
            with instance_actions.event(self.request, self.uuid, 'e'):
                raise Boom('disk on fire')
        self.assertRaises(Boom, fail)
        [event] = self.events()
        self.assertEqual(('Error', 'Boom: disk on fire'),
                         (event.result, event.details))
        self.assertIn('Traceback', event.traceback)
        self.assertIn("raise Boom('disk on fire')", event.traceback)
        self.assertEqual('Error', self.action().message)

    def test_a_nova_lite_error_is_detailed_by_its_message(self):
        def fail():
            with instance_actions.event(self.request, self.uuid, 'e'):
                raise exception.InstanceNotFound(instance_id=self.uuid)
        self.assertRaises(exception.InstanceNotFound, fail)
        [event] = self.events()
        self.assertEqual('Instance %s could not be found.' % self.uuid,
                         event.details)

    def test_fail_ends_the_event_in_error_without_raising(self):
        with instance_actions.event(self.request, self.uuid, 'e') as event:
            try:
                raise Boom('spawn failed')
            except Boom as error:
                event.fail('rescheduled', error)
        [recorded] = self.events()
        self.assertEqual(('Error', 'rescheduled'),
                         (recorded.result, recorded.details))
        self.assertIn("Boom('spawn failed')", recorded.traceback)

    def test_the_action_is_created_with_the_given_name(self):
        with instance_actions.event(self.request, self.uuid,
                                    'compute_build_and_run_instance',
                                    action=instance_actions.CREATE):
            pass
        self.assertEqual('create', self.action().action)

    def test_a_failure_to_record_does_not_fail_the_block(self):
        def unreachable(*args, **kwargs):
            raise exception.DatabaseUnavailable(url='mysql://db',
                                                reason='gone')
        self.patch(objects.InstanceActionEvent, 'event_start', unreachable)
        self.patch(objects.InstanceActionEvent, 'event_finish', unreachable)
        ran = []
        with instance_actions.event(self.request, self.uuid, 'e'):
            ran.append(True)
        self.assertEqual([True], ran)
        self.assertIn('Could not record the start of event e',
                      self.logs.output)
        self.assertIn('Could not record the finish of event e',
                      self.logs.output)


class TestEventCarriedBySaves(InstanceActionsTestCase):
    """start_with_save: the event's start and finish ride on the block's
    instance saves, one conductor call each instead of two."""

    def setUp(self):
        super().setUp()
        with test_objects.conductor_side():
            self.instance = self.make_instance(
                context=self.request, uuid=self.uuid,
                task_state=states.SCHEDULING)
        self.useFixture(nova_fixtures.FakeRPC())
        self.conductor = test_objects.InProcessConductor()
        base.NovaLiteObject.indirection_api = self.conductor
        self.addCleanup(setattr, base.NovaLiteObject, 'indirection_api',
                        None)

    def test_the_start_and_the_finish_go_with_the_saves(self):
        with instance_actions.event(self.request, self.uuid, 'build',
                                    host='c1', action='create',
                                    start_with_save=True) as event:
            self.assertEqual([], self.conductor.calls)
            self.instance.task_state = states.SPAWNING
            event.save(self.instance,
                       expected_task_state=[states.SCHEDULING])
            self.instance.task_state = None
            event.save(self.instance, finishing=True,
                       expected_task_state=[states.SPAWNING])
        self.assertEqual([('Instance', 'save'), ('Instance', 'save')],
                         self.conductor.calls)
        with test_objects.conductor_side():
            [recorded] = self.events()
            self.assertEqual(('build', 'c1', 'Success', 'create'),
                             (recorded.event, recorded.host,
                              recorded.result, self.action().action))
            self.assertIsNotNone(recorded.finish_time)

    def test_a_refused_save_records_the_start_on_its_own(self):
        with test_objects.conductor_side():
            self.set_task_state_behind_its_back(self.instance,
                                                states.DELETING)
        with instance_actions.event(self.request, self.uuid, 'build',
                                    host='c1',
                                    start_with_save=True) as event:
            self.instance.task_state = states.SPAWNING
            self.assertRaises(exception.UnexpectedTaskStateError,
                              event.save, self.instance,
                              expected_task_state=[states.SCHEDULING])
            event.fail('not waiting for a host')
        with test_objects.conductor_side():
            [recorded] = self.events()
        self.assertEqual(('Error', 'not waiting for a host'),
                         (recorded.result, recorded.details))

    def test_a_block_that_never_saves_records_its_start_on_leaving(self):
        with instance_actions.event(self.request, self.uuid, 'build',
                                    start_with_save=True):
            pass
        with test_objects.conductor_side():
            [recorded] = self.events()
        self.assertEqual('Success', recorded.result)

    def test_a_failure_after_the_finishing_save_ends_it_in_error(self):
        def build():
            with instance_actions.event(self.request, self.uuid, 'build',
                                        start_with_save=True) as event:
                self.instance.task_state = states.SPAWNING
                event.save(self.instance)
                event.save(self.instance, finishing=True)
                raise Boom('after the save')
        self.assertRaises(Boom, build)
        with test_objects.conductor_side():
            [recorded] = self.events()
        self.assertEqual(('Error', 'Boom: after the save'),
                         (recorded.result, recorded.details))

    def test_a_finish_never_started_is_logged_and_the_save_lands(self):
        self.instance.task_state = states.SPAWNING
        self.instance.save(action_event=instance_action_obj
                           .event_finish_record('build', 'Success'))
        with test_objects.conductor_side():
            stored = objects.Instance.get_by_uuid(self.context, self.uuid)
        self.assertEqual(states.SPAWNING, stored.task_state)
        self.assertIn('Could not record', self.logs.output)

    def test_a_record_that_is_not_one_is_refused_before_the_write(self):
        self.instance.task_state = states.SPAWNING
        for record in ({'event': 'e'}, 'start', {'event': 'e', 'start': {},
                                                 'finish': {}}):
            self.assertRaises(exception.InvalidRPCMessage,
                              self.instance.save, action_event=record)
        with test_objects.conductor_side():
            stored = objects.Instance.get_by_uuid(self.context, self.uuid)
        self.assertEqual(states.SCHEDULING, stored.task_state)


class TestRecordAction(InstanceActionsTestCase):

    def test_records_in_the_cell_it_is_given(self):
        untargeted = nova_context.RequestContext(
            user_id='alice', project_id='demo', request_id='req-1')
        instance_actions.record_action(untargeted, self.uuid,
                                       instance_actions.DELETE,
                                       cell_mapping=self.databases.cell0)
        with nova_context.target_cell(untargeted,
                                      self.databases.cell0) as cell0:
            action = objects.InstanceAction.get_by_request_id(
                cell0, self.uuid, 'req-1')
        self.assertEqual('delete', action.action)
        self.assertRaises(exception.InstanceActionNotFound, self.action)

    def test_a_failure_to_record_is_logged_not_raised(self):
        def unreachable(*args, **kwargs):
            raise exception.DatabaseUnavailable(url='mysql://db',
                                                reason='gone')
        self.patch(objects.InstanceAction, 'action_start', unreachable)
        self.assertIsNone(instance_actions.record_action(
            self.request, self.uuid, instance_actions.DELETE))
