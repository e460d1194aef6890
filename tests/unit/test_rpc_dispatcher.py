"""What an RPC server does with a message it cannot run.

A real server (``rpc.get_server``) on the in-memory transport, called with
oslo.messaging's own client the way a buggy or hostile sender would: each
refusal reaches the caller as an error it can act on, is logged once as a
warning (no "Exception during message handling" traceback), and the
server goes on serving.
"""

import logging
import threading

import fixtures
import oslo_messaging as messaging
from oslo_messaging.rpc import dispatcher as rpc_dispatcher
import testtools

from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite import manager
from nova_lite import objects
from nova_lite import rpc
from tests.unit import fixtures as nova_fixtures

TOPIC = 'hostile-test'
UUID = '3f1c9a52-6b7e-4d3a-9c55-0d2e8f41a7b6'


class Endpoint:
    """A manager-shaped endpoint: RPC methods, an attribute, the lifecycle
    hooks and a periodic task."""

    target = messaging.Target(version='1.2')

    def __init__(self):
        self.host = 'host1'
        self.received = []

    def echo(self, context, arg):
        return arg

    @messaging.expected_exceptions(exception.NovaLiteException)
    def refuse(self, context, arg):
        raise exception.Invalid(reason=arg)

    def terminate_instance(self, context, instance):
        self.received.append(instance)
        return instance.uuid

    def init_host(self, context):
        raise AssertionError('init_host must not be reachable over RPC')

    def cleanup_host(self):
        raise AssertionError('cleanup_host must not be reachable over RPC')

    @manager.periodic_task(60)
    def audit(self):
        raise AssertionError('a periodic task must not be reachable over '
                             'RPC')


