"""Policy defaults of resize and cold migration, and of what ends them
(confirmResize, revertResize)."""

from oslo_policy import policy

from nova_lite.policies import base

PREFIX = 'os_compute_api:servers:'

rules = [
    policy.DocumentedRuleDefault(
        PREFIX + 'resize', base.ADMIN_OR_OWNER,
        'Resize a server to another flavor.',
        [{'method': 'POST', 'path': '/servers/{server_id}/action (resize)'}]),
    policy.DocumentedRuleDefault(
        PREFIX + 'confirm_resize', base.ADMIN_OR_OWNER,
        'Confirm a resize or cold migration (VERIFY_RESIZE): the server '
        'stays where it went.',
        [{'method': 'POST',
          'path': '/servers/{server_id}/action (confirmResize)'}]),
    policy.DocumentedRuleDefault(
        PREFIX + 'revert_resize', base.ADMIN_OR_OWNER,
        'Revert a resize or cold migration (VERIFY_RESIZE): the server goes '
        'back where it was, at its old flavor.',
        [{'method': 'POST',
          'path': '/servers/{server_id}/action (revertResize)'}]),
    policy.DocumentedRuleDefault(
        'os_compute_api:os-migrate-server:migrate', base.ADMIN_API,
        'Cold migrate a server to another host.',
        [{'method': 'POST', 'path': '/servers/{server_id}/action (migrate)'}]),
    policy.DocumentedRuleDefault(
        'os_compute_api:os-migrate-server:migrate:host', base.ADMIN_API,
        'Cold migrate a server to a host of the caller\'s choice (2.56).',
        [{'method': 'POST', 'path': '/servers/{server_id}/action (migrate)'}]),
]


def list_rules():
    return rules
