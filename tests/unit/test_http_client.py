"""The sessions services call each other's REST APIs with: a request
whose connection the server closed before answering is sent again; one
that timed out waiting for its answer is not."""

import socket
import threading
import time

import requests
import testtools

from nova_lite import http_client


class _Server:
    """Accepts connections on a free port; the first ``drops`` are closed
    without an answer (a saturated server dropping an idle keep-alive
    connection), later ones answered 200 -- or, with ``hang``, never."""

    def __init__(self, drops, hang=False):
        self.drops = drops
        self.hang = hang
        self.requests = 0
        self.sock = socket.socket()
        self.sock.bind(('127.0.0.1', 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while True:
            try:
                connection, _ = self.sock.accept()
            except OSError:
                return
            data = connection.recv(65536)
            if not data:
                connection.close()
                continue
            self.requests += 1
            if self.requests <= self.drops:
                connection.close()
                continue
            if self.hang:
                time.sleep(2)
                connection.close()
                continue
            connection.sendall(b'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n'
                               b'Connection: close\r\n\r\nok')
            connection.close()

    def close(self):
        self.sock.close()


class TestSession(testtools.TestCase):

    def serve(self, drops, hang=False):
        server = _Server(drops, hang)
        self.addCleanup(server.close)
        return server

    def test_a_read_dropped_before_an_answer_is_sent_again(self):
        server = self.serve(drops=2)
        response = http_client.session().get(
            'http://127.0.0.1:%d/allocations/x' % server.port, timeout=5)
        self.assertEqual(200, response.status_code)
        self.assertEqual(3, server.requests)

    def test_a_write_dropped_before_an_answer_is_not_sent_again(self):
        # The server may have applied it: a claim sent twice would meet
        # itself as a consumer generation conflict.
        server = self.serve(drops=1)
        self.assertRaises(requests.ConnectionError,
                          http_client.session().put,
                          'http://127.0.0.1:%d/allocations/x' % server.port,
                          json={}, timeout=5)
        self.assertEqual(1, server.requests)

    def test_it_gives_up_after_three_more_tries(self):
        server = self.serve(drops=10)
        self.assertRaises(requests.ConnectionError,
                          http_client.session().get,
                          'http://127.0.0.1:%d/' % server.port, timeout=5)
        self.assertEqual(1 + http_client.RETRIES, server.requests)

    def test_a_request_that_timed_out_is_not_sent_again(self):
        server = self.serve(drops=0, hang=True)
        self.assertRaises(requests.Timeout, http_client.session().put,
                          'http://127.0.0.1:%d/x' % server.port, json={},
                          timeout=0.5)
        time.sleep(0.2)
        self.assertEqual(1, server.requests)
