"""Every step of the build flow, made to fail once and to crash once.

The tests are made from the flow's own table of steps
(``build.build_undos``), not written step by step: a step added to the
flow is tested here without a line more.

- **A failure** at a step (an exception where the step begins): what the
  build did is undone and the server is buried in cell0 in ERROR with a
  fault, holding nothing, mapped there, its build request gone. A failure
  of the burial itself leaves the build request for a takeover and
  nothing else; the takeover then builds the server.
- **A crash** at a step (the conductor is killed there: nothing unwinds):
  once its lease runs out, the takeover replays the undos of the steps the
  dead conductor recorded and builds the server again. It ends built
  exactly once: in cell1 only, mapped there, holding the chosen host's
  allocation and nothing else, sent to its compute once.

The fixtures are ``test_recover``'s: real SQLite databases, the real
placement app in this process, a stand-in scheduler that claims as the
real one does.
"""


from nova_lite.compute import instance_actions
from nova_lite.compute import states
from nova_lite.conductor.tasks import build
from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite import flow as flows
from tests.unit.conductor import test_recover
from tests.unit import fixtures as nl_fixtures
from tests.unit import flow_steps

STEPS = sorted(build.build_undos(None, None, None, None))


class Crash(KeyboardInterrupt):
    """What SIGKILL does to a flow: nothing after it runs."""


class BuildFlowStepTestCase(test_recover.RecoverTestCase):

    # The build's action: a create, or a rebuild from cell0 (whose
    # history, in cell0 until the build, must end in cell1 once).
    action = instance_actions.CREATE

    def accepted(self, **kwargs):
        request, spec = super().accepted(**kwargs)
        if self.action == instance_actions.REBUILD:
            # Its history in cell0: the create that found no host, an
            # earlier request than this build's.
            create = nova_context.RequestContext(user_id='u',
                                                 project_id='p')
            with nova_context.target_cell(create, self.cell0) as c0:
                with instance_actions.event(
                        c0, request.instance_uuid,
                        'conductor_schedule_and_build_instances',
                        action=instance_actions.CREATE) as step:
                    step.fail('No valid host was found.')
        return request, spec

    def fail_once_at(self, step, error, *more_steps):
        """Make ``step`` (and each of ``more_steps``) fail once."""
        return flow_steps.fail_once_at(self, 'build', (step,) + more_steps,
                                       error)

    def build(self, request, spec):
        build.ScheduleAndBuildTask(
            self.context, self.scheduler, self.compute, [request], [spec],
            None, self.reportclient, action=self.action).execute()

    def where(self, uuid):
        """(in cell1, in cell0, mapped cell, build request exists,
        allocations by host)."""
        hosts = {rp: host for host, rp in self.providers.items()}
        return ([i.uuid for i in self.instances_in(self.cell1)],
                [i.uuid for i in self.instances_in(self.cell0)],
                self.mapped_cell(uuid), self.build_request_exists(uuid),
                {hosts[rp]: usage for rp, usage in
                 self.resources(uuid).items()})

    def assert_built_once(self, uuid):
        self.assertEqual(([uuid], [], 'cell1', False,
                          {'h1': test_recover.FLAVOR_USAGE}),
                         self.where(uuid))
        self.assertEqual([(uuid, 'h1')], self.compute.builds)
        stored = self.stored(uuid)
        self.assertEqual((states.BUILDING, None),
                         (stored.vm_state, stored.fault))

    def tearDown(self):
        # Whatever a test left, failed, crashed or built: the audit holds.
        flow_steps.assert_audit_clean(self, self.reportclient, self.ports)
        super().tearDown()

    def take_over(self, uuid):
        self.scheduler.error = None
        self.age_claim(uuid, test_recover.TIMEOUT + 100)
        return self.recover()


