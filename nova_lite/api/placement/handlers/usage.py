"""/resource_providers/{uuid}/usages and /usages."""

from nova_lite.api import wsgi
from nova_lite.api.placement import microversion as mv
from nova_lite.api.placement.schemas import usage as schema
from nova_lite.api.placement import util
from nova_lite.placement import allocations
from nova_lite.placement import consumer_types
from nova_lite.placement import providers


def for_provider(request, uuid):
    util.authorize(request, 'placement:resource_providers:usages')
    util.require_provider_uuid(uuid)

    def fetch(connection):
        provider = providers.get(connection, uuid)
        return provider, allocations.provider_usages(connection,
                                                     provider.id)
    provider, usages = util.read(fetch)
    return wsgi.json_response({
        'usages': usages,
        'resource_provider_generation': provider.generation})


@util.since(mv.USAGES)
def for_project(request):
    """The usages of a project (and user): by class, and from 1.38 by
    consumer type first (``consumer_type=`` narrows it)."""
    # Who may read usages depends on the project asked about (a reader
    # of that project may), checked before the query is (as placement).
    util.authorize(request, 'placement:usages',
                   project_id=request.GET.get('project_id', ''))
    by_type = request.is_version(mv.CONSUMER_TYPES)
    query = util.validate_query(
        request, schema.USAGES_TYPE if by_type else schema.USAGES)
    if by_type:
        usages = util.read(consumer_types.usages, query['project_id'],
                           query.get('user_id'), query.get('consumer_type'))
    else:
        usages = util.read(allocations.project_usages, query['project_id'],
                           query.get('user_id'))
    return wsgi.json_response({'usages': usages})
