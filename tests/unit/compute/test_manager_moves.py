"""The compute manager's side of moves and of builds with ports:
evacuation to this host (and the clean-up when the source comes back),
shelve / offload / unshelve, and binding a build's ports with the
providers of its allocation.

A real cell database, real placement (the app, in this process) and the
fake driver; the port service is an in-memory stand-in and the conductor
RPC client a recorder. The manager's private flows are run synchronously
(the RPC methods only hand them to a thread pool).

Two hosts: ``src`` and ``dst``; each compute node provider has a
bandwidth provider as its child. The server has one port with a minimum
bandwidth resource request.
"""

import datetime
import time
from unittest import mock

import fixtures
from oslo_serialization import jsonutils
from oslo_utils import timeutils
from oslo_utils import uuidutils
import testtools

from nova_lite.compute.flows import build
from nova_lite.compute.flows import evacuate
from nova_lite.compute.flows import shelve
from nova_lite.compute import instance_actions
from nova_lite.compute import manager as compute_manager
from nova_lite.compute import resource_tracker
from nova_lite.compute import states
from nova_lite import context as nova_context
from nova_lite import objects
from nova_lite import placement_client
from nova_lite.virt import fake
from tests.unit import fixtures as nova_fixtures
from tests.unit.network import test_client_helpers as port_fakes
from tests.unit.objects import test_migration_and_groups as db_fixtures
from tests.unit.scheduler import test_report_groups as placement_fixtures

EGRESS = port_fakes.EGRESS
FLAVOR_USAGE = {'VCPU': 1, 'MEMORY_MB': 512, 'DISK_GB': 1}


class RecordingConductor:
    """The conductor RPC client: records the reschedules it is sent."""

    def __init__(self):
        self.reschedules = []

    def build_instances(self, context, instances, request_spec, host_lists,
                        image=None):
        self.reschedules.append(([i.uuid for i in instances], request_spec,
                                 host_lists))


class PowerOffFails(fake.FakeDriver):

    def power_off(self, instance):
        raise fake.SpawnFailed(instance_uuid=instance.uuid, host=self.host,
                               reason='the hypervisor hangs')


def make_flavor():
    return objects.Flavor(id=1, flavorid='1', name='small', memory_mb=512,
                          vcpus=1, root_gb=1, ephemeral_gb=0, swap=0)


