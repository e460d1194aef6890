"""Hostile input on the RPC topics, and computes without database
credentials.

Messages are sent straight to each daemon's topic on the control plane's
RabbitMQ vhost: well-formed envelopes that ask for the wrong thing through
oslo.messaging's own client, and garbage published with kombu. Every call
gets an error back that names the problem within its timeout, every
refusal is in the daemon's log, no daemon exits, and the plane still boots
servers afterwards.

compute2 reads a config that does carry a [database] connection (a machine
whose daemons share one nova-lite.conf): it says so, ignores it and works
through the conductor like compute1, whose config has no database section.
"""

import configparser
import os
import pickle
import tempfile

import kombu
from oslo_config import cfg
import oslo_messaging as messaging

from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite import objects
from nova_lite import rpc
from tests.functional import base
from tests.functional import fixtures

EXCHANGE = 'nova_lite'
CALL_TIMEOUT = 15
# A connection string a compute must never use; the server answers on it,
# so a compute that did would show up in its sockets.
DATABASE_URL = 'mysql+pymysql://root:@127.0.0.1/mysql?charset=utf8mb4'
MYSQL_PORT = 3306

# topic -> the daemon that serves it.
TOPICS = {
    'conductor': 'conductor',
    'scheduler': 'scheduler',
    'compute.compute1': 'compute1',
}


def _unknown_class_primitive():
    return {'nova_lite_object.name': 'Gremlin',
            'nova_lite_object.namespace': 'nova_lite',
            'nova_lite_object.version': '1.0',
            'nova_lite_object.data': {}}


def _future_instance_primitive():
    primitive = objects.Instance(
        uuid='00000000-0000-0000-0000-000000000001').obj_to_primitive()
    primitive['nova_lite_object.version'] = '99.0'
    return primitive


class _Marker:
    """Unpickling this makes a directory: proof that pickle was loaded."""

    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return os.mkdir, (self.path,)


def _mysql_connections(pid):
    """TCP connections of process ``pid`` to the MariaDB port."""
    inodes = set()
    fd_dir = '/proc/%d/fd' % pid
    for fd in os.listdir(fd_dir):
        try:
            target = os.readlink(os.path.join(fd_dir, fd))
        except OSError:
            continue
        if target.startswith('socket:['):
            inodes.add(target[8:-1])
    found = []
    for table in ('tcp', 'tcp6'):
        with open('/proc/%d/net/%s' % (pid, table)) as f:
            next(f)
            for line in f:
                fields = line.split()
                remote_port = int(fields[2].rsplit(':', 1)[1], 16)
                if remote_port == MYSQL_PORT and fields[9] in inodes:
                    found.append(line.strip())
    return found


