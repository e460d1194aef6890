"""Policy defaults of /os-keypairs.

A key pair belongs to a user (not a project): each rule is checked against
the user whose key pairs are asked for, so a user reaches only their own
and an administrator anyone's (``user_id``, from microversion 2.10).
"""

from oslo_policy import policy

from nova_lite.policies import base

PREFIX = 'os_compute_api:os-keypairs:'

rules = [
    policy.DocumentedRuleDefault(
        PREFIX + 'index', base.ADMIN_OR_USER, 'List a user\'s key pairs.',
        [{'method': 'GET', 'path': '/os-keypairs'}]),
    policy.DocumentedRuleDefault(
        PREFIX + 'create', base.ADMIN_OR_USER,
        'Import or generate a key pair for a user.',
        [{'method': 'POST', 'path': '/os-keypairs'}]),
    policy.DocumentedRuleDefault(
        PREFIX + 'show', base.ADMIN_OR_USER, 'Show a user\'s key pair.',
        [{'method': 'GET', 'path': '/os-keypairs/{keypair_name}'}]),
    policy.DocumentedRuleDefault(
        PREFIX + 'delete', base.ADMIN_OR_USER, 'Delete a user\'s key pair.',
        [{'method': 'DELETE', 'path': '/os-keypairs/{keypair_name}'}]),
]


def list_rules():
    return rules
