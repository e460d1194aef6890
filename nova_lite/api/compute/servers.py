"""/servers: create, list, detail, show, update (name and description)
and delete."""

import base64
import binascii

from oslo_log import log as logging

from nova_lite import exception
from nova_lite import objects
from nova_lite import servicegroup
from nova_lite.api import validation
from nova_lite.api import wsgi
from nova_lite.api.compute import common
from nova_lite.api.compute import flavors
from nova_lite.api.compute import microversion as mv
from nova_lite.api.compute import server_views
from nova_lite.api.compute.schemas import servers as schema
from nova_lite.compute import api as compute_api

LOG = logging.getLogger(__name__)

POLICY = 'os_compute_api:servers:'
_API = compute_api.API()


def _compute_api():
    return _API


class _HostStatus:
    """host_status of servers (2.16), one service lookup per host."""

    def __init__(self):
        self._cache = {}

    def __call__(self, instance):
        if not instance.host:
            return ''
        if instance.host not in self._cache:
            self._cache[instance.host] = self._lookup(instance)
        return self._cache[instance.host]

    @staticmethod
    def _lookup(instance):
        service = servicegroup.compute_service(instance._context,
                                               instance.host)
        if service is None:
            return 'UNKNOWN'
        if not servicegroup.service_is_up(service):
            return 'DOWN'
        return 'MAINTENANCE' if service.disabled else 'UP'


# -- reads -------------------------------------------------------------------

def _search_options(request):
    context = request.context
    context.can(POLICY + 'index')
    options = {'project_id': context.project_id}
    all_tenants = 'all_tenants' in request.GET and common.bool_param(
        request, 'all_tenants', default=True)
    asked_project = (request.GET.get('project_id') or
                     request.GET.get('tenant_id'))
    if all_tenants or asked_project:
        context.can(POLICY + 'index:get_all_tenants')
        options['project_id'] = asked_project if asked_project else None
    if request.GET.get('name'):
        options['name'] = compute_api.name_filter(request.GET['name'])
    status = request.GET.get('status')
    if status:
        options['vm_state'] = server_views.VM_STATES_OF_STATUS.get(
            status.upper(), ['-no-such-state-'])
    if request.GET.get('host') and context.can(
            server_views.EXTENDED_ATTRS_POLICY, fatal=False):
        options['host'] = request.GET['host']
    if request.is_version(mv.TAGS_SHOWN):
        for name in ('tags', 'tags-any', 'not-tags', 'not-tags-any'):
            # Comma-separated, and the parameter may be repeated.
            asked = [tag for value in request.GET.getall(name)
                     for tag in value.split(',') if tag]
            if asked:
                options[name] = asked
    return options


def _list(request):
    limit, marker = common.paging(request)
    instances = _compute_api().get_all(request.context,
                                       _search_options(request),
                                       limit=limit, marker=marker)
    return limit, instances


def _list_response(request, documents, instances, limit,
                   collection='servers'):
    body = {'servers': documents}
    next_links = common.next_link(request, collection, instances, limit,
                                  instances[-1].uuid if instances else None)
    if next_links:
        body['servers_links'] = next_links
    return wsgi.json_response(body)


def index(request):
    limit, instances = _list(request)
    return _list_response(request, [server_views.brief(request, i)
                                    for i in instances], instances, limit)


def detail(request):
    limit, instances = _list(request)
    host_status = _HostStatus()
    # The next page of the details is more details.
    return _list_response(request,
                          [server_views.detail(request, i, host_status)
                           for i in instances], instances, limit,
                          'servers/detail')


def _get(request, server_id):
    instance = _compute_api().get(request.context, server_id)
    request.context.can(POLICY + 'show',
                        {'project_id': instance.project_id,
                         'user_id': instance.user_id})
    return instance


def show(request, server_id):
    instance = _get(request, server_id)
    return wsgi.json_response(
        {'server': server_views.detail(request, instance, _HostStatus())})


