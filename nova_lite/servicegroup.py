"""Whether a service is up: its last heartbeat is recent and it is not
forced down by an administrator. Also the one answer to "is the compute on
this host up?" and the compute daemon's binary name that question uses."""

from oslo_utils import timeutils

from nova_lite import conf as nova_conf
from nova_lite import exception
from nova_lite import objects

CONF = nova_conf.CONF

COMPUTE_BINARY = 'nova-lite-compute'


def service_is_up(service):
    if service.forced_down:
        return False
    last = service.last_seen_up or service.updated_at or service.created_at
    if last is None:
        return False
    last = last.replace(tzinfo=None)
    elapsed = (timeutils.utcnow().replace(tzinfo=None) - last)
    return abs(elapsed.total_seconds()) <= CONF.service_down_time


def compute_service(context, host):
    """The service record of ``host``'s compute in the cell ``context``
    targets, or None when that cell has none."""
    try:
        return objects.Service.get_by_host_and_binary(context, host,
                                                      COMPUTE_BINARY)
    except exception.ServiceNotFound:
        return None


def compute_is_up(context, host):
    """Whether ``host``'s compute (in the cell ``context`` targets) is up;
    False when there is none."""
    service = compute_service(context, host)
    return service is not None and service_is_up(service)
