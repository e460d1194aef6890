"""/os-services (admin): the daemons' records, up/down, enable/disable.

Identified by the service's UUID (microversion 2.53). ``PUT`` takes the
2.53 body: ``status``, ``disabled_reason`` and/or ``forced_down``. A
compute's ``zone`` is that of its host aggregates, else the default zone;
other services are in ``internal``.
"""

from nova_lite import exception
from nova_lite import servicegroup
from nova_lite.api import validation
from nova_lite.api import wsgi
from nova_lite.api.compute import common
from nova_lite.api.compute.schemas import services as schema
from nova_lite.compute import aggregates
from nova_lite.compute import api as compute_api

POLICY = 'os_compute_api:os-services:'
_HOSTS = compute_api.HostAPI()


def view(service, zones):
    """``zones``: {host: zone} (``aggregates.zones_by_host``)."""
    return {
        'id': service.uuid,
        'binary': service.binary,
        'host': service.host,
        'zone': aggregates.zone_of_service(service, zones),
        'status': 'disabled' if service.disabled else 'enabled',
        'state': 'up' if servicegroup.service_is_up(service) else 'down',
        'updated_at': common.isotime(service.last_seen_up or
                                     service.updated_at),
        'disabled_reason': service.disabled_reason,
        'forced_down': bool(service.forced_down),
    }


def index(request):
    request.context.can(POLICY + 'list')
    services = _HOSTS.service_get_all(request.context,
                                      host=request.GET.get('host'),
                                      binary=request.GET.get('binary'))
    zones = aggregates.zones_by_host(request.context)
    return wsgi.json_response({'services': [view(s, zones)
                                            for s in services]})


@validation.schema(schema.update_v253)
def update(request, service_id):
    request.context.can(POLICY + 'update')
    body = request.json_body_or_fail()
    values = {}
    if 'status' in body:
        values['disabled'] = body['status'] == 'disabled'
        values['disabled_reason'] = (body.get('disabled_reason')
                                     if values['disabled'] else None)
    elif 'disabled_reason' in body:
        raise exception.ValidationError(
            attribute='disabled_reason',
            reason='disabled_reason is only accepted together with '
                   'status "disabled".')
    if values.get('disabled') is False and body.get('disabled_reason'):
        raise exception.ValidationError(
            attribute='disabled_reason',
            reason='disabled_reason is only accepted together with '
                   'status "disabled".')
    if 'forced_down' in body:
        values['forced_down'] = body['forced_down']
    service = _HOSTS.service_update(request.context, service_id, values)
    return wsgi.json_response({'service': view(
        service, aggregates.zones_by_host(request.context))})


def delete(request, service_id):
    request.context.can(POLICY + 'delete')
    _HOSTS.service_delete(request.context, service_id)
    return wsgi.empty_response(204)
