"""oslo.messaging plumbing: one transport per URL, a context-aware
serializer, and clients/servers with version caps.

Exceptions from ``nova_lite.exception`` raised by a server arrive at the
caller as the same class, so a refusal can be acted on (and the REST API
can map it to a status code).

A server refuses a message it cannot run (unknown method, version it does
not serve, arguments that do not fit the method, an object it cannot read)
before any of our code sees it: one warning in its log, the error back to a
caller, and the daemon goes on serving (see ``RPCDispatcher``).
"""

import functools
import inspect
import re
import threading

from oslo_log import log as logging
import oslo_messaging as messaging
from oslo_messaging.rpc import dispatcher as rpc_dispatcher
from oslo_messaging.rpc import server as rpc_server
from oslo_utils import versionutils

from nova_lite import concurrency
from nova_lite import context as nova_context
from nova_lite import counters
from nova_lite import exception
from nova_lite.objects import base as objects_base

LOG = logging.getLogger(__name__)

ALLOWED_EXMODS = [exception.__name__]

CONF = None
TRANSPORT = None
_TRANSPORTS = {}
_LOCK = threading.Lock()


def set_defaults(control_exchange):
    messaging.set_transport_defaults(control_exchange)


def init(conf):
    global CONF, TRANSPORT
    CONF = conf
    _pace_listeners(conf.rpc_poll_backoff_start,
                    conf.rpc_poll_backoff_max)
    TRANSPORT = messaging.get_rpc_transport(
        conf, allowed_remote_exmods=ALLOWED_EXMODS)
    _TRANSPORTS.clear()


def _pace_listeners(first_wait, longest_wait):
    """Pace the rabbit driver's listener back-off: ``first_wait`` after
    each message, doubling up to ``longest_wait``.

    After each message a listener's poll waits 1 ms, then 2, 4... up to
    5 s, waking each time to send what other threads queued for its
    connection. Its RPC listeners acknowledge in the receiving thread and
    its reply waiters too, so nothing is queued for them and each wake-up
    is work for nothing (``test_rpc_pacing`` holds the driver to that).
    The driver reads both values on every poll; it has no options for
    them.
    """
    try:
        from oslo_messaging._drivers import amqpdriver
    except ImportError:  # no rabbit driver: nothing to pace
        return
    names = ('ACK_REQUEUE_EVERY_SECONDS_MIN', 'ACK_REQUEUE_EVERY_SECONDS_MAX')
    if not all(hasattr(amqpdriver, name) for name in names):
        LOG.warning('oslo.messaging no longer has the listener back-off '
                    'that rpc_poll_backoff_start and rpc_poll_backoff_max '
                    'set; they are ignored')
        return
    amqpdriver.ACK_REQUEUE_EVERY_SECONDS_MAX = longest_wait
    amqpdriver.ACK_REQUEUE_EVERY_SECONDS_MIN = min(first_wait, longest_wait)


def cleanup():
    global TRANSPORT
    for transport in list(_TRANSPORTS.values()) + [TRANSPORT]:
        if transport is not None:
            transport.cleanup()
    _TRANSPORTS.clear()
    TRANSPORT = None


def get_transport(url=None):
    """The transport for a cell's URL; the default one for None/ours."""
    if not url or (CONF is not None and url == CONF.transport_url):
        return TRANSPORT
    with _LOCK:
        transport = _TRANSPORTS.get(url)
        if transport is None:
            transport = messaging.get_rpc_transport(
                CONF, url=url, allowed_remote_exmods=ALLOWED_EXMODS)
            _TRANSPORTS[url] = transport
    return transport


class RequestContextSerializer(messaging.Serializer):
    """Serializes entities with the object serializer and contexts as dicts."""

    def __init__(self, base=None):
        self._base = base or objects_base.NovaLiteObjectSerializer()

    def serialize_entity(self, context, entity):
        return self._base.serialize_entity(context, entity)

    def deserialize_entity(self, context, entity):
        return self._base.deserialize_entity(context, entity)

    def serialize_context(self, context):
        # Without the unset (None) values, which from_dict reads as unset
        # anyway: half the keys of most contexts, each packed into the
        # message, unpacked and deep-copied again for every call.
        return {key: value for key, value in context.to_dict().items()
                if value is not None}

    def deserialize_context(self, context):
        return nova_context.RequestContext.from_dict(context)


