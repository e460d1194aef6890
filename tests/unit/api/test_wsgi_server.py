"""The HTTP server that serves a REST application."""

import http.client
import time

import fixtures
import testtools

from nova_lite.api import wsgi_server


def _hello(environ, start_response):
    start_response('200 OK', [('Content-Type', 'text/plain')])
    return [b'hello']


class TestServer(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.logs = self.useFixture(fixtures.FakeLogger())

    def test_port_zero_reports_the_real_port_and_serves(self):
        server = wsgi_server.Server('test', _hello, '127.0.0.1', 0, 4,
                                    backend='threading')
        server.start()
        self.addCleanup(server.wait)
        self.addCleanup(server.stop)
        self.assertNotEqual(0, server.port)
        connection = http.client.HTTPConnection('127.0.0.1', server.port,
                                                timeout=10)
        connection.request('GET', '/')
        response = connection.getresponse()
        self.assertEqual(200, response.status)
        self.assertEqual(b'hello', response.read())
        connection.close()

    def test_access_log_goes_through_oslo_log(self):
        server = wsgi_server.Server('test', _hello, '127.0.0.1', 0, 4,
                                    backend='threading')
        server.start()
        self.addCleanup(server.wait)
        self.addCleanup(server.stop)
        connection = http.client.HTTPConnection('127.0.0.1', server.port,
                                                timeout=10)
        connection.request('GET', '/ping')
        connection.getresponse().read()
        connection.close()
        # The handler logs once the response is out, so possibly just
        # after the client has read it.
        deadline = time.monotonic() + 5
        while ('"GET /ping HTTP/1.1" status: 200' not in self.logs.output
               and time.monotonic() < deadline):
            time.sleep(0.01)
        server.stop()
        self.assertIn('"GET /ping HTTP/1.1" status: 200', self.logs.output)

    def test_many_clients_at_once_wait_for_a_worker_instead_of_a_reset(self):
        # More clients than workers plus socketserver's default backlog
        # of 5: each must be served, none reset.
        def slow(environ, start_response):
            time.sleep(0.05)
            return _hello(environ, start_response)
        server = wsgi_server.Server('test', slow, '127.0.0.1', 0, 2,
                                    backend='threading')
        server.start()
        self.addCleanup(server.wait)
        self.addCleanup(server.stop)
        connections = []
        for _ in range(60):
            connection = http.client.HTTPConnection('127.0.0.1', server.port,
                                                    timeout=30)
            connection.connect()
            connections.append(connection)
        for connection in connections:
            connection.request('GET', '/')
        for connection in connections:
            response = connection.getresponse()
            self.assertEqual(200, response.status)
            response.read()
            connection.close()

    def test_stop_then_wait_returns(self):
        server = wsgi_server.Server('test', _hello, '127.0.0.1', 0, 1,
                                    backend='threading')
        server.start()
        server.stop()
        server.wait()


def _ignore_body(environ, start_response):
    start_response('201 Created', [('Content-Type', 'text/plain'),
                                   ('Content-Length', '2')])
    return [b'ok']


def _streamed(environ, start_response):
    start_response('200 OK', [('Content-Type', 'text/plain')])
    return iter([b'one ', b'two'])


class TestPersistentConnections(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(fixtures.FakeLogger())

    def _serve(self, app, threads=4, keep_alive_timeout=10):
        server = wsgi_server.Server('test', app, '127.0.0.1', 0, threads,
                                    backend='threading',
                                    keep_alive_timeout=keep_alive_timeout)
        server.start()
        self.addCleanup(server.wait)
        self.addCleanup(server.stop)
        return server

    def _connect(self, server):
        connection = http.client.HTTPConnection('127.0.0.1', server.port,
                                                timeout=30)
        self.addCleanup(connection.close)
        return connection

    def test_several_requests_share_one_connection(self):
        connection = self._connect(self._serve(_hello))
        for _ in range(3):
            connection.request('GET', '/')
            response = connection.getresponse()
            self.assertEqual(b'hello', response.read())
            self.assertIsNone(response.getheader('Connection'))
        # http.client never reconnects by itself: one socket served all.
        self.assertIsNotNone(connection.sock)

    def test_an_unread_body_does_not_spoil_the_next_request(self):
        connection = self._connect(self._serve(_ignore_body))
        connection.request('POST', '/', body=b'x' * 5000)
        self.assertEqual(b'ok', connection.getresponse().read())
        connection.request('POST', '/', body=b'{}')
        response = connection.getresponse()
        self.assertEqual(201, response.status)
        self.assertEqual(b'ok', response.read())

    def test_a_body_without_length_closes_the_connection(self):
        connection = self._connect(self._serve(_streamed))
        connection.request('GET', '/')
        response = connection.getresponse()
        self.assertEqual('close', response.getheader('Connection'))
        self.assertEqual(b'one two', response.read())

    def test_keep_alive_zero_closes_after_each_response(self):
        connection = self._connect(self._serve(_hello,
                                               keep_alive_timeout=0))
        connection.request('GET', '/')
        response = connection.getresponse()
        self.assertEqual('close', response.getheader('Connection'))
        self.assertEqual(b'hello', response.read())

    def test_http_1_0_clients_get_one_response_per_connection(self):
        connection = self._connect(self._serve(_hello))
        connection._http_vsn, connection._http_vsn_str = 10, 'HTTP/1.0'
        connection.request('GET', '/')
        response = connection.getresponse()
        self.assertEqual('close', response.getheader('Connection'))
        self.assertEqual(b'hello', response.read())

    def test_an_idle_connection_gives_its_worker_to_a_waiting_client(self):
        # One worker, held by an idle persistent connection for up to
        # an hour: the second client is served all the same (well
        # before its 30 s socket timeout).
        server = self._serve(_hello, threads=1, keep_alive_timeout=3600)
        idle = self._connect(server)
        idle.request('GET', '/')
        self.assertEqual(b'hello', idle.getresponse().read())
        waiting = self._connect(server)
        waiting.request('GET', '/')
        self.assertEqual(b'hello', waiting.getresponse().read())
