"""[conductor] build_workers: how many create requests a conductor builds
at once; the others wait their turn."""

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
        self.lock = threading.Lock()
        self.running = 0
        self.most = 0
        self.built = 0
        self.release = threading.Event()
        self.addCleanup(self.release.set)
        test = self

        def execute(task):
            with test.lock:
                test.running += 1
                test.most = max(test.most, test.running)
            test.release.wait(10)
            with test.lock:
                test.running -= 1
                test.built += 1
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.conductor.tasks.build.ScheduleAndBuildTask.execute',
            execute))
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.conductor.tasks.build.ScheduleAndBuildTask.__init__',
            lambda task, *args, **kwargs: None))

    def builds_at_once(self, workers, casts):
        self.config.config(build_workers=workers, group='conductor')
        manager = conductor_manager.ConductorManager()
        context = nova_context.get_admin_context()
        threads = [threading.Thread(
            target=manager.schedule_and_build_instances,
            args=(context, [], [], None)) for _ in range(casts)]
        for thread in threads:
            thread.start()
        deadline = threading.Event()
        while not deadline.wait(0.05):
            with self.lock:
                if self.running >= min(workers, casts):
                    break
        deadline.wait(0.3)  # would more start?
        with self.lock:
            at_once = self.running
        self.release.set()
        for thread in threads:
            thread.join(10)
        self.assertFalse(any(t.is_alive() for t in threads))
        return at_once

    def test_at_most_build_workers_at_once_and_each_in_its_turn(self):
        self.assertEqual(2, self.builds_at_once(workers=2, casts=5))
        self.assertEqual((2, 5), (self.most, self.built))

    def test_fewer_casts_than_workers_are_all_built_at_once(self):
        self.assertEqual(3, self.builds_at_once(workers=4, casts=3))
