"""Every step of the conductor's evacuation and unshelve, made to fail
once.

Made from each flow's own table of steps (``evacuate.evacuation_undos``,
``unshelve.unshelve_undos``): a step added to a flow is tested here
without a line more. Whichever step fails, an evacuated server ends on its
source in ERROR with a fault, holding its source allocation again, the
migration's consumer empty and the migration in error; an unshelved one
ends offloaded with a fault, holding nothing. Nothing is sent to a compute.

The fixtures are ``test_evacuate_unshelve_tasks``'s.
"""

from nova_lite.compute import states
from nova_lite.conductor.tasks import evacuate
from nova_lite.conductor.tasks import unshelve
from tests.unit.conductor import test_evacuate_unshelve_tasks as moves
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
flow_steps.add_step_tests(TestEachUnshelveStepFails, UNSHELVE_STEPS,
                          'check_failure_at',
                          'test_a_failure_at_%s_leaves_it_offloaded')
