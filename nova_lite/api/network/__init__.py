"""The port API of the Networking service (nova-lite-network, port 9696).

Networks, ports with their host bindings (``binding:*``, and several
bindings per port through ``/v2.0/ports/{id}/bindings``), QoS policies
with minimum bandwidth rules and the ``resource_request`` they give ports,
and the L2 agents the computes report as, in the Networking API v2.0
wire format. The routes are declared in ``handler.py``; the data layer is
``nova_lite.network``.

Errors have the Networking API's body, ``{"NeutronError": {"type",
"message", "detail"}}``, whose ``type`` names the error (``PortNotFound``,
``NetworkInUse``, ...).
"""

from nova_lite.api import auth
from nova_lite.api import middleware
from nova_lite.api.network import handler
from nova_lite.api import wsgi

_GENERIC_TYPES = {400: 'HTTPBadRequest', 401: 'HTTPUnauthorized',
                  403: 'HTTPForbidden', 404: 'HTTPNotFound',
                  405: 'HTTPMethodNotAllowed', 409: 'HTTPConflict',
                  500: 'HTTPInternalServerError',
                  503: 'HTTPServiceUnavailable'}


def network_error_body(status, message, error_code=None):
    error_type = error_code or _GENERIC_TYPES.get(status, 'HTTPError')
    return {'NeutronError': {'type': error_type, 'message': message,
                             'detail': ''}}


def make_app():
    from nova_lite import objects
    objects.register_all()
    application = wsgi.Application(handler.ROUTE_DECLARATIONS,
                                   error_formatter=network_error_body)
    return middleware.wrap(auth.pipeline(
        application, public_paths=handler.PUBLIC_PATHS,
        error_formatter=network_error_body), network_error_body)
