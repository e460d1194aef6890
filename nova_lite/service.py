"""Running a daemon: its service record, heartbeat, periodic tasks, RPC
server, and a clean stop on SIGTERM.

``Service`` serves an RPC topic (conductor, scheduler, compute.<host>);
``WSGIService`` serves HTTP (api, placement, network). Both register a
service record and heartbeat into it, which is how ``os-services`` and the
scheduler's ComputeFilter know a daemon is up. ``serve()`` starts them,
tells systemd the daemon is ready and blocks until SIGTERM/SIGINT, then
stops them: the RPC server stops taking new messages and the in-flight
ones finish (bounded by ``graceful_shutdown_timeout``). SIGHUP (systemd's
``ExecReload``) reads the config files again and applies the options
marked mutable -- ``[DEFAULT] debug``, the weigher multipliers, ``[api]
max_limit`` -- and the daemon goes on; the policy file is read again
whenever it changes. SIGUSR2 logs the daemon's counters (RPC messages
received, database statements sent: ``nova_lite.counters``), and writes a
tracemalloc snapshot when the daemon traces its memory (a soak).
"""

import gc
import signal
import threading

import futurist
from futurist import periodics
from oslo_log import log as logging
import oslo_messaging as messaging

from nova_lite import concurrency
from nova_lite import conf as nova_conf
from nova_lite import context as nova_context
from nova_lite import counters
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import service as service_obj
from nova_lite import rpc
from nova_lite import systemd
from nova_lite import version

CONF = nova_conf.CONF
LOG = logging.getLogger(__name__)


def periodic_tasks_of(manager):
    """[(bound method, spacing in seconds)] of ``manager``'s periodic
    tasks (marked by ``manager.periodic_task``), spacings read now; a task
    whose spacing is 0 or less is off and left out."""
    tasks = []
    for name in dir(manager):
        method = getattr(manager, name, None)
        # Set by manager.periodic_task.
        spacing = getattr(method, '_periodic_spacing', None)
        if spacing is None:
            continue
        spacing = spacing() if callable(spacing) else spacing
        if spacing and spacing > 0:
            tasks.append((method, spacing))
    return tasks


class BaseRPCEndpoint:
    """RPC methods every service answers, in the ``baseapi`` namespace."""

    target = messaging.Target(namespace='baseapi', version='1.0')

    def __init__(self, service):
        self.service = service

    def ping(self, context, arg):
        return {'binary': self.service.binary, 'host': self.service.host,
                'arg': arg}


