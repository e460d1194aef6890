"""/resource_providers/{uuid}/inventories[/{resource_class}]."""

from nova_lite.api import wsgi
from nova_lite.api.placement import microversion as mv
from nova_lite.api.placement.schemas import inventory as schema
from nova_lite.api.placement import util
from nova_lite.placement import inventories
from nova_lite.placement import providers

POLICY = 'placement:resource_providers:inventories:%s'


def _reserved_may_equal_total(request):
    return request.is_version(mv.RESERVED_EQUALS_TOTAL)


def index(request, uuid):
    util.authorize(request, POLICY % 'list')
    util.require_provider_uuid(uuid)

    def fetch(connection):
        provider = providers.get(connection, uuid)
        return provider, inventories.get_all(connection, provider.id)
    provider, found = util.read(fetch)
    return wsgi.json_response({
        'inventories': found,
        'resource_provider_generation': provider.generation})


def replace_all(request, uuid):
    util.authorize(request, POLICY % 'update')
    util.require_provider_uuid(uuid)
    body = util.json_body(request, schema.REPLACE_ALL)
    wanted = {name: inventories.with_defaults(values)
              for name, values in body['inventories'].items()}
    generation, found = util.write(
        inventories.replace_all, uuid, body['resource_provider_generation'],
        wanted, _reserved_may_equal_total(request))
    return wsgi.json_response({'inventories': found,
                               'resource_provider_generation': generation})


@util.since(mv.DELETE_ALL_INVENTORIES, status=405)
def delete_all(request, uuid):
    util.authorize(request, POLICY % 'delete')
    util.require_provider_uuid(uuid)
    util.write(inventories.delete_all, uuid)
    return wsgi.empty_response(204)


def create(request, uuid):
    util.authorize(request, POLICY % 'create')
    util.require_provider_uuid(uuid)
    body = util.json_body(request, schema.CREATE_ONE)
    values = inventories.with_defaults(body)
    class_name = body['resource_class']
    generation, values = util.write(
        inventories.add_one, uuid, class_name, values,
        _reserved_may_equal_total(request))
    location = '%s/resource_providers/%s/inventories/%s' % (
        request.script_name, uuid, class_name)
    return wsgi.json_response(
        dict(values, resource_provider_generation=generation), status=201,
        headers={'Location': location})


def show(request, uuid, resource_class):
    util.authorize(request, POLICY % 'show')
    util.require_provider_uuid(uuid)

    def fetch(connection):
        provider = providers.get(connection, uuid)
        return provider, inventories.get_one(connection, provider,
                                             resource_class)
    provider, values = util.read(fetch)
    return wsgi.json_response(
        dict(values, resource_provider_generation=provider.generation))


def update(request, uuid, resource_class):
    util.authorize(request, POLICY % 'update')
    util.require_provider_uuid(uuid)
    body = util.json_body(request, schema.UPDATE_ONE)
    generation, values = util.write(
        inventories.update_one, uuid, body['resource_provider_generation'],
        resource_class, inventories.with_defaults(body),
        _reserved_may_equal_total(request))
    return wsgi.json_response(
        dict(values, resource_provider_generation=generation))


def delete(request, uuid, resource_class):
    util.authorize(request, POLICY % 'delete')
    util.require_provider_uuid(uuid)
    util.write(inventories.delete_one, uuid, resource_class)
    return wsgi.empty_response(204)
