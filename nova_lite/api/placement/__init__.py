"""The Placement API (nova-lite-placement, port 8778).

Resource providers, their inventories, traits and aggregates; resource
classes; the allocations consumers hold and the usages they add up to;
allocation candidates for the scheduler. The routes are declared in
``handler.py``, the microversions in ``microversion.py``; the data layer is
``nova_lite.placement``.

Errors have Placement's body, ``{"errors": [{"status", "title", "detail",
"code", "request_id"}]}``, with a stable ``code`` from microversion 1.23.
"""

from oslo_serialization import jsonutils
from oslo_utils import timeutils
import webob.exc

from nova_lite import exception as nova_exception
from nova_lite.api import auth
from nova_lite.api import middleware
from nova_lite.api import microversion as api_microversion
from nova_lite.api import wsgi
from nova_lite.api.placement import handler
from nova_lite.api.placement import media
from nova_lite.api.placement import microversion as mv
from nova_lite.placement import exception

MIN_VERSION = mv.MIN_VERSION
MAX_VERSION = mv.MAX_VERSION
_ROUTE_KEY = 'nova_lite.placement.route'
_ERROR_CODES = api_microversion.parse(mv.ERROR_CODES)


def placement_error_body(status, message, error_code=None):
    """Placement's error format: a list of errors with a stable code."""
    if not (error_code or '').startswith('placement.'):
        error_code = exception.DEFAULT
    title = webob.exc.status_map.get(status, webob.exc.HTTPError).title
    return {'errors': [{'status': status, 'title': title, 'detail': message,
                        'code': error_code, 'request_id': None}]}


class PlacementApplication(wsgi.Application):
    """The route table with Placement's error details and GET headers.

    As in OpenStack Placement, the microversion is read before the route
    is looked up (a bad one is 400 or 406 on any path), a body must say
    its media type, and GETs answering JSON check the Accept header
    (``media``).
    """

    def __init__(self, routes, **kwargs):
        routes = {path: {method: self._checking_accept(method, function)
                         for method, function in methods.items()}
                  for path, methods in routes.items()}
        super().__init__(routes, **kwargs)

    @staticmethod
    def _checking_accept(method, function):
        if method != 'GET' or function in handler.ANY_ACCEPT:
            return function
        return media.answers_json(
            function, getattr(function, 'since_version', mv.MIN_VERSION))

    def _dispatch(self, request):
        self._negotiate(request)
        media.require_content_type(request)
        route, params = self._match(request)
        request.environ[_ROUTE_KEY] = route.template
        return route.methods[request.method], params

    def _negotiate(self, request):
        try:
            super()._negotiate(request)
        except nova_exception.InvalidAPIVersion as error:
            raise exception.UnacceptableVersion(**error.kwargs)
        except nova_exception.InvalidAPIVersionString as error:
            raise exception.MalformedVersion(
                requested=error.kwargs['version'])

    def _error(self, request, error):
        response = super()._error(request, error)
        try:
            document = jsonutils.loads(response.body)
            errors = document['errors']
        except (ValueError, KeyError, TypeError):
            return response
        version = request.api_version
        if version is None:  # failed before negotiation (unknown path)
            try:
                version = self.microversions.negotiate(request.headers)
            except Exception:
                version = None
        request_id = getattr(request.context, 'request_id', None)
        for item in errors:
            item['request_id'] = request_id
            if isinstance(error, exception.UnacceptableVersion):
                item['min_version'] = MIN_VERSION
                item['max_version'] = MAX_VERSION
            if version is None or version < _ERROR_CODES:
                item.pop('code', None)
        response.body = jsonutils.dump_as_bytes(document)
        return response

    def _decorate(self, request, response, version):
        super()._decorate(request, response, version)
        if version is not None and request.is_version(mv.CACHE_HEADERS) \
                and self._answers_a_state(request, response):
            response.headers['Cache-Control'] = 'no-cache'
            response.last_modified = timeutils.utcnow()

    @staticmethod
    def _answers_a_state(request, response):
        if request.method == 'GET':
            return response.status_int in (200, 204)
        route = request.environ.get(_ROUTE_KEY)
        return response.status_int in handler.CACHE_HEADERS_ON_WRITES.get(
            (request.method, route), ())


def make_app():
    from nova_lite import objects
    objects.register_all()
    application = PlacementApplication(
        handler.ROUTE_DECLARATIONS, microversions=mv.SPEC,
        error_formatter=placement_error_body)
    application = auth.pipeline(application,
                                public_paths=handler.PUBLIC_PATHS,
                                error_formatter=placement_error_body,
                                noauth2_identity_headers=True)
    return media.ErrorsAsAccepted(middleware.wrap(wsgi.VersionHeaders(
        application, mv.SPEC, error_formatter=placement_error_body),
        placement_error_body))
