"""The conductor's resize and cold-migration task, and its reschedule to
the alternates.

As in ``test_evacuate_unshelve_tasks``: real databases (SQLite) and real
placement (the app, in this process); the scheduler, the compute RPC
client and the port service are stand-ins handed to the task. The
stand-in scheduler answers its hosts in order -- the first claimed for
the server, the others as alternates -- as the real one does.

The server is ACTIVE on ``src`` in task_state ``resize_prep`` (what the
API hands over) with one port that has a minimum bandwidth resource
request; ``dst`` and ``dst2`` are the destinations, in that order.
"""

import oslo_messaging as messaging

from nova_lite.compute import states
from nova_lite.conductor.tasks import migrate
from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite import flow as flows
from nova_lite import objects
from tests.unit.conductor import test_evacuate_unshelve_tasks as move_fakes
from tests.unit.conductor import test_live_migrate_task

DESTINATIONS = ('dst', 'dst2')


class AlternatesScheduler:
    """Answers ``hosts`` (those the request does not ignore) as one
    selection and its alternates, and claims the first for the server;
    records each spec."""

    def __init__(self, hosts, selection_of, reportclient):
        self.hosts = hosts
        self.selection_of = selection_of
        self.reportclient = reportclient
        self.specs = []

    def select_destinations(self, context, spec, uuids,
                            return_alternates=True):
        self.specs.append(spec.obj_clone())
        ignored = set(spec.ignore_hosts or [])
        selections = [self.selection_of(host) for host in self.hosts
                      if host not in ignored]
        if not selections:
            raise exception.NoValidHost(reason='no host left')
        [uuid] = uuids
        assert self.reportclient.claim_resources(
            uuid, selections[0].allocation, 'p', 'u')
        return [selections]


class ResizeComputeRPC:
    """The compute RPC client: ``refusing`` destinations fail
    prep_resize, ``too_old`` ones do not speak 1.6; casts are recorded."""

    RESIZE_VERSION = '1.6'
    version_cap = None

    def __init__(self, refusing=(), too_old=(), error=None):
        self.refusing = set(refusing)
        self.too_old = set(too_old)
        self.error = error
        self.asked = []
        self.resizes = []

    def can_resize(self, context, host):
        return host not in self.too_old

    def prep_resize(self, context, instance, migration, flavor, limits):
        self.asked.append(migration.dest_compute)
        if migration.dest_compute in self.refusing:
            raise exception.MigrationPreCheckError(
                reason='%s says no' % migration.dest_compute)

    def resize_instance(self, context, instance, migration, flavor,
                        request_spec, claimed_node):
        if self.error is not None:
            raise self.error
        self.resizes.append((migration.dest_compute, flavor.flavorid,
                             request_spec, claimed_node))


class MigrateTaskTestCase(move_fakes.MoveTaskTestCase):

    def setUp(self):
        super().setUp()
        self.nodes['dst2'], self.nics['dst2'] = self.compute_node('dst2')
        with nova_context.target_cell(self.admin,
                                      self.plane.databases.cell1) as cctxt:
            objects.Service(cctxt, host='src', binary='nova-lite-compute',
                            topic='compute').create()
        self.instance = self.server(states.ACTIVE, states.RESIZE_PREP,
                                    host='src')
        self.before = self.resources(self.instance.uuid)

    def migrate(self, compute=None, flavor=None, host=None,
                hosts=DESTINATIONS):
        self.scheduler = AlternatesScheduler(hosts, self.selection,
                                             self.reportclient)
        self.compute = compute or ResizeComputeRPC()
        self.task = migrate.MigrationTask(
            self.context, self.instance, flavor or self.flavor, host,
            self.scheduler, self.compute, self.reportclient, self.ports)
        self.task.execute()
        with nova_context.target_cell(self.admin,
                                      self.plane.databases.cell1) as cctxt:
            [self.migration] = objects.MigrationList.get_by_instance(
                cctxt, self.instance.uuid)

    def assert_as_it_was(self):
        """The server where it was, as it was: its allocation on the
        source, no task, a fault saying why; nothing held by the
        migration; the migration in error."""
        self.assertEqual(self.before, self.resources(self.instance.uuid))
        self.assertEqual({}, self.held(self.migration.uuid))
        self.assertEqual('error', self.migration.status)
        stored = self.stored(self.instance)
        self.assertEqual(('src', states.ACTIVE, None),
                         (stored.host, stored.vm_state, stored.task_state))
        self.assertIsNotNone(stored.fault)
        return stored


