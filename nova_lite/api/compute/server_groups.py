"""/os-server-groups: create, list, show and delete server groups.

A group belongs to the project that created it; other projects get a 404
for it, administrators see every group. Servers join a group when they
are booted with the scheduler hint ``group`` (see ``compute.api``);
deleting a group leaves its servers alone.

Microversions: 2.13 shows ``project_id`` and ``user_id``; 2.15 allows the
soft policies; 2.64 replaces the one-item ``policies`` list with
``policy`` and ``rules`` and drops the always-empty ``metadata``.
"""

import functools
import re

from nova_lite import exception
from nova_lite import objects
from nova_lite import quota
from nova_lite.api import validation
from nova_lite.api import wsgi
from nova_lite.api.compute import common
from nova_lite.api.compute import microversion as mv
from nova_lite.api.compute.schemas import server_groups as schema
from nova_lite.objects import instance_group as group_obj

POLICY = 'os_compute_api:os-server-groups:'
_SOFT_POLICIES = (group_obj.SOFT_AFFINITY, group_obj.SOFT_ANTI_AFFINITY)
# Rules whose values are integers on the wire (stored as strings).
_INTEGER_RULES = ('max_server_per_host',)
_DIGITS = re.compile(r'^[0-9]+$')


def _rules_view(rules):
    view = {}
    for name, value in rules.items():
        if name in _INTEGER_RULES:
            try:
                value = int(value)
            except (TypeError, ValueError):
                pass
        view[name] = value
    return view


def view(request, group):
    body = {'id': group.uuid, 'name': group.name,
            'members': list(group.members)}
    if request.is_version(mv.SERVER_GROUP_POLICY):
        body['policy'] = group.policy
        body['rules'] = _rules_view(group.rules)
    else:
        body['policies'] = [group.policy]
        body['metadata'] = {}
    if request.is_version(mv.SERVER_GROUP_OWNER):
        body['project_id'] = group.project_id
        body['user_id'] = group.user_id
    return body


def _get(request, group_id, action):
    """The group ``group_id`` if the caller may ``action`` it; else 404."""
    context = request.context
    group = objects.InstanceGroup.get_by_uuid(context, group_id)
    if not context.is_admin and group.project_id != context.project_id:
        # Other projects' groups do not exist as far as the caller knows.
        raise exception.InstanceGroupNotFound(group_uuid=group_id)
    context.can(POLICY + action, {'project_id': group.project_id,
                                  'user_id': group.user_id})
    return group


def show(request, group_id):
    group = _get(request, group_id, 'show')
    return wsgi.json_response({'server_group': view(request, group)})


def delete(request, group_id):
    _get(request, group_id, 'delete').destroy()
    return wsgi.empty_response(204)


def index(request):
    context = request.context
    context.can(POLICY + 'index')
    project_id = context.project_id
    if 'all_projects' in request.GET and common.bool_param(
            request, 'all_projects', default=True):
        context.can(POLICY + 'index:all_projects')
        project_id = None
    # The Compute API pages server groups with limit and offset; marker
    # is honoured too, because openstacksdk asks for the page after the
    # last group it got (with a marker) whenever a page is full.
    limit, marker = common.paging(request)
    groups = objects.InstanceGroupList.get_all(
        context, project_id=project_id, limit=limit,
        offset=common.offset(request), marker=marker)
    return wsgi.json_response(
        {'server_groups': [view(request, g) for g in groups]})


def _explain_microversion_gates(handler):
    """Say which microversion a field or policy needs, rather than let
    the schema of the request's version call it merely unexpected."""
    @functools.wraps(handler)
    def wrapper(request, *args, **kwargs):
        document = request.json_body_or_fail()
        group = (document.get('server_group')
                 if isinstance(document, dict) else None)
        if isinstance(group, dict):
            _check_gates(request, group)
        return handler(request, *args, **kwargs)
    return wrapper


def _check_gates(request, group):
    version = request.api_version
    if request.is_version(mv.SERVER_GROUP_POLICY):
        if 'policies' in group:
            raise exception.ValidationError(
                attribute='server_group/policies',
                reason='From microversion %s a group takes "policy" (one '
                       'policy name) and optional "rules" instead of '
                       '"policies".' % mv.SERVER_GROUP_POLICY)
        return
    for name in ('policy', 'rules'):
        if name in group:
            raise exception.ValidationError(
                attribute='server_group/' + name,
                reason='"%s" needs microversion %s or later (this request '
                       'is %s); before it, send "policies": [<one '
                       'policy>].' % (name, mv.SERVER_GROUP_POLICY,
                                      version))
    policies = group.get('policies')
    if not isinstance(policies, list):
        return  # the schema explains what is wrong
    if len(policies) != 1:
        raise exception.ValidationError(
            attribute='server_group/policies',
            reason='A server group has exactly one policy; %d given.' %
                   len(policies))
    if (policies[0] in _SOFT_POLICIES and
            not request.is_version(mv.SOFT_POLICIES)):
        raise exception.ValidationError(
            attribute='server_group/policies',
            reason='The %s policy needs microversion %s or later (this '
                   'request is %s).' % (policies[0], mv.SOFT_POLICIES,
                                        version))


def _rules(policy, rules):
    """The rules as stored (strings), once they make sense."""
    if rules and policy != group_obj.ANTI_AFFINITY:
        raise exception.ValidationError(
            attribute='server_group/rules',
            reason='Rules apply only to the %s policy, not to %s.' % (
                group_obj.ANTI_AFFINITY, policy))
    stored = {}
    for name, value in rules.items():
        if name in _INTEGER_RULES:
            text = str(value).strip()
            if not _DIGITS.match(text) or int(text) < 1:
                raise exception.ValidationError(
                    attribute='server_group/rules/' + name,
                    reason='%s must be a positive integer (how many '
                           'members may share a host); got %r.' % (
                               name, value))
            value = str(int(text))
        stored[name] = value
    return stored


@_explain_microversion_gates
@validation.schema(schema.create, '2.1', '2.14')
@validation.schema(schema.create_v215, '2.15', '2.63')
@validation.schema(schema.create_v264, mv.SERVER_GROUP_POLICY)
def create(request):
    context = request.context
    context.can(POLICY + 'create')
    spec = request.json_body_or_fail()['server_group']
    if request.is_version(mv.SERVER_GROUP_POLICY):
        policy = spec['policy']
        rules = _rules(policy, spec.get('rules') or {})
    else:
        policy, rules = spec['policies'][0], {}
    group = objects.InstanceGroup(
        context, name=spec['name'], policy=policy, rules=rules,
        project_id=context.project_id, user_id=context.user_id,
        members=[])
    _check_group_quota(context)
    group.create()
    try:
        # Counted again: two creates may both have passed the first check.
        _check_group_quota(context, created=True)
    except exception.OverQuota:
        group.destroy()
        raise
    return wsgi.json_response({'server_group': view(request, group)})


def _check_group_quota(context, created=False):
    """OverQuota if one more group (or, once ``created``, the one just
    made) takes the project past its server_groups limit."""
    quota.check_deltas(context, context.project_id,
                       {'server_groups': 0 if created else 1})
