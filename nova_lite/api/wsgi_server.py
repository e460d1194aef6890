"""An HTTP server for a WSGI application, in the daemon's concurrency mode.

A connection is given a *worker* only for what the application does: at
most ``threads`` requests are in the application at once (the rest wait
for a worker), and reading a request's line and headers, waiting for a
persistent connection's next request, or writing a response out does not
take one. So clients that send their headers slowly, or keep idle
connections open, cannot stop the service from serving others before
they have even been authenticated:

- a client has ``header_timeout`` seconds to send a request's line and
  headers (from its connection, or from its first byte on a persistent
  connection); then it is answered 408 and the connection closed;
- an idle persistent connection is closed after ``keep_alive_timeout``;
- at most ``max_connections`` connections are open (a bound on threads
  and file descriptors); when a new one would exceed it, the connection
  that has waited longest for a request is closed, idle ones first.

Native threads by default (a thread per connection, standard library's
WSGI handler, HTTP/1.1 with persistent connections, so that a client with
a session -- the computes' report client, openstacksdk -- does not pay a
TCP handshake per request). With ``[DEFAULT] concurrency_backend =
eventlet`` the eventlet WSGI server with a green thread per connection
and the same rules. Access lines go to the oslo.log logger of this
module, not to stderr.
"""

import contextlib
import http.client
import io
import resource
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
# Seconds one read or write of a connection may wait, once the request
# head is in (a body, a response the client is slow to take).
_SOCKET_TIMEOUT = 60
_REQUEST_TIMEOUT = (b'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n'
                    b'Content-Length: 0\r\n\r\n')


def connection_limit(threads):
    """How many connections a server with ``threads`` workers keeps open
    at most: eight per worker, at least 1024, and no more than half the
    process's file descriptors (the rest are its database and broker
    connections and its files)."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = max(1024, 8 * threads)
    if soft != resource.RLIM_INFINITY:
        wanted = min(wanted, soft // 2)
    return max(wanted, threads + 1)


class _DeadlinePassed(Exception):
    """The client did not send what it had to in time."""


class _Waiting:
    """The connections waiting for a request head (idle persistent ones
    included), so that the one that has waited longest can be closed
    when a new connection needs its place."""

    def __init__(self):
        self._lock = threading.Lock()
        self._since = {}  # socket -> (busy, since): idle ones sort first

    def add(self, sock, idle):
        with self._lock:
            self._since[sock] = (not idle, time.monotonic())

    def remove(self, sock):
        with self._lock:
            self._since.pop(sock, None)

    def close_longest_waiting(self):
        """Shut the longest-waiting connection down (its reader then sees
        the end of it); False when no connection is waiting."""
        with self._lock:
            if not self._since:
                return False
            sock = min(self._since, key=self._since.get)
            del self._since[sock]
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        LOG.warning('Every connection slot is taken: closed the connection '
                    'that waited longest for a request')
        return True


class _Workers:
    """At most ``threads`` requests in the application at once: the app
    wrapped so that a request holds a worker while the application runs
    and its response is produced, not while the client's bytes travel."""

    def __init__(self, threads, semaphore_class=threading.BoundedSemaphore):
        self._slots = semaphore_class(threads)

    def wrap(self, app):
        slots = self._slots

        def in_a_worker(environ, start_response):
            with slots:
                result = app(environ, start_response)
                try:
                    return list(result)
                finally:
                    if hasattr(result, 'close'):
                        result.close()
        return in_a_worker


class _ClientStream(socket.SocketIO):
    """A connection's raw reads, each allowed no more than the time left
    to ``deadline`` (when one is set) or ``timeout``; past the deadline a
    read raises _DeadlinePassed. ``received`` counts the bytes read since
    the deadline was set."""

    def __init__(self, sock, timeout):
        super().__init__(sock, 'rb')
        self.timeout = timeout
        self.deadline = None
        self.received = 0
        self._polling = False
        self._timeout_set = sock.gettimeout()

    def _settimeout(self, seconds):
        # A system call each time (the socket's blocking mode is set
        # again): only when the timeout changes, which the reads of a
        # request's body and the writes of its answer do not.
        if seconds != self._timeout_set:
            self._sock.settimeout(seconds)
            self._timeout_set = seconds

    def set_deadline(self, seconds):
        self.deadline = None if seconds is None else (
            time.monotonic() + seconds)
        self.received = 0
        if seconds is None:
            # The response's writes wait as long as any read may.
            self._settimeout(self.timeout)

    @contextlib.contextmanager
    def polling(self):
        """Reads that answer at once, with what is there or nothing."""
        self._polling = True
        try:
            yield
        finally:
            self._polling = False
            self._settimeout(self.timeout)

    def readinto(self, buffer):
        timeout = self.timeout
        if self._polling:
            timeout = 0.0
        elif self.deadline is not None:
            timeout = min(timeout, self.deadline - time.monotonic())
            if timeout <= 0:
                raise _DeadlinePassed()
        self._settimeout(timeout)
        try:
            count = super().readinto(buffer)
        except socket.timeout:
            if self.deadline is not None and \
                    time.monotonic() >= self.deadline:
                raise _DeadlinePassed()
            raise
        if count:
            self.received += count
        return count


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


