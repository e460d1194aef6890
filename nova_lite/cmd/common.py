"""What every daemon does first: load config, logging, objects and RPC."""

import sys

from oslo_log import log as logging

from nova_lite import concurrency
from nova_lite import config
from nova_lite import conf as nova_conf
from nova_lite import exception
from nova_lite import objects

CONF = nova_conf.CONF
LOG = logging.getLogger(__name__)


def setup(argv=None, description=None):
    argv = sys.argv[1:] if argv is None else argv
    config.parse_args(argv)
    objects.register_all()
    LOG.debug('Concurrency backend: %s', concurrency.backend())


def run(main_body):
    """Run a daemon's body, turning configuration problems into one clear
    line on stderr and exit status 2 instead of a traceback."""
    try:
        main_body()
    except (exception.ConfigurationError, exception.InvalidDatabaseURL,
            exception.DatabaseUnavailable,
            exception.ServiceUnavailable) as e:
        if isinstance(e, exception.ConfigurationError):
            message = '%s. %s' % (str(e).rstrip('.'), config.files_read())
        else:
            message = str(e)
        LOG.error('%s', message)
        print('ERROR: %s' % message, file=sys.stderr)
        sys.exit(2)


def wait_for_databases(api=True, cell=True):
    from nova_lite.db import api as db_api
    if api:
        db_api.wait_for_database(CONF.api_database.connection,
                                 CONF.api_database)
    if cell:
        db_api.wait_for_database(CONF.database.connection, CONF.database)


def check_placement():
    """Stop a daemon that calls placement when the Placement service it is
    configured for is too old for it (PlacementTooOld, a configuration
    error: one line and exit status 2)."""
    from nova_lite import placement_client
    placement_client.PlacementClient().check_version()


def wsgi_main(binary, app_module, group, uses_placement=False):
    """Run a REST daemon: ``app_module.make_app()`` served on the bind
    address of the config group ``group`` ('api', 'placement', 'network')."""
    def body():
        setup()
        options = getattr(CONF, group)
        from nova_lite.api import auth
        # Before anything waits for a database: a refusal is immediate.
        auth.check_bind_address(binary, options.bind_host)
        wait_for_databases()
        if uses_placement:
            check_placement()
        import importlib
        from nova_lite import service
        app = importlib.import_module(app_module).make_app()
        service.serve(service.WSGIService(
            binary, app, options.bind_host, options.bind_port,
            CONF.api.wsgi_threads,
            keep_alive_timeout=CONF.api.wsgi_keep_alive_timeout))
    run(body)
