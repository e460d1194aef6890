"""Policy defaults of /os-hypervisors."""

from oslo_policy import policy

from nova_lite.policies import base

PREFIX = 'os_compute_api:os-hypervisors:'

rules = [
    policy.DocumentedRuleDefault(
        PREFIX + 'list', base.ADMIN_API, 'List hypervisors.',
        [{'method': 'GET', 'path': '/os-hypervisors'}]),
    policy.DocumentedRuleDefault(
        PREFIX + 'list-detail', base.ADMIN_API,
        'List hypervisors with their capacity and usage.',
        [{'method': 'GET', 'path': '/os-hypervisors/detail'}]),
    policy.DocumentedRuleDefault(
        PREFIX + 'show', base.ADMIN_API, 'Show one hypervisor.',
        [{'method': 'GET', 'path': '/os-hypervisors/{hypervisor_id}'}]),
    policy.DocumentedRuleDefault(
        PREFIX + 'statistics', base.ADMIN_API,
        'Show the summed capacity and usage of all hypervisors.',
        [{'method': 'GET', 'path': '/os-hypervisors/statistics'}]),
]


def list_rules():
    return rules
