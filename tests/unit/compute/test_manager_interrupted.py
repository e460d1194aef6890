"""The compute's own interrupted work: at start, the tasks the previous
process was doing when it died; every [compute] recovery_interval, the
tasks on this host that have not moved for [compute]
interrupted_task_timeout and that nothing here works on.

As in ``test_manager_moves``: a real cell database, real placement (the
app, in this process), the fake driver and the in-memory port service.
This compute is ``dst``. A server's last change is aged by writing its
``updated_at`` with SQL, as the clock would have.
"""

import datetime
import threading

import fixtures
from oslo_utils import timeutils
from oslo_utils import uuidutils
import sqlalchemy as sa

from nova_lite.compute.flows import interrupted
from nova_lite.compute.flows import live_migration
from nova_lite.compute.flows import rebuild
from nova_lite.compute import instance_actions
from nova_lite.compute import states
from nova_lite import context as nova_context
from nova_lite.db import api as db
from nova_lite.db import main_models
from nova_lite import exception
from nova_lite import lifecycle
from nova_lite import objects
from nova_lite.objects import base
from tests.unit.compute import test_manager_live_migration as live_fixtures
from tests.unit.compute import test_manager_moves as manager_fixtures
from tests.unit.network import test_client_helpers as port_fakes

TIMEOUT = 300
STALE = TIMEOUT + 100


def age(context, instance, seconds_ago):
    """The server's last change ``seconds_ago``, as the clock would have
    it."""
    with db.cell_session(context) as session:
        session.execute(sa.update(main_models.Instance).where(
            main_models.Instance.uuid == instance.uuid).values(
                updated_at=base.utcnow() -
                datetime.timedelta(seconds=seconds_ago)))


def age_migration(context, migration, seconds_ago):
    """The migration's last change ``seconds_ago``."""
    with db.cell_session(context) as session:
        session.execute(sa.update(main_models.Migration).where(
            main_models.Migration.uuid == migration.uuid).values(
                updated_at=base.utcnow() -
                datetime.timedelta(seconds=seconds_ago)))


class ConductorThatAnswers(manager_fixtures.RecordingConductor):

    def ping(self, context, arg, timeout=None):
        return {'service': 'conductor', 'arg': arg}


class InterruptedTestCase(manager_fixtures.ManagerTestCase):

    host = 'dst'

    def setUp(self):
        super().setUp()
        self.config.config(interrupted_task_timeout=TIMEOUT,
                           group='compute')

    def server(self, vm_state=states.ACTIVE, task_state=None,
               seconds_ago=0, power_state=states.RUNNING):
        """A server on this host in ``task_state``, its guest running
        here, holding its flavor here and a port bound here; last changed
        ``seconds_ago``."""
        instance = self.make_instance(vm_state=vm_state,
                                      task_state=task_state, host='dst')
        if power_state != states.RUNNING:
            instance.power_state = power_state
            instance.save()
        self.manager.driver.spawn(self.context, instance)
        self.allocate(instance.uuid, self.allocation_on('dst',
                                                        with_port=False))
        self.ports.add(port_fakes.port(device_id=instance.uuid, host='dst',
                                       project_id=instance.project_id))
        if seconds_ago:
            self.age(instance, seconds_ago)
        return instance

    def age(self, instance, seconds_ago):
        age(self.context, instance, seconds_ago)

    def restart(self):
        interrupted.resolve_interrupted_tasks(self.manager, self.context,
                                              restarted=True)

    def look(self):
        """The periodic look, as ``resolve_interrupted_tasks`` does it."""
        interrupted.resolve_interrupted_tasks(self.manager, self.context)

    def state(self, instance):
        stored = self.stored(instance)
        return (stored.vm_state, stored.task_state, stored.host)

    def bound_ports(self, instance):
        return [p['id'] for p in self.ports.ports_of(instance)
                if p.get('binding:host_id')]

    def assertUntouched(self, instance):
        stored = self.stored(instance)
        self.assertEqual(
            (instance.vm_state, instance.task_state, 'dst', None,
             self.allocation_on('dst', with_port=False), 1),
            (stored.vm_state, stored.task_state, stored.host, stored.fault,
             self.resources(instance.uuid), len(self.bound_ports(instance))))


# -- at start ----------------------------------------------------------------

