"""/resource_providers/{uuid}/usages and /usages."""

from nova_lite.api import wsgi
from nova_lite.api.placement import microversion as mv
from nova_lite.api.placement import util
from nova_lite.placement import allocations
from nova_lite.placement import exception
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
    # Who may read usages depends on the project asked about (a reader
    # of that project may), checked before the query is (as placement).
    util.authorize(request, 'placement:usages',
                   project_id=request.GET.get('project_id', ''))
    unknown = set(request.GET.keys()) - {'project_id', 'user_id'}
    if unknown:
        raise exception.BadRequest(
            reason='Invalid query string parameters: Additional properties '
                   'are not allowed (%s unexpected)' % ', '.join(
                       sorted(unknown)))
    project_id = util.single_query_value(request, 'project_id')
    if not project_id:
        raise exception.QueryMissingValue(
            reason="Invalid query string parameters: 'project_id' is a "
                   "required property")
    user_id = util.single_query_value(request, 'user_id')
    usages = util.read(allocations.project_usages, project_id, user_id)
    return wsgi.json_response({'usages': usages})
