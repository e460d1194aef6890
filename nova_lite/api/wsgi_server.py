"""An HTTP server for a WSGI application, in the daemon's concurrency mode.

Native threads by default: the standard library's WSGI server with a thread
per connection, at most ``threads`` at once (further connections wait in
the listen backlog), speaking HTTP/1.1 with persistent connections so that
a client with a session (the computes' report client, openstacksdk) does
not pay a TCP handshake and a new thread per request. An idle connection
is closed after ``keep_alive_timeout`` seconds, or at once when every
worker is busy and a new connection is waiting. With ``[DEFAULT]
concurrency_backend = eventlet`` the eventlet WSGI server and a green pool
of the same size. Access lines go to the oslo.log logger of this module,
not to stderr.
"""

import select
import socket
import socketserver
import threading
import time
from wsgiref import simple_server

from oslo_log import log as logging

from nova_lite import concurrency

LOG = logging.getLogger(__name__)

# A request body the application left unread is skipped up to this size
# (to keep the connection); a larger one closes the connection.
_MAX_SKIPPED_BODY = 1 << 20


class _RequestBody:
    """``wsgi.input`` that ends at the request's Content-Length, so that a
    body the application did not read can be skipped before the next
    request on the connection."""

    def __init__(self, rfile, length):
        self._rfile = rfile
        self._left = length

    def _size(self, size):
        if size is None or size < 0 or size > self._left:
            return self._left
        return size

    def read(self, size=-1):
        size = self._size(size)
        if not size:
            return b''
        data = self._rfile.read(size)
        self._left -= len(data)
        if not data:
            self._left = 0
        return data

    def readline(self, size=-1):
        size = self._size(size)
        if not size:
            return b''
        data = self._rfile.readline(size)
        self._left -= len(data)
        if not data:
            self._left = 0
        return data

    def readlines(self, hint=-1):
        return list(iter(self.readline, b''))

    def __iter__(self):
        return iter(self.readline, b'')

    def skip_rest(self, most=_MAX_SKIPPED_BODY):
        """Read what the application left; False when too much was left
        (the connection should then be closed instead)."""
        if self._left > most:
            return False
        while self._left:
            if not self.read(min(self._left, 65536)):
                return False
        return True


class _ServerHandler(simple_server.ServerHandler):
    http_version = '1.1'

    def cleanup_headers(self):
        super().cleanup_headers()
        request_handler = self.request_handler
        if 'Content-Length' not in self.headers:
            # Without a length the body ends when the connection does.
            request_handler.close_connection = True
        if request_handler.close_connection:
            self.headers['Connection'] = 'close'


class _RequestHandler(simple_server.WSGIRequestHandler):
    protocol_version = 'HTTP/1.1'
    # A client that stops half-way through a request frees its worker.
    timeout = 60
    # Buffered: the status line, headers and a small body leave in one
    # send (wsgiref flushes after each body chunk).
    wbufsize = 65536

    def setup(self):
        super().setup()
        # Headers and body go out in separate writes: without this, Nagle
        # and the client's delayed ACK hold each response back ~40 ms.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY,
                                   1)

    def handle(self):
        self.close_connection = True
        self._handle_one_request()
        while not self.close_connection and self._next_request_arrives():
            self._handle_one_request()

    def _handle_one_request(self):
        self.close_connection = True
        self.raw_requestline = self.rfile.readline(65537)
        if not self.raw_requestline:
            return
        if len(self.raw_requestline) > 65536:
            self.requestline = ''
            self.request_version = ''
            self.command = ''
            self.send_error(414)
            return
        if not self.parse_request():
            return
        if self.request_version != 'HTTP/1.1' or \
                not self.server.keep_alive_timeout or \
                'Transfer-Encoding' in self.headers:
            self.close_connection = True
        try:
            length = int(self.headers.get('Content-Length') or 0)
        except ValueError:
            length = -1
        if length < 0:
            self.send_error(400, 'Bad Content-Length')
            self.close_connection = True
            return
        environ = self.get_environ()
        body = _RequestBody(self.rfile, length)
        handler = _ServerHandler(body, self.wfile, self.get_stderr(),
                                 environ, multithread=True)
        handler.request_handler = self
        handler.run(self.server.get_app())
        if not body.skip_rest():
            self.close_connection = True

    def _next_request_arrives(self):
        """Wait for the client's next request on this connection; False
        when it stays idle too long or the worker is wanted elsewhere."""
        if self._request_buffered():
            return True
        deadline = time.monotonic() + self.server.keep_alive_timeout
        while not self.server.saturated:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            readable, _w, _x = select.select([self.connection], [], [],
                                             min(remaining, 0.25))
            if readable:
                return True
        return False

    def _request_buffered(self):
        # A pipelined request may already sit in rfile's buffer, where
        # select() cannot see it: peek without blocking.
        self.connection.settimeout(0.0)
        try:
            return bool(self.rfile.peek(1))
        except OSError:
            return False
        finally:
            self.connection.settimeout(self.timeout)

    def log_message(self, format, *args):
        LOG.info('%s ' + format, self.client_address[0], *args)

    def log_request(self, code='-', size='-'):
        LOG.info('%s "%s" status: %s len: %s', self.client_address[0],
                 self.requestline, code, size)

    def log_error(self, format, *args):
        LOG.warning('%s: ' + format, self.client_address[0], *args)

    def get_stderr(self):
        return _LogStream()

    def address_string(self):
        # No reverse DNS lookup per request.
        return self.client_address[0]