class ManagerTestCase(testtools.TestCase):

    host = 'dst'

    def setUp(self):
        super().setUp()
        self.logs = self.useFixture(fixtures.FakeLogger())
        self.config = self.useFixture(nova_fixtures.Config())
        self.databases = self.useFixture(db_fixtures.MigratedDatabases())
        self.useFixture(nova_fixtures.FakeRPC())
        self.placement = self.useFixture(
            placement_fixtures.InProcessPlacement())
        self.config.config(fake_vcpus=4, fake_memory_mb=4096,
                           fake_local_gb=100, group='compute')
        self.config.config(reserved_host_memory_mb=0,
                           reserved_host_disk_mb=0, reserved_host_cpus=0,
                           ram_allocation_ratio=1.0,
                           cpu_allocation_ratio=1.0,
                           disk_allocation_ratio=1.0)
        # As on a compute host: untargeted, its own cell's database.
        self.context = nova_context.get_admin_context()
        self.reportclient = self.placement.client()
        self.ports = port_fakes.FakePortService()
        self.nodes, self.nics = {}, {}
        self.manager = self.make_manager(self.host)
        for host in ('src', 'dst'):
            self.nodes[host], self.nics[host] = self.compute_node(host)

    def make_manager(self, host, driver=None):
        manager = compute_manager.ComputeManager(
            host, driver or fake.FakeDriver(host))
        self.addCleanup(manager.cleanup_host)
        self.placement.wire(manager.rt.reportclient)
        manager.ports = self.ports
        manager.conductor_api = self.conductor = RecordingConductor()
        return manager

    def compute_node(self, host):
        """The node's record and provider (as this host's resource
        tracker reports it, or by hand for the other host) and a
        bandwidth provider under it."""
        if host == self.manager.host:
            node = self.manager.rt.update_available_resource(
                self.context, host).uuid
        else:
            node = uuidutils.generate_uuid()
            # Its record too: the audit maps servers' hosts to providers
            # through it.
            objects.ComputeNode(
                self.context, uuid=node, host=host, hypervisor_hostname=host,
                hypervisor_type='fake', hypervisor_version=1, vcpus=4,
                memory_mb=4096, local_gb=100, vcpus_used=0,
                memory_mb_used=0, local_gb_used=0, free_ram_mb=4096,
                free_disk_gb=100, running_vms=0, current_workload=0,
                cpu_allocation_ratio=1.0, ram_allocation_ratio=1.0,
                disk_allocation_ratio=1.0).create()
            self.reportclient.ensure_resource_provider(node, host)
            self.reportclient.set_inventory(node, {
                'VCPU': {'total': 4}, 'MEMORY_MB': {'total': 4096},
                'DISK_GB': {'total': 100}})
        nic = uuidutils.generate_uuid()
        self.reportclient.ensure_resource_provider(nic, host + ':physnet0',
                                                   node)
        self.reportclient.set_inventory(nic, {EGRESS: {'total': 10000}})
        return node, nic

    # -- data -----------------------------------------------------------------

    def make_instance(self, vm_state=states.ACTIVE, task_state=None,
                      host=None, display_name='vm', **kwargs):
        instance = objects.Instance(
            self.context, uuid=uuidutils.generate_uuid(), project_id='p',
            user_id='u', display_name=display_name, vm_state=vm_state,
            task_state=task_state, power_state=states.RUNNING, host=host,
            node=host, flavor=make_flavor(), **kwargs)
        instance.create()
        objects.InstanceMapping(
            self.context, instance_uuid=instance.uuid, project_id='p',
            user_id='u', cell_mapping=self.databases.cell1).create()
        return instance

    def bandwidth_port(self, instance, host=None):
        return self.ports.add(port_fakes.port(
            device_id=instance.uuid, project_id=instance.project_id,
            host=host, egress=100,
            profile={'allocation': self.nics[host]} if host else None))

    def allocation_on(self, host, with_port=True):
        allocation = {self.nodes[host]: dict(FLAVOR_USAGE)}
        if with_port:
            allocation[self.nics[host]] = {EGRESS: 100}
        return allocation

    def allocate(self, consumer, allocation):
        self.reportclient.put_allocations(
            consumer, {rp: {'resources': r} for rp, r in allocation.items()},
            'p', 'u')

    def resources(self, consumer):
        return {rp: a['resources'] for rp, a in self.reportclient
                .get_allocations(consumer)['allocations'].items()}

    def group(self, port, host=None):
        group = objects.RequestGroup.from_port(port)
        if host is not None:
            group.provider_uuids = [self.nics[host]]
        return group

    def selection(self, host='dst', mappings=None):
        return objects.Selection(
            compute_node_uuid=self.nodes[host], service_host=host,
            nodename=host, cell_uuid=self.databases.cell1.uuid,
            limits=objects.SchedulerLimits(),
            allocation_request=jsonutils.dumps({
                'allocations': {rp: {'resources': r} for rp, r in
                                self.allocation_on(host).items()},
                'mappings': mappings or {}}))

    def stored(self, instance):
        return objects.Instance.get_by_uuid(self.context, instance.uuid,
                                            expected_attrs=['fault'])

    def binding(self, port):
        stored = self.ports.ports[port['id']]
        return stored['binding:host_id'], stored['binding:profile']

    def guests(self, manager=None):
        return (manager or self.manager).driver.list_instance_uuids()

    def node_saves_during(self, run):
        """How often the node's record was saved on its own (not with an
        instance's save) while ``run()`` ran and for a moment after,
        within which a claim's write-soon would have come
        (WRITE_SOON_SECONDS made 0.05); and ``dst``'s record then."""
        self.useFixture(fixtures.MockPatchObject(
            resource_tracker, 'WRITE_SOON_SECONDS', 0.05))
        with mock.patch.object(objects.ComputeNode, 'save', autospec=True,
                               side_effect=objects.ComputeNode.save) as saves:
            run()
            time.sleep(0.2)
        return saves.call_count, objects.ComputeNode.get_by_host_and_nodename(
            self.context, 'dst', 'dst')


# -- evacuation to this host --------------------------------------------------

class EvacuateTestCase(ManagerTestCase):
    """What the conductor hands the destination: the server still on its
    source (task rebuilding), the source allocation held by the
    migration, the destination claimed for the server."""

    def setUp(self):
        super().setUp()
        self.instance = self.make_instance(task_state=states.REBUILDING,
                                           host='src',
                                           display_name='evacuee')
        self.port = self.bandwidth_port(self.instance, host='src')
        self.migration = objects.Migration(
            self.context, instance_uuid=self.instance.uuid,
            migration_type='evacuation', status='pre-migrating',
            source_compute='src', source_node='src', dest_compute='dst',
            dest_node='dst', dest_host='dst')
        self.migration.create()
        self.allocate(self.migration.uuid, self.allocation_on('src'))
        self.allocate(self.instance.uuid, self.allocation_on('dst'))
        self.spec = objects.RequestSpec(
            instance_uuid=self.instance.uuid, flavor=make_flavor(),
            requested_resources=[self.group(self.port, 'dst')])

    def evacuate(self, spec=None):
        evacuate.evacuate(self.manager, self.context, self.instance, None,
                          self.migration, self.selection(),
                          spec or self.spec)

    def stored_migration(self):
        return objects.Migration.get_by_uuid(self.context,
                                             self.migration.uuid)


