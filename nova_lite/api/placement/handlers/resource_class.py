"""/resource_classes and /resource_classes/{name} (1.2)."""

from nova_lite.api import wsgi
from nova_lite.api.placement import microversion as mv
from nova_lite.api.placement.schemas import resource_class as schema
from nova_lite.api.placement import util
from nova_lite.placement import exception
from nova_lite.placement import resource_classes

POLICY = 'placement:resource_classes:%s'


def _url(request, name):
    return '%s/resource_classes/%s' % (request.script_name, name)


def _view(request, name):
    return {'name': name, 'links': [{'rel': 'self',
                                     'href': _url(request, name)}]}


@util.since(mv.RESOURCE_CLASSES)
def index(request):
    util.authorize(request, POLICY % 'list')
    names = util.read(resource_classes.all_names)
    return wsgi.json_response({'resource_classes': [
        _view(request, name) for name in names]})


@util.since(mv.RESOURCE_CLASSES)
def create(request):
    util.authorize(request, POLICY % 'create')
    body = util.json_body(request, schema.CREATE)
    util.write(resource_classes.create, body['name'])
    return wsgi.empty_response(201, headers={
        'Location': _url(request, body['name'])})


@util.since(mv.RESOURCE_CLASSES)
def show(request, name):
    util.authorize(request, POLICY % 'show')
    if not util.read(resource_classes.exists, name):
        raise exception.ResourceClassNotFound(name=name)
    return wsgi.json_response(_view(request, name))


@util.since(mv.RESOURCE_CLASSES)
def update(request, name):
    """Before 1.7 a rename of a custom class (200 with the class); from
    1.7 "make sure it exists" (201 made, 204 there already)."""
    util.authorize(request, POLICY % 'update')
    if not request.is_version(mv.RESOURCE_CLASS_PUT_CREATES):
        body = util.json_body(request, schema.RENAME)
        util.write(resource_classes.rename, name, body['name'])
        return wsgi.json_response(_view(request, body['name']))
    # Checked as a body would be, so that the refusal reads the same.
    util.validate_as_body(schema.CREATE, {'name': name})

    def ensure(connection):
        if resource_classes.exists(connection, name):
            return False
        resource_classes.create(connection, name)
        return True
    created = util.write(ensure)
    return wsgi.empty_response(201 if created else 204,
                               headers={'Location': _url(request, name)})


@util.since(mv.RESOURCE_CLASSES)
def delete(request, name):
    util.authorize(request, POLICY % 'delete')
    util.write(resource_classes.delete, name)
    return wsgi.empty_response(204)
