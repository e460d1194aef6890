"""The event() recorder and record_action(): bookkeeping that never fails
the operation it describes."""

import datetime

import fixtures
from oslo_utils import fixture as utils_fixture
from oslo_utils import uuidutils
import sqlalchemy as sa

from nova_lite.compute import instance_actions
from nova_lite.compute import states
from nova_lite import context as nova_context
from nova_lite.db import api as db
from nova_lite.db import main_models as models
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import base
from nova_lite.objects import instance_action as instance_action_obj
from tests.unit import fixtures as nova_fixtures
from tests.unit.objects import test_objects


class Boom(Exception):
    pass


def statements_on_actions(context, function):
    """Run ``function()``; the kind of each statement it ran on the
    actions tables (SELECT, UPDATE...), in order. It raises as the
    function did."""
    seen = []

    def listen(conn, cursor, statement, *rest):
        if 'instance_actions' in statement:
            seen.append(statement.split()[0].upper())
    engine = db.get_engine(context.db_connection)
    sa.event.listen(engine, 'before_cursor_execute', listen)
    try:
        function()
    finally:
        sa.event.remove(engine, 'before_cursor_execute', listen)
    return seen


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


class TestEventRecordedInSaves(InstanceActionsTestCase):
    """record_event_in, as the conductor runs it for a compute's save:
    on the request's latest action, what event_start and event_finish
    would write."""

    def setUp(self):
        super().setUp()
        self.clock = self.useFixture(utils_fixture.TimeFixture(
            datetime.datetime(2026, 12, 7, 10, 0, 0)))
        self.instance = self.make_instance(context=self.request,
                                           uuid=self.uuid)
        objects.InstanceAction.action_start(self.request, self.uuid,
                                            'create')
        self.clock.advance_time_seconds(1)
        instance_action_obj._STARTED.clear()
        self.addCleanup(instance_action_obj._STARTED.clear)

    def action_by_id(self, action_id):
        with db.cell_session(self.request) as session:
            return session.get(models.InstanceAction, action_id)

    def another_action_of_the_request(self, name):
        """A second action of the same request on the server (event_start
        makes one only where there is none)."""
        with db.cell_session(self.request) as session:
            instance_action_obj._new_action_row(
                session, self.request, self.uuid, name, base.utcnow())

    def record(self, record, then_fail=False):
        """Record ``record`` in a transaction of its own (rolled back if
        ``then_fail``); the statements it ran on the actions tables."""
        def run():
            with db.cell_session(self.request) as session:
                instance_action_obj.record_event_in(session, self.request,
                                                    self.uuid, record)
                if then_fail:
                    raise Boom('after the record')
        return statements_on_actions(self.request, run)

    def test_a_start_and_a_finish_write_the_event_and_touch_the_action(self):
        before = self.action().updated_at
        self.record(
            instance_action_obj.event_start_record('build', host='c1'))
        [started] = self.events()
        self.assertEqual(('build', 'c1', None, None),
                         (started.event, started.host, started.result,
                          started.finish_time))
        self.assertEqual(started.start_time, started.created_at)
        self.assertEqual(started.start_time, self.action().updated_at)
        self.assertNotEqual(before, self.action().updated_at)
        self.clock.advance_time_seconds(1)
        self.record(instance_action_obj.event_finish_record(
            'build', 'Error', traceback='Traceback...', details='it broke',
            host='c1'))
        [finished] = self.events()
        self.assertEqual(('Error', 'Traceback...', 'it broke'),
                         (finished.result, finished.traceback,
                          finished.details))
        self.assertIsNotNone(finished.finish_time)
        self.assertEqual((finished.finish_time, 'Error'),
                         (self.action().updated_at, self.action().message))

    def test_the_latest_action_of_the_request_is_the_one(self):
        older = self.action()
        self.another_action_of_the_request('rebuild')
        newer = self.action()
        self.clock.advance_time_seconds(1)
        self.assertNotEqual(older.id, newer.id)
        self.record(instance_action_obj.event_start_record('build'))
        self.record(instance_action_obj.event_finish_record('build',
                                                            'Success'))
        [event] = self.events()
        self.assertEqual((newer.id, 'Success'),
                         (event.action_id, event.result))
        self.assertEqual([], list(objects.InstanceActionEventList
                                  .get_by_action(self.request, older.id)))
        # Only the latest action was touched.
        self.assertEqual(older.updated_at.replace(tzinfo=None),
                         self.action_by_id(older.id).updated_at)
        self.assertNotEqual(newer.updated_at.replace(tzinfo=None),
                            self.action_by_id(newer.id).updated_at)

    def test_the_unfinished_event_of_the_host_is_finished(self):
        for host in ('c1', 'c2', 'c1'):
            self.record(instance_action_obj.event_start_record('build',
                                                               host=host))
        first_c1 = min(e.id for e in self.events() if e.host == 'c1')
        objects.InstanceActionEvent.event_finish(
            self.request, self.uuid, 'build', 'Error', host='c1')
        self.record(instance_action_obj.event_finish_record(
            'build', 'Success', host='c1'))
        results = {e.id: (e.host, e.result) for e in self.events()}
        self.assertEqual(sorted([('c1', 'Error'), ('c1', 'Success'),
                                 ('c2', None)]),
                         sorted(results.values()))
        # The newest c1 event was finished in Error first; the Success
        # went to the one still unfinished, the older.
        self.assertEqual(('c1', 'Success'), results[first_c1])

    def test_a_finish_after_a_start_recorded_here_skips_the_search(self):
        self.record(instance_action_obj.event_start_record('build',
                                                           host='c1'))
        self.assertEqual(['UPDATE', 'UPDATE'], self.record(
            instance_action_obj.event_finish_record('build', 'Success',
                                                    host='c1')))
        [event] = self.events()
        self.assertEqual('Success', event.result)
        self.assertEqual([], instance_action_obj._STARTED.keys())
        # A finish whose start another process recorded looks for it.
        self.record(instance_action_obj.event_start_record('other'))
        instance_action_obj._STARTED.clear()
        self.assertEqual(['SELECT', 'UPDATE', 'UPDATE'], self.record(
            instance_action_obj.event_finish_record('other', 'Success')))

    def test_a_remembered_event_finished_elsewhere_is_looked_for(self):
        self.record(instance_action_obj.event_start_record('build',
                                                           host='c1'))
        objects.InstanceActionEvent.event_finish(
            self.request, self.uuid, 'build', 'Error', host='c1')
        self.clock.advance_time_seconds(1)
        self.record(instance_action_obj.event_finish_record(
            'build', 'Success', host='c1'))
        # As a finish without the memory: the event finished again.
        [event] = self.events()
        self.assertEqual('Success', event.result)

    def test_a_start_rolled_back_is_not_taken_for_one_recorded(self):
        self.assertRaises(Boom, self.record,
                          instance_action_obj.event_start_record('build'),
                          then_fail=True)
        self.assertEqual([], self.events())
        self.assertRaises(
            exception.InstanceActionEventNotFound, self.record,
            instance_action_obj.event_finish_record('build', 'Success'))
        self.assertEqual([], self.events())

    def test_the_memory_keeps_the_latest_starts_only(self):
        self.useFixture(fixtures.MockPatchObject(
            instance_action_obj._STARTED, 'most', 2))
        for name in ('one', 'two', 'three'):
            self.record(instance_action_obj.event_start_record(name))
        self.assertEqual(['two', 'three'], [
            key[3] for key in instance_action_obj._STARTED.keys()])
        for name in ('one', 'two', 'three'):
            self.record(instance_action_obj.event_finish_record(
                name, 'Success'))
        self.assertEqual({'Success'}, {e.result for e in self.events()})

    def test_a_start_without_an_action_makes_it(self):
        self.uuid = uuidutils.generate_uuid()
        self.record(instance_action_obj.event_start_record(
            'build', action='rebuild'))
        self.assertEqual('rebuild', self.action().action)
        self.assertEqual(['build'], [e.event for e in self.events()])

    def test_a_finish_never_started_raises_and_writes_nothing(self):
        self.assertRaises(
            exception.InstanceActionEventNotFound, self.record,
            instance_action_obj.event_finish_record('build', 'Error'))
        self.assertEqual([], self.events())
        self.assertIsNone(self.action().message)


