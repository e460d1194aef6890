"""The Placement API on one page: path -> {method -> handler}.

Path parameters match any single segment; handlers check uuids themselves
and answer a specific 404 (a provider) or 400 (a consumer). Routes newer
than the requested microversion answer 404 from the handler.
"""

from nova_lite.api.placement.handlers import aggregate
from nova_lite.api.placement.handlers import allocation
from nova_lite.api.placement.handlers import allocation_candidate
from nova_lite.api.placement.handlers import inventory
from nova_lite.api.placement.handlers import reshaper
from nova_lite.api.placement.handlers import resource_class
from nova_lite.api.placement.handlers import resource_provider
from nova_lite.api.placement.handlers import root
from nova_lite.api.placement.handlers import trait
from nova_lite.api.placement.handlers import usage

# Served without a token (clients discover versions before they log in).
PUBLIC_PATHS = ('/',)

# GETs that answer whatever the client's Accept header asks; the others
# answer JSON and refuse (406) an Accept that does not take it.
ANY_ACCEPT = (root.home, trait.show)

# From microversion 1.15 a successful GET carries Cache-Control: no-cache
# and Last-Modified, and so do these writes, which answer with what they
# wrote (the statuses they do that with).
CACHE_HEADERS_ON_WRITES = {
    ('POST', '/resource_providers'): (200,),  # 1.20: the provider
    ('PUT', '/resource_providers/{uuid}'): (200,),
    ('PUT', '/resource_providers/{uuid}/aggregates'): (200,),
    ('POST', '/resource_providers/{uuid}/inventories'): (201,),
    ('PUT', '/resource_providers/{uuid}/inventories'): (200,),
    ('PUT', '/resource_providers/{uuid}/inventories/{resource_class}'):
        (200,),
    ('PUT', '/resource_providers/{uuid}/traits'): (200,),
    ('PUT', '/traits/{name}'): (201, 204),
}

ROUTE_DECLARATIONS = {
    '/': {'GET': root.home},
    '/resource_providers': {
        'GET': resource_provider.index,
        'POST': resource_provider.create,
    },
    '/resource_providers/{uuid}': {
        'GET': resource_provider.show,
        'PUT': resource_provider.update,
        'DELETE': resource_provider.delete,
    },
    '/resource_providers/{uuid}/inventories': {
        'GET': inventory.index,
        'POST': inventory.create,
        'PUT': inventory.replace_all,
        'DELETE': inventory.delete_all,
    },
    '/resource_providers/{uuid}/inventories/{resource_class}': {
        'GET': inventory.show,
        'PUT': inventory.update,
        'DELETE': inventory.delete,
    },
    '/resource_providers/{uuid}/usages': {'GET': usage.for_provider},
    '/resource_providers/{uuid}/aggregates': {
        'GET': aggregate.index,
        'PUT': aggregate.update,
    },
    '/resource_providers/{uuid}/allocations': {
        'GET': allocation.list_for_provider,
    },
    '/resource_providers/{uuid}/traits': {
        'GET': trait.list_for_provider,
        'PUT': trait.set_for_provider,
        'DELETE': trait.delete_for_provider,
    },
    '/resource_classes': {
        'GET': resource_class.index,
        'POST': resource_class.create,
    },
    '/resource_classes/{name}': {
        'GET': resource_class.show,
        'PUT': resource_class.update,
        'DELETE': resource_class.delete,
    },
    '/traits': {'GET': trait.index},
    '/traits/{name}': {
        'GET': trait.show,
        'PUT': trait.update,
        'DELETE': trait.delete,
    },
    '/allocations': {'POST': allocation.manage},
    '/allocations/{consumer_uuid}': {
        'GET': allocation.list_for_consumer,
        'PUT': allocation.replace,
        'DELETE': allocation.delete,
    },
    '/allocation_candidates': {'GET': allocation_candidate.index},
    '/usages': {'GET': usage.for_project},
    '/reshaper': {'POST': reshaper.reshape},
}
