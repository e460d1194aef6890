"""The three REST services under gunicorn with several worker processes
(``nova_lite.wsgi``), as Nova's and Placement's APIs are deployed: a
server booted and deleted through the Compute API under gunicorn, and
placement and the port service answering under it."""

import os
import signal
import subprocess
import sys

import requests

from tests.functional import base
from tests.functional import fixtures

WORKERS = 3


class TestUnderGunicorn(base.ControlPlaneTestCase):

    computes = 1

    def serve(self, module):
        """``nova_lite.wsgi.<module>:application`` under gunicorn; its
        base URL."""
        port = fixtures.free_port()
        log = open(os.path.join(self.plane.workdir,
                                'gunicorn-%s.log' % module), 'ab')
        self.addCleanup(log.close)
        process = subprocess.Popen(
            [sys.executable, '-m', 'gunicorn', '--workers', str(WORKERS),
             '--bind', '127.0.0.1:%d' % port, '--timeout', '120',
             'nova_lite.wsgi.%s:application' % module],
            stdout=log, stderr=subprocess.STDOUT, cwd=fixtures.ROOT,
            env=dict(self.plane.env, NOVA_LITE_CONFIG_FILES=';'.join(
                self.plane._config_files())))

        def stop():
            process.send_signal(signal.SIGTERM)
            process.wait(60)
        self.addCleanup(stop)
        url = 'http://127.0.0.1:%d' % port

        def answers():
            try:
                return requests.get(url + '/healthcheck', timeout=5).ok
            except requests.RequestException:
                # Refused until gunicorn listens; unanswered while its
                # workers are still loading the application.
                return False
        fixtures.wait_for(answers, 90, interval=0.5,
                          what='gunicorn serving %s' % module)
        self.addOnException(lambda exc_info: self.addDetail(
            'gunicorn-%s' % module, _log(log.name)))
        self.assertEqual(WORKERS, len(_children(process.pid)))
        return url

    def test_a_server_is_booted_and_deleted_through_it(self):
        client = fixtures.APIClient(self.serve('compute'), 'admin')
        created = client.create_server('under-gunicorn',
                                       image=self.plane.image_id)
        server_id = created['server']['id']
        server = client.wait_for_status(server_id, 'ACTIVE')
        self.assertEqual('compute1', server['OS-EXT-SRV-ATTR:host'])
        # Each request may reach another worker: all see the server.
        for _ in range(2 * WORKERS):
            self.assertEqual(200, client.get('/servers/' + server_id)
                             .status_code)
        self.assertEqual(204, client.delete('/servers/' + server_id)
                         .status_code)
        client.wait_for_gone(server_id)

    def test_placement_and_the_port_service_answer(self):
        placement = self.serve('placement')
        providers = requests.get(placement + '/resource_providers',
                                 headers={'X-Auth-Token': 'admin'},
                                 timeout=30)
        self.assertEqual(200, providers.status_code, providers.text)
        self.assertIn('compute1', [p['name'] for p in
                                   providers.json()['resource_providers']])
        network = self.serve('network')
        ports = requests.get(network + '/v2.0/ports',
                             headers={'X-Auth-Token': 'admin'}, timeout=30)
        self.assertEqual(200, ports.status_code, ports.text)
        self.assertIn('ports', ports.json())


def _children(pid):
    result = subprocess.run(['pgrep', '-P', str(pid)],
                            stdout=subprocess.PIPE, text=True)
    return result.stdout.split()


def _log(path):
    from testtools import content
    with open(path, errors='replace') as f:
        return content.text_content(f.read()[-5000:])
