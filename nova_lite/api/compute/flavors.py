"""/flavors: list, show, and (admin) create, update and delete.

Microversions: 2.55 adds ``description`` (taken at create, changed with
``PUT``, shown everywhere); 2.61 embeds ``extra_specs`` in the full flavor
document for callers allowed to read them.
"""

from oslo_utils import uuidutils

from nova_lite import exception
from nova_lite import objects
from nova_lite.api import validation
from nova_lite.api import wsgi
from nova_lite.api.compute import common
from nova_lite.api.compute import microversion as mv
from nova_lite.api.compute.schemas import flavors as schema

POLICY = 'os_compute_api:'
_SORT_KEYS = {'flavorid', 'name', 'memory_mb', 'vcpus', 'root_gb',
              'ephemeral_gb', 'swap', 'rxtx_factor', 'id', 'created_at'}
_SORT_ALIASES = {'ram': 'memory_mb', 'disk': 'root_gb'}


def _brief(request, flavor):
    body = {'id': flavor.flavorid, 'name': flavor.name,
            'links': common.links(request, 'flavors', flavor.flavorid)}
    if request.is_version(mv.FLAVOR_DESCRIPTION):
        body['description'] = flavor.description
    return body


def view(request, flavor):
    body = _brief(request, flavor)
    body.update({
        'ram': flavor.memory_mb,
        'vcpus': flavor.vcpus,
        'disk': flavor.root_gb,
        'OS-FLV-EXT-DATA:ephemeral': flavor.ephemeral_gb,
        'swap': flavor.swap or '',
        'rxtx_factor': flavor.rxtx_factor,
        'os-flavor-access:is_public': flavor.is_public,
        'OS-FLV-DISABLED:disabled': flavor.disabled,
    })
    if request.is_version(mv.FLAVOR_EXTRA_SPECS) and request.context.can(
            POLICY + 'os-flavor-extra-specs:index', fatal=False):
        body['extra_specs'] = dict(flavor.extra_specs)
    return body


def _is_public_filter(request):
    """What ``is_public`` asks for; only admins may see private flavors.

    ``none`` (any case, as openstacksdk sends ``None``) means public and
    private together.
    """
    context = request.context
    value = request.GET.get('is_public')
    may_see_private = context.can(POLICY + 'os-flavor-access', fatal=False)
    if not may_see_private:
        return True, context.project_id
    if value is None:
        return True, None
    if value.strip().lower() == 'none':
        return None, None
    return common.bool_param(request, 'is_public'), None


def _int_param(request, name):
    value = request.GET.get(name)
    if value is None:
        return None
    try:
        number = int(value)
    except ValueError:
        raise exception.ValidationError(attribute=name,
                                        reason='%r is not an integer.' % value)
    if abs(number) > common.MAX_INT:
        raise exception.ValidationError(
            attribute=name, reason='%s is out of range: at most %d.' % (
                value, common.MAX_INT))
    return number


def _list(request):
    request.context.can(POLICY + 'flavors:index')
    limit, marker = common.paging(request)
    is_public, project_id = _is_public_filter(request)
    sort_key = request.GET.get('sort_key', 'flavorid')
    sort_key = _SORT_ALIASES.get(sort_key, sort_key)
    if sort_key not in _SORT_KEYS:
        raise exception.ValidationError(
            attribute='sort_key', reason='%s is not a sort key.' % sort_key)
    sort_dir = request.GET.get('sort_dir', 'asc')
    if sort_dir not in ('asc', 'desc'):
        raise exception.ValidationError(
            attribute='sort_dir', reason='sort_dir must be asc or desc.')
    try:
        return limit, objects.FlavorList.get_all(
            request.context, is_public=is_public, project_id=project_id,
            min_memory_mb=_int_param(request, 'minRam'),
            min_disk=_int_param(request, 'minDisk'), sort_key=sort_key,
            sort_dir=sort_dir, limit=limit, marker=marker)
    except exception.Invalid as e:
        raise exception.MarkerNotFound(marker=marker) if marker else e


def index(request):
    limit, flavors = _list(request)
    body = {'flavors': [_brief(request, f) for f in flavors]}
    _add_next(request, body, flavors, limit)
    return wsgi.json_response(body)


def detail(request):
    limit, flavors = _list(request)
    body = {'flavors': [view(request, f) for f in flavors]}
    _add_next(request, body, flavors, limit)
    return wsgi.json_response(body)


def _add_next(request, body, flavors, limit):
    next_links = common.next_link(request, 'flavors', flavors, limit,
                                  flavors[-1].flavorid if flavors else None)
    if next_links:
        body['flavors_links'] = next_links


def accessible(context, flavor):
    """Whether the caller may see and use ``flavor``: a public one, or a
    private one its project was given access to; administrators see all.
    Nova answers the others as if they did not exist."""
    return (flavor.is_public or context.project_id in flavor.projects or
            context.can(POLICY + 'os-flavor-access', fatal=False))


def _get(request, flavor_id):
    flavor = objects.Flavor.get_by_flavor_id(request.context, flavor_id)
    if not accessible(request.context, flavor):
        raise exception.FlavorNotFound(flavor_id=flavor_id)
    return flavor


def show(request, flavor_id):
    request.context.can(POLICY + 'flavors:index')
    return wsgi.json_response({'flavor': view(request,
                                              _get(request, flavor_id))})


@validation.schema(schema.create, '2.1', '2.54')
@validation.schema(schema.create_v255, mv.FLAVOR_DESCRIPTION)
def create(request):
    context = request.context
    context.can(POLICY + 'os-flavor-manage:create')
    spec = request.json_body_or_fail()['flavor']
    flavor = objects.Flavor(
        context,
        flavorid=spec.get('id') or uuidutils.generate_uuid(),
        name=spec['name'].strip(),
        memory_mb=int(spec['ram']),
        vcpus=int(spec['vcpus']),
        root_gb=int(spec['disk']),
        ephemeral_gb=int(spec.get('OS-FLV-EXT-DATA:ephemeral') or 0),
        swap=int(spec.get('swap') or 0),
        rxtx_factor=float(spec.get('rxtx_factor') or 1.0),
        is_public=spec.get('os-flavor-access:is_public', True),
        disabled=False, description=spec.get('description'))
    flavor.create()
    return wsgi.json_response({'flavor': view(request, flavor)})


@validation.schema(schema.update_v255, mv.FLAVOR_DESCRIPTION)
def update(request, flavor_id):
    if not request.is_version(mv.FLAVOR_DESCRIPTION):
        # The method does not exist before 2.55; the Compute API answers
        # that with a 404.
        raise exception.NotFound(
            'PUT /flavors/{flavor_id} (changing a flavor\'s description) '
            'needs microversion %s or later; this request is %s.' %
            (mv.FLAVOR_DESCRIPTION, request.api_version))
    request.context.can(POLICY + 'os-flavor-manage:update')
    flavor = _get(request, flavor_id)
    flavor.description = request.json_body_or_fail()['flavor'][
        'description']
    flavor.save()
    return wsgi.json_response({'flavor': view(request, flavor)})


def delete(request, flavor_id):
    request.context.can(POLICY + 'os-flavor-manage:delete')
    _get(request, flavor_id).destroy()
    return wsgi.empty_response(202)


def extra_specs(request, flavor_id):
    request.context.can(POLICY + 'os-flavor-extra-specs:index')
    return wsgi.json_response(
        {'extra_specs': dict(_get(request, flavor_id).extra_specs)})