class TestMigrateTask(MigrateTaskTestCase):

    def test_the_chosen_destination_gets_the_server_and_the_source_side_stays_with_the_migration(self):  # noqa: E501
        self.migrate()
        self.assertEqual([('dst', '1', self.nodes['dst'])],
                         [(dest, flavor, node) for dest, flavor, _spec, node
                          in self.compute.resizes])
        self.assertEqual(self.before, self.resources(self.migration.uuid))
        self.assertEqual(self.allocation_on('dst', self.port_ids()),
                         self.resources(self.instance.uuid))
        self.assertEqual(('migration', 'pre-migrating', 'src', 'dst'),
                         (self.migration.migration_type,
                          self.migration.status,
                          self.migration.source_compute,
                          self.migration.dest_compute))
        # The port's request group names the destination's provider.
        [spec] = [r[2] for r in self.compute.resizes]
        [group] = spec.requested_resources
        self.assertEqual([self.nics['dst']], group.provider_uuids)

    def test_a_refusing_destination_gives_its_claim_back_and_the_alternate_is_claimed(self):  # noqa: E501
        self.migrate(ResizeComputeRPC(refusing={'dst'}))
        self.assertEqual(['dst', 'dst2'], self.compute.asked)
        self.assertEqual(['dst2'], [r[0] for r in self.compute.resizes])
        self.assertEqual(self.allocation_on('dst2', self.port_ids()),
                         self.resources(self.instance.uuid))
        self.assertEqual(self.before, self.resources(self.migration.uuid))
        self.assertEqual(['dst'], self.task.tried)

    def test_a_destination_too_old_for_resize_is_passed_over(self):
        self.migrate(ResizeComputeRPC(too_old={'dst'}))
        self.assertEqual(['dst2'], self.compute.asked)
        self.assertEqual(['dst2'], [r[0] for r in self.compute.resizes])

    def test_when_every_destination_refuses_the_server_stays_as_it_was(self):
        self.migrate(ResizeComputeRPC(refusing=set(DESTINATIONS)))
        self.assertEqual([], self.compute.resizes)
        stored = self.assert_as_it_was()
        self.assertIn('no host is left', stored.fault.message +
                      (stored.fault.details or ''))

    def test_no_valid_host_leaves_the_server_as_it_was(self):
        self.migrate(hosts=())
        self.assert_as_it_was()

    def test_a_cast_that_cannot_be_sent_is_undone(self):
        self.migrate(ResizeComputeRPC(
            error=messaging.MessageDeliveryFailure('down')))
        self.assert_as_it_was()

    def test_a_cold_migration_ignores_the_source(self):
        self.migrate()
        self.assertEqual(['src'], self.scheduler.specs[0].ignore_hosts)

    def test_a_host_asked_for_is_filtered_never_forced(self):
        self.migrate(host='dst2')
        [spec] = self.scheduler.specs
        self.assertEqual(('dst2', None),
                         (spec.requested_destination.host,
                          spec.force_hosts))

    def test_a_resize_asks_for_the_new_flavor_and_may_stay_when_allowed(self):
        bigger = objects.Flavor(
            self.admin, flavorid='2', name='bigger', memory_mb=1024,
            vcpus=2, root_gb=1, ephemeral_gb=0, swap=0)
        bigger.create()
        self.plane.config.config(allow_resize_to_same_host=True)
        self.migrate(flavor=bigger)
        [spec] = self.scheduler.specs
        self.assertEqual(('2', None), (spec.flavor.flavorid,
                                       spec.ignore_hosts))
        self.assertEqual(('resize', self.flavor.id, bigger.id),
                         (self.migration.migration_type,
                          self.migration.old_instance_type_id,
                          self.migration.new_instance_type_id))

    def test_a_source_compute_that_is_down_refuses_up_front(self):
        with nova_context.target_cell(self.admin,
                                      self.plane.databases.cell1) as cctxt:
            service = objects.Service.get_by_host_and_binary(
                cctxt, 'src', 'nova-lite-compute')
            service.forced_down = True
            service.save()
        self.migrate()
        self.assertEqual([], self.scheduler.specs)
        self.assert_as_it_was()


class TestEachStepFailing(MigrateTaskTestCase):
    """Each step of the task made to fail: what it claimed is given back,
    and the server is as it was."""

    def fail_at(self, failing):
        def before_step(flow, step):
            if step == failing:
                raise flows.FlowFailed('%s failed' % step)
        self.patch(flows.Flow, 'before_step', staticmethod(before_step))
        self.migrate()
        self.assertEqual([], self.compute.resizes)
        self.assert_as_it_was()

    def test_migration(self):
        self.fail_at('migration')

    def test_move_source_to_migration(self):
        self.fail_at('move_source_to_migration')

    def test_claim_destination(self):
        self.fail_at('claim_destination')

    def test_cast_resize(self):
        self.fail_at('cast_resize')


class TestDeletedWhileScheduling(MigrateTaskTestCase):

    def test_the_source_allocation_goes_back_to_nobody(self):
        migrate.MigrationTask(
            self.context, self.instance, self.flavor, None,
            test_live_migrate_task.DeletingScheduler(
                self.stored(self.instance), self.reportclient),
            ResizeComputeRPC(), self.reportclient, self.ports).execute()
        with nova_context.target_cell(self.admin,
                                      self.plane.databases.cell1) as cctxt:
            [migration] = objects.MigrationList.get_by_instance(
                cctxt, self.instance.uuid)
        self.assertEqual(({}, {}), (self.held(self.instance.uuid),
                                    self.held(migration.uuid)))
        self.assertEqual('error', migration.status)