class TestEvacuate(EvacuateTestCase):

    def test_the_server_is_active_on_this_host(self):
        self.evacuate()
        stored = self.stored(self.instance)
        self.assertEqual((states.ACTIVE, None, 'dst', 'dst'),
                         (stored.vm_state, stored.task_state, stored.host,
                          stored.node))
        self.assertEqual([self.instance.uuid], self.guests())

    def test_the_migration_is_done(self):
        self.evacuate()
        self.assertEqual('done', self.stored_migration().status)

    def test_the_port_is_bound_here_with_this_hosts_provider(self):
        self.evacuate()
        self.assertEqual(('dst', {'allocation': self.nics['dst']}),
                         self.binding(self.port))

    def test_the_server_holds_this_host_and_the_migration_the_source(self):
        self.evacuate()
        self.assertEqual(
            (self.allocation_on('dst'), self.allocation_on('src')),
            (self.resources(self.instance.uuid),
             self.resources(self.migration.uuid)))

    def test_a_stopped_server_is_stopped_again(self):
        self.instance.vm_state = states.STOPPED
        self.instance.save()
        self.evacuate()
        stored = self.stored(self.instance)
        self.assertEqual((states.STOPPED, states.SHUTDOWN),
                         (stored.vm_state, stored.power_state))

    def test_its_claim_goes_to_the_node_with_its_last_save(self):
        # An evacuation quicker than WRITE_SOON_SECONDS: the node's record
        # is not saved on its own; its claim and the server ACTIVE here
        # go with the save that ends it.
        saves, node = self.node_saves_during(self.evacuate)
        self.assertEqual((0, '0', '1', 1),
                         (saves, node.stats['io_workload'],
                          node.stats['num_vm_active'], node.vcpus_used))


class TestEvacuateLateOrRepeated(EvacuateTestCase):
    """An evacuation cast that arrives again after it was done, or after
    a takeover undid it, touches nothing: not the server running here,
    its allocation, its port or the migration."""

    def assertStillEvacuatedHere(self):
        stored = self.stored(self.instance)
        self.assertEqual((states.ACTIVE, None, 'dst'),
                         (stored.vm_state, stored.task_state, stored.host))
        self.assertEqual([self.instance.uuid], self.guests())
        self.assertEqual(('dst', {'allocation': self.nics['dst']}),
                         self.binding(self.port))
        self.assertEqual(
            (self.allocation_on('dst'), self.allocation_on('src')),
            (self.resources(self.instance.uuid),
             self.resources(self.migration.uuid)))
        self.assertEqual('done', self.stored_migration().status)

    def test_a_repeated_evacuation_leaves_the_evacuated_server(self):
        self.evacuate()
        self.evacuate()
        self.assertStillEvacuatedHere()

    def test_a_repeat_arriving_while_the_task_is_still_set_is_left(self):
        self.evacuate()
        # Its task as the message carries it; the migration says done.
        self.instance.task_state = states.REBUILDING
        self.evacuate()
        self.assertStillEvacuatedHere()

    def test_an_evacuation_whose_migration_failed_touches_nothing(self):
        self.migration.status = 'failed'
        self.migration.save()
        self.evacuate()
        stored = self.stored(self.instance)
        self.assertEqual(('src', states.REBUILDING),
                         (stored.host, stored.task_state))
        self.assertEqual([], self.guests())
        self.assertEqual(self.allocation_on('dst'),
                         self.resources(self.instance.uuid))


class TestEvacuateFailure(EvacuateTestCase):

    def fail_spawn(self):
        self.config.config(fake_fail_spawn_for=['evacuee'], group='compute')
        self.evacuate()

    def test_the_migration_is_failed(self):
        self.fail_spawn()
        self.assertEqual('failed', self.stored_migration().status)

    def test_the_source_allocation_goes_back_to_the_server(self):
        self.fail_spawn()
        self.assertEqual(({}, self.allocation_on('src')),
                         (self.resources(self.migration.uuid),
                          self.resources(self.instance.uuid)))

    def test_the_port_is_bound_to_the_source_again(self):
        self.fail_spawn()
        self.assertEqual(('src', {'allocation': self.nics['src']}),
                         self.binding(self.port))

    def test_the_server_is_error_on_its_source_with_a_fault(self):
        self.fail_spawn()
        stored = self.stored(self.instance)
        self.assertEqual((states.ERROR, None, 'src', 'src'),
                         (stored.vm_state, stored.task_state, stored.host,
                          stored.node))
        self.assertIn('failure injected', stored.fault.message)
        self.assertEqual([], self.guests())

    def test_a_port_that_cannot_bind_here_fails_it_the_same_way(self):
        self.ports.unbindable_hosts.add('dst')
        self.evacuate()
        self.assertEqual(
            ('failed', ('src', {'allocation': self.nics['src']}),
             self.allocation_on('src')),
            (self.stored_migration().status, self.binding(self.port),
             self.resources(self.instance.uuid)))

    def test_a_group_without_a_provider_fails_before_any_binding(self):
        spec = objects.RequestSpec(
            instance_uuid=self.instance.uuid, flavor=make_flavor(),
            requested_resources=[self.group(self.port)])
        self.evacuate(spec)
        self.assertEqual([], [attributes for _port, attributes in
                              self.ports.writes()
                              if attributes.get('binding:host_id') == 'dst'])
        self.assertEqual(
            ('failed', ('src', {'allocation': self.nics['src']}),
             self.allocation_on('src')),
            (self.stored_migration().status, self.binding(self.port),
             self.resources(self.instance.uuid)))


