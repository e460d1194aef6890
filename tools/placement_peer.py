"""OpenStack Placement 16, the real thing nova_lite's placement is compared
with and runs against.

``openstack-placement==16.0.0`` (with PyMySQL, and gabbi for its own API
tests) is installed from the package registry into ``.peers/placement16``
(git-ignored, by ``tools/peer_venv.py``) the first time it is needed, with
the pins of ``placement_peer_constraints.txt``. ``Server`` runs it
on a fresh MariaDB database of its own, served by the HTTP server
nova-lite-placement uses (so that two applications, not two servers, are
compared). Standard library only: this module runs in nova_lite's python.
"""

import os
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)
from tools import peer_venv  # noqa: E402
from tools import ports  # noqa: E402

VERSION = '16.0.0'
NAME = 'placement16'
VENV = peer_venv.venv(NAME)
PACKAGES = ['openstack-placement==%s' % VERSION, 'PyMySQL', 'gabbi']
# The pins of everything else in it (gabbi included: its behaviour is
# part of what is measured).
CONSTRAINTS = os.path.join(HERE, 'placement_peer_constraints.txt')
MYSQL = 'mysql+pymysql://root@127.0.0.1:3306/%s?charset=utf8mb4'


def python():
    return peer_venv.python(NAME)


def package_dir():
    """Where the installed ``placement`` package is (its gabbi tests are
    under ``tests/functional/gabbits``)."""
    result = subprocess.run(
        [python(), '-c', 'import os, placement; '
         'print(os.path.dirname(placement.__file__))'],
        check=True, capture_output=True, text=True)
    return result.stdout.strip()


def installed():
    return peer_venv.installed(NAME, PACKAGES, CONSTRAINTS)


def ensure_installed(timeout=1200):
    """The virtualenv's python, made (once) if need be."""
    return peer_venv.ensure(NAME, PACKAGES, CONSTRAINTS, timeout)


def _mysql(statement):
    subprocess.run(['mysql', '-h', '127.0.0.1', '-u', 'root', '-e',
                    statement], check=True, capture_output=True)


_free_port = ports.free_port


# OpenStack Placement's WSGI application behind nova_lite's HTTP server.
RUNNER = """
import sys, threading
from placement.wsgi import api
from nova_lite.api import wsgi_server

server = wsgi_server.Server('openstack-placement', api.application,
                            '127.0.0.1', int(sys.argv[1]), 32,
                            backend='threading')
server.start()
threading.Event().wait()
"""


class Server:
    """OpenStack Placement 16 on its own MariaDB database and port.

    ``auth_strategy`` is its ``[api] auth_strategy``: ``noauth2`` (a token
    is the user it names), or ``keystone`` (keystonemiddleware, installed
    with it, checks every token but the version document's with the
    Keystone its ``[keystone_authtoken]`` names, which ``extra_conf`` then
    gives). ``extra_conf`` is appended to its placement.conf (which
    already says the auth strategy and the database), e.g.
    ``[oslo_policy]\\nenforce_new_defaults = false\\n``.
    """

    def __init__(self, extra_conf='', port=None, auth_strategy='noauth2'):
        self.auth_strategy = auth_strategy
        self.database = 'nl_osp_%s' % uuid.uuid4().hex[:10]
        self.workdir = tempfile.mkdtemp(prefix='openstack-placement-')
        self.port = port or _free_port()
        self.url = 'http://127.0.0.1:%d' % self.port
        self.extra_conf = extra_conf
        self.process = None
        self.conf = os.path.join(self.workdir, 'placement.conf')
        self.log = os.path.join(self.workdir, 'placement.log')
        self.env = dict(os.environ, OS_PLACEMENT_CONFIG_DIR=self.workdir,
                        PYTHONPATH=ROOT)
        self.env.pop('NOTIFY_SOCKET', None)

    def start(self, timeout=60):
        venv_python = ensure_installed()
        _mysql('CREATE DATABASE `%s` CHARACTER SET utf8mb4' % self.database)
        with open(self.conf, 'w') as f:
            f.write('[api]\nauth_strategy = %s\n'
                    '[placement_database]\nconnection = %s\n%s' % (
                        self.auth_strategy, MYSQL % self.database,
                        self.extra_conf))
        subprocess.run([os.path.join(VENV, 'bin', 'placement-manage'),
                        '--config-file', self.conf, 'db', 'sync'],
                       check=True, env=self.env, capture_output=True)
        with open(self.log, 'ab') as log:
            self.process = subprocess.Popen(
                [venv_python, '-c', RUNNER, str(self.port)],
                env=self.env, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while not self._answers():
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError('OpenStack Placement did not answer in '
                                   '%ds; see %s' % (timeout, self.log))
            time.sleep(0.2)
        return self

    def _answers(self):
        if self.process.poll() is not None:
            raise RuntimeError('OpenStack Placement exited; see %s'
                               % self.log)
        try:
            with urllib.request.urlopen(self.url + '/', timeout=2) as r:
                return r.status == 200
        except OSError:
            return False

    def stop(self):
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None
        _mysql('DROP DATABASE IF EXISTS `%s`' % self.database)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


if __name__ == '__main__':
    # python tools/placement_peer.py: install (if need be) and say where.
    print(ensure_installed())
    print(package_dir())
