"""nova-lite-fake-computes: many simulated hosts in one process, each a
compute of its own to the rest of the control plane, sharing what can be
shared, with one timetable for all their periodic tasks and one heartbeat
call for all of them."""

import threading
import time

import fixtures
import testtools

from nova_lite.cmd import fake_computes
from nova_lite import concurrency
from nova_lite import conf as nova_conf
from nova_lite import objects
from nova_lite.objects import base as objects_base
from tests.unit import fixtures as nova_fixtures
from tests.unit import test_cmd_compute

CONF = nova_conf.CONF

FAKE_COMPUTES_CONF = test_cmd_compute.PEERS_CONF + """
[fake_computes]
hosts = 3
host_prefix = sim
first_index = 7
"""


class _Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


class TestTimetable(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.clock = _Clock()
        self.timetable = fake_computes.Timetable(self.clock)

    def runs_between(self, start, end, step=0.5):
        """{task: [times it was due]} from ``start`` to ``end`` seconds
        after the timetable started."""
        runs = {}
        began = self.clock.now
        at = start
        while at <= end:
            self.clock.now = began + at
            for task in self.timetable.due():
                runs.setdefault(task, []).append(at)
            at += step
        return runs

    def test_hosts_first_runs_are_spread_over_the_interval(self):
        self.timetable.start([('host%d' % i, 60) for i in range(1, 61)])
        runs = self.runs_between(0, 60, step=1)
        # One host a second, none at the start, the last one at 60 s.
        self.assertEqual({'host%d' % i: [float(i)] for i in range(1, 61)},
                         runs)

    def test_a_thousand_hosts_never_share_a_second(self):
        self.timetable.start([('host%d' % i, 60) for i in range(1000)])
        per_second = {}
        for task, times in self.runs_between(0, 120, step=1).items():
            for at in times:
                per_second[at] = per_second.get(at, 0) + 1
        self.assertLessEqual(max(per_second.values()), 17)
        self.assertEqual(2000, sum(per_second.values()))

    def test_tasks_of_each_spacing_are_spread_over_their_own(self):
        self.timetable.start([('audit1', 60), ('audit2', 60),
                              ('recover1', 30), ('recover2', 30)])
        runs = self.runs_between(0, 60, step=5)
        self.assertEqual({'audit1': [30.0], 'audit2': [60.0],
                          'recover1': [15.0, 45.0],
                          'recover2': [30.0, 60.0]}, runs)

    def test_a_late_task_runs_once_and_keeps_its_place(self):
        self.timetable.start([('audit', 10)])
        self.clock.now += 35  # due at 10, 20 and 30: the process was busy
        self.assertEqual(['audit'], self.timetable.due())
        self.assertEqual([], self.timetable.due())
        self.assertEqual(self.clock.now + 5, self.timetable.next_run())

    def test_next_run_is_the_earliest(self):
        self.assertIsNone(self.timetable.next_run())
        self.timetable.start([('a', 60), ('b', 10)])
        self.assertEqual(self.clock.now + 10, self.timetable.next_run())


class _CommandTestCase(test_cmd_compute.CommandTestCase):

    def _start(self, text):
        [hosts] = self.run_main(fake_computes.main,
                                'nova-lite-fake-computes', text)
        self.addCleanup(hosts.builds.shutdown)
        return hosts


class TestStart(_CommandTestCase):

    def test_hosts_are_named_from_the_options(self):
        hosts = self._start(FAKE_COMPUTES_CONF)
        self.assertEqual(['sim7', 'sim8', 'sim9'],
                         [svc.host for svc in hosts.services])
        self.assertEqual(['compute.sim7', 'compute.sim8', 'compute.sim9'],
                         [svc.topic for svc in hosts.services])

    def test_serve_can_name_the_process(self):
        # serve() names a daemon's memory snapshots by its first service.
        hosts = self._start(FAKE_COMPUTES_CONF)
        self.assertEqual('nova-lite-fake-computes', hosts.binary)

    def test_each_host_has_its_own_node_and_tracker(self):
        hosts = self._start(FAKE_COMPUTES_CONF)
        managers = [svc.manager for svc in hosts.services]
        self.assertEqual([['sim7'], ['sim8'], ['sim9']],
                         [m.driver.get_available_nodes() for m in managers])
        self.assertEqual(3, len({id(m.rt) for m in managers}))
        self.assertEqual(['sim7', 'sim8', 'sim9'],
                         [m.rt.host for m in managers])

    def test_clients_and_build_pool_are_shared(self):
        hosts = self._start(FAKE_COMPUTES_CONF)
        managers = [svc.manager for svc in hosts.services]
        for manager in managers:
            self.assertIs(hosts.conductor_api, manager.conductor_api)
            self.assertIs(hosts.reportclient, manager.rt.reportclient)
            self.assertIs(hosts.ports, manager.ports)
            self.assertIs(hosts.compute_rpcapi, manager.compute_rpcapi)
        self.assertEqual(1, len({id(m._builds._pool) for m in managers}))
        self.assertIs(hosts.conductor_api,
                      objects_base.NovaLiteObject.indirection_api)

    def test_a_hosts_cleanup_leaves_the_shared_pool_running(self):
        hosts = self._start(FAKE_COMPUTES_CONF)
        hosts.services[0].manager.cleanup_host()
        self.assertEqual(2, hosts.builds.submit(lambda: 2).result())

    def test_hosts_run_no_periodic_worker_of_their_own(self):
        hosts = self._start(FAKE_COMPUTES_CONF)
        for svc in hosts.services:
            self.assertFalse(svc.periodic_tasks)
            self.assertEqual(2, svc.rpc_threads)

    def test_refuses_a_hypervisor_hostname_every_host_would_share(self):
        stderr = self.useFixture(fixtures.StringStream('stderr')).stream
        self.useFixture(fixtures.MonkeyPatch('sys.stderr', stderr))
        error = self.assertRaises(
            SystemExit, self._start, FAKE_COMPUTES_CONF +
            '[compute]\nfake_hypervisor_hostname = node1\n')
        self.assertEqual(2, error.code)
        stderr.seek(0)
        output = stderr.read()
        self.assertTrue(output.startswith(
            'ERROR: Configuration error: [compute] fake_hypervisor_hostname '
            '= node1 would give every simulated host the same node'), output)
        self.assertNotIn('Traceback', output)
        self.assertEqual([], self.served)

    def test_refuses_a_host_prefix_that_is_no_host_name(self):
        stderr = self.useFixture(fixtures.StringStream('stderr')).stream
        self.useFixture(fixtures.MonkeyPatch('sys.stderr', stderr))
        error = self.assertRaises(
            SystemExit, self._start,
            FAKE_COMPUTES_CONF.replace('host_prefix = sim',
                                       'host_prefix = a b'))
        self.assertEqual(2, error.code)
        stderr.seek(0)
        self.assertIn("[fake_computes] host_prefix = 'a b' is not a host "
                      "name start", stderr.read())


class TestHeartbeats(_CommandTestCase):

    def test_one_call_heartbeats_every_registered_host(self):
        hosts = self._start(FAKE_COMPUTES_CONF)
        # The first beat is at once, not a report_interval on.
        self.useFixture(nova_fixtures.Config()).config(report_interval=3600)
        for number, svc in enumerate(hosts.services[:2], start=41):
            svc.service_ref = objects.Service(id=number)
        calls = []
        sent = threading.Event()

        def heartbeat_many(cls, context, ids):
            calls.append(list(ids))
            sent.set()
            return len(ids)
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.objects.Service.heartbeat_many', heartbeat_many))
        hosts._start_thread(hosts._run_heartbeats, 'heartbeats')
        self.addCleanup(hosts._stopping.set)
        self.assertTrue(sent.wait(10))
        hosts._stopping.set()
        # The host not registered yet is left out.
        self.assertEqual([41, 42], calls[0])


class TestLanes(_CommandTestCase):

    def test_a_slow_task_neither_delays_heartbeats_nor_runs_twice(self):
        hosts = self._start(FAKE_COMPUTES_CONF)
        self.useFixture(nova_fixtures.Config()).config(report_interval=1)
        hosts.services[0].service_ref = objects.Service(id=7)
        heartbeats = []

        def heartbeat_many(cls, context, ids):
            heartbeats.append(list(ids))
            return len(ids)
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.objects.Service.heartbeat_many', heartbeat_many))
        release = threading.Event()
        self.addCleanup(release.set)
        audits = []

        def audit():
            audits.append(1)
            release.wait(30)
        # An audit due every second that takes far longer.
        hosts.timetable.start([(fake_computes._HostTask('sim7', audit),
                                1)])
        hosts._periodic = concurrency.executor(2)
        self.addCleanup(hosts._periodic.shutdown, wait=False)
        hosts._start_thread(hosts._run_timetable, 'periodic-tasks')
        hosts._start_thread(hosts._run_heartbeats, 'heartbeats')
        self.addCleanup(hosts._stopping.set)
        deadline = time.monotonic() + 10
        while len(heartbeats) < 3 and time.monotonic() < deadline:
            time.sleep(0.1)
        self.assertGreaterEqual(len(heartbeats), 3)
        self.assertEqual([7], heartbeats[-1])
        # Its turns while it ran were skipped.
        self.assertEqual(1, len(audits))
