"""Parse the command line and config files, then set up logging and RPC."""

from oslo_log import log as logging

from nova_lite import conf as nova_conf
from nova_lite import rpc
from nova_lite import version

CONF = nova_conf.CONF
LOG = logging.getLogger(__name__)

_LOG_DEFAULTS_SET = False


def _set_log_defaults():
    global _LOG_DEFAULTS_SET
    if _LOG_DEFAULTS_SET:
        return
    logging.register_options(CONF)
    logging.set_defaults(default_log_levels=logging.get_default_log_levels() +
                         ['routes=WARN', 'alembic=WARN', 'kombu=WARN',
                          'amqp=WARN', 'oslo_policy=WARN'])
    _LOG_DEFAULTS_SET = True


def parse_args(argv, default_config_files=None, configure_logging=True):
    """Load the configuration for a daemon; argv excludes the program name."""
    _set_log_defaults()
    rpc.set_defaults(control_exchange='nova_lite')
    CONF(argv, project='nova-lite', version=version.VERSION,
         default_config_files=default_config_files)
    if configure_logging:
        logging.setup(CONF, 'nova-lite')
    rpc.init(CONF)
