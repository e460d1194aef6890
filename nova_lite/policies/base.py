"""Rules the per-resource defaults are built from."""

from oslo_policy import policy

ADMIN_API = 'rule:admin_api'
ADMIN_OR_OWNER = 'rule:admin_or_owner'
ANY_AUTHENTICATED = '@'

rules = [
    policy.RuleDefault(
        'admin_api', 'is_admin:True or role:admin',
        description='An administrator: the noauth2 user "admin", or a '
                    'Keystone user with the admin role.'),
    policy.RuleDefault(
        'admin_or_owner',
        'is_admin:True or role:admin or project_id:%(project_id)s',
        description='An administrator, or a member of the project that '
                    'owns the resource.'),
]


def list_rules():
    return rules
