"""/servers/{server_id}/metadata: list, show, add, replace, set and remove
the metadata items of a server.

As in Nova: POST merges the items into the server's, PUT of the whole map
replaces it (both answer 200 with the server's metadata now), PUT of an
item names exactly that item in its body (400 otherwise) and answers it,
DELETE of an item answers 204. A server has at most ``[quota]
metadata_items`` items (403 past it). The metadata of a server that is
being built, moved or deleted, or in ERROR, cannot change (409), nor that
of a locked server but by an administrator (409).
"""

from nova_lite import exception
from nova_lite.api import validation
from nova_lite.api import wsgi
from nova_lite.api.compute import servers
from nova_lite.api.compute.schemas import server_metadata as schema

POLICY = 'os_compute_api:server-metadata:'


def _server(request, server_id, rule):
    """The server, once policy allows ``rule``."""
    instance = servers._compute_api().get(request.context, server_id)
    request.context.can(POLICY + rule, {'project_id': instance.project_id,
                                        'user_id': instance.user_id})
    return instance


def index(request, server_id):
    instance = _server(request, server_id, 'index')
    return wsgi.json_response({'metadata': dict(instance.metadata)})


def show(request, server_id, key):
    instance = _server(request, server_id, 'show')
    if key not in instance.metadata:
        raise exception.InstanceMetadataNotFound(instance_uuid=instance.uuid,
                                                 key=key)
    return wsgi.json_response({'meta': {key: instance.metadata[key]}})


@validation.schema(schema.metadata)
def create(request, server_id):
    instance = _server(request, server_id, 'create')
    metadata = servers._compute_api().set_metadata(
        request.context, instance, request.json_body_or_fail()['metadata'])
    return wsgi.json_response({'metadata': metadata})


@validation.schema(schema.metadata)
def update_all(request, server_id):
    instance = _server(request, server_id, 'update_all')
    metadata = servers._compute_api().set_metadata(
        request.context, instance, request.json_body_or_fail()['metadata'],
        replace=True)
    return wsgi.json_response({'metadata': metadata})


@validation.schema(schema.meta)
def update(request, server_id, key):
    instance = _server(request, server_id, 'update')
    item = request.json_body_or_fail()['meta']
    if key not in item:
        raise exception.ValidationError(
            attribute='meta',
            reason='Request body and URI mismatch: the body sets %s, the '
                   'URI names %s.' % (', '.join(sorted(item)), key))
    servers._compute_api().set_metadata(request.context, instance, item)
    return wsgi.json_response({'meta': item})


def delete(request, server_id, key):
    instance = _server(request, server_id, 'delete')
    servers._compute_api().delete_metadata(request.context, instance, key)
    return wsgi.empty_response(204)
