"""nova-lite-fake-computes: many simulated compute hosts in one process.

Each host (``[fake_computes] hosts`` of them, named ``<host_prefix><n>``
from ``first_index`` on) is what a nova-lite-compute with the fake driver
is: its own ComputeManager, FakeDriver and resource tracker (so its own
compute node record and placement provider), its own service record and
its own RPC server on ``compute.<host>``; the conductor and the scheduler
cannot tell it from a real compute. What can be shared safely is shared:
one conductor RPC client (which is also the objects' indirection API: no
database here either), one placement client, one port client, one compute
RPC client and one bounded build pool for the whole process.

So that a thousand idle hosts cost little, the process has one timetable
for the periodic tasks of all of them (``Timetable``): each task of each
host runs every interval as a compute's would, the hosts' runs spread
evenly over the interval instead of all firing in the same second, on a
few threads. The heartbeats have a thread of their own, so a slow audit
never delays them, and go to the conductor as one call per
``[DEFAULT] report_interval`` for all the hosts (``Service.heartbeat_many``).

It refuses a config that would give every host one node name
(``[compute] fake_hypervisor_hostname``).
"""

import heapq
import itertools
import re
import threading
import time

from oslo_log import log as logging

from nova_lite.cmd import common
from nova_lite import concurrency
from nova_lite import exception

CONF = common.CONF
LOG = logging.getLogger(__name__)

_PREFIX = re.compile(r'^[A-Za-z][A-Za-z0-9_-]*$')


def check_config():
    """ConfigurationError when the options cannot give every host a name
    and a node of its own."""
    if CONF.compute.fake_hypervisor_hostname:
        raise exception.ConfigurationError(
            reason='[compute] fake_hypervisor_hostname = %s would give '
                   'every simulated host the same node (hypervisor) name, '
                   'so they would share one compute node record and one '
                   'resource provider; nova-lite-fake-computes names each '
                   'node after its host. Remove the option from the files '
                   'this daemon reads' %
                   CONF.compute.fake_hypervisor_hostname)
    prefix = CONF.fake_computes.host_prefix
    if not prefix or not _PREFIX.match(prefix):
        raise exception.ConfigurationError(
            reason='[fake_computes] host_prefix = %r is not a host name '
                   'start: use letters, digits, "-" and "_", beginning '
                   'with a letter' % (prefix,))


def host_names():
    """The names of this process's hosts, from [fake_computes]."""
    options = CONF.fake_computes
    return ['%s%d' % (options.host_prefix, index)
            for index in range(options.first_index,
                               options.first_index + options.hosts)]