class TestSpawnCutOffByARestart(InterruptedTestCase):
    """The previous process died while it spawned a server (fresh: the
    restart is why, not the time)."""

    def setUp(self):
        super().setUp()
        self.instance = self.server(vm_state=states.BUILDING,
                                    task_state=states.SPAWNING)
        self.restart()

    def test_it_is_scheduled_again_on_no_host(self):
        self.assertEqual((states.BUILDING, states.SCHEDULING, None),
                         self.state(self.instance))
        [(uuids, spec, host_lists)] = self.conductor.reschedules
        # The conductor reads the spec; the scheduler chooses anew.
        self.assertEqual(([self.instance.uuid], None, [[]]),
                         (uuids, spec, host_lists))

    def test_once_restarted_too_often_it_ends_in_error(self):
        instance = self.server(vm_state=states.BUILDING,
                               task_state=states.SPAWNING)
        instance.system_metadata = {lifecycle.BUILD_RESTARTS: '3'}
        instance.save()
        self.restart()
        self.assertEqual((states.ERROR, None, None), self.state(instance))
        self.assertEqual({}, self.resources(instance.uuid))
        self.assertEqual(1, len(self.conductor.reschedules))

    def test_its_fault_says_the_restart_interrupted_it(self):
        fault = self.stored(self.instance).fault
        self.assertEqual('dst', fault.host)
        self.assertIn('dst restarted during it', fault.details)

    def test_it_holds_no_allocation(self):
        self.assertEqual({}, self.resources(self.instance.uuid))

    def test_its_ports_are_released(self):
        self.assertEqual([], self.ports.ports_of(self.instance))

    def test_its_guest_is_gone(self):
        self.assertEqual([], self.guests())


class TestInitHost(InterruptedTestCase):

    def test_init_host_resolves_a_spawn_cut_off_by_the_restart(self):
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.network.agent.report_state',
            lambda host, nodename, ports: True))
        self.manager.conductor_api = ConductorThatAnswers()
        instance = self.server(vm_state=states.BUILDING,
                               task_state=states.SPAWNING)
        self.manager.init_host(self.context)
        self.assertEqual((states.BUILDING, states.SCHEDULING, None),
                         self.state(instance))


class TestRebuildCutOffByARestart(InterruptedTestCase):
    """The previous process died while it spawned a server again for a
    rebuild: the rebuild is done again, the server keeps its host and its
    allocation."""

    def test_it_is_rebuilt_again(self):
        instance = self.server(task_state=states.REBUILD_SPAWNING,
                               power_state=states.NOSTATE)
        self.manager.driver.destroy(self.context, instance)
        self.restart()
        self.assertEqual((states.ACTIVE, None, 'dst', [instance.uuid],
                          self.allocation_on('dst', with_port=False)),
                         self.state(instance) + (
                             self.guests(), self.resources(instance.uuid)))


class TestRebootCutOffByARestart(InterruptedTestCase):
    """The previous process died while it rebooted a server: it is
    rebooted again, as Nova does at start."""

    def test_a_reboot_started_is_rebooted_again_active_and_running(self):
        for task_state in (states.REBOOT_PENDING, states.REBOOT_STARTED,
                           states.REBOOT_PENDING_HARD,
                           states.REBOOT_STARTED_HARD):
            instance = self.server(task_state=task_state,
                                   power_state=states.NOSTATE)
            self.manager.driver.power_off(instance)
            self.restart()
            self.assertEqual(
                ((states.ACTIVE, None, 'dst'), states.RUNNING, 'running'),
                (self.state(instance), self.stored(instance).power_state,
                 self.manager.driver._instances[instance.uuid]['state']),
                task_state)

    def test_a_stopped_server_whose_hard_reboot_was_cut_off_is_active(self):
        instance = self.server(vm_state=states.STOPPED,
                               task_state=states.REBOOT_STARTED_HARD,
                               power_state=states.SHUTDOWN)
        self.restart()
        self.assertEqual((states.ACTIVE, None, 'dst'), self.state(instance))


