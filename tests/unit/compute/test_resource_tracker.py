"""The resource tracker against a real cell database and the fake driver.

The fake hypervisor has 4 vCPUs, 4096 MB of RAM and 100 GB of disk; the
host keeps 512 MB for itself.
"""

import threading

from oslo_utils import uuidutils
import fixtures
import testtools

from nova_lite.compute import resource_tracker
from nova_lite.compute import states
from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite import objects
from nova_lite.scheduler import utils as scheduler_utils
from nova_lite.virt import fake
from tests.unit import fixtures as nova_fixtures

HOST = 'compute1'
RESERVED_MB = 512

objects.register_all()


class Boom(Exception):
    pass


def make_flavor(memory_mb=1024, vcpus=1, root_gb=10, ephemeral_gb=0,
                swap=0):
    return objects.Flavor(id=1, flavorid='1', name='f', memory_mb=memory_mb,
                          vcpus=vcpus, root_gb=root_gb,
                          ephemeral_gb=ephemeral_gb, swap=swap)


class ResourceTrackerTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.config = self.useFixture(nova_fixtures.Config())
        self.useFixture(nova_fixtures.Databases())
        self.placement = self.useFixture(nova_fixtures.PlacementServer())
        self.config.config(fake_vcpus=4, fake_memory_mb=4096,
                           fake_local_gb=100, group='compute')
        self.config.config(reserved_host_memory_mb=RESERVED_MB,
                           reserved_host_disk_mb=0, reserved_host_cpus=0,
                           ram_allocation_ratio=1.0,
                           cpu_allocation_ratio=1.0,
                           disk_allocation_ratio=1.0)
        # The compute's own cell: untargeted, as on a compute host.
        self.context = nova_context.get_admin_context()
        self.driver = fake.FakeDriver(HOST)
        self.node = self.driver.nodename
        self.tracker = resource_tracker.ResourceTracker(HOST, self.driver)

    def make_instance(self, host=HOST, node=None, **flavor):
        instance = objects.Instance(
            self.context, uuid=uuidutils.generate_uuid(), project_id='demo',
            user_id='demo', vm_state=states.ACTIVE, task_state=None,
            host=host, node=node or host, flavor=make_flavor(**flavor))
        instance.create()
        return instance

    def stored_node(self):
        return objects.ComputeNode.get_by_host_and_nodename(
            self.context, HOST, self.node)

    def claim(self, instance, limits=None):
        return self.tracker.instance_claim(self.context, instance,
                                           self.node, limits)

    def spawn(self, instance, limits=None):
        """A spawn that succeeds under a claim."""
        with self.claim(instance, limits):
            pass

    def audit(self):
        return self.tracker.update_available_resource(self.context,
                                                      self.node)