class TestEvacuationOfADeletedServer(EvacuateTestCase):
    """The server is deleted (locally: its source is down) while it is
    evacuated here: nothing of it may stay anywhere."""

    def delete_during_spawn(self):
        deleted = self.stored(self.instance)
        real_spawn = self.manager.driver.spawn

        def spawn_then_delete(context, instance, image_meta=None):
            real_spawn(context, instance, image_meta)
            deleted.destroy()
        self.manager.driver.spawn = spawn_then_delete
        self.evacuate()

    def test_no_guest_and_no_allocation_is_left(self):
        self.delete_during_spawn()
        self.assertEqual([], self.guests())
        self.assertEqual(({}, {}),
                         (self.resources(self.instance.uuid),
                          self.resources(self.migration.uuid)))
        self.assertEqual('failed', self.stored_migration().status)

    def test_its_port_is_released(self):
        self.delete_during_spawn()
        port = self.ports.ports[self.port['id']]
        self.assertEqual(('', None), (port['device_id'],
                                      port['binding:host_id'] or None))

    def test_a_delete_before_the_claim_leaves_nothing_either(self):
        self.stored(self.instance).destroy()
        self.evacuate()
        self.assertEqual(({}, {}),
                         (self.resources(self.instance.uuid),
                          self.resources(self.migration.uuid)))

    def test_a_delete_as_the_source_side_comes_back_leaves_nothing(self):
        # The delete lands after the undo looked for the server and
        # before it moved the migration's allocation back.
        deleted = self.stored(self.instance)
        reportclient = self.manager.rt.reportclient
        move = reportclient.move_allocations

        def deleted_first(source, target):
            if target == deleted.uuid:
                reportclient.delete_allocations(deleted.uuid)
                deleted.destroy()
            return move(source, target)
        reportclient.move_allocations = deleted_first
        self.config.config(fake_fail_spawn_for=['evacuee'], group='compute')
        self.evacuate()
        self.assertEqual(({}, {}),
                         (self.resources(self.instance.uuid),
                          self.resources(self.migration.uuid)))
        self.assertEqual('failed', self.stored_migration().status)


class TestDestroyEvacuatedInstances(ManagerTestCase):
    """The source compute comes back after its servers were evacuated."""

    host = 'src'

    def evacuated(self, status='done', moved=True):
        instance = self.make_instance(host='dst' if moved else 'src')
        port = self.bandwidth_port(instance, host='dst' if moved else 'src')
        migration = objects.Migration(
            self.context, instance_uuid=instance.uuid,
            migration_type='evacuation', status=status,
            source_compute='src', source_node='src', dest_compute='dst')
        migration.create()
        self.allocate(migration.uuid, self.allocation_on('src'))
        self.manager.driver.spawn(self.context, instance)
        return instance, port, migration

    def status_of(self, migration):
        return objects.Migration.get_by_uuid(self.context,
                                             migration.uuid).status

    def test_the_migrations_allocation_on_this_host_is_deleted(self):
        _instance, _port, migration = self.evacuated()
        evacuate.destroy_evacuated_instances(self.manager, self.context)
        self.assertEqual({}, self.resources(migration.uuid))

    def test_a_done_evacuation_is_completed(self):
        _instance, _port, migration = self.evacuated()
        evacuate.destroy_evacuated_instances(self.manager, self.context)
        self.assertEqual('completed', self.status_of(migration))

    def test_the_guest_left_here_is_destroyed(self):
        self.evacuated()
        evacuate.destroy_evacuated_instances(self.manager, self.context)
        self.assertEqual([], self.guests())

    def test_the_ports_are_not_touched(self):
        _instance, port, _migration = self.evacuated()
        evacuate.destroy_evacuated_instances(self.manager, self.context)
        self.assertEqual([], self.ports.writes())
        self.assertEqual(('dst', {'allocation': self.nics['dst']}),
                         self.binding(port))

    def test_an_evacuation_that_has_not_moved_the_server_is_left(self):
        instance, _port, migration = self.evacuated(status='pre-migrating',
                                                    moved=False)
        evacuate.destroy_evacuated_instances(self.manager, self.context)
        self.assertEqual(('pre-migrating', self.allocation_on('src'),
                          [instance.uuid]),
                         (self.status_of(migration),
                          self.resources(migration.uuid), self.guests()))

    def test_the_evacuation_of_a_server_deleted_since_is_completed(self):
        instance, _port, migration = self.evacuated(status='pre-migrating')
        instance.destroy()
        evacuate.destroy_evacuated_instances(self.manager, self.context)
        self.assertEqual(('completed', {}),
                         (self.status_of(migration),
                          self.resources(migration.uuid)))

    def test_unreachable_placement_leaves_it_for_the_next_start(self):
        _instance, _port, migration = self.evacuated()
        self.manager.rt.reportclient = placement_client.PlacementClient(
            endpoint='http://127.0.0.1:1')
        evacuate.destroy_evacuated_instances(self.manager, self.context)
        self.assertEqual(('done', self.allocation_on('src')),
                         (self.status_of(migration),
                          self.resources(migration.uuid)))
        self.assertIn('retried at the next start', self.logs.output)