class TestRefusedMessages(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(nova_fixtures.Config())
        self.useFixture(nova_fixtures.FakeRPC())
        objects.register_all()
        self.log = self.useFixture(fixtures.FakeLogger(
            level=logging.WARNING, format='%(levelname)s %(name)s '
            '%(message)s'))
        self.endpoint = Endpoint()
        server = rpc.get_server(messaging.Target(topic=TOPIC, server='h1'),
                                [self.endpoint], executor='threading')
        server.start()
        self.addCleanup(server.wait)
        self.addCleanup(server.stop)
        self.context = nova_context.get_admin_context()

    def _client(self, version='1.0', **kwargs):
        return rpc.get_client(messaging.Target(topic=TOPIC, server='h1',
                                               version=version),
                              timeout=10).prepare(**kwargs)

    def _assert_refused_once(self, *words):
        refusals = [line for line in self.log.output.splitlines()
                    if 'Refused RPC' in line]
        self.assertEqual(1, len(refusals), self.log.output)
        self.assertTrue(refusals[0].startswith('WARNING nova_lite.rpc'))
        for word in words:
            self.assertIn(word, refusals[0])
        self.assertNotIn('Exception during message handling',
                         self.log.output)
        self.assertNotIn('Traceback', self.log.output)

    def _remote_error(self, method, version='1.0', **kwargs):
        """The name of the error a call gets: the fake transport raises the
        server's exception itself, RabbitMQ a RemoteError of its type."""
        error = self.assertRaises(Exception, self._client(version=version)
                                  .call, self.context, method, **kwargs)
        if isinstance(error, messaging.RemoteError):
            return error.exc_type, error.value
        return type(error).__name__, str(error)

    def _assert_still_serving(self):
        self.assertEqual('still here', self._client().call(
            self.context, 'echo', arg='still here'))

    def test_unknown_method_is_no_such_method(self):
        self.assertEqual('NoSuchMethod',
                         self._remote_error('frobnicate', arg=1)[0])
        self._assert_refused_once("'frobnicate'",
                                  'does not support RPC method frobnicate')
        self._assert_still_serving()

    def test_cast_to_unknown_method_is_logged(self):
        self._client().cast(self.context, 'frobnicate', arg=1)
        self._assert_still_serving()
        self._assert_refused_once("'frobnicate'")

    def test_attributes_hooks_and_periodic_tasks_are_no_methods(self):
        for name in ('host', 'target', 'received', 'init_host',
                     'cleanup_host', 'audit', '_client'):
            self.assertEqual('NoSuchMethod', self._remote_error(name)[0],
                             name)
        self.assertNotIn('Traceback', self.log.output)
        self._assert_still_serving()

    def test_newer_version_is_unsupported(self):
        for version in ('1.3', '9.0', '0.9'):
            name, text = self._remote_error('echo', version, arg=1)
            self.assertEqual('UnsupportedVersion', name, version)
            self.assertIn(version, text)
        self.assertNotIn('Traceback', self.log.output)
        self._assert_still_serving()

    def test_missing_argument_is_invalid(self):
        error = self.assertRaises(exception.InvalidRPCMessage,
                                  self._client().call, self.context, 'echo')
        self.assertIn("echo: missing a required argument: 'arg'",
                      error.message)
        self._assert_refused_once('echo', 'missing a required argument')
        self._assert_still_serving()

    def test_arguments_are_checked_through_expected_exceptions(self):
        # oslo.messaging's decorator hides the signature it wraps.
        error = self.assertRaises(exception.InvalidRPCMessage,
                                  self._client().call, self.context,
                                  'refuse', arg=1, surprise=2)
        self.assertIn("refuse: got an unexpected keyword argument "
                      "'surprise'", error.message)
        self.assertRaises(exception.InvalidRPCMessage, self._client().call,
                          self.context, 'refuse')
        error = self.assertRaises(exception.Invalid, self._client().call,
                                  self.context, 'refuse', arg='no')
        self.assertNotIsInstance(error, exception.InvalidRPCMessage)

    def test_unexpected_argument_is_invalid(self):
        error = self.assertRaises(exception.InvalidRPCMessage,
                                  self._client().call, self.context, 'echo',
                                  arg=1, surprise=2)
        self.assertIn("unexpected keyword argument 'surprise'",
                      error.message)
        self._assert_refused_once('surprise')
        self._assert_still_serving()

    def test_string_where_an_object_is_expected_is_invalid(self):
        error = self.assertRaises(exception.InvalidRPCMessage,
                                  self._client().call, self.context,
                                  'terminate_instance', instance='i-1')
        self.assertIn('argument instance must be an object of class '
                      'Instance, not str', error.message)
        self.assertEqual([], self.endpoint.received)
        self._assert_refused_once('terminate_instance')
        self._assert_still_serving()

    def test_object_of_another_class_is_invalid(self):
        error = self.assertRaises(
            exception.InvalidRPCMessage, self._client().call, self.context,
            'terminate_instance', instance=objects.Flavor(name='m1'))
        self.assertIn('must be an object of class Instance, not Flavor',
                      error.message)

    def test_object_of_an_unknown_class_is_unreadable(self):
        primitive = {'nova_lite_object.name': 'Gremlin',
                     'nova_lite_object.namespace': 'nova_lite',
                     'nova_lite_object.version': '1.0',
                     'nova_lite_object.data': {}}
        error = self.assertRaises(exception.UnreadableObject,
                                  self._client().call, self.context,
                                  'terminate_instance', instance=primitive)
        self.assertIn('nova_lite.Gremlin: no such object class here',
                      error.message)
        self._assert_refused_once('terminate_instance', 'Gremlin')
        self.assertNotIn('ERROR', self.log.output)
        self._assert_still_serving()

    def test_object_of_an_unknown_version_is_unreadable(self):
        primitive = objects.Instance(uuid=UUID).obj_to_primitive()
        primitive['nova_lite_object.version'] = '99.0'
        error = self.assertRaises(exception.UnreadableObject,
                                  self._client().call, self.context,
                                  'terminate_instance', instance=primitive)
        self.assertIn('version 99.0 is not supported', error.message)
        self._assert_still_serving()

    def test_a_good_call_still_works(self):
        instance = objects.Instance(uuid=UUID)
        self.assertEqual(UUID, self._client().call(
            self.context, 'terminate_instance', instance=instance))
        self.assertEqual('', self.log.output)


class FakeIncoming:
    """What the driver hands the dispatcher, for messages a client never
    sends: no method name, arguments that are not a mapping."""

    def __init__(self, message, client_timeout=None):
        self.message = message
        self.ctxt = nova_context.get_admin_context().to_dict()
        self.msg_id = 'm1'
        self.client_timeout = client_timeout
        self.heartbeats = 0

    def heartbeat(self):
        self.heartbeats += 1


class TestMalformedEnvelopes(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(nova_fixtures.Config())
        objects.register_all()
        self.log = self.useFixture(fixtures.FakeLogger(level=logging.WARNING))
        self.dispatcher = rpc.RPCDispatcher(
            [Endpoint()], rpc.RequestContextSerializer(),
            rpc.ServedMethodsPolicy)

    def _refused(self, message, **kwargs):
        wrapped = self.assertRaises(rpc_dispatcher.ExpectedException,
                                    self.dispatcher.dispatch,
                                    FakeIncoming(message, **kwargs))
        return wrapped.exc_info[1]

    def test_no_method_name(self):
        for message in ({}, {'method': None}, {'method': ['echo']},
                        {'method': ''}):
            error = self._refused(message)
            self.assertIsInstance(error, exception.InvalidRPCMessage)
            self.assertIn('no method name', error.message)

    def test_arguments_not_a_mapping(self):
        error = self._refused({'method': 'echo', 'args': ['x']})
        self.assertIn('arguments of echo are not a mapping', error.message)

    def test_version_not_x_y(self):
        for version in (9, '1', 'one.two', None):
            error = self._refused({'method': 'echo', 'args': {'arg': 1},
                                   'version': version})
            self.assertIsInstance(error, exception.InvalidRPCMessage)

    def test_context_that_cannot_be_read(self):
        incoming = FakeIncoming({'method': 'echo', 'args': {'arg': 1}})
        incoming.ctxt = ['not', 'a', 'mapping']
        wrapped = self.assertRaises(rpc_dispatcher.ExpectedException,
                                    self.dispatcher.dispatch, incoming)
        self.assertIsInstance(wrapped.exc_info[1],
                              exception.InvalidRPCMessage)

    def test_no_call_monitor_left_running_for_an_unknown_method(self):
        # oslo.messaging starts the call-monitor watchdog before looking
        # for the method and only stops it after a dispatched one.
        before = threading.active_count()
        error = self._refused({'method': 'frobnicate', 'args': {}},
                              client_timeout=2)
        self.assertIsInstance(error, rpc_dispatcher.NoSuchMethod)
        self.assertEqual(before, threading.active_count())

    def test_call_monitor_timeout_not_a_number(self):
        error = self._refused({'method': 'echo', 'args': {'arg': 1}},
                              client_timeout=[1])
        self.assertIn('call monitor timeout', error.message)
