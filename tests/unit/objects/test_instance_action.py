"""InstanceAction and InstanceActionEvent: a server's history in its cell."""

import datetime

from oslo_utils import timeutils
from oslo_utils import uuidutils

from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import base
from tests.unit.objects import test_objects

START = datetime.datetime(2024, 5, 1, 12, 0, 0)


class InstanceActionTestCase(test_objects.DatabaseTestCase):

    def setUp(self):
        super().setUp()
        self.uuid = uuidutils.generate_uuid()
        timeutils.set_time_override(START)
        self.addCleanup(timeutils.clear_time_override)

    def request(self, request_id, user_id='alice', project_id='demo',
                cell=None):
        """The context of request ``request_id``, aimed at a cell."""
        context = nova_context.RequestContext(
            user_id=user_id, project_id=project_id, request_id=request_id)
        with nova_context.target_cell(
                context, cell or self.databases.cell1) as cctxt:
            return cctxt

    def later(self, seconds=1):
        timeutils.advance_time_seconds(seconds)

    def start(self, request_id, action='create', **kwargs):
        return objects.InstanceAction.action_start(
            self.request(request_id, **kwargs), self.uuid, action)

    def listed(self, **kwargs):
        return [a.request_id for a in
                objects.InstanceActionList.get_by_instance_uuid(
                    self.request('req-reader'), self.uuid, **kwargs)]


class TestInstanceAction(InstanceActionTestCase):

    def test_action_start_records_the_request(self):
        self.start('req-1', 'delete')
        found = objects.InstanceAction.get_by_request_id(
            self.request('req-other'), self.uuid, 'req-1')
        self.assertEqual(
            ('delete', self.uuid, 'req-1', 'alice', 'demo', None, None),
            (found.action, found.instance_uuid, found.request_id,
             found.user_id, found.project_id, found.finish_time,
             found.message))
        self.assertEqual(START, found.start_time.replace(tzinfo=None))
        self.assertEqual(START, found.updated_at.replace(tzinfo=None))

    def test_one_action_per_request_and_instance(self):
        first = self.start('req-1')
        again = self.start('req-1', 'rebuild')
        self.assertEqual((first.id, 'create'), (again.id, again.action))
        self.assertEqual(['req-1'], self.listed())

    def test_an_unknown_request_id_is_not_found(self):
        self.start('req-1')
        error = self.assertRaises(
            exception.InstanceActionNotFound,
            objects.InstanceAction.get_by_request_id, self.request('req-2'),
            self.uuid, 'req-nope')
        self.assertIn('req-nope', str(error))

    def test_actions_of_another_instance_are_not_found(self):
        self.start('req-1')
        self.assertRaises(exception.InstanceActionNotFound,
                          objects.InstanceAction.get_by_request_id,
                          self.request('req-2'),
                          uuidutils.generate_uuid(), 'req-1')

    def test_actions_live_in_the_cell_they_were_recorded_in(self):
        self.start('req-1', cell=self.databases.cell0)
        self.assertEqual([], self.listed())
        self.assertRaises(exception.InstanceActionNotFound,
                          objects.InstanceAction.get_by_request_id,
                          self.request('req-2'), self.uuid, 'req-1')

    def test_action_finish_sets_the_finish_time(self):
        self.start('req-1')
        self.later()
        finished = objects.InstanceAction.action_finish(
            self.request('req-1'), self.uuid)
        self.assertEqual(START + datetime.timedelta(seconds=1),
                         finished.finish_time.replace(tzinfo=None))


class TestInstanceActionList(InstanceActionTestCase):

    def record(self, *request_ids):
        for request_id in request_ids:
            self.start(request_id)
            self.later()

    def test_newest_first(self):
        self.record('req-1', 'req-2', 'req-3')
        self.assertEqual(['req-3', 'req-2', 'req-1'], self.listed())

    def test_same_start_time_is_ordered_by_creation(self):
        self.start('req-1')
        self.start('req-2')
        self.assertEqual(['req-2', 'req-1'], self.listed())

    def test_limit_and_marker_page_through(self):
        self.record('req-1', 'req-2', 'req-3')
        self.assertEqual(['req-3', 'req-2'], self.listed(limit=2))
        self.assertEqual(['req-1'], self.listed(limit=2, marker='req-2'))
        self.assertEqual([], self.listed(marker='req-1'))

    def test_an_unknown_marker_is_marker_not_found(self):
        self.record('req-1')
        self.assertRaises(exception.MarkerNotFound, self.listed,
                          marker='req-nope')

    def test_changes_since_and_before_filter_on_updated_at(self):
        self.record('req-1', 'req-2', 'req-3')
        second = START + datetime.timedelta(seconds=1)
        self.assertEqual(['req-3', 'req-2'],
                         self.listed(changes_since=second))
        self.assertEqual(['req-2', 'req-1'],
                         self.listed(changes_before=second))
        # As they arrive over RPC: ISO 8601 text, with a zone.
        self.assertEqual(['req-2'], self.listed(
            changes_since='2024-05-01T14:00:01+02:00',
            changes_before='2024-05-01T12:00:01Z'))

    def test_a_new_event_makes_an_old_action_changed(self):
        self.record('req-1', 'req-2')
        objects.InstanceActionEvent.event_start(
            self.request('req-1'), self.uuid, 'compute_x')
        self.assertEqual(['req-1'], self.listed(
            changes_since=START + datetime.timedelta(seconds=2)))


