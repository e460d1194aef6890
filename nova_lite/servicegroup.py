"""Whether a service is up: its last heartbeat is recent and it is not
forced down by an administrator."""

from oslo_utils import timeutils

from nova_lite import conf as nova_conf

CONF = nova_conf.CONF


def service_is_up(service):
    if service.forced_down:
        return False
    last = service.last_seen_up or service.updated_at or service.created_at
    if last is None:
        return False
    last = last.replace(tzinfo=None)
    elapsed = (timeutils.utcnow().replace(tzinfo=None) - last)
    return abs(elapsed.total_seconds()) <= CONF.service_down_time
