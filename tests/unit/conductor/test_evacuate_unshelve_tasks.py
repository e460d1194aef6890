"""The conductor's evacuation and unshelve flows, each step forced to fail
once.

The databases (SQLite) and placement (the app, in this process) are
real. The scheduler, the compute RPC client and the port service are
stand-ins passed to the task: the stand-in scheduler claims in placement
as the real one does (with the request group -> provider ``mappings`` of
the candidate), so each test can check what is held, by whom, afterwards.

The server has one port with a minimum bandwidth resource request; each
compute node has a bandwidth provider as its child.
"""

import fixtures
import oslo_messaging as messaging
from oslo_serialization import jsonutils
from oslo_utils import uuidutils
import testtools

from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.compute import states
from nova_lite.conductor.tasks import evacuate
from nova_lite.conductor.tasks import unshelve
from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite import objects
from tests.unit import fixtures as nl_fixtures
from tests.unit.network import test_client_helpers as port_fakes
from tests.unit.objects import test_migration_and_groups as db_fixtures
from tests.unit.scheduler import test_report_groups as placement_fixtures

EGRESS = port_fakes.EGRESS
FLAVOR_USAGE = {'VCPU': 1, 'MEMORY_MB': 512, 'DISK_GB': 1}


class FakeScheduler:
    """Answers ``answer`` (a Selection, or an exception to raise) and
    claims its allocation request for the instance, as the scheduler does.
    Records each spec it is asked, and what the instance and the consumers
    ``watched()`` names held in placement at that moment."""

    def __init__(self, answer, reportclient, watched=list):
        self.answer = answer
        self.reportclient = reportclient
        self.watched = watched
        self.specs = []
        self.held_when_asked = {}

    def select_destinations(self, context, spec, uuids,
                            return_alternates=True):
        self.specs.append(spec.obj_clone())
        for consumer in list(uuids) + list(self.watched()):
            self.held_when_asked[consumer] = self.reportclient \
                .get_allocations(consumer)['allocations']
        if isinstance(self.answer, Exception):
            raise self.answer
        [uuid] = uuids
        assert self.reportclient.claim_resources(
            uuid, self.answer.allocation, 'p', 'u')
        return [[self.answer]]


class FakeComputeRPC:
    """The compute RPC client: records evacuations and unshelves, or
    raises ``error``; ``version_cap`` is what it may send."""

    def __init__(self, error=None, version_cap='1.3'):
        self.error = error
        self.version_cap = version_cap
        self.evacuations = []
        self.unshelves = []

    def can_send_version(self, context, host, version):
        return tuple(map(int, version.split('.'))) <= tuple(
            map(int, self.version_cap.split('.')))

    def evacuate_instance(self, context, instance, host, image, migration,
                          selection, request_spec):
        if self.error is not None:
            raise self.error
        self.evacuations.append((instance.uuid, host, migration.uuid,
                                 selection, request_spec))

    def unshelve_instance(self, context, instance, host, image=None,
                          request_spec=None, selection=None):
        if self.error is not None:
            raise self.error
        self.unshelves.append((instance.uuid, host, selection,
                               request_spec))


class MoveTaskTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.logs = self.useFixture(fixtures.FakeLogger())
        db_fixtures.use_migrated_databases(self)
        self.plane = self.useFixture(nl_fixtures.ControlPlane())
        self.context = nova_context.RequestContext(user_id='u',
                                                   project_id='p')
        self.admin = nova_context.get_admin_context()
        self.flavor = objects.Flavor(
            self.admin, flavorid='1', name='small', memory_mb=512, vcpus=1,
            root_gb=1, ephemeral_gb=0, swap=0)
        self.flavor.create()
        self.reportclient = self.useFixture(
            placement_fixtures.InProcessPlacement()).client()
        self.nodes = {}
        self.nics = {}
        for host in ('src', 'dst'):
            self.nodes[host], self.nics[host] = self.compute_node(host)
        self.ports = port_fakes.FakePortService()

    def compute_node(self, host):
        node = uuidutils.generate_uuid()
        # Its record in cell1 too: the audit maps servers' hosts to their
        # providers through it.
        with nova_context.target_cell(self.admin,
                                      self.plane.databases.cell1) as cctxt:
            objects.ComputeNode(
                cctxt, uuid=node, host=host, hypervisor_hostname=host,
                hypervisor_type='fake', hypervisor_version=1, vcpus=4,
                memory_mb=2048, local_gb=10, vcpus_used=0,
                memory_mb_used=0, local_gb_used=0, free_ram_mb=2048,
                free_disk_gb=10, running_vms=0, current_workload=0,
                cpu_allocation_ratio=1.0, ram_allocation_ratio=1.0,
                disk_allocation_ratio=1.0).create()
        self.reportclient.ensure_resource_provider(node, host)
        self.reportclient.set_inventory(node, {
            'VCPU': {'total': 4}, 'MEMORY_MB': {'total': 2048},
            'DISK_GB': {'total': 10}})
        nic = uuidutils.generate_uuid()
        self.reportclient.ensure_resource_provider(nic, host + ':physnet0',
                                                   node)
        self.reportclient.set_inventory(nic, {EGRESS: {'total': 10000}})
        return node, nic

    def held(self, consumer):
        return self.reportclient.get_allocations(consumer)['allocations']

    def resources(self, consumer):
        return {rp: a['resources'] for rp, a in self.held(consumer).items()}

    def allocation_on(self, host, port_ids=()):
        """What a server with ports ``port_ids`` holds on ``host``."""
        allocation = {self.nodes[host]: dict(FLAVOR_USAGE)}
        if port_ids:
            allocation[self.nics[host]] = {EGRESS: 100 * len(port_ids)}
        return allocation

    def server(self, vm_state, task_state, host=None, with_port=True):
        """A server of cell1 with its RequestSpec, mapping and (with a
        host) its allocation there; its port has a resource request."""
        uuid = uuidutils.generate_uuid()
        with nova_context.target_cell(self.admin,
                                      self.plane.databases.cell1) as cctxt:
            instance = objects.Instance(
                cctxt, uuid=uuid, display_name='vm', project_id='p',
                user_id='u', flavor=self.flavor, vm_state=vm_state,
                task_state=task_state, power_state=1, host=host, node=host,
                image_ref=None)
            instance.create()
        objects.InstanceMapping(
            self.admin, instance_uuid=uuid, project_id='p', user_id='u',
            cell_mapping=self.plane.databases.cell1).create()
        objects.RequestSpec(self.admin, instance_uuid=uuid,
                            flavor=self.flavor).create()
        self.port = None
        if with_port:
            self.port = self.ports.add(port_fakes.port(
                device_id=uuid, project_id='p', host=host, egress=100,
                profile={'allocation': self.nics[host]} if host else None))
        if host is not None:
            self.reportclient.put_allocations(
                uuid, {rp: {'resources': r} for rp, r in
                       self.allocation_on(host, self.port_ids()).items()},
                'p', 'u')
        return instance

    def port_ids(self):
        return [self.port['id']] if self.port else []

    def selection(self, host='dst', mappings=None):
        """The scheduler's choice of ``host`` with its allocation request
        (and the ``mappings`` placement answers with at 1.34)."""
        allocation = self.allocation_on(host, self.port_ids())
        if mappings is None:
            mappings = {'': [self.nodes[host]]}
            for port_id in self.port_ids():
                mappings['_' + port_id] = [self.nics[host]]
        return objects.Selection(
            compute_node_uuid=self.nodes[host], service_host=host,
            nodename=host, cell_uuid=self.plane.databases.cell1.uuid,
            limits=objects.SchedulerLimits(),
            allocation_request=jsonutils.dumps({
                'allocations': {rp: {'resources': r}
                                for rp, r in allocation.items()},
                'mappings': mappings}))

    def stored(self, instance):
        with nova_context.target_cell(self.admin,
                                      self.plane.databases.cell1) as cctxt:
            return objects.Instance.get_by_uuid(cctxt, instance.uuid,
                                                expected_attrs=['fault'])

    def events(self, instance, name):
        with nova_context.target_cell(self.admin,
                                      self.plane.databases.cell1) as cctxt:
            [action] = objects.InstanceActionList.get_by_instance_uuid(
                cctxt, instance.uuid)
            return [e for e in objects.InstanceActionEventList.get_by_action(
                cctxt, action.id) if e.event == name]