class TestAudit(ResourceTrackerTestCase):

    def test_first_audit_creates_the_record_with_reserved_memory_used(self):
        self.audit()
        node = self.stored_node()
        self.assertEqual((4096, RESERVED_MB, 4096 - RESERVED_MB, 0),
                         (node.memory_mb, node.memory_mb_used,
                          node.free_ram_mb, node.running_vms))
        self.assertEqual((4, 100, 'fake'),
                         (node.vcpus, node.local_gb, node.hypervisor_type))

    def test_a_restarted_tracker_reuses_the_record(self):
        first = self.audit()
        restarted = resource_tracker.ResourceTracker(HOST, self.driver)
        second = restarted.update_available_resource(self.context, self.node)
        self.assertEqual(first.uuid, second.uuid)
        self.assertEqual(1, len(objects.ComputeNodeList.get_all(
            self.context)))

    def test_audit_counts_the_instances_on_this_host(self):
        self.make_instance()
        self.make_instance()
        self.audit()
        node = self.stored_node()
        self.assertEqual((RESERVED_MB + 2048, 2, 20),
                         (node.memory_mb_used, node.running_vms,
                          node.local_gb_used))

    def test_instance_deleted_behind_the_trackers_back_stops_counting(self):
        self.make_instance()
        doomed = self.make_instance()
        self.audit()
        doomed.destroy()
        self.audit()
        node = self.stored_node()
        self.assertEqual((RESERVED_MB + 1024, 1),
                         (node.memory_mb_used, node.running_vms))

    def test_an_instance_dropped_while_the_audit_reads_stays_dropped(self):
        # The audit read the host's instances; before it applied them the
        # instance was deleted here (its usage dropped). The snapshot must
        # not count it again: a boot right after would be refused room.
        self.make_instance()
        doomed = self.make_instance()
        self.spawn(doomed)
        read = objects.InstanceList.get_by_host_and_node

        def read_then_delete(cls, context, host, node):
            found = read(context, host, node)
            self.tracker.drop_instance(self.context, doomed, self.node)
            return found
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.objects.InstanceList.get_by_host_and_node',
            classmethod(read_then_delete)))
        self.audit()
        node = self.stored_node()
        self.assertEqual((RESERVED_MB + 1024, 1),
                         (node.memory_mb_used, node.running_vms))

    def test_a_server_dropped_before_its_record_goes_is_not_counted_again(
            self):
        # A delete here gives back what the server used, then releases its
        # ports, then destroys its record: an audit that reads the record
        # in between must not count the server again (a boot right after
        # was refused room that placement had given it).
        self.make_instance()
        doomed = self.make_instance()
        self.spawn(doomed)
        doomed.task_state = states.DELETING
        doomed.save()
        self.tracker.drop_instance(self.context, doomed, self.node,
                                   only_here=False)
        self.audit()
        self.assertEqual((RESERVED_MB + 1024, 1),
                         (self.stored_node().memory_mb_used,
                          self.stored_node().running_vms))
        doomed.destroy()
        self.audit()
        self.assertEqual(1, self.stored_node().running_vms)

    def test_a_dropped_server_whose_task_ended_here_counts_again(self):
        # The task that dropped it left it here, its task_state reset (a
        # delete that failed): counted again, as any server at rest.
        instance = self.make_instance()
        self.spawn(instance)
        instance.task_state = states.DELETING
        instance.save()
        self.tracker.drop_instance(self.context, instance, self.node)
        self.audit()
        self.assertEqual(0, self.stored_node().running_vms)
        instance.task_state = None
        instance.save()
        self.audit()
        self.assertEqual(1, self.stored_node().running_vms)

    def test_a_dropped_server_claimed_again_counts(self):
        instance = self.make_instance()
        instance.task_state = states.SPAWNING
        instance.save()
        self.spawn(instance)
        self.tracker.drop_instance(self.context, instance, self.node)
        self.spawn(instance)
        self.audit()
        self.assertEqual(1, self.stored_node().running_vms)

    def test_a_reverted_resize_forgotten_here_is_not_counted_again(self):
        # The destination forgot the server; its record names this host
        # until the source finishes the revert. An audit in between must
        # not count it again (a resize right after would find no room).
        self.make_instance()
        leaving = self.make_instance()
        self.audit()
        leaving.task_state = states.RESIZE_REVERTING
        leaving.save()
        self.tracker.forget_instance(self.context, leaving, self.node)
        self.audit()
        self.assertEqual((RESERVED_MB + 1024, 1),
                         (self.stored_node().memory_mb_used,
                          self.stored_node().running_vms))
        # The revert ends elsewhere; should the server ever be here again
        # at rest, it counts.
        leaving.task_state = None
        leaving.save()
        self.audit()
        self.assertEqual(2, self.stored_node().running_vms)

    def test_a_forgotten_server_that_stays_here_counts_again(self):
        # Its revert failed here: no longer leaving, it is counted.
        instance = self.make_instance()
        self.audit()
        self.tracker.forget_instance(self.context, instance, self.node)
        self.audit()
        self.assertEqual(1, self.stored_node().running_vms)

    def test_instances_of_other_hosts_do_not_count(self):
        self.make_instance(host='compute2')
        self.audit()
        self.assertEqual(0, self.stored_node().running_vms)

    def test_audit_keeps_an_instance_whose_claim_is_in_progress(self):
        # Its record does not name this host yet while it spawns.
        instance = self.make_instance(host=None, node=None)
        with self.claim(instance):
            self.audit()
            self.assertEqual(1, self.stored_node().running_vms)

    def test_audit_picks_up_a_changed_capacity(self):
        self.audit()
        self.config.config(fake_memory_mb=8192, group='compute')
        self.audit()
        self.assertEqual(8192 - RESERVED_MB, self.stored_node().free_ram_mb)

    def test_allocation_ratios_are_recorded_for_the_scheduler(self):
        self.config.config(ram_allocation_ratio=1.5, cpu_allocation_ratio=16)
        self.audit()
        node = self.stored_node()
        self.assertEqual((1.5, 16.0), (node.ram_allocation_ratio,
                                       node.cpu_allocation_ratio))


