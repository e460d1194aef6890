"""Schemas of /os-server-groups, per microversion range.

Before 2.64 a group is created with ``policies``, a list of exactly one
policy (the soft ones from 2.15); from 2.64 with one ``policy`` and
optional ``rules``. Whether the rules fit the policy, and their values,
are checked by the handler, which can say why.
"""

import copy

from nova_lite.objects import instance_group as group_obj

_NAME = {'type': 'string', 'minLength': 1, 'maxLength': 255,
         'pattern': r'^(?!\s)[^\x00-\x1f]*(?<!\s)$'}
_HARD_POLICIES = [group_obj.AFFINITY, group_obj.ANTI_AFFINITY]
_ALL_POLICIES = list(group_obj.POLICIES)

# A JSON number or (as the openstack CLI sends --rule
# max_server_per_host=2) a string; the handler checks that it is a
# positive integer and says so if not.
_INTEGER_OR_STRING = {'type': ['integer', 'string']}


def _policies(allowed):
    return {'type': 'array', 'minItems': 1, 'maxItems': 1,
            'items': {'type': 'string', 'enum': list(allowed)}}


create = {
    'type': 'object',
    'properties': {
        'server_group': {
            'type': 'object',
            'properties': {
                'name': _NAME,
                'policies': _policies(_HARD_POLICIES),
            },
            'required': ['name', 'policies'],
            'additionalProperties': False,
        },
    },
    'required': ['server_group'],
    'additionalProperties': False,
}

create_v215 = copy.deepcopy(create)
create_v215['properties']['server_group']['properties']['policies'] = (
    _policies(_ALL_POLICIES))

create_v264 = copy.deepcopy(create)
create_v264['properties']['server_group'].update({
    'properties': {
        'name': _NAME,
        'policy': {'type': 'string', 'enum': _ALL_POLICIES},
        'rules': {
            'type': 'object',
            'properties': {'max_server_per_host': _INTEGER_OR_STRING},
            'additionalProperties': False,
        },
    },
    'required': ['name', 'policy'],
})
