"""The README's embedded quick start: ``nova-lite-all`` runs every service
in one process on the in-memory transport and SQLite files, and a server
booted through its API goes ACTIVE. The small run of that mode in CI, so
that it cannot rot (``tools/quickstart.sh`` falls back to it on a machine
without RabbitMQ or MariaDB)."""

import os
import signal
import subprocess
import sys
import tempfile

import requests
import testtools

from tests.functional import fixtures

ADMIN = {'X-Auth-Token': 'admin:admin'}


class TestEmbeddedControlPlane(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.state = tempfile.mkdtemp(prefix='nova-lite-embedded-')
        self.api = fixtures.free_port()
        placement, network = fixtures.free_port(), fixtures.free_port()
        self.conf = os.path.join(self.state, 'embedded.conf')
        with open(self.conf, 'w') as f:
            f.write('[DEFAULT]\nstate_path = %s\n'
                    '[api]\nbind_host = 127.0.0.1\nbind_port = %d\n'
                    '[placement]\nbind_port = %d\n'
                    'endpoint_override = http://127.0.0.1:%d\n'
                    '[network]\nbind_port = %d\n'
                    'endpoint_override = http://127.0.0.1:%d\n' % (
                        self.state, self.api, placement, placement, network,
                        network))
        self.log = open(os.path.join(self.state, 'all.log'), 'w')
        self.addCleanup(self.log.close)
        self.process = subprocess.Popen(
            [sys.executable, '-m', 'nova_lite.cmd.all', '--config-file',
             self.conf, '--computes', '1'],
            stdout=self.log, stderr=subprocess.STDOUT, cwd=fixtures.ROOT)
        self.addCleanup(self.stop)
        self.addOnException(self.attach_log)

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def attach_log(self, exc_info):
        self.log.flush()
        with open(self.log.name) as f:
            self.addDetail('nova-lite-all', testtools.content.text_content(
                f.read()[-20000:]))

    def url(self, path):
        return 'http://127.0.0.1:%d/v2.1%s' % (self.api, path)

    def get(self, path):
        try:
            response = requests.get(self.url(path), headers=ADMIN, timeout=5)
        except requests.RequestException:
            return None
        return response.json() if response.ok else None

    def manage(self, *args):
        """nova-lite-manage with the config files nova-lite-all said to
        use: its own and the one it wrote of what it chose."""
        chosen = os.path.join(self.state, 'nova-lite-manage.conf')
        with open(self.log.name) as f:
            self.assertIn('  nova-lite-manage --config-file %s --config-file '
                          '%s audit\n' % (self.conf, chosen), f.read())
        return subprocess.run(
            [sys.executable, '-m', 'nova_lite.cmd.manage', '--config-file',
             self.conf, '--config-file', chosen] + list(args),
            check=True, capture_output=True, text=True, cwd=fixtures.ROOT,
            timeout=60).stdout

    def test_a_server_boots_active_and_sigterm_stops_it_all(self):
        fixtures.wait_for(
            lambda: len([h for h in (self.get('/os-hypervisors') or {}).get(
                'hypervisors', []) if h.get('state') == 'up']) >= 1,
            timeout=90, what='a compute reporting up')
        self.manage('flavor', 'create', 'm1.tiny', '--id', '1', '--ram',
                    '512', '--vcpus', '1', '--disk', '1')
        self.manage('image', 'create', 'cirros', '--min-disk', '1')
        image = [line.split()[1] for line in
                 self.manage('image', 'list').splitlines()
                 if ' cirros ' in line][0]
        response = requests.post(
            self.url('/servers'), headers=ADMIN, timeout=10, json={
                'server': {'name': 'demo', 'flavorRef': '1',
                           'imageRef': image}})
        self.assertEqual(202, response.status_code, response.text)
        uuid = response.json()['server']['id']
        server = fixtures.wait_for(
            lambda: (lambda s: s if s and s['server']['status'] in (
                'ACTIVE', 'ERROR') else None)(self.get('/servers/' + uuid)),
            timeout=90, what='the server settled')['server']
        self.assertEqual(('ACTIVE', 'compute1'),
                         (server['status'],
                          server['OS-EXT-SRV-ATTR:host']))
        # What the printed command is for: placement and the port service
        # are asked, as nova-lite-all runs them (noauth2).
        self.assertIn('1 server(s) checked', self.manage('audit'))
        self.process.send_signal(signal.SIGTERM)
        self.assertEqual(0, self.process.wait(30))
