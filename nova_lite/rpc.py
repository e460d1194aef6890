"""oslo.messaging plumbing: one transport per URL, a context-aware
serializer, and clients/servers with version caps.

Exceptions from ``nova_lite.exception`` raised by a server arrive at the
caller as the same class, so a refusal can be acted on (and the REST API
can map it to a status code).
"""

import threading

from oslo_log import log as logging
import oslo_messaging as messaging
from oslo_messaging.rpc import dispatcher as rpc_dispatcher
from oslo_utils import versionutils

from nova_lite import context as nova_context
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
    TRANSPORT = messaging.get_rpc_transport(
        conf, allowed_remote_exmods=ALLOWED_EXMODS)
    _TRANSPORTS.clear()


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
        return context.to_dict()

    def deserialize_context(self, context):
        return nova_context.RequestContext.from_dict(context)


def get_client(target, version_cap=None, transport=None, timeout=None):
    return messaging.get_rpc_client(
        transport or TRANSPORT, target, version_cap=version_cap,
        serializer=RequestContextSerializer(), timeout=timeout)


def get_server(target, endpoints, executor=None):
    from nova_lite import cmd
    executor = executor or cmd.concurrency_backend()
    access_policy = rpc_dispatcher.DefaultRPCAccessPolicy
    return messaging.get_rpc_server(
        TRANSPORT, target, endpoints, executor=executor,
        serializer=RequestContextSerializer(), access_policy=access_policy)


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
    versions = [minimum]
    for cell in objects.CellMappingList.get_all(context):
        if cell.is_cell0 or \
                cell.database_connection == CONF.database.connection:
            continue
        with nova_context.target_cell(context, cell) as cctxt:
            versions.append(objects.Service.get_minimum_version(cctxt,
                                                                binary))
    # 0 is a cell without such services, not an old one.
    versions = [v for v in versions if v]
    return min(versions) if versions else 0