class TestEachStepFails(BuildFlowStepTestCase):

    def check_failure_at(self, step):
        request, spec = self.accepted()
        uuid = request.instance_uuid
        if step == 'bury_in_cell0':
            # Only a failed build is buried.
            self.scheduler.error = exception.NoValidHost(reason='none')
        injected = self.fail_once_at(step, flows.FlowFailed)
        self.build(request, spec)
        self.assertTrue(injected, 'the flow never took %s' % step)
        if step == 'bury_in_cell0':
            self.assertEqual(([], [], None, True, {}), self.where(uuid))
            self.take_over(uuid)
            self.assert_built_once(uuid)
            return
        self.assertEqual(([], [uuid], 'cell0', False, {}), self.where(uuid))
        buried = self.stored(uuid, self.cell0)
        self.assertEqual((states.ERROR, None), (buried.vm_state,
                                                buried.task_state))
        self.assertIn('injected at %s' % step, buried.fault.message)
        self.assertEqual([], self.compute.builds)


class TestEachStepFailsAndSoDoesTheBurial(BuildFlowStepTestCase):
    """What the undos leave, seen before a burial covers it: a failure at
    a step, then at the burial, leaves the server as the API accepted it
    -- only its build request, unmapped, holding nothing -- for a
    takeover to build."""

    def check_failure_at(self, step):
        request, spec = self.accepted()
        uuid = request.instance_uuid
        self.fail_once_at(step, flows.FlowFailed, 'bury_in_cell0')
        self.build(request, spec)
        self.assertEqual(([], [], None, True, {}), self.where(uuid))
        self.assertEqual([], self.actions(uuid))
        self.take_over(uuid)
        self.assert_built_once(uuid)


class TestEachStepMeetsADatabaseBlink(BuildFlowStepTestCase):
    """A database that does not answer at a step (a restart) costs the
    build a delay, not an ERROR: the steps taken are undone and the build
    is tried again, in the same conductor."""

    def setUp(self):
        super().setUp()
        self.pauses = self.useFixture(nl_fixtures.OutageClock()).pauses

    def check_blink_at(self, step):
        request, spec = self.accepted()
        uuid = request.instance_uuid
        injected = self.fail_once_at(step, exception.DatabaseUnavailable)
        self.build(request, spec)
        self.assertTrue(injected)
        self.assert_built_once(uuid)
        self.assertEqual(([1], ['create']), (self.pauses, self.actions(uuid)))

    def test_a_database_down_longer_than_the_wait_leaves_it_accepted(self):
        # It is left to a takeover, as the API accepted it.
        self.plane.config.config(outage_wait=0)
        request, spec = self.accepted()
        uuid = request.instance_uuid
        self.fail_once_at('map_to_cell', exception.DatabaseUnavailable)
        self.build(request, spec)
        self.assertEqual(([], [], None, True, {}), self.where(uuid))
        self.take_over(uuid)
        self.assert_built_once(uuid)


class TestEachStepCrashes(BuildFlowStepTestCase):

    def check_crash_at(self, step):
        request, spec = self.accepted()
        uuid = request.instance_uuid
        if step == 'bury_in_cell0':
            self.scheduler.error = exception.NoValidHost(reason='none')
        injected = self.fail_once_at(step, Crash)
        self.assertRaises(Crash, self.build, request, spec)
        self.assertTrue(injected)
        self.assertEqual({'rebuilt': 1, 'stuck': 0}, self.take_over(uuid))
        self.assert_built_once(uuid)
        self.assertEqual((sorted({instance_actions.CREATE, self.action}),
                          []),
                         (self.actions(uuid), self.actions(uuid, self.cell0)))


class TestEachStepCrashesInARebuildFromCell0(TestEachStepCrashes):

    action = instance_actions.REBUILD


flow_steps.add_step_tests(TestEachStepFails, STEPS, 'check_failure_at',
                          'test_a_failure_at_%s_leaves_nothing_behind')
flow_steps.add_step_tests(
    TestEachStepFailsAndSoDoesTheBurial,
    [step for step in STEPS if step != 'bury_in_cell0'], 'check_failure_at',
    'test_a_failure_at_%s_then_at_the_burial_leaves_it_as_accepted')
flow_steps.add_step_tests(
    TestEachStepMeetsADatabaseBlink,
    [step for step in STEPS if step != 'bury_in_cell0'], 'check_blink_at',
    'test_a_database_blink_at_%s_delays_the_build')
for _case in (TestEachStepCrashes, TestEachStepCrashesInARebuildFromCell0):
    flow_steps.add_step_tests(_case, STEPS, 'check_crash_at',
                              'test_a_crash_at_%s_is_built_once_on_takeover')
