"""Every step of the destination's evacuation and unshelve, and of the
offload, made to fail once and to crash once.

Made from each flow's own table of steps (``evacuate.evacuation_undos``,
``shelve.unshelve_undos``, the offload's): a step added to a flow is
tested here without a line more.

- An **evacuation** that fails at a step ends on its source in ERROR with
  a fault, holding its source allocation again, its port bound to the
  source with the source's provider, the migration's consumer empty,
  nothing here, the migration over. After a **crash** at a step, the
  compute here restarts and, [conductor] interrupted_task_timeout later,
  a conductor looks for interrupted moves: between them the server ends
  the same way -- replaying the steps the dead compute recorded on the
  migration (the compute itself, if it had taken the server over; the
  conductor otherwise), or repairing from placement and the port service
  a move that recorded none.
- An **unshelve** that fails or crashes at a step ends offloaded with a
  fault, holding nothing, its port bound to no host, nothing here.
- An **offload** that fails or crashes at a step is done again by the
  look for interrupted tasks: offloaded, holding nothing.

The fixtures are ``test_manager_moves``'s: a real cell database and
placement, the fake driver, the port service in memory.
"""

from nova_lite.compute.flows import evacuate
from nova_lite.compute.flows import interrupted
from nova_lite.compute.flows import shelve
from nova_lite.compute import states
from nova_lite.conductor.tasks import recover
from nova_lite import context as nova_context
from nova_lite import flow as flows
from tests.unit.compute import test_manager_interrupted
from tests.unit.compute import test_manager_moves as moves
from tests.unit import flow_steps

TIMEOUT = test_manager_interrupted.TIMEOUT
STALE = test_manager_interrupted.STALE

EVACUATION_IN_ORDER = list(evacuate.evacuation_undos(None, None, None,
                                                     None, None))
EVACUATION_STEPS = sorted(EVACUATION_IN_ORDER)
UNSHELVE_STEPS = sorted(shelve.unshelve_undos(None, None, None))
OFFLOAD_STEPS = sorted(shelve.offload_undos())


class Crash(KeyboardInterrupt):
    """What SIGKILL does to a flow: nothing after it runs."""


age_migration = test_manager_interrupted.age_migration


class TakeoverMixin:
    """What follows a failure or a crash: [compute]
    interrupted_task_timeout later the compute and a conductor look for
    interrupted work. After a crash this compute restarts first: the
    restarted process is ``self.manager`` from then on (the fake guests
    of the dead one are gone with it)."""

    def tearDown(self):
        # Whatever a step's failure or crash and the looks left: the
        # audit holds.
        flow_steps.assert_audit_clean(self, self.reportclient, self.ports)
        super().tearDown()

    def look(self, restart=False):
        self.config.config(interrupted_task_timeout=TIMEOUT,
                           group='compute')
        if restart:
            self.manager = self.make_manager(self.host)
            interrupted.resolve_interrupted_tasks(self.manager, self.context,
                                                  restarted=True)
        test_manager_interrupted.age(self.context, self.instance, STALE)
        if getattr(self, 'migration', None) is not None:
            age_migration(self.context, self.migration, STALE)
        interrupted.resolve_interrupted_tasks(self.manager, self.context)
        recover.InterruptedMoves(nova_context.get_admin_context(), TIMEOUT,
                                 self.reportclient, ports=self.ports).run()


# -- evacuation ---------------------------------------------------------------

class EvacuationStepTestCase(TakeoverMixin, moves.EvacuateTestCase):

    def assertBackOnItsSource(self):
        stored = self.stored(self.instance)
        self.assertEqual((states.ERROR, None, 'src', 'src'),
                         (stored.vm_state, stored.task_state, stored.host,
                          stored.node))
        self.assertEqual((self.allocation_on('src'), {}),
                         (self.resources(self.instance.uuid),
                          self.resources(self.migration.uuid)))
        self.assertEqual(('src', {'allocation': self.nics['src']}),
                         self.binding(self.port))
        self.assertEqual([], self.guests())
        self.assertIn(self.stored_migration().status, ('failed', 'error'))
        return stored


class TestEachEvacuationStepFails(EvacuationStepTestCase):

    def check_failure_at(self, step):
        injected = flow_steps.fail_once_at(self, evacuate.FLOW, [step])
        self.evacuate()
        self.assertEqual([step], injected, 'the flow never took %s' % step)
        stored = self.assertBackOnItsSource()
        self.assertIn('injected at %s' % step, stored.fault.message)
        self.assertEqual('failed', self.stored_migration().status)