# A request head's limits (http.client's): a header line's length and the
# number of header lines.
_MAX_HEADER_LINE = 65536
_MAX_HEADERS = 100


class _BadHead(Exception):
    """A request head refused: ``status``, a short message and what was
    wrong (send_error's arguments)."""

    def __init__(self, status, message, explain):
        super().__init__(status, message, explain)
        self.status, self.message, self.explain = status, message, explain


def _http_version(text):
    """(major, minor) of 'HTTP/1.1', or None if it is not one."""
    if not text.startswith('HTTP/'):
        return None
    parts = text[5:].split('.')
    if len(parts) != 2 or not all(p.isdigit() and len(p) <= 10
                                  for p in parts):
        return None
    return int(parts[0]), int(parts[1])


def _read_headers(stream):
    """The header block of a request as an http.client.HTTPMessage (what
    http.server gives ``headers``), split line by line here: the email
    package's parser http.server hands it to took a sixth of a small
    request's time. A line folded onto the next (obsolete in HTTP/1.1)
    or without a name is refused, as RFC 9112 lets a server do."""
    message = http.client.HTTPMessage()
    count = 0
    while True:
        line = stream.readline(_MAX_HEADER_LINE + 1)
        if len(line) > _MAX_HEADER_LINE:
            raise _BadHead(431, 'Line too long', 'header line')
        if line in (b'\r\n', b'\n', b''):
            return message
        count += 1
        if count > _MAX_HEADERS:
            raise _BadHead(431, 'Too many headers',
                           'got more than %d headers' % _MAX_HEADERS)
        text = line.decode('iso-8859-1').rstrip('\r\n')
        name, colon, value = text.partition(':')
        if not colon or not name or name != name.strip(' \t'):
            raise _BadHead(400, 'Bad header line', repr(text[:100]))
        message[name] = value.strip(' \t')


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
    # A client that stops half-way through a body frees its thread.
    timeout = _SOCKET_TIMEOUT
    # Buffered: the status line, headers and a small body leave in one
    # send (wsgiref flushes after each body chunk).
    wbufsize = 65536

    def setup(self):
        super().setup()
        # Headers and body go out in separate writes: without this, Nagle
        # and the client's delayed ACK hold each response back ~40 ms.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY,
                                   1)
        self.rfile.close()  # socketserver's: ours reads with deadlines
        self.stream = _ClientStream(self.connection, self.timeout)
        self.rfile = io.BufferedReader(self.stream)

    def finish(self):
        # A connection closed to make room, or by its client, may still
        # have an error answer buffered for it: nobody is there to read it.
        with contextlib.suppress(OSError):
            super().finish()

    def parse_request(self):
        """The request line and headers into ``command``, ``path``,
        ``request_version`` and ``headers``, checked and answered as
        http.server does (HTTP/1.0 and 1.1 only); False when an error was
        answered instead."""
        self.command = None
        self.request_version = self.default_request_version
        self.close_connection = True
        self.requestline = str(self.raw_requestline,
                               'iso-8859-1').rstrip('\r\n')
        words = self.requestline.split()
        if not words:
            return False
        if len(words) != 3:
            self.send_error(400, 'Bad request syntax (%r)' % self.requestline)
            return False
        command, path, version = words
        number = _http_version(version)
        if number is None:
            self.send_error(400, 'Bad request version (%r)' % version)
            return False
        if number >= (2, 0):
            self.send_error(505, 'Invalid HTTP version (%s)' % version[5:])
            return False
        self.command, self.request_version = command, version
        # '//x' is a path, not a host ('/x'), as http.server reads it.
        self.path = '/' + path.lstrip('/') if path.startswith('//') else path
        try:
            self.headers = _read_headers(self.rfile)
        except _BadHead as e:
            self.send_error(e.status, e.message, e.explain)
            return False
        connection = self.headers.get('Connection', '').lower()
        self.close_connection = number < (1, 1) and connection != 'keep-alive'
        if connection == 'close':
            self.close_connection = True
        if number >= (1, 1) and \
                self.headers.get('Expect', '').lower() == '100-continue':
            return self.handle_expect_100()
        return True

    def handle_expect_100(self):
        # The interim answer must leave now, not in wfile's buffer with
        # the final one: the client waits for it before sending the body.
        super().handle_expect_100()
        self.wfile.flush()
        return True

    def handle(self):
        self.close_connection = False
        while True:
            if not self._read_head():
                return
            self._serve_request()
            if self.close_connection or not self._next_request_arrives():
                return

    def _read_head(self):
        """Read the request line and headers within the server's
        header_timeout; False when the connection is to be closed (it
        ended, the client was too slow, or an error was answered)."""
        self.close_connection = True
        self.server.waiting.add(self.connection, idle=False)
        self.stream.set_deadline(self.server.header_timeout)
        try:
            self.raw_requestline = self.rfile.readline(65537)
            if not self.raw_requestline:
                return False
            if len(self.raw_requestline) > 65536:
                self.requestline = ''
                self.request_version = ''
                self.command = ''
                self.send_error(414)
                return False
            return self.parse_request()
        except _DeadlinePassed:
            if self.stream.received:
                LOG.info('%s sent no whole request head in %ss: closed',
                         self.client_address[0], self.server.header_timeout)
                with contextlib.suppress(OSError):
                    self.connection.sendall(_REQUEST_TIMEOUT)
            return False
        except OSError:  # reset, timed out, or closed to make room
            return False
        finally:
            self.stream.set_deadline(None)
            self.server.waiting.remove(self.connection)

    def _serve_request(self):
        # parse_request has decided from the version and the Connection
        # header: a client that asked to close is not kept waiting.
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
        if not self._skip_unread(body):
            self.close_connection = True

    def _skip_unread(self, body):
        """Read what the application left of the body (an answer that
        did not need it: a 401, a 413) within header_timeout; False when
        the connection is to be closed instead."""
        self.stream.set_deadline(self.server.header_timeout)
        try:
            return body.skip_rest()
        except (_DeadlinePassed, OSError):
            return False
        finally:
            self.stream.set_deadline(None)

    def _next_request_arrives(self):
        """Wait, holding no worker, for the client's next request on this
        connection; False when it stays idle too long or is closed to
        make room for a new one."""
        if self._request_buffered():
            return True
        self.server.waiting.add(self.connection, idle=True)
        try:
            readable, _w, _x = select.select(
                [self.connection], [], [], self.server.keep_alive_timeout)
        except (OSError, ValueError):
            return False
        finally:
            self.server.waiting.remove(self.connection)
        return bool(readable)

    def _request_buffered(self):
        # A pipelined request may already sit in rfile's buffer, where
        # select() cannot see it: peek without blocking.
        try:
            with self.stream.polling():
                return bool(self.rfile.peek(1))
        except OSError:
            return False

    def log_message(self, format, *args):
        LOG.info('%s ' + format, self.client_address[0], *args)

    def log_request(self, code='-', size='-'):
        LOG.info('%s "%s" status: %s len: %s', self.client_address[0],
                 self.requestline, code, size)

    def log_error(self, format, *args):
        LOG.warning('%s: ' + format, self.client_address[0], *args)

    def get_environ(self):
        environ = super().get_environ()
        if self.headers.get('Content-Type') is None:
            # wsgiref says text/plain for a request that names no media
            # type; the application is told none was given, as eventlet
            # and other servers do (placement answers that differently).
            environ.pop('CONTENT_TYPE', None)
        return environ

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

    def __init__(self, address, max_connections, keep_alive_timeout,
                 header_timeout, ipv6=False):
        if ipv6:
            self.address_family = socket.AF_INET6
        self._connections = threading.BoundedSemaphore(max_connections)
        self.keep_alive_timeout = keep_alive_timeout
        self.header_timeout = header_timeout
        self.waiting = _Waiting()
        super().__init__(address, _RequestHandler)

    def process_request(self, request, client_address):
        # Every connection slot taken: make room by closing the connection
        # that has waited longest for a request; with none waiting (every
        # one in the application), wait for one to end.
        # (A connection just accepted may not be waiting yet: look again.)
        while not self._connections.acquire(blocking=False):
            closed = self.waiting.close_longest_waiting()
            if self._connections.acquire(timeout=1 if closed else 0.05):
                break
        try:
            super().process_request(request, client_address)
        except Exception:
            self._connections.release()
            raise

    def process_request_thread(self, request, client_address):
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._connections.release()


