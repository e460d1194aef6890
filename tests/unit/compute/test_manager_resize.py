"""The computes' halves of a resize: the source's, the destination's,
confirm, revert, a failure at the destination, and a restart of either
compute in the middle.

As ``test_manager_moves``: a real cell database, real placement (the app,
in this process), the fake driver and an in-memory port service. Two
managers, ``src`` and ``dst``; the compute RPC client of each is wired to
the other's flows, run synchronously.

What the conductor hands over: the server ACTIVE on ``src`` in task
``resize_prep``, its port bound there with ``src``'s bandwidth provider,
the migration ``pre-migrating`` and holding what the server held on
``src``, the server's consumer holding ``dst`` at the new flavor.
"""

import datetime

from oslo_utils import timeutils
import sqlalchemy as sa

from nova_lite.compute.flows import resize
from nova_lite.compute import states
from nova_lite.db import api as db
from nova_lite.db import main_models
from nova_lite import flow as flows
from nova_lite import objects
from tests.unit.compute import test_manager_moves as moves

BIGGER = {'VCPU': 2, 'MEMORY_MB': 1024, 'DISK_GB': 1}


class Crash(BaseException):
    """A step that kills the process: nothing is undone (SIGKILL)."""


class WiredComputes:
    """The compute RPC client of both managers: each cast is queued, and
    ``deliver`` runs the receiving compute's flow -- after the sender's
    has returned, as a cast arrives."""

    def __init__(self, managers):
        self.managers = managers
        self.queued = []

    def deliver(self):
        while self.queued:
            self.queued.pop(0)()

    def _cast(self, flow, host, *args):
        self.queued.append(lambda: flow(self.managers[host], *args))

    def finish_resize(self, context, instance, migration, flavor,
                      request_spec, claimed_node):
        self._cast(resize.finish_resize, migration.dest_compute, context,
                   instance, migration, flavor, request_spec, claimed_node)

    def confirm_resize(self, context, instance, migration):
        self._cast(resize.confirm_resize, migration.source_compute,
                   context, instance, migration)

    def revert_resize(self, context, instance, migration):
        self._cast(resize.revert_resize, migration.dest_compute, context,
                   instance, migration)

    def finish_revert_resize(self, context, instance, migration):
        self._cast(resize.finish_revert_resize, migration.source_compute,
                   context, instance, migration)


class ResizeTestCase(moves.ManagerTestCase):

    def setUp(self):
        super().setUp()
        self.source = self.make_manager('src')
        self.managers = {'src': self.source, 'dst': self.manager}
        self.wire = WiredComputes(self.managers)
        for manager in self.managers.values():
            manager.compute_rpcapi = self.wire
        self.bigger = objects.Flavor(
            id=2, flavorid='2', name='bigger', memory_mb=1024, vcpus=2,
            root_gb=1, ephemeral_gb=0, swap=0)
        self.instance = self.make_instance(task_state=states.RESIZE_PREP,
                                           host='src', display_name='rz')
        self.source.driver.spawn(self.context, self.instance)
        self.port = self.bandwidth_port(self.instance, host='src')
        self.before_binding = self.binding(self.port)
        self.before = self.allocation_on('src')
        self.migration = objects.Migration(
            self.context, instance_uuid=self.instance.uuid,
            migration_type='resize', status='pre-migrating',
            source_compute='src', source_node='src', dest_compute='dst',
            dest_node='dst', dest_host='dst', old_instance_type_id=1,
            new_instance_type_id=2)
        self.migration.create()
        self.allocate(self.migration.uuid, self.before)
        self.destination = dict(self.allocation_on('dst'))
        self.destination[self.nodes['dst']] = dict(BIGGER)
        self.allocate(self.instance.uuid, self.destination)
        self.spec = objects.RequestSpec(
            instance_uuid=self.instance.uuid, flavor=self.bigger,
            requested_resources=[self.group(self.port, 'dst')])

    def resize(self):
        resize.resize_instance(self.source, self.context, self.instance,
                               self.migration, self.bigger, self.spec,
                               self.nodes['dst'])
        self.wire.deliver()

    def stored_migration(self):
        return objects.Migration.get_by_uuid(self.context,
                                             self.migration.uuid)

    def crash_at(self, failing):
        def before_step(flow, step):
            if step == failing:
                raise Crash(step)
        self.patch(flows.Flow, 'before_step', staticmethod(before_step))

    def assert_back_as_it_was(self, status='error'):
        """ACTIVE and running on src at its old flavor, holding what it
        held, its port bound there as before; the migration holds
        nothing."""
        stored = self.stored(self.instance)
        self.assertEqual(('src', states.ACTIVE, None, '1', states.RUNNING),
                         (stored.host, stored.vm_state, stored.task_state,
                          stored.flavor.flavorid, stored.power_state))
        self.assertIsNone(stored.old_flavor)
        self.assertEqual(self.before, self.resources(self.instance.uuid))
        self.assertEqual({}, self.resources(self.migration.uuid))
        self.assertEqual(self.before_binding, self.binding(self.port))
        self.assertEqual(status, self.stored_migration().status)
        self.assertEqual([], self.guests(self.manager))
        self.assertEqual([self.instance.uuid], self.guests(self.source))
        return stored


