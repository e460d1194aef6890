"""Body of POST /reshaper (1.30)."""

import copy

from nova_lite.api.placement import schemas
from nova_lite.api.placement.schemas import allocation
from nova_lite.api.placement.schemas import inventory

RESHAPE = {
    'type': 'object',
    'properties': {
        'inventories': {
            'type': 'object',
            # A reshape moves some inventory (as placement: 400 without).
            'minProperties': 1,
            'maxProperties': schemas.MAX_ITEMS,
            'patternProperties': {
                schemas.UUID_PATTERN: copy.deepcopy(
                    inventory.REPLACE_ALL),
            },
            'additionalProperties': False,
        },
        'allocations': copy.deepcopy(allocation.POST_GENERATION),
    },
    'required': ['inventories', 'allocations'],
    'additionalProperties': False,
}
# Reshaping may leave no allocation at all.
RESHAPE['properties']['allocations']['minProperties'] = 0

# 1.34: the allocations may carry their candidate's mappings.
RESHAPE_MAPPINGS = copy.deepcopy(RESHAPE)
RESHAPE_MAPPINGS['properties']['allocations'] = copy.deepcopy(
    allocation.POST_MAPPINGS)
RESHAPE_MAPPINGS['properties']['allocations']['minProperties'] = 0

# 1.38: each consumer's type is required.
RESHAPE_TYPE = copy.deepcopy(RESHAPE)
RESHAPE_TYPE['properties']['allocations'] = copy.deepcopy(
    allocation.POST_TYPE)
RESHAPE_TYPE['properties']['allocations']['minProperties'] = 0
