"""How soon a rabbit listener wakes up after a message, and why it may wait.

``[DEFAULT] rpc_poll_backoff_start`` starts the back-off of the rabbit
driver's listeners later than oslo.messaging's 1 ms. That is right only
while the driver queues nothing for those listeners to send: the tests
below hold the installed oslo.messaging to it, so an upgrade that changes
it fails here rather than leaving acknowledgements waiting.
"""

from unittest import mock

import fixtures
from oslo_config import fixture as config_fixture
from oslo_messaging._drivers import amqpdriver
import testtools

from nova_lite.conf import CONF
from nova_lite import rpc
from tests.unit import fixtures as nova_fixtures


class TestListenerPacing(testtools.TestCase):

    def setUp(self):
        super().setUp()
        for name in ('ACK_REQUEUE_EVERY_SECONDS_MIN',
                     'ACK_REQUEUE_EVERY_SECONDS_MAX'):
            self.addCleanup(setattr, amqpdriver, name,
                            getattr(amqpdriver, name))
        self.config = self.useFixture(config_fixture.Config(CONF))

    def pace(self):
        self.useFixture(nova_fixtures.FakeRPC())
        return (amqpdriver.ACK_REQUEUE_EVERY_SECONDS_MIN,
                amqpdriver.ACK_REQUEUE_EVERY_SECONDS_MAX)

    def test_init_paces_the_back_off_as_configured(self):
        self.config.config(rpc_poll_backoff_start=0.25,
                           rpc_poll_backoff_max=12)
        self.assertEqual((0.25, 12), self.pace())

    def test_the_defaults_start_at_a_second_and_stop_at_thirty(self):
        self.assertEqual((1.0, 30.0), self.pace())

    def test_the_start_is_never_past_the_longest_wait(self):
        self.config.config(rpc_poll_backoff_start=20,
                           rpc_poll_backoff_max=8)
        self.assertEqual((8, 8), self.pace())

    def test_a_driver_without_the_back_off_is_left_alone(self):
        self.useFixture(fixtures.MonkeyPatch(
            'oslo_messaging._drivers.amqpdriver.'
            'ACK_REQUEUE_EVERY_SECONDS_MAX', None))
        del amqpdriver.ACK_REQUEUE_EVERY_SECONDS_MAX
        first = amqpdriver.ACK_REQUEUE_EVERY_SECONDS_MIN
        with self.assertLogs('nova_lite.rpc', 'WARNING') as logs:
            rpc._pace_listeners(first + 1.0, 30.0)
        self.assertEqual(first, amqpdriver.ACK_REQUEUE_EVERY_SECONDS_MIN)
        self.assertIn('rpc_poll_backoff_start', logs.output[0])
        self.assertFalse(hasattr(amqpdriver, 'ACK_REQUEUE_EVERY_SECONDS_MAX'))

    def test_out_of_range_values_are_refused(self):
        for value in (0, 301):
            self.assertRaises(ValueError, self.config.config,
                              rpc_poll_backoff_start=value)
        for value in (0.5, 301):
            self.assertRaises(ValueError, self.config.config,
                              rpc_poll_backoff_max=value)


class TestWhatTheListenersQueue(testtools.TestCase):
    """Nothing an RPC server or a reply waiter does waits for a wake-up."""

    def test_an_rpc_message_is_acknowledged_as_it_is_received(self):
        listener = amqpdriver.RpcAMQPListener.__new__(
            amqpdriver.RpcAMQPListener)
        message = mock.Mock()
        with mock.patch.object(amqpdriver.AMQPListener, '__call__') as up:
            listener(message)
        message.acknowledge.assert_called_once_with()
        up.assert_called_once_with(message)

    def test_the_servers_acknowledge_and_requeue_queue_nothing(self):
        handler = amqpdriver.MessageOperationsHandler('test')
        incoming = amqpdriver.AMQPIncomingMessage.__new__(
            amqpdriver.AMQPIncomingMessage)
        incoming.message = mock.Mock()
        incoming._message_operations_handler = handler
        incoming.acknowledge()
        incoming.requeue()
        self.assertTrue(handler._tasks.empty())
        self.assertFalse(incoming.message.acknowledge.called)
        self.assertIs(amqpdriver.AMQPIncomingMessage,
                      amqpdriver.RpcAMQPListener.message_cls)

    def test_a_reply_is_acknowledged_as_it_is_received(self):
        waiter = amqpdriver.ReplyWaiter.__new__(amqpdriver.ReplyWaiter)
        waiter.waiters = mock.Mock()
        message = mock.MagicMock()
        waiter(message)
        message.acknowledge.assert_called_once_with()