class TestClaim(ResourceTrackerTestCase):

    def test_claim_adds_the_instance_usage(self):
        self.audit()
        self.spawn(self.make_instance(memory_mb=1024, vcpus=2))
        node = self.stored_node()
        self.assertEqual((RESERVED_MB + 1024, 2, 1),
                         (node.memory_mb_used, node.vcpus_used,
                          node.running_vms))

    def test_claim_without_a_record_yet_creates_it(self):
        self.spawn(self.make_instance(memory_mb=1024))
        self.assertEqual(RESERVED_MB + 1024, self.stored_node().memory_mb_used)

    def test_failing_body_gives_the_resources_back(self):
        self.audit()

        def spawn_fails():
            with self.claim(self.make_instance(memory_mb=1024)):
                raise Boom()

        self.assertRaises(Boom, spawn_fails)
        node = self.stored_node()
        self.assertEqual((RESERVED_MB, 0),
                         (node.memory_mb_used, node.running_vms))

    def test_claim_over_the_physical_ram_is_refused(self):
        # 512 reserved + 4096 wanted > 4096 * 1.0
        instance = self.make_instance(memory_mb=4096)
        error = self.assertRaises(exception.ComputeResourcesUnavailable,
                                  self.spawn, instance)
        self.assertIn('memory_mb', str(error))
        self.assertEqual(RESERVED_MB, self.stored_node().memory_mb_used)

    def test_ram_allocation_ratio_raises_the_ceiling(self):
        self.config.config(ram_allocation_ratio=1.5)
        self.spawn(self.make_instance(memory_mb=4096))
        self.assertEqual(RESERVED_MB + 4096, self.stored_node().memory_mb_used)

    def test_claim_over_the_schedulers_limit_is_refused(self):
        limits = objects.SchedulerLimits(memory_mb=1024, vcpu=None,
                                         disk_gb=None)
        instance = self.make_instance(memory_mb=1024)
        self.assertRaises(exception.ComputeResourcesUnavailable,
                          self.spawn, instance, limits)

    def test_claim_over_the_vcpus_is_refused(self):
        instance = self.make_instance(vcpus=5)
        error = self.assertRaises(exception.ComputeResourcesUnavailable,
                                  self.spawn, instance)
        self.assertIn('vcpu', str(error))

    def test_claim_over_the_disk_is_refused(self):
        instance = self.make_instance(root_gb=101)
        error = self.assertRaises(exception.ComputeResourcesUnavailable,
                                  self.spawn, instance)
        self.assertIn('disk_gb', str(error))

    def test_boot_from_volume_claims_no_root_disk(self):
        instance = self.make_instance(root_gb=101)
        instance.system_metadata = {'boot_from_volume': 'True'}
        instance.save()
        self.spawn(instance)
        self.assertEqual(0, self.stored_node().local_gb_used)
        self.assertEqual(0, self.audit().local_gb_used)

    def test_successive_claims_add_up_to_the_ceiling(self):
        for _ in range(3):
            self.spawn(self.make_instance(memory_mb=1024))
        # 512 + 3 * 1024 used: 512 MB left.
        self.assertRaises(exception.ComputeResourcesUnavailable,
                          self.spawn, self.make_instance(memory_mb=1024))

    def test_drop_instance_gives_the_resources_back(self):
        instance = self.make_instance(memory_mb=1024)
        self.spawn(instance)
        self.tracker.drop_instance(self.context, instance, self.node)
        self.assertEqual(RESERVED_MB, self.stored_node().memory_mb_used)


