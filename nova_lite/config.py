"""Parse the command line and config files, then set up logging and RPC.

Without ``--config-file`` a program reads what oslo.config finds for the
project ``nova-lite``: ``nova-lite.conf`` and ``<program>.conf`` (e.g.
``nova-lite-manage.conf``), each from the first of ``~/.nova-lite/``,
``~/``, ``/etc/nova-lite/`` and ``/etc/`` that has it, so a deployment's
``/etc/nova-lite/nova-lite.conf`` is read by every command on that
machine unless another file is named.
"""

import os

from oslo_config import cfg
from oslo_log import log as logging

from nova_lite import conf as nova_conf
from nova_lite import rpc
from nova_lite import version

CONF = nova_conf.CONF
LOG = logging.getLogger(__name__)

_LOG_DEFAULTS_SET = False
PROJECT = 'nova-lite'
# oslo.config's search when no --config-file is given (find_config_files).
SEARCHED_DIRECTORIES = ('~/.nova-lite/', '~/', '/etc/nova-lite/', '/etc/')


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
    CONF(argv, project=PROJECT, version=version.VERSION,
         default_config_files=default_config_files)
    if configure_logging:
        logging.setup(CONF, 'nova-lite')
    rpc.init(CONF)


def files_read():
    """What a configuration error should add: the config files (and
    directories) this program read, or where it looked for one and how to
    name one."""
    try:
        read = [os.path.abspath(path) for path in
                list(CONF.config_file or []) + list(CONF.config_dir or [])]
    except cfg.NoSuchOptError:
        return ''  # the command line was not parsed (yet)
    if read:
        return ('Config files read: %s. Name another with --config-file '
                'PATH.' % ', '.join(read))
    return ('No config file was read: none was named with --config-file, '
            'and there is no %(project)s.conf or %(prog)s.conf in '
            '%(searched)s. Put the deployment\'s config at '
            '/etc/%(project)s/%(project)s.conf, or run %(prog)s '
            '--config-file PATH ...' % {
                'project': PROJECT, 'prog': CONF.prog or PROJECT,
                'searched': '%s or %s' % (
                    ', '.join(SEARCHED_DIRECTORIES[:-1]),
                    SEARCHED_DIRECTORIES[-1])})