class TestInstanceActionEvent(InstanceActionTestCase):

    def events(self, request_id):
        context = self.request('req-reader')
        action = objects.InstanceAction.get_by_request_id(
            context, self.uuid, request_id)
        return list(objects.InstanceActionEventList.get_by_action(
            context, action.id))

    def test_start_then_finish_with_success(self):
        self.start('req-1')
        context = self.request('req-1')
        objects.InstanceActionEvent.event_start(
            context, self.uuid, 'compute_terminate_instance', host='c1')
        self.later()
        objects.InstanceActionEvent.event_finish(
            context, self.uuid, 'compute_terminate_instance', 'Success')
        [event] = self.events('req-1')
        self.assertEqual(('compute_terminate_instance', 'c1', 'Success',
                          None, None),
                         (event.event, event.host, event.result,
                          event.traceback, event.details))
        self.assertEqual((START, START + datetime.timedelta(seconds=1)),
                         (event.start_time.replace(tzinfo=None),
                          event.finish_time.replace(tzinfo=None)))
        action = objects.InstanceAction.get_by_request_id(
            context, self.uuid, 'req-1')
        self.assertIsNone(action.message)

    def test_an_error_keeps_its_traceback_and_marks_the_action(self):
        self.start('req-1')
        context = self.request('req-1')
        objects.InstanceActionEvent.event_start(context, self.uuid, 'e')
        objects.InstanceActionEvent.event_finish(
            context, self.uuid, 'e', 'Error', traceback='Traceback: deep',
            details='Boom: no disk')
        [event] = self.events('req-1')
        self.assertEqual(('Error', 'Traceback: deep', 'Boom: no disk'),
                         (event.result, event.traceback, event.details))
        self.assertEqual('Error', objects.InstanceAction.get_by_request_id(
            context, self.uuid, 'req-1').message)

    def test_an_event_without_an_action_creates_it(self):
        context = self.request('req-1', user_id='bob')
        objects.InstanceActionEvent.event_start(
            context, self.uuid, 'compute_build_and_run_instance',
            action='create')
        action = objects.InstanceAction.get_by_request_id(
            context, self.uuid, 'req-1')
        self.assertEqual(('create', 'bob'), (action.action, action.user_id))
        self.assertEqual(['compute_build_and_run_instance'],
                         [e.event for e in self.events('req-1')])

    def test_the_created_action_is_named_after_the_event_by_default(self):
        objects.InstanceActionEvent.event_start(
            self.request('req-1'), self.uuid, 'compute_x')
        self.assertEqual('compute_x', objects.InstanceAction.
                         get_by_request_id(self.request('req-1'), self.uuid,
                                           'req-1').action)

    def test_events_are_listed_newest_first(self):
        context = self.request('req-1')
        for name in ('first', 'second'):
            objects.InstanceActionEvent.event_start(context, self.uuid,
                                                    name)
            self.later()
        self.assertEqual(['second', 'first'],
                         [e.event for e in self.events('req-1')])

    def test_finish_goes_to_the_event_of_its_host(self):
        # A build rescheduled from c1 to c2: c2 may start before c1 has
        # finished.
        context = self.request('req-1')
        for host in ('c1', 'c2'):
            objects.InstanceActionEvent.event_start(
                context, self.uuid, 'compute_build', host=host)
        objects.InstanceActionEvent.event_finish(
            context, self.uuid, 'compute_build', 'Error', host='c1')
        results = {e.host: e.result for e in self.events('req-1')}
        self.assertEqual({'c1': 'Error', 'c2': None}, results)

    def test_finish_without_a_host_takes_the_latest_unfinished(self):
        context = self.request('req-1')
        objects.InstanceActionEvent.event_start(context, self.uuid, 'e')
        objects.InstanceActionEvent.event_finish(context, self.uuid, 'e',
                                                 'Success')
        objects.InstanceActionEvent.event_start(context, self.uuid, 'e')
        objects.InstanceActionEvent.event_finish(context, self.uuid, 'e',
                                                 'Error')
        self.assertEqual(['Error', 'Success'],
                         [e.result for e in self.events('req-1')])

    def test_finish_of_an_event_never_started_is_not_found(self):
        context = self.request('req-1')
        self.assertRaises(exception.InstanceActionNotFound,
                          objects.InstanceActionEvent.event_finish,
                          context, self.uuid, 'e', 'Success')
        self.start('req-1')
        self.assertRaises(exception.InstanceActionEventNotFound,
                          objects.InstanceActionEvent.event_finish,
                          context, self.uuid, 'e', 'Success')


class TestEventsFromACompute(test_objects.DatabaseTestCase):
    """A compute has no database: its events are recorded by the
    conductor, in the conductor's cell (cell1 here), under the request id
    the compute's context carries."""

    def setUp(self):
        super().setUp()
        self.useFixture(test_objects.nova_fixtures.FakeRPC())
        self.conductor = test_objects.InProcessConductor()
        base.NovaLiteObject.indirection_api = self.conductor
        self.addCleanup(setattr, base.NovaLiteObject, 'indirection_api',
                        None)
        self.uuid = uuidutils.generate_uuid()
        self.compute_context = nova_context.RequestContext(
            user_id='alice', project_id='demo', request_id='req-1')

    def test_event_start_and_finish_go_through_the_conductor(self):
        objects.InstanceActionEvent.event_start(
            self.compute_context, self.uuid, 'compute_terminate_instance',
            host='c1', action='delete')
        objects.InstanceActionEvent.event_finish(
            self.compute_context, self.uuid, 'compute_terminate_instance',
            'Success', host='c1')
        self.assertEqual([('InstanceActionEvent', 'event_start'),
                          ('InstanceActionEvent', 'event_finish')],
                         self.conductor.calls)
        with test_objects.conductor_side():
            action = objects.InstanceAction.get_by_request_id(
                self.context, self.uuid, 'req-1')
            [event] = objects.InstanceActionEventList.get_by_action(
                self.context, action.id)
        self.assertEqual(('delete', 'alice', 'Success', 'c1'),
                         (action.action, action.user_id, event.result,
                          event.host))