def get_client(target, version_cap=None, transport=None, timeout=None):
    return messaging.get_rpc_client(
        transport or TRANSPORT, target, version_cap=version_cap,
        serializer=RequestContextSerializer(), timeout=timeout)


def get_server(target, endpoints, executor=None):
    executor = executor or concurrency.backend()
    dispatcher = RPCDispatcher(endpoints, RequestContextSerializer(),
                               ServedMethodsPolicy)
    return rpc_server.RPCServer(TRANSPORT, target, dispatcher, executor)


class ServedMethodsPolicy(rpc_dispatcher.DefaultRPCAccessPolicy):
    """Only an endpoint's public methods are RPC methods: not its
    attributes (``host``, ``target``), not the lifecycle hooks the service
    calls and not its periodic tasks."""

    NOT_SERVED = frozenset(('init_host', 'post_start_hook', 'cleanup_host'))

    def is_allowed(self, endpoint, method):
        if not super().is_allowed(endpoint, method) or \
                method in self.NOT_SERVED:
            return False
        attribute = getattr(endpoint, method, None)
        return inspect.ismethod(attribute) and \
            not hasattr(attribute, '_periodic_spacing')


# The argument names our RPC APIs give versioned objects, and the class
# each carries ([class] for a list of them, '*' for any object). A value of
# another type is refused before the method runs; None always passes (it
# is what an optional argument defaults to).
OBJECT_ARGUMENTS = {
    'instance': 'Instance',
    'instances': ['Instance'],
    'spec_obj': 'RequestSpec',
    'request_spec': 'RequestSpec',
    'request_specs': ['RequestSpec'],
    'build_request': 'BuildRequest',
    'build_requests': ['BuildRequest'],
    'migration': 'Migration',
    'migrate_data': 'LiveMigrateData',
    'selection': 'Selection',
    'objinst': '*',
}

_VERSION_RE = re.compile(r'^\d+\.\d+$')


class _Refused(Exception):
    """A message refused before its method ran; ``error`` goes back."""

    def __init__(self, error):
        super().__init__(str(error))
        self.error = error


