"""Query string of GET /usages (1.9), checked as a JSON document."""

import copy

_OWNER = {'type': 'string', 'minLength': 1, 'maxLength': 255}

USAGES = {
    'type': 'object',
    'properties': {'project_id': _OWNER, 'user_id': _OWNER},
    'required': ['project_id'],
    'additionalProperties': False,
}
# 1.38: consumer_type= a type's name, 'all' or 'unknown'.
USAGES_TYPE = copy.deepcopy(USAGES)
USAGES_TYPE['properties']['consumer_type'] = {
    'type': 'string', 'pattern': '^[A-Z0-9_]+$|^all|^unknown$',
    'minLength': 1, 'maxLength': 255}
