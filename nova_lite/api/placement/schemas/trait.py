"""Bodies of PUT /resource_providers/{uuid}/traits and trait names."""

from nova_lite.api.placement import schemas

CUSTOM_NAME = {'type': 'string', 'pattern': '^CUSTOM_[A-Z0-9_]+$',
               'maxLength': 255}
NAME = {'type': 'string', 'pattern': '^[A-Z0-9_]+$', 'maxLength': 255}

SET_FOR_PROVIDER = {
    'type': 'object',
    'properties': {
        'traits': {'type': 'array', 'items': NAME, 'uniqueItems': True,
                   'maxItems': schemas.MAX_ITEMS},
        'resource_provider_generation': schemas.GENERATION,
    },
    'required': ['traits', 'resource_provider_generation'],
    'additionalProperties': False,
}
