"""JSON-schema validation of request bodies and query strings.

``@schema(body_schema, '2.1', '2.36')`` checks the body of a request whose
microversion falls in the range; stack several for different ranges. A
failure is a 400 naming the field, never a 500.

A list or map over its schema's ``maxItems`` / ``maxProperties`` is
refused for that alone: its items are not looked at, so a request's work
stays bounded by the schema, not by the body size. ``uniqueItems`` takes
linear time (jsonschema's own compares every pair of unhashable items:
seconds for a few thousand). Messages quote at most a short piece of
what the client sent.
"""

import copy
import functools
import math

import jsonschema
from oslo_utils import uuidutils

from nova_lite import exception
from nova_lite.api import microversion

# Draft 4's formats, and 'uuid' as Nova and Placement check it (with or
# without dashes, any case; like every format, it says nothing of a value
# that is not a string).
_FORMAT_CHECKER = copy.deepcopy(jsonschema.Draft4Validator.FORMAT_CHECKER)
_FORMAT_CHECKER.checks('uuid')(
    lambda value: not isinstance(value, str) or
    uuidutils.is_uuid_like(value))
# How much of a client's value a message quotes.
_QUOTED = 100


def _short(value):
    text = repr(value)
    if len(text) <= _QUOTED:
        return text
    return text[:_QUOTED] + '...'


def _over_bound(validator, instance, schema):
    if validator.is_type(instance, 'array'):
        return len(instance) > schema.get('maxItems', math.inf)
    if validator.is_type(instance, 'object'):
        return len(instance) > schema.get('maxProperties', math.inf)
    return False


def _within_bounds_only(check):
    """``check`` (a keyword's), skipped on a list or map over its bound:
    the bound's own keyword reports it."""
    def checked(validator, value, instance, schema):
        if not _over_bound(validator, instance, schema):
            yield from check(validator, value, instance, schema)
    return checked


def _identity(value):
    """A hashable stand-in for a JSON value, equal for equal values
    (1 and 1.0 alike, True and 1 not, as JSON Schema compares them)."""
    if isinstance(value, bool):
        return ('bool', value)
    if isinstance(value, dict):
        return ('object', frozenset((k, _identity(v))
                                    for k, v in value.items()))
    if isinstance(value, list):
        return ('array', tuple(_identity(v) for v in value))
    return ('scalar', value)


def _unique_items(validator, unique, instance, schema):
    if not unique or not validator.is_type(instance, 'array'):
        return
    seen = set()
    for index, item in enumerate(instance):
        key = _identity(item)
        if key in seen:
            # jsonschema's words first: clients (and Placement's API
            # tests) look for them.
            yield jsonschema.ValidationError(
                '%s has non-unique elements (item %d, %s, is given more '
                'than once).' % (_short(instance), index, _short(item)))
            return
        seen.add(key)


_BOUNDED = {keyword: _within_bounds_only(
    jsonschema.Draft4Validator.VALIDATORS[keyword])
    for keyword in ('items', 'additionalItems', 'properties',
                    'patternProperties', 'additionalProperties',
                    'dependencies')}
_BOUNDED['uniqueItems'] = _within_bounds_only(_unique_items)
_Validator = jsonschema.validators.extend(jsonschema.Draft4Validator,
                                          _BOUNDED)


def _field_path(error):
    path = '/'.join(str(p) for p in error.absolute_path)
    return path or 'request body'


_COUNTED = {'maxItems': ('items', 'at most'),
            'minItems': ('items', 'at least'),
            'maxProperties': ('keys', 'at most'),
            'minProperties': ('keys', 'at least')}


def _message(error):
    if error.validator in _COUNTED:
        noun, bound = _COUNTED[error.validator]
        return 'It has %d %s; %s %d are allowed.' % (
            len(error.instance), noun, bound, error.validator_value)
    if error.validator in ('maxLength', 'minLength'):
        return 'Value: %s. It has %d characters; %s %d are allowed.' % (
            _short(error.instance), len(error.instance),
            'at most' if error.validator == 'maxLength' else 'at least',
            error.validator_value)
    # jsonschema's messages quote the whole value.
    message = error.message.replace(repr(error.instance),
                                    _short(error.instance))
    if error.validator == 'additionalProperties' or not error.absolute_path:
        return message
    return 'Value: %s. %s' % (_short(error.instance), message)


# {id(schema): (schema, validator)}: schemas are module constants, and
# building a validator costs more than most validations.
_VALIDATORS = {}


def _validator(schema):
    cached = _VALIDATORS.get(id(schema))
    if cached is None or cached[0] is not schema:
        cached = _VALIDATORS[id(schema)] = (
            schema, _Validator(schema, format_checker=_FORMAT_CHECKER))
    return cached[1]


def best_error(schema, document):
    """The most relevant way ``document`` does not fit ``schema`` (a
    jsonschema ValidationError), or None when it fits."""
    try:
        return jsonschema.exceptions.best_match(
            _validator(schema).iter_errors(document))
    except RecursionError:
        raise exception.ValidationError(attribute='request body',
                                        reason='It is nested too deeply.')


def validate(schema, document):
    """Raise ValidationError (400) if ``document`` does not fit ``schema``."""
    error = best_error(schema, document)
    if error is not None:
        raise exception.ValidationError(attribute=_field_path(error),
                                        reason=_message(error))


def _in_range(request, min_version, max_version):
    version = request.api_version
    if version is None:
        return True
    low = microversion.parse(min_version) if min_version else None
    high = microversion.parse(max_version) if max_version else None
    return (low is None or version >= low) and (high is None or
                                                version <= high)


def schema(body_schema, min_version=None, max_version=None):
    """Validate the JSON body of requests in [min_version, max_version]."""
    def decorator(handler):
        @functools.wraps(handler)
        def wrapper(request, *args, **kwargs):
            if _in_range(request, min_version, max_version):
                validate(body_schema, request.json_body_or_fail())
            return handler(request, *args, **kwargs)
        return wrapper
    return decorator


def query_schema(params_schema, min_version=None, max_version=None):
    """Validate query parameters (each a list of strings) of a request."""
    def decorator(handler):
        @functools.wraps(handler)
        def wrapper(request, *args, **kwargs):
            if _in_range(request, min_version, max_version):
                params = {key: request.GET.getall(key)
                          for key in request.GET.keys()}
                validate(params_schema, params)
            return handler(request, *args, **kwargs)
        return wrapper
    return decorator
