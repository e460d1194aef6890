"""The compute's side of reboot (soft and hard), pause and unpause,
suspend and resume (compute RPC 1.5).

As in ``test_manager_moves``: a real cell database, real placement (the
app, in this process) and the fake driver. Each message arrives as the
API sends it: the server in the task state the API set, the request's
action recorded under the same request id.
"""

from nova_lite.compute.flows import power
from nova_lite.compute import instance_actions
from nova_lite.compute import states
from nova_lite import context as nova_context
from nova_lite import objects
from nova_lite.virt import fake
from tests.unit.compute import test_manager_moves as manager_fixtures


class RebootFails(fake.FakeDriver):
    """A hypervisor whose reboot fails, leaving the guest as
    ``guest_after`` ('running', 'shutdown')."""

    guest_after = 'running'

    def reboot(self, instance, reboot_type):
        self._instances[instance.uuid] = {'state': self.guest_after}
        raise fake.SpawnFailed(instance_uuid=instance.uuid, host=self.host,
                               reason='the hypervisor hangs')


class PauseFails(fake.FakeDriver):

    def pause(self, instance):
        raise fake.SpawnFailed(instance_uuid=instance.uuid, host=self.host,
                               reason='the hypervisor hangs')


class TaskStateSeenByTheDriver(fake.FakeDriver):
    """Records the server's stored task state when the guest reboots."""

    def __init__(self, host, context):
        super().__init__(host)
        self.context = context
        self.seen = []

    def reboot(self, instance, reboot_type):
        self.seen.append(objects.Instance.get_by_uuid(
            self.context, instance.uuid).task_state)
        super().reboot(instance, reboot_type)


class PowerTestCase(manager_fixtures.ManagerTestCase):

    host = 'dst'

    def server(self, vm_state=states.ACTIVE, task_state=None,
               action=None, guest='running', manager=None):
        """A server on this host asked for ``task_state`` by this
        request (its ``action``), its guest ``guest`` here."""
        instance = self.make_instance(vm_state=vm_state,
                                      task_state=task_state, host='dst')
        (manager or self.manager).driver._instances[instance.uuid] = {
            'state': guest}
        if action is not None:
            objects.InstanceAction.action_start(self.context, instance.uuid,
                                                action)
        return instance

    def state(self, instance):
        stored = self.stored(instance)
        return (stored.vm_state, stored.task_state, stored.power_state)

    def guest(self, instance, manager=None):
        return (manager or self.manager).driver._instances[
            instance.uuid]['state']

    def event(self, instance, name):
        [action] = objects.InstanceActionList.get_by_instance_uuid(
            self.context, instance.uuid, limit=1)
        [event] = [e for e in objects.InstanceActionEventList.get_by_action(
            self.context, action.id) if e.event == name]
        return event


class TestReboot(PowerTestCase):

    def test_a_soft_reboot_leaves_the_server_active_and_running(self):
        instance = self.server(task_state=states.REBOOTING,
                               action=instance_actions.REBOOT)
        self.manager.reboot_instance(self.context, instance, 'SOFT')
        self.assertEqual((states.ACTIVE, None, states.RUNNING),
                         self.state(instance))
        self.assertEqual('running', self.guest(instance))

    def test_a_hard_reboot_brings_a_stopped_server_back_active(self):
        instance = self.server(vm_state=states.STOPPED,
                               task_state=states.REBOOTING_HARD,
                               action=instance_actions.REBOOT,
                               guest='shutdown')
        self.manager.reboot_instance(self.context, instance, 'HARD')
        self.assertEqual((states.ACTIVE, None, states.RUNNING),
                         self.state(instance))
        self.assertEqual('running', self.guest(instance))

    def test_the_guest_reboots_in_reboot_started(self):
        driver = TaskStateSeenByTheDriver('dst', self.context)
        manager = self.make_manager('dst', driver)
        for reboot_type, asked, started in (
                ('SOFT', states.REBOOTING, states.REBOOT_STARTED),
                ('HARD', states.REBOOTING_HARD, states.REBOOT_STARTED_HARD)):
            instance = self.server(task_state=asked, manager=manager,
                                   action=instance_actions.REBOOT)
            manager.reboot_instance(self.context, instance, reboot_type)
            self.assertEqual(started, driver.seen.pop())

    def test_a_soft_reboot_a_hard_one_overtook_touches_nothing(self):
        # The hard reboot was asked for after the soft one was sent.
        instance = self.server(task_state=states.REBOOTING_HARD,
                               action=instance_actions.REBOOT,
                               guest='marked')
        self.manager.reboot_instance(self.context, instance, 'SOFT')
        self.assertEqual((states.ACTIVE, states.REBOOTING_HARD),
                         self.state(instance)[:2])
        self.assertEqual('marked', self.guest(instance))

    def test_a_repeated_reboot_touches_nothing(self):
        instance = self.server(action=instance_actions.REBOOT,
                               guest='marked')
        message = self.stored(instance)
        message.task_state = states.REBOOTING
        self.manager.reboot_instance(self.context, message, 'SOFT')
        self.assertEqual('marked', self.guest(instance))

    def test_it_is_an_event_of_the_reboot_action(self):
        instance = self.server(task_state=states.REBOOTING,
                               action=instance_actions.REBOOT)
        self.manager.reboot_instance(self.context, instance, 'SOFT')
        self.assertEqual(('Success', 'dst'), (
            self.event(instance, 'compute_reboot_instance').result,
            self.event(instance, 'compute_reboot_instance').host))

    def test_a_failed_reboot_with_the_guest_running_keeps_the_server(self):
        manager = self.make_manager('dst', RebootFails('dst'))
        instance = self.server(task_state=states.REBOOTING,
                               action=instance_actions.REBOOT,
                               manager=manager)
        manager.reboot_instance(self.context, instance, 'SOFT')
        stored = self.stored(instance)
        self.assertEqual((states.ACTIVE, None),
                         (stored.vm_state, stored.task_state))
        self.assertIn('the hypervisor hangs', stored.fault.message)
        self.assertEqual('Error', self.event(
            instance, 'compute_reboot_instance').result)

    def test_a_failed_reboot_that_leaves_the_guest_down_is_error(self):
        driver = RebootFails('dst')
        driver.guest_after = 'shutdown'
        manager = self.make_manager('dst', driver)
        instance = self.server(task_state=states.REBOOTING_HARD,
                               action=instance_actions.REBOOT,
                               manager=manager)
        manager.reboot_instance(self.context, instance, 'HARD')
        stored = self.stored(instance)
        self.assertEqual((states.ERROR, None),
                         (stored.vm_state, stored.task_state))
        self.assertIn('the hypervisor hangs', stored.fault.message)
        self.assertEqual('Error', self.event(
            instance, 'compute_reboot_instance').result)