class TestNodeSaves(ResourceTrackerTestCase):
    """The node's record is written one save at a time: changes made
    while one is in flight go with the next."""

    def _slow_saves(self):
        """Saves that wait for ``release``; the list of what each wrote
        (memory_mb_used) as it began."""
        started, release, saved = (threading.Event(), threading.Event(),
                                   [])
        real = objects.ComputeNode.save

        def save(node):
            saved.append(node.memory_mb_used)
            started.set()
            release.wait(10)
            return real(node)
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.objects.ComputeNode.save', save))
        return started, release, saved

    def test_claims_made_during_a_save_go_with_the_next_one(self):
        self.audit()
        started, release, saved = self._slow_saves()
        first = threading.Thread(target=self.spawn, args=(
            self.make_instance(memory_mb=512),))
        first.start()
        self.assertTrue(started.wait(10))
        # Three more claims while the first one's save is in flight:
        # none waits for it.
        for _ in range(3):
            self.spawn(self.make_instance(memory_mb=512))
        self.assertEqual([RESERVED_MB + 512], saved)
        release.set()
        first.join(10)
        # One save more carried the three.
        self.assertEqual([RESERVED_MB + 512, RESERVED_MB + 2048], saved)
        node = self.stored_node()
        self.assertEqual((RESERVED_MB + 2048, 4),
                         (node.memory_mb_used, node.running_vms))

    def test_an_audit_that_finds_nothing_new_writes_nothing(self):
        self.make_instance()
        self.audit()
        written = self.stored_node().updated_at
        saves = []
        real = objects.ComputeNode.save

        def save(node):
            saves.append(node.obj_what_changed())
            return real(node)
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.objects.ComputeNode.save', save))
        self.audit()
        self.assertEqual(([], written), (saves, self.stored_node().updated_at))
        # One that does find something writes what changed.
        self.make_instance(memory_mb=512)
        self.audit()
        self.assertIn('memory_mb_used', saves[0])
        self.assertNotIn('vcpus', saves[0])

    def test_a_failed_save_is_made_by_the_next_one(self):
        self.audit()
        real = objects.ComputeNode.save
        fail = [True]

        def save(node):
            if fail and fail.pop():
                raise exception.DatabaseUnavailable(url='x', reason='blink')
            return real(node)
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.objects.ComputeNode.save', save))
        # The claim goes on: placement holds the allocation, and the
        # record is advice for the scheduler.
        self.spawn(self.make_instance(memory_mb=1024))
        self.assertEqual(RESERVED_MB, self.stored_node().memory_mb_used)
        self.tracker.build_failed(self.node)
        node = self.stored_node()
        self.assertEqual((RESERVED_MB + 1024, 1),
                         (node.memory_mb_used, node.running_vms))


INSTANCE_USAGE_CASES = [
    # name, flavor, is_bfv, (vcpus, memory_mb, disk_gb)
    ('root_and_ephemeral', dict(root_gb=10, ephemeral_gb=5), False,
     (1, 1024, 15)),
    ('swap_of_one_mb_is_a_whole_gb', dict(root_gb=10, swap=1), False,
     (1, 1024, 11)),
    ('swap_of_exactly_one_gb', dict(root_gb=10, swap=1024), False,
     (1, 1024, 11)),
    ('swap_just_over_one_gb_rounds_up', dict(root_gb=10, swap=1025), False,
     (1, 1024, 12)),
    ('boot_from_volume_has_no_root_disk', dict(root_gb=10, ephemeral_gb=5),
     True, (1, 1024, 5)),
]