class EvacuateTestCase(MoveTaskTestCase):
    """What the API hands the conductor: a server whose host is down, in
    task_state rebuilding."""

    def setUp(self):
        super().setUp()
        self.instance = self.server(states.ACTIVE, states.REBUILDING,
                                    host='src')

    def evacuate(self, answer, compute=None, host=None, force=False):
        self.scheduler = FakeScheduler(
            answer, self.reportclient,
            watched=lambda: [m.uuid for m in self.migrations()])
        self.compute = compute or FakeComputeRPC()
        evacuate.EvacuateTask(
            self.context, self.instance, host, self.scheduler, self.compute,
            self.reportclient, self.ports, force=force).execute()
        [self.migration] = self.migrations()

    def migrations(self):
        with nova_context.target_cell(self.admin,
                                      self.plane.databases.cell1) as cctxt:
            return list(objects.MigrationList.get_by_instance(
                cctxt, self.instance.uuid))

    def stored_migration(self):
        with nova_context.target_cell(self.admin,
                                      self.plane.databases.cell1) as cctxt:
            return objects.Migration.get_by_uuid(cctxt, self.migration.uuid)

    def assertBackOnItsSource(self):
        """Holding its source allocation again, nothing on the
        destination, the migration consumer empty."""
        self.assertEqual(self.allocation_on('src', self.port_ids()),
                         self.resources(self.instance.uuid))
        self.assertEqual({}, self.held(self.migration.uuid))


class TestEvacuate(EvacuateTestCase):

    def test_an_evacuation_is_recorded_from_the_source(self):
        self.evacuate(self.selection())
        self.assertEqual(('evacuation', 'src', 'src'),
                         (self.migration.migration_type,
                          self.migration.source_compute,
                          self.migration.source_node))

    def test_a_requested_host_is_the_migrations_destination_at_once(self):
        self.evacuate(exception.NoValidHost(reason='0/1 hosts'), host='dst')
        self.assertEqual('dst', self.migration.dest_compute)

    def test_the_source_allocation_moves_to_the_migration_first(self):
        self.evacuate(self.selection())
        self.assertEqual(
            ({}, sorted([self.nodes['src'], self.nics['src']])),
            (self.scheduler.held_when_asked[self.instance.uuid],
             sorted(self.scheduler.held_when_asked[self.migration.uuid])))

    def test_migration_holds_the_source_server_the_destination(self):
        self.evacuate(self.selection())
        self.assertEqual(
            (self.allocation_on('dst', self.port_ids()),
             self.allocation_on('src', self.port_ids())),
            (self.resources(self.instance.uuid),
             self.resources(self.migration.uuid)))

    def test_the_scheduler_is_asked_for_the_ports_groups_away_from_the_source(
            self):
        self.evacuate(self.selection())
        [spec] = self.scheduler.specs
        self.assertEqual(
            ([self.port['id']], ['src'], None, 1, None),
            ([g.requester_id for g in spec.requested_resources],
             spec.ignore_hosts, spec.force_hosts, spec.num_instances,
             spec.retry))

    def test_a_requested_host_is_the_one_candidate_the_filters_judge(self):
        self.evacuate(self.selection(), host='dst')
        [spec] = self.scheduler.specs
        self.assertEqual(('dst', None), (spec.requested_destination.host,
                                         spec.force_hosts))

    def test_a_forced_host_skips_the_filters(self):
        self.evacuate(self.selection(), host='dst', force=True)
        [spec] = self.scheduler.specs
        self.assertEqual((['dst'], None), (spec.force_hosts,
                                           spec.requested_destination))

    def test_each_group_gets_its_provider_from_the_allocation_mappings(self):
        self.evacuate(self.selection())
        [(_uuid, _host, _migration, _selection, spec)] = \
            self.compute.evacuations
        self.assertEqual(
            [(self.port['id'], [self.nics['dst']])],
            [(g.requester_id, g.provider_uuids)
             for g in spec.requested_resources])

    def test_the_destination_compute_is_sent_the_server_and_migration(self):
        self.evacuate(self.selection())
        [(uuid, host, migration, selection, _spec)] = \
            self.compute.evacuations
        self.assertEqual((self.instance.uuid, 'dst', self.migration.uuid,
                          'dst'),
                         (uuid, host, migration, selection.service_host))

    def test_the_migration_names_the_destination_and_is_pre_migrating(self):
        self.evacuate(self.selection())
        stored = self.stored_migration()
        self.assertEqual(('pre-migrating', 'dst', 'dst', 'dst'),
                         (stored.status, stored.dest_compute,
                          stored.dest_node, stored.dest_host))

    def test_the_server_stays_rebuilding_for_the_compute(self):
        self.evacuate(self.selection())
        stored = self.stored(self.instance)
        self.assertEqual((states.ACTIVE, states.REBUILDING, 'src'),
                         (stored.vm_state, stored.task_state, stored.host))