class Timetable:
    """When each periodic task of each host runs next.

    A task runs every ``spacing`` seconds. The tasks added with the same
    spacing have their first runs spread evenly over it, the last one
    ``spacing`` from the start: a thousand hosts' audits every 60 s are
    one every 60 ms, not a thousand in one second. A task whose turn came
    while it was late (its previous run still going, the process busy)
    runs once and keeps its place in the cycle; it does not run again to
    catch up.
    """

    def __init__(self, clock=time.monotonic):
        self._clock = clock
        # (when, sequence, spacing, task): the next run of each task.
        self._heap = []
        self._sequence = itertools.count()

    def start(self, tasks):
        """Lay out ``tasks`` ([(task, spacing)]) from now."""
        now = self._clock()
        by_spacing = {}
        for task, spacing in tasks:
            by_spacing.setdefault(spacing, []).append(task)
        for spacing, same in by_spacing.items():
            for index, task in enumerate(same):
                offset = spacing * (index + 1) / len(same)
                heapq.heappush(self._heap, (now + offset,
                                            next(self._sequence), spacing,
                                            task))

    def __len__(self):
        return len(self._heap)

    def next_run(self):
        """When the earliest task is due (None: there is none)."""
        return self._heap[0][0] if self._heap else None

    def due(self):
        """The tasks due now, each moved to its next turn."""
        now = self._clock()
        found = []
        while self._heap and self._heap[0][0] <= now:
            when, _, spacing, task = heapq.heappop(self._heap)
            found.append(task)
            # Its next turn after now, in step with its first one.
            turns = int((now - when) // spacing) + 1
            heapq.heappush(self._heap, (when + turns * spacing,
                                        next(self._sequence), spacing,
                                        task))
        return found


class _HostTask:
    """One periodic task of one host, as the timetable holds it."""

    def __init__(self, host, method):
        self.host = host
        self.method = method
        self.name = getattr(method, '__name__', repr(method))
        self.running = False

    def __call__(self):
        try:
            self.method()
        except Exception:
            LOG.exception('Periodic task %s of %s failed', self.name,
                          self.host)
        finally:
            self.running = False


class _LentPool:
    """The process's build pool as each host's manager holds it: a host's
    cleanup (which shuts its pool down) leaves the shared one to the
    process, which shuts it down once every host has stopped."""

    def __init__(self, pool):
        self._pool = pool

    def submit(self, fn, *args, **kwargs):
        return self._pool.submit(fn, *args, **kwargs)

    def shutdown(self, wait=True):
        pass


def _keep_connections(client, count):
    """Let ``client``'s HTTP session keep ``count`` connections to its
    peer (requests keeps 10): with more threads calling it at once, each
    one over that would open a connection and throw it away."""
    from requests import adapters
    session = client.session
    for prefix, adapter in list(session.adapters.items()):
        session.mount(prefix, adapters.HTTPAdapter(
            max_retries=adapter.max_retries, pool_maxsize=count))


def _all_at_once(function, items, threads, what):
    """``function(item)`` for every item, ``threads`` at a time; the
    first error is raised once all have run."""
    errors = []
    pool = concurrency.executor(max(1, min(threads, len(items))))
    try:
        for future in [pool.submit(function, item) for item in items]:
            try:
                future.result()
            except Exception as e:
                errors.append(e)
    finally:
        pool.shutdown(wait=True)
    if errors:
        LOG.error('%s failed for %d of %d hosts', what, len(errors),
                  len(items))
        raise errors[0]


class SimulatedHosts:
    """The hosts of this process, started, stopped and waited for as one
    service by ``service.serve``."""

    # What serve() names the process by (its memory snapshots).
    binary = 'nova-lite-fake-computes'

    def __init__(self, hosts):
        from nova_lite.compute import manager
        from nova_lite.compute import rpcapi as compute_rpcapi
        from nova_lite.conductor import rpcapi as conductor_rpcapi
        from nova_lite.network import api as network_api
        from nova_lite.objects import base as objects_base
        from nova_lite import placement_client
        from nova_lite import service
        from nova_lite import servicegroup
        options = CONF.fake_computes
        self.conductor_api = conductor_rpcapi.ConductorAPI()
        objects_base.NovaLiteObject.indirection_api = self.conductor_api
        # One provider cache for all the hosts (each caches its own node).
        self.reportclient = placement_client.PlacementClient(
            cache_providers=True)
        self.ports = network_api.PortClient()
        # Every thread that may call placement or the port service at once.
        callers = (options.max_concurrent_builds + options.periodic_threads +
                   options.start_threads + 4)
        _keep_connections(self.reportclient, callers)
        _keep_connections(self.ports, callers)
        self.compute_rpcapi = compute_rpcapi.ComputeAPI()
        self.builds = concurrency.executor(options.max_concurrent_builds)
        lent = _LentPool(self.builds)
        self.services = [
            service.Service(
                servicegroup.COMPUTE_BINARY, compute_rpcapi.topic_for(host),
                manager.ComputeManager(
                    host, conductor_api=self.conductor_api,
                    reportclient=self.reportclient, ports=self.ports,
                    compute_rpcapi=self.compute_rpcapi, builds=lent),
                host=host, periodic_tasks=False,
                rpc_threads=options.rpc_threads_per_host)
            for host in hosts]
        self.timetable = Timetable()
        self._stopping = threading.Event()
        self._threads = []
        self._periodic = None
        self._started = []

    # -- start ---------------------------------------------------------------

    def start(self):
        LOG.info('Starting %d simulated hosts (%s to %s), %d at a time',
                 len(self.services), self.services[0].host,
                 self.services[-1].host, CONF.fake_computes.start_threads)
        began = time.monotonic()
        # From the first registered host on: the first ones would be
        # reported down while the last ones start.
        self._start_thread(self._run_heartbeats, 'heartbeats')
        lock = threading.Lock()

        def start_one(svc):
            svc.start()
            with lock:
                self._started.append(svc)
        try:
            _all_at_once(start_one, self.services,
                         CONF.fake_computes.start_threads, 'Starting')
        except BaseException:
            self.stop()
            self.wait()
            raise
        self._start_periodic_tasks()
        LOG.info('%d simulated hosts serving after %.1fs', len(self.services),
                 time.monotonic() - began)

    def _start_thread(self, target, name):
        thread = threading.Thread(target=target, name=name, daemon=True)
        thread.start()
        self._threads.append(thread)

    def _start_periodic_tasks(self):
        from nova_lite import service
        tasks = []
        for svc in self.services:
            for method, spacing in service.periodic_tasks_of(svc.manager):
                tasks.append((_HostTask(svc.host, method), spacing))
        self.timetable.start(tasks)
        self._periodic = concurrency.executor(
            CONF.fake_computes.periodic_threads)
        self._start_thread(self._run_timetable, 'periodic-tasks')

    # -- the lanes -----------------------------------------------------------

    def _run_timetable(self):
        while not self._stopping.is_set():
            next_run = self.timetable.next_run()
            if next_run is None:
                return
            wait = next_run - time.monotonic()
            if wait > 0 and self._stopping.wait(wait):
                return
            for task in self.timetable.due():
                # Still running since its last turn (an audit waiting on
                # an unreachable placement): this turn is skipped.
                if task.running:
                    LOG.debug('Periodic task %s of %s still running; '
                              'skipping this turn', task.name, task.host)
                    continue
                task.running = True
                try:
                    self._periodic.submit(task)
                except RuntimeError:  # shut down meanwhile
                    return

    def _run_heartbeats(self):
        from nova_lite import context as nova_context
        from nova_lite import objects
        # The first beat as soon as a host is registered (one restarted
        # after a while is reported down until its first), then one each
        # report_interval.
        pause = 0
        while not self._stopping.wait(pause):
            ids = [svc.service_ref.id for svc in self.services
                   if svc.service_ref is not None]
            if not ids:
                pause = 0.2
                continue
            pause = CONF.report_interval
            try:
                found = objects.Service.heartbeat_many(
                    nova_context.get_admin_context(), ids)
            except Exception as e:
                LOG.warning('Heartbeat of %d simulated hosts failed (will '
                            'retry): %s', len(ids), e)
                continue
            if found < len(ids):
                LOG.warning('Heartbeat: %d of the %d service records of '
                            'this process are gone (deleted by an '
                            'administrator?); those hosts are reported down',
                            len(ids) - found, len(ids))

    # -- stop ----------------------------------------------------------------

    def stop(self):
        self._stopping.set()
        if self._periodic is not None:
            self._periodic.shutdown(wait=False)
        self._stop_services(self._started)

    def wait(self):
        self._wait_services(self._started)
        self.builds.shutdown(wait=True)
        if self._periodic is not None:
            self._periodic.shutdown(wait=True)
        for thread in self._threads:
            thread.join()

    @staticmethod
    def _stop_services(services):
        # Each RPC server takes up to its poll timeout to stop (a few
        # seconds): all at once, or a thousand would take an hour.
        if services:
            _all_at_once(lambda svc: svc.stop(), services, len(services),
                         'Stopping')

    @staticmethod
    def _wait_services(services):
        if services:
            _all_at_once(lambda svc: svc.wait(), services, 64, 'Stopping')


def main():
    def body():
        common.setup()
        check_config()
        if CONF.database.connection or CONF.api_database.connection:
            LOG.warning('This process has database connection strings in '
                        'its configuration; simulated computes never use '
                        'them (all persistence goes through the '
                        'conductor). Remove them.')
            CONF.set_override('connection', None, 'database')
            CONF.set_override('connection', None, 'api_database')
        from nova_lite.db import api as db_api
        from nova_lite import servicegroup
        db_api.block_access(servicegroup.COMPUTE_BINARY)
        from nova_lite.network import agent
        agent.validate_config()
        common.check_placement()
        from nova_lite import service
        service.serve(SimulatedHosts(host_names()))
    common.run(body)


if __name__ == '__main__':
    main()