class TestInstanceUsage(testtools.TestCase):
    pass


def _usage_test(flavor, is_bfv, expected):
    def test(self):
        self.assertEqual(expected, scheduler_utils.instance_usage(
            make_flavor(**flavor), is_bfv))
    return test


for _name, _flavor, _is_bfv, _expected in INSTANCE_USAGE_CASES:
    setattr(TestInstanceUsage, 'test_' + _name,
            _usage_test(_flavor, _is_bfv, _expected))


class TestPlacementReports(ResourceTrackerTestCase):
    """What the tracker writes to (the real, in-process) placement."""

    def client(self):
        from nova_lite import placement_client
        return placement_client.PlacementClient(self.placement.endpoint)

    def test_audit_creates_the_provider_with_its_inventory(self):
        node = self.audit()
        provider = self.client().get_provider(node.uuid)
        self.assertEqual(self.node, provider['name'])
        inventory = self.client()._request(
            'GET', '/resource_providers/%s/inventories' % node.uuid).json()[
                'inventories']
        self.assertEqual(4, inventory['VCPU']['total'])
        self.assertEqual(RESERVED_MB, inventory['MEMORY_MB']['reserved'])
        self.assertNotIn('PCI_DEVICE', inventory)

    def test_claim_writes_the_allocation(self):
        node = self.audit()
        instance = self.make_instance(memory_mb=1024, root_gb=10)
        self.spawn(instance)
        allocations = self.client().get_allocations(instance.uuid)[
            'allocations']
        self.assertEqual({node.uuid: {'VCPU': 1, 'MEMORY_MB': 1024,
                                      'DISK_GB': 10}},
                         {rp: a['resources'] for rp, a in
                          allocations.items()})

    def test_failed_spawn_deletes_the_allocation(self):
        self.audit()
        instance = self.make_instance()

        def failing_spawn():
            with self.claim(instance):
                raise Boom()
        self.assertRaises(Boom, failing_spawn)
        self.assertEqual(
            {}, self.client().get_allocations(instance.uuid)['allocations'])

    def test_audit_deletes_allocations_of_instances_deleted_behind_it(self):
        self.audit()
        instance = self.make_instance()
        self.spawn(instance)
        instance.destroy()  # a local delete by the API
        self.audit()
        self.assertEqual(
            {}, self.client().get_allocations(instance.uuid)['allocations'])

    def scheduler_claim(self, node, consumer, memory_mb=512):
        """What the scheduler writes before the instance reaches us."""
        self.assertTrue(self.client().claim_resources(
            consumer, {'allocations': {node.uuid: {'resources': {
                'VCPU': 1, 'MEMORY_MB': memory_mb, 'DISK_GB': 10}}}},
            'demo', 'demo'))

    def test_audit_keeps_a_claim_whose_instance_is_not_created_yet(self):
        node = self.audit()
        consumer = uuidutils.generate_uuid()
        self.scheduler_claim(node, consumer)
        self.audit()
        self.assertEqual([node.uuid], list(self.client().get_allocations(
            consumer)['allocations']))

    def test_audit_keeps_a_claim_whose_instance_has_no_host_yet(self):
        node = self.audit()
        instance = self.make_instance(host=None)
        self.scheduler_claim(node, instance.uuid)
        self.audit()
        self.assertEqual([node.uuid], list(self.client().get_allocations(
            instance.uuid)['allocations']))

    def test_audit_deletes_what_a_server_in_error_on_no_host_holds(self):
        # A build that failed here while placement was down could not
        # give its allocation back; a server in ERROR on no host holds
        # nothing.
        node = self.audit()
        instance = self.make_instance(host=None)
        instance.vm_state = states.ERROR
        instance.task_state = None
        instance.save()
        self.scheduler_claim(node, instance.uuid)
        self.audit()
        self.assertEqual(
            {}, self.client().get_allocations(instance.uuid)['allocations'])

    def migration(self, status):
        """A cold migration's record (its uuid a consumer, as a move's
        source side is) in ``status``."""
        server = self.make_instance(host='elsewhere')
        migration = objects.Migration(
            self.context, instance_uuid=server.uuid,
            migration_type='migration', status=status,
            source_compute=HOST, source_node=self.node,
            dest_compute='elsewhere', dest_node='elsewhere')
        migration.create()
        return migration

    def test_audit_reads_the_holders_of_stale_allocations_in_one_call(self):
        # A burst of builds queued for this host: each is an allocation
        # whose instance is not listed here yet. Among them, the source
        # sides of two moves: one still going, one over.
        self.config.config(cpu_allocation_ratio=2.0)
        node = self.audit()
        on_their_way = [self.make_instance(host=None)]
        failed = self.make_instance(host=None)
        failed.vm_state = states.ERROR
        failed.task_state = None
        failed.save()
        deleted = self.make_instance(host=None)
        not_created = [uuidutils.generate_uuid() for _ in range(2)]
        moving = self.migration('migrating')
        moved = self.migration('confirmed')
        consumers = [i.uuid for i in on_their_way] + [
            failed.uuid, deleted.uuid, moving.uuid, moved.uuid] + not_created
        for consumer in consumers:
            self.scheduler_claim(node, consumer, memory_mb=64)
        deleted.destroy()
        reads = []
        for owner, name in ((objects.Instance, 'get_by_uuid'),
                            (objects.InstanceList, 'get_by_filters'),
                            (objects.Migration, 'get_by_uuid'),
                            (objects.MigrationList, 'get_by_uuids')):
            real = getattr(owner, name)

            def counted(*args, real=real, owner=owner, name=name,
                        **kwargs):
                reads.append('%s.%s' % (owner.__name__, name))
                return real(*args, **kwargs)
            self.useFixture(fixtures.MockPatchObject(owner, name, counted))
        self.audit()
        # The host's list, one read of the stale consumers' instances and
        # one of the migrations among those with none.
        self.assertEqual(['InstanceList.get_by_filters',
                          'InstanceList.get_by_filters',
                          'MigrationList.get_by_uuids'], reads)
        held = {consumer: list(self.client().get_allocations(consumer)[
            'allocations']) for consumer in consumers}
        self.assertEqual(
            dict({i.uuid: [node.uuid] for i in on_their_way},
                 **{failed.uuid: [], deleted.uuid: [],
                    moving.uuid: [node.uuid], moved.uuid: []},
                 **{uuid: [node.uuid] for uuid in not_created}), held)

    def test_claim_keeps_the_schedulers_identical_allocation(self):
        node = self.audit()
        instance = self.make_instance(memory_mb=512, root_gb=10)
        self.scheduler_claim(node, instance.uuid)
        before = self.client().get_allocations(instance.uuid)
        self.spawn(instance)
        # Same amounts: not written again (the consumer generation would
        # have moved on).
        self.assertEqual(before, self.client().get_allocations(
            instance.uuid))

    def test_claim_corrects_a_scheduler_allocation_that_differs(self):
        node = self.audit()
        instance = self.make_instance(memory_mb=1024, root_gb=10)
        self.scheduler_claim(node, instance.uuid, memory_mb=512)
        self.spawn(instance)
        self.assertEqual({node.uuid: {'VCPU': 1, 'MEMORY_MB': 1024,
                                      'DISK_GB': 10}},
                         {rp: a['resources'] for rp, a in
                          self.client().get_allocations(instance.uuid)[
                              'allocations'].items()})

    def requests_of_a_claim(self, instance, claimed):
        """The placement requests of a claim told what the scheduler
        claimed, as (method, path)."""
        sent = []
        real = self.tracker.reportclient._request

        def request(method, path, *args, **kwargs):
            sent.append((method, path))
            return real(method, path, *args, **kwargs)
        self.tracker.reportclient._request = request
        self.addCleanup(setattr, self.tracker.reportclient, '_request', real)
        with self.tracker.claiming(instance.uuid):
            self.tracker.claim(self.context, instance, self.node,
                               claimed=claimed)
        return sent

    def test_a_claim_the_scheduler_made_alike_is_not_read_back(self):
        node = self.audit()
        instance = self.make_instance(memory_mb=512, root_gb=10)
        self.scheduler_claim(node, instance.uuid)
        before = self.client().get_allocations(instance.uuid)
        self.assertEqual([], self.requests_of_a_claim(
            instance, {node.uuid: {'resources': {
                'VCPU': 1, 'MEMORY_MB': 512, 'DISK_GB': 10}}}))
        self.assertEqual(before, self.client().get_allocations(
            instance.uuid))

    def test_a_claim_unlike_the_schedulers_is_written(self):
        node = self.audit()
        instance = self.make_instance(memory_mb=1024, root_gb=10)
        self.scheduler_claim(node, instance.uuid, memory_mb=512)
        sent = self.requests_of_a_claim(instance, {node.uuid: {
            'resources': {'VCPU': 1, 'MEMORY_MB': 512, 'DISK_GB': 10}}})
        self.assertIn(('PUT', '/allocations/%s' % instance.uuid), sent)
        self.assertEqual({node.uuid: {'VCPU': 1, 'MEMORY_MB': 1024,
                                      'DISK_GB': 10}},
                         {rp: a['resources'] for rp, a in
                          self.client().get_allocations(instance.uuid)[
                              'allocations'].items()})

    def test_audit_writes_missing_allocations(self):
        node = self.audit()
        instance = self.make_instance(memory_mb=256)
        self.spawn(instance)
        self.client().delete_allocations(instance.uuid)
        self.audit()
        self.assertIn(node.uuid, self.client().get_allocations(
            instance.uuid)['allocations'])

    def test_audit_leaves_a_server_in_a_task_to_its_operation(self):
        # A build that just failed here holds no allocation while it waits
        # for its reschedule: healing it would take the alternate's room.
        self.audit()
        instance = self.make_instance(memory_mb=256)
        instance.task_state = states.SPAWNING
        instance.save()
        self.audit()
        self.assertEqual({}, self.client().get_allocations(
            instance.uuid)['allocations'])

    def test_claim_fails_when_placement_stays_unreachable(self):
        self.config.config(outage_wait=0)
        self.audit()
        from nova_lite import placement_client
        self.tracker.reportclient = placement_client.PlacementClient(
            'http://127.0.0.1:9')  # nothing listens on the discard port
        instance = self.make_instance()
        error = self.assertRaises(exception.ComputeResourcesUnavailable,
                                  self.spawn, instance)
        self.assertIn('placement', str(error))
        self.assertNotIn(instance.uuid, self.tracker.tracked)

    def test_a_placement_blink_delays_the_claim(self):
        self.audit()
        from nova_lite import placement_client
        pauses = []
        self.useFixture(fixtures.MonkeyPatch('nova_lite.outage.sleep',
                                             pauses.append))
        real = placement_client.PlacementClient._request
        failures = [1]

        def blinking(client, method, path, *args, **kwargs):
            if path.startswith('/allocations/') and failures:
                failures.pop()
                raise placement_client.PlacementUnavailable(reason='blink')
            return real(client, method, path, *args, **kwargs)
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.placement_client.PlacementClient._request',
            blinking))
        instance = self.make_instance()
        self.spawn(instance)
        self.assertEqual([1], pauses)
        self.assertIn(instance.uuid, self.tracker.tracked)
        self.assertNotEqual({}, self.client().get_allocations(
            instance.uuid)['allocations'])


