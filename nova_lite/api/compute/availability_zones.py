"""/os-availability-zone: the zones a server may be booted into.

A compute host is in the zone of its zone aggregate, else in ``[DEFAULT]
default_availability_zone``; a zone is available while at least one of its
computes is enabled. ``/detail`` (admin) also lists each zone's hosts with
their services, and the ``internal`` zone of the control plane's own
daemons. Aggregates with a zone but no hosts are not listed (nothing can
run there).
"""

from nova_lite import servicegroup
from nova_lite.api import wsgi
from nova_lite.api.compute import common
from nova_lite.compute import aggregates
from nova_lite.compute import api as compute_api

POLICY = 'os_compute_api:os-availability-zone:'
_HOSTS = compute_api.HostAPI()


def _zones(context, with_internal):
    """{zone: [service]} in name order."""
    zones = aggregates.zones_by_host(context)
    found = {}
    for service in _HOSTS.service_get_all(context):
        zone = aggregates.zone_of_service(service, zones)
        if zone == aggregates.INTERNAL_ZONE and not with_internal:
            continue
        found.setdefault(zone, []).append(service)
    return dict(sorted(found.items()))


def _available(services):
    computes = [s for s in services
                if s.binary == servicegroup.COMPUTE_BINARY]
    return not computes or any(not s.disabled for s in computes)


def index(request):
    request.context.can(POLICY + 'list')
    return wsgi.json_response({'availabilityZoneInfo': [
        {'zoneName': zone, 'zoneState': {'available': _available(services)},
         'hosts': None}
        for zone, services in _zones(request.context, False).items()]})


def detail(request):
    request.context.can(POLICY + 'detail')
    info = []
    for zone, services in _zones(request.context, True).items():
        hosts = {}
        for service in services:
            hosts.setdefault(service.host, {})[service.binary] = {
                'available': servicegroup.service_is_up(service),
                'active': not service.disabled,
                'updated_at': common.isotime(service.last_seen_up or
                                             service.updated_at)}
        info.append({'zoneName': zone,
                     'zoneState': {'available': _available(services)},
                     'hosts': hosts})
    return wsgi.json_response({'availabilityZoneInfo': info})
