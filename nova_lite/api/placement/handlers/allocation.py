"""/allocations/{consumer_uuid}, POST /allocations and
/resource_providers/{uuid}/allocations."""

import uuid

from oslo_utils import uuidutils

from nova_lite.api import wsgi
from nova_lite.api.placement import microversion as mv
from nova_lite.api.placement.schemas import allocation as schema
from nova_lite.api.placement import util
from nova_lite.placement import allocations
from nova_lite.placement import consumer_types
from nova_lite.placement import exception
from nova_lite.placement import providers

POLICY = 'placement:allocations:%s'


def _require_consumer_uuid(consumer_uuid):
    if not uuidutils.is_uuid_like(consumer_uuid):
        raise exception.BadRequest(
            reason='Malformed consumer_uuid: %s' % consumer_uuid)


def list_for_consumer(request, consumer_uuid):
    util.authorize(request, POLICY % 'list')
    _require_consumer_uuid(consumer_uuid)

    def fetch(connection):
        consumer, found = allocations.of_consumer(connection, consumer_uuid)
        type_name = None if consumer is None else consumer_types.name_of(
            connection, consumer.consumer_type_id)
        return consumer, found, type_name
    consumer, found, type_name = util.read(fetch)
    body = {'allocations': found}
    if consumer is not None:
        if request.is_version(mv.ALLOCATIONS_DICT):
            body['project_id'] = consumer.project_id
            body['user_id'] = consumer.user_id
        if request.is_version(mv.CONSUMER_GENERATION):
            body['consumer_generation'] = consumer.generation
        if request.is_version(mv.CONSUMER_TYPES):
            body['consumer_type'] = type_name
    return wsgi.json_response(body)


def _consumer_request(request, consumer_uuid, body):
    """A ConsumerAllocations from one consumer's part of a body."""
    if isinstance(body['allocations'], list):
        wanted = {}
        for item in body['allocations']:
            rp_uuid = item['resource_provider']['uuid']
            wanted.setdefault(rp_uuid, {}).update(item['resources'])
    else:
        wanted = {rp_uuid: dict(entry['resources'])
                  for rp_uuid, entry in body['allocations'].items()}
    generation = allocations.SKIP_GENERATION_CHECK
    if request.is_version(mv.CONSUMER_GENERATION):
        generation = body['consumer_generation']
    return allocations.ConsumerAllocations(
        consumer_uuid, wanted, body.get('project_id'), body.get('user_id'),
        generation, body.get('consumer_type'))


_PUT_SCHEMAS = ((mv.CONSUMER_TYPES, schema.PUT_DICT_TYPE),
                (mv.MAPPINGS, schema.PUT_DICT_MAPPINGS),
                (mv.CONSUMER_GENERATION, schema.PUT_DICT_GENERATION),
                (mv.ALLOCATIONS_DICT, schema.PUT_DICT),
                (mv.CONSUMER_OWNER_REQUIRED, schema.PUT_LIST_OWNED))
_POST_SCHEMAS = ((mv.CONSUMER_TYPES, schema.POST_TYPE),
                 (mv.MAPPINGS, schema.POST_MAPPINGS),
                 (mv.CONSUMER_GENERATION, schema.POST_GENERATION))


def replace(request, consumer_uuid):
    util.authorize(request, POLICY % 'update')
    _require_consumer_uuid(consumer_uuid)
    # A consumer named without dashes is the same consumer.
    consumer_uuid = str(uuid.UUID(consumer_uuid))
    body = util.json_body(request, util.by_version(
        request, _PUT_SCHEMAS, schema.PUT_LIST))
    wanted = _consumer_request(request, consumer_uuid, body)
    try:
        util.write(allocations.claim, wanted)
    except allocations.NotAQuickClaim:
        util.write(allocations.replace, [wanted])
    return wsgi.empty_response(204)


@util.since(mv.POST_ALLOCATIONS)
def manage(request):
    util.authorize(request, POLICY % 'manage')
    body = util.json_body(request, util.by_version(
        request, _POST_SCHEMAS, schema.POST))
    wanted = [_consumer_request(request, consumer_uuid, part)
              for consumer_uuid, part in sorted(body.items())]
    util.write(allocations.replace, wanted)
    return wsgi.empty_response(204)


def delete(request, consumer_uuid):
    util.authorize(request, POLICY % 'delete')
    _require_consumer_uuid(consumer_uuid)
    util.write(allocations.delete, consumer_uuid)
    return wsgi.empty_response(204)


def list_for_provider(request, uuid):
    util.authorize(request, 'placement:resource_providers:allocations:list')
    util.require_provider_uuid(uuid)

    def fetch(connection):
        provider = providers.get(connection, uuid)
        return provider, allocations.of_provider(connection, provider.id)
    provider, found = util.read(fetch)
    return wsgi.json_response({
        'allocations': found,
        'resource_provider_generation': provider.generation})
