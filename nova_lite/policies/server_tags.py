"""Policy defaults of /servers/{server_id}/tags (microversion 2.26)."""

from oslo_policy import policy

from nova_lite.policies import base

PREFIX = 'os_compute_api:os-server-tags:'
_TAGS = '/servers/{server_id}/tags'
_TAG = '/servers/{server_id}/tags/{tag}'

rules = [
    policy.DocumentedRuleDefault(
        PREFIX + 'index', base.ADMIN_OR_OWNER, 'List the tags of a server.',
        [{'method': 'GET', 'path': _TAGS}]),
    policy.DocumentedRuleDefault(
        PREFIX + 'show', base.ADMIN_OR_OWNER,
        'Check whether a server has a tag.',
        [{'method': 'GET', 'path': _TAG}]),
    policy.DocumentedRuleDefault(
        PREFIX + 'update', base.ADMIN_OR_OWNER, 'Add a tag to a server.',
        [{'method': 'PUT', 'path': _TAG}]),
    policy.DocumentedRuleDefault(
        PREFIX + 'update_all', base.ADMIN_OR_OWNER,
        'Replace all the tags of a server.',
        [{'method': 'PUT', 'path': _TAGS}]),
    policy.DocumentedRuleDefault(
        PREFIX + 'delete', base.ADMIN_OR_OWNER,
        'Remove a tag from a server.',
        [{'method': 'DELETE', 'path': _TAG}]),
    policy.DocumentedRuleDefault(
        PREFIX + 'delete_all', base.ADMIN_OR_OWNER,
        'Remove all the tags of a server.',
        [{'method': 'DELETE', 'path': _TAGS}]),
]


def list_rules():
    return rules