class TestResize(ResizeTestCase):

    def test_the_server_goes_to_the_destination_and_waits_there(self):
        self.resize()
        stored = self.stored(self.instance)
        self.assertEqual(('dst', states.RESIZED, None, '2', '1'),
                         (stored.host, stored.vm_state, stored.task_state,
                          stored.flavor.flavorid,
                          stored.old_flavor.flavorid))
        self.assertEqual((2, 1024), (stored.vcpus, stored.memory_mb))
        self.assertEqual(('dst', {'allocation': self.nics['dst']}),
                         self.binding(self.port))
        self.assertEqual(self.before, self.resources(self.migration.uuid))
        self.assertEqual(self.destination,
                         self.resources(self.instance.uuid))
        self.assertEqual('finished', self.stored_migration().status)
        self.assertEqual([self.instance.uuid], self.guests(self.manager))

    def test_confirm_drops_the_source_side(self):
        self.resize()
        resize.begin_confirm(self.context, self.stored(self.instance),
                             self.stored_migration(),
                             self.manager.compute_rpcapi)
        self.wire.deliver()
        stored = self.stored(self.instance)
        self.assertEqual(('dst', states.ACTIVE, '2'),
                         (stored.host, stored.vm_state,
                          stored.flavor.flavorid))
        self.assertIsNone(stored.old_flavor)
        self.assertEqual({}, self.resources(self.migration.uuid))
        self.assertEqual(self.destination,
                         self.resources(self.instance.uuid))
        self.assertEqual('confirmed', self.stored_migration().status)
        self.assertEqual([], self.guests(self.source))

    def test_revert_puts_everything_back(self):
        self.resize()
        migration = self.stored_migration()
        migration.status = 'reverting'
        migration.save()
        instance = self.stored(self.instance)
        instance.task_state = states.RESIZE_REVERTING
        instance.save()
        self.wire.revert_resize(self.context, instance, migration)
        self.wire.deliver()
        self.assert_back_as_it_was(status='reverted')

    def test_a_stopped_server_stays_stopped(self):
        self.instance.vm_state = states.STOPPED
        self.instance.power_state = states.SHUTDOWN
        self.instance.save()
        self.resize()
        stored = self.stored(self.instance)
        self.assertEqual((states.RESIZED, states.SHUTDOWN),
                         (stored.vm_state, stored.power_state))
        resize.begin_confirm(self.context, stored, self.stored_migration(),
                             self.wire)
        self.wire.deliver()
        self.assertEqual(states.STOPPED, self.stored(self.instance).vm_state)

    def test_the_destination_claim_goes_with_the_servers_last_save(self):
        # A finish quicker than WRITE_SOON_SECONDS: the destination's
        # record is not saved on its own; its claim at the new flavor and
        # the end of the move's workload go with the save that makes the
        # server RESIZED.
        resize.resize_instance(self.source, self.context, self.instance,
                               self.migration, self.bigger, self.spec,
                               self.nodes['dst'])
        # finish_resize, here.
        saves, node = self.node_saves_during(self.wire.deliver)
        self.assertEqual(states.RESIZED,
                         self.stored(self.instance).vm_state)
        self.assertEqual((0, '0', 2), (saves, node.stats['io_workload'],
                                       node.vcpus_used))


class TestFailures(ResizeTestCase):

    def test_a_failed_spawn_at_the_destination_gives_the_server_back(self):
        self.config.config(fake_fail_spawn_for=['rz'], group='compute')
        self.resize()
        stored = self.assert_back_as_it_was()
        self.assertIsNotNone(stored.fault)

    def test_a_late_finish_touches_nothing(self):
        self.config.config(fake_fail_spawn_for=['rz'], group='compute')
        self.resize()
        self.config.config(fake_fail_spawn_for=[], group='compute')
        resize.finish_resize(self.manager, self.context, self.instance,
                             self.migration, self.bigger, self.spec,
                             self.nodes['dst'])
        self.wire.deliver()
        self.assert_back_as_it_was()

    def test_a_source_restarted_mid_transfer_undoes_the_resize(self):
        self.crash_at('transfer')
        self.assertRaises(Crash, self.resize)
        self.assertEqual('migrating', self.stored_migration().status)
        self.patch(flows.Flow, 'before_step', staticmethod(
            lambda flow, step: None))
        resize.recover_resizes(self.source, self.context, restarted=True)
        self.wire.deliver()
        stored = self.assert_back_as_it_was()
        self.assertIn('restarted', stored.fault.message)

    def test_a_destination_restarted_mid_spawn_gives_the_server_back(self):
        self.crash_at('spawn')
        self.assertRaises(Crash, self.resize)
        self.assertEqual('post-migrating', self.stored_migration().status)
        self.patch(flows.Flow, 'before_step', staticmethod(
            lambda flow, step: None))
        resize.recover_resizes(self.manager, self.context, restarted=True)
        self.wire.deliver()
        self.assert_back_as_it_was()


class TestConfirmWindow(ResizeTestCase):

    def age_migration(self, seconds):
        with db.cell_session(self.context) as session:
            session.execute(sa.update(main_models.Migration).where(
                main_models.Migration.uuid == self.migration.uuid).values(
                    updated_at=timeutils.utcnow() -
                    datetime.timedelta(seconds=seconds)))

    def test_a_resize_older_than_the_window_is_confirmed(self):
        self.config.config(resize_confirm_window=60)
        self.resize()
        self.age_migration(120)
        resize.confirm_old_resizes(self.manager, self.context)
        self.wire.deliver()
        self.assertEqual('confirmed', self.stored_migration().status)
        self.assertEqual(states.ACTIVE, self.stored(self.instance).vm_state)
        self.assertEqual({}, self.resources(self.migration.uuid))

    def test_a_younger_one_waits(self):
        self.config.config(resize_confirm_window=60)
        self.resize()
        resize.confirm_old_resizes(self.manager, self.context)
        self.wire.deliver()
        self.assertEqual('finished', self.stored_migration().status)

    def test_a_window_of_0_never_confirms(self):
        self.resize()
        self.age_migration(10 ** 6)
        resize.confirm_old_resizes(self.manager, self.context)
        self.wire.deliver()
        self.assertEqual('finished', self.stored_migration().status)
