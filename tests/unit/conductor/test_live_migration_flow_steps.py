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
from tests.unit.conductor import test_live_migrate_task
from tests.unit import flow_steps

STEPS = sorted(live_migrate.live_migration_undos(None, None, None, None))


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
