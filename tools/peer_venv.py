"""Virtualenvs of the real services nova_lite is compared with and runs
against (Nova 34 as the scheduler's oracle, OpenStack Placement 16).

Each is installed from the package registry into ``.peers/<name>``
(git-ignored) the first time it is needed, with the pins of its
constraints file; callers that need it at once (two test workers) take
turns on a lock, and a finished install is reused until its requirements
or pins change. Standard library only: this runs in nova_lite's python.
"""

import fcntl
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PEERS = os.path.join(ROOT, '.peers')


def venv(name):
    return os.path.join(PEERS, name)


def python(name):
    return os.path.join(venv(name), 'bin', 'python')


def _stamp(requirements, constraints):
    wanted = '\n'.join(requirements)
    if constraints:
        with open(constraints) as f:
            wanted += '\n' + f.read()
    return wanted


def installed(name, requirements, constraints=None):
    try:
        with open(os.path.join(venv(name), '.installed')) as f:
            return f.read() == _stamp(requirements, constraints)
    except OSError:
        return False


def ensure(name, requirements, constraints=None, timeout=1200):
    """The python of virtualenv ``name`` with ``requirements`` installed
    (pinned by the ``constraints`` file), made if need be."""
    os.makedirs(PEERS, exist_ok=True)
    with open(os.path.join(PEERS, name + '.lock'), 'w') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if installed(name, requirements, constraints):
            return python(name)
        shutil.rmtree(venv(name), ignore_errors=True)
        subprocess.run([sys.executable, '-m', 'venv', venv(name)],
                       check=True, capture_output=True)
        command = [python(name), '-m', 'pip', 'install', '-q']
        if constraints:
            command += ['-c', constraints]
        result = subprocess.run(command + list(requirements),
                                capture_output=True, text=True,
                                timeout=timeout)
        if result.returncode != 0:
            raise RuntimeError('installing %s into %s failed:\n%s' % (
                ' '.join(requirements), venv(name), result.stderr[-4000:]))
        with open(os.path.join(venv(name), '.installed'), 'w') as f:
            f.write(_stamp(requirements, constraints))
        return python(name)
