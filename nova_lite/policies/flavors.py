"""Policy defaults of /flavors."""

from oslo_policy import policy

from nova_lite.policies import base

PREFIX = 'os_compute_api:'

rules = [
    policy.DocumentedRuleDefault(
        PREFIX + 'flavors:index', base.ANY_AUTHENTICATED,
        'List flavors and show one flavor.',
        [{'method': 'GET', 'path': '/flavors'},
         {'method': 'GET', 'path': '/flavors/detail'},
         {'method': 'GET', 'path': '/flavors/{flavor_id}'}]),
    policy.DocumentedRuleDefault(
        PREFIX + 'os-flavor-manage:create', base.ADMIN_API,
        'Create a flavor.', [{'method': 'POST', 'path': '/flavors'}]),
    policy.DocumentedRuleDefault(
        PREFIX + 'os-flavor-manage:update', base.ADMIN_API,
        'Change the description of a flavor (microversion 2.55).',
        [{'method': 'PUT', 'path': '/flavors/{flavor_id}'}]),
    policy.DocumentedRuleDefault(
        PREFIX + 'os-flavor-manage:delete', base.ADMIN_API,
        'Delete a flavor.',
        [{'method': 'DELETE', 'path': '/flavors/{flavor_id}'}]),
    policy.DocumentedRuleDefault(
        PREFIX + 'os-flavor-access', base.ADMIN_API,
        'List private flavors of every project (is_public=false or none).',
        [{'method': 'GET', 'path': '/flavors/detail'}]),
    policy.DocumentedRuleDefault(
        PREFIX + 'os-flavor-extra-specs:index', base.ANY_AUTHENTICATED,
        'List the extra specs of a flavor, and see them embedded in flavor '
        'details (microversion 2.61).',
        [{'method': 'GET', 'path': '/flavors/{flavor_id}/os-extra_specs'},
         {'method': 'GET', 'path': '/flavors/detail'},
         {'method': 'GET', 'path': '/flavors/{flavor_id}'}]),
]


def list_rules():
    return rules
