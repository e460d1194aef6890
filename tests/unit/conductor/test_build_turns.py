"""[conductor] build_workers: a conductor builds that many create requests
at once, on a pool of its own; the others wait their turn there, and the
RPC thread that received each is free at once."""

import threading

import fixtures
import testtools

from nova_lite.conductor import manager as conductor_manager
from nova_lite import context as nova_context
from nova_lite import objects
from tests.unit import fixtures as nova_fixtures


class TestBuildTurns(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.config = self.useFixture(nova_fixtures.Config())
        self.useFixture(nova_fixtures.FakeRPC())
        objects.register_all()
        self.lock = threading.Condition()
        self.running = self.most = self.built = 0
        self.release = threading.Event()
        self.addCleanup(self.release.set)
        test = self

        def execute(task):
            with test.lock:
                test.running += 1
                test.most = max(test.most, test.running)
                test.lock.notify_all()
            test.release.wait(10)
            with test.lock:
                test.running -= 1
                test.built += 1
            if task.fails:
                raise RuntimeError('a build that failed')

        def init(task, context, *args, **kwargs):
            task.fails = bool(args[2])  # build_requests: [] or ['fail']
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.conductor.tasks.build.ScheduleAndBuildTask.execute',
            execute))
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.conductor.tasks.build.ScheduleAndBuildTask.__init__',
            init))

    def cast(self, workers, casts, failing=0):
        """``casts`` builds received by a conductor of ``workers``
        (``failing`` of them raising); how many ran at once before any
        ended."""
        self.config.config(build_workers=workers, group='conductor')
        manager = conductor_manager.ConductorManager()
        self.addCleanup(manager.cleanup_host)
        context = nova_context.get_admin_context()
        for number in range(casts):
            # Returns at once: the build waits on the pool, not here.
            requests = [_Failing()] if number < failing else []
            manager.schedule_and_build_instances(context, requests, [],
                                                 None)
        with self.lock:
            # Every cast was taken while no build had ended.
            self.assertEqual(0, self.built)
        with self.lock:
            self.assertTrue(self.lock.wait_for(
                lambda: self.running >= min(workers, casts), 10))
        threading.Event().wait(0.3)  # would more start?
        with self.lock:
            at_once = self.running
        self.release.set()
        manager.cleanup_host()  # waits for every build received
        return at_once

    def test_at_most_build_workers_at_once_and_each_in_its_turn(self):
        self.assertEqual(2, self.cast(workers=2, casts=5))
        self.assertEqual((2, 5), (self.most, self.built))

    def test_fewer_casts_than_workers_are_all_built_at_once(self):
        self.assertEqual(3, self.cast(workers=4, casts=3))
        self.assertEqual(3, self.built)

    def test_a_build_that_raises_is_logged_and_the_others_go_on(self):
        log = self.useFixture(fixtures.FakeLogger())
        self.cast(workers=1, casts=3, failing=1)
        self.assertEqual(3, self.built)
        self.assertIn('The build of', log.output)


class _Failing:
    instance_uuid = 'fail'
