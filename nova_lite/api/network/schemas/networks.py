"""Bodies of POST /v2.0/networks and PUT /v2.0/networks/{id}."""

from nova_lite.api.network import schemas
from nova_lite.network import networks

_COMMON = {
    'name': schemas.NAME,
    'description': schemas.DESCRIPTION,
    'admin_state_up': schemas.BOOLEAN,
    'shared': schemas.BOOLEAN,
    'mtu': {'type': 'integer', 'minimum': 68, 'maximum': 65535},
    'qos_policy_id': schemas.NULLABLE_UUID,
}

CREATE = schemas.envelope('network', dict(
    _COMMON,
    project_id=schemas.PROJECT_ID,
    tenant_id=schemas.PROJECT_ID,
    tags=schemas.TAGS,
    **{'provider:network_type': {'enum': list(networks.NETWORK_TYPES)},
       'provider:physical_network': {
           'type': ['string', 'null'], 'minLength': 1, 'maxLength': 64},
       'provider:segmentation_id': {
           'type': ['integer', 'null'], 'minimum': 0}}))

UPDATE = schemas.envelope('network', dict(_COMMON, tags=schemas.TAGS))
