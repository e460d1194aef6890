"""Policy defaults of the Placement API: every operation is for admins
(services call placement with an admin token)."""

from oslo_policy import policy

from nova_lite.policies import base


def _rule(name, description, method, path):
    return policy.DocumentedRuleDefault(
        'placement:' + name, base.ADMIN_API, description,
        [{'method': method, 'path': path}])


_RP = '/resource_providers/{uuid}'

rules = [
    _rule('resource_providers:list', 'List resource providers.', 'GET',
          '/resource_providers'),
    _rule('resource_providers:create', 'Create a resource provider.',
          'POST', '/resource_providers'),
    _rule('resource_providers:show', 'Show a resource provider.', 'GET',
          _RP),
    _rule('resource_providers:update', 'Update a resource provider.', 'PUT',
          _RP),
    _rule('resource_providers:delete', 'Delete a resource provider.',
          'DELETE', _RP),
    _rule('resource_providers:inventories:list',
          'List the inventories of a resource provider.', 'GET',
          _RP + '/inventories'),
    _rule('resource_providers:inventories:create',
          'Create one inventory of a resource provider.', 'POST',
          _RP + '/inventories'),
    _rule('resource_providers:inventories:show',
          'Show one inventory of a resource provider.', 'GET',
          _RP + '/inventories/{resource_class}'),
    _rule('resource_providers:inventories:update',
          'Replace or update inventories of a resource provider.', 'PUT',
          _RP + '/inventories'),
    _rule('resource_providers:inventories:delete',
          'Delete inventories of a resource provider.', 'DELETE',
          _RP + '/inventories'),
    _rule('resource_providers:usages',
          'Show the usages of a resource provider.', 'GET', _RP + '/usages'),
    _rule('usages', 'Show the usages of a project (and user).', 'GET',
          '/usages'),
    _rule('resource_providers:aggregates:list',
          'List the aggregates of a resource provider.', 'GET',
          _RP + '/aggregates'),
    _rule('resource_providers:aggregates:update',
          'Set the aggregates of a resource provider.', 'PUT',
          _RP + '/aggregates'),
    _rule('resource_providers:traits:list',
          'List the traits of a resource provider.', 'GET', _RP + '/traits'),
    _rule('resource_providers:traits:update',
          'Set the traits of a resource provider.', 'PUT', _RP + '/traits'),
    _rule('resource_providers:traits:delete',
          'Remove every trait of a resource provider.', 'DELETE',
          _RP + '/traits'),
    _rule('resource_providers:allocations:list',
          'List the allocations against a resource provider.', 'GET',
          _RP + '/allocations'),
    _rule('resource_classes:list', 'List resource classes.', 'GET',
          '/resource_classes'),
    _rule('resource_classes:create', 'Create a custom resource class.',
          'POST', '/resource_classes'),
    _rule('resource_classes:show', 'Show a resource class.', 'GET',
          '/resource_classes/{name}'),
    _rule('resource_classes:update', 'Create a custom resource class.',
          'PUT', '/resource_classes/{name}'),
    _rule('resource_classes:delete', 'Delete a custom resource class.',
          'DELETE', '/resource_classes/{name}'),
    _rule('traits:list', 'List traits.', 'GET', '/traits'),
    _rule('traits:show', 'Show whether a trait exists.', 'GET',
          '/traits/{name}'),
    _rule('traits:update', 'Create a custom trait.', 'PUT',
          '/traits/{name}'),
    _rule('traits:delete', 'Delete a custom trait.', 'DELETE',
          '/traits/{name}'),
    _rule('allocations:list', 'List the allocations of a consumer.', 'GET',
          '/allocations/{consumer_uuid}'),
    _rule('allocations:update', 'Replace the allocations of a consumer.',
          'PUT', '/allocations/{consumer_uuid}'),
    _rule('allocations:manage',
          'Replace the allocations of several consumers at once.', 'POST',
          '/allocations'),
    _rule('allocations:delete', 'Delete the allocations of a consumer.',
          'DELETE', '/allocations/{consumer_uuid}'),
    _rule('allocation_candidates:list',
          'List allocation candidates for a request.', 'GET',
          '/allocation_candidates'),
    _rule('reshaper:reshape',
          'Move inventories and allocations between providers at once.',
          'POST', '/reshaper'),
]


def list_rules():
    return rules
