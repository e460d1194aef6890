"""An HTTP server for a WSGI application, in the daemon's concurrency mode.

Native threads by default: the standard library's WSGI server with a thread
per connection, at most ``threads`` at once (further connections wait in
the listen backlog). With ``[DEFAULT] concurrency_backend = eventlet`` the
eventlet WSGI server and a green pool of the same size. Access lines go to
the oslo.log logger of this module, not to stderr.
"""

import socket
import socketserver
import threading
from wsgiref import simple_server

from oslo_log import log as logging

LOG = logging.getLogger(__name__)


class _RequestHandler(simple_server.WSGIRequestHandler):

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

    def __init__(self, address, max_threads, ipv6=False):
        if ipv6:
            self.address_family = socket.AF_INET6
        self._slots = threading.BoundedSemaphore(max_threads)
        super().__init__(address, _RequestHandler)

    def process_request(self, request, client_address):
        # Back-pressure: with every worker busy, stop accepting until one
        # is free rather than starting unbounded threads.
        self._slots.acquire()
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
                 backend=None):
        self.name = name
        self.app = app
        self.host = host
        self.threads = threads
        if backend is None:
            from nova_lite import cmd
            backend = cmd.concurrency_backend()
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
