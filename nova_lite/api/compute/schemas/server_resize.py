"""Schemas of the resize and cold-migration actions: ``resize``,
``migrate`` (a ``host`` from 2.56), ``confirmResize`` and
``revertResize``."""

import copy

from nova_lite.api.compute.schemas import servers as servers_schema

resize = {
    'type': 'object',
    'properties': {'resize': {
        'type': 'object',
        'properties': {
            'flavorRef': {'type': ['string', 'integer'], 'minLength': 1,
                          'maxLength': 255},
            'OS-DCF:diskConfig':
                servers_schema._SERVER_PROPERTIES['OS-DCF:diskConfig'],
        },
        'required': ['flavorRef'],
        'additionalProperties': False}},
    'required': ['resize'],
    'additionalProperties': False,
}

migrate = {'type': 'object', 'properties': {'migrate': {'type': 'null'}},
           'required': ['migrate'], 'additionalProperties': False}

migrate_v256 = copy.deepcopy(migrate)
migrate_v256['properties']['migrate'] = {
    'type': ['object', 'null'],
    'properties': {'host': {'type': ['string', 'null'], 'minLength': 1,
                            'maxLength': 255}},
    'additionalProperties': False}

confirm_resize = {'type': 'object',
                  'properties': {'confirmResize': {'type': 'null'}},
                  'required': ['confirmResize'],
                  'additionalProperties': False}

revert_resize = {'type': 'object',
                 'properties': {'revertResize': {'type': 'null'}},
                 'required': ['revertResize'],
                 'additionalProperties': False}