class TestEvacuateNoValidHost(EvacuateTestCase):

    def setUp(self):
        super().setUp()
        self.evacuate(exception.NoValidHost(
            reason='0/1 hosts: 1 insufficient RAM'))

    def test_the_source_allocation_goes_back_to_the_server(self):
        self.assertBackOnItsSource()

    def test_the_migration_is_error(self):
        self.assertEqual('error', self.stored_migration().status)

    def test_the_server_is_error_on_its_source_with_a_fault(self):
        stored = self.stored(self.instance)
        self.assertEqual((states.ERROR, None, 'src'),
                         (stored.vm_state, stored.task_state, stored.host))
        self.assertIn('No valid host', stored.fault.message)

    def test_the_conductor_event_is_an_error(self):
        [event] = self.events(self.instance, 'conductor_rebuild_instance')
        self.assertEqual('Error', event.result)

    def test_nothing_is_sent_to_a_compute(self):
        self.assertEqual([], self.compute.evacuations)


class DeletingScheduler(FakeScheduler):
    """The server is deleted (a local delete: its host is down) while the
    scheduler is asked, and no host is found."""

    def __init__(self, deleted, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.deleted = deleted

    def select_destinations(self, context, spec, uuids,
                            return_alternates=True):
        self.deleted.destroy()
        return super().select_destinations(context, spec, uuids,
                                           return_alternates)


class TestEvacuationOfAServerDeletedMeanwhile(EvacuateTestCase):

    def test_neither_the_server_nor_the_migration_holds_anything(self):
        scheduler = DeletingScheduler(
            self.stored(self.instance),
            exception.NoValidHost(reason='0/1 hosts'), self.reportclient)
        evacuate.EvacuateTask(
            self.context, self.instance, None, scheduler, FakeComputeRPC(),
            self.reportclient, self.ports).execute()
        [migration] = self.migrations()
        self.assertEqual(({}, {}), (self.held(self.instance.uuid),
                                    self.held(migration.uuid)))
        self.assertEqual('error', migration.status)


class TestDeletedAsTheSourceSideComesBack(EvacuateTestCase):
    """The local delete lands just as the undo moves the migration's
    allocation back: after the undo looked for the server, before the
    move (the soak's race, in its narrowest window)."""

    def test_what_came_back_is_given_back(self):
        stored = self.stored(self.instance)
        move = self.reportclient.move_allocations

        def deleted_first(source, target):
            if target == stored.uuid:
                # The API's local delete: what the server holds goes.
                self.reportclient.delete_allocations(stored.uuid)
                stored.destroy()
            return move(source, target)
        self.reportclient.move_allocations = deleted_first
        self.evacuate(exception.NoValidHost(reason='0/1 hosts'))
        self.assertEqual(({}, {}), (self.held(self.instance.uuid),
                                    self.held(self.migration.uuid)))
        self.assertEqual('error', self.stored_migration().status)


class TestEvacuateFailuresAfterTheClaim(EvacuateTestCase):

    def test_an_unsent_cast_gives_back_the_claim_and_the_source(self):
        self.evacuate(self.selection(), FakeComputeRPC(
            messaging.MessageDeliveryFailure('broker down')))
        self.assertBackOnItsSource()
        stored = self.stored(self.instance)
        self.assertEqual((states.ERROR, None, 'error'),
                         (stored.vm_state, stored.task_state,
                          self.stored_migration().status))
        self.assertIn('broker down', stored.fault.message)

    def test_an_allocation_that_does_not_map_the_port_is_rolled_back(self):
        self.evacuate(self.selection(mappings={'': [self.nodes['dst']]}))
        self.assertBackOnItsSource()
        stored = self.stored(self.instance)
        self.assertEqual(states.ERROR, stored.vm_state)
        self.assertIn(self.port['id'], stored.fault.message)
        self.assertEqual([], self.compute.evacuations)

    def test_a_compute_pinned_below_1_3_cannot_take_port_resources(self):
        self.plane.config.config(compute='1.2', group='upgrade_levels')
        self.evacuate(self.selection(), compute_rpcapi.ComputeAPI())
        self.assertBackOnItsSource()
        stored = self.stored(self.instance)
        self.assertEqual((states.ERROR, None),
                         (stored.vm_state, stored.task_state))
        self.assertIn('minimum bandwidth', stored.fault.message)
        self.assertEqual(409, stored.fault.code)


class TestEvacuateWithoutPortResources(MoveTaskTestCase):

    def test_a_server_without_resource_requests_asks_for_no_groups(self):
        instance = self.server(states.ACTIVE, states.REBUILDING, host='src',
                               with_port=False)
        scheduler = FakeScheduler(self.selection(), self.reportclient)
        compute = FakeComputeRPC()
        evacuate.EvacuateTask(self.context, instance, None, scheduler,
                              compute, self.reportclient,
                              self.ports).execute()
        self.assertEqual([], scheduler.specs[0].requested_resources)
        self.assertEqual(1, len(compute.evacuations))


class UnshelveTestCase(MoveTaskTestCase):

    def setUp(self):
        super().setUp()
        self.instance = self.server(states.SHELVED_OFFLOADED,
                                    states.UNSHELVING)

    def unshelve(self, answer, compute=None):
        self.scheduler = FakeScheduler(answer, self.reportclient)
        self.compute = compute or FakeComputeRPC()
        unshelve.UnshelveTask(self.context, self.instance, self.scheduler,
                              self.compute, self.reportclient,
                              self.ports).execute()

    def assertStillOffloaded(self):
        stored = self.stored(self.instance)
        self.assertEqual((states.SHELVED_OFFLOADED, None, None),
                         (stored.vm_state, stored.task_state, stored.host))
        self.assertEqual({}, self.held(self.instance.uuid))
        return stored


class TestUnshelve(UnshelveTestCase):

    def test_the_chosen_compute_is_sent_the_spec_with_providers(self):
        self.unshelve(self.selection())
        [(uuid, host, selection, spec)] = self.compute.unshelves
        self.assertEqual((self.instance.uuid, 'dst', 'dst'),
                         (uuid, host, selection.service_host))
        self.assertEqual([(self.port['id'], [self.nics['dst']])],
                         [(g.requester_id, g.provider_uuids)
                          for g in spec.requested_resources])

    def test_the_scheduler_is_asked_for_the_ports_groups(self):
        self.unshelve(self.selection())
        [spec] = self.scheduler.specs
        self.assertEqual(([self.port['id']], None, None),
                         ([g.requester_id for g in spec.requested_resources],
                          spec.ignore_hosts, spec.force_hosts))

    def test_the_server_holds_the_destination_claim(self):
        self.unshelve(self.selection())
        self.assertEqual(self.allocation_on('dst', self.port_ids()),
                         self.resources(self.instance.uuid))

    def test_no_valid_host_leaves_it_offloaded_with_a_fault(self):
        self.unshelve(exception.NoValidHost(reason='0/2 hosts'))
        stored = self.assertStillOffloaded()
        self.assertIn('No valid host', stored.fault.message)
        self.assertEqual([], self.compute.unshelves)

    def test_an_unsent_cast_gives_back_the_claim(self):
        self.unshelve(self.selection(), FakeComputeRPC(
            messaging.MessageDeliveryFailure('broker down')))
        stored = self.assertStillOffloaded()
        self.assertIn('broker down', stored.fault.message)

    def test_a_compute_too_old_for_port_resources_gives_back_the_claim(self):
        self.unshelve(self.selection(), FakeComputeRPC(version_cap='1.2'))
        stored = self.assertStillOffloaded()
        self.assertIn('minimum bandwidth', stored.fault.message)
        self.assertEqual([], self.compute.unshelves)

    def test_the_conductor_event_of_a_failure_is_an_error(self):
        self.unshelve(exception.NoValidHost(reason='0/2 hosts'))
        [event] = self.events(self.instance, 'conductor_unshelve_instance')
        self.assertEqual('Error', event.result)
