"""Schemas of POST /servers/{id}/action, per action and microversion.

Rebuild: 2.19 adds ``description``, 2.54 ``key_name``, 2.57 ``user_data``
and removes ``personality``, 2.63 adds ``trusted_image_certificates``. The
other actions take the same body at every microversion we serve.
"""

import copy

from nova_lite.api.compute.schemas import servers as servers_schema

_PROPERTIES = servers_schema._SERVER_PROPERTIES

_REBUILD_PROPERTIES = {
    'imageRef': {'type': 'string', 'minLength': 1, 'maxLength': 2048},
    'name': _PROPERTIES['name'],
    'metadata': _PROPERTIES['metadata'],
    'adminPass': _PROPERTIES['adminPass'],
    'preserve_ephemeral': {'type': 'boolean'},
    'OS-DCF:diskConfig': _PROPERTIES['OS-DCF:diskConfig'],
    'accessIPv4': _PROPERTIES['accessIPv4'],
    'accessIPv6': _PROPERTIES['accessIPv6'],
    'personality': _PROPERTIES['personality'],
}


def _action(name, properties, required=()):
    return {
        'type': 'object',
        'properties': {name: {'type': 'object', 'properties': properties,
                              'required': list(required),
                              'additionalProperties': False}},
        'required': [name],
        'additionalProperties': False,
    }


rebuild = _action('rebuild', _REBUILD_PROPERTIES, ['imageRef'])

rebuild_v219 = copy.deepcopy(rebuild)
rebuild_v219['properties']['rebuild']['properties']['description'] = (
    copy.deepcopy(servers_schema.create_v219['properties']['server']
                  ['properties']['description']))

rebuild_v254 = copy.deepcopy(rebuild_v219)
rebuild_v254['properties']['rebuild']['properties']['key_name'] = {
    'type': ['string', 'null'], 'minLength': 1, 'maxLength': 255}

rebuild_v257 = copy.deepcopy(rebuild_v254)
del rebuild_v257['properties']['rebuild']['properties']['personality']
rebuild_v257['properties']['rebuild']['properties']['user_data'] = {
    'type': ['string', 'null'], 'maxLength': 65535}

rebuild_v263 = copy.deepcopy(rebuild_v257)
rebuild_v263['properties']['rebuild']['properties'][
    'trusted_image_certificates'] = copy.deepcopy(
        servers_schema.create_v263['properties']['server']['properties']
        ['trusted_image_certificates'])

stop = {'type': 'object',
        'properties': {'os-stop': {'type': 'null'}},
        'required': ['os-stop'], 'additionalProperties': False}
start = {'type': 'object',
         'properties': {'os-start': {'type': 'null'}},
         'required': ['os-start'], 'additionalProperties': False}


# Evacuate: 2.14 drops onSharedStorage (and the adminPass answer), 2.29
# adds force.
_EVACUATE_PROPERTIES = {
    'host': {'type': 'string', 'minLength': 1, 'maxLength': 255},
    'adminPass': _PROPERTIES['adminPass'],
    'onSharedStorage': {'type': ['boolean', 'string']},
}
evacuate = _action('evacuate', _EVACUATE_PROPERTIES, ['onSharedStorage'])

evacuate_v214 = copy.deepcopy(evacuate)
del evacuate_v214['properties']['evacuate']['properties']['onSharedStorage']
evacuate_v214['properties']['evacuate']['required'] = []

evacuate_v229 = copy.deepcopy(evacuate_v214)
evacuate_v229['properties']['evacuate']['properties']['force'] = {
    'type': 'boolean'}


# shelve and shelveOffload take null; unshelve takes null (an availability
# zone is a later microversion's).
shelve = {'type': 'object', 'properties': {'shelve': {'type': 'null'}},
          'required': ['shelve'], 'additionalProperties': False}
shelve_offload = {'type': 'object',
                  'properties': {'shelveOffload': {'type': 'null'}},
                  'required': ['shelveOffload'],
                  'additionalProperties': False}
unshelve = {'type': 'object', 'properties': {'unshelve': {'type': 'null'}},
            'required': ['unshelve'], 'additionalProperties': False}


# os-migrateLive: block_migration is a boolean with disk_over_commit before
# 2.25, then "auto" or a boolean; force from 2.30; host may be null.
_MIGRATE_LIVE_PROPERTIES = {
    'host': {'type': ['string', 'null'], 'minLength': 1, 'maxLength': 255},
    'block_migration': {'type': ['boolean', 'string'],
                        'enum': [True, False, 'True', 'False', 'true',
                                 'false']},
    'disk_over_commit': {'type': ['boolean', 'string'],
                         'enum': [True, False, 'True', 'False', 'true',
                                  'false']},
}
migrate_live = _action('os-migrateLive', _MIGRATE_LIVE_PROPERTIES,
                       ['block_migration', 'disk_over_commit', 'host'])

migrate_live_v225 = copy.deepcopy(migrate_live)
_v225 = migrate_live_v225['properties']['os-migrateLive']
del _v225['properties']['disk_over_commit']
_v225['properties']['block_migration'] = {
    'type': ['boolean', 'string'], 'enum': [True, False, 'auto']}
_v225['required'] = ['block_migration', 'host']

migrate_live_v230 = copy.deepcopy(migrate_live_v225)
migrate_live_v230['properties']['os-migrateLive']['properties']['force'] = {
    'type': 'boolean'}


# reboot: SOFT or HARD, spelled as Nova takes it.
reboot = _action('reboot', {
    'type': {'type': 'string',
             'enum': ['HARD', 'Hard', 'hard', 'SOFT', 'Soft', 'soft']}},
    ['type'])


def _without_argument(name):
    return {'type': 'object', 'properties': {name: {'type': 'null'}},
            'required': [name], 'additionalProperties': False}


# pause, unpause, suspend, resume, lock and unlock take null (a lock's
# reason is a later microversion's).
pause = _without_argument('pause')
unpause = _without_argument('unpause')
suspend = _without_argument('suspend')
resume = _without_argument('resume')
lock = _without_argument('lock')
unlock = _without_argument('unlock')

reset_state = _action('os-resetState', {
    'state': {'type': 'string', 'enum': ['active', 'error']}}, ['state'])
