"""/resource_providers and /resource_providers/{uuid}."""

import uuid as uuid_lib

from oslo_utils import uuidutils

from nova_lite.api import wsgi
from nova_lite.api.placement import microversion as mv
from nova_lite.api.placement.schemas import resource_provider as schema
from nova_lite.api.placement import util
from nova_lite.placement import exception
from nova_lite.placement import providers
from nova_lite.placement import resource_classes

POLICY = 'placement:resource_providers:%s'


def create(request):
    util.authorize(request, POLICY % 'create')
    nested = request.is_version(mv.NESTED)
    body = util.json_body(request,
                          schema.CREATE_NESTED if nested else schema.CREATE)
    uuid = str(uuid_lib.UUID(body['uuid'])) if body.get('uuid') else \
        uuidutils.generate_uuid()
    provider = util.write(providers.create, uuid, body['name'],
                          body.get('parent_provider_uuid'))
    location = '%s/resource_providers/%s' % (request.script_name, uuid)
    if request.is_version(mv.CREATE_RETURNS_BODY):
        return wsgi.json_response(util.provider_view(request, provider),
                                  status=200, headers={'Location': location})
    return wsgi.empty_response(201, headers={'Location': location})


def _allowed_filters(request):
    allowed = {'name', 'uuid'}
    for version, names in ((mv.MEMBER_OF_LIST, ('member_of',)),
                           (mv.RESOURCES_FILTER, ('resources',)),
                           (mv.NESTED, ('in_tree',)),
                           (mv.PROVIDERS_REQUIRED, ('required',))):
        if request.is_version(version):
            allowed.update(names)
    return allowed


def _list_filters(connection, request):
    unknown = set(request.GET.keys()) - _allowed_filters(request)
    if unknown:
        raise exception.BadRequest(
            reason='Invalid query string parameters: Additional properties '
                   'are not allowed (%s unexpected)' % ', '.join(
                       sorted(unknown)))
    filters = {}
    for name in ('name', 'uuid', 'in_tree'):
        value = util.single_query_value(request, name)
        if value is not None:
            filters[name] = value
    for name in ('uuid', 'in_tree'):
        if name in filters and not uuidutils.is_uuid_like(filters[name]):
            raise exception.QueryBadValue(
                reason='Invalid query string parameters: Expected %r '
                       'parameter to be a UUID. Got: %s' % (name,
                                                            filters[name]))
    member_of = request.GET.getall('member_of')
    if member_of:
        if len(member_of) > 1 and not request.is_version(
                mv.MULTIPLE_MEMBER_OF):
            raise exception.QueryBadValue(
                reason='Multiple member_of parameters are not supported '
                       'before microversion 1.24.')
        filters['member_of'] = util.parse_member_of(
            member_of, request.is_version(mv.FORBIDDEN_AGGREGATES))
    resources = util.single_query_value(request, 'resources')
    if resources is not None:
        wanted = util.parse_resources(resources)
        try:
            filters['resources'] = {
                resource_classes.id_of(connection, name): amount
                for name, amount in wanted.items()}
        except exception.ResourceClassNotFound as e:
            raise exception.BadRequest(
                reason='Invalid resource class in resources parameter: %s' %
                e.kwargs['name'])
    required = request.GET.getall('required')
    if required:
        filters['required'], filters['any_of'], filters['forbidden'] = \
            util.trait_term_ids(connection, util.parse_trait_terms(
                required, allow_forbidden=request.is_version(
                    mv.FORBIDDEN_TRAITS),
                any_traits=request.is_version(mv.ANY_TRAITS)))
    return filters


def index(request):
    util.authorize(request, POLICY % 'list')

    def find(connection):
        return providers.list_providers(connection,
                                        **_list_filters(connection, request))
    found = util.read(find)
    return wsgi.json_response({'resource_providers': [
        util.provider_view(request, row) for row in found]})


def show(request, uuid):
    util.authorize(request, POLICY % 'show')
    util.require_provider_uuid(uuid)
    provider = util.read(providers.get, uuid)
    return wsgi.json_response(util.provider_view(request, provider))


def update(request, uuid):
    util.authorize(request, POLICY % 'update')
    util.require_provider_uuid(uuid)
    nested = request.is_version(mv.NESTED)
    body = util.json_body(request,
                          schema.UPDATE_NESTED if nested else schema.UPDATE)
    provider = util.write(
        providers.update, uuid, body['name'],
        parent_uuid=body.get('parent_provider_uuid'),
        set_parent='parent_provider_uuid' in body,
        allow_reparent=request.is_version(mv.REPARENT))
    return wsgi.json_response(util.provider_view(request, provider))


def delete(request, uuid):
    util.authorize(request, POLICY % 'delete')
    util.require_provider_uuid(uuid)
    util.write(providers.delete, uuid)
    return wsgi.empty_response(204)