class TestLateOrRepeatedMessages(InterruptedTestCase):
    """A message whose work was done already (a repeat), or that a later
    request on the server overtook (late: its request id is not the
    server's newest action's), touches nothing of the server."""

    def guest_state(self, instance):
        return self.manager.driver._instances[instance.uuid]['state']

    def sent_as(self, instance, task_state):
        message = self.stored(instance)
        message.task_state = task_state
        return message

    def this_request(self, instance, action):
        """The message's own request is the server's newest action."""
        objects.InstanceAction.action_start(self.context, instance.uuid,
                                            action)

    def later_request(self, instance, action):
        objects.InstanceAction.action_start(
            nova_context.get_admin_context(), instance.uuid, action)

    def test_a_repeated_rebuild_leaves_the_guest(self):
        instance = self.server()
        rebuild.rebuild(self.manager, self.context,
                        self.sent_as(instance, states.REBUILDING), None, None)
        self.assertUntouched(instance)
        self.assertEqual([instance.uuid], self.guests())

    def test_a_rebuild_a_later_request_overtook_leaves_the_guest(self):
        instance = self.server(task_state=states.REBUILDING)
        self.this_request(instance, instance_actions.REBUILD)
        self.later_request(instance, instance_actions.REBUILD)
        self.manager.driver._instances[instance.uuid]['state'] = 'marked'
        rebuild.rebuild(self.manager, self.context, instance, None, None)
        self.assertUntouched(instance)
        self.assertEqual('marked', self.guest_state(instance))

    def test_the_current_rebuild_is_done(self):
        instance = self.server(task_state=states.REBUILDING)
        self.this_request(instance, instance_actions.REBUILD)
        self.manager.driver._instances[instance.uuid]['state'] = 'marked'
        rebuild.rebuild(self.manager, self.context, instance, None, None)
        self.assertEqual(((states.ACTIVE, None, 'dst'), 'running'),
                         (self.state(instance), self.guest_state(instance)))

    def test_a_repeated_stop_leaves_a_started_server_running(self):
        instance = self.server()
        self.manager.stop_instance(
            self.context, self.sent_as(instance, states.POWERING_OFF))
        self.assertUntouched(instance)
        self.assertEqual('running', self.guest_state(instance))

    def test_a_stop_a_later_request_overtook_touches_nothing(self):
        instance = self.server(task_state=states.POWERING_OFF)
        self.later_request(instance, instance_actions.STOP)
        self.manager.stop_instance(self.context, instance)
        self.assertUntouched(instance)
        self.assertEqual('running', self.guest_state(instance))

    def test_the_current_stop_is_done(self):
        instance = self.server(task_state=states.POWERING_OFF)
        self.this_request(instance, instance_actions.STOP)
        self.manager.stop_instance(self.context, instance)
        self.assertEqual(((states.STOPPED, None, 'dst'), 'shutdown'),
                         (self.state(instance), self.guest_state(instance)))


class TestFreshTasksAtStart(InterruptedTestCase):
    """A task this compute does not start itself may still be on its way
    to it: at start, a fresh one is left alone."""

    def test_scheduling_is_left_alone(self):
        instance = self.server(vm_state=states.BUILDING,
                               task_state=states.SCHEDULING)
        self.restart()
        self.assertUntouched(instance)

    def test_rebuilding_is_left_alone(self):
        instance = self.server(task_state=states.REBUILDING)
        self.restart()
        self.assertUntouched(instance)

    def test_powering_off_is_left_alone(self):
        instance = self.server(task_state=states.POWERING_OFF)
        self.restart()
        self.assertUntouched(instance)

    def test_rebooting_pausing_and_resuming_are_left_alone(self):
        for task_state in (states.REBOOTING, states.REBOOTING_HARD,
                           states.PAUSING, states.RESUMING):
            instance = self.server(task_state=task_state)
            self.restart()
            self.assertUntouched(instance)


# -- after interrupted_task_timeout -------------------------------------------

