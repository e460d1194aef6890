"""Every step of the source compute's live migration, made to fail once
and to crash once.

Made from the flow's own table of steps
(``live_migration.live_migration_undos``): a step added to the flow is
tested here without a line more.

- **A failure** at a step (an exception where it begins): the server is
  back as it was before the move -- ACTIVE on its source without a task,
  holding its source allocation, its port bound to the source only, the
  migration's consumer empty, nothing on the destination -- and the
  migration is ``error`` (``cancelled`` for none of these).
- **A crash** at a step (the source compute is killed there: nothing
  unwinds): a new source process starts, and its look for interrupted
  tasks runs again once [compute] interrupted_task_timeout has passed.
  The steps the dead one recorded on the migration are undone (a crash
  before its first record -- at a step handed over by the conductor, or
  at ``preparing`` -- is rolled back from what the port service and
  placement say), with the same result. Moves cut off after the transfer
  are finished instead (``TestCrashAfterTheTransfer``).

The fixtures are ``test_manager_live_migration``'s: a real cell database
and placement, the fake driver, both computes' managers.
"""

import fixtures
import oslo_messaging as messaging

from nova_lite.compute.flows import interrupted
from nova_lite.compute.flows import live_migration
from nova_lite.compute import states
from nova_lite.conductor.tasks import recover
from nova_lite import context as nova_context
from nova_lite import objects
from tests.unit.compute import test_manager_interrupted
from tests.unit.compute import test_manager_live_migration as live_fixtures
from tests.unit.compute import test_move_flow_steps
from tests.unit import fixtures as nl_fixtures
from tests.unit import flow_steps

IN_ORDER = list(live_migration.live_migration_undos(None, None, None, None))
STEPS = sorted(IN_ORDER)
# The inherited steps are recorded with the first of the flow's own.
FIRST_RECORDED = IN_ORDER.index('preparing')


class Crash(KeyboardInterrupt):
    """What SIGKILL does to a flow: nothing after it runs."""


class StepTestCase(live_fixtures.LiveMigrationTestCase):

    def setUp(self):
        super().setUp()
        self.config.config(
            interrupted_task_timeout=test_manager_interrupted.TIMEOUT,
            group='compute')

    def tearDown(self):
        # Whatever a step's failure or crash and the looks left: the
        # audit holds.
        flow_steps.assert_audit_clean(self, self.reportclient, self.ports)
        super().tearDown()

    def assertNothingLeftOfTheMove(self, source_guest=True):
        """Back as before the move; the migration over, in error."""
        stored = self.stored(self.instance)
        self.assertEqual((states.ACTIVE, None, 'src', 'src'),
                         (stored.vm_state, stored.task_state, stored.host,
                          stored.node))
        self.assertEqual((self.allocation_on('src'), {}),
                         (self.resources(self.instance.uuid),
                          self.resources(self.migration.uuid)))
        self.assertEqual(
            {'src': ('ACTIVE', {'allocation': self.nics['src']})},
            self.bindings())
        self.assertEqual([], self.guests(self.dest))
        if source_guest:
            self.assertEqual([self.instance.uuid], self.guests())
        self.assertEqual('error', self.stored_migration().status)

    def restart_source(self):
        """A new process on the source: what init_host does, then the
        periodic look once the server has not moved for the timeout."""
        restarted = self.make_manager('src')
        restarted.compute_rpcapi = self.rpc
        interrupted.recover_live_migrations(restarted, self.context)
        test_manager_interrupted.age(self.context, self.instance,
                                     test_manager_interrupted.STALE)
        test_manager_interrupted.age_migration(
            self.context, self.migration, test_manager_interrupted.STALE)
        interrupted.resolve_interrupted_tasks(restarted, self.context)


class TestEachStepFails(StepTestCase):

    def check_failure_at(self, step):
        injected = flow_steps.fail_once_at(self, live_migration.FLOW,
                                           [step])
        self.live_migrate()
        self.assertEqual([step], injected, 'the flow never took %s' % step)
        self.assertNothingLeftOfTheMove()
        self.assertIn('injected at %s' % step,
                      self.event('compute_live_migration').details)


class TestEachStepCrashes(StepTestCase):

    def check_crash_at(self, step):
        injected = flow_steps.fail_once_at(self, live_migration.FLOW,
                                           [step], Crash)
        self.assertRaises(Crash, self.live_migrate)
        self.assertEqual([step], injected)
        self.restart_source()
        # The fake guest here died with the process that crashed.
        self.assertNothingLeftOfTheMove(source_guest=False)
        replayed = '%s of %s was interrupted after' % (live_migration.FLOW,
                                                       self.instance.uuid)
        self.assertEqual(IN_ORDER.index(step) > FIRST_RECORDED,
                         replayed in self.logs.output,
                         'the recorded steps replayed, else the repair')


class TestConductorDiedBeforeTheCast(StepTestCase):
    """The conductor recorded its steps on the migration and died before
    its cast: the source's look for stale moves replays the undos of
    those steps (not the repair of an unrecorded move)."""

    def test_its_recorded_steps_are_undone_by_the_source(self):
        self.migration.record_flow(live_migration.CONDUCTOR_FLOW, [
            ['move_source_to_migration', None],
            ['claim_destination', None],
            ['bind_destination', {'port': self.port['id'], 'host': 'dst'}],
            ['cast_live_migration', None]])
        self.restart_source()
        self.assertNothingLeftOfTheMove(source_guest=False)
        self.assertIn(
            '%s of %s was interrupted after migrating, migration, '
            'move_source_to_migration, claim_destination, bind_destination'
            % (live_migration.FLOW, self.instance.uuid), self.logs.output)

    def test_while_it_is_not_stale_the_source_waits_for_the_cast(self):
        self.migration.record_flow(live_migration.CONDUCTOR_FLOW, [
            ['move_source_to_migration', None]])
        restarted = self.make_manager('src')
        restarted.compute_rpcapi = self.rpc
        interrupted.recover_live_migrations(restarted, self.context)
        self.assertEqual('queued', self.stored_migration().status)
        self.assertEqual(states.MIGRATING,
                         self.stored(self.instance).task_state)


