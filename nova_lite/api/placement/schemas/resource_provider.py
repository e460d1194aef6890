"""Bodies of POST /resource_providers and PUT /resource_providers/{uuid}."""

import copy

from nova_lite.api.placement import schemas

NAME = {'type': 'string', 'minLength': 1, 'maxLength': 200}

CREATE = {
    'type': 'object',
    'properties': {'name': NAME, 'uuid': schemas.UUID},
    'required': ['name'],
    'additionalProperties': False,
}
CREATE_NESTED = copy.deepcopy(CREATE)
CREATE_NESTED['properties']['parent_provider_uuid'] = schemas.NULLABLE_UUID

UPDATE = {
    'type': 'object',
    'properties': {'name': NAME},
    'required': ['name'],
    'additionalProperties': False,
}
UPDATE_NESTED = copy.deepcopy(UPDATE)
UPDATE_NESTED['properties']['parent_provider_uuid'] = schemas.NULLABLE_UUID
