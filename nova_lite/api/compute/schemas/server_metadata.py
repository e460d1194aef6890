"""Schemas of /servers/{server_id}/metadata: a map of keys (1 to 255 of
letters, digits, ``-_:.`` and space) to values of at most 255 characters,
as at create; an item's body has exactly one key."""

import copy

from nova_lite.api.compute.schemas import servers as servers_schema

_METADATA = servers_schema._SERVER_PROPERTIES['metadata']

# POST (merge) and PUT (replace) of the whole map.
metadata = {
    'type': 'object',
    'properties': {'metadata': _METADATA},
    'required': ['metadata'],
    'additionalProperties': False,
}

_ONE_ITEM = copy.deepcopy(_METADATA)
_ONE_ITEM['minProperties'] = 1
_ONE_ITEM['maxProperties'] = 1

# PUT of one item.
meta = {
    'type': 'object',
    'properties': {'meta': _ONE_ITEM},
    'required': ['meta'],
    'additionalProperties': False,
}