class TestActionOfServersCreatedTogether(InstanceActionsTestCase):
    """Instance.create_all keeps its actions' ids: the start of the
    compute's event on one of those servers finds its action without
    looking it up, and one no longer there is looked up as ever."""

    def setUp(self):
        super().setUp()
        for memory in (instance_action_obj._MADE,
                       instance_action_obj._STARTED):
            memory.clear()
            self.addCleanup(memory.clear)
        self.instance = objects.Instance(
            self.request, uuid=self.uuid, project_id='demo',
            user_id='alice', vm_state=states.BUILDING,
            task_state=states.SCHEDULING, flavor=test_objects.make_flavor())
        objects.Instance.create_all(self.request, [self.instance], 'create')

    def start(self):
        """The start of the compute's build event, as its save records
        it; the statements it ran on the actions tables."""
        def run():
            with db.cell_session(self.request) as session:
                instance_action_obj.record_event_in(
                    session, self.request, self.uuid,
                    instance_action_obj.event_start_record('build', 'c1'))
        return statements_on_actions(self.request, run)

    def test_the_start_finds_the_action_create_all_made(self):
        self.assertEqual(['UPDATE', 'INSERT'], self.start())
        [event] = self.events()
        self.assertEqual((self.action().id, 'c1'),
                         (event.action_id, event.host))

    def test_an_action_started_alone_is_found_too(self):
        self.uuid = uuidutils.generate_uuid()
        objects.InstanceAction.action_start(self.request, self.uuid,
                                            'create')
        self.assertEqual(['UPDATE', 'INSERT'], self.start())
        self.assertEqual(['build'], [e.event for e in self.events()])

    def test_an_action_no_longer_there_is_looked_up(self):
        with db.cell_session(self.request) as session:
            session.execute(sa.delete(models.InstanceAction))
        self.assertEqual(['UPDATE', 'SELECT', 'INSERT', 'INSERT'],
                         self.start())
        # As any start without an action: one is made, named after it.
        self.assertEqual('build', self.action().action)
        self.assertEqual(['build'], [e.event for e in self.events()])

    def test_another_request_on_the_server_looks_its_own_up(self):
        with nova_context.target_cell(
                nova_context.RequestContext(user_id='alice',
                                            project_id='demo',
                                            request_id='req-2'),
                self.databases.cell1) as other:
            objects.InstanceActionEvent.event_start(other, self.uuid,
                                                    'stop')
            self.assertEqual('stop', objects.InstanceAction
                             .get_by_request_id(other, self.uuid,
                                                'req-2').action)
        self.assertEqual([], self.events())


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