# -- shelve, offload, unshelve ------------------------------------------------

class ShelveTestCase(ManagerTestCase):

    def setUp(self):
        super().setUp()
        self.instance = self.make_instance(task_state=states.SHELVING,
                                           host='dst')
        self.port = self.bandwidth_port(self.instance, host='dst')
        self.allocate(self.instance.uuid, self.allocation_on('dst'))
        self.manager.driver.spawn(self.context, self.instance)

    def shelve(self, offload_time):
        self.config.config(shelved_offload_time=offload_time,
                           group='compute')
        shelve.shelve(self.manager, self.context, self.instance, 'snapshot-1')

    def assertOffloaded(self):
        stored = self.stored(self.instance)
        self.assertEqual((states.SHELVED_OFFLOADED, None, None, None),
                         (stored.vm_state, stored.task_state, stored.host,
                          stored.node))
        self.assertEqual({}, self.resources(self.instance.uuid))
        self.assertEqual((None, {}), self.binding(self.port))
        self.assertEqual(self.instance.uuid,
                         self.ports.ports[self.port['id']]['device_id'])
        self.assertEqual([], self.guests())


class TestShelve(ShelveTestCase):

    def test_shelved_it_keeps_its_host_and_allocation(self):
        self.shelve(-1)
        stored = self.stored(self.instance)
        self.assertEqual(
            (states.SHELVED, None, states.SHUTDOWN, 'dst'),
            (stored.vm_state, stored.task_state, stored.power_state,
             stored.host))
        self.assertEqual(self.allocation_on('dst'),
                         self.resources(self.instance.uuid))

    def test_the_snapshot_and_when_it_was_shelved_are_kept(self):
        self.shelve(-1)
        kept = self.stored(self.instance).system_metadata
        self.assertEqual(('snapshot-1', 'dst'),
                         (kept.get('shelved_image_id'),
                          kept.get('shelved_host')))
        self.assertIn('shelved_at', kept)

    def test_with_an_offload_time_of_0_it_is_offloaded_at_once(self):
        self.shelve(0)
        self.assertOffloaded()

    def test_a_power_off_failure_leaves_it_as_it_was_with_a_fault(self):
        manager = self.make_manager('dst', PowerOffFails('dst'))
        shelve.shelve(manager, self.context, self.instance, 'snapshot-1')
        stored = self.stored(self.instance)
        self.assertEqual((states.ACTIVE, None),
                         (stored.vm_state, stored.task_state))
        self.assertIn('the hypervisor hangs', stored.fault.message)


class TestOffload(ShelveTestCase):

    def shelved(self, since_seconds, task_state=None):
        self.instance.vm_state = states.SHELVED
        self.instance.task_state = task_state
        self.instance.system_metadata = {
            'shelved_image_id': 'snapshot-1', 'shelved_host': 'dst',
            'shelved_at': (timeutils.utcnow() - datetime.timedelta(
                seconds=since_seconds)).isoformat()}
        self.instance.save()

    def test_shelve_offload_frees_the_host_but_keeps_the_ports(self):
        self.shelved(0, task_state=states.SHELVING_OFFLOADING)
        shelve.shelve_offload(self.manager, self.context, self.instance)
        self.assertOffloaded()

    def test_the_periodic_task_offloads_what_was_shelved_long_enough(self):
        self.config.config(shelved_offload_time=60, group='compute')
        self.shelved(120)
        self.manager.offload_shelved_instances()
        self.assertOffloaded()

    def test_the_periodic_task_leaves_a_recently_shelved_server(self):
        self.config.config(shelved_offload_time=60, group='compute')
        self.shelved(10)
        self.manager.offload_shelved_instances()
        self.assertEqual(('dst', states.SHELVED),
                         (self.stored(self.instance).host,
                          self.stored(self.instance).vm_state))

    def test_the_periodic_task_leaves_a_server_in_a_task(self):
        self.config.config(shelved_offload_time=60, group='compute')
        self.shelved(120, task_state=states.UNSHELVING)
        self.manager.offload_shelved_instances()
        self.assertEqual('dst', self.stored(self.instance).host)

    def test_never_offloading_makes_the_periodic_task_do_nothing(self):
        self.config.config(shelved_offload_time=-1, group='compute')
        self.shelved(10 ** 6)
        self.manager.offload_shelved_instances()
        self.assertEqual('dst', self.stored(self.instance).host)