def _green_protocol(header_timeout, keep_alive_timeout, waiting):
    """eventlet.wsgi's protocol with the request head deadline: the first
    request's head within ``header_timeout`` of the connection, a later
    one's within the keep-alive wait and ``header_timeout``."""
    import eventlet
    import eventlet.wsgi

    class _GreenProtocol(eventlet.wsgi.HttpProtocol):
        _heads = 0

        def handle_one_request(self):
            limit = header_timeout
            if self._heads and keep_alive_timeout:
                limit += keep_alive_timeout
            self._heads += 1
            waiting.add(self.connection, idle=self._heads > 1)
            self._head_timer = eventlet.Timeout(limit, _DeadlinePassed)
            try:
                super().handle_one_request()
            except _DeadlinePassed:
                LOG.info('%s sent no whole request head in %ss: closed',
                         self.client_address[0], limit)
                with contextlib.suppress(OSError):
                    self.connection.sendall(_REQUEST_TIMEOUT)
                self.close_connection = 1
            finally:
                self._head_in()

        def parse_request(self):
            try:
                return super().parse_request()
            finally:
                self._head_in()

        def _head_in(self):
            self._head_timer.cancel()
            waiting.remove(self.connection)

    return _GreenProtocol


def _room_making_pool(size, waiting):
    """A green pool of ``size`` connections that, when full, closes the
    connection that has waited longest for a request before it takes a
    new one."""
    import eventlet

    class _RoomMakingPool(eventlet.GreenPool):

        def spawn(self, function, *args, **kwargs):
            # As _ThreadingServer.process_request does: the connection
            # closed is given a second to end before another is.
            ends_by = None
            while not self.free():
                if ends_by is None or time.monotonic() > ends_by:
                    ends_by = (time.monotonic() + 1 if
                               waiting.close_longest_waiting() else None)
                eventlet.sleep(0.01)
            return super().spawn(function, *args, **kwargs)

    return _RoomMakingPool(size)


