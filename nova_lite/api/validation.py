"""JSON-schema validation of request bodies and query strings.

``@schema(body_schema, '2.1', '2.36')`` checks the body of a request whose
microversion falls in the range; stack several for different ranges. A
failure is a 400 naming the field, never a 500.
"""

import functools

import jsonschema

from nova_lite import exception
from nova_lite.api import microversion

_FORMAT_CHECKER = jsonschema.Draft4Validator.FORMAT_CHECKER


def _field_path(error):
    path = '/'.join(str(p) for p in error.absolute_path)
    return path or 'request body'


def _message(error):
    if error.validator == 'additionalProperties' or not error.absolute_path:
        return error.message
    return 'Value: %r. %s' % (error.instance, error.message)


# {id(schema): (schema, validator)}: schemas are module constants, and
# building a validator costs more than most validations.
_VALIDATORS = {}


def _validator(schema):
    cached = _VALIDATORS.get(id(schema))
    if cached is None or cached[0] is not schema:
        cached = _VALIDATORS[id(schema)] = (
            schema, jsonschema.Draft4Validator(
                schema, format_checker=_FORMAT_CHECKER))
    return cached[1]


def validate(schema, document):
    """Raise ValidationError (400) if ``document`` does not fit ``schema``."""
    validator = _validator(schema)
    error = jsonschema.exceptions.best_match(validator.iter_errors(document))
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