class TestUnshelveOnItsHost(ShelveTestCase):

    def test_a_shelved_server_is_powered_on_where_it_is(self):
        self.shelve(-1)
        self.instance = self.stored(self.instance)
        self.instance.task_state = states.UNSHELVING
        self.instance.save()
        shelve.unshelve(self.manager, self.context, self.instance, None, None,
                        None)
        stored = self.stored(self.instance)
        self.assertEqual((states.ACTIVE, None, states.RUNNING, 'dst'),
                         (stored.vm_state, stored.task_state,
                          stored.power_state, stored.host))
        self.assertNotIn('shelved_at', stored.system_metadata)


class UnshelveOffloadedTestCase(ManagerTestCase):
    """What the conductor hands the destination: the server offloaded in
    task unshelving, this host claimed for it."""

    def setUp(self):
        super().setUp()
        self.instance = self.make_instance(
            vm_state=states.SHELVED_OFFLOADED, task_state=states.UNSHELVING,
            display_name='shelved', system_metadata={
                'shelved_image_id': 'snapshot-1', 'shelved_host': 'src',
                'shelved_at': timeutils.utcnow().isoformat()})
        self.port = self.bandwidth_port(self.instance)
        # What the scheduler claimed here for it.
        self.allocate(self.instance.uuid, self.allocation_on('dst'))
        self.spec = objects.RequestSpec(
            instance_uuid=self.instance.uuid, flavor=make_flavor(),
            requested_resources=[self.group(self.port, 'dst')])

    def unshelve(self):
        shelve.unshelve(self.manager, self.context, self.instance, None,
                        self.spec, self.selection())

    def assertStillOffloaded(self):
        stored = self.stored(self.instance)
        self.assertEqual((states.SHELVED_OFFLOADED, None, None),
                         (stored.vm_state, stored.task_state, stored.host))
        self.assertEqual({}, self.resources(self.instance.uuid))
        self.assertEqual((None, {}), self.binding(self.port))
        return stored


class TestUnshelveOffloaded(UnshelveOffloadedTestCase):

    def test_the_server_is_active_on_this_host(self):
        self.unshelve()
        stored = self.stored(self.instance)
        self.assertEqual((states.ACTIVE, None, 'dst', 'dst'),
                         (stored.vm_state, stored.task_state, stored.host,
                          stored.node))

    def test_the_port_is_bound_here_with_its_groups_provider(self):
        self.unshelve()
        self.assertEqual(('dst', {'allocation': self.nics['dst']}),
                         self.binding(self.port))

    def test_it_holds_this_node_and_the_bandwidth_provider(self):
        self.unshelve()
        self.assertEqual(self.allocation_on('dst'),
                         self.resources(self.instance.uuid))

    def test_a_failed_spawn_leaves_it_offloaded_with_a_fault(self):
        self.config.config(fake_fail_spawn_for=['shelved'], group='compute')
        self.unshelve()
        stored = self.assertStillOffloaded()
        self.assertIn('failure injected', stored.fault.message)
        self.assertEqual([], self.guests())

    def test_a_port_that_cannot_bind_here_leaves_it_offloaded(self):
        self.ports.unbindable_hosts.add('dst')
        self.unshelve()
        self.assertStillOffloaded()

    def test_a_repeated_unshelve_leaves_the_unshelved_server(self):
        self.unshelve()
        self.unshelve()
        stored = self.stored(self.instance)
        self.assertEqual((states.ACTIVE, None, 'dst'),
                         (stored.vm_state, stored.task_state, stored.host))
        self.assertEqual(('dst', {'allocation': self.nics['dst']}),
                         self.binding(self.port))
        self.assertEqual(self.allocation_on('dst'),
                         self.resources(self.instance.uuid))
        self.assertEqual([self.instance.uuid], self.guests())

    def test_an_unshelve_a_later_request_overtook_touches_nothing(self):
        objects.InstanceAction.action_start(
            nova_context.get_admin_context(), self.instance.uuid,
            instance_actions.UNSHELVE)
        self.unshelve()
        stored = self.stored(self.instance)
        self.assertEqual((states.SHELVED_OFFLOADED, states.UNSHELVING,
                          None), (stored.vm_state, stored.task_state,
                                  stored.host))
        self.assertEqual((None, {}), self.binding(self.port))
        self.assertEqual([], self.guests())

    def test_its_claim_and_end_go_to_the_node_with_its_last_save(self):
        # An unshelve quicker than WRITE_SOON_SECONDS: the node's record
        # is not saved on its own; its claim (the resources used) and its
        # end (the server ACTIVE, no I/O operation left) go with the save
        # that ends it.
        saves, node = self.node_saves_during(
            lambda: self.manager._submit(
                shelve.unshelve, self.context, self.instance, None,
                self.spec, self.selection()).result(30))
        self.assertEqual((0, '0', '1', 1),
                         (saves, node.stats['io_workload'],
                          node.stats['num_vm_active'], node.vcpus_used))


