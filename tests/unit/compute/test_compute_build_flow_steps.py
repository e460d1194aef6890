"""Every step of a build on the compute, made to fail once and to crash
once.

Made from the flow's own table of steps (``build.build_undos``): a step
added to the flow is tested here without a line more. Whichever step
fails, the server holds nothing here -- no guest, no allocation, its port
given back -- and is sent to the alternate host, or, with none left, is in
ERROR. Whichever step crashes, this compute restarts and, [compute]
interrupted_task_timeout later, the compute and a conductor look for
interrupted builds: the server holds nothing here and is scheduled again.

The fixtures are ``test_manager_moves``'s.
"""

import fixtures
import oslo_messaging as messaging

from nova_lite.compute.flows import build
from nova_lite.compute import states
from nova_lite.conductor.tasks import recover
from nova_lite import context as nova_context
from nova_lite import objects
from tests.unit.compute import test_manager_moves as moves
from tests.unit.compute import test_move_flow_steps
from tests.unit import flow_steps

STEPS = sorted(build.build_undos(None, None, None))
TIMEOUT = test_move_flow_steps.TIMEOUT


class BuildStepTestCase(test_move_flow_steps.TakeoverMixin,
                        moves.BuildTestCase):

    def look(self, restart=False):
        super().look(restart)
        if restart:
            # The restarted compute sent the server to the conductor to be
            # scheduled again (self.conductor.reschedules): it is not
            # stuck, and no conductor takes it over.
            return
        recover.InterruptedBuilds(nova_context.get_admin_context(), TIMEOUT,
                                  None, None, self.reportclient,
                                  ports=self.ports).run()

    def assertHoldsNothingHere(self):
        self.assertEqual({}, self.resources(self.instance.uuid))
        self.assertEqual([], self.guests())
        port = self.ports.ports[self.port['id']]
        self.assertEqual(('', None), (port['device_id'],
                                      port['binding:host_id']))


class TestEachStepFails(BuildStepTestCase):

    def check_reschedule_at(self, step):
        injected = flow_steps.fail_once_at(self, build.FLOW, [step])
        self.build(host_list=[self.selection('src')])
        self.assertEqual([step], injected, 'the flow never took %s' % step)
        self.assertHoldsNothingHere()
        [(uuids, _spec, _hosts)] = self.conductor.reschedules
        stored = self.stored(self.instance)
        self.assertEqual(([self.instance.uuid], None, states.SCHEDULING),
                         (uuids, stored.host, stored.task_state))
        self.assertIn('injected at %s' % step, stored.fault.message)

    def check_error_at(self, step):
        flow_steps.fail_once_at(self, build.FLOW, [step])
        self.build()
        self.assertHoldsNothingHere()
        stored = self.stored(self.instance)
        self.assertEqual((states.ERROR, None, None, []),
                         (stored.vm_state, stored.task_state, stored.host,
                          self.conductor.reschedules))


class TestTheStartFails(BuildStepTestCase):
    """The build fails before its first step: the save that makes the
    server this host's did not answer (the broker went away)."""

    def setUp(self):
        super().setUp()
        real_save = objects.Instance.save
        failed = []

        def save(instance, *args, **kwargs):
            if not failed:
                failed.append(kwargs.get('expected_task_state'))
                raise messaging.MessagingTimeout('no answer')
            return real_save(instance, *args, **kwargs)

        self.useFixture(fixtures.MockPatchObject(objects.Instance, 'save',
                                                 save))
        self.failed = failed

    def test_the_scheduler_claim_is_given_back_before_the_reschedule(self):
        self.build(host_list=[self.selection('src')])
        self.assertEqual([[states.SCHEDULING]], self.failed)
        self.assertHoldsNothingHere()
        [(uuids, _spec, _hosts)] = self.conductor.reschedules
        stored = self.stored(self.instance)
        self.assertEqual(([self.instance.uuid], None, states.SCHEDULING),
                         (uuids, stored.host, stored.task_state))

    def test_without_alternates_it_is_error_holding_nothing(self):
        self.build()
        self.assertHoldsNothingHere()
        stored = self.stored(self.instance)
        self.assertEqual((states.ERROR, None), (stored.vm_state, stored.host))


class TestEachStepCrashes(BuildStepTestCase):

    def check_crash_at(self, step):
        injected = flow_steps.fail_once_at(
            self, build.FLOW, [step], test_move_flow_steps.Crash)
        self.assertRaises(test_move_flow_steps.Crash, self.build)
        self.assertEqual([step], injected)
        self.look(restart=True)
        self.assertHoldsNothingHere()
        stored = self.stored(self.instance)
        self.assertEqual((states.BUILDING, states.SCHEDULING, None),
                         (stored.vm_state, stored.task_state, stored.host))
        self.assertIn('interrupted', stored.fault.details)
        [(uuids, _spec, _hosts)] = self.conductor.reschedules
        self.assertEqual([self.instance.uuid], uuids)


flow_steps.add_step_tests(TestEachStepFails, STEPS, 'check_reschedule_at',
                          'test_a_failure_at_%s_is_rescheduled')
flow_steps.add_step_tests(TestEachStepFails, STEPS, 'check_error_at',
                          'test_a_failure_at_%s_without_alternates_is_error')
flow_steps.add_step_tests(TestEachStepCrashes, STEPS, 'check_crash_at',
                          'test_a_crash_at_%s_is_scheduled_again_holding_'
                          'nothing_here')
