"""oslo.middleware in front of every REST service (the Compute API,
placement, the port service), outermost first:

- ``HTTPProxyToWSGI``: behind a TLS-terminating proxy, the scheme and host
  of the links come from its ``X-Forwarded-*`` headers
  (``[oslo_middleware] enable_proxy_headers_parsing``, off by default: a
  client could forge them).
- ``RequestId``: every request gets a fresh ``req-<uuid>``, the one its log
  lines and the ``X-OpenStack-Request-ID`` answer carry. A caller's
  ``X-OpenStack-Request-ID`` becomes the global request id only if it has
  that exact shape, so a client cannot write what it likes into every
  daemon's logs.
- ``CORS``, only when ``[cors] allowed_origin`` names origins (as
  OpenStack Placement and Nova add it): a browser page of such an origin
  may call the API, its preflight ``OPTIONS`` answered here without a
  token; without it, ``OPTIONS`` is the route table's 405.
- ``Healthcheck``, the application of ``/healthcheck``: 200 without a
  token for load balancers, 503 while the file ``[healthcheck]
  disable_by_file_path`` exists (take a daemon out of a pool before
  stopping it).
- ``RequestBodySizeLimiter``: a body over ``[oslo_middleware]
  max_request_body_size`` bytes is refused with 413, in the service's
  error format: before it is read when its length is declared, when
  the limit is reached while reading a chunked one.
"""

from oslo_middleware import cors
from oslo_middleware import healthcheck
from oslo_middleware import http_proxy_to_wsgi
from oslo_middleware import request_id
from oslo_middleware import sizelimit
import webob.dec

from nova_lite.api import faults
from nova_lite import conf as nova_conf

CONF = nova_conf.CONF


HEALTHCHECK_PATH = '/healthcheck'


class _HealthcheckAt:
    """``/healthcheck`` to oslo.middleware's health check, the rest to
    ``application``."""

    def __init__(self, application):
        self.application = application
        self.healthcheck = healthcheck.Healthcheck(None, CONF)

    def __call__(self, environ, start_response):
        if environ.get('PATH_INFO', '').rstrip('/') == HEALTHCHECK_PATH:
            return self.healthcheck(environ, start_response)
        return self.application(environ, start_response)


class _BodySizeLimit(sizelimit.RequestBodySizeLimiter):
    """oslo.middleware's limit, its refusal in the service's error format
    (a chunked body over the limit fails its read in the application,
    which answers 413 the same way)."""

    def __init__(self, application, error_formatter):
        super().__init__(application, CONF)
        self.error_formatter = error_formatter

    @webob.dec.wsgify
    def __call__(self, request):
        limit = self._conf_get('max_request_body_size')
        if request.content_length is not None and \
                request.content_length > limit:
            return faults.error_response(
                413, 'The request body is %d bytes, more than the %d '
                     'this service takes.' % (request.content_length, limit),
                self.error_formatter)
        if request.content_length is None:
            request.body_file = sizelimit.LimitingReader(request.body_file,
                                                         limit)
        return request.get_response(self.application)


def wrap(application, error_formatter):
    """``application`` behind the middleware above; ``error_formatter``
    shapes its refusals as the service's own errors."""
    application = _BodySizeLimit(application, error_formatter)
    application = _HealthcheckAt(application)
    if CONF.cors.allowed_origin:
        application = cors.CORS(application, CONF)
    application = request_id.RequestId(application, CONF)
    return http_proxy_to_wsgi.HTTPProxyToWSGI(application, CONF)


def global_request_id(request):
    """The caller's global request id, if it is a well-formed one."""
    return request.environ.get(request_id.GLOBAL_REQ_ID)


def local_request_id(request):
    """The id ``RequestId`` gave this request (None outside it)."""
    return request.environ.get(request_id.ENV_REQUEST_ID)
