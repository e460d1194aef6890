"""A nova-lite-placement daemon on its own, for placement API tests and
the placement benchmark.

``PlacementServer`` creates its own MariaDB databases (named after a random
suffix, dropped afterwards), prepares them with ``nova-lite-manage`` and
starts ``nova_lite.cmd.placement`` as a process on a free port.
"""

import os
import tempfile
import textwrap
import uuid

import requests

from tests.functional import fixtures

LATEST = '1.36'


class PlacementServer:

    def __init__(self, extra_conf=''):
        self.suffix = uuid.uuid4().hex[:10]
        self.databases = ['nl_pl_%s_api' % self.suffix,
                          'nl_pl_%s_cell' % self.suffix]
        self.workdir = tempfile.mkdtemp(prefix='nova-lite-placement-')
        self.port = fixtures.free_port()
        self.extra_conf = extra_conf
        self.env = dict(os.environ, PYTHONPATH=fixtures.ROOT)
        self.env.pop('NOTIFY_SOCKET', None)
        self.daemon = None

    @property
    def url(self):
        return 'http://127.0.0.1:%d' % self.port

    @property
    def api_database_url(self):
        return fixtures.MYSQL % self.databases[0]

    def _write_config(self):
        self.conf = os.path.join(self.workdir, 'placement.conf')
        with open(self.conf, 'w') as f:
            f.write(textwrap.dedent("""
                [DEFAULT]
                report_interval = 5
                [database]
                connection = %(cell)s
                [api_database]
                connection = %(api)s
                max_pool_size = 20
                [api]
                auth_strategy = noauth2
                wsgi_threads = 64
                [placement]
                bind_host = 127.0.0.1
                bind_port = %(port)d
                """) % {'cell': fixtures.MYSQL % self.databases[1],
                        'api': self.api_database_url, 'port': self.port})
            f.write(textwrap.dedent(self.extra_conf))

    def manage(self, *args):
        import subprocess
        import sys
        result = subprocess.run(
            [sys.executable, '-m', 'nova_lite.cmd.manage', '--config-file',
             self.conf] + list(args), capture_output=True, text=True,
            env=self.env, cwd=fixtures.ROOT)
        if result.returncode != 0:
            raise AssertionError('nova-lite-manage %s failed:\n%s%s' % (
                ' '.join(args), result.stdout, result.stderr))
        return result

    def start(self):
        self._write_config()
        self.manage('api_db', 'sync')
        self.manage('db', 'sync')
        self.daemon = fixtures.Daemon(
            'placement', 'placement', [self.conf],
            os.path.join(self.workdir, 'placement.log'), self.env)
        self.daemon.start()
        self.wait_until_up()

    def wait_until_up(self, timeout=60, interval=0.2):
        """Until placement answers at its URL, and its log says it is the
        one listening there: an answer from another server on that port
        (its own failed to bind) is not taken for it."""
        listening = 'listening on 127.0.0.1:%d ' % self.port

        def answers():
            if not self.daemon.running:
                raise AssertionError('placement exited:\n' +
                                     self.daemon.log()[-4000:])
            try:
                if not requests.get(self.url + '/', timeout=2).ok:
                    return False
            except requests.RequestException:
                return False
            return listening in self.daemon.log()
        fixtures.wait_for(answers, timeout, interval=interval,
                          what='placement answering')

    def stop(self):
        if self.daemon is not None:
            self.daemon.stop()
        for name in self.databases:
            try:
                fixtures._mysql('DROP DATABASE IF EXISTS `%s`' % name)
            except Exception:
                pass

    def log(self):
        return self.daemon.log() if self.daemon else ''

    def client(self, version=LATEST, token='admin'):
        return PlacementClient(self.url, version, token)


class PlacementClient:
    """requests, with the token and microversion headers of one caller."""

    def __init__(self, url, version=LATEST, token='admin'):
        self.url = url.rstrip('/')
        self.session = requests.Session()
        self.session.headers['X-Auth-Token'] = token
        if version:
            self.session.headers['OpenStack-API-Version'] = (
                'placement %s' % version)

    def request(self, method, path, body=None, version=None, **kwargs):
        kwargs.setdefault('timeout', 30)
        headers = kwargs.pop('headers', {})
        if version:
            headers['OpenStack-API-Version'] = 'placement %s' % version
        return self.session.request(method, self.url + path, json=body,
                                    headers=headers, **kwargs)

    def get(self, path, **kwargs):
        return self.request('GET', path, **kwargs)

    def put(self, path, body=None, **kwargs):
        return self.request('PUT', path, body, **kwargs)

    def post(self, path, body=None, **kwargs):
        return self.request('POST', path, body, **kwargs)

    def delete(self, path, **kwargs):
        return self.request('DELETE', path, **kwargs)

    # -- helpers ---------------------------------------------------------

    def create_provider(self, name, uuid=None, parent=None):
        body = {'name': name}
        if uuid:
            body['uuid'] = uuid
        if parent:
            body['parent_provider_uuid'] = parent
        response = self.post('/resource_providers', body)
        assert response.status_code == 200, response.text
        return response.json()

    def set_inventory(self, rp_uuid, inventories):
        generation = self.get('/resource_providers/%s' % rp_uuid).json()[
            'generation']
        response = self.put(
            '/resource_providers/%s/inventories' % rp_uuid,
            {'inventories': {name: value if isinstance(value, dict) else
                             {'total': value}
                             for name, value in inventories.items()},
             'resource_provider_generation': generation})
        assert response.status_code == 200, response.text
        return response.json()

    def allocate(self, consumer, allocations, generation=None,
                 project_id='p1', user_id='u1'):
        return self.put('/allocations/%s' % consumer, {
            'allocations': {rp: {'resources': resources}
                            for rp, resources in allocations.items()},
            'project_id': project_id, 'user_id': user_id,
            'consumer_generation': generation})