class TestHostileRPC(base.ControlPlaneTestCase):

    computes = 2
    compute_conf = {2: '[database]\nconnection = %s\n'
                       '[api_database]\nconnection = %s\n' %
                       (DATABASE_URL, DATABASE_URL)}

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        objects.register_all()
        # oslo.messaging registers some of its options on the global
        # CONF only.
        cls.transport = messaging.get_rpc_transport(
            cfg.CONF, url=cls.plane.transport_url,
            allowed_remote_exmods=rpc.ALLOWED_EXMODS)
        # As the plane's daemons (durable exchanges, quorum queues): a
        # connection declaring them otherwise is refused by the broker.
        # Read when the first connection is made, after this.
        for name in ('rabbit_quorum_queue', 'amqp_durable_queues'):
            cfg.CONF.set_override(name, True,
                                  group='oslo_messaging_rabbit')

    @classmethod
    def tearDownClass(cls):
        cls.transport.cleanup()
        for name in ('rabbit_quorum_queue', 'amqp_durable_queues'):
            cfg.CONF.clear_override(name, group='oslo_messaging_rabbit')
        super().tearDownClass()

    def setUp(self):
        super().setUp()
        self.context = nova_context.get_admin_context()

    # -- helpers -----------------------------------------------------------

    def _client(self, topic, version='1.0', namespace=None):
        target = messaging.Target(exchange=EXCHANGE, topic=topic,
                                  version=version, namespace=namespace)
        return messaging.get_rpc_client(
            self.transport, target, serializer=rpc.RequestContextSerializer(),
            timeout=CALL_TIMEOUT)

    def _refused(self, topic, method, version='1.0', **kwargs):
        """The error a call gets; a timeout (a hang) fails the test."""
        client = self._client(topic, version)
        try:
            client.call(self.context, method, **kwargs)
        except messaging.MessagingTimeout:
            self.fail('%s on %s got no answer within %ss' % (
                method, topic, CALL_TIMEOUT))
        except Exception as e:
            return e
        self.fail('%s on %s was accepted' % (method, topic))

    def _assert_remote(self, error, exc_type, *words):
        self.assertIsInstance(error, messaging.RemoteError)
        self.assertEqual(exc_type, error.exc_type)
        for word in words:
            self.assertIn(word, error.value)

    def _assert_invalid(self, error, cls, *words):
        self.assertIsInstance(error, cls)
        for word in words:
            self.assertIn(word, error.message)

    def _log_has(self, daemon, text, count=1, timeout=15):
        """Until ``daemon``'s log holds ``text`` ``count`` times."""
        fixtures.wait_for(
            lambda: self.plane.daemons[daemon].log().count(text) >= count,
            timeout, what='%r in the %s log' % (text, daemon))

    def _assert_serving(self, topic):
        self.plane.assert_daemons_running()
        answer = self._client(topic, namespace='baseapi').call(
            self.context, 'ping', arg='still here')
        self.assertEqual('still here', answer['arg'])

    def _boot(self, name, **extra):
        created = self.admin.create_server(name, image=self.plane.image_id,
                                           **extra)
        return self.admin.wait_for_status(created['server']['id'], 'ACTIVE')

    def _barrage(self, topic, known_method, good_arguments, object_argument):
        """Every malformed well-enveloped message on ``topic``; each call
        must come back refused, with the reason."""
        daemon = TOPICS[topic]
        before = self.plane.daemons[daemon].log().count('Refused RPC')

        self._assert_remote(self._refused(topic, 'frobnicate', arg=1),
                            'NoSuchMethod', 'frobnicate')
        self._client(topic).cast(self.context, 'frobnicate', arg=1)
        # What a manager has that is no RPC method.
        for name in ('init_host', 'cleanup_host', 'target', '_client'):
            self._assert_remote(self._refused(topic, name), 'NoSuchMethod')
        for version in ('9.0', '2.0', '1.99'):
            self._assert_remote(
                self._refused(topic, known_method, version=version,
                              **good_arguments),
                'UnsupportedVersion', 'version %s' % version)
        self._client(topic, version='9.0').cast(
            self.context, known_method, **good_arguments)
        self._assert_invalid(self._refused(topic, known_method),
                             exception.InvalidRPCMessage,
                             'missing a required argument')
        self._assert_invalid(
            self._refused(topic, known_method, surprise=1,
                          **good_arguments),
            exception.InvalidRPCMessage,
            "unexpected keyword argument 'surprise'")
        wrong_type = dict(good_arguments, **{object_argument: 'a string'})
        self._assert_invalid(self._refused(topic, known_method,
                                           **wrong_type),
                             exception.InvalidRPCMessage,
                             'argument %s must be' % object_argument,
                             'not str')
        unknown = dict(good_arguments,
                       **{object_argument: _unknown_class_primitive()})
        self._assert_invalid(self._refused(topic, known_method, **unknown),
                             exception.UnreadableObject,
                             'nova_lite.Gremlin: no such object class')
        future = dict(good_arguments,
                      **{object_argument: _future_instance_primitive()})
        self._assert_invalid(self._refused(topic, known_method, **future),
                             exception.UnreadableObject,
                             'version 99.0 is not supported')
        # ~5 MB of argument to a method that does not exist.
        self._assert_remote(self._refused(topic, 'frobnicate',
                                          arg='x' * (5 << 20)),
                            'NoSuchMethod')
        # Every one of them is in the log as a refusal (the casts too).
        self._log_has(daemon, 'Refused RPC', before + 16)
        log = self.plane.daemons[daemon].log()
        self.assertIn("Refused RPC cast 'frobnicate'", log)
        self.assertIn("Refused RPC cast %r (version '9.0'" % known_method,
                      log)
        self.assertNotIn('Exception during message handling', log)
        self._assert_serving(topic)

    def _publish(self, topic, body, content_type='application/json',
                 content_encoding='utf-8'):
        url = self.plane.transport_url.replace('rabbit://', 'amqp://', 1)
        with kombu.Connection(url) as connection:
            connection.Producer().publish(
                body, exchange=EXCHANGE, routing_key=topic,
                content_type=content_type, content_encoding=content_encoding,
                retry=True)

    # -- malformed messages, topic by topic -----------------------------------

    def test_conductor_refuses_malformed_messages_and_keeps_serving(self):
        self._barrage('conductor', 'object_action',
                      {'objinst': objects.Service(host='h', binary='b'),
                       'objmethod': 'save', 'args': [], 'kwargs': {}},
                      'objinst')
        # Object indirection runs remotable methods only.
        error = self._refused(
            'conductor', 'object_class_action_versions', objname='Service',
            objmethod='__subclasses__',
            object_versions={'Service': objects.Service.VERSION}, args=[],
            kwargs={})
        self._assert_invalid(error, exception.InvalidRPCMessage,
                             'is not a remotable method of Service')
        self._log_has('conductor', 'Refused object indirection request')
        self.assertEqual({'service': 'conductor', 'arg': 1},
                         self._client('conductor').call(self.context, 'ping',
                                                        arg=1))
        self._boot('after-conductor-barrage')

    def test_scheduler_refuses_malformed_messages_and_keeps_serving(self):
        self._barrage('scheduler', 'select_destinations',
                      {'spec_obj': objects.RequestSpec(num_instances=1),
                       'instance_uuids': []}, 'spec_obj')
        self._boot('after-scheduler-barrage')

    def test_compute_refuses_malformed_messages_and_keeps_serving(self):
        # The unknown object version is first sent to the conductor to be
        # backported, which refuses it too.
        self._barrage('compute.compute1', 'terminate_instance',
                      {'instance': objects.Instance(
                          uuid='00000000-0000-0000-0000-000000000002')},
                      'instance')
        self.plane.wait_for_compute_up('compute1')
        self._boot('after-compute-barrage',
                   availability_zone='nova:compute1')

    def test_garbage_payloads_are_dropped_and_logged(self):
        marker = os.path.join(tempfile.mkdtemp(), 'unpickled')
        garbage = [
            # Not JSON at all.
            (b'\x00\xffthis is not json{', 'application/json'),
            # JSON, but not a list of key/value pairs.
            (b'[1, 2, 3]', 'application/json'),
            # An envelope whose oslo.message is not JSON.
            (b'{"oslo.version": "2.0", "oslo.message": "{not json"}',
             'application/json'),
            # A serializer a consumer must never load.
            (pickle.dumps(_Marker(marker)), 'application/x-python-serialize'),
            # ~5 MB of garbage.
            (b'\x01' * (5 << 20), 'application/json'),
        ]
        non_envelope = [
            # JSON that is no oslo.messaging envelope, and one without a
            # method; one whose arguments are not a mapping.
            b'{"hello": "world"}',
            b'{"oslo.version": "2.0", "oslo.message": "{\\"args\\": {}}"}',
            b'{"method": "ping", "args": ["x"], "namespace": "baseapi"}',
        ]
        counts = {}
        for topic, daemon in TOPICS.items():
            log = self.plane.daemons[daemon].log()
            counts[daemon] = (log.count('Failed to process message'),
                              log.count('Refused RPC'))
            for body, content_type in garbage:
                encoding = 'binary' if content_type.endswith('serialize') \
                    else 'utf-8'
                self._publish(topic, body, content_type, encoding)
            for body in non_envelope:
                self._publish(topic, body)
        for topic, daemon in TOPICS.items():
            failed, refused = counts[daemon]
            # oslo.messaging's consumer drops what it cannot decode (with
            # a traceback of its own); what decodes but is no RPC message
            # is refused by our dispatcher with a warning.
            self._log_has(daemon, 'Failed to process message',
                          failed + len(garbage))
            self._log_has(daemon, 'Refused RPC', refused + len(non_envelope))
            log = self.plane.daemons[daemon].log()
            self.assertIn('Malformed RPC message: no method name', log)
            self.assertIn('the arguments of ping are not a mapping', log)
            self.assertIn('Refusing to deserialize disabled content of type '
                          'pickle', log)
            self._assert_serving(topic)
        self.assertFalse(os.path.exists(marker))
        self._boot('after-garbage')

    # -- computes hold no database credentials -----------------------------

    def test_compute_config_has_no_database_and_no_connection(self):
        parser = configparser.ConfigParser()
        parser.read(self.plane.compute_confs[1])
        self.assertFalse(parser.has_section('database'))
        self.assertFalse(parser.has_section('api_database'))
        self.assertNotIn('mysql', open(self.plane.compute_confs[1]).read())
        for name in ('compute1', 'compute2'):
            pid = self.plane.daemons[name].process.pid
            self.assertEqual([], _mysql_connections(pid), name)
        # The check sees connections where there are some.
        self.assertNotEqual(
            [], _mysql_connections(self.plane.daemons['conductor']
                                   .process.pid))

    def test_compute_with_a_database_in_its_config_ignores_it(self):
        log = self.plane.daemons['compute2'].log()
        self.assertIn('This compute has database connection strings in its '
                      'configuration; computes never use them', log)
        self.assertNotIn('Direct database access attempted', log)
        self.plane.wait_for_compute_up('compute2')
        server = self._boot('on-compute2', availability_zone='nova:compute2')
        self.assertEqual('compute2', server['OS-EXT-SRV-ATTR:host'])
        self.assertEqual(
            [], _mysql_connections(self.plane.daemons['compute2'].process.pid))
