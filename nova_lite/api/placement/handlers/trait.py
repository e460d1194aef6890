"""/traits, /traits/{name} and /resource_providers/{uuid}/traits (1.6)."""

from nova_lite.api import validation
from nova_lite.api import wsgi
from nova_lite.api.placement import microversion as mv
from nova_lite.api.placement.schemas import trait as schema
from nova_lite.api.placement import util
from nova_lite.placement import exception
from nova_lite.placement import providers
from nova_lite.placement import traits

POLICY = 'placement:traits:%s'
PROVIDER_POLICY = 'placement:resource_providers:traits:%s'
GENERATION_CHANGED = ("Resource provider's generation already changed. "
                      "Please update the generation and try again.")


def _location(request, name):
    return {'Location': '%s/traits/%s' % (request.script_name, name)}


@util.since(mv.TRAITS)
def index(request):
    util.authorize(request, POLICY % 'list')
    unknown = set(request.GET.keys()) - {'name', 'associated'}
    if unknown:
        raise exception.BadRequest(
            reason='Invalid query string parameters: Additional properties '
                   'are not allowed (%s unexpected)' % ', '.join(
                       sorted(unknown)))
    filters = {}
    name = util.single_query_value(request, 'name')
    if name is not None:
        if name.startswith('in:'):
            filters['name_in'] = {n.strip() for n in name[3:].split(',')
                                  if n.strip()}
        elif name.startswith('startswith:'):
            filters['startswith'] = name[len('startswith:'):]
        else:
            raise exception.QueryBadValue(
                reason='Badly formatted name parameter. Expected name query '
                       'string parameter in form: '
                       '?name=[in|startswith]:[name1,name2|prefix]. '
                       'Got: "%s"' % name)
    associated = util.single_query_value(request, 'associated')
    if associated is not None:
        if associated.lower() not in ('true', 'false'):
            raise exception.QueryBadValue(
                reason='The query parameter "associated" only accepts '
                       '"true" or "false". Got: %s' % associated)
        filters['associated'] = associated.lower() == 'true'
    names = util.read(traits.list_names, **filters)
    return wsgi.json_response({'traits': names})


@util.since(mv.TRAITS)
def show(request, name):
    util.authorize(request, POLICY % 'show')
    if not util.read(traits.exists, name):
        raise exception.TraitNotFound(names=name)
    return wsgi.empty_response(204)


@util.since(mv.TRAITS)
def update(request, name):
    util.authorize(request, POLICY % 'update')
    try:
        validation.validate(schema.CUSTOM_NAME, name)
    except Exception:
        raise exception.BadRequest(
            reason="The trait is invalid. A valid trait must be no longer "
                   "than 255 characters, start with the prefix \"CUSTOM_\" "
                   "and use following characters: \"A\"-\"Z\", \"0\"-\"9\" "
                   "and \"_\"")
    created = util.write(traits.create, name)
    return wsgi.empty_response(201 if created else 204,
                               headers=_location(request, name))


@util.since(mv.TRAITS)
def delete(request, name):
    util.authorize(request, POLICY % 'delete')
    util.write(traits.delete, name)
    return wsgi.empty_response(204)


@util.since(mv.TRAITS)
def list_for_provider(request, uuid):
    util.authorize(request, PROVIDER_POLICY % 'list')
    util.require_provider_uuid(uuid)

    def fetch(connection):
        provider = providers.get(connection, uuid)
        return provider, traits.of_provider(connection, provider.id)
    provider, names = util.read(fetch)
    return wsgi.json_response({
        'traits': names,
        'resource_provider_generation': provider.generation})


@util.since(mv.TRAITS)
def set_for_provider(request, uuid):
    util.authorize(request, PROVIDER_POLICY % 'update')
    util.require_provider_uuid(uuid)
    body = util.json_body(request, schema.SET_FOR_PROVIDER)

    def replace(connection):
        provider = providers.get(connection, uuid, lock=True)
        try:
            providers.check_generation(provider,
                                       body['resource_provider_generation'])
        except exception.ConcurrentUpdate:
            raise exception.ConcurrentUpdate(reason=GENERATION_CHANGED)
        traits.set_for_provider(connection, provider.id, body['traits'])
        return (providers.bump_generation(connection, provider),
                traits.of_provider(connection, provider.id))
    generation, names = util.write(replace)
    return wsgi.json_response({'traits': names,
                               'resource_provider_generation': generation})


@util.since(mv.TRAITS)
def delete_for_provider(request, uuid):
    util.authorize(request, PROVIDER_POLICY % 'delete')
    util.require_provider_uuid(uuid)

    def clear(connection):
        provider = providers.get(connection, uuid, lock=True)
        traits.set_for_provider(connection, provider.id, [])
        providers.bump_generation(connection, provider)
    util.write(clear)
    return wsgi.empty_response(204)
