"""Bodies of the QoS policies and their minimum bandwidth rules."""

from nova_lite.api.network import schemas
from nova_lite.network import qos

_POLICY = {
    'name': schemas.NAME,
    'description': schemas.DESCRIPTION,
    'shared': schemas.BOOLEAN,
}

CREATE_POLICY = schemas.envelope('policy', dict(
    _POLICY, project_id=schemas.PROJECT_ID, tenant_id=schemas.PROJECT_ID))
UPDATE_POLICY = schemas.envelope('policy', _POLICY)

_RULE = {
    'min_kbps': {'type': 'integer', 'minimum': 1, 'maximum': 2 ** 31 - 1},
    'direction': {'enum': list(qos.DIRECTIONS)},
}
CREATE_RULE = schemas.envelope('minimum_bandwidth_rule', _RULE,
                               required=['min_kbps'])
UPDATE_RULE = schemas.envelope('minimum_bandwidth_rule', _RULE)
