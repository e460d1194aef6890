"""/servers/{server_id}/tags: list, check, add, replace and remove the
tags of a server (microversion 2.26; before it these paths are 404).

Adding a tag answers 201 with its Location, or 204 if the server had it;
a server that is still being scheduled cannot have its tags changed (409).
"""

from urllib import parse

from nova_lite import exception
from nova_lite.api import validation
from nova_lite.api import wsgi
from nova_lite.api.compute import common
from nova_lite.api.compute import microversion as mv
from nova_lite.api.compute.schemas import server_tags as schema
from nova_lite.compute import api as compute_api
from nova_lite.compute import server_tags as tags_api

POLICY = 'os_compute_api:os-server-tags:'
_API = compute_api.API()


def _server(request, server_id, rule):
    """The server, once the microversion and policy allow ``rule``."""
    if not request.is_version(mv.TAGS_SHOWN):
        raise exception.NotFound('The resource could not be found.')
    instance = _API.get(request.context, server_id)
    request.context.can(POLICY + rule, {'project_id': instance.project_id,
                                        'user_id': instance.user_id})
    return instance


def _check_tag(tag):
    try:
        validation.validate(schema.TAG, tag)
    except exception.ValidationError:
        raise exception.ValidationError(
            attribute='tag',
            reason='Tag %r is invalid: a tag is 1 to 60 characters, '
                   'without "/" or ",".' % tag)


def index(request, server_id):
    instance = _server(request, server_id, 'index')
    return wsgi.json_response({'tags': list(instance.tags)})


@validation.schema(schema.update_all, mv.TAGS_SHOWN)
def update_all(request, server_id):
    instance = _server(request, server_id, 'update_all')
    tags = tags_api.replace(request.context, instance,
                            request.json_body_or_fail()['tags'])
    return wsgi.json_response({'tags': tags})


def delete_all(request, server_id):
    instance = _server(request, server_id, 'delete_all')
    tags_api.remove_all(request.context, instance)
    return wsgi.empty_response(204)


def show(request, server_id, tag):
    instance = _server(request, server_id, 'show')
    if tag not in instance.tags:
        raise exception.InstanceTagNotFound(instance_uuid=instance.uuid,
                                            tag=tag)
    return wsgi.empty_response(204)


def update(request, server_id, tag):
    instance = _server(request, server_id, 'update')
    _check_tag(tag)
    if not tags_api.add(request.context, instance, tag):
        return wsgi.empty_response(204)
    location = common.links(request, 'servers/%s/tags' % instance.uuid,
                            parse.quote(tag, safe=''))[0]['href']
    return wsgi.empty_response(201, headers={'Location': location})


def delete(request, server_id, tag):
    instance = _server(request, server_id, 'delete')
    tags_api.remove(request.context, instance, tag)
    return wsgi.empty_response(204)
