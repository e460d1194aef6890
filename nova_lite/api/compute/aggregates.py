"""/os-aggregates (admin): host aggregates and the availability zones they
make.

An aggregate is addressed by its integer id. ``POST .../action`` takes
exactly one of ``add_host``, ``remove_host`` and ``set_metadata`` (a null
value removes a key). The scheduler reads aggregates on every request, so
a change applies to the next boot.

Microversions: 2.41 shows the aggregate's ``uuid``.
"""

import functools

from nova_lite import exception
from nova_lite.api import validation
from nova_lite.api import wsgi
from nova_lite.api.compute import common
from nova_lite.api.compute import microversion as mv
from nova_lite.api.compute.schemas import aggregates as schema
from nova_lite.compute import aggregates as aggregate_api

POLICY = 'os_compute_api:os-aggregates:'
_API = aggregate_api.AggregateAPI()
# The id column is a signed 32-bit integer on MySQL.
_MAX_ID = 2 ** 31 - 1


def view(request, aggregate):
    # Aggregates are never soft-deleted; deleted and deleted_at are there
    # because clients expect them.
    body = {
        'id': aggregate.id,
        'name': aggregate.name,
        'availability_zone': aggregate.availability_zone,
        'hosts': list(aggregate.hosts),
        'metadata': dict(aggregate.metadata),
        'created_at': common.isotime(aggregate.created_at),
        'updated_at': common.isotime(aggregate.updated_at),
        'deleted_at': None,
        'deleted': False,
    }
    if request.is_version(mv.AGGREGATE_UUID):
        body['uuid'] = aggregate.uuid
    return body


def _response(request, aggregate):
    return wsgi.json_response({'aggregate': view(request, aggregate)})


def _id(aggregate_id):
    """The path's aggregate id as an integer; 404 if it cannot be one."""
    if (not aggregate_id.isascii() or not aggregate_id.isdigit() or
            int(aggregate_id) > _MAX_ID):
        raise exception.AggregateNotFound(aggregate_id=aggregate_id)
    return int(aggregate_id)


def index(request):
    request.context.can(POLICY + 'index')
    return wsgi.json_response({'aggregates': [
        view(request, a) for a in _API.get_all(request.context)]})


@validation.schema(schema.create)
def create(request):
    context = request.context
    context.can(POLICY + 'create')
    spec = request.json_body_or_fail()['aggregate']
    aggregate = _API.create(context, spec['name'],
                            spec.get('availability_zone'))
    return _response(request, aggregate)


def show(request, aggregate_id):
    request.context.can(POLICY + 'show')
    return _response(request, _API.get(request.context, _id(aggregate_id)))


@validation.schema(schema.update)
def update(request, aggregate_id):
    context = request.context
    context.can(POLICY + 'update')
    values = request.json_body_or_fail()['aggregate']
    return _response(request,
                     _API.update(context, _id(aggregate_id), values))


def delete(request, aggregate_id):
    request.context.can(POLICY + 'delete')
    _API.delete(request.context, _id(aggregate_id))
    # The Compute API answers 200 (not 204) to this delete.
    return wsgi.empty_response(200)


def _one_action(handler):
    """Say which actions there are when the body names none or several,
    rather than let the schema count properties."""
    @functools.wraps(handler)
    def wrapper(request, *args, **kwargs):
        document = request.json_body_or_fail()
        if isinstance(document, dict) and len(document) != 1:
            raise exception.ValidationError(
                attribute='request body',
                reason='An aggregate action is exactly one of %s; %d '
                       'given (%s).' % (', '.join(schema.ACTIONS),
                                        len(document),
                                        ', '.join(sorted(document)) or
                                        'none'))
        return handler(request, *args, **kwargs)
    return wrapper


@_one_action
@validation.schema(schema.action)
def action(request, aggregate_id):
    context = request.context
    (name, argument), = request.json_body_or_fail().items()
    context.can(POLICY + name)
    aggregate_id = _id(aggregate_id)
    if name == 'add_host':
        aggregate = _API.add_host(context, aggregate_id, argument['host'])
    elif name == 'remove_host':
        aggregate = _API.remove_host(context, aggregate_id,
                                     argument['host'])
    else:
        aggregate = _API.update_metadata(context, aggregate_id,
                                         argument['metadata'])
    return _response(request, aggregate)