class RPCDispatcher(rpc_dispatcher.RPCDispatcher):
    """oslo.messaging's dispatcher, refusing what it cannot run.

    oslo.messaging logs an unknown method, an unsupported version or a
    method that raised TypeError on its arguments as "Exception during
    message handling" with a traceback, and trips over a message without a
    method name or with arguments that are not a mapping. Here each of
    these is checked before the method runs (and before a call-monitor
    watchdog thread is started, which oslo.messaging would leave running
    for an unknown method), logged once as a warning naming the method,
    version and reason, and sent back to a caller as the error:
    NoSuchMethod or UnsupportedVersion (a RemoteError of that type at the
    caller) or ``exception.InvalidRPCMessage``.
    """

    def dispatch(self, incoming):
        try:
            self._check(incoming)
            counters.add(_counter_name(incoming))
            return super().dispatch(incoming)
        except _Refused as refused:
            message = incoming.message if isinstance(
                incoming.message, dict) else {}
            LOG.warning(
                'Refused RPC %(kind)s %(method)s (version %(version)s, '
                'namespace %(namespace)s): %(reason)s',
                {'kind': _kind(incoming),
                 'method': _shorten(message.get('method')),
                 'version': _shorten(message.get('version', '1.0')),
                 'namespace': _shorten(message.get('namespace')),
                 'reason': _shorten(getattr(refused.error, 'message', None)
                                    or str(refused.error), 500, quote=False)})
            try:
                raise refused.error
            except Exception:
                # Sent back as it is, and oslo.messaging logs it only at
                # debug level: the warning above is the record.
                raise rpc_dispatcher.ExpectedException()

    def _check(self, incoming):
        message = incoming.message
        if not isinstance(message, dict):
            raise _Refused(exception.InvalidRPCMessage(
                reason='the message is not a mapping'))
        method = message.get('method')
        args = message.get('args', {})
        namespace = message.get('namespace')
        version = message.get('version', '1.0')
        if not isinstance(method, str) or not method:
            raise _Refused(exception.InvalidRPCMessage(
                reason='no method name'))
        if not isinstance(args, dict) or \
                not all(isinstance(name, str) for name in args):
            raise _Refused(exception.InvalidRPCMessage(
                reason='the arguments of %s are not a mapping of names' %
                method))
        if namespace is not None and not isinstance(namespace, str):
            raise _Refused(exception.InvalidRPCMessage(
                reason='namespace %r is not a name' % (namespace,)))
        if not isinstance(version, str) or not _VERSION_RE.match(version):
            raise _Refused(exception.InvalidRPCMessage(
                reason='version %r is not X.Y' % (version,)))
        timeout = getattr(incoming, 'client_timeout', None)
        if timeout is not None and (isinstance(timeout, bool) or
                                    not isinstance(timeout, (int, float))):
            raise _Refused(exception.InvalidRPCMessage(
                reason='call monitor timeout %r is not a number' %
                (timeout,)))
        found_compatible = False
        for endpoint in self.endpoints:
            target = getattr(endpoint, 'target', None) or \
                self._default_target
            if not (self._is_namespace(target, namespace) and
                    self._is_compatible(target, version)):
                continue
            found_compatible = True
            if hasattr(endpoint, method) and \
                    self.access_policy.is_allowed(endpoint, method):
                self._check_arguments(getattr(endpoint, method), method,
                                      args)
                return
        if found_compatible:
            raise _Refused(rpc_dispatcher.NoSuchMethod(method))
        raise _Refused(rpc_dispatcher.UnsupportedVersion(version,
                                                         method=method))

    @staticmethod
    def _check_arguments(bound_method, method, args):
        try:
            # (self, context, **args) of the function the method runs.
            _signature(bound_method.__func__).bind(None, None, **args)
        except TypeError as e:
            raise _Refused(exception.InvalidRPCMessage(
                reason='%s: %s' % (method, e)))

    def _do_dispatch(self, endpoint, method, ctxt, args):
        try:
            ctxt = self.serializer.deserialize_context(ctxt)
            arguments = {
                name: self.serializer.deserialize_entity(ctxt, value)
                for name, value in args.items()}
        except exception.InvalidRPCMessage as e:
            raise _Refused(e)
        except Exception as e:
            raise _Refused(exception.InvalidRPCMessage(
                reason='%s: cannot read the context or arguments (%s: %s)'
                % (method, type(e).__name__, e)))
        for name, value in arguments.items():
            _check_object_argument(method, name, value)
        result = getattr(endpoint, method)(ctxt, **arguments)
        return self.serializer.serialize_entity(ctxt, result)


@functools.lru_cache(maxsize=None)
def _signature(function):
    """The signature of the function under an endpoint method's
    decorators: worked out once per method (inspect.signature costs more
    than the rest of the check), the endpoints' methods being few."""
    return inspect.signature(_undecorated(function))


def _undecorated(function):
    """The function under ``function``'s decorators. oslo.messaging's
    ``expected_exceptions`` wraps without functools.wraps; its wrapper
    (``inner``) holds the function it calls in its closure."""
    function = inspect.unwrap(function)
    while function.__name__ == 'inner' and function.__closure__:
        called = [cell.cell_contents for cell in function.__closure__
                  if inspect.isfunction(cell.cell_contents)]
        if len(called) != 1:
            break
        function = inspect.unwrap(called[0])
    return function


def _kind(incoming):
    # The AMQP drivers know a call by its reply queue (every incoming
    # message gets a msg_id, a cast a made-up one); others cannot tell.
    if not hasattr(incoming, 'reply_q'):
        return 'message'
    return 'call' if incoming.reply_q else 'cast'


