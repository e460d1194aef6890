"""Every step of the conductor's live migration, made to fail once.

Made from the flow's own table of steps
(``live_migrate.live_migration_undos``): a step added to the flow is
tested here without a line more. Whichever step fails, the server ends
as it was before the move -- ACTIVE on its source without a task, holding
its source allocation, its port bound to the source only, the migration's
consumer empty -- and the migration is in error.

The fixtures are ``test_live_migrate_task``'s: real SQLite databases and
placement, stand-in scheduler, computes and port service.
"""

from nova_lite.conductor.tasks import live_migrate
from nova_lite import flow as flows
from tests.unit.conductor import test_live_migrate_task
from tests.unit import flow_steps

STEPS = sorted(live_migrate.live_migration_undos(
    None, None, None, None, None))


class TestEachLiveMigrationStepFails(
        test_live_migrate_task.LiveMigrateTestCase):

    def check_failure_at(self, step):
        injected = flow_steps.fail_once_at(self, 'live migration', [step])
        self.migrate()
        self.assertEqual([step], injected, 'the flow never took %s' % step)
        self.assertStillOnItsSource()
        self.assertEqual(('error', []),
                         (self.stored_migration().status,
                          self.compute.live_migrations))
        flow_steps.assert_audit_clean(self, self.reportclient, self.ports)


flow_steps.add_step_tests(TestEachLiveMigrationStepFails, STEPS,
                          'check_failure_at',
                          'test_a_failure_at_%s_leaves_it_on_its_source')


class Crash(KeyboardInterrupt):
    """What SIGKILL does to a flow: nothing after it runs."""


class TestEachLiveMigrationStepIsRecorded(
        test_live_migrate_task.LiveMigrateTestCase):
    """Each step is on the migration before it is taken: a conductor
    killed at a step leaves the list of the steps before it, for the
    source compute to undo (``test_live_migration_flow_steps`` of the
    compute)."""

    def check_crash_at(self, step):
        injected = flow_steps.fail_once_at(self, 'live migration', [step],
                                           Crash)
        self.assertRaises(Crash, self.migrate)
        self.assertEqual([step], injected)
        [self.migration] = self.migrations()
        recorded = self.stored_migration().recorded_steps(live_migrate.FLOW)
        names = [name for name, _ in recorded or []]
        # The steps in the order the flow takes them (one try).
        order = ['move_source_to_migration', 'claim_destination',
                 'bind_destination', 'cast_live_migration']
        self.assertEqual(order[:order.index(step)],
                         list(dict.fromkeys(names)))


flow_steps.add_step_tests(TestEachLiveMigrationStepIsRecorded, STEPS,
                          'check_crash_at',
                          'test_a_crash_at_%s_leaves_the_steps_before_it')


class TestUndoneTwice(test_live_migrate_task.LiveMigrateTestCase):
    """A conductor that stalled past the timeout and its source compute's
    takeover may both undo the same recorded steps. The second undo of
    ``claim_destination`` finds the server's consumer holding the source
    again (the first gave it back) and leaves it: the claim it undoes is
    the destination's, recorded with the node the scheduler chose."""

    def test_the_source_allocation_survives_a_second_undo(self):
        injected = flow_steps.fail_once_at(
            self, 'live migration', ['cast_live_migration'], Crash)
        self.assertRaises(Crash, self.migrate)
        self.assertEqual(['cast_live_migration'], injected)
        [self.migration] = self.migrations()
        recorded = self.stored_migration().recorded_steps(live_migrate.FLOW)
        self.assertIn(['claim_destination', self.nodes['dst']],
                      recorded)
        undos = live_migrate.live_migration_undos(
            self.task.cctxt, self.reportclient, self.ports,
            self.instance.uuid, self.migration)
        for _ in range(2):
            self.assertTrue(flows.run_undos(live_migrate.FLOW,
                                            self.instance.uuid, undos,
                                            recorded))
        self.assertEqual((self.allocation_on('src', self.port_ids()), {}),
                         (self.resources(self.instance.uuid),
                          self.held(self.migration.uuid)))