class _ServiceBase:

    def __init__(self, binary, host=None):
        self.binary = binary
        self.host = host or CONF.host
        self.service_ref = None
        self._periodic_worker = None
        self._periodic_thread = None

    # -- service record --------------------------------------------------

    def _register(self, context):
        try:
            ref = objects.Service.get_by_host_and_binary(
                context, self.host, self.binary)
        except exception.ServiceNotFound:
            ref = objects.Service(context, host=self.host,
                                  binary=self.binary,
                                  topic=getattr(self, 'topic', None),
                                  version=service_obj.SERVICE_VERSION)
            try:
                ref.create()
            except exception.Conflict:  # another start raced us
                ref = objects.Service.get_by_host_and_binary(
                    context, self.host, self.binary)
            LOG.info('Registered service %s on %s', self.binary, self.host)
            return ref
        if ref.version != service_obj.SERVICE_VERSION:
            ref.version = service_obj.SERVICE_VERSION
            ref.save()
        return ref

    def report_state(self):
        """Heartbeat. A failure is logged; the next period tries again."""
        if self.service_ref is None:
            return
        try:
            self.service_ref.heartbeat()
        except Exception as e:
            LOG.warning('Heartbeat of %s on %s failed (will retry): %s',
                        self.binary, self.host, e)

    # -- periodic tasks ----------------------------------------------------

    def _periodic_callables(self):
        tasks = [(self.report_state, CONF.report_interval)]
        manager = getattr(self, 'manager', None)
        if manager is not None:
            tasks.extend(periodic_tasks_of(manager))
        return tasks

    def _start_periodic_tasks(self):
        callables = []
        for method, spacing in self._periodic_callables():
            # The heartbeat beats at once: a daemon restarted after a
            # while is reported down until its first beat, and would
            # otherwise be for a whole report_interval while it serves.
            callables.append((periodics.periodic(
                spacing, run_immediately=method == self.report_state)(
                    self._guarded(method)), (), {}))
        # Each task on its own worker: a slow audit (say, waiting on an
        # unreachable placement) must never delay the heartbeat, or the
        # service would be reported down.
        if concurrency.backend() == 'eventlet':
            def executor_factory():
                return futurist.GreenThreadPoolExecutor(len(callables))
        else:
            def executor_factory():
                return futurist.ThreadPoolExecutor(len(callables))
        self._periodic_worker = periodics.PeriodicWorker(
            callables, executor_factory=executor_factory)
        self._periodic_thread = threading.Thread(
            target=self._periodic_worker.start, name='periodic-tasks',
            daemon=True)
        self._periodic_thread.start()

    @staticmethod
    def _guarded(method):
        name = getattr(method, '__name__', repr(method))

        def run():
            try:
                method()
            except Exception:
                LOG.exception('Periodic task %s failed', name)
        run.__name__ = name
        return run

    def _stop_periodic_tasks(self):
        # A task may be blocked in an RPC call to a peer that is stopping
        # too (a heartbeat through the conductor), and the worker's stop()
        # waits for it; do it on the side so the caller's shutdown stays
        # bounded by graceful_shutdown_timeout.
        worker = self._periodic_worker
        if worker is None:
            return

        def stop():
            worker.stop()
            worker.wait()
        self._periodic_stopper = threading.Thread(
            target=stop, name='periodic-stop', daemon=True)
        self._periodic_stopper.start()

    def _wait_periodic_tasks(self):
        stopper = getattr(self, '_periodic_stopper', None)
        if stopper is not None:
            stopper.join()


class Service(_ServiceBase):
    """A daemon serving the RPC topic ``topic`` with ``manager``."""

    def __init__(self, binary, topic, manager, host=None,
                 server_per_host=False, periodic_tasks=True,
                 rpc_threads=None):
        """``periodic_tasks=False``: the heartbeat and the manager's
        periodic tasks are run by the caller, as a process hosting many
        services does from one worker (``cmd.fake_computes``).
        ``rpc_threads``: the threads the RPC server runs messages on
        (default oslo.messaging's executor_thread_pool_size)."""
        super().__init__(binary, host)
        self.topic = topic
        self.manager = manager
        self.server_per_host = server_per_host
        self.periodic_tasks = periodic_tasks
        self.rpc_threads = rpc_threads
        self.rpcserver = None

    def start(self):
        context = nova_context.get_admin_context()
        LOG.info('Starting %s on %s (nova_lite %s, %s concurrency)',
                 self.binary, self.host, version.VERSION,
                 concurrency.backend())
        self.manager.init_host(context)
        self.service_ref = self._register(context)
        self.manager.service_ref = self.service_ref
        target = messaging.Target(topic=self.topic, server=self.host)
        endpoints = [self.manager, BaseRPCEndpoint(self)]
        self.rpcserver = rpc.get_server(target, endpoints)
        self.rpcserver.start(override_pool_size=self.rpc_threads)
        self.manager.post_start_hook(context)
        if self.periodic_tasks:
            self._start_periodic_tasks()
        LOG.info('%s on %s is serving topic %s', self.binary, self.host,
                 self.topic)

    def stop(self):
        LOG.info('Stopping %s on %s', self.binary, self.host)
        if self.rpcserver is not None:
            self.rpcserver.stop()
        self._stop_periodic_tasks()

    def wait(self):
        if self.rpcserver is not None:
            self.rpcserver.wait()
        self.manager.cleanup_host()
        self._wait_periodic_tasks()


