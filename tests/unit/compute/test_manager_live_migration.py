"""The compute manager's side of a live migration, both ends run for real.

As in ``test_manager_moves``: a real cell database, real placement (the
app, in this process) and the fake driver. Two ComputeManagers: ``src``
(``self.manager``) and ``dst`` (``self.dest``); the source's compute RPC
client hands the calls meant for the destination straight to the
destination's manager, with copies of the objects as the wire would. The
port service is the in-memory stand-in with the multiple bindings
extension.

What the conductor leaves when it casts ``live_migration``: the server
ACTIVE on ``src`` in task_state ``migrating``, its guest running there;
the migration ``queued``, its consumer holding the source allocation;
the server's consumer holding the destination's (claimed by the
scheduler); the server's port with an INACTIVE binding on ``dst`` whose
``allocation`` is the destination's bandwidth provider.
"""

import futurist
import oslo_messaging as messaging

from nova_lite.compute.flows import interrupted
from nova_lite.compute.flows import live_migration
from nova_lite.compute import states
from nova_lite import exception
from nova_lite import objects
from nova_lite.virt import fake
from tests.unit.compute import test_manager_moves as manager_fixtures
from tests.unit.conductor import test_live_migrate_task as live_fakes
from tests.unit import fixtures as nl_fixtures

GUEST_MEMORY = fake.FakeDriver.GUEST_MEMORY_BYTES


def over_the_wire(context, obj):
    """A copy of ``obj`` as the receiving end of an RPC call gets it."""
    return type(obj).obj_from_primitive(obj.obj_to_primitive(), context)


class DirectComputeRPC:
    """The source's compute RPC client for the calls to the destination:
    each goes to that host's manager directly. ``calls`` records each
    (method, host, status of the migration in the database then)."""

    def __init__(self, managers, status_of):
        self.managers = managers
        self.status_of = status_of
        self.calls = []

    def _call(self, method, context, instance, host, migrate_data):
        self.calls.append((method, host, self.status_of()))
        try:
            return getattr(self.managers[host], method)(
                context, over_the_wire(context, instance),
                over_the_wire(context, migrate_data))
        except messaging.ExpectedException as wrapped:
            # What the RPC server sends back: the error the method raised
            raise wrapped.exc_info[1]

    def pre_live_migration(self, context, instance, host, migrate_data):
        return self._call('pre_live_migration', context, instance, host,
                          migrate_data)

    def post_live_migration_at_destination(self, context, instance, host,
                                           migrate_data):
        return self._call('post_live_migration_at_destination', context,
                          instance, host, migrate_data)

    def rollback_live_migration_at_destination(self, context, instance,
                                               host, migrate_data):
        self._call('rollback_live_migration_at_destination', context,
                   instance, host, migrate_data)

    def methods(self):
        return [method for method, _host, _status in self.calls]


class AbortedMidway(fake.FakeDriver):
    """The fake driver, with ``during_transfer()`` run after the first
    progress report of a transfer (an admin's abort arriving then)."""

    during_transfer = None

    def live_migration(self, instance, dest, progress, aborted):
        def progress_then(total, processed, remaining):
            progress(total, processed, remaining)
            if self.during_transfer is not None:
                self.during_transfer()
        super().live_migration(instance, dest, progress_then, aborted)


