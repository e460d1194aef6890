"""Console scripts. Importing this package picks the concurrency backend.

The backend has to be chosen before oslo.messaging, SQLAlchemy or anything
that creates locks or threads is imported, so it is read here straight from
the command line, the environment (NOVA_LITE_CONCURRENCY_BACKEND) or the
config files named on the command line -- before oslo.config is loaded.
"""

import configparser
import os
import sys
import warnings

# oslo libraries import eventlet even in threading mode, and eventlet warns
# loudly on import; the backend is chosen deliberately below.
warnings.filterwarnings('ignore', message=r'(?s).*Eventlet is deprecated')

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


def concurrency_backend(argv=None):
    """Return 'threading' or 'eventlet' as configured, without oslo.config."""
    argv = sys.argv if argv is None else argv
    backend = os.environ.get(BACKEND_ENV)
    if backend:
        return backend
    backend = 'threading'
    for path in _config_files(argv):
        parser = configparser.RawConfigParser(strict=False)
        try:
            parser.read(path)
        except (configparser.Error, UnicodeDecodeError):
            continue  # oslo.config reports the broken file properly later
        backend = parser.defaults().get('concurrency_backend', backend)
    return backend.strip()


if concurrency_backend() == 'eventlet':
    import eventlet
    eventlet.monkey_patch()
