"""A real Keystone for the functional tests.

Keystone 30.0.0 (with gunicorn) is installed from the package registry
into ``.peers/keystone-30.0.0`` (git-ignored) the first time it is needed;
test workers that need it at once take turns on a lock. Each ``Keystone``
has its own SQLite database, fernet keys and loopback port, served by
gunicorn as Keystone is deployed (``keystone.wsgi.api:application``), and
is set up with ``keystone-manage bootstrap`` (user ``admin`` in project
``admin``, role ``admin``, the identity endpoint in region RegionOne).
"""

import fcntl
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap

from keystoneauth1.identity import v3
from keystoneauth1 import session as ksa_session
import requests

from tests.functional import fixtures

VERSION = '30.0.0'
PEERS = os.path.join(fixtures.ROOT, '.peers')
VENV = os.path.join(PEERS, 'keystone-%s' % VERSION)
ADMIN_PASSWORD = 'admin-secret'
REGION = 'RegionOne'
DOMAIN = 'Default'


def _bin(name):
    return os.path.join(VENV, 'bin', name)


def ensure_installed():
    """Keystone and gunicorn in their own virtualenv, once."""
    os.makedirs(PEERS, exist_ok=True)
    with open(os.path.join(PEERS, 'keystone.lock'), 'w') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if os.path.exists(os.path.join(VENV, '.installed')):
            return
        shutil.rmtree(VENV, ignore_errors=True)
        subprocess.run([sys.executable, '-m', 'venv', VENV], check=True,
                       capture_output=True)
        result = subprocess.run(
            [_bin('pip'), 'install', '-q', 'keystone==%s' % VERSION,
             'gunicorn'], capture_output=True, text=True, timeout=900)
        if result.returncode != 0:
            raise RuntimeError('installing keystone %s failed:\n%s' % (
                VERSION, result.stderr[-4000:]))
        open(os.path.join(VENV, '.installed'), 'w').close()


