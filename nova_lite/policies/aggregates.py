"""Policy defaults of /os-aggregates: host aggregates are for
administrators only."""

from oslo_policy import policy

from nova_lite.policies import base

PREFIX = 'os_compute_api:os-aggregates:'
_ACTION = '/os-aggregates/{aggregate_id}/action'

rules = [
    policy.DocumentedRuleDefault(
        PREFIX + 'index', base.ADMIN_API, 'List host aggregates.',
        [{'method': 'GET', 'path': '/os-aggregates'}]),
    policy.DocumentedRuleDefault(
        PREFIX + 'create', base.ADMIN_API,
        'Create a host aggregate, optionally an availability zone.',
        [{'method': 'POST', 'path': '/os-aggregates'}]),
    policy.DocumentedRuleDefault(
        PREFIX + 'show', base.ADMIN_API, 'Show a host aggregate.',
        [{'method': 'GET', 'path': '/os-aggregates/{aggregate_id}'}]),
    policy.DocumentedRuleDefault(
        PREFIX + 'update', base.ADMIN_API,
        'Rename a host aggregate or change its availability zone.',
        [{'method': 'PUT', 'path': '/os-aggregates/{aggregate_id}'}]),
    policy.DocumentedRuleDefault(
        PREFIX + 'delete', base.ADMIN_API,
        'Delete a host aggregate that has no hosts.',
        [{'method': 'DELETE', 'path': '/os-aggregates/{aggregate_id}'}]),
    policy.DocumentedRuleDefault(
        PREFIX + 'add_host', base.ADMIN_API,
        'Add a compute host to a host aggregate.',
        [{'method': 'POST', 'path': _ACTION + ' (add_host)'}]),
    policy.DocumentedRuleDefault(
        PREFIX + 'remove_host', base.ADMIN_API,
        'Remove a host from a host aggregate.',
        [{'method': 'POST', 'path': _ACTION + ' (remove_host)'}]),
    policy.DocumentedRuleDefault(
        PREFIX + 'set_metadata', base.ADMIN_API,
        'Set or remove metadata of a host aggregate (availability_zone '
        'among them).',
        [{'method': 'POST', 'path': _ACTION + ' (set_metadata)'}]),
]


def list_rules():
    return rules