@validation.schema(schema.base_update, '2.1', '2.18')
@validation.schema(schema.update_v219, mv.DESCRIPTION)
def update(request, server_id):
    """Change the name and, from 2.19, the description; 200 with the
    server, without the extensions' attributes (as Nova before 2.75).
    The access addresses and disk config are taken and not kept."""
    instance = _compute_api().get(request.context, server_id)
    request.context.can(POLICY + 'update',
                        {'project_id': instance.project_id,
                         'user_id': instance.user_id})
    server = request.json_body_or_fail()['server']
    changes = {field: server[name]
               for name, field in (('name', 'display_name'),
                                   ('description', 'display_description'))
               if name in server}
    if changes:
        instance = _compute_api().update(request.context, instance, changes)
    return wsgi.json_response(
        {'server': server_views.detail(request, instance, extended=False)})


def delete(request, server_id):
    instance = _compute_api().get(request.context, server_id)
    request.context.can(POLICY + 'delete',
                        {'project_id': instance.project_id,
                         'user_id': instance.user_id})
    _compute_api().delete(request.context, instance)
    return wsgi.empty_response(204)


# -- create ------------------------------------------------------------------

def _flavor(context, flavor_ref):
    # A flavorRef may be an id or a link to the flavor.
    flavor_id = str(flavor_ref).rstrip('/').rsplit('/', 1)[-1]
    try:
        flavor = objects.Flavor.get_by_flavor_id(context, flavor_id)
    except exception.FlavorNotFound:
        raise exception.InvalidFlavorRef(flavor_ref=flavor_ref)
    if flavor.disabled or not flavors.accessible(context, flavor):
        raise exception.InvalidFlavorRef(flavor_ref=flavor_ref)
    return flavor


def _user_data(value):
    if not value:
        return None
    try:
        base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise exception.ValidationError(
            attribute='user_data', reason='user_data must be base64 '
                                          'encoded.')
    return value


def _forced_destination(context, zone):
    """Split ``zone:host[:node]``; forcing a host is for admins only."""
    if not zone or ':' not in zone:
        return zone, None, None
    zone, _sep, rest = zone.partition(':')
    host, _sep, node = rest.partition(':')
    context.can(POLICY + 'create:forced_host')
    return zone or None, host or None, node or None


def _truthy(value):
    if isinstance(value, str):
        return value.strip().lower() in ('1', 'true', 't', 'yes', 'y', 'on')
    return bool(value)


@validation.schema(schema.base_create, '2.1', '2.18')
@validation.schema(schema.create_v219, '2.19', '2.36')
@validation.schema(schema.create_v237, '2.37', '2.51')
@validation.schema(schema.create_v252, '2.52', '2.56')
@validation.schema(schema.create_v257, mv.NO_PERSONALITY, '2.62')
@validation.schema(schema.create_v263, mv.TRUSTED_CERTS)
def create(request):
    context = request.context
    context.can(POLICY + 'create')
    document = request.json_body_or_fail()
    server = document['server']
    hints = (document.get('os:scheduler_hints') or
             document.get('OS-SCH-HNT:scheduler_hints') or {})
    min_count = int(server.get('min_count', 1))
    max_count = int(server.get('max_count', min_count))
    if min_count > max_count:
        raise exception.ValidationError(
            attribute='min_count',
            reason='min_count must be <= max_count.')
    zone, host, node = _forced_destination(
        context, server.get('availability_zone'))
    bdms = server.get('block_device_mapping_v2')
    instances, reservation_id = _compute_api().create(
        context, _flavor(context, server['flavorRef']),
        server.get('imageRef'), server['name'], min_count=min_count,
        max_count=max_count, description=server.get('description'),
        metadata=server.get('metadata'), key_name=server.get('key_name'),
        availability_zone=zone, user_data=_user_data(server.get('user_data')),
        config_drive=_truthy(server.get('config_drive')),
        requested_networks=server.get('networks'),
        block_device_mapping=bdms, scheduler_hints=hints,
        tags=server.get('tags'), forced_host=host, forced_node=node,
        trusted_certs=server.get('trusted_image_certificates'),
        personality=server.get('personality'))
    if _truthy(server.get('return_reservation_id', False)):
        return wsgi.json_response({'reservation_id': reservation_id}, 202)
    first = instances[0]
    body = server_views.brief(request, first)
    del body['name']
    body['OS-DCF:diskConfig'] = server.get('OS-DCF:diskConfig', 'MANUAL')
    body['security_groups'] = server.get('security_groups') or [
        {'name': 'default'}]
    if server.get('adminPass'):
        body['adminPass'] = server['adminPass']
    return wsgi.json_response({'server': body}, 202,
                              headers={'Location': body['links'][0]['href']})