class TestStaleTasks(InterruptedTestCase):
    """Tasks whose message was lost, found by the periodic look."""

    def test_a_clock_ahead_here_leaves_a_fresh_task(self):
        # Judged by the database's clock: an hour ahead, this machine
        # would take a task just written for an hour old.
        instance = self.server(task_state=states.POWERING_OFF,
                               seconds_ago=10)
        timeutils.set_time_override(
            timeutils.utcnow() + datetime.timedelta(hours=1))
        self.addCleanup(timeutils.clear_time_override)
        self.look()
        self.assertEqual(states.POWERING_OFF,
                         self.stored(instance).task_state)

    def test_powering_off_is_finished_stopped(self):
        instance = self.server(task_state=states.POWERING_OFF,
                               seconds_ago=STALE)
        self.look()
        stored = self.stored(instance)
        self.assertEqual((states.STOPPED, None, states.SHUTDOWN),
                         (stored.vm_state, stored.task_state,
                          stored.power_state))

    def test_powering_on_is_finished_active(self):
        instance = self.server(vm_state=states.STOPPED,
                               task_state=states.POWERING_ON,
                               power_state=states.SHUTDOWN,
                               seconds_ago=STALE)
        self.look()
        stored = self.stored(instance)
        self.assertEqual((states.ACTIVE, None, states.RUNNING),
                         (stored.vm_state, stored.task_state,
                          stored.power_state))

    def test_rebooting_is_finished_active_and_running(self):
        for task_state in (states.REBOOTING, states.REBOOTING_HARD):
            instance = self.server(task_state=task_state,
                                   seconds_ago=STALE)
            self.look()
            stored = self.stored(instance)
            self.assertEqual((states.ACTIVE, None, states.RUNNING),
                             (stored.vm_state, stored.task_state,
                              stored.power_state), task_state)

    def test_pausing_suspending_and_their_undoing_are_finished(self):
        for vm_state, task_state, outcome in (
                (states.ACTIVE, states.PAUSING,
                 (states.PAUSED, None, states.PAUSED_POWER)),
                (states.PAUSED, states.UNPAUSING,
                 (states.ACTIVE, None, states.RUNNING)),
                (states.ACTIVE, states.SUSPENDING,
                 (states.SUSPENDED, None, states.SUSPENDED_POWER)),
                (states.SUSPENDED, states.RESUMING,
                 (states.ACTIVE, None, states.RUNNING))):
            instance = self.server(vm_state=vm_state, task_state=task_state,
                                   seconds_ago=STALE)
            self.look()
            stored = self.stored(instance)
            self.assertEqual(outcome, (stored.vm_state, stored.task_state,
                                       stored.power_state), task_state)

    def test_deleting_is_finished_deleted(self):
        instance = self.server(task_state=states.DELETING,
                               seconds_ago=STALE)
        self.look()
        self.assertRaises(exception.InstanceNotFound, self.stored, instance)
        self.assertEqual(({}, [], []),
                         (self.resources(instance.uuid), self.guests(),
                          self.ports.ports_of(instance)))

    def test_shelving_is_undone_active_without_a_task(self):
        instance = self.server(task_state=states.SHELVING,
                               seconds_ago=STALE)
        self.look()
        self.assertEqual((states.ACTIVE, None, 'dst'), self.state(instance))

    def test_rebuilding_is_rebuilt_again_active_on_its_host(self):
        instance = self.server(task_state=states.REBUILDING,
                               seconds_ago=STALE)
        self.look()
        stored = self.stored(instance)
        self.assertEqual((states.ACTIVE, None, 'dst', states.RUNNING, None),
                         self.state(instance) + (stored.power_state,
                                                 stored.fault))
        self.assertEqual([instance.uuid], self.guests())

    def test_a_stopped_server_is_rebuilt_again_stopped(self):
        instance = self.server(vm_state=states.STOPPED,
                               task_state=states.REBUILDING,
                               power_state=states.SHUTDOWN,
                               seconds_ago=STALE)
        self.look()
        self.assertEqual((states.STOPPED, None, 'dst', states.SHUTDOWN),
                         self.state(instance) +
                         (self.stored(instance).power_state,))

    def test_rebuilding_keeps_its_allocation(self):
        instance = self.server(task_state=states.REBUILDING,
                               seconds_ago=STALE)
        self.look()
        self.assertEqual(self.allocation_on('dst', with_port=False),
                         self.resources(instance.uuid))

    def test_a_rebuild_that_fails_again_ends_in_error_on_its_host(self):
        instance = self.server(task_state=states.REBUILDING,
                               seconds_ago=STALE)
        self.config.config(fake_fail_spawn_for=['*'], group='compute')
        self.look()
        self.assertEqual((states.ERROR, None, 'dst'), self.state(instance))
        self.assertEqual(self.allocation_on('dst', with_port=False),
                         self.resources(instance.uuid))

    def test_a_fresh_task_is_left_alone(self):
        instance = self.server(task_state=states.POWERING_OFF,
                               seconds_ago=TIMEOUT - 100)
        self.look()
        self.assertUntouched(instance)

    def test_nothing_is_resolved_when_the_timeout_is_zero(self):
        self.config.config(interrupted_task_timeout=0, group='compute')
        instance = self.server(task_state=states.POWERING_OFF,
                               seconds_ago=STALE)
        self.look()
        self.assertUntouched(instance)


