"""/os-quota-class-sets: the defaults every project's quotas start from.

There is one quota class, ``default``; its limits win over the
``[quota]`` options, and a project's own limits (os-quota-sets) win over
it. Other class names are 404. Microversions: 2.50 shows and takes
``server_groups`` and ``server_group_members``; 2.57 drops the
``injected_*`` keys, as for quota sets.
"""

from nova_lite import quota
from nova_lite.api import validation
from nova_lite.api import wsgi
from nova_lite.api.compute import microversion as mv
from nova_lite.api.compute import quota_sets
from nova_lite.api.compute.schemas import quota_sets as schema

POLICY = 'os_compute_api:os-quota-class-sets:'


def _view(request, limits):
    resources = quota.RESOURCES
    if not request.is_version(mv.QUOTA_CLASS_SERVER_GROUPS):
        resources = [r for r in resources
                     if r not in ('server_groups', 'server_group_members')]
    return quota_sets.limits_view(request, limits, resources)


def show(request, class_name):
    context = request.context
    context.can(POLICY + 'show', {'quota_class': class_name})
    body = _view(request, quota.get_class_limits(context, class_name))
    body['id'] = class_name
    return wsgi.json_response({'quota_class_set': body})


@validation.schema(schema.update_class, '2.1', '2.49')
@validation.schema(schema.update_class_v250, mv.QUOTA_CLASS_SERVER_GROUPS,
                   '2.56')
@validation.schema(schema.update_class_v257, mv.NO_PERSONALITY)
def update(request, class_name):
    context = request.context
    context.can(POLICY + 'update', {'quota_class': class_name})
    document = request.json_body_or_fail()['quota_class_set']
    limits = quota.set_class_limits(context, class_name,
                                    quota_sets.requested_limits(document))
    return wsgi.json_response({'quota_class_set': _view(request, limits)})
