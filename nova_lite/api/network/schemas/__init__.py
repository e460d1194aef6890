"""JSON schemas of the port API's request bodies, one module per resource.

A body is ``{"<resource>": {...}}``; attributes a resource does not have
are refused (400) rather than ignored, so a client learns at once that
this service does not do what it asked. Each list has Neutron's bound
where it has one (50 tags, as the standard-attr-tag extension allows),
and each map with keys of the client's choosing (a binding profile, an
agent's configurations) at most ``MAX_MAP_KEYS`` keys; their JSON text is
capped as well (``util.MAX_PROFILE_LENGTH``).
"""

MAX_MAP_KEYS = 100

UUID = {'type': 'string',
        'pattern': '^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?'
                   '[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$'}
NULLABLE_UUID = {'anyOf': [UUID, {'type': 'null'}]}
NAME = {'type': 'string', 'maxLength': 255}
DESCRIPTION = {'type': ['string', 'null'], 'maxLength': 255}
PROJECT_ID = {'type': 'string', 'minLength': 1, 'maxLength': 255}
BOOLEAN = {'type': 'boolean'}
MAX_TAGS = 50
TAGS = {'type': 'array', 'maxItems': MAX_TAGS, 'uniqueItems': True,
        'items': {'type': 'string', 'minLength': 1, 'maxLength': 255,
                  'pattern': '^[^,]+$'}}


def envelope(key, properties, required=()):
    """The schema of ``{key: {properties}}``."""
    return {
        'type': 'object',
        'properties': {key: {
            'type': 'object', 'properties': properties,
            'required': list(required), 'additionalProperties': False}},
        'required': [key],
        'additionalProperties': False,
    }
