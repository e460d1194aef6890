"""The Nova 34 virtualenv the oracle runs in.

``nova==34.0.0`` is installed from the package registry into
``.peers/nova34`` (git-ignored) the first time it is needed, with the pins
of ``constraints.txt`` beside this file; callers that need it at once (two
test workers) take turns on a lock, and a finished install is reused.
Runs in nova_lite's own python (standard library only).
"""

import fcntl
import os
import shutil
import subprocess
import sys

VERSION = '34.0.0'
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PEERS = os.path.join(ROOT, '.peers')
VENV = os.path.join(PEERS, 'nova34')
CONSTRAINTS = os.path.join(HERE, 'constraints.txt')
ORACLE = os.path.join(HERE, 'oracle.py')
# Changes when the pins do, so that an install made with other pins is
# made again.
STAMP = os.path.join(VENV, '.installed')


def python():
    return os.path.join(VENV, 'bin', 'python')


def _wanted_stamp():
    with open(CONSTRAINTS) as f:
        return 'nova==%s\n%s' % (VERSION, f.read())


def installed():
    try:
        with open(STAMP) as f:
            return f.read() == _wanted_stamp()
    except OSError:
        return False


def ensure_installed(timeout=1200):
    """The virtualenv's python, made (once) if need be."""
    os.makedirs(PEERS, exist_ok=True)
    with open(os.path.join(PEERS, 'nova34.lock'), 'w') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if installed():
            return python()
        shutil.rmtree(VENV, ignore_errors=True)
        subprocess.run([sys.executable, '-m', 'venv', VENV], check=True,
                       capture_output=True)
        result = subprocess.run(
            [python(), '-m', 'pip', 'install', '-q', '-c', CONSTRAINTS,
             'nova==%s' % VERSION], capture_output=True, text=True,
            timeout=timeout)
        if result.returncode != 0:
            raise RuntimeError('installing nova %s into %s failed:\n%s' % (
                VERSION, VENV, result.stderr[-4000:]))
        stamp = _wanted_stamp()
        with open(STAMP, 'w') as f:
            f.write(stamp)
        return python()


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