class Keystone:
    """One Keystone on a loopback port until ``stop()``."""

    def __init__(self):
        self.workdir = tempfile.mkdtemp(prefix='nova-lite-keystone-')
        self.port = fixtures.free_port()
        self.url = 'http://127.0.0.1:%d' % self.port
        self.auth_url = self.url + '/v3'
        self.conf = os.path.join(self.workdir, 'keystone.conf')
        self.log_path = os.path.join(self.workdir, 'keystone.log')
        self.process = None
        self._admin = None

    def _manage(self, *args):
        result = subprocess.run(
            [_bin('keystone-manage'), '--config-file', self.conf] +
            list(args), capture_output=True, text=True, timeout=600)
        if result.returncode != 0:
            raise RuntimeError('keystone-manage %s failed:\n%s%s' % (
                args[0], result.stdout[-2000:], result.stderr[-4000:]))

    def start(self):
        try:
            return self._start()
        except Exception:
            self.stop()
            raise

    def _start(self):
        ensure_installed()
        with open(self.conf, 'w') as f:
            f.write(textwrap.dedent("""
                [DEFAULT]
                log_file = %(dir)s/keystone.log
                [database]
                connection = sqlite:///%(dir)s/keystone.db
                [token]
                provider = fernet
                [fernet_tokens]
                key_repository = %(dir)s/fernet-keys
                [fernet_receipts]
                key_repository = %(dir)s/fernet-receipts
                [credential]
                key_repository = %(dir)s/credential-keys
                [cache]
                enabled = false
                [identity]
                # The least bcrypt takes: users are made in seconds.
                password_hash_rounds = 4
                """) % {'dir': self.workdir})
        user, group = 'root', 'root'
        if os.getuid() != 0:
            import grp
            import pwd
            user = pwd.getpwuid(os.getuid()).pw_name
            group = grp.getgrgid(os.getgid()).gr_name
        self._manage('db_sync')
        for keys in ('fernet_setup', 'credential_setup'):
            self._manage(keys, '--keystone-user', user,
                         '--keystone-group', group)
        self._manage(
            'bootstrap', '--bootstrap-password', ADMIN_PASSWORD,
            '--bootstrap-username', 'admin',
            '--bootstrap-project-name', 'admin',
            '--bootstrap-role-name', 'admin',
            '--bootstrap-service-name', 'keystone',
            '--bootstrap-region-id', REGION,
            '--bootstrap-admin-url', self.auth_url,
            '--bootstrap-internal-url', self.auth_url,
            '--bootstrap-public-url', self.auth_url)
        # Keystone parses the process's command line as its own options:
        # the module gunicorn loads hides gunicorn's from it.
        with open(os.path.join(self.workdir, 'keystone_app.py'), 'w') as f:
            f.write('import sys\nsys.argv[1:] = []\n'
                    'from keystone.wsgi.api import application  # noqa\n')
        self.log = open(os.path.join(self.workdir, 'gunicorn.log'), 'ab')
        self.process = subprocess.Popen(
            [_bin('gunicorn'), '--workers', '2', '--bind',
             '127.0.0.1:%d' % self.port, '--timeout', '120',
             '--pythonpath', self.workdir, 'keystone_app:application'],
            stdout=self.log, stderr=subprocess.STDOUT, cwd=self.workdir,
            env=dict(os.environ, OS_KEYSTONE_CONFIG_FILES=self.conf),
            start_new_session=True)

        def answers():
            if self.process.poll() is not None:
                raise AssertionError('keystone exited:\n' + self.logs())
            try:
                return requests.get(self.auth_url, timeout=10).ok
            except requests.RequestException:
                # Refused until gunicorn listens; slow while a worker
                # loads keystone.
                return False
        fixtures.wait_for(answers, 120, interval=0.5,
                          what='keystone answering')
        return self

    def stop(self):
        if self.process is not None:
            # The master and its workers: a worker still loading keystone
            # would outlive its master.
            try:
                os.killpg(self.process.pid, signal.SIGTERM)
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
            except ProcessLookupError:
                pass
        if self.process is not None:
            self.log.close()
            self.process = None
        shutil.rmtree(self.workdir, ignore_errors=True)

    def logs(self):
        text = []
        for path in (os.path.join(self.workdir, 'gunicorn.log'),
                     self.log_path):
            if os.path.exists(path):
                with open(path, errors='replace') as f:
                    text.append(f.read()[-6000:])
        return '\n'.join(text)

    # -- the identity API, as its administrator ---------------------------

    def session(self, user, password, project):
        return ksa_session.Session(auth=v3.Password(
            auth_url=self.auth_url, username=user, password=password,
            project_name=project, user_domain_name=DOMAIN,
            project_domain_name=DOMAIN))

    @property
    def admin(self):
        if self._admin is None:
            self._admin = self.session('admin', ADMIN_PASSWORD, 'admin')
        return self._admin

    def _post(self, path, key, document):
        return self.admin.post(self.auth_url + path,
                               json={key: document}).json()[key]

    def _id(self, path, key, name):
        found = self.admin.get(self.auth_url + path,
                               params={'name': name}).json()[key]
        return found[0]['id']

    def project(self, name):
        """A new project; its id."""
        return self._post('/projects', 'project', {
            'name': name, 'domain_id': 'default'})['id']

    def user(self, name, password, project, roles):
        """A new user with ``roles`` (names) on ``project`` (a name,
        made if need be); (user id, project id)."""
        try:
            project_id = self._id('/projects', 'projects', project)
        except IndexError:
            project_id = self.project(project)
        user_id = self._post('/users', 'user', {
            'name': name, 'password': password, 'domain_id': 'default',
            'default_project_id': project_id})['id']
        for role in roles:
            try:
                role_id = self._id('/roles', 'roles', role)
            except IndexError:
                role_id = self._post('/roles', 'role', {'name': role})['id']
            self.admin.put(self.auth_url + '/projects/%s/users/%s/roles/%s'
                           % (project_id, user_id, role_id))
        return user_id, project_id

    def catalog(self, service_type, name, url):
        """``url`` as the public and internal endpoint of a new service."""
        service_id = self._post('/services', 'service', {
            'type': service_type, 'name': name})['id']
        for interface in ('public', 'internal'):
            self._post('/endpoints', 'endpoint', {
                'service_id': service_id, 'interface': interface,
                'url': url, 'region_id': REGION})

    def token(self, user, password, project):
        return self.session(user, password, project).get_token()

    def service_conf(self, group, user, password, project='service'):
        """The keystoneauth1 options by which a service logs in."""
        return textwrap.dedent("""
            [%(group)s]
            auth_type = password
            auth_url = %(url)s
            username = %(user)s
            password = %(password)s
            project_name = %(project)s
            user_domain_name = %(domain)s
            project_domain_name = %(domain)s
            region_name = %(region)s
            """) % {'group': group, 'url': self.auth_url, 'user': user,
                    'password': password, 'project': project,
                    'domain': DOMAIN, 'region': REGION}
