"""A daemon's life as systemd sees it: READY=1 once it serves, STOPPING=1
and a clean exit on SIGTERM, RELOADING=1 and READY=1 around a SIGHUP that
applies the mutable options and leaves it running."""

import os
import signal
import socket
import time

import requests

from tests.functional import base
from tests.functional import fixtures


class TestSystemdNotify(base.ControlPlaneTestCase):

    computes = 1

    def _notify_socket(self):
        path = os.path.join(self.plane.workdir,
                            'notify-%s.sock' % self.id().rsplit('.', 1)[-1])
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        sock.bind(path)
        sock.settimeout(60)
        self.addCleanup(os.unlink, path)
        self.addCleanup(sock.close)
        return path, sock

    def test_conductor_notifies_ready_and_stops_cleanly_on_sigterm(self):
        path, sock = self._notify_socket()
        daemon = fixtures.Daemon(
            'conductor2', 'conductor', self.plane._config_files(),
            os.path.join(self.plane.workdir, 'conductor2.log'),
            dict(self.plane.env, NOTIFY_SOCKET=path))
        daemon.start()
        self.addCleanup(daemon.kill)
        self.assertEqual(b'READY=1', sock.recv(64))
        # A second conductor on the topic serves builds too (active-active).
        created = self.admin.create_server('with-two-conductors',
                                           image=self.plane.image_id)
        self.admin.wait_for_status(created['server']['id'], 'ACTIVE')
        daemon.process.send_signal(signal.SIGTERM)
        self.assertEqual(b'STOPPING=1', sock.recv(64))
        self.assertEqual(0, daemon.process.wait(60))

    def test_sighup_applies_the_mutable_options_and_keeps_serving(self):
        path, sock = self._notify_socket()
        port = fixtures.free_port()
        conf = os.path.join(self.plane.workdir, 'api2.conf')
        with open(conf, 'w') as f:
            f.write('[api]\nbind_port = %d\n' % port)
        daemon = fixtures.Daemon(
            'api2', 'api', self.plane._config_files() + [conf],
            os.path.join(self.plane.workdir, 'api2.log'),
            dict(self.plane.env, NOTIFY_SOCKET=path))
        daemon.start()
        self.addCleanup(daemon.kill)
        self.assertEqual(b'READY=1', sock.recv(64))

        def flavors():
            response = requests.get(
                'http://127.0.0.1:%d/v2.1/flavors' % port,
                headers={'X-Auth-Token': 'admin'}, timeout=30)
            self.assertEqual(200, response.status_code, response.text)
            return response.json()['flavors']
        self.assertGreater(len(flavors()), 1)
        with open(conf, 'a') as f:
            f.write('max_limit = 1\n')
        daemon.process.send_signal(signal.SIGHUP)
        self.assertEqual(b'RELOADING=1', sock.recv(64))
        self.assertEqual(b'READY=1', sock.recv(64))
        self.assertEqual(1, len(flavors()))
        time.sleep(1)
        self.assertTrue(daemon.running, daemon.log()[-2000:])
        self.assertIn('Caught SIGHUP', daemon.log())
