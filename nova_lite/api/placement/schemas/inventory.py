"""Bodies of the inventory requests."""

import copy

from nova_lite.api.placement import schemas
from nova_lite.placement import capacity

_INT = {'type': 'integer', 'maximum': capacity.INT_MAX}
FIELDS = {
    'total': dict(_INT, minimum=1),
    'reserved': dict(_INT, minimum=0),
    'min_unit': dict(_INT, minimum=1),
    'max_unit': dict(_INT, minimum=1),
    'step_size': dict(_INT, minimum=1),
    'allocation_ratio': {'type': 'number', 'minimum': 0,
                         'exclusiveMinimum': True,
                         'maximum': 3.40282e+38},
}
RESOURCE_CLASS_NAME = '^[A-Z0-9_]+$'

# PUT /resource_providers/{uuid}/inventories/{resource_class}
UPDATE_ONE = {
    'type': 'object',
    'properties': dict(FIELDS,
                       resource_provider_generation=schemas.GENERATION),
    'required': ['total', 'resource_provider_generation'],
    'additionalProperties': False,
}

# POST /resource_providers/{uuid}/inventories
CREATE_ONE = copy.deepcopy(UPDATE_ONE)
CREATE_ONE['properties']['resource_class'] = {
    'type': 'string', 'pattern': RESOURCE_CLASS_NAME}
CREATE_ONE['required'] = ['total', 'resource_class']

# PUT /resource_providers/{uuid}/inventories
_ONE_OF_MANY = {
    'type': 'object',
    'properties': FIELDS,
    'required': ['total'],
    'additionalProperties': False,
}
REPLACE_ALL = {
    'type': 'object',
    'properties': {
        'resource_provider_generation': schemas.GENERATION,
        'inventories': {
            'type': 'object',
            'patternProperties': {RESOURCE_CLASS_NAME: _ONE_OF_MANY},
            'maxProperties': schemas.MAX_ITEMS,
            'additionalProperties': False,
        },
    },
    'required': ['inventories', 'resource_provider_generation'],
    'additionalProperties': False,
}
