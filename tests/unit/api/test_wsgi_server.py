"""The HTTP server that serves a REST application."""

import http.client

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
        server.stop()
        self.assertIn('"GET /ping HTTP/1.1" status: 200', self.logs.output)

    def test_stop_then_wait_returns(self):
        server = wsgi_server.Server('test', _hello, '127.0.0.1', 0, 1,
                                    backend='threading')
        server.start()
        server.stop()
        server.wait()
