"""Policy defaults of /os-quota-sets, /os-quota-class-sets and /limits.

A project's members may read its quotas and limits; changing them, or
reading another project's, is for administrators. Anyone may read the
defaults every project starts from.
"""

from oslo_policy import policy

from nova_lite.policies import base

PREFIX = 'os_compute_api:os-quota-sets:'
CLASS_PREFIX = 'os_compute_api:os-quota-class-sets:'
LIMITS = 'os_compute_api:limits'
_PATH = '/os-quota-sets/{project_id}'
_CLASS_PATH = '/os-quota-class-sets/{quota_class}'

rules = [
    policy.DocumentedRuleDefault(
        PREFIX + 'show', base.ADMIN_OR_OWNER,
        'Show the quota limits of a project.',
        [{'method': 'GET', 'path': _PATH}]),
    policy.DocumentedRuleDefault(
        PREFIX + 'detail', base.ADMIN_OR_OWNER,
        'Show the quota limits of a project with what it uses.',
        [{'method': 'GET', 'path': _PATH + '/detail'}]),
    policy.DocumentedRuleDefault(
        PREFIX + 'defaults', base.ANY_AUTHENTICATED,
        'Show the default quota limits.',
        [{'method': 'GET', 'path': _PATH + '/defaults'}]),
    policy.DocumentedRuleDefault(
        PREFIX + 'update', base.ADMIN_API,
        'Set quota limits of a project.',
        [{'method': 'PUT', 'path': _PATH}]),
    policy.DocumentedRuleDefault(
        PREFIX + 'delete', base.ADMIN_API,
        'Forget the quota limits of a project: the defaults apply again.',
        [{'method': 'DELETE', 'path': _PATH}]),
    policy.DocumentedRuleDefault(
        CLASS_PREFIX + 'show', base.ADMIN_API,
        'Show a quota class (the class "default" holds the defaults).',
        [{'method': 'GET', 'path': _CLASS_PATH}]),
    policy.DocumentedRuleDefault(
        CLASS_PREFIX + 'update', base.ADMIN_API,
        'Change a quota class (the class "default" holds the defaults).',
        [{'method': 'PUT', 'path': _CLASS_PATH}]),
    policy.DocumentedRuleDefault(
        LIMITS, base.ANY_AUTHENTICATED,
        'Show the absolute limits of the caller\'s project and its usage.',
        [{'method': 'GET', 'path': '/limits'}]),
    policy.DocumentedRuleDefault(
        LIMITS + ':other_project', base.ADMIN_API,
        'Show the limits of another project (?tenant_id=).',
        [{'method': 'GET', 'path': '/limits'}]),
]


def list_rules():
    return rules
