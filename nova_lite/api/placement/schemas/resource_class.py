"""Bodies of POST /resource_classes and (1.2 - 1.6) PUT
/resource_classes/{name}."""

CUSTOM_NAME = {'type': 'string', 'pattern': '^CUSTOM_[A-Z0-9_]+$',
               'maxLength': 255}

CREATE = {
    'type': 'object',
    'properties': {'name': CUSTOM_NAME},
    'required': ['name'],
    'additionalProperties': False,
}
RENAME = CREATE
