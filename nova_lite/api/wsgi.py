"""Request dispatch from a route table, and JSON in and out.

A service declares ``ROUTES = {'/things/{uuid}': {'GET': show, ...}}``.
Path parameters match any one path segment (no regex): a malformed id
reaches the handler, which answers a specific 404 instead of a generic
one. A path that matches but lacks the method is a 405 with ``Allow``.

A handler is ``handler(request, **path_params)`` and returns a
``webob.Response`` (see ``json_response``). Exceptions become error bodies
here: a ``NovaLiteException`` answers its ``code``; anything unexpected is
logged with its traceback and answered 500 with a generic message.
"""

import re

from oslo_log import log as logging
import oslo_messaging as messaging
from oslo_serialization import jsonutils
from oslo_utils import uuidutils
import webob
import webob.dec
import webob.exc

from nova_lite import conf as nova_conf
from nova_lite import exception
from nova_lite import outage
from nova_lite.api import faults

CONF = nova_conf.CONF
LOG = logging.getLogger(__name__)

# What a 503 asks its client to wait before trying again.
RETRY_AFTER_SECONDS = 5

CONTEXT_KEY = 'nova_lite.context'
VERSION_KEY = 'nova_lite.api_version'
REQUEST_ID_HEADER = 'X-OpenStack-Request-Id'
_PARAM = re.compile(r'\{([a-zA-Z_][a-zA-Z0-9_]*)\}')


class Request(webob.Request):
    """A webob request that knows its context and microversion."""

    @property
    def context(self):
        return self.environ.get(CONTEXT_KEY)

    @property
    def api_version(self):
        return self.environ.get(VERSION_KEY)

    def is_version(self, minimum):
        """Whether the negotiated microversion is at least ``minimum``."""
        from nova_lite.api import microversion
        version = self.api_version
        return version is not None and version >= microversion.parse(minimum)

    def json_body_or_fail(self):
        """The parsed JSON body; 400 if it is missing or malformed."""
        cached = self.environ.get('nova_lite.json_body')
        if cached is not None:
            return cached
        if not self.body:
            raise exception.MalformedRequestBody(
                reason='the request has no body')
        try:
            document = jsonutils.loads(self.body.decode('utf-8'))
        except (ValueError, UnicodeDecodeError) as e:
            raise exception.MalformedRequestBody(
                reason='it is not valid JSON (%s)' % e)
        except RecursionError:
            raise exception.MalformedRequestBody(
                reason='it is nested too deeply')
        self.environ['nova_lite.json_body'] = document
        return document

    def endpoint(self):
        """Base URL clients reach this service at, for links."""
        if CONF.api.public_endpoint:
            return CONF.api.public_endpoint.rstrip('/')
        return self.application_url.rstrip('/')


def json_response(document, status=200, headers=None):
    response = webob.Response(status=status, charset='utf-8',
                              content_type='application/json')
    response.body = jsonutils.dump_as_bytes(document)
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


def empty_response(status=204, headers=None):
    response = webob.Response(status=status)
    response.content_type = None
    response.headers.pop('Content-Type', None)
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


# A URL (credentials in it included), or an address with a port: where a
# peer service, the broker or a database lives.
_ADDRESS = re.compile(
    r'[a-zA-Z][a-zA-Z0-9+.-]*://[^\s\'")]+'
    r'|\[[0-9a-fA-F:.]+\](?::\d+)?'
    r'|\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b'
    r'|\b(?=[a-zA-Z0-9.-]*[a-zA-Z])[a-zA-Z0-9-]+(?:\.[a-zA-Z0-9-]+)*'
    r':\d{2,5}\b')


def redact_addresses(message):
    """``message`` with every URL and host:port in it replaced: what a
    client is told when a peer failed."""
    return _ADDRESS.sub('<address>', message)


def check_url(request):
    """400 unless the path and query string are UTF-8 once unquoted
    (webob would raise UnicodeDecodeError on reading them)."""
    try:
        request.path_info
        request.GET
    except UnicodeDecodeError:
        raise exception.Invalid(
            reason='the request URL is not valid UTF-8 once '
                   'percent-decoded.')


def safe_path(request):
    """The request path for a log line, even when it is not UTF-8."""
    try:
        return request.path
    except UnicodeDecodeError:
        return repr(request.environ.get('PATH_INFO'))


def require_uuid(value, not_found):
    """Raise ``not_found`` unless ``value`` looks like a UUID."""
    if not uuidutils.is_uuid_like(value):
        raise not_found


class _Route:

    def __init__(self, template, methods):
        self.template = template
        self.methods = methods
        pattern = _PARAM.sub(lambda m: '(?P<%s>[^/]+)' % m.group(1),
                             re.escape(template).replace(r'\{', '{')
                             .replace(r'\}', '}'))
        self.regex = re.compile('^%s$' % pattern)

    def match(self, path):
        found = self.regex.match(path)
        return found.groupdict() if found else None


def _normalize(path):
    # /v2.1/ and /v2.1 are the same resource; clients differ on which they
    # ask for.
    if len(path) > 1 and path.endswith('/'):
        path = path.rstrip('/') or '/'
    return path or '/'


