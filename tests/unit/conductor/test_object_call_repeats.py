"""A compute's object call whose answer was lost is asked again, and run
once (conductor/answers.py).

The broker restarting under a call loses its answer: the compute cannot
tell whether the conductor ran it. A build whose save "make the server
this host's" was lost this way used to fail and be rescheduled -- and,
the save being one that checks the task state, running it again would
refuse it as a late request.
"""

import threading
import time

import fixtures
import oslo_messaging as messaging
from oslo_messaging.rpc import dispatcher as rpc_dispatcher
from oslo_messaging.rpc import server as rpc_server
import testtools

from nova_lite.compute import states
from nova_lite.conductor import answers
from nova_lite.conductor import manager as conductor_manager
from nova_lite.conductor import rpcapi as conductor_rpcapi
from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite import objects
from nova_lite import outage
from nova_lite import rpc
from tests.unit import fixtures as nova_fixtures
from tests.unit.objects import test_objects


class TestAnswers(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.config = self.useFixture(nova_fixtures.Config())
        self.useFixture(nova_fixtures.FakeRPC())  # rpc_response_timeout
        self.answers = answers.Answers()
        self.runs = []

    def run_once(self, call_id, result='done', error=None):
        def run():
            self.runs.append(call_id)
            if error is not None:
                raise error
            return result
        return self.answers.once(call_id, run)

    def test_a_repeat_gets_the_first_answer_without_running_again(self):
        self.assertEqual('done', self.run_once('c1'))
        self.assertEqual('done', self.run_once('c1', result='other'))
        self.assertEqual(['c1'], self.runs)

    def test_a_repeat_gets_the_first_error_again(self):
        first = ValueError('refused')
        self.assertRaises(ValueError, self.run_once, 'c1', error=first)
        again = self.assertRaises(ValueError, self.run_once, 'c1')
        self.assertIs(first, again)
        self.assertEqual(['c1'], self.runs)

    def test_a_call_its_database_did_none_of_is_run_again(self):
        # The database could not serve it (a Galera node out of its
        # cluster): asked again once it is back, it must be done.
        down = exception.DatabaseUnavailable(url='x', reason='1047')
        self.assertRaises(exception.DatabaseUnavailable, self.run_once,
                          'c1', error=down)
        self.assertEqual('done', self.run_once('c1'))
        self.assertEqual(['c1', 'c1'], self.runs)

    def test_a_call_whose_connection_was_lost_midway_is_not(self):
        # It may have committed: the repeat gets its error again.
        lost = exception.DatabaseConnectionLost(url='x', reason='2013')
        self.assertRaises(exception.DatabaseConnectionLost, self.run_once,
                          'c1', error=lost)
        again = self.assertRaises(exception.DatabaseConnectionLost,
                                  self.run_once, 'c1')
        self.assertIs(lost, again)
        self.assertEqual(['c1'], self.runs)

    def test_calls_without_an_id_or_with_other_ids_all_run(self):
        self.run_once(None)
        self.run_once(None)
        self.run_once('c1')
        self.run_once('c2')
        self.assertEqual([None, None, 'c1', 'c2'], self.runs)

    def test_a_repeat_of_a_call_still_running_waits_for_its_answer(self):
        started, release = threading.Event(), threading.Event()

        def slow():
            started.set()
            release.wait(5)
            return 'first'

        first = []
        thread = threading.Thread(
            target=lambda: first.append(self.answers.once('c1', slow)))
        thread.start()
        self.assertTrue(started.wait(5))
        repeat = []
        waiter = threading.Thread(target=lambda: repeat.append(
            self.answers.once('c1', lambda: 'second')))
        waiter.start()
        waiter.join(0.2)
        self.assertTrue(waiter.is_alive(), 'the repeat did not wait')
        release.set()
        thread.join(5)
        waiter.join(5)
        self.assertEqual((['first'], ['first']), (first, repeat))

    def test_answers_are_forgotten_once_nobody_asks_again(self):
        self.config.config(outage_wait=10, rpc_response_timeout=5)
        now = [1000.0]
        self.useFixture(fixtures.MockPatch(
            'nova_lite.conductor.answers.time.monotonic',
            side_effect=lambda: now[0]))
        self.run_once('c1')
        now[0] += 14
        self.run_once('c2')
        self.assertEqual(2, len(self.answers))
        now[0] += 2  # c1 is 16 s old: past 10 + 5
        self.run_once('c1')
        self.assertEqual(['c1', 'c2', 'c1'], self.runs)

    def test_at_most_so_many_answers_are_kept(self):
        self.answers = answers.Answers(most=3)
        for n in range(10):
            self.run_once('c%d' % n)
        self.assertLessEqual(len(self.answers), 3)
        self.run_once('c9')
        self.assertEqual(10, len(self.runs))


class TestTheConductorRunsASaveOnce(test_objects.DatabaseTestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(nova_fixtures.FakeRPC())
        self.manager = conductor_manager.ConductorManager()
        self.instance = self.make_instance(task_state=states.SCHEDULING,
                                           host=None, node=None)

    def save_as_the_compute(self, call_id):
        instance = objects.Instance.get_by_uuid(self.context,
                                                self.instance.uuid)
        instance.host = 'compute2'
        instance.task_state = states.SPAWNING
        return self.manager.object_action(
            self.context, instance, 'save', [],
            {'expected_task_state': [states.SCHEDULING]}, call_id=call_id)

    def test_a_repeated_take_over_save_answers_as_the_first(self):
        first = self.save_as_the_compute('call-1')
        again = self.save_as_the_compute('call-1')
        self.assertEqual(first, again)
        stored = objects.Instance.get_by_uuid(self.context,
                                              self.instance.uuid)
        self.assertEqual(('compute2', states.SPAWNING),
                         (stored.host, stored.task_state))

    def test_a_read_is_run_again_and_its_answer_not_kept(self):
        for _ in range(2):
            self.manager.object_class_action_versions(
                self.context, 'Instance', 'get_by_uuid',
                {'Instance': objects.Instance.VERSION},
                [self.instance.uuid], {}, call_id='read-1')
        self.assertEqual(0, len(self.manager.answers))
        self.save_as_the_compute('call-1')
        self.assertEqual(1, len(self.manager.answers))

    def test_a_heartbeat_is_run_again_and_its_answer_not_kept(self):
        service = objects.Service(self.context, host='compute2',
                                  binary='nova-lite-compute',
                                  topic='compute')
        service.create()
        for _ in range(2):
            self.manager.object_action(self.context, service, 'heartbeat',
                                       [], {}, call_id='beat-1')
        self.assertEqual(0, len(self.manager.answers))
        stored = objects.Service.get_by_host_and_binary(
            self.context, 'compute2', 'nova-lite-compute')
        self.assertEqual(2, stored.report_count)

    def test_the_same_save_under_another_id_is_refused_as_late(self):
        self.save_as_the_compute('call-1')
        wrapped = self.assertRaises(messaging.ExpectedException,
                                    self.save_as_the_compute, 'call-2')
        self.assertIn('UnexpectedTaskState',
                      type(wrapped.exc_info[1]).__name__)


class _LosesTheFirstAnswer:
    """A conductor endpoint that answers the first call too late (the
    broker restarted under it), then as usual."""

    target = messaging.Target(version='1.4')

    def __init__(self, late_by):
        self.late_by = late_by
        self.calls = []

    def object_class_action_versions(self, context, objname, objmethod,
                                     object_versions, args, kwargs,
                                     call_id=None):
        self.calls.append(call_id)
        if len(self.calls) == 1:
            time.sleep(self.late_by)
        return 'answer'


class _DatabaseAwayOnce(_LosesTheFirstAnswer):
    """A conductor endpoint whose database fails the first call with
    ``error``, then serves."""

    def __init__(self, error):
        super().__init__(late_by=0)
        self.error = error

    def object_class_action_versions(self, context, *args, **kwargs):
        answer = super().object_class_action_versions(context, *args,
                                                      **kwargs)
        if len(self.calls) == 1:
            raise self.error
        return answer


class TestTheComputeAsksAgain(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.config = self.useFixture(nova_fixtures.Config())
        self.useFixture(nova_fixtures.FakeRPC())
        self.config.config(rpc_response_timeout=1)
        self.useFixture(fixtures.MockPatchObject(outage, 'sleep'))
        objects.register_all()
        self.serve(_LosesTheFirstAnswer(late_by=1.5))
        self.context = nova_context.get_admin_context()

    def serve(self, endpoint):
        """The conductor is ``endpoint`` (instead of the one before)."""
        if getattr(self, 'server', None) is not None:
            self.server.stop()
            self.server.wait()
        self.endpoint = endpoint
        self.server = server = rpc_server.RPCServer(
            rpc.TRANSPORT,
            messaging.Target(topic=conductor_rpcapi.RPC_TOPIC,
                             server='conductor1'),
            rpc_dispatcher.RPCDispatcher(
                [self.endpoint], rpc.RequestContextSerializer(),
                rpc_dispatcher.DefaultRPCAccessPolicy),
            executor='threading')
        server.start()
        self.addCleanup(self.stop, server)

    def stop(self, server):
        if server is self.server:
            server.stop()
            server.wait()

    def ask(self):
        return conductor_rpcapi.ConductorAPI().object_class_action_versions(
            self.context, 'Instance', 'get_by_uuid',
            {'Instance': objects.Instance.VERSION}, ['x'], {})

    def test_a_lost_answer_is_asked_again_with_the_same_call_id(self):
        self.assertEqual('answer', self.ask())
        self.assertEqual(2, len(self.endpoint.calls))
        first, again = self.endpoint.calls
        self.assertIsNotNone(first)
        self.assertEqual(first, again)

    def test_each_call_has_its_own_id(self):
        self.endpoint.late_by = 0
        self.ask()
        self.ask()
        self.assertEqual(2, len(set(self.endpoint.calls)))

    def test_a_client_pinned_below_1_4_sends_no_call_id(self):
        self.config.config(conductor='1.3', group='upgrade_levels')
        self.endpoint.late_by = 0
        self.ask()
        self.assertEqual([None], self.endpoint.calls)

    def test_a_call_its_database_could_not_serve_is_asked_again(self):
        self.serve(_DatabaseAwayOnce(exception.DatabaseUnavailable(
            url='mysql+pymysql://cell1', reason='(1047, WSREP has not yet '
            'prepared node for application use)')))
        self.assertEqual('answer', self.ask())
        first, again = self.endpoint.calls
        self.assertEqual(first, again)

    def test_a_connection_lost_midway_is_not_asked_again(self):
        self.serve(_DatabaseAwayOnce(exception.DatabaseConnectionLost(
            url='mysql+pymysql://cell1', reason='(2013, Lost connection)')))
        self.assertRaises(exception.DatabaseConnectionLost, self.ask)
        self.assertEqual(1, len(self.endpoint.calls))