class Server:
    """Serve ``app`` on ``host``:``port`` (0 picks a free port): at most
    ``threads`` requests in the application at once, each client given
    ``header_timeout`` seconds for a request's line and headers and
    ``keep_alive_timeout`` between requests."""

    def __init__(self, name, app, host='0.0.0.0', port=0, threads=32,
                 backend=None, keep_alive_timeout=10, header_timeout=30,
                 max_connections=None):
        self.name = name
        self.app = app
        self.host = host
        self.threads = threads
        self.keep_alive_timeout = keep_alive_timeout
        self.header_timeout = header_timeout
        self.max_connections = max_connections or connection_limit(threads)
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
        LOG.info('%s listening on %s:%s (%s, %d workers, at most %d '
                 'connections)', self.name, self.host, self.port,
                 self.backend, self.threads, self.max_connections)

    def _start_threading(self):
        self._server = _ThreadingServer(
            (self.host, self.port), self.max_connections,
            self.keep_alive_timeout, self.header_timeout, ipv6=self._ipv6)
        self._server.set_app(_Workers(self.threads).wrap(self.app))
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        name='%s-wsgi' % self.name,
                                        daemon=True)
        self._thread.start()

    def _start_eventlet(self):
        import eventlet
        import eventlet.semaphore
        import eventlet.wsgi
        family = socket.AF_INET6 if self._ipv6 else socket.AF_INET
        self._socket = eventlet.listen((self.host, self.port), family=family)
        self.port = self._socket.getsockname()[1]
        waiting = _Waiting()
        pool = _room_making_pool(self.max_connections, waiting)
        app = _Workers(self.threads, eventlet.semaphore.Semaphore).wrap(
            self.app)
        self._greenthread = eventlet.spawn(
            eventlet.wsgi.server, self._socket, app, custom_pool=pool,
            protocol=_green_protocol(self.header_timeout,
                                     self.keep_alive_timeout, waiting),
            log=LOG.logger if hasattr(LOG, 'logger') else LOG,
            log_format='%(client_ip)s "%(request_line)s" status: '
                       '%(status_code)s len: %(body_length)s time: '
                       '%(wall_seconds).4f',
            keepalive=self.keep_alive_timeout or False,
            socket_timeout=_SOCKET_TIMEOUT, debug=False)

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
