"""The HTTP server that serves a REST application."""

import http.client
import select
import socket
import subprocess
import sys
import threading
import time

import fixtures
import testtools

from nova_lite.api import wsgi_server
from nova_lite import service
from tests.unit import fixtures as nova_fixtures


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

    def test_a_request_naming_no_media_type_reaches_the_app_without_one(self):
        def media_type(environ, start_response):
            start_response('200 OK', [('Content-Type', 'text/plain')])
            return [repr(environ.get('CONTENT_TYPE')).encode()]
        server = wsgi_server.Server('test', media_type, '127.0.0.1', 0, 4,
                                    backend='threading')
        server.start()
        self.addCleanup(server.wait)
        self.addCleanup(server.stop)
        connection = http.client.HTTPConnection('127.0.0.1', server.port,
                                                timeout=10)
        self.addCleanup(connection.close)
        connection.request('PUT', '/')
        self.assertEqual(b'None', connection.getresponse().read())
        connection.request('PUT', '/', headers={'Content-Type': 'a/b'})
        self.assertEqual(b"'a/b'", connection.getresponse().read())

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


# -- hostile clients: slow heads, idle connections ----------------------------

HEAD = (b'GET / HTTP/1.1\r\nHost: test\r\nX-Auth-Token: someone\r\n'
        b'Accept: application/json\r\n\r\n')
# One more slow client than the server below has workers, and more.
SLOW_CLIENTS = 12

# The same server as a daemon in eventlet mode runs it, in a process of
# its own (eventlet needs its monkey-patching from the start).
_GREEN_SERVER = '''
import eventlet
eventlet.monkey_patch()
from nova_lite.api import wsgi_server

def hello(environ, start_response):
    start_response('200 OK', [('Content-Type', 'text/plain')])
    return [b'hello']

server = wsgi_server.Server('green', hello, '127.0.0.1', 0, threads=2,
                            backend='eventlet', header_timeout=%(header)s,
                            max_connections=%(connections)s)
server.start()
print(server.port, flush=True)
server.wait()
'''


class _HostileClients:
    """Slow-head tests, run against one server mode; ``serve(threads,
    header_timeout, max_connections)`` returns its port."""

    def slow_client(self, port, sent=HEAD[:20]):
        """A connection that sent ``sent`` of its head and then stalls."""
        sock = socket.create_connection(('127.0.0.1', port), timeout=30)
        self.addCleanup(sock.close)
        sock.sendall(sent)
        return sock

    def answered(self, port):
        connection = http.client.HTTPConnection('127.0.0.1', port,
                                                timeout=10)
        self.addCleanup(connection.close)
        connection.request('GET', '/')
        response = connection.getresponse()
        return response.status, response.read()

    def test_slow_heads_hold_no_worker_a_request_is_still_answered(self):
        # More clients stalled in their headers than there are workers:
        # none of them holds one.
        port = self.serve(threads=2, header_timeout=60)
        for _ in range(SLOW_CLIENTS):
            self.slow_client(port)
        self.assertEqual((200, b'hello'), self.answered(port))

    def test_a_head_not_sent_by_the_deadline_is_cut_with_408(self):
        port = self.serve(threads=2, header_timeout=1)
        sock = self.slow_client(port)
        self.assertTrue(reply(sock).startswith(b'HTTP/1.1 408 '))

    def test_a_byte_at_a_time_does_not_put_the_deadline_off(self):
        port = self.serve(threads=2, header_timeout=1)
        sock = self.slow_client(port, b'G')
        stop = threading.Event()

        def trickle():
            for byte in HEAD[1:]:
                if stop.wait(0.2):
                    return
                try:
                    sock.send(bytes([byte]))
                except OSError:
                    return
        sender = threading.Thread(target=trickle, daemon=True)
        sender.start()
        self.addCleanup(sender.join)
        self.addCleanup(stop.set)
        # The whole head would take over 16 s to arrive: it is cut first.
        self.assertTrue(reply(sock).startswith(b'HTTP/1.1 408 '))
        self.assertTrue(sender.is_alive())

    def test_with_every_connection_taken_the_longest_waiting_is_closed(self):
        port = self.serve(threads=2, header_timeout=60, max_connections=4)
        stalled = [self.slow_client(port) for _ in range(4)]
        self.assertEqual((200, b'hello'), self.answered(port))
        # One that stalled was closed to make room for the request.
        closed, _w, _x = select.select(stalled, [], [], 10)
        self.assertEqual(b'', reply(closed[0]))


