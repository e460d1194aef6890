"""Policy defaults of /os-server-groups.

A group belongs to the project that created it: show and delete are
checked against the group's project, so a member of another project (not
an administrator) cannot reach it.
"""

from oslo_policy import policy

from nova_lite.policies import base

PREFIX = 'os_compute_api:os-server-groups:'

rules = [
    policy.DocumentedRuleDefault(
        PREFIX + 'create', base.ADMIN_OR_OWNER,
        'Create a server group in the caller\'s project.',
        [{'method': 'POST', 'path': '/os-server-groups'}]),
    policy.DocumentedRuleDefault(
        PREFIX + 'index', base.ADMIN_OR_OWNER,
        'List the server groups of the caller\'s project.',
        [{'method': 'GET', 'path': '/os-server-groups'}]),
    policy.DocumentedRuleDefault(
        PREFIX + 'index:all_projects', base.ADMIN_API,
        'List the server groups of every project (all_projects=True).',
        [{'method': 'GET', 'path': '/os-server-groups'}]),
    policy.DocumentedRuleDefault(
        PREFIX + 'show', base.ADMIN_OR_OWNER, 'Show a server group.',
        [{'method': 'GET', 'path': '/os-server-groups/{server_group_id}'}]),
    policy.DocumentedRuleDefault(
        PREFIX + 'delete', base.ADMIN_OR_OWNER,
        'Delete a server group (its servers stay).',
        [{'method': 'DELETE',
          'path': '/os-server-groups/{server_group_id}'}]),
]


def list_rules():
    return rules
