"""Which concurrency backend this process runs: 'threading' or 'eventlet'.

The backend has to be known before oslo.messaging, SQLAlchemy or anything
that creates locks or threads is imported (the console scripts in
``nova_lite.cmd`` monkey-patch for eventlet first thing), so it is read
straight from the environment (NOVA_LITE_CONCURRENCY_BACKEND) or the config
files named on the command line -- without oslo.config. This module imports
nothing but the standard library, so anything may use it, the console
scripts before all else.
"""

import configparser
import os
import sys

BACKEND_ENV = 'NOVA_LITE_CONCURRENCY_BACKEND'
DEFAULT_CONFIG_FILES = ('/etc/nova-lite/nova-lite.conf',)


def _config_files(argv):
    files = []
    for index, arg in enumerate(argv):
        if arg == '--config-file' and index + 1 < len(argv):
            files.append(argv[index + 1])
        elif arg.startswith('--config-file='):
            files.append(arg.split('=', 1)[1])
        elif arg == '--config-dir' and index + 1 < len(argv):
            files.extend(_files_in(argv[index + 1]))
        elif arg.startswith('--config-dir='):
            files.extend(_files_in(arg.split('=', 1)[1]))
    return files or [f for f in DEFAULT_CONFIG_FILES if os.path.exists(f)]


def _files_in(directory):
    if not os.path.isdir(directory):
        return []
    return sorted(os.path.join(directory, name)
                  for name in os.listdir(directory) if name.endswith('.conf'))


def backend(argv=None):
    """Return 'threading' or 'eventlet' as configured, without oslo.config."""
    argv = sys.argv if argv is None else argv
    chosen = os.environ.get(BACKEND_ENV)
    if chosen:
        return chosen
    chosen = 'threading'
    for path in _config_files(argv):
        parser = configparser.RawConfigParser(strict=False)
        try:
            parser.read(path)
        except (configparser.Error, UnicodeDecodeError):
            continue  # oslo.config reports the broken file properly later
        chosen = parser.defaults().get('concurrency_backend', chosen)
    return chosen.strip()


def green():
    """True in a process eventlet has monkey-patched: its threads are
    green, and a blocking call should let the others run."""
    eventlet = sys.modules.get('eventlet')
    return eventlet is not None and \
        eventlet.patcher.is_monkey_patched('thread')


def executor(workers):
    """A pool of ``workers`` threads of the configured backend (green ones
    under eventlet) for work handed off by RPC handlers and periodic
    tasks."""
    import futurist
    if backend() == 'eventlet':
        return futurist.GreenThreadPoolExecutor(workers)
    return futurist.ThreadPoolExecutor(workers)