# -- build: binding the ports -------------------------------------------------

class BuildTestCase(ManagerTestCase):
    """What the conductor hands this host: the server BUILDING on no host
    yet, this host claimed for it with its port's bandwidth."""

    def setUp(self):
        super().setUp()
        self.instance = self.make_instance(vm_state=states.BUILDING,
                                           task_state=states.SCHEDULING)
        self.port = self.ports.add(port_fakes.port(
            project_id=self.instance.project_id, egress=100))
        self.allocate(self.instance.uuid, self.allocation_on('dst'))
        self.spec = objects.RequestSpec(
            instance_uuid=self.instance.uuid, flavor=make_flavor(),
            requested_networks=objects.NetworkRequestList.from_api(
                [{'port': self.port['id']}]),
            requested_resources=[self.group(self.port)])

    def build(self, host_list=(), mappings=None):
        if mappings is None:
            mappings = {'': [self.nodes['dst']],
                        '_' + self.port['id']: [self.nics['dst']]}
        build.build_here(self.manager, self.context, self.instance,
                         self.selection(mappings=mappings), self.spec,
                         list(host_list), None, None)


class TestBuildBindsPorts(BuildTestCase):

    def test_the_port_is_bound_with_the_provider_of_its_mapping(self):
        self.build()
        self.assertEqual(('dst', {'allocation': self.nics['dst']}),
                         self.binding(self.port))
        self.assertEqual(self.instance.uuid,
                         self.ports.ports[self.port['id']]['device_id'])

    def test_the_server_is_active_holding_the_bandwidth_too(self):
        self.build()
        self.assertEqual(states.ACTIVE, self.stored(self.instance).vm_state)
        self.assertEqual(self.allocation_on('dst'),
                         self.resources(self.instance.uuid))

    def test_a_bind_failure_reschedules_and_drops_the_allocation(self):
        self.ports.unbindable_hosts.add('dst')
        self.build(host_list=[self.selection('src')])
        [(uuids, _spec, _hosts)] = self.conductor.reschedules
        self.assertEqual([self.instance.uuid], uuids)
        stored = self.stored(self.instance)
        self.assertEqual((None, states.SCHEDULING),
                         (stored.host, stored.task_state))
        self.assertEqual({}, self.resources(self.instance.uuid))

    def test_a_bind_failure_gives_the_port_back(self):
        self.ports.unbindable_hosts.add('dst')
        self.build(host_list=[self.selection('src')])
        self.assertEqual('', self.ports.ports[self.port['id']]['device_id'])
        self.assertEqual((None, {}), self.binding(self.port))

    def test_a_bind_failure_without_alternates_is_error_holding_nothing(
            self):
        self.ports.unbindable_hosts.add('dst')
        self.build()
        stored = self.stored(self.instance)
        self.assertEqual((states.ERROR, None),
                         (stored.vm_state, stored.host))
        self.assertEqual({}, self.resources(self.instance.uuid))
        self.assertEqual([], self.conductor.reschedules)

    def test_an_allocation_that_does_not_map_the_port_is_rescheduled(self):
        self.build(host_list=[self.selection('src')],
                   mappings={'': [self.nodes['dst']]})
        self.assertEqual(1, len(self.conductor.reschedules))
        self.assertEqual({}, self.resources(self.instance.uuid))
        self.assertIn(self.port['id'],
                      self.stored(self.instance).fault.message)


