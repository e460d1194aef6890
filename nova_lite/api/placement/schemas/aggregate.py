"""Bodies of PUT /resource_providers/{uuid}/aggregates."""

from nova_lite.api.placement import schemas

_UUIDS = {'type': 'array', 'items': schemas.UUID, 'uniqueItems': True,
          'maxItems': schemas.MAX_ITEMS}

# 1.1 - 1.18: a bare list of aggregate uuids.
SET_LIST = _UUIDS
# 1.19: with the provider generation.
SET_GENERATION = {
    'type': 'object',
    'properties': {'aggregates': _UUIDS,
                   'resource_provider_generation': schemas.GENERATION},
    'required': ['aggregates', 'resource_provider_generation'],
    'additionalProperties': False,
}
