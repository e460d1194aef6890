"""Policy defaults of the Placement API (nova-lite-placement), with the
rule names and defaults of OpenStack Placement 16.

Placement is a service for services: its defaults let an administrator or
a caller with the ``service`` role do everything, except ``POST
/reshaper``, which is the ``service`` role's only. The one thing a
project may do is read its own usages (``GET /usages?project_id=``, with
the ``reader`` role in that project). Every rule is for project-scoped
tokens: a system-scoped token is refused (oslo.policy always checks the
scope).

These are the "secure RBAC" defaults, which apply while ``[oslo_policy]
enforce_new_defaults`` is true (oslo.policy's default, as in Placement
16). With it false, the legacy default is accepted as well: the ``admin``
role may do everything, reshaping included. The operator overrides any
rule, by name, in the ``[oslo_policy] policy_file``; the helper rules
below (``admin_or_service_api``...) may be overridden too, to change all
the rules made of them at once.

``admin_api`` is shared with the Compute API (``policies.base``): it is
not a part of any placement rule, as in Placement 16, where it is still
defined but no longer used.
"""

from oslo_log import versionutils
from oslo_policy import policy

PREFIX = 'placement:'

SERVICE = 'rule:service_api'
ADMIN_OR_SERVICE = 'rule:admin_or_service_api'
ADMIN_OR_PROJECT_READER_OR_SERVICE = (
    'rule:admin_or_project_reader_or_service_api')

# What every placement operation asked for before the secure defaults
# (Wallaby): the admin role. Placement names it "rule:admin_api", a name
# no policy file uses, so an override of admin_api does not reach these
# rules; we keep that name, which is what oslopolicy tools and the
# deprecation warnings show.
_LEGACY_ADMIN = policy.DeprecatedRule(
    name='rule:admin_api', check_str='role:admin',
    deprecated_reason='The placement rules take the roles of the secure '
                      'RBAC defaults (admin, service, project reader): '
                      'the admin role alone is the legacy default, '
                      'accepted while [oslo_policy] enforce_new_defaults '
                      'is false.',
    deprecated_since=versionutils.deprecated.WALLABY)

_PROJECT = ['project']

helper_rules = [
    policy.RuleDefault(
        'service_api', 'role:service',
        description='A service calling placement: the service role (the '
                    'role Keystone gives the service users of Nova, '
                    'Neutron, Cyborg...).',
        scope_types=_PROJECT, deprecated_rule=_LEGACY_ADMIN),
    policy.RuleDefault(
        'admin_or_service_api', 'role:admin or role:service',
        description='An administrator or a service: what most placement '
                    'operations ask for.',
        scope_types=_PROJECT, deprecated_rule=_LEGACY_ADMIN),
    policy.RuleDefault(
        'project_reader_api', 'role:reader and project_id:%(project_id)s',
        description='A reader (or member) of the project the request is '
                    'about.',
        deprecated_rule=_LEGACY_ADMIN),
    policy.RuleDefault(
        'admin_or_project_reader_or_service_api',
        'role:admin or rule:project_reader_api or role:service',
        description='An administrator, a service, or a reader of the '
                    'project the request is about.',
        scope_types=_PROJECT, deprecated_rule=_LEGACY_ADMIN),
]


def _rule(name, check_str, description, *operations):
    return policy.DocumentedRuleDefault(
        PREFIX + name, check_str, description,
        [{'method': method, 'path': path} for method, path in operations],
        scope_types=_PROJECT)


_RP = '/resource_providers/{uuid}'
_INVENTORIES = _RP + '/inventories'
_INVENTORY = _INVENTORIES + '/{resource_class}'

