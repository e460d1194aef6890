"""Policy defaults of /os-services."""

from oslo_policy import policy

from nova_lite.policies import base

PREFIX = 'os_compute_api:os-services:'

rules = [
    policy.DocumentedRuleDefault(
        PREFIX + 'list', base.ADMIN_API, 'List services.',
        [{'method': 'GET', 'path': '/os-services'}]),
    policy.DocumentedRuleDefault(
        PREFIX + 'update', base.ADMIN_API,
        'Enable, disable or force down a service.',
        [{'method': 'PUT', 'path': '/os-services/{service_id}'}]),
    policy.DocumentedRuleDefault(
        PREFIX + 'delete', base.ADMIN_API, 'Delete a service record.',
        [{'method': 'DELETE', 'path': '/os-services/{service_id}'}]),
]


def list_rules():
    return rules