class LiveMigrationTestCase(manager_fixtures.ManagerTestCase):

    host = 'src'
    source_driver = fake.FakeDriver

    def setUp(self):
        super().setUp()
        self.ports = live_fakes.BindingPortService()
        self.manager.ports = self.ports
        self.dest = self.make_manager('dst')
        self.rpc = DirectComputeRPC({'dst': self.dest},
                                    lambda: self.stored_migration().status)
        self.manager.compute_rpcapi = self.rpc
        self.instance = self.make_instance(task_state=states.MIGRATING,
                                           host='src')
        self.manager.driver.spawn(self.context, self.instance)
        self.port = self.bandwidth_port(self.instance, host='src')
        self.migration = objects.Migration(
            self.context, instance_uuid=self.instance.uuid,
            migration_type='live-migration', status='queued',
            source_compute='src', source_node='src', dest_compute='dst',
            dest_node='dst', dest_host='dst')
        self.migration.create()
        self.allocate(self.migration.uuid, self.allocation_on('src'))
        self.allocate(self.instance.uuid, self.allocation_on('dst'))
        self.ports.create_binding(self.port['id'], 'dst',
                                  {'allocation': self.nics['dst']})
        self.migrate_data = objects.LiveMigrateData(
            block_migration=False, source_host='src', source_node='src',
            dest_host='dst', dest_node='dst', bound_ports=[self.port['id']],
            port_providers={self.port['id']: self.nics['dst']})

    def make_manager(self, host, driver=None):
        if driver is None and host == 'src':
            driver = self.source_driver(host)
        return super().make_manager(host, driver)

    def live_migrate(self):
        live_migration.live_migrate(self.manager, self.context,
                                    self.instance, self.migration,
                                    self.migrate_data)

    def stored_migration(self):
        return objects.Migration.get_by_uuid(self.context,
                                             self.migration.uuid)

    def bindings(self):
        return self.ports.bindings_by_host(self.port['id'])

    def event(self, name):
        [action] = objects.InstanceActionList.get_by_instance_uuid(
            self.context, self.instance.uuid)
        [event] = [e for e in objects.InstanceActionEventList.get_by_action(
            self.context, action.id) if e.event == name]
        return event

    def assertBackOnItsSource(self):
        """ACTIVE on src without a task, running there only, holding the
        source allocation again; its port bound to src as before, the
        destination's binding gone."""
        stored = self.stored(self.instance)
        self.assertEqual((states.ACTIVE, None, 'src', 'src'),
                         (stored.vm_state, stored.task_state, stored.host,
                          stored.node))
        self.assertEqual(([self.instance.uuid], []),
                         (self.guests(), self.guests(self.dest)))
        self.assertEqual((self.allocation_on('src'), {}),
                         (self.resources(self.instance.uuid),
                          self.resources(self.migration.uuid)))
        self.assertEqual({'src': ('ACTIVE', {'allocation': self.nics['src']})},
                         self.bindings())


# -- pre-checks ---------------------------------------------------------------

class TestPreChecks(LiveMigrationTestCase):

    def refusal(self, check):
        """The MigrationPreCheckError ``check`` raises (wrapped, as an
        expected exception of the RPC method, for the server to send back
        to the caller)."""
        wrapped = self.assertRaises(messaging.ExpectedException, check,
                                    self.context, self.instance,
                                    self.migrate_data)
        error = wrapped.exc_info[1]
        self.assertIsInstance(error, exception.MigrationPreCheckError)
        return error

    def test_a_destination_takes_a_server_it_does_not_run(self):
        self.assertEqual(
            self.migrate_data,
            self.dest.check_can_live_migrate_destination(
                self.context, self.instance, self.migrate_data))

    def test_a_destination_set_to_refuse_refuses(self):
        self.config.config(fake_refuse_live_migration=True, group='compute')
        error = self.refusal(self.dest.check_can_live_migrate_destination)
        self.assertIn('fake_refuse_live_migration', str(error))

    def test_a_destination_already_running_the_guest_refuses(self):
        self.dest.driver.spawn(self.context, self.instance)
        error = self.refusal(self.dest.check_can_live_migrate_destination)
        self.assertIn('dst already runs %s' % self.instance.uuid, str(error))

    def test_the_source_takes_a_server_that_is_on_it(self):
        self.assertEqual(
            self.migrate_data,
            self.manager.check_can_live_migrate_source(
                self.context, self.instance, self.migrate_data))

    def test_a_source_the_server_is_not_on_refuses(self):
        error = self.refusal(self.dest.check_can_live_migrate_source)
        self.assertIn('is not on dst', str(error))


# -- the transfer and after ---------------------------------------------------

