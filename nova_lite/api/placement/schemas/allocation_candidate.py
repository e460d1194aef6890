"""The query string of GET /allocation_candidates, per microversion.

Checked as a dict (the last value of a repeated key) before anything is
parsed, so that an unknown or malformed key is refused in jsonschema's
words, as OpenStack Placement refuses it.
"""

import functools

_NUMBERED = '[1-9][0-9]*'
# From 1.33 a suffix is any 1 to 64 of these.
_NAMED = '[a-zA-Z0-9_-]{1,64}'
_STRING = {'type': 'string'}


def _group_keys(params, suffix):
    return {'^%s(%s)?$' % (param, suffix): _STRING for param in params}


def query_schema(request):
    """The schema of the query string at the request's microversion."""
    return _schema(tuple(request.is_version(v) for v in _STEPS))


# The microversions at which the query string changes.
_STEPS = ('1.16', '1.17', '1.21', '1.25', '1.31', '1.33', '1.35', '1.36')


@functools.lru_cache(maxsize=None)
def _schema(steps):
    """One schema object per shape (the validators are cached by it)."""
    at = dict(zip(_STEPS, steps))
    properties = {}
    schema = {'type': 'object', 'properties': properties,
              'additionalProperties': False}
    if at['1.16']:
        properties['limit'] = {'type': ['integer', 'string'],
                               'pattern': '^[1-9][0-9]*$', 'minimum': 1,
                               'minLength': 1}
    if not at['1.25']:
        # One group, named by unsuffixed keys only.
        properties['resources'] = _STRING
        schema['required'] = ['resources']
        if at['1.17']:
            properties['required'] = _STRING
        if at['1.21']:
            properties['member_of'] = _STRING
        return schema
    params = ['resources', 'required', 'member_of']
    if at['1.31']:
        params.append('in_tree')
    schema['patternProperties'] = _group_keys(
        params, _NAMED if at['1.33'] else _NUMBERED)
    properties['group_policy'] = {'type': 'string',
                                  'enum': ['none', 'isolate']}
    if at['1.35']:
        properties['root_required'] = _STRING
    if at['1.36']:
        properties['same_subtree'] = _STRING
    return schema
