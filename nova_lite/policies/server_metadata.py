"""Policy defaults of /servers/{server_id}/metadata."""

from oslo_policy import policy

from nova_lite.policies import base

PREFIX = 'os_compute_api:server-metadata:'
_ALL = '/servers/{server_id}/metadata'
_ITEM = '/servers/{server_id}/metadata/{key}'

rules = [
    policy.DocumentedRuleDefault(
        PREFIX + 'index', base.ADMIN_OR_OWNER,
        'List the metadata of a server.',
        [{'method': 'GET', 'path': _ALL}]),
    policy.DocumentedRuleDefault(
        PREFIX + 'show', base.ADMIN_OR_OWNER,
        'Show one metadata item of a server.',
        [{'method': 'GET', 'path': _ITEM}]),
    policy.DocumentedRuleDefault(
        PREFIX + 'create', base.ADMIN_OR_OWNER,
        'Add metadata items to a server (or change them).',
        [{'method': 'POST', 'path': _ALL}]),
    policy.DocumentedRuleDefault(
        PREFIX + 'update', base.ADMIN_OR_OWNER,
        'Set one metadata item of a server.',
        [{'method': 'PUT', 'path': _ITEM}]),
    policy.DocumentedRuleDefault(
        PREFIX + 'update_all', base.ADMIN_OR_OWNER,
        'Replace all the metadata of a server.',
        [{'method': 'PUT', 'path': _ALL}]),
    policy.DocumentedRuleDefault(
        PREFIX + 'delete', base.ADMIN_OR_OWNER,
        'Remove one metadata item of a server.',
        [{'method': 'DELETE', 'path': _ITEM}]),
]


def list_rules():
    return rules