class TestPauseAndSuspend(PowerTestCase):

    def test_pause_then_unpause(self):
        instance = self.server(task_state=states.PAUSING,
                               action=instance_actions.PAUSE)
        self.manager.pause_instance(self.context, instance)
        self.assertEqual((states.PAUSED, None, states.PAUSED_POWER),
                         self.state(instance))
        self.assertEqual('paused', self.guest(instance))
        instance = self.asked(instance, states.UNPAUSING,
                              instance_actions.UNPAUSE)
        self.manager.unpause_instance(self.context, instance)
        self.assertEqual((states.ACTIVE, None, states.RUNNING),
                         self.state(instance))
        self.assertEqual('running', self.guest(instance))

    def test_suspend_then_resume(self):
        instance = self.server(task_state=states.SUSPENDING,
                               action=instance_actions.SUSPEND)
        self.manager.suspend_instance(self.context, instance)
        self.assertEqual((states.SUSPENDED, None, states.SUSPENDED_POWER),
                         self.state(instance))
        self.assertEqual('suspended', self.guest(instance))
        instance = self.asked(instance, states.RESUMING,
                              instance_actions.RESUME)
        self.manager.resume_instance(self.context, instance)
        self.assertEqual((states.ACTIVE, None, states.RUNNING),
                         self.state(instance))
        self.assertEqual('running', self.guest(instance))

    def asked(self, instance, task_state, action):
        """The next request on the server, as the API makes it."""
        stored = self.stored(instance)
        stored.task_state = task_state
        stored.save()
        self.context = nova_context.get_admin_context()
        objects.InstanceAction.action_start(self.context, instance.uuid,
                                            action)
        return stored

    def test_each_is_an_event_of_its_action(self):
        instance = self.server(task_state=states.SUSPENDING,
                               action=instance_actions.SUSPEND)
        self.manager.suspend_instance(self.context, instance)
        self.assertEqual('Success', self.event(
            instance, 'compute_suspend_instance').result)

    def test_a_failed_pause_leaves_the_server_active_with_a_fault(self):
        manager = self.make_manager('dst', PauseFails('dst'))
        instance = self.server(task_state=states.PAUSING,
                               action=instance_actions.PAUSE,
                               manager=manager)
        manager.pause_instance(self.context, instance)
        stored = self.stored(instance)
        self.assertEqual((states.ACTIVE, None),
                         (stored.vm_state, stored.task_state))
        self.assertIn('the hypervisor hangs', stored.fault.message)
        self.assertEqual('running', self.guest(instance, manager))

    def test_a_repeated_pause_leaves_an_unpaused_server_running(self):
        instance = self.server(action=instance_actions.PAUSE)
        message = self.stored(instance)
        message.task_state = states.PAUSING
        self.manager.pause_instance(self.context, message)
        self.assertEqual((states.ACTIVE, None), self.state(instance)[:2])
        self.assertEqual('running', self.guest(instance))


class TestTheFakeDriver(PowerTestCase):

    def test_it_reports_the_power_state_of_each_guest(self):
        instance = self.server()
        driver = self.manager.driver
        for operation, expected in ((driver.pause, states.PAUSED_POWER),
                                    (driver.unpause, states.RUNNING),
                                    (driver.suspend, states.SUSPENDED_POWER),
                                    (driver.resume, states.RUNNING),
                                    (driver.power_off, states.SHUTDOWN)):
            operation(instance)
            self.assertEqual(expected, driver.power_state(instance))
        driver.reboot(instance, power.HARD)
        self.assertEqual(states.RUNNING, driver.power_state(instance))
        driver.destroy(self.context, instance)
        self.assertEqual(states.NOSTATE, driver.power_state(instance))
