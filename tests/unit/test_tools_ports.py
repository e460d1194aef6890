"""tools/ports: a port is given once per process, and a placement server
of the tests is up only when it is the one answering on its port."""

import http.server
import os
import tempfile
import threading
from unittest import mock

import testtools

from tests.functional import fixtures
from tests.functional import placement_fixtures
from tools import ports


class _Socket:
    """socket.socket whose port-0 binds get the ports of a list."""

    def __init__(self, given):
        self.given = given

    def __call__(self):
        return self

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        pass

    def bind(self, address):
        self.port = self.given.pop(0)

    def getsockname(self):
        return ('127.0.0.1', self.port)


class FreePortTest(testtools.TestCase):

    def test_a_port_the_kernel_gives_again_is_not_given_twice(self):
        self.given_before(set())
        kernel = _Socket([41000, 41000, 41000, 41001])
        with mock.patch.object(ports.socket, 'socket', kernel):
            self.assertEqual(41000, ports.free_port())
            self.assertEqual(41001, ports.free_port())
        self.assertEqual([], kernel.given)

    def test_ports_are_free_and_distinct(self):
        given = [ports.free_port() for _ in range(50)]
        self.assertEqual(len(given), len(set(given)))

    def given_before(self, given):
        patcher = mock.patch.object(ports, '_GIVEN', given)
        patcher.start()
        self.addCleanup(patcher.stop)


class _Other(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header('Content-Length', '0')
        self.end_headers()

    def log_message(self, *args):
        pass


class _Daemon:
    """A placement daemon that started but has not said it listens."""

    running = True

    def __init__(self, log_path):
        self.log_path = log_path

    def log(self):
        with open(self.log_path) as f:
            return f.read()


class PlacementServerUpTest(testtools.TestCase):

    def test_another_server_on_its_port_is_not_taken_for_it(self):
        other = http.server.HTTPServer(('127.0.0.1', 0), _Other)
        self.addCleanup(other.server_close)
        thread = threading.Thread(target=other.serve_forever, daemon=True)
        thread.start()
        self.addCleanup(other.shutdown)
        server = placement_fixtures.PlacementServer()
        self.addCleanup(os.rmdir, server.workdir)
        server.port = other.server_address[1]
        log = tempfile.NamedTemporaryFile('w', suffix='.log')
        self.addCleanup(log.close)
        server.daemon = _Daemon(log.name)
        self.assertRaises(fixtures.Timeout, server.wait_until_up,
                          timeout=0.5, interval=0.05)
        # Once its log says so, the answer on that port is its own.
        log.write('placement listening on 127.0.0.1:%d (threading...)\n'
                  % server.port)
        log.flush()
        server.wait_until_up(timeout=5, interval=0.05)
