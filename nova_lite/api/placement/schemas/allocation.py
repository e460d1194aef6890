"""Bodies of PUT /allocations/{consumer_uuid} and POST /allocations."""

import copy

from nova_lite.api.placement import schemas
from nova_lite.placement import capacity

RESOURCES = {
    'type': 'object',
    'minProperties': 1,
    'maxProperties': schemas.MAX_ITEMS,
    'patternProperties': {
        '^[A-Z0-9_]+$': {'type': 'integer', 'minimum': 1,
                         'maximum': capacity.INT_MAX},
    },
    'additionalProperties': False,
}
OWNER = {'type': 'string', 'minLength': 1, 'maxLength': 255}
NULLABLE_GENERATION = {'anyOf': [schemas.GENERATION, {'type': 'null'}]}

# 1.0 - 1.11: a list of {"resource_provider": {"uuid"}, "resources"}.
PUT_LIST = {
    'type': 'object',
    'properties': {
        'allocations': {
            'type': 'array',
            'minItems': 1,
            'maxItems': schemas.MAX_ITEMS,
            'items': {
                'type': 'object',
                'properties': {
                    'resource_provider': {
                        'type': 'object',
                        'properties': {'uuid': schemas.UUID},
                        'required': ['uuid'],
                        'additionalProperties': False,
                    },
                    'resources': RESOURCES,
                },
                'required': ['resource_provider', 'resources'],
                'additionalProperties': False,
            },
        },
    },
    'required': ['allocations'],
    'additionalProperties': False,
}
# 1.8: the consumer's project and user are required.
PUT_LIST_OWNED = copy.deepcopy(PUT_LIST)
PUT_LIST_OWNED['properties'].update(project_id=OWNER, user_id=OWNER)
PUT_LIST_OWNED['required'] += ['project_id', 'user_id']

# 1.12: {rp_uuid: {"resources": {...}}}.
ALLOCATIONS_DICT = {
    'type': 'object',
    'minProperties': 1,
    'maxProperties': schemas.MAX_ITEMS,
    'patternProperties': {
        schemas.UUID_PATTERN: {
            'type': 'object',
            'properties': {
                # GET shows it; clients send back what they read.
                'generation': schemas.GENERATION,
                'resources': RESOURCES,
            },
            'required': ['resources'],
            'additionalProperties': False,
        },
    },
    'additionalProperties': False,
}
PUT_DICT = {
    'type': 'object',
    'properties': {'allocations': ALLOCATIONS_DICT, 'project_id': OWNER,
                   'user_id': OWNER},
    'required': ['allocations', 'project_id', 'user_id'],
    'additionalProperties': False,
}
# 1.28: consumer generation required; empty allocations remove them.
PUT_DICT_GENERATION = copy.deepcopy(PUT_DICT)
PUT_DICT_GENERATION['properties']['consumer_generation'] = \
    NULLABLE_GENERATION
PUT_DICT_GENERATION['required'].append('consumer_generation')
PUT_DICT_GENERATION['properties']['allocations']['minProperties'] = 0

# POST /allocations (1.13): {consumer_uuid: <PUT body>}; a consumer with
# empty allocations loses them.
_POST_ONE = copy.deepcopy(PUT_DICT)
_POST_ONE['properties']['allocations']['minProperties'] = 0
POST = {
    'type': 'object',
    'minProperties': 1,
    'maxProperties': schemas.MAX_ITEMS,
    'patternProperties': {schemas.UUID_PATTERN: _POST_ONE},
    'additionalProperties': False,
}
_POST_ONE_GENERATION = copy.deepcopy(PUT_DICT_GENERATION)
POST_GENERATION = copy.deepcopy(POST)
POST_GENERATION['patternProperties'][schemas.UUID_PATTERN] = \
    _POST_ONE_GENERATION

# 1.34: the candidate's mappings (group suffix -> providers) may be sent
# back with the allocations it became; they are accepted, not kept.
MAPPINGS = {
    'type': 'object',
    'minProperties': 1,
    'maxProperties': schemas.MAX_ITEMS,
    'patternProperties': {
        '^[a-zA-Z0-9_-]{0,64}$': {
            'type': 'array', 'minItems': 1, 'maxItems': schemas.MAX_ITEMS,
            'items': {'type': 'string', 'format': 'uuid'}}},
}
PUT_DICT_MAPPINGS = copy.deepcopy(PUT_DICT_GENERATION)
PUT_DICT_MAPPINGS['properties']['mappings'] = MAPPINGS
_POST_ONE_MAPPINGS = copy.deepcopy(PUT_DICT_MAPPINGS)
POST_MAPPINGS = copy.deepcopy(POST)
POST_MAPPINGS['patternProperties'][schemas.UUID_PATTERN] = \
    _POST_ONE_MAPPINGS

# 1.38: the consumer's type is required (PUT, POST and the reshaper).
CONSUMER_TYPE = {'type': 'string', 'pattern': '^[A-Z0-9_]+$',
                 'minLength': 1, 'maxLength': 255}
PUT_DICT_TYPE = copy.deepcopy(PUT_DICT_MAPPINGS)
PUT_DICT_TYPE['properties']['consumer_type'] = CONSUMER_TYPE
PUT_DICT_TYPE['required'].append('consumer_type')
_POST_ONE_TYPE = copy.deepcopy(PUT_DICT_TYPE)
POST_TYPE = copy.deepcopy(POST)
POST_TYPE['patternProperties'][schemas.UUID_PATTERN] = _POST_ONE_TYPE