class WSGIService(_ServiceBase):
    """A daemon serving a WSGI application over HTTP."""

    def __init__(self, binary, app, bind_host, bind_port, threads,
                 register=True, keep_alive_timeout=None):
        super().__init__(binary)
        from nova_lite.api import auth
        auth.check_bind_address(binary, bind_host)
        from nova_lite.api import wsgi_server
        if keep_alive_timeout is None:
            keep_alive_timeout = CONF.api.wsgi_keep_alive_timeout
        self.server = wsgi_server.Server(
            binary, app, bind_host, bind_port, threads,
            keep_alive_timeout=keep_alive_timeout,
            header_timeout=CONF.api.wsgi_header_timeout)
        self.register = register

    @property
    def port(self):
        return self.server.port

    def start(self):
        if self.register:
            self.service_ref = self._register(
                nova_context.get_admin_context())
        self.server.start()
        self._start_periodic_tasks()
        LOG.info('%s listening on %s:%s', self.binary, self.server.host,
                 self.server.port)

    def stop(self):
        self.server.stop()
        self._stop_periodic_tasks()

    def wait(self):
        self.server.wait()
        self._wait_periodic_tasks()


def reload_config():
    """SIGHUP: the config files again, their mutable options applied."""
    systemd.notify('RELOADING=1')
    try:
        LOG.info('Caught SIGHUP: reading %s again',
                 ', '.join(CONF.config_file) or 'no config file')
        CONF.mutate_config_files()
    except Exception:
        # A file that no longer parses leaves the running values alone.
        LOG.exception('The configuration was not reloaded')
    finally:
        systemd.notify_ready()


def serve(*services):
    """Start ``services``, block until SIGTERM/SIGINT (reloading the
    configuration on SIGHUP), then stop them."""
    stop_requested = threading.Event()
    reload_requested = threading.Event()
    report_requested = threading.Event()
    # Set by every handler: the loop below wakes at once.
    woken = threading.Event()

    def _on_signal(signum, frame):
        if not stop_requested.is_set():
            LOG.info('Caught signal %s, stopping', signum)
        stop_requested.set()
        woken.set()

    def _requester(event):
        # The work is done by the loop below, not in the handler: a
        # handler runs between any two bytecodes, maybe with the log
        # lock held.
        def handler(signum, frame):
            event.set()
            woken.set()
        return handler

    signal.signal(signal.SIGTERM, _on_signal)
    signal.signal(signal.SIGINT, _on_signal)
    signal.signal(signal.SIGHUP, _requester(reload_requested))
    signal.signal(signal.SIGUSR2, _requester(report_requested))
    # What is loaded by now (modules, config, routes) lives as long as the
    # daemon: keep the collector from walking it again and again.
    gc.collect()
    gc.freeze()
    started = []
    try:
        for svc in services:
            svc.start()
            started.append(svc)
        systemd.notify_ready()
        while not stop_requested.is_set():
            woken.wait(1)
            woken.clear()
            if reload_requested.is_set():
                reload_requested.clear()
                reload_config()
            if report_requested.is_set():
                report_requested.clear()
                LOG.info('%s', counters.render())
                try:
                    counters.dump_memory_snapshot(
                        getattr(services[0], 'binary', 'daemon')
                        if services else 'daemon')
                except Exception:
                    # A report must never stop the daemon.
                    LOG.exception('The memory snapshot was not written')
    finally:
        systemd.notify_stopping()
        for svc in started:
            svc.stop()
        waiter = threading.Thread(target=lambda: [s.wait() for s in started],
                                  daemon=True)
        waiter.start()
        timeout = CONF.graceful_shutdown_timeout or None
        waiter.join(timeout)
        if waiter.is_alive():
            LOG.warning('In-flight requests did not finish within %ss; '
                        'exiting anyway', timeout)
        rpc.cleanup()
