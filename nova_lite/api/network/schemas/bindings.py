"""Body of POST /v2.0/ports/{id}/bindings."""

from nova_lite.api.network import schemas
from nova_lite.network import bindings

CREATE = schemas.envelope('binding', {
    'host': {'type': 'string', 'minLength': 1, 'maxLength': 255},
    'profile': {'type': ['object', 'null'],
                'maxProperties': schemas.MAX_MAP_KEYS},
    'vnic_type': {'enum': list(bindings.VNIC_TYPES)},
}, required=['host'])
