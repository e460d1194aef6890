"""oslo.middleware's options ([oslo_middleware], [healthcheck]) for the
middleware in front of every REST service (``nova_lite.api.middleware``),
with nova_lite's defaults: the health check's disable file is under
state_path."""

from oslo_config import cfg
from oslo_middleware import opts as middleware_opts


def _options():
    return (middleware_opts.list_opts_sizelimit() +
            middleware_opts.list_opts_http_proxy_to_wsgi() +
            middleware_opts.list_opts_healthcheck())


def _set_defaults():
    for group, options in _options():
        if group == 'healthcheck':
            cfg.set_defaults(
                options, backends=['disable_by_file'],
                disable_by_file_path='$state_path/healthcheck_disable')


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
