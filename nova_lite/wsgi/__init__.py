"""WSGI entry points, for uWSGI, gunicorn or mod_wsgi, the way Nova's and
Placement's APIs are deployed::

    gunicorn -w 4 -b 127.0.0.1:8774 nova_lite.wsgi.compute:application
    uwsgi --http-socket 127.0.0.1:8778 --processes 4 \\
        --module nova_lite.wsgi.placement:application

Each module exposes ``application``, loaded once per worker process. The
configuration files come from ``NOVA_LITE_CONFIG_FILES``, ';'-separated
(like Nova's ``OS_NOVA_CONFIG_FILES``), else the default
``/etc/nova-lite/nova-lite.conf``. The server chooses the address, not
``bind_host``; under noauth2 a request from a non-loopback client is
refused (``api/auth.py``). The console scripts (``nova-lite-api`` ...)
keep the built-in server.
"""

import os

from nova_lite import config
from nova_lite import objects

CONFIG_FILES_VARIABLE = 'NOVA_LITE_CONFIG_FILES'
DEFAULT_CONFIG_FILES = ('/etc/nova-lite/nova-lite.conf',)


def config_files(environ=None):
    """The config files named by ``NOVA_LITE_CONFIG_FILES``, else the
    default ones that exist."""
    environ = os.environ if environ is None else environ
    named = environ.get(CONFIG_FILES_VARIABLE, '')
    if named.strip():
        return [path.strip() for path in named.split(';') if path.strip()]
    return [path for path in DEFAULT_CONFIG_FILES if os.path.exists(path)]


def init_application(app_module):
    """The WSGI application of ``app_module`` (``make_app()``), with the
    configuration loaded."""
    argv = []
    for path in config_files():
        argv += ['--config-file', path]
    config.parse_args(argv, default_config_files=[])
    objects.register_all()
    import importlib
    return importlib.import_module(app_module).make_app()
