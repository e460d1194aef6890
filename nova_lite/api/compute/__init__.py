"""The Compute API v2.1 (nova-lite-api, port 8774).

``make_app()`` returns the WSGI application: authentication (``[api]
auth_strategy``) around the route table of ``handler``, with microversions
as ``microversion`` documents them.
"""

from nova_lite.api import auth
from nova_lite.api import faults
from nova_lite.api import middleware
from nova_lite.api import wsgi


def make_app():
    from nova_lite import objects
    from nova_lite import policy
    from nova_lite.api.compute import handler
    from nova_lite.api.compute import microversion

    objects.register_all()
    policy.init()
    application = wsgi.Application(handler.ROUTE_DECLARATIONS,
                                   microversions=microversion.SPEC,
                                   error_formatter=faults.compute_fault_body)
    authenticated = auth.pipeline(application,
                                  public_paths=handler.PUBLIC_PATHS,
                                  error_formatter=faults.compute_fault_body)
    return middleware.wrap(wsgi.VersionHeaders(
        authenticated, microversion.SPEC,
        error_formatter=faults.compute_fault_body),
        faults.compute_fault_body)
