"""Schemas of /servers, per microversion range.

The base schema is extended per range rather than copied: 2.19 adds
``description``, 2.37 requires ``networks``, 2.52 adds ``tags``, 2.57
removes ``personality``, 2.63 adds ``trusted_image_certificates``. An
update takes ``name`` (and, from 2.19, ``description``).
"""

import copy

from nova_lite.api.compute import schemas

_NAME = {'type': 'string', 'minLength': 1, 'maxLength': 255,
         'pattern': r'^(?!\s)[^\x00-\x1f]*(?<!\s)$'}
# At most 1000 servers per request, whatever the quota: an unlimited
# quota must not let one request ask for millions.
MAX_COUNT = 1000
_COUNT = {'type': ['integer', 'string'],
          'pattern': r'^0*([1-9][0-9]{0,2}|1000)$',
          'minimum': 1, 'maximum': MAX_COUNT}
_METADATA = {
    'type': 'object',
    'patternProperties': {
        r'^[a-zA-Z0-9-_:. ]{1,255}$': {'type': 'string', 'maxLength': 255},
    },
    'additionalProperties': False,
    'maxProperties': schemas.MAX_METADATA_ITEMS,
}
_NETWORK = {
    'type': 'object',
    'properties': {
        'uuid': {'type': 'string'},
        'port': {'type': ['string', 'null'], 'format': 'uuid'},
        'fixed_ip': {'type': 'string'},
        'tag': {'type': 'string', 'maxLength': 60},
    },
    'additionalProperties': False,
}
_NETWORKS_LIST = {'type': 'array', 'items': _NETWORK,
                  'maxItems': schemas.MAX_SERVER_PARTS}
_NETWORKS_AUTO = {'type': 'string', 'enum': ['auto', 'none']}
_BDM = {
    'type': 'object',
    'properties': {
        'boot_index': {'type': ['integer', 'string', 'null']},
        'uuid': {'type': 'string'},
        'source_type': {'type': 'string',
                        'enum': ['volume', 'image', 'snapshot', 'blank']},
        'destination_type': {'type': 'string',
                             'enum': ['local', 'volume']},
        'volume_size': {'type': ['integer', 'string', 'null']},
        'delete_on_termination': {'type': ['boolean', 'string']},
        'device_name': {'type': ['string', 'null']},
        'device_type': {'type': ['string', 'null']},
        'disk_bus': {'type': ['string', 'null']},
        'guest_format': {'type': ['string', 'null']},
        # A flag; its value is not read.
        'no_device': {'type': ['boolean', 'string', 'integer', 'null']},
        'tag': {'type': 'string', 'maxLength': 60},
        'volume_type': {'type': ['string', 'null']},
    },
    'additionalProperties': False,
}
_TAGS = {'type': 'array', 'maxItems': schemas.MAX_TAGS, 'uniqueItems': True,
         'items': {'type': 'string', 'minLength': 1, 'maxLength': 60,
                   'pattern': r'^[^,/]*$'}}

_SERVER_PROPERTIES = {
    'name': _NAME,
    'imageRef': {'type': ['string', 'null'], 'maxLength': 2048},
    'flavorRef': {'type': ['string', 'integer'], 'minLength': 1},
    'min_count': _COUNT,
    'max_count': _COUNT,
    'return_reservation_id': {'type': ['boolean', 'string']},
    'metadata': _METADATA,
    'key_name': {'type': ['string', 'null'], 'maxLength': 255},
    'availability_zone': {'type': ['string', 'null'], 'maxLength': 255},
    'user_data': {'type': ['string', 'null'], 'maxLength': 65535},
    'config_drive': {'type': ['boolean', 'string', 'null']},
    'adminPass': {'type': 'string'},
    'OS-DCF:diskConfig': {'type': 'string', 'enum': ['AUTO', 'MANUAL']},
    'security_groups': {
        'type': 'array', 'maxItems': schemas.MAX_SERVER_PARTS,
        'items': {'type': 'object',
                  'properties': {'name': {'type': 'string',
                                          'maxLength': 255}},
                  'additionalProperties': False}},
    'accessIPv4': {'type': ['string', 'null']},
    'accessIPv6': {'type': ['string', 'null']},
    'personality': {
        'type': 'array', 'maxItems': schemas.MAX_SERVER_PARTS,
        'items': {
            'type': 'object',
            'properties': {'path': {'type': 'string', 'minLength': 1,
                                    'maxLength': 255},
                           'contents': {'type': 'string'}},
            'required': ['path', 'contents'],
            'additionalProperties': False}},
    'networks': {'oneOf': [_NETWORKS_LIST, _NETWORKS_AUTO]},
    'block_device_mapping_v2': {'type': 'array', 'items': _BDM,
                                'maxItems': schemas.MAX_SERVER_PARTS},
    # The legacy mapping is accepted and not read.
    'block_device_mapping': {'type': 'array',
                             'maxItems': schemas.MAX_SERVER_PARTS},
}

# Any hint a filter may read, as Nova takes them; the spec keeps each as
# a list of strings.
_HINTS = {
    'type': 'object',
    'additionalProperties': {
        'type': ['string', 'integer', 'number', 'boolean', 'null', 'array',
                 'object'],
        'maxItems': schemas.MAX_HINT_VALUES,
        'maxProperties': schemas.MAX_HINTS,
    },
    'maxProperties': schemas.MAX_HINTS,
}

base_create = {
    'type': 'object',
    'properties': {
        'server': {
            'type': 'object',
            'properties': _SERVER_PROPERTIES,
            'required': ['name', 'flavorRef'],
            'additionalProperties': False,
        },
        'os:scheduler_hints': _HINTS,
        'OS-SCH-HNT:scheduler_hints': _HINTS,
    },
    'required': ['server'],
    'additionalProperties': False,
}

create_v219 = copy.deepcopy(base_create)
create_v219['properties']['server']['properties']['description'] = {
    'type': ['string', 'null'], 'maxLength': 255,
    'pattern': r'^[^\x00-\x08\x0b\x0c\x0e-\x1f]*$'}

create_v237 = copy.deepcopy(create_v219)
create_v237['properties']['server']['required'].append('networks')
create_v237['properties']['server']['properties']['networks'] = {
    'oneOf': [_NETWORKS_LIST, _NETWORKS_AUTO]}

create_v252 = copy.deepcopy(create_v237)
create_v252['properties']['server']['properties']['tags'] = _TAGS

create_v257 = copy.deepcopy(create_v252)
del create_v257['properties']['server']['properties']['personality']

# PUT /servers/{id}: the name (and the access addresses and disk config,
# which are taken and not kept, as at create); 2.19 adds description.
base_update = {
    'type': 'object',
    'properties': {
        'server': {
            'type': 'object',
            'properties': {
                name: _SERVER_PROPERTIES[name]
                for name in ('name', 'OS-DCF:diskConfig', 'accessIPv4',
                             'accessIPv6')},
            'additionalProperties': False,
        },
    },
    'required': ['server'],
    'additionalProperties': False,
}

update_v219 = copy.deepcopy(base_update)
update_v219['properties']['server']['properties']['description'] = (
    copy.deepcopy(create_v219['properties']['server']['properties']
                  ['description']))

create_v263 = copy.deepcopy(create_v257)
create_v263['properties']['server']['properties'][
    'trusted_image_certificates'] = {
        'type': ['array', 'null'], 'minItems': 1,
        'maxItems': schemas.MAX_TRUSTED_CERTS,
        'uniqueItems': True,
        'items': {'type': 'string', 'minLength': 1}}