class TestCrashOnceTheDestinationTookItOver(StepTestCase):
    """The source dies after the destination took the server over, before
    it marked the migration completed: once stale, a conductor's look
    for interrupted moves completes it, and nothing else changes."""

    def setUp(self):
        super().setUp()
        real = self.rpc.post_live_migration_at_destination

        def crash_once_the_destination_took_it(*args):
            self.rpc.post_live_migration_at_destination = real
            real(*args)
            raise Crash()
        self.rpc.post_live_migration_at_destination = \
            crash_once_the_destination_took_it
        self.assertRaises(Crash, self.live_migrate)
        self.assertEqual('running', self.stored_migration().status)
        self.restart_source()
        test_move_flow_steps.age_migration(self.context, self.migration,
                                           test_manager_interrupted.STALE)
        recover.InterruptedMoves(
            nova_context.get_admin_context(),
            test_manager_interrupted.TIMEOUT, self.reportclient,
            ports=self.ports).run()

    def test_the_migration_is_completed(self):
        self.assertEqual('completed', self.stored_migration().status)

    def test_the_server_stays_active_on_the_destination(self):
        stored = self.stored(self.instance)
        self.assertEqual((states.ACTIVE, None, 'dst'),
                         (stored.vm_state, stored.task_state, stored.host))
        self.assertEqual((self.allocation_on('dst'), {}),
                         (self.resources(self.instance.uuid),
                          self.resources(self.migration.uuid)))
        self.assertEqual(
            {'dst': ('ACTIVE', {'allocation': self.nics['dst']})},
            self.bindings())


class TestTheConductorBlinksAtARecord(StepTestCase):
    """A record of the steps that times out (the conductor or its
    database blinked) is sent again: the move is delayed, not failed."""

    def setUp(self):
        super().setUp()
        self.pauses = self.useFixture(nl_fixtures.OutageClock(
            self.config, wait=15)).pauses
        real = objects.Migration.record_flow
        self.records = []

        def record_flow(migration, flow, steps):
            self.records.append([name for name, _ in steps])
            if len(self.records) in self.blinks:
                raise messaging.MessagingTimeout('no reply')
            return real(migration, flow, steps)
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.objects.migration.Migration.record_flow',
            record_flow))

    def test_a_blink_costs_a_pause(self):
        self.blinks = {1}
        self.live_migrate()
        self.assertEqual(('completed', [1]),
                         (self.stored_migration().status, self.pauses))
        self.assertEqual(self.records[0], self.records[1])

    def test_a_conductor_gone_for_good_fails_the_step_and_undoes_it(self):
        self.blinks = set(range(1, 100))
        self.live_migrate()
        self.assertEqual([1, 2, 4, 8], self.pauses)
        self.assertNothingLeftOfTheMove()


class TestCrashAfterTheTransfer(StepTestCase):
    """The source dies once the guest runs on the destination, before
    the destination took the server over: the move is finished."""

    def setUp(self):
        super().setUp()
        real = self.rpc.post_live_migration_at_destination

        def crash_before_the_destination_takes_it(*args):
            self.rpc.post_live_migration_at_destination = real
            raise Crash()
        self.rpc.post_live_migration_at_destination = \
            crash_before_the_destination_takes_it
        self.assertRaises(Crash, self.live_migrate)
        self.restart_source()

    def test_the_server_is_active_on_the_destination(self):
        stored = self.stored(self.instance)
        self.assertEqual((states.ACTIVE, None, 'dst', 'dst'),
                         (stored.vm_state, stored.task_state, stored.host,
                          stored.node))
        self.assertEqual([self.instance.uuid], self.guests(self.dest))

    def test_it_holds_the_destination_only(self):
        self.assertEqual((self.allocation_on('dst'), {}),
                         (self.resources(self.instance.uuid),
                          self.resources(self.migration.uuid)))
        self.assertEqual(
            {'dst': ('ACTIVE', {'allocation': self.nics['dst']})},
            self.bindings())

    def test_the_migration_is_completed(self):
        self.assertEqual('completed', self.stored_migration().status)


class TestAMigrationThatIsNotQueued(StepTestCase):
    """A takeover ended it before its cast arrived: it is not ours."""

    def setUp(self):
        super().setUp()
        ended = self.stored_migration()
        ended.status = 'error'
        ended.save()
        self.live_migrate()

    def tearDown(self):
        # No audit: the takeover that ended it is only pretended here
        # (its status), not its undos, which the audit would miss.
        super(StepTestCase, self).tearDown()

    def test_nothing_is_recorded_or_undone(self):
        stored = self.stored_migration()
        self.assertEqual(('error', None, []),
                         (stored.status, stored.flow, self.rpc.calls))
        self.assertEqual(
            (self.allocation_on('dst'), self.allocation_on('src')),
            (self.resources(self.instance.uuid),
             self.resources(self.migration.uuid)))


flow_steps.add_step_tests(TestEachStepFails, STEPS, 'check_failure_at',
                          'test_a_failure_at_%s_leaves_it_on_its_source')
flow_steps.add_step_tests(TestEachStepCrashes, STEPS, 'check_crash_at',
                          'test_a_crash_at_%s_is_undone_by_the_next_process')
