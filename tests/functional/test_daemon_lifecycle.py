"""A daemon's life as systemd sees it: READY=1 once it serves, STOPPING=1
and a clean exit on SIGTERM."""

import os
import signal
import socket

from tests.functional import base
from tests.functional import fixtures


class TestSystemdNotify(base.ControlPlaneTestCase):

    computes = 1

    def _notify_socket(self):
        path = os.path.join(self.plane.workdir, 'notify.sock')
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        sock.bind(path)
        sock.settimeout(60)
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
