"""The Placement API (nova-lite-placement, port 8778).

This release serves the version document only, so that clients and the
quick start can find the service; resource providers, inventories and
allocations are being built next (see the README's status section).
"""

from nova_lite.api import auth
from nova_lite.api import wsgi

MIN_VERSION = '1.0'
MAX_VERSION = '1.0'


def placement_error_body(status, message, error_code=None):
    """Placement's error format: a list of errors with a stable code."""
    return {'errors': [{'status': status,
                        'title': wsgi.webob.exc.status_map.get(
                            status, wsgi.webob.exc.HTTPError).title,
                        'detail': message,
                        'code': 'placement.%s' % (error_code or 'undefined'),
                        'request_id': None}]}


def root(request):
    return wsgi.json_response({'versions': [{
        'id': 'v1.0', 'max_version': MAX_VERSION,
        'min_version': MIN_VERSION, 'status': 'CURRENT',
        'links': [{'rel': 'self', 'href': ''}]}]})


ROUTE_DECLARATIONS = {
    '/': {'GET': root},
}


def make_app():
    from nova_lite import objects
    objects.register_all()
    application = wsgi.Application(ROUTE_DECLARATIONS,
                                   error_formatter=placement_error_body)
    return auth.pipeline(application, public_paths=('/',),
                         error_formatter=placement_error_body)
