"""Policy defaults of /os-availability-zone."""

from oslo_policy import policy

from nova_lite.policies import base

PREFIX = 'os_compute_api:os-availability-zone:'

rules = [
    policy.DocumentedRuleDefault(
        PREFIX + 'list', base.ANY_AUTHENTICATED,
        'List the availability zones a server may be booted into.',
        [{'method': 'GET', 'path': '/os-availability-zone'}]),
    policy.DocumentedRuleDefault(
        PREFIX + 'detail', base.ADMIN_API,
        'List the availability zones with their hosts and services.',
        [{'method': 'GET', 'path': '/os-availability-zone/detail'}]),
]


def list_rules():
    return rules