class _LogStream:
    """What wsgiref would write to stderr (tracebacks), sent to the log."""

    def write(self, text):
        if text.strip():
            LOG.error('%s', text.rstrip())

    def flush(self):
        pass


class _ThreadingServer(socketserver.ThreadingMixIn,
                       simple_server.WSGIServer):
    daemon_threads = True
    allow_reuse_address = True
    block_on_close = False
    # The listen backlog. socketserver's default of 5 made the kernel
    # reset connections when more clients than that connected at once
    # while every worker was busy (a burst of boots: every compute,
    # scheduler and conductor asks placement together).
    request_queue_size = 1024

    def __init__(self, address, max_threads, keep_alive_timeout, ipv6=False):
        if ipv6:
            self.address_family = socket.AF_INET6
        self._slots = threading.BoundedSemaphore(max_threads)
        self.keep_alive_timeout = keep_alive_timeout
        # True while a new connection waits for a worker: idle persistent
        # connections then give theirs up.
        self.saturated = False
        super().__init__(address, _RequestHandler)

    def process_request(self, request, client_address):
        # Back-pressure: with every worker busy, stop accepting until one
        # is free rather than starting unbounded threads.
        if not self._slots.acquire(blocking=False):
            self.saturated = True
            self._slots.acquire()
            self.saturated = False
        try:
            super().process_request(request, client_address)
        except Exception:
            self._slots.release()
            raise

    def process_request_thread(self, request, client_address):
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()


class Server:
    """Serve ``app`` on ``host``:``port`` (0 picks a free port)."""

    def __init__(self, name, app, host='0.0.0.0', port=0, threads=32,
                 backend=None, keep_alive_timeout=10):
        self.name = name
        self.app = app
        self.host = host
        self.threads = threads
        self.keep_alive_timeout = keep_alive_timeout
        if backend is None:
            backend = concurrency.backend()
        self.backend = backend
        self._ipv6 = ':' in host
        self._server = None
        self._thread = None
        self._socket = None
        self._greenthread = None
        self.port = port

    def start(self):
        if self.backend == 'eventlet':
            self._start_eventlet()
        else:
            self._start_threading()
        LOG.info('%s listening on %s:%s (%s, %d workers)', self.name,
                 self.host, self.port, self.backend, self.threads)

    def _start_threading(self):
        self._server = _ThreadingServer((self.host, self.port), self.threads,
                                        self.keep_alive_timeout,
                                        ipv6=self._ipv6)
        self._server.set_app(self.app)
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        name='%s-wsgi' % self.name,
                                        daemon=True)
        self._thread.start()

    def _start_eventlet(self):
        import eventlet
        import eventlet.wsgi
        family = socket.AF_INET6 if self._ipv6 else socket.AF_INET
        self._socket = eventlet.listen((self.host, self.port), family=family)
        self.port = self._socket.getsockname()[1]
        pool = eventlet.GreenPool(self.threads)
        self._greenthread = eventlet.spawn(
            eventlet.wsgi.server, self._socket, self.app, custom_pool=pool,
            log=LOG.logger if hasattr(LOG, 'logger') else LOG,
            log_format='%(client_ip)s "%(request_line)s" status: '
                       '%(status_code)s len: %(body_length)s time: '
                       '%(wall_seconds).4f',
            keepalive=self.keep_alive_timeout or False,
            debug=False)

    def stop(self):
        """Stop accepting connections; requests in progress may finish."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._greenthread is not None:
            self._greenthread.kill()
            if self._socket is not None:
                self._socket.close()
        LOG.info('%s stopped listening', self.name)

    def wait(self):
        if self._thread is not None:
            self._thread.join()
        if self._greenthread is not None:
            try:
                self._greenthread.wait()
            except BaseException:  # GreenletExit after kill()
                pass
