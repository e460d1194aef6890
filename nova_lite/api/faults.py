"""Error bodies. Every failure a client sees is one of these, never a trace.

The Compute API wraps the error in a key named for its kind
(``{"itemNotFound": {"code": 404, "message": "..."}}``); other services
(placement) can pass their own formatter to ``wsgi.Application``.
"""

from oslo_serialization import jsonutils
import webob

_COMPUTE_FAULT_NAMES = {
    400: 'badRequest',
    401: 'unauthorized',
    403: 'forbidden',
    404: 'itemNotFound',
    405: 'badMethod',
    406: 'notAcceptable',
    409: 'conflictingRequest',
    413: 'overLimit',
    415: 'badMediaType',
    429: 'overLimit',
    501: 'notImplemented',
    503: 'serviceUnavailable',
}


def generic_500_message(request_id=None):
    """What a client is told about an unexpected error: nothing internal."""
    message = 'Unexpected API Error. Please report it to the operator'
    if request_id:
        message += ', quoting request id %s' % request_id
    return message + '.'


def compute_fault_body(status, message, error_code=None):
    """The Compute API's error document for ``status``."""
    name = _COMPUTE_FAULT_NAMES.get(status, 'computeFault')
    fault = {'code': status, 'message': message}
    if error_code:
        # A stable, machine-readable name of the error (the exception class),
        # for clients that must tell two 409s apart. Extra keys are ignored
        # by clients that only read code and message.
        fault['error_code'] = error_code
    return {name: fault}


def error_response(status, message, formatter=compute_fault_body,
                   error_code=None, headers=None):
    response = webob.Response(status=status, content_type='application/json',
                              charset='utf-8')
    response.body = jsonutils.dump_as_bytes(
        formatter(status, message, error_code))
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response