class TestEachEvacuationStepCrashes(EvacuationStepTestCase):

    def check_crash_at(self, step):
        injected = flow_steps.fail_once_at(self, evacuate.FLOW, [step],
                                           Crash)
        self.assertRaises(Crash, self.evacuate)
        self.assertEqual([step], injected)
        self.look(restart=True)
        stored = self.assertBackOnItsSource()
        self.assertIn('evacuation', stored.fault.message)
        # The inherited steps are recorded with the first of the flow's
        # own; a crash before that record is repaired by the conductor.
        replayed = '%s of %s was interrupted after' % (evacuate.FLOW,
                                                       self.instance.uuid)
        self.assertEqual(EVACUATION_IN_ORDER.index(step) >
                         EVACUATION_IN_ORDER.index('claim_here'),
                         replayed in self.logs.output)


# -- unshelve -----------------------------------------------------------------

class UnshelveStepTestCase(TakeoverMixin, moves.UnshelveOffloadedTestCase):

    def assertNothingHere(self):
        stored = self.assertStillOffloaded()
        self.assertEqual([], self.guests())
        return stored


class TestEachUnshelveStepFails(UnshelveStepTestCase):

    def check_failure_at(self, step):
        injected = flow_steps.fail_once_at(self, shelve.UNSHELVE_FLOW,
                                           [step])
        self.unshelve()
        self.assertEqual([step], injected, 'the flow never took %s' % step)
        stored = self.assertNothingHere()
        self.assertIn('injected at %s' % step, stored.fault.message)


class TestEachUnshelveStepCrashes(UnshelveStepTestCase):

    def check_crash_at(self, step):
        injected = flow_steps.fail_once_at(self, shelve.UNSHELVE_FLOW,
                                           [step], Crash)
        self.assertRaises(Crash, self.unshelve)
        self.assertEqual([step], injected)
        self.look(restart=True)
        stored = self.assertNothingHere()
        self.assertIn('interrupted', stored.fault.message)


# -- offload ------------------------------------------------------------------

class OffloadStepTestCase(TakeoverMixin, moves.ShelveTestCase):

    def setUp(self):
        super().setUp()
        self.instance.vm_state = states.SHELVED
        self.instance.task_state = states.SHELVING_OFFLOADING
        self.instance.save()

    def offload(self):
        shelve.shelve_offload(self.manager, self.context, self.instance)


class TestEachOffloadStepFails(OffloadStepTestCase):

    def check_failure_at(self, step):
        injected = flow_steps.fail_once_at(self, shelve.OFFLOAD_FLOW,
                                           [step])
        self.assertRaises(flows.FlowFailed, self.offload)
        self.assertEqual([step], injected, 'the flow never took %s' % step)
        self.assertEqual(states.SHELVING_OFFLOADING,
                         self.stored(self.instance).task_state)
        self.look()
        self.assertOffloaded()


class TestEachOffloadStepCrashes(OffloadStepTestCase):

    def check_crash_at(self, step):
        injected = flow_steps.fail_once_at(self, shelve.OFFLOAD_FLOW,
                                           [step], Crash)
        self.assertRaises(Crash, self.offload)
        self.assertEqual([step], injected)
        self.look(restart=True)
        self.assertOffloaded()


flow_steps.add_step_tests(
    TestEachEvacuationStepFails, EVACUATION_STEPS, 'check_failure_at',
    'test_a_failure_at_%s_leaves_it_on_its_source')
flow_steps.add_step_tests(
    TestEachEvacuationStepCrashes, EVACUATION_STEPS, 'check_crash_at',
    'test_a_crash_at_%s_is_undone_by_a_takeover')
flow_steps.add_step_tests(
    TestEachUnshelveStepFails, UNSHELVE_STEPS, 'check_failure_at',
    'test_a_failure_at_%s_leaves_it_offloaded')
flow_steps.add_step_tests(
    TestEachUnshelveStepCrashes, UNSHELVE_STEPS, 'check_crash_at',
    'test_a_crash_at_%s_leaves_it_offloaded')
flow_steps.add_step_tests(
    TestEachOffloadStepFails, OFFLOAD_STEPS, 'check_failure_at',
    'test_a_failure_at_%s_is_offloaded_again')
flow_steps.add_step_tests(
    TestEachOffloadStepCrashes, OFFLOAD_STEPS, 'check_crash_at',
    'test_a_crash_at_%s_is_offloaded_again')
