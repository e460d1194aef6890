"""The port service (the Neutron port API) as a WSGI application (see
``nova_lite.wsgi``)."""

from nova_lite import wsgi

application = wsgi.init_application('nova_lite.api.network')
