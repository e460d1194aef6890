"""Bodies of POST /v2.0/agents (an agent's report) and PUT
/v2.0/agents/{id}."""

from nova_lite.api.network import schemas

_BANDWIDTH = {'type': 'integer', 'minimum': 0, 'maximum': 2 ** 31 - 1}


def _map(values):
    """A map of names of the agent's choosing to ``values``."""
    return {'type': 'object', 'additionalProperties': values,
            'maxProperties': schemas.MAX_MAP_KEYS}


# The keys this service reads are checked; an agent may report others.
CONFIGURATIONS = {
    'type': 'object',
    'properties': {
        'bridge_mappings': _map({'type': 'string', 'maxLength': 255}),
        'resource_provider_bandwidths': _map({
            'type': 'object',
            'properties': {'egress': _BANDWIDTH, 'ingress': _BANDWIDTH},
            'additionalProperties': False}),
        'resource_provider_hypervisors': _map({
            'type': 'string', 'minLength': 1, 'maxLength': 255}),
    },
    'maxProperties': schemas.MAX_MAP_KEYS,
}

REPORT = schemas.envelope('agent', {
    'host': {'type': 'string', 'minLength': 1, 'maxLength': 255},
    'agent_type': {'type': 'string', 'minLength': 1, 'maxLength': 255},
    'binary': {'type': 'string', 'minLength': 1, 'maxLength': 255},
    'topic': {'type': 'string', 'maxLength': 255},
    'availability_zone': {'type': ['string', 'null'], 'maxLength': 255},
    'configurations': CONFIGURATIONS,
    'start_flag': schemas.BOOLEAN,
}, required=['host', 'agent_type', 'binary'])

UPDATE = schemas.envelope('agent', {
    'admin_state_up': schemas.BOOLEAN,
    'description': schemas.DESCRIPTION,
})
