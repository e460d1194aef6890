"""/resource_providers/{uuid}/aggregates (1.1)."""

from nova_lite.api import wsgi
from nova_lite.api.placement import microversion as mv
from nova_lite.api.placement.schemas import aggregate as schema
from nova_lite.api.placement import util
from nova_lite.placement import aggregates
from nova_lite.placement import providers

POLICY = 'placement:resource_providers:aggregates:%s'


def _body(request, uuids, generation):
    body = {'aggregates': uuids}
    if request.is_version(mv.AGGREGATES_GENERATION):
        body['resource_provider_generation'] = generation
    return wsgi.json_response(body)


@util.since(mv.AGGREGATES)
def index(request, uuid):
    util.authorize(request, POLICY % 'list')
    util.require_provider_uuid(uuid)

    def fetch(connection):
        provider = providers.get(connection, uuid)
        return provider, aggregates.of_provider(connection, provider.id)
    provider, uuids = util.read(fetch)
    return _body(request, uuids, provider.generation)


@util.since(mv.AGGREGATES)
def update(request, uuid):
    util.authorize(request, POLICY % 'update')
    util.require_provider_uuid(uuid)
    # An unknown provider is 404 whatever the body, as in OpenStack
    # Placement.
    util.read(providers.get, uuid)
    with_generation = request.is_version(mv.AGGREGATES_GENERATION)
    body = util.json_body(request, schema.SET_GENERATION if with_generation
                          else schema.SET_LIST)
    wanted = body['aggregates'] if with_generation else body

    def replace(connection):
        provider = providers.get(connection, uuid, lock=True)
        if with_generation:
            providers.check_generation(provider,
                                       body['resource_provider_generation'])
        aggregates.set_for_provider(connection, provider.id, wanted)
        return providers.bump_generation(connection, provider)
    generation = util.write(replace)
    # The aggregates as the request listed them.
    return _body(request, wanted, generation)