def reply(sock):
    """What the server sends until it closes the connection."""
    chunks = []
    while True:
        try:
            chunk = sock.recv(4096)
        except ConnectionResetError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b''.join(chunks)


def _echo_headers(environ, start_response):
    seen = '\n'.join('%s=%s' % (k, v) for k, v in sorted(environ.items())
                     if k.startswith('HTTP_') or k == 'PATH_INFO')
    start_response('200 OK', [('Content-Type', 'text/plain')])
    return [seen.encode()]


class TestRequestHeads(testtools.TestCase):
    """The request line and headers are split by the server itself (not
    the email package's parser), with http.server's limits and answers."""

    def setUp(self):
        super().setUp()
        self.useFixture(fixtures.FakeLogger())
        server = wsgi_server.Server('test', _echo_headers, '127.0.0.1', 0,
                                    2, backend='threading')
        server.start()
        self.addCleanup(server.wait)
        self.addCleanup(server.stop)
        self.port = server.port

    def send(self, head):
        sock = socket.create_connection(('127.0.0.1', self.port), timeout=30)
        self.addCleanup(sock.close)
        sock.sendall(head)
        return reply(sock)

    def status(self, answer):
        return int(answer.split(b' ', 2)[1])

    def test_headers_reach_the_application(self):
        answer = self.send(b'GET //a/b HTTP/1.1\r\nHost: x\r\n'
                           b'X-Thing:   spaced value  \r\nX-Thing: two\r\n'
                           b'X-Empty:\r\nConnection: close\r\n\r\n')
        self.assertEqual(200, self.status(answer))
        body = answer.split(b'\r\n\r\n', 1)[1].decode()
        self.assertIn('HTTP_X_THING=spaced value,two', body)
        self.assertIn('HTTP_X_EMPTY=', body)
        # '//a/b' is the path '/a/b', not a host.
        self.assertIn('PATH_INFO=/a/b', body)

    def test_bad_heads_are_answered_as_http_server_answers_them(self):
        cases = [
            (b'GET / HTTP/1.1\r\nNo colon here\r\n\r\n', 400),
            (b'GET / HTTP/1.1\r\n: no name\r\n\r\n', 400),
            (b'GET / HTTP/1.1\r\nX-A: 1\r\n folded\r\n\r\n', 400),
            (b'GET / HTTP/1.1\r\nX-Long: ' + b'a' * 70000 + b'\r\n\r\n',
             431),
            (b'GET / HTTP/1.1\r\n' + b'X-H: 1\r\n' * 101 + b'\r\n', 431),
        ]
        for head, status in cases:
            self.assertEqual(status, self.status(self.send(head)), head[:60])
        # Without a version it can speak the answer has none either (as
        # HTTP/0.9 had no status line): only the error page.
        for head, message in [(b'GET / HTTQ/1.1\r\n\r\n',
                               b'Bad request version'),
                              (b'GET / HTTP/2.0\r\n\r\n',
                               b'Invalid HTTP version'),
                              (b'GET /\r\n\r\n', b'Bad request syntax')]:
            answer = self.send(head)
            self.assertIn(message, answer)
            self.assertNotIn(b'200', answer)

    def test_a_hundred_headers_are_accepted(self):
        head = (b'GET / HTTP/1.1\r\nConnection: close\r\n' +
                b'X-H: 1\r\n' * 99 + b'\r\n')
        self.assertEqual(200, self.status(self.send(head)))

    def test_expect_100_continue_is_answered_before_the_body(self):
        sock = socket.create_connection(('127.0.0.1', self.port), timeout=30)
        self.addCleanup(sock.close)
        sock.sendall(b'POST / HTTP/1.1\r\nContent-Length: 2\r\n'
                     b'Expect: 100-continue\r\nConnection: close\r\n\r\n')
        # The interim answer comes before the body is sent. The final one
        # may follow it in the same read: this application answers without
        # reading the body.
        received = b''
        while b'\r\n\r\n' not in received:
            chunk = sock.recv(4096)
            self.assertTrue(chunk, received)
            received += chunk
        interim, rest = received.split(b'\r\n\r\n', 1)
        self.assertTrue(interim.startswith(b'HTTP/1.1 100'), interim)
        sock.sendall(b'{}')
        self.assertEqual(200, self.status(rest + reply(sock)))


