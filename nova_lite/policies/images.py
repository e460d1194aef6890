"""Policy defaults of the /images proxy."""

from oslo_policy import policy

from nova_lite.policies import base

rules = [
    policy.DocumentedRuleDefault(
        'os_compute_api:images:index', base.ANY_AUTHENTICATED,
        'List images of the catalog and show one image.',
        [{'method': 'GET', 'path': '/images'},
         {'method': 'GET', 'path': '/images/detail'},
         {'method': 'GET', 'path': '/images/{image_id}'}]),
]


def list_rules():
    return rules
