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

from nova_lite.api import auth
from nova_lite.api import middleware
from nova_lite.api import microversion as api_microversion
from nova_lite.api import wsgi
from nova_lite.api.placement import handler
from nova_lite.api.placement import microversion as mv
from nova_lite.placement import exception

MIN_VERSION = mv.MIN_VERSION
MAX_VERSION = mv.MAX_VERSION
_ERROR_CODES = api_microversion.parse(mv.ERROR_CODES)


def placement_error_body(status, message, error_code=None):
    """Placement's error format: a list of errors with a stable code."""
    if not (error_code or '').startswith('placement.'):
        error_code = exception.DEFAULT
    title = webob.exc.status_map.get(status, webob.exc.HTTPError).title
    return {'errors': [{'status': status, 'title': title, 'detail': message,
                        'code': error_code, 'request_id': None}]}


class PlacementApplication(wsgi.Application):
    """The route table with Placement's error details and GET headers."""

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
            if version is None or version < _ERROR_CODES:
                item.pop('code', None)
        response.body = jsonutils.dump_as_bytes(document)
        return response

    def _decorate(self, request, response, version):
        super()._decorate(request, response, version)
        if (request.method == 'GET' and version is not None and
                request.is_version(mv.CACHE_HEADERS) and
                response.status_int == 200):
            response.headers['Cache-Control'] = 'no-cache'
            response.last_modified = timeutils.utcnow()


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
    return middleware.wrap(wsgi.VersionHeaders(
        application, mv.SPEC, error_formatter=placement_error_body),
        placement_error_body)