class TestConnectionClose(testtools.TestCase):
    """A client that sends ``Connection: close`` has its connection closed
    after the answer, not kept for the next request."""

    def connect(self):
        self.useFixture(fixtures.FakeLogger())
        # Far longer than the client waits: a server that kept the
        # connection would time the client out.
        server = wsgi_server.Server('test', _hello, '127.0.0.1', 0, 2,
                                    backend='threading',
                                    keep_alive_timeout=600)
        server.start()
        self.addCleanup(server.wait)
        self.addCleanup(server.stop)
        sock = socket.create_connection(('127.0.0.1', server.port),
                                        timeout=20)
        self.addCleanup(sock.close)
        return sock

    def test_the_server_closes_at_once(self):
        sock = self.connect()
        sock.sendall(b'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n'
                     b'\r\n')
        answer = reply(sock)
        self.assertTrue(answer.startswith(b'HTTP/1.1 200'), answer)

    def test_without_it_the_connection_stays_for_the_next_request(self):
        sock = self.connect()
        request = b'GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n'
        sock.sendall(request)
        first = sock.recv(4096)
        self.assertTrue(first.startswith(b'HTTP/1.1 200'), first)
        sock.sendall(request[:-2] + b'Connection: close\r\n\r\n')
        self.assertTrue(reply(sock).startswith(b'HTTP/1.1 200'))


class TestHostileClientsThreading(_HostileClients, testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(fixtures.FakeLogger())

    def serve(self, threads, header_timeout, max_connections=None):
        server = wsgi_server.Server(
            'test', _hello, '127.0.0.1', 0, threads, backend='threading',
            header_timeout=header_timeout, max_connections=max_connections)
        server.start()
        self.addCleanup(server.wait)
        self.addCleanup(server.stop)
        return server.port

    def test_a_body_left_unread_and_trickling_frees_the_worker(self):
        # The application answers without the body (as a 401 does); the
        # client never sends it. Its one worker serves the next client,
        # and the connection is closed at the deadline.
        port = self.serve(threads=1, header_timeout=1)
        sock = self.slow_client(
            port, b'POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 1000\r\n'
                  b'\r\n{"a"')
        self.assertEqual((200, b'hello'), self.answered(port))
        self.assertIn(b'hello', reply(sock))


class TestHostileClientsEventlet(_HostileClients, testtools.TestCase):

    def serve(self, threads, header_timeout, max_connections=None):
        self.assertEqual(2, threads)  # the script's
        process = subprocess.Popen(
            [sys.executable, '-c', _GREEN_SERVER % {
                'header': header_timeout, 'connections': max_connections}],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.addCleanup(process.wait, 30)
        self.addCleanup(process.kill)
        self.addCleanup(process.stdout.close)
        return int(process.stdout.readline())


class TestDaemonOptions(testtools.TestCase):

    def test_a_rest_daemon_serves_with_its_configured_timeouts(self):
        conf = self.useFixture(nova_fixtures.Config())
        conf.config(group='api', wsgi_header_timeout=7,
                    wsgi_keep_alive_timeout=3)
        daemon = service.WSGIService('nova-lite-placement', _hello,
                                     '127.0.0.1', 0, 2, register=False)
        self.assertEqual((7, 3), (daemon.server.header_timeout,
                                  daemon.server.keep_alive_timeout))
