"""Schemas of /os-aggregates.

Whether an availability zone name is acceptable (not empty, no ``:``) and
whether it conflicts with the zones of the hosts is checked by the
business layer (``compute.aggregates``), which can say why.
"""

from nova_lite.api.compute import schemas

_NAME = {'type': 'string', 'minLength': 1, 'maxLength': 255,
         'pattern': r'^(?!\s)[^\x00-\x1f]*(?<!\s)$'}
_ZONE = {'type': ['string', 'null'], 'maxLength': 255}
_HOST = {'type': 'string', 'minLength': 1, 'maxLength': 255}
# A null value removes the key.
_METADATA = {
    'type': 'object',
    'patternProperties': {
        r'^[a-zA-Z0-9-_:. ]{1,255}$': {'type': ['string', 'null'],
                                       'maxLength': 255},
    },
    'additionalProperties': False,
    'maxProperties': schemas.MAX_METADATA_ITEMS,
}

create = {
    'type': 'object',
    'properties': {
        'aggregate': {
            'type': 'object',
            'properties': {'name': _NAME, 'availability_zone': _ZONE},
            'required': ['name'],
            'additionalProperties': False,
        },
    },
    'required': ['aggregate'],
    'additionalProperties': False,
}

update = {
    'type': 'object',
    'properties': {
        'aggregate': {
            'type': 'object',
            'properties': {'name': _NAME, 'availability_zone': _ZONE},
            'minProperties': 1,
            'additionalProperties': False,
        },
    },
    'required': ['aggregate'],
    'additionalProperties': False,
}


def _host_action():
    return {'type': 'object', 'properties': {'host': _HOST},
            'required': ['host'], 'additionalProperties': False}


ACTIONS = ('add_host', 'remove_host', 'set_metadata')

# Exactly one action per request (the handler says so before this
# schema is checked).
action = {
    'type': 'object',
    'properties': {
        'add_host': _host_action(),
        'remove_host': _host_action(),
        'set_metadata': {
            'type': 'object',
            'properties': {'metadata': _METADATA},
            'required': ['metadata'],
            'additionalProperties': False,
        },
    },
    'minProperties': 1,
    'maxProperties': 1,
    'additionalProperties': False,
}
