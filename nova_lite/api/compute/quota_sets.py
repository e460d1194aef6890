"""/os-quota-sets: the quota limits of a project, and its usage.

A project's limits are its own where an administrator set them (PUT),
else the defaults (the ``default`` quota class, else ``[quota]``); DELETE
forgets its own. Project ids are not checked against an identity
service: an unknown project has the defaults. Limits are per project
only: ``?user_id=`` (per-user quotas) is refused.

Resources: instances, cores, ram, server_groups, server_group_members,
key_pairs (settable), and ``metadata_items`` and, before 2.57,
``injected_files``, ``injected_file_content_bytes`` and
``injected_file_path_bytes``, which the operator sets in ``[quota]``:
a PUT may repeat their value but not change it. Network-era keys
(floating_ips, security_groups, ...) are never shown.

``detail`` shows ``in_use`` (servers counted in every cell and while
being scheduled; key pairs are those of the caller, and only in the
caller's own project; server group members, counted per group, show 0)
and ``reserved`` (always 0: nothing is reserved ahead).
"""

from nova_lite import exception
from nova_lite import quota
from nova_lite.api import validation
from nova_lite.api import wsgi
from nova_lite.api.compute import microversion as mv
from nova_lite.api.compute.schemas import quota_sets as schema

POLICY = 'os_compute_api:os-quota-sets:'
_INJECTED = ('injected_files', 'injected_file_content_bytes',
             'injected_file_path_bytes')
_TRUE = ('true', '1', 'yes', 'on')
# What the hard_limit column holds.
_MAX_LIMIT = 2 ** 31 - 1


def shown_resources(request, resources=quota.RESOURCES):
    """``resources`` and the config-only ones the request's microversion
    shows, in a stable order."""
    shown = list(resources) + ['metadata_items']
    if not request.is_version(mv.NO_PERSONALITY):
        shown += list(_INJECTED)
    return shown


def limits_view(request, limits, resources=quota.RESOURCES):
    """{resource: limit} of what the request's microversion shows."""
    every = dict(quota.config_only_limits(), **limits)
    return {resource: every[resource]
            for resource in shown_resources(request, resources)}


def _refuse_per_user(request):
    if 'user_id' in request.GET:
        raise exception.ValidationError(
            attribute='user_id',
            reason='Quotas are set per project here, not per user; leave '
                   'out user_id.')


def requested_limits(document):
    """{resource: int} from a validated quota (class) set body, without
    ``force``; a config-only resource may only repeat its value."""
    config_only = quota.config_only_limits()
    limits = {}
    for resource, value in document.items():
        if resource == 'force':
            continue
        value = int(value)
        if not quota.UNLIMITED <= value <= _MAX_LIMIT:
            raise exception.ValidationError(
                attribute=resource,
                reason='A limit is from -1 (no limit) to %d; got %d.' % (
                    _MAX_LIMIT, value))
        if resource in config_only:
            if value != config_only[resource]:
                raise exception.ValidationError(
                    attribute=resource,
                    reason='%s is set by the operator ([quota] %s = %d in '
                           'the configuration), not through the API.' % (
                               resource, resource, config_only[resource]))
            continue
        limits[resource] = value
    return limits


def _force(document):
    force = document.get('force', False)
    if isinstance(force, str):
        return force.strip().lower() in _TRUE
    return bool(force)


def show(request, project_id):
    context = request.context
    context.can(POLICY + 'show', {'project_id': project_id})
    _refuse_per_user(request)
    body = limits_view(request, quota.get_limits(context, project_id))
    body['id'] = project_id
    return wsgi.json_response({'quota_set': body})


def detail(request, project_id):
    context = request.context
    context.can(POLICY + 'detail', {'project_id': project_id})
    _refuse_per_user(request)
    limits = limits_view(request, quota.get_limits(context, project_id))
    # Key pairs are counted per user: only the caller's own are known to
    # belong to this project.
    user_id = (context.user_id if project_id == context.project_id
               else None)
    usage = quota.count_usage(context, project_id, user_id=user_id)
    body = {resource: {'limit': limit, 'in_use': usage.get(resource, 0),
                       'reserved': 0}
            for resource, limit in limits.items()}
    body['id'] = project_id
    return wsgi.json_response({'quota_set': body})


def defaults(request, project_id):
    context = request.context
    context.can(POLICY + 'defaults', {'project_id': project_id})
    body = limits_view(request, quota.default_limits(context))
    body['id'] = project_id
    return wsgi.json_response({'quota_set': body})


@validation.schema(schema.update, '2.1', '2.56')
@validation.schema(schema.update_v257, mv.NO_PERSONALITY)
def update(request, project_id):
    context = request.context
    context.can(POLICY + 'update', {'project_id': project_id})
    _refuse_per_user(request)
    document = request.json_body_or_fail()['quota_set']
    limits = quota.set_project_limits(
        context, project_id, requested_limits(document),
        force=_force(document))
    return wsgi.json_response({'quota_set': limits_view(request, limits)})


def delete(request, project_id):
    context = request.context
    context.can(POLICY + 'delete', {'project_id': project_id})
    _refuse_per_user(request)
    quota.reset_project_limits(context, project_id)
    return wsgi.empty_response(202)
