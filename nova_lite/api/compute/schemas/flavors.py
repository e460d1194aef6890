"""Schemas of /flavors: create (2.55 adds ``description``) and update
(2.55)."""

import copy

_NAME = {'type': 'string', 'minLength': 1, 'maxLength': 255,
         'pattern': r'^(?! )[^\x00-\x1f]*(?<! )$'}
_FLAVOR_ID = {'type': ['string', 'null'], 'minLength': 1, 'maxLength': 255,
              'pattern': r'^(?! )[a-zA-Z0-9. _-]+(?<! )$'}


def _integer(minimum, maximum=2147483647):
    # Clients send numbers as JSON numbers or as strings of digits.
    return {'type': ['integer', 'string'], 'pattern': r'^[0-9]+$',
            'minimum': minimum, 'maximum': maximum}


create = {
    'type': 'object',
    'properties': {
        'flavor': {
            'type': 'object',
            'properties': {
                'name': _NAME,
                'id': _FLAVOR_ID,
                'ram': _integer(1),
                'vcpus': _integer(1),
                'disk': _integer(0),
                'OS-FLV-EXT-DATA:ephemeral': _integer(0),
                'swap': {'oneOf': [_integer(0), {'type': 'string',
                                                 'enum': ['']}]},
                'rxtx_factor': {'type': ['number', 'string'],
                                'pattern': r'^[0-9]+(\.[0-9]+)?$',
                                'minimum': 0, 'exclusiveMinimum': True},
                'os-flavor-access:is_public': {'type': 'boolean'},
            },
            'required': ['name', 'ram', 'vcpus', 'disk'],
            'additionalProperties': False,
        },
    },
    'required': ['flavor'],
    'additionalProperties': False,
}

_DESCRIPTION = {'type': ['string', 'null'], 'maxLength': 65535,
                'pattern': r'^[^\x00-\x08\x0b\x0c\x0e-\x1f]*$'}

create_v255 = copy.deepcopy(create)
create_v255['properties']['flavor']['properties']['description'] = (
    _DESCRIPTION)

update_v255 = {
    'type': 'object',
    'properties': {
        'flavor': {
            'type': 'object',
            'properties': {'description': _DESCRIPTION},
            'required': ['description'],
            'additionalProperties': False,
        },
    },
    'required': ['flavor'],
    'additionalProperties': False,
}
