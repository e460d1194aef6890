"""Rules the per-resource defaults are built from."""

from oslo_policy import policy

ADMIN_API = 'rule:admin_api'
ADMIN_OR_OWNER = 'rule:admin_or_owner'
ADMIN_OR_USER = 'rule:admin_or_user'
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
    policy.RuleDefault(
        'admin_or_user',
        'is_admin:True or role:admin or user_id:%(user_id)s',
        description='An administrator, or the user who owns the resource '
                    '(key pairs belong to a user, not to a project).'),
]


def list_rules():
    return rules
