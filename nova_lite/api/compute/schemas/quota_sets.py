"""Schemas of /os-quota-sets and /os-quota-class-sets, per microversion
range.

A limit is an integer from -1 (no limit), as a JSON number or a string
of digits (the handler checks the range of a string). The config-only
resources (``metadata_items``, and ``injected_*`` before 2.57) are taken
so that a client may send back what it read; the handler refuses a value
that differs from the operator's. A quota class takes ``server_groups``
and ``server_group_members`` from 2.50; a quota set takes ``force``.
"""

from nova_lite import quota

_LIMIT = {'type': ['integer', 'string'], 'pattern': r'^-?[0-9]+$',
          'minimum': quota.UNLIMITED, 'maximum': 2 ** 31 - 1}
_BOOLEAN = {'type': ['boolean', 'string'],
            'enum': [True, False, 'true', 'false', 'True', 'False', '1',
                     '0', 'yes', 'no', 'on', 'off']}
_GROUP_RESOURCES = ('server_groups', 'server_group_members')


def _body(key, resources, extra=None):
    properties = {resource: _LIMIT for resource in resources}
    properties.update(extra or {})
    return {
        'type': 'object',
        'properties': {
            key: {'type': 'object', 'properties': properties,
                  'additionalProperties': False},
        },
        'required': [key],
        'additionalProperties': False,
    }


_UP_TO_256 = quota.RESOURCES + quota.CONFIG_ONLY_RESOURCES
_FROM_257 = quota.RESOURCES + ('metadata_items',)

update = _body('quota_set', _UP_TO_256, {'force': _BOOLEAN})
# 2.57: no injected files.
update_v257 = _body('quota_set', _FROM_257, {'force': _BOOLEAN})

update_class = _body('quota_class_set', [
    r for r in _UP_TO_256 if r not in _GROUP_RESOURCES])
# 2.50: server group limits are part of the class.
update_class_v250 = _body('quota_class_set', _UP_TO_256)
update_class_v257 = _body('quota_class_set', _FROM_257)
