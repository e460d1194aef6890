"""/v2.0/{networks,ports}/{id}/tags: the tags of a network or a port (the
standard-attr-tag extension). Reading them needs permission to see the
resource; changing them, permission to update it."""

from nova_lite.api import wsgi
from nova_lite.api.network.handlers import networks as network_handlers
from nova_lite.api.network.handlers import ports as port_handlers
from nova_lite.api.network import schemas
from nova_lite.api.network import util
from nova_lite.network import db
from nova_lite.network import exception
from nova_lite.network import tags

REPLACE = {'type': 'object',
           'properties': {'tags': schemas.TAGS},
           'required': ['tags'], 'additionalProperties': False}


class TagsOf:
    """The tag handlers of one kind of resource."""

    def __init__(self, resource, get_visible, target, update_action):
        self.resource = resource
        self.get_visible = get_visible
        self.target = target
        self.update_action = update_action

    def _visible(self, request, connection, resource_id, change=False):
        item = self.get_visible(request, connection, resource_id)
        if change:
            util.authorize(request, self.update_action, self.target(item))
        return item

    def index(self, request, resource_id):
        def fetch(connection):
            self._visible(request, connection, resource_id)
            return tags.get(connection, self.resource, resource_id)
        return wsgi.json_response({'tags': db.read(fetch)})

    def show(self, request, resource_id, tag):
        def fetch(connection):
            self._visible(request, connection, resource_id)
            return tags.get(connection, self.resource, resource_id)
        if tag not in db.read(fetch):
            raise exception.NotFound(
                reason='Tag %s could not be found for %s %s.' % (
                    tag, self.resource[:-1], resource_id))
        return wsgi.empty_response(204)

    def replace_all(self, request, resource_id):
        document = util.body(request, 'tags', REPLACE)

        def change(connection):
            self._visible(request, connection, resource_id, change=True)
            return tags.replace(connection, self.resource, resource_id,
                                document)
        return wsgi.json_response({'tags': db.write(change)})

    def add(self, request, resource_id, tag):
        def change(connection):
            self._visible(request, connection, resource_id, change=True)
            tags.add(connection, self.resource, resource_id, tag)
        db.write(change)
        return wsgi.empty_response(201)

    def remove(self, request, resource_id, tag):
        def change(connection):
            self._visible(request, connection, resource_id, change=True)
            tags.remove(connection, self.resource, resource_id, tag)
        db.write(change)
        return wsgi.empty_response(204)

    def remove_all(self, request, resource_id):
        def change(connection):
            self._visible(request, connection, resource_id, change=True)
            tags.replace(connection, self.resource, resource_id, [])
        db.write(change)
        return wsgi.empty_response(204)


NETWORKS = TagsOf('networks', network_handlers.get_visible,
                  network_handlers.target, 'update_network')
PORTS = TagsOf('ports', port_handlers.get_visible, port_handlers.target,
               'update_port')