class TestBuildRidesOutAndIgnoresRepeats(BuildTestCase):
    """A port service that blinks delays the build; a late or repeated
    request for a server that no longer waits for a host touches
    nothing of it."""

    def test_a_port_service_blink_delays_the_build(self):
        pauses = []
        ports = self.ports

        def blink(seconds):
            pauses.append(seconds)
            ports.down = False
        self.useFixture(fixtures.MonkeyPatch('nova_lite.outage.sleep',
                                             blink))
        real = ports.show_port

        def show_port_once_down(port_id):
            if not pauses:
                ports.down = True
            return real(port_id)
        ports.show_port = show_port_once_down
        self.build(host_list=[self.selection('src')])
        self.assertEqual([1], pauses)
        self.assertEqual([], self.conductor.reschedules)
        self.assertEqual(states.ACTIVE, self.stored(self.instance).vm_state)
        self.assertEqual(('dst', {'allocation': self.nics['dst']}),
                         self.binding(self.port))

    def test_a_repeated_request_leaves_the_built_server_alone(self):
        repeat = self.instance.obj_clone()
        self.build()
        held = self.resources(self.instance.uuid)
        self.instance = repeat
        self.assertIs(False, build.build_here(
            self.manager, self.context, repeat, self.selection(
                mappings={'': [self.nodes['dst']],
                          '_' + self.port['id']: [self.nics['dst']]}),
            self.spec, [self.selection('src')], None, None))
        stored = self.stored(repeat)
        self.assertEqual((states.ACTIVE, 'dst', None),
                         (stored.vm_state, stored.host, stored.task_state))
        self.assertEqual(held, self.resources(repeat.uuid))
        self.assertNotEqual({}, held)
        self.assertEqual([], self.conductor.reschedules)
        self.assertEqual(1, len(self.guests()))
        self.assertEqual(('dst', {'allocation': self.nics['dst']}),
                         self.binding(self.port))

    def test_a_server_deleted_while_scheduled_gives_its_claim_back(self):
        self.instance.destroy()
        self.assertIs(False, build.build_here(
            self.manager, self.context, self.instance, self.selection(),
            self.spec, [], None, None))
        self.assertEqual({}, self.resources(self.instance.uuid))


class TestHealIncludesThePorts(ManagerTestCase):

    def test_a_missing_allocation_is_written_with_the_ports_bandwidth(self):
        instance = self.make_instance(host='dst')
        self.bandwidth_port(instance, host='dst')
        self.manager.rt.update_available_resource(self.context, 'dst')
        self.assertEqual(self.allocation_on('dst'),
                         self.resources(instance.uuid))

    def test_a_port_service_that_cannot_be_read_postpones_the_heal(self):
        instance = self.make_instance(host='dst')
        self.ports.down = True
        self.manager.rt.update_available_resource(self.context, 'dst')
        self.assertEqual({}, self.resources(instance.uuid))
        self.assertIn('its ports cannot be read', self.logs.output)


class TestHealLeavesBusyServersAlone(ManagerTestCase):
    """The heal works from a list of the host's instances taken before;
    an operation may have given the allocation back since."""

    def setUp(self):
        super().setUp()
        self.instance = self.make_instance(host='dst')
        self.ports.ports.clear()
        self.manager.rt.update_available_resource(self.context, 'dst')
        self.node = self.manager.rt.compute_nodes['dst']
        self.reportclient = self.manager.rt.reportclient
        self.reportclient.delete_allocations(self.instance.uuid)

    def heal(self):
        self.manager.rt._heal_allocations(self.context, self.node,
                                          [self.instance])

    def test_a_server_deleted_since_the_list_is_not_healed(self):
        self.manager.terminate_instance(self.context, self.instance)
        self.heal()
        self.assertEqual({}, self.resources(self.instance.uuid))

    def test_a_server_whose_lock_is_held_is_not_healed(self):
        with self.manager.work.lock(self.instance.uuid):
            self.heal()
        self.assertEqual({}, self.resources(self.instance.uuid))
        self.heal()
        self.assertNotEqual({}, self.resources(self.instance.uuid))

    def test_a_server_queued_for_an_operation_is_not_healed(self):
        with self.manager.work.working_on(self.instance.uuid):
            self.heal()
        self.assertEqual({}, self.resources(self.instance.uuid))

    def test_a_server_in_a_task_since_the_list_is_not_healed(self):
        stored = self.stored(self.instance)
        stored.task_state = states.DELETING
        stored.save()
        self.heal()
        self.assertEqual({}, self.resources(self.instance.uuid))


class TestEvacuateRPCEntryPoint(EvacuateTestCase):

    def test_rebuild_with_recreate_runs_the_evacuation(self):
        self.manager.rebuild_instance(
            self.context, self.instance, None, None, recreate=True,
            migration=self.migration, selection=self.selection(),
            request_spec=self.spec)
        self.manager.cleanup_host()
        self.assertEqual('done', self.stored_migration().status)

    def test_an_evacuation_sent_at_1_2_without_a_request_spec_runs(self):
        self.ports.ports.clear()
        self.allocate(self.migration.uuid, self.allocation_on(
            'src', with_port=False))
        self.allocate(self.instance.uuid, self.allocation_on(
            'dst', with_port=False))
        evacuate.evacuate(self.manager, self.context, self.instance, None,
                          self.migration, self.selection(), None)
        self.assertEqual(('done', self.allocation_on('dst', False)),
                         (self.stored_migration().status,
                          self.resources(self.instance.uuid)))