class TestEvacuationInProgress(InterruptedTestCase):
    """A server evacuated from this host while it was down is in
    REBUILDING here: the evacuation's, not ours."""

    def evacuating(self, status):
        instance = self.server(task_state=states.REBUILDING,
                               seconds_ago=STALE)
        objects.Migration(
            self.context, instance_uuid=instance.uuid,
            migration_type='evacuation', status=status,
            source_compute='dst', source_node='dst', dest_compute='src',
            dest_node='src', dest_host='src').create()
        return instance

    def test_an_accepted_evacuation_is_left_alone(self):
        instance = self.evacuating('accepted')
        self.look()
        self.assertUntouched(instance)

    def test_a_pre_migrating_evacuation_is_left_alone(self):
        instance = self.evacuating('pre-migrating')
        self.look()
        self.assertUntouched(instance)

    def test_a_failed_evacuation_does_not_protect_it(self):
        # Its rebuild here is done again.
        instance = self.evacuating('failed')
        self.look()
        self.assertEqual((states.ACTIVE, None, 'dst'), self.state(instance))


class TestEvacuationToThisHostCutOff(InterruptedTestCase):
    """This compute (``dst``) was the destination of an evacuation from
    ``src`` and died while it spawned the server: the server is on
    ``dst`` in REBUILD_SPAWNING, the migration pre-migrating. Nothing
    else will ever move it on, so the restart must not leave it so."""

    def setUp(self):
        super().setUp()
        self.instance = self.server(task_state=states.REBUILD_SPAWNING)
        self.migration = objects.Migration(
            self.context, instance_uuid=self.instance.uuid,
            migration_type='evacuation', status='pre-migrating',
            source_compute='src', source_node='src', dest_compute='dst',
            dest_node='dst', dest_host='dst')
        self.migration.create()
        self.allocate(self.migration.uuid,
                      self.allocation_on('src', with_port=False))
        self.restart()

    def test_the_server_does_not_stay_in_rebuild_spawning(self):
        stored = self.stored(self.instance)
        self.assertEqual((states.ERROR, None),
                         (stored.vm_state, stored.task_state))

    def test_the_migration_does_not_stay_pre_migrating(self):
        self.assertEqual('failed', objects.Migration.get_by_uuid(
            self.context, self.migration.uuid).status)


class TestWorkedOn(InterruptedTestCase):
    """What this process is working on is never touched, however old."""

    def test_a_server_being_worked_on_is_not_touched(self):
        instance = self.server(task_state=states.POWERING_OFF,
                               seconds_ago=STALE)
        with self.manager.work.working_on(instance.uuid):
            self.look()
        self.assertUntouched(instance)

    def test_a_submitted_build_still_running_is_not_touched(self):
        instance = self.server(vm_state=states.BUILDING,
                               task_state=states.SPAWNING,
                               seconds_ago=STALE)
        started, release = threading.Event(), threading.Event()

        def slow_build(compute, context, instance):
            started.set()
            release.wait(10)
        self.addCleanup(release.set)
        running = self.manager._submit(slow_build, self.context, instance)
        self.assertTrue(started.wait(10))
        self.restart()
        self.look()
        self.assertTrue(self.manager.work.is_worked_on(instance.uuid))
        release.set()
        running.result(10)
        self.assertUntouched(instance)

    def test_a_finished_submission_is_no_longer_worked_on(self):
        instance = self.server()
        self.manager._submit(lambda compute, context, instance: None,
                             self.context, instance).result(10)
        self.assertFalse(self.manager.work.is_worked_on(instance.uuid))

    def test_a_failed_submission_is_no_longer_worked_on(self):
        instance = self.server()

        def fails(compute, context, instance):
            raise RuntimeError('boom')
        future = self.manager._submit(fails, self.context, instance)
        self.assertRaises(RuntimeError, future.result, 10)
        self.assertFalse(self.manager.work.is_worked_on(instance.uuid))

    def test_nested_work_on_one_server_counts_until_the_last_ends(self):
        uuid = uuidutils.generate_uuid()
        with self.manager.work.working_on(uuid):
            with self.manager.work.working_on(uuid):
                pass
            self.assertTrue(self.manager.work.is_worked_on(uuid))
        self.assertFalse(self.manager.work.is_worked_on(uuid))