class Application:
    """A WSGI application dispatching a route table.

    ``microversions`` is a ``MicroversionSpec`` (or None for a service
    without microversions); ``error_formatter`` builds error bodies.
    """

    def __init__(self, routes, microversions=None,
                 error_formatter=faults.compute_fault_body):
        # Literal paths win over templates (/flavors/detail is not a flavor
        # called "detail").
        self.routes = sorted((_Route(template, methods)
                              for template, methods in routes.items()),
                             key=lambda r: len(_PARAM.findall(r.template)))
        self.microversions = microversions
        self.error_formatter = error_formatter

    def __call__(self, environ, start_response):
        request = Request(environ)
        try:
            check_url(request)
            handler, params = self._dispatch(request)
            response = handler(request, **params)
        except Exception as error:
            response = self._error(request, error)
        self._decorate(request, response, request.api_version)
        return response(environ, start_response)

    def _dispatch(self, request):
        """The handler of ``request`` and its path parameters: the route
        is found first, then the microversion (``request.api_version``)."""
        route, params = self._match(request)
        self._negotiate(request)
        return route.methods[request.method], params

    def _negotiate(self, request):
        if self.microversions is not None:
            request.environ[VERSION_KEY] = self.microversions.negotiate(
                request.headers)

    def _match(self, request):
        path = _normalize(request.path_info)
        for route in self.routes:
            params = route.match(path)
            if params is None:
                continue
            if request.method not in route.methods:
                raise _MethodNotAllowed(request.method, sorted(route.methods))
            return route, params
        raise exception.NotFound('The resource could not be found.')

    def _decorate(self, request, response, version):
        if self.microversions is not None:
            for name, value in self.microversions.response_headers(
                    version).items():
                response.headers[name] = value
        context = request.context
        if context is not None and context.request_id:
            response.headers[REQUEST_ID_HEADER] = context.request_id

    def _error(self, request, error):
        headers = {}
        error_code = None
        if isinstance(error, _MethodNotAllowed):
            status, message = 405, error.message
            headers['Allow'] = ', '.join(error.allowed)
        elif isinstance(error, exception.NovaLiteException):
            status, message = error.code, error.format_message()
            # A stable code when the error has one (placement's
            # 'placement.concurrent_update'), else the class name.
            error_code = (getattr(error, 'error_code', None) or
                          type(error).__name__)
            if status >= 500:
                LOG.error('%s %s failed: %s', request.method,
                          safe_path(request), message)
        elif isinstance(error, webob.exc.HTTPException):
            status, message = error.code, error.detail or error.explanation
        elif isinstance(error, messaging.MessagingTimeout):
            status = 504
            message = 'A service did not answer in time: %s' % error
            LOG.error('%s %s: %s', request.method, safe_path(request),
                      message)
        elif isinstance(error, (messaging.MessagingException,) +
                        outage.BROKER_AWAY):
            status = 503
            message = 'The message bus is unavailable: %s' % error
            LOG.error('%s %s: %s', request.method, safe_path(request),
                      message)
        else:
            request_id = getattr(request.context, 'request_id', None)
            LOG.exception('Unexpected error in %s %s (request %s)',
                          request.method, safe_path(request), request_id)
            status, message = 500, faults.generic_500_message(request_id)
        if status >= 500:
            # The log has the whole message; the client gets it without
            # the deployment's internal addresses.
            message = redact_addresses(message)
        if status == 503:
            # A peer (the broker, a database, a service) is away: nothing
            # was accepted, and asking again in a moment may well work.
            headers['Retry-After'] = str(RETRY_AFTER_SECONDS)
        return faults.error_response(status, message, self.error_formatter,
                                     error_code=error_code, headers=headers)


class _MethodNotAllowed(Exception):

    def __init__(self, method, allowed):
        self.allowed = allowed
        self.message = ('The method %s is not allowed for this resource. '
                        'It allows %s.' % (method, ', '.join(allowed)))
        super().__init__(self.message)


class VersionHeaders:
    """Outermost middleware: microversion headers on every response.

    ``Application`` sets them on what it answers; this covers answers
    made before it is reached (401 from authentication), and turns a
    failure of a middleware in between (e.g. a misconfigured
    keystonemiddleware) into a logged 500 rather than a traceback.
    """

    def __init__(self, application, microversions,
                 error_formatter=faults.compute_fault_body):
        self.application = application
        self.microversions = microversions
        self.error_formatter = error_formatter

    @webob.dec.wsgify(RequestClass=Request)
    def __call__(self, request):
        try:
            response = request.get_response(self.application)
        except Exception:
            LOG.exception('Unexpected error in the middleware of %s %s',
                          request.method, safe_path(request))
            response = faults.error_response(
                500, faults.generic_500_message(), self.error_formatter)
        if 'Vary' not in response.headers:
            try:
                version = self.microversions.negotiate(request.headers)
            except exception.NovaLiteException:
                version = None
            for name, value in self.microversions.response_headers(
                    version).items():
                response.headers[name] = value
        return response