rules = [
    _rule('resource_providers:list', ADMIN_OR_SERVICE,
          'List resource providers (with filters).',
          ('GET', '/resource_providers')),
    _rule('resource_providers:create', ADMIN_OR_SERVICE,
          'Create a resource provider.', ('POST', '/resource_providers')),
    _rule('resource_providers:show', ADMIN_OR_SERVICE,
          'Show one resource provider.', ('GET', _RP)),
    _rule('resource_providers:update', ADMIN_OR_SERVICE,
          "Change a resource provider's name or parent.", ('PUT', _RP)),
    _rule('resource_providers:delete', ADMIN_OR_SERVICE,
          'Delete a resource provider.', ('DELETE', _RP)),
    _rule('resource_classes:list', ADMIN_OR_SERVICE,
          'List the resource classes, standard and custom.',
          ('GET', '/resource_classes')),
    _rule('resource_classes:create', ADMIN_OR_SERVICE,
          'Create a custom resource class.', ('POST', '/resource_classes')),
    _rule('resource_classes:show', ADMIN_OR_SERVICE,
          'Show one resource class.', ('GET', '/resource_classes/{name}')),
    _rule('resource_classes:update', ADMIN_OR_SERVICE,
          'Create a custom resource class by name (rename one before '
          '1.7).', ('PUT', '/resource_classes/{name}')),
    _rule('resource_classes:delete', ADMIN_OR_SERVICE,
          'Delete a custom resource class no inventory uses.',
          ('DELETE', '/resource_classes/{name}')),
    _rule('resource_providers:inventories:list', ADMIN_OR_SERVICE,
          "List a resource provider's inventories.", ('GET', _INVENTORIES)),
    _rule('resource_providers:inventories:create', ADMIN_OR_SERVICE,
          'Add one inventory to a resource provider.',
          ('POST', _INVENTORIES)),
    _rule('resource_providers:inventories:show', ADMIN_OR_SERVICE,
          "Show one of a resource provider's inventories.",
          ('GET', _INVENTORY)),
    _rule('resource_providers:inventories:update', ADMIN_OR_SERVICE,
          "Replace a resource provider's inventories, or change one.",
          ('PUT', _INVENTORIES), ('PUT', _INVENTORY)),
    _rule('resource_providers:inventories:delete', ADMIN_OR_SERVICE,
          "Delete a resource provider's inventories, or one of them.",
          ('DELETE', _INVENTORIES), ('DELETE', _INVENTORY)),
    _rule('resource_providers:aggregates:list', ADMIN_OR_SERVICE,
          'List the aggregates a resource provider is in.',
          ('GET', _RP + '/aggregates')),
    _rule('resource_providers:aggregates:update', ADMIN_OR_SERVICE,
          'Set the aggregates a resource provider is in.',
          ('PUT', _RP + '/aggregates')),
    _rule('resource_providers:usages', ADMIN_OR_SERVICE,
          "Show what is used of a resource provider's inventories.",
          ('GET', _RP + '/usages')),
    _rule('usages', ADMIN_OR_PROJECT_READER_OR_SERVICE,
          'Show the total usages of a project (or of one of its users): '
          'an administrator or a service for any project, a reader of '
          'the project for its own.', ('GET', '/usages')),
    _rule('traits:list', ADMIN_OR_SERVICE,
          'List the traits, standard and custom.', ('GET', '/traits')),
    _rule('traits:show', ADMIN_OR_SERVICE, 'Check that a trait exists.',
          ('GET', '/traits/{name}')),
    _rule('traits:update', ADMIN_OR_SERVICE, 'Create a custom trait.',
          ('PUT', '/traits/{name}')),
    _rule('traits:delete', ADMIN_OR_SERVICE,
          'Delete a custom trait no resource provider has.',
          ('DELETE', '/traits/{name}')),
    _rule('resource_providers:traits:list', ADMIN_OR_SERVICE,
          "List a resource provider's traits.", ('GET', _RP + '/traits')),
    _rule('resource_providers:traits:update', ADMIN_OR_SERVICE,
          "Set a resource provider's traits.", ('PUT', _RP + '/traits')),
    _rule('resource_providers:traits:delete', ADMIN_OR_SERVICE,
          'Take every trait off a resource provider.',
          ('DELETE', _RP + '/traits')),
    _rule('allocations:manage', ADMIN_OR_SERVICE,
          'Set the allocations of several consumers in one request.',
          ('POST', '/allocations')),
    _rule('allocations:list', ADMIN_OR_SERVICE,
          "Show a consumer's allocations.",
          ('GET', '/allocations/{consumer_uuid}')),
    _rule('allocations:update', ADMIN_OR_SERVICE,
          "Replace a consumer's allocations.",
          ('PUT', '/allocations/{consumer_uuid}')),
    _rule('allocations:delete', ADMIN_OR_SERVICE,
          "Delete a consumer's allocations.",
          ('DELETE', '/allocations/{consumer_uuid}')),
    _rule('resource_providers:allocations:list', ADMIN_OR_SERVICE,
          'List the allocations held against a resource provider.',
          ('GET', _RP + '/allocations')),
    _rule('allocation_candidates:list', ADMIN_OR_SERVICE,
          'List the allocations that would satisfy a request for '
          'resources (the scheduler asks this).',
          ('GET', '/allocation_candidates')),
    _rule('reshaper:reshape', SERVICE,
          'Move inventories and the allocations against them between '
          'resource providers in one step (a compute service does this '
          'when it changes the shape of its provider tree).',
          ('POST', '/reshaper')),
]


def list_rules():
    return helper_rules + rules