# -- a live migration whose conductor died ------------------------------------

class TestStaleLiveMigration(live_fixtures.LiveMigrationTestCase):
    """The conductor accepted a live migration from ``src`` (this
    compute) and died before casting it here."""

    status = 'accepted'

    def setUp(self):
        super().setUp()
        self.config.config(interrupted_task_timeout=TIMEOUT,
                           group='compute')
        accepted = self.stored_migration()
        accepted.status = self.status
        accepted.save()

    def age(self, seconds_ago, migration_too=True):
        age(self.context, self.instance, seconds_ago)
        if migration_too:
            age_migration(self.context, self.migration, seconds_ago)

    def look(self):
        interrupted.resolve_interrupted_tasks(self.manager, self.context)

    def test_a_stale_one_is_rolled_back_as_error(self):
        self.age(STALE)
        self.look()
        self.assertEqual('error', self.stored_migration().status)

    def test_a_stale_one_gives_the_server_its_source_back(self):
        self.age(STALE)
        self.look()
        self.assertBackOnItsSource()

    def test_a_fresh_one_is_left_to_the_conductor(self):
        self.age(TIMEOUT - 100)
        self.look()
        self.assertLeftToTheConductor()

    def test_one_its_conductor_kept_alive_is_left_to_it(self):
        # The server untouched for long, but the conductor renewed the
        # migration (conductor/move_leases.py).
        self.age(STALE, migration_too=False)
        self.look()
        self.assertLeftToTheConductor()

    def test_a_clock_ahead_here_does_not_take_it_from_its_conductor(self):
        # The lease is judged by the database's clock: an hour ahead,
        # this machine would take the renewed migration for stale.
        self.age(STALE, migration_too=False)
        timeutils.set_time_override(
            timeutils.utcnow() + datetime.timedelta(hours=1))
        self.addCleanup(timeutils.clear_time_override)
        self.look()
        timeutils.clear_time_override()
        self.assertLeftToTheConductor()

    def test_the_steps_recorded_until_the_fence_are_undone(self):
        # The conductor recorded its claim and binding on the
        # destination; the takeover reads them after it ended the move.
        migration = self.stored_migration()
        migration.record_flow(live_migration.CONDUCTOR_FLOW, [
            ['move_source_to_migration', None], ['claim_destination', None],
            ['bind_destination', {'port': self.port['id'], 'host': 'dst'}]])
        self.age(STALE)
        self.look()
        self.assertEqual('error', self.stored_migration().status)
        self.assertBackOnItsSource()

    def assertLeftToTheConductor(self):
        self.assertEqual((self.status, states.MIGRATING,
                          self.allocation_on('dst')),
                         (self.stored_migration().status,
                          self.stored(self.instance).task_state,
                          self.resources(self.instance.uuid)))


class TestStaleQueuedLiveMigration(TestStaleLiveMigration):
    """Queued: the conductor cast it here, and the cast was lost."""

    status = 'queued'


class TestLiveMigrationEndedWhileLeftMigrating(
        live_fixtures.LiveMigrationTestCase):
    """The live migration is over (cancelled by an admin, or failed), but
    what undid it died before the server's task was cleared."""

    def setUp(self):
        super().setUp()
        self.config.config(interrupted_task_timeout=TIMEOUT,
                           group='compute')
        migration = self.stored_migration()
        migration.record_flow(live_migration.CONDUCTOR_FLOW, [
            ['move_source_to_migration', None], ['claim_destination', None],
            ['bind_destination', {'port': self.port['id'], 'host': 'dst'}]])

    def end(self, status):
        migration = self.stored_migration()
        migration.status = status
        migration.save()

    def look(self):
        interrupted.resolve_interrupted_tasks(self.manager, self.context)

    def test_a_cancelled_one_is_undone_and_stays_cancelled(self):
        self.end('cancelled')
        age(self.context, self.instance, STALE)
        self.look()
        self.assertBackOnItsSource()
        self.assertEqual('cancelled', self.stored_migration().status)

    def test_a_failed_one_is_undone(self):
        self.end('error')
        age(self.context, self.instance, STALE)
        self.look()
        self.assertBackOnItsSource()

    def test_one_ended_just_now_is_left_to_what_ends_it(self):
        self.end('cancelled')
        self.look()
        self.assertEqual(states.MIGRATING,
                         self.stored(self.instance).task_state)