class TestReportClient(ResourceTrackerTestCase):

    def test_removing_one_provider_keeps_the_others(self):
        from nova_lite import placement_client
        client = placement_client.PlacementClient(self.placement.endpoint)
        node = self.audit()
        other = client.ensure_resource_provider(uuidutils.generate_uuid(),
                                                'shared')['uuid']
        client.set_inventory(other, {'DISK_GB': {'total': 100}})
        consumer = uuidutils.generate_uuid()
        client.put_allocations(consumer, {
            node.uuid: {'resources': {'VCPU': 1}},
            other: {'resources': {'DISK_GB': 5}}}, 'p', 'u')
        client.remove_provider_from_consumer(consumer, node.uuid)
        allocations = client.get_allocations(consumer)['allocations']
        self.assertEqual({other: {'DISK_GB': 5}},
                         {rp: a['resources'] for rp, a in
                          allocations.items()})
        # Nothing of that provider left: a second removal changes nothing.
        client.remove_provider_from_consumer(consumer, node.uuid)
        self.assertEqual([other], list(client.get_allocations(consumer)[
            'allocations']))

    def test_a_claim_written_before_the_removal_stays(self):
        # A claim written between the read and the removal (a retried
        # scheduler call adopting it) is someone else's now: the removal
        # is refused by the consumer generation and the claim stays.
        from nova_lite import placement_client
        client = placement_client.PlacementClient(self.placement.endpoint)
        node = self.audit()
        consumer = uuidutils.generate_uuid()
        client.put_allocations(consumer, {
            node.uuid: {'resources': {'VCPU': 1}}}, 'p', 'u')
        real_give_back = client.give_back_claim

        def adopted_first(uuid, generation, project_id, user_id):
            client.put_allocations(uuid, {
                node.uuid: {'resources': {'VCPU': 2}}}, 'p', 'u')
            return real_give_back(uuid, generation, project_id, user_id)
        client.give_back_claim = adopted_first
        self.assertFalse(client.delete_allocations(consumer))
        self.assertEqual({node.uuid: {'VCPU': 2}}, {
            rp: a['resources'] for rp, a in client.get_allocations(
                consumer)['allocations'].items()})

    def test_a_removal_if_on_a_node_leaves_a_claim_elsewhere(self):
        # The first owner of a build taken over and scheduled elsewhere
        # gives back its claim on its node: the new claim stays.
        from nova_lite import placement_client
        client = placement_client.PlacementClient(self.placement.endpoint)
        node = self.audit()
        elsewhere = client.ensure_resource_provider(
            uuidutils.generate_uuid(), 'elsewhere')['uuid']
        client.set_inventory(elsewhere, {'VCPU': {'total': 4}})
        consumer = uuidutils.generate_uuid()
        client.put_allocations(consumer, {
            elsewhere: {'resources': {'VCPU': 1}}}, 'p', 'u')
        self.assertFalse(client.delete_allocations(consumer, if_on=node.uuid))
        self.assertEqual([elsewhere], list(client.get_allocations(
            consumer)['allocations']))
        self.assertTrue(client.delete_allocations(consumer,
                                                  if_on=elsewhere))
        self.assertEqual({}, client.get_allocations(consumer)['allocations'])

    def test_dropping_an_instance_leaves_its_claim_on_another_node(self):
        from nova_lite import placement_client
        client = placement_client.PlacementClient(self.placement.endpoint)
        self.audit()
        elsewhere = client.ensure_resource_provider(
            uuidutils.generate_uuid(), 'elsewhere')['uuid']
        client.set_inventory(elsewhere, {'VCPU': {'total': 4}})
        instance = self.make_instance(memory_mb=256)
        client.put_allocations(instance.uuid, {
            elsewhere: {'resources': {'VCPU': 1}}}, 'p', 'u')
        self.tracker.drop_instance(self.context, instance, self.node)
        self.assertEqual([elsewhere], list(client.get_allocations(
            instance.uuid)['allocations']))
