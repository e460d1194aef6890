"""Bodies of POST /v2.0/ports and PUT /v2.0/ports/{id}."""

from nova_lite.api.network import schemas
from nova_lite.network import bindings

MAC_ADDRESS = {'type': 'string',
               'pattern': '^([0-9a-fA-F]{2}[:-]){5}[0-9a-fA-F]{2}$'}

_COMMON = {
    'name': schemas.NAME,
    'description': schemas.DESCRIPTION,
    'admin_state_up': schemas.BOOLEAN,
    'mac_address': MAC_ADDRESS,
    'device_id': {'type': ['string', 'null'], 'maxLength': 255},
    'device_owner': {'type': ['string', 'null'], 'maxLength': 255},
    # No subnets here: a port has no fixed IPs.
    'fixed_ips': {'type': 'array', 'maxItems': 0},
    'security_groups': {'type': ['array', 'null'], 'uniqueItems': True,
                        'maxItems': 50,
                        'items': {'type': 'string', 'maxLength': 255}},
    'qos_policy_id': schemas.NULLABLE_UUID,
    'tags': schemas.TAGS,
    'binding:host_id': {'type': ['string', 'null'], 'maxLength': 255},
    'binding:profile': {'type': ['object', 'null'],
                        'maxProperties': schemas.MAX_MAP_KEYS},
    'binding:vnic_type': {'enum': list(bindings.VNIC_TYPES)},
}

CREATE = schemas.envelope('port', dict(
    _COMMON, network_id=schemas.UUID, project_id=schemas.PROJECT_ID,
    tenant_id=schemas.PROJECT_ID), required=['network_id'])

UPDATE = schemas.envelope('port', _COMMON)
