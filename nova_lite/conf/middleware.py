"""oslo.middleware's options ([oslo_middleware], [healthcheck], [cors])
for the middleware in front of every REST service
(``nova_lite.api.middleware``), with nova_lite's defaults: the health
check's disable file is under state_path; CORS lets a browser send and
read the headers the OpenStack APIs use (the ones Nova, Placement and
Neutron allow by default)."""

from oslo_config import cfg
from oslo_middleware import cors
from oslo_middleware import opts as middleware_opts

# What a browser page of an allowed origin may send...
CORS_ALLOW_HEADERS = ['X-Auth-Token', 'X-Openstack-Request-Id',
                      'X-Identity-Status', 'X-Roles', 'X-Service-Catalog',
                      'X-User-Id', 'X-Tenant-Id',
                      'X-OpenStack-Nova-API-Version', 'OpenStack-API-Version']
# ... and read of the answers.
CORS_EXPOSE_HEADERS = ['X-Auth-Token', 'X-Openstack-Request-Id',
                       'X-Subject-Token', 'X-Service-Token',
                       'X-OpenStack-Nova-API-Version', 'OpenStack-API-Version']
CORS_ALLOW_METHODS = ['GET', 'PUT', 'POST', 'DELETE', 'PATCH']


def _options():
    return (middleware_opts.list_opts_sizelimit() +
            middleware_opts.list_opts_http_proxy_to_wsgi() +
            middleware_opts.list_opts_healthcheck() +
            middleware_opts.list_opts_cors())


def _set_defaults():
    for group, options in _options():
        if group == 'healthcheck':
            cfg.set_defaults(
                options, backends=['disable_by_file'],
                disable_by_file_path='$state_path/healthcheck_disable')
    cors.set_defaults(allow_headers=CORS_ALLOW_HEADERS,
                      expose_headers=CORS_EXPOSE_HEADERS,
                      allow_methods=CORS_ALLOW_METHODS)


def register_opts(conf):
    _set_defaults()
    for group, options in _options():
        conf.register_opts(options, group=group)


def list_opts():
    _set_defaults()
    merged = {}
    for group, options in _options():
        merged.setdefault(group, []).extend(options)
    return merged
