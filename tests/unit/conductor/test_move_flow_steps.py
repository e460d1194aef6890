"""Every step of the conductor's evacuation and unshelve, made to fail
once, and the evacuation's made to crash once (the recovery of interrupted
moves undoes what the dead conductor recorded on the migration).

Made from each flow's own table of steps (``evacuate.evacuation_undos``,
``unshelve.unshelve_undos``): a step added to a flow is tested here
without a line more. Whichever step fails, an evacuated server ends on its
source in ERROR with a fault, holding its source allocation again, the
migration's consumer empty and the migration in error; an unshelved one
ends offloaded with a fault, holding nothing. Nothing is sent to a compute.

The fixtures are ``test_evacuate_unshelve_tasks``'s.
"""

import sqlalchemy as sa

from nova_lite.compute import states
from nova_lite.conductor.tasks import evacuate
from nova_lite.conductor.tasks import recover
from nova_lite.conductor.tasks import unshelve
from nova_lite import context as nova_context
from nova_lite.db import api as db
from nova_lite.db import main_models
from tests.unit.conductor import test_evacuate_unshelve_tasks as moves
from tests.unit.conductor import test_recover
from tests.unit import flow_steps

EVACUATION_STEPS = sorted(evacuate.evacuation_undos(None, None, None, None))
UNSHELVE_STEPS = sorted(unshelve.unshelve_undos(None, None))


class TestEachEvacuationStepFails(moves.EvacuateTestCase):

    def check_failure_at(self, step):
        injected = flow_steps.fail_once_at(self, 'evacuation', [step])
        self.evacuate(self.selection())
        self.assertEqual([step], injected, 'the flow never took %s' % step)
        self.assertBackOnItsSource()
        stored = self.stored(self.instance)
        self.assertEqual((states.ERROR, None, 'src'),
                         (stored.vm_state, stored.task_state, stored.host))
        self.assertIn('injected at %s' % step, stored.fault.message)
        self.assertEqual(('error', []), (self.stored_migration().status,
                                         self.compute.evacuations))
        flow_steps.assert_audit_clean(self, self.reportclient, self.ports)


class Crash(KeyboardInterrupt):
    """What SIGKILL does to a flow: nothing after it runs."""


class TestEachEvacuationStepCrashes(moves.EvacuateTestCase):
    """The conductor dies at a step: the steps it recorded on the
    migration are what the recovery of interrupted moves undoes."""

    def check_crash_at(self, step):
        injected = flow_steps.fail_once_at(self, 'evacuation', [step],
                                           Crash)
        self.assertRaises(Crash, self.evacuate, self.selection())
        self.assertEqual([step], injected, 'the flow never took %s' % step)
        [self.migration] = self.migrations()
        # It died as the step began: the steps before it are recorded.
        recorded = self.stored_migration().recorded_steps(evacuate.FLOW)
        self.assertNotIn(step, [name for name, _ in recorded or []])
        self.age_move()
        undone = recover.InterruptedMoves(
            self.admin, 60, self.reportclient, ports=self.ports).run()
        self.assertEqual(1, undone)
        if recorded:
            # The recorded steps were replayed, not guessed at.
            self.assertIn('evacuation of %s was interrupted after %s' % (
                self.instance.uuid, ', '.join(n for n, _ in recorded)),
                self.logs.output)
        self.assertBackOnItsSource()
        stored = self.stored(self.instance)
        self.assertEqual((states.ERROR, None, 'src'),
                         (stored.vm_state, stored.task_state, stored.host))
        self.assertEqual('error', self.stored_migration().status)
        flow_steps.assert_audit_clean(self, self.reportclient, self.ports)

    def age_move(self):
        """The migration and the server last changed long ago."""
        then = test_recover.ago(1000)
        with nova_context.target_cell(self.admin,
                                      self.plane.databases.cell1) as cctxt:
            with db.cell_session(cctxt) as session:
                for model, column, value in (
                        (main_models.Migration, 'uuid', self.migration.uuid),
                        (main_models.Instance, 'uuid', self.instance.uuid)):
                    session.execute(sa.update(model).where(
                        getattr(model, column) == value).values(
                            updated_at=then))


class TestEachUnshelveStepFails(moves.UnshelveTestCase):

    def check_failure_at(self, step):
        injected = flow_steps.fail_once_at(self, 'unshelve', [step])
        self.unshelve(self.selection())
        self.assertEqual([step], injected, 'the flow never took %s' % step)
        stored = self.assertStillOffloaded()
        self.assertIn('injected at %s' % step, stored.fault.message)
        self.assertEqual([], self.compute.unshelves)
        flow_steps.assert_audit_clean(self, self.reportclient, self.ports)


flow_steps.add_step_tests(TestEachEvacuationStepFails, EVACUATION_STEPS,
                          'check_failure_at',
                          'test_a_failure_at_%s_leaves_it_on_its_source')
flow_steps.add_step_tests(TestEachEvacuationStepCrashes, EVACUATION_STEPS,
                          'check_crash_at',
                          'test_a_crash_at_%s_is_undone_by_the_recovery')
flow_steps.add_step_tests(TestEachUnshelveStepFails, UNSHELVE_STEPS,
                          'check_failure_at',
                          'test_a_failure_at_%s_leaves_it_offloaded')