class TestLiveMigration(LiveMigrationTestCase):

    def test_the_migration_is_preparing_then_running_then_completed(self):
        self.live_migrate()
        self.assertEqual(
            [('pre_live_migration', 'dst', 'preparing'),
             ('post_live_migration_at_destination', 'dst', 'running')],
            self.rpc.calls)
        self.assertEqual('completed', self.stored_migration().status)

    def test_the_memory_transferred_is_recorded(self):
        self.live_migrate()
        stored = self.stored_migration()
        self.assertEqual((GUEST_MEMORY, GUEST_MEMORY, 0),
                         (stored.memory_total, stored.memory_processed,
                          stored.memory_remaining))

    def test_the_destination_binding_is_active_and_the_source_one_gone(self):
        self.live_migrate()
        self.assertEqual({'dst': ('ACTIVE', {'allocation': self.nics['dst']})},
                         self.bindings())
        self.assertEqual((['dst'], ['src']),
                         (self.ports.hosts_written('activate_binding'),
                          self.ports.hosts_written('delete_binding')))

    def test_the_migrations_source_allocation_is_deleted(self):
        self.live_migrate()
        self.assertEqual(({}, self.allocation_on('dst')),
                         (self.resources(self.migration.uuid),
                          self.resources(self.instance.uuid)))

    def test_the_server_is_active_on_the_destination_without_a_task(self):
        self.live_migrate()
        stored = self.stored(self.instance)
        self.assertEqual(
            (states.ACTIVE, None, 'dst', 'dst', states.RUNNING),
            (stored.vm_state, stored.task_state, stored.host, stored.node,
             stored.power_state))

    def test_the_guest_leaves_the_source_and_runs_on_the_destination(self):
        self.live_migrate()
        self.assertEqual(([], [self.instance.uuid]),
                         (self.guests(), self.guests(self.dest)))

    def test_the_destination_counts_the_server(self):
        self.live_migrate()
        self.assertIn(self.instance.uuid, self.dest.rt.tracked)
        self.assertNotIn(self.instance.uuid, self.manager.rt.tracked)

    def test_the_rpc_method_hands_it_to_the_pool(self):
        # A pool that runs what it is handed at once: joining a real
        # pool's worker takes its idle second.
        self.manager._builds = futurist.SynchronousExecutor()
        self.manager.live_migration(self.context, self.instance,
                                    self.migration, self.migrate_data)
        self.assertEqual('completed', self.stored_migration().status)


class TestTransferFailure(LiveMigrationTestCase):

    def setUp(self):
        super().setUp()
        self.config.config(fake_fail_live_migration_for=['vm'],
                           group='compute')
        self.live_migrate()

    def test_the_server_is_back_on_its_source_as_it_was(self):
        self.assertBackOnItsSource()

    def test_only_the_destinations_inactive_binding_is_deleted(self):
        self.assertEqual(([], ['dst']),
                         (self.ports.hosts_written('activate_binding'),
                          self.ports.hosts_written('delete_binding')))

    def test_the_migration_is_error(self):
        self.assertEqual('error', self.stored_migration().status)

    def test_the_destination_is_told_to_roll_back(self):
        self.assertEqual(['pre_live_migration',
                          'rollback_live_migration_at_destination'],
                         self.rpc.methods())

    def test_the_compute_event_fails_with_the_reason(self):
        event = self.event('compute_live_migration')
        self.assertEqual(('Error', 'src'), (event.result, event.host))
        self.assertIn('The live migration to dst failed', event.details)
        self.assertIn('fake_fail_live_migration_for', event.details)