def _counter_name(incoming):
    """``rpc.<kind>.<method>``; an object method run by the conductor is
    named by its class and method too (checked messages only)."""
    message = incoming.message
    name = 'rpc.%s.%s' % (_kind(incoming), message['method'])
    args = message.get('args', {})
    objmethod = args.get('objmethod')
    if isinstance(objmethod, str):
        objname = args.get('objname')
        if objname is None and isinstance(args.get('objinst'), dict):
            objname = args['objinst'].get('nova_lite_object.name')
        # Only a class and method that exist: a hostile sender must not
        # grow the counters with names of its own.
        classes = objects_base.NovaLiteObjectRegistry.obj_classes().get(
            objname) if isinstance(objname, str) else None
        if classes and callable(getattr(classes[0], objmethod, None)):
            name += '.%s.%s' % (objname, objmethod)
    return name


def _shorten(value, limit=80, quote=True):
    """``value`` for a log line: a hostile message may carry megabytes."""
    text = repr(value) if quote else str(value)
    return text if len(text) <= limit else '%s... (%d characters)' % (
        text[:limit], len(text))


def _check_object_argument(method, name, value):
    wanted = OBJECT_ARGUMENTS.get(name)
    if wanted is None or value is None:
        return
    many = isinstance(wanted, list)
    cls_name = wanted[0] if many else wanted
    if many:
        if isinstance(value, objects_base.ObjectListBase):
            value = value.objects
        if not isinstance(value, (list, tuple)):
            raise _Refused(exception.InvalidRPCMessage(
                reason='%s: argument %s must be a list of objects of class '
                '%s, not %s' % (method, name, cls_name,
                                type(value).__name__)))
        items = value
    else:
        items = [value]
    for item in items:
        if not isinstance(item, objects_base.NovaLiteObject) or \
                (cls_name != '*' and item.obj_name() != cls_name):
            got = item.obj_name() if isinstance(
                item, objects_base.NovaLiteObject) else type(item).__name__
            raise _Refused(exception.InvalidRPCMessage(
                reason='%s: argument %s must be %s, not %s' % (
                    method, name, 'an object' if cls_name == '*' else
                    'an object of class %s' % cls_name, got)))


def version_cap(service, history_key, latest):
    """The RPC version cap for ``service`` from [upgrade_levels].

    "auto" reads the minimum service version of running ``service``
    daemons and maps it through the service version history.
    """
    level = getattr(CONF.upgrade_levels, service, None)
    if not level:
        return latest
    if level != 'auto':
        try:
            versionutils.convert_version_to_tuple(level)
        except Exception:
            raise exception.ConfigurationError(
                reason='[upgrade_levels] %s = %r is not "auto" or X.Y' %
                (service, level))
        return level
    from nova_lite.objects import service as service_obj
    try:
        minimum = _minimum_service_version(service)
    except Exception as e:
        LOG.warning('Cannot read %s service versions for [upgrade_levels] '
                    'auto (%s); not capping', service, e)
        return latest
    history = service_obj.SERVICE_VERSION_HISTORY
    if not minimum:
        return latest
    return history[min(minimum, len(history) - 1)][history_key]


def _minimum_service_version(service):
    """The oldest version among running ``nova-lite-<service>`` daemons.

    Computes run in every cell, and the API and the superconductor cast to
    all of them: for ``compute`` a daemon that reads the API database takes
    the oldest over its own cell and every mapped one. Otherwise (a cell
    conductor's computes, the conductors and schedulers the API talks to)
    the services are in this daemon's own cell database.
    """
    from nova_lite import objects
    context = nova_context.get_admin_context()
    binary = 'nova-lite-' + service
    minimum = objects.Service.get_minimum_version(context, binary)
    if service != 'compute' or not CONF.api_database.connection:
        return minimum
    from nova_lite import cells
    other_cells = [cell for cell in objects.CellMappingList.get_all(context)
                   if cell.database_connection != CONF.database.connection]
    # A cell that does not answer is left out (and logged), rather than
    # leaving the computes of every cell uncapped.
    in_cells = cells.scatter(
        context, lambda cctxt, cell: objects.Service.get_minimum_version(
            cctxt, binary), 'the minimum version of %s' % binary,
        cells=other_cells, with_cell0=False)
    # 0 is a cell without such services, not an old one.
    versions = [v for v in [minimum, *in_cells.answers.values()] if v]
    return min(versions) if versions else 0
