"""The port API of the Networking service (nova-lite-network, port 9696).

This release serves the version documents only, so that clients and the
quick start can find the service; networks, ports and port bindings are
being built in a later step (see the README's status section).
"""

from nova_lite.api import auth
from nova_lite.api import wsgi


def network_error_body(status, message, error_code=None):
    return {'NeutronError': {'type': error_code or 'HTTPError',
                             'message': message, 'detail': ''}}


def _v2(request):
    return {'id': 'v2.0', 'status': 'CURRENT',
            'links': [{'rel': 'self',
                       'href': request.host_url.rstrip('/') + '/v2.0/'}]}


def root(request):
    return wsgi.json_response({'versions': [_v2(request)]})


def v2(request):
    return wsgi.json_response({'resources': []})


ROUTE_DECLARATIONS = {
    '/': {'GET': root},
    '/v2.0': {'GET': v2},
}


def make_app():
    from nova_lite import objects
    objects.register_all()
    application = wsgi.Application(ROUTE_DECLARATIONS,
                                   error_formatter=network_error_body)
    return auth.pipeline(application, public_paths=('/',),
                         error_formatter=network_error_body)