class TestAbortWhileRunning(LiveMigrationTestCase):
    """The transfer takes two steps; the admin's abort arrives at the
    source after the first."""

    source_driver = AbortedMidway

    def setUp(self):
        super().setUp()
        self.config.config(fake_live_migration_seconds=0.4, group='compute')
        self.manager.driver.during_transfer = lambda: \
            self.manager.live_migration_abort(self.context, self.instance,
                                              self.migration.id)
        self.live_migrate()

    def test_the_migration_is_cancelled_halfway(self):
        stored = self.stored_migration()
        self.assertEqual(('cancelled', GUEST_MEMORY // 2),
                         (stored.status, stored.memory_processed))

    def test_the_server_is_back_on_its_source_as_it_was(self):
        self.assertBackOnItsSource()

    def test_the_compute_event_says_it_was_aborted(self):
        event = self.event('compute_live_migration')
        self.assertEqual('Error', event.result)
        self.assertIn('was aborted', event.details)

    def test_the_abort_is_forgotten_once_done(self):
        self.assertEqual(set(), self.manager.work._aborted_migrations)


class TestCancelledWhileQueued(LiveMigrationTestCase):
    """An admin cancelled it (from 2.65) before the source started it."""

    def setUp(self):
        super().setUp()
        cancelled = self.stored_migration()
        cancelled.status = 'cancelled'
        cancelled.save()
        self.live_migrate()

    def test_it_never_starts(self):
        self.assertEqual(['rollback_live_migration_at_destination'],
                         self.rpc.methods())
        self.assertIsNone(self.stored_migration().memory_total)

    def test_it_stays_cancelled(self):
        self.assertEqual('cancelled', self.stored_migration().status)

    def test_the_server_is_back_on_its_source_as_it_was(self):
        self.assertBackOnItsSource()


class TestDeletedBeforeItStarts(LiveMigrationTestCase):
    """The delete reached the source first; the scheduler's claim on the
    destination was written after the delete gave back what the server
    held."""

    def setUp(self):
        super().setUp()
        self.manager.terminate_instance(self.context, self.instance)
        self.allocate(self.instance.uuid, self.allocation_on('dst'))
        self.live_migrate()

    def test_it_never_starts(self):
        self.assertEqual(['rollback_live_migration_at_destination'],
                         self.rpc.methods())
        self.assertEqual('cancelled', self.stored_migration().status)

    def test_nothing_stays_held_on_either_side(self):
        self.assertEqual(({}, {}), (self.resources(self.instance.uuid),
                                    self.resources(self.migration.uuid)))

    def test_no_guest_and_no_binding_stay_behind(self):
        self.assertEqual(([], []), (self.guests(), self.guests(self.dest)))
        self.assertNotIn('dst', self.bindings())


class TestDeletedBeforeItsPortWasBound(LiveMigrationTestCase):
    """The delete reached the source before the conductor bound the
    server's port on the destination: the port, released by the delete,
    was bound to no host, so that binding became its own (ACTIVE) one.
    Undone, the port is bound to no host again rather than left on the
    destination naming an allocation given back."""

    def setUp(self):
        super().setUp()
        self.ports.delete_binding(self.port['id'], 'dst')
        self.manager.terminate_instance(self.context, self.instance)
        self.allocate(self.instance.uuid, self.allocation_on('dst'))
        self.assertEqual('ACTIVE', self.ports.create_binding(
            self.port['id'], 'dst',
            {'allocation': self.nics['dst']})['status'])
        self.live_migrate()

    def test_the_port_is_left_bound_to_no_host(self):
        self.assertEqual({'': ('ACTIVE', {})}, self.bindings())

    def test_nothing_stays_held_and_the_migration_is_cancelled(self):
        self.assertEqual(({}, {}, 'cancelled'), (
            self.resources(self.instance.uuid),
            self.resources(self.migration.uuid),
            self.stored_migration().status))


class TestDeletedWhileItIsUnderWay(LiveMigrationTestCase):
    """The delete reaches the source while the server's consumer holds
    the destination the conductor claimed for it (its source side is the
    migration's): a deleted server holds nothing anywhere."""

    def test_the_destination_claim_goes_with_the_server(self):
        self.manager.terminate_instance(self.context, self.instance)
        self.assertEqual({}, self.resources(self.instance.uuid))


class DeletedBeforeTheLastStepRPC(DirectComputeRPC):
    """The API marks the server deleting just before the source asks the
    destination to take it over (the delete's cast waits behind the
    source's lock on the server)."""

    def __init__(self, managers, status_of, context, instance):
        super().__init__(managers, status_of)
        self.context = context
        self.instance = instance

    def post_live_migration_at_destination(self, context, instance, host,
                                           migrate_data):
        deleting = objects.Instance.get_by_uuid(self.context,
                                                self.instance.uuid)
        deleting.task_state = states.DELETING
        deleting.save()
        return super().post_live_migration_at_destination(
            context, instance, host, migrate_data)


class TestDeletedBeforeTheLastStep(LiveMigrationTestCase):
    """The guest is on the destination when the delete arrives: the
    server is left to the delete (not put in ERROR), the destination's
    guest goes, and once the delete has run nothing stays anywhere."""

    def setUp(self):
        super().setUp()
        self.manager.compute_rpcapi = DeletedBeforeTheLastStepRPC(
            {'dst': self.dest}, lambda: self.stored_migration().status,
            self.context, self.instance)
        self.live_migrate()

    def test_the_server_is_left_to_the_delete(self):
        stored = self.stored(self.instance)
        self.assertEqual((states.ACTIVE, states.DELETING, None),
                         (stored.vm_state, stored.task_state, stored.fault))

    def test_no_guest_stays_on_either_side(self):
        self.assertEqual(([], []), (self.guests(), self.guests(self.dest)))

    def test_the_move_itself_completed(self):
        self.assertEqual('completed', self.stored_migration().status)

    def test_nothing_stays_once_the_delete_ran(self):
        self.manager.terminate_instance(
            self.context, objects.Instance.get_by_uuid(self.context,
                                                       self.instance.uuid))
        self.assertEqual(({}, {}), (self.resources(self.instance.uuid),
                                    self.resources(self.migration.uuid)))
        self.assertEqual(set(), set(self.bindings()) & {'src', 'dst'})
        self.assertRaises(exception.InstanceNotFound,
                          objects.Instance.get_by_uuid, self.context,
                          self.instance.uuid)


# -- when the destination or the source goes away -----------------------------

class UnreachableDestinationRPC(DirectComputeRPC):
    """The destination does not answer post_live_migration_at_destination
    (it went down after the transfer)."""

    def post_live_migration_at_destination(self, context, instance, host,
                                           migrate_data):
        self.calls.append(('post_live_migration_at_destination', host,
                           self.status_of()))
        raise messaging.MessagingTimeout('no answer from dst')


class BlinkingBrokerRPC(DirectComputeRPC):
    """RabbitMQ blinks as the source hands the server over: the first
    post_live_migration_at_destination is not delivered (``lost`` is
    'request') or its answer is lost after the destination ran it
    ('answer')."""

    def __init__(self, managers, status_of, lost):
        super().__init__(managers, status_of)
        self.lost = lost

    def post_live_migration_at_destination(self, context, instance, host,
                                           migrate_data):
        tries = self.methods().count('post_live_migration_at_destination')
        if tries == 0 and self.lost == 'request':
            self.calls.append(('post_live_migration_at_destination', host,
                               self.status_of()))
            raise messaging.MessageDeliveryFailure('broker away')
        result = super().post_live_migration_at_destination(
            context, instance, host, migrate_data)
        if tries == 0 and self.lost == 'answer':
            raise messaging.MessagingTimeout('no reply on topic compute')
        return result


class TestHandOverRidesOutABrokerBlink(LiveMigrationTestCase):
    """The hand-over is made again after a blink, and a destination asked
    again for a server it took over already is done: the move completes,
    with no fault."""

    def hand_over(self, lost):
        self.pauses = self.useFixture(nl_fixtures.OutageClock(
            self.config, wait=30)).pauses
        self.rpc = BlinkingBrokerRPC({'dst': self.dest},
                                     lambda: self.stored_migration().status,
                                     lost)
        self.manager.compute_rpcapi = self.rpc
        self.live_migrate()

    def assertCompletedOnTheDestination(self):
        self.assertEqual([1], self.pauses)
        self.assertEqual(['pre_live_migration'] +
                         ['post_live_migration_at_destination'] * 2,
                         self.rpc.methods())
        stored = self.stored(self.instance)
        self.assertEqual((states.ACTIVE, None, 'dst', 'dst', None),
                         (stored.vm_state, stored.task_state, stored.host,
                          stored.node, stored.fault))
        self.assertEqual('completed', self.stored_migration().status)
        self.assertEqual(([], [self.instance.uuid]),
                         (self.guests(), self.guests(self.dest)))
        self.assertIn(self.instance.uuid, self.dest.rt.tracked)
        self.assertEqual(
            (self.allocation_on('dst'), {},
             {'dst': ('ACTIVE', {'allocation': self.nics['dst']})}),
            (self.resources(self.instance.uuid),
             self.resources(self.migration.uuid), self.bindings()))

    def test_a_request_the_broker_did_not_deliver_is_sent_again(self):
        self.hand_over('request')
        self.assertCompletedOnTheDestination()

    def test_an_answer_lost_after_the_destination_took_it_over(self):
        self.hand_over('answer')
        self.assertCompletedOnTheDestination()


class TestDestinationTakesOverOnce(LiveMigrationTestCase):

    def test_asked_again_it_is_done(self):
        self.live_migrate()
        again = objects.Instance.get_by_uuid(self.context,
                                             self.instance.uuid)
        again.host, again.task_state = 'src', states.MIGRATING
        again.obj_reset_changes()  # as the source's copy still says
        self.dest.post_live_migration_at_destination(
            self.context, again, self.migrate_data)
        stored = self.stored(self.instance)
        self.assertEqual((states.ACTIVE, None, 'dst'),
                         (stored.vm_state, stored.task_state, stored.host))

    def test_a_server_that_went_elsewhere_is_not_taken(self):
        moved = self.stored(self.instance)
        moved.task_state = None  # rolled back to its source meanwhile
        moved.save()
        self.assertRaises(exception.UnexpectedTaskStateError,
                          self.dest.post_live_migration_at_destination,
                          self.context, self.instance, self.migrate_data)
        self.assertEqual('src', self.stored(self.instance).host)
        self.assertEqual([], self.guests(self.dest))


class TestDestinationCannotFinish(LiveMigrationTestCase):

    def setUp(self):
        super().setUp()
        self.pauses = self.useFixture(nl_fixtures.OutageClock(
            self.config, wait=10)).pauses
        self.manager.compute_rpcapi = UnreachableDestinationRPC(
            {'dst': self.dest}, lambda: self.stored_migration().status)
        self.live_migrate()

    def test_it_was_asked_until_the_outage_wait_was_over(self):
        self.assertEqual([1, 2, 4], self.pauses)
        self.assertEqual(4, self.manager.compute_rpcapi.methods().count(
            'post_live_migration_at_destination'))

    def test_the_server_is_error_on_the_destination_with_a_fault(self):
        stored = self.stored(self.instance)
        self.assertEqual((states.ERROR, None, 'dst', 'dst'),
                         (stored.vm_state, stored.task_state, stored.host,
                          stored.node))
        self.assertIsNotNone(stored.fault)

    def test_the_migration_is_error(self):
        self.assertEqual('error', self.stored_migration().status)

    def test_the_server_keeps_what_it_holds_on_the_destination(self):
        self.assertEqual(
            (self.allocation_on('dst'), {},
             {'dst': ('ACTIVE', {'allocation': self.nics['dst']})}),
            (self.resources(self.instance.uuid),
             self.resources(self.migration.uuid), self.bindings()))


class TestRestartOfTheSource(LiveMigrationTestCase):
    """The source compute restarts while a live migration from it runs."""

    def restart_source(self, status):
        migration = self.stored_migration()
        migration.status = status
        migration.save()
        restarted = self.make_manager('src')
        restarted.compute_rpcapi = self.rpc
        interrupted.recover_live_migrations(restarted, self.context)

    def test_a_running_migration_is_rolled_back_as_error(self):
        self.restart_source('running')
        stored = self.stored(self.instance)
        self.assertEqual(('error', states.ACTIVE, None, 'src'),
                         (self.stored_migration().status, stored.vm_state,
                          stored.task_state, stored.host))

    def test_the_server_gets_its_source_allocation_and_binding_back(self):
        self.restart_source('running')
        self.assertEqual(
            (self.allocation_on('src'), {},
             {'src': ('ACTIVE', {'allocation': self.nics['src']})}),
            (self.resources(self.instance.uuid),
             self.resources(self.migration.uuid), self.bindings()))

    def test_a_migration_still_with_the_conductor_is_left(self):
        self.restart_source('accepted')
        self.assertEqual(('accepted', states.MIGRATING),
                         (self.stored_migration().status,
                          self.stored(self.instance).task_state))
