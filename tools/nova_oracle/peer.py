"""The Nova 34 virtualenv the oracle runs in.

``nova==34.0.0`` is installed from the package registry into
``.peers/nova34`` (git-ignored, by ``tools/peer_venv.py``) the first time
it is needed, with the pins of ``constraints.txt`` beside this file.
Runs in nova_lite's own python (standard library only).
"""

import os
import subprocess
import sys

VERSION = '34.0.0'
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)
from tools import peer_venv  # noqa: E402

NAME = 'nova34'
VENV = peer_venv.venv(NAME)
REQUIREMENTS = ['nova==%s' % VERSION]
CONSTRAINTS = os.path.join(HERE, 'constraints.txt')
ORACLE = os.path.join(HERE, 'oracle.py')


def python():
    return peer_venv.python(NAME)


def installed():
    return peer_venv.installed(NAME, REQUIREMENTS, CONSTRAINTS)


def ensure_installed(timeout=1200):
    """The virtualenv's python, made (once) if need be."""
    return peer_venv.ensure(NAME, REQUIREMENTS, CONSTRAINTS, timeout)


def run_oracle(cases, repeat=1, timeout=3600):
    """Nova's answers to ``cases`` (a list), from one oracle process."""
    import json
    command = [ensure_installed(), ORACLE, '-']
    if repeat > 1:
        command[2:2] = ['--repeat', str(repeat)]
    result = subprocess.run(command, input=json.dumps(cases),
                            capture_output=True, text=True, timeout=timeout)
    if result.returncode != 0:
        raise RuntimeError('the Nova 34 oracle failed (exit %d):\n%s' % (
            result.returncode, result.stderr[-6000:]))
    return json.loads(result.stdout)
