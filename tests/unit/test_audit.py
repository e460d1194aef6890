"""``nova-lite-manage audit``: the invariant across cells, placement and
the port service, and each way a deployment can break it.

Real cell and API databases (SQLite) and real placement (the app, in this
process); the port service is the in-memory stand-in. Two
hosts, each a compute node record in cell1 with its provider, which has a
bandwidth provider as its child.
"""

import fixtures
from oslo_utils import uuidutils
import testtools

from nova_lite import audit
from nova_lite.compute import states
from nova_lite import context as nova_context
from nova_lite import objects
from nova_lite.objects import migration as migration_obj
from tests.unit import fixtures as nova_fixtures
from tests.unit.network import test_client_helpers as port_fakes
from tests.unit.objects import test_migration_and_groups as db_fixtures
from tests.unit.scheduler import test_report_groups as placement_fixtures

EGRESS = port_fakes.EGRESS
FLAVOR_USAGE = {'VCPU': 1, 'MEMORY_MB': 512}


def make_flavor():
    return objects.Flavor(id=1, flavorid='1', name='small', memory_mb=512,
                          vcpus=1, root_gb=0, ephemeral_gb=0, swap=0)


class AuditTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(fixtures.FakeLogger())
        self.useFixture(nova_fixtures.Config())
        self.databases = self.useFixture(db_fixtures.MigratedDatabases())
        self.reportclient = self.useFixture(
            placement_fixtures.InProcessPlacement()).client()
        self.admin = nova_context.get_admin_context()
        self.ports = port_fakes.FakePortService()
        self.nodes, self.nics = {}, {}
        for host in ('h1', 'h2'):
            self.nodes[host], self.nics[host] = self.compute_node(host)

    def in_cell(self, cell=None):
        return nova_context.target_cell(self.admin,
                                        cell or self.databases.cell1)

    def compute_node(self, host):
        with self.in_cell() as cctxt:
            node = objects.ComputeNode(
                cctxt, host=host, hypervisor_hostname=host,
                hypervisor_type='fake', hypervisor_version=1, vcpus=4,
                memory_mb=4096, local_gb=10, vcpus_used=0,
                memory_mb_used=0, local_gb_used=0, free_ram_mb=4096,
                free_disk_gb=10, running_vms=0, current_workload=0,
                cpu_allocation_ratio=1.0, ram_allocation_ratio=1.0,
                disk_allocation_ratio=1.0)
            node.create()
        self.reportclient.ensure_resource_provider(node.uuid, host)
        self.reportclient.set_inventory(node.uuid, {
            'VCPU': {'total': 4}, 'MEMORY_MB': {'total': 4096}})
        nic = uuidutils.generate_uuid()
        self.reportclient.ensure_resource_provider(nic, host + ':physnet0',
                                                   node.uuid)
        self.reportclient.set_inventory(nic, {EGRESS: {'total': 10000}})
        return node.uuid, nic

    def allocate(self, consumer, allocation):
        self.reportclient.put_allocations(
            consumer, {rp: {'resources': r} for rp, r in allocation.items()},
            'p', 'u')

    def server(self, host='h1', allocated_on='h1', task_state=None,
               vm_state=states.ACTIVE, cell=None, node=None, uuid=None,
               mapped=True):
        """A server of cell1 (or ``cell``) on ``host`` holding its flavor
        on ``allocated_on`` (None: nothing), its instance mapping pointing
        at that cell (``mapped=False``: none written)."""
        with self.in_cell(cell) as cctxt:
            instance = objects.Instance(
                cctxt, uuid=uuid or uuidutils.generate_uuid(),
                project_id='p', user_id='u', display_name='vm',
                vm_state=vm_state, task_state=task_state, host=host,
                node=node or host, flavor=make_flavor())
            instance.create()
        if mapped:
            objects.InstanceMapping(
                self.admin, instance_uuid=instance.uuid, project_id='p',
                cell_mapping=cell or self.databases.cell1).create()
        if allocated_on is not None:
            self.allocate(instance.uuid,
                          {self.nodes[allocated_on]: FLAVOR_USAGE})
        return instance

    def port_of(self, instance, host='h1', **kwargs):
        kwargs.setdefault('project_id', instance.project_id)
        return self.ports.add(port_fakes.port(device_id=instance.uuid,
                                              host=host, **kwargs))

    def migration(self, instance, status='done', source='h1'):
        with self.in_cell() as cctxt:
            migration = objects.Migration(
                cctxt, instance_uuid=instance.uuid,
                migration_type=migration_obj.EVACUATION, status=status,
                source_compute=source, source_node=source,
                dest_compute='h2')
            migration.create()
        return migration

    def build_request(self):
        """A server the conductor has not placed in a cell yet."""
        uuid = uuidutils.generate_uuid()
        objects.BuildRequest(
            self.admin, instance_uuid=uuid, project_id='p',
            instance=objects.Instance(uuid=uuid, project_id='p',
                                      flavor=make_flavor())).create()
        return uuid

    def run_audit(self):
        self.audit = audit.Audit(self.admin, self.reportclient, self.ports)
        return self.audit.run()

    def assertOneViolation(self, *fragments):
        [violation] = self.run_audit()
        for fragment in fragments:
            self.assertIn(fragment, violation)
        return violation


class TestConsistentDeployment(AuditTestCase):

    def test_a_server_on_its_node_with_its_port_bound_there_is_fine(self):
        self.port_of(self.server())
        self.assertEqual([], self.run_audit())
        self.assertEqual((1, 0), (self.audit.checked, self.audit.skipped))

    def test_a_port_with_a_resource_request_bound_to_its_provider_is_fine(
            self):
        instance = self.server(allocated_on=None)
        self.allocate(instance.uuid, {self.nodes['h1']: FLAVOR_USAGE,
                                      self.nics['h1']: {EGRESS: 100}})
        self.port_of(instance, egress=100,
                     profile={'allocation': self.nics['h1']})
        self.assertEqual([], self.run_audit())

    def test_an_offloaded_server_holding_nothing_with_unbound_ports_is_fine(
            self):
        instance = self.server(host=None, allocated_on=None,
                               vm_state=states.SHELVED_OFFLOADED)
        self.port_of(instance, host=None)
        self.assertEqual([], self.run_audit())

    def test_a_server_in_cell0_holding_nothing_is_fine(self):
        self.server(host=None, allocated_on=None, vm_state=states.ERROR,
                    cell=self.databases.cell0)
        self.assertEqual([], self.run_audit())

    def test_disk_on_a_sharing_provider_is_fine(self):
        storage = uuidutils.generate_uuid()
        self.reportclient.ensure_resource_provider(storage, 'nfs')
        self.reportclient.set_inventory(storage,
                                        {'DISK_GB': {'total': 100}})
        self.put_traits(storage, ['MISC_SHARES_VIA_AGGREGATE'])
        instance = self.server(allocated_on=None)
        self.allocate(instance.uuid, {self.nodes['h1']: FLAVOR_USAGE,
                                      storage: {'DISK_GB': 1}})
        self.assertEqual([], self.run_audit())

    def put_traits(self, rp, traits):
        generation = self.reportclient.get_provider(rp)['generation']
        response = self.reportclient._request(
            'PUT', '/resource_providers/%s/traits' % rp,
            {'traits': traits, 'resource_provider_generation': generation},
            version='1.6')
        self.assertEqual(200, response.status_code, response.text)


class TestServerViolations(AuditTestCase):

    def test_resources_on_another_hosts_provider(self):
        instance = self.server(allocated_on='h2')
        self.assertOneViolation(instance.uuid, 'is on h1',
                                self.nodes['h2'])

    def test_a_server_with_a_host_but_no_allocation(self):
        instance = self.server(allocated_on=None)
        self.assertOneViolation(instance.uuid, 'holds no allocation')

    def test_a_server_on_a_node_without_a_record(self):
        instance = self.server(node='ghost')
        violations = self.run_audit()
        self.assertIn('server %s is on h1/ghost, which has no compute node '
                      'record' % instance.uuid, violations)

    def test_a_server_without_a_host_holding_resources(self):
        instance = self.server(host=None, allocated_on='h1',
                               vm_state=states.SHELVED_OFFLOADED)
        self.assertOneViolation(instance.uuid, 'has no host but holds')

    def test_a_server_without_a_host_whose_port_is_bound(self):
        instance = self.server(host=None, allocated_on=None,
                               vm_state=states.SHELVED_OFFLOADED)
        port = self.port_of(instance, host='h1')
        self.assertOneViolation(instance.uuid, port['id'], 'bound to h1')


class TestPortViolations(AuditTestCase):

    def test_a_port_with_two_active_bindings(self):
        port = self.port_of(self.server())
        self.ports.extra_bindings[port['id']] = [
            {'host': 'h2', 'status': 'ACTIVE', 'profile': {}}]
        self.assertOneViolation(port['id'], '2 ACTIVE bindings', 'h1, h2')

    def test_an_inactive_binding_besides_the_active_one_is_fine(self):
        port = self.port_of(self.server())
        self.ports.extra_bindings[port['id']] = [
            {'host': 'h2', 'status': 'INACTIVE', 'profile': {}}]
        self.assertEqual([], self.run_audit())

    def test_a_port_bound_to_another_host(self):
        port = self.port_of(self.server(), host='h2')
        self.assertOneViolation(port['id'], 'is on h1',
                                'is bound to h2')

    def test_a_resource_request_whose_allocation_the_server_does_not_hold(
            self):
        instance = self.server()
        port = self.port_of(instance, egress=100,
                            profile={'allocation': self.nics['h1']})
        self.assertOneViolation(port['id'], 'has a resource request',
                                self.nics['h1'])

    def test_a_port_without_a_request_naming_an_allocation(self):
        port = self.port_of(self.server(),
                            profile={'allocation': self.nics['h1']})
        self.assertOneViolation(port['id'], 'has no resource request')

    def test_bindings_that_cannot_be_read(self):
        port = self.port_of(self.server())
        self.ports.unreadable_bindings.add(port['id'])
        self.assertOneViolation(port['id'], 'cannot be read')

    def test_a_port_bound_to_something_that_is_not_a_server(self):
        stray = uuidutils.generate_uuid()
        port = self.ports.add(port_fakes.port(device_id=stray, host='h1'))
        self.assertOneViolation(port['id'], stray, 'not a server')

    def test_another_projects_port_naming_a_server_is_not_its_port(self):
        # Its owner wrote the server's uuid as its device_id; bound
        # elsewhere, it is neither the server's nor a stray of its own.
        self.port_of(self.server(), host='h2', project_id='someone-else')
        self.assertEqual([], self.run_audit())

    def test_an_unbound_port_naming_no_server_is_not_reported(self):
        # Its owner may write any device_id; nothing of a compute's is
        # left behind.
        self.ports.add(port_fakes.port(device_id=uuidutils.generate_uuid(),
                                       project_id='someone-else'))
        self.assertEqual([], self.run_audit())

    def test_a_port_of_no_server_naming_an_allocation(self):
        # A move's binding on a destination outlived the server deleted
        # meanwhile (the port released before the binding was made).
        port = self.ports.add(port_fakes.port(
            host='h2', profile={'allocation': self.nics['h2']},
            egress=1000))
        self.assertOneViolation(port['id'], 'belongs to no server',
                                self.nics['h2'])

    def test_a_port_of_no_server_bound_without_an_allocation_is_fine(self):
        # Bound by its owner (any project may bind its port to a host).
        self.ports.add(port_fakes.port(host='h2'))
        self.assertEqual([], self.run_audit())

    def test_a_port_of_a_server_being_scheduled_is_not_reported(self):
        uuid = self.build_request()
        self.ports.add(port_fakes.port(device_id=uuid))
        self.assertEqual([], self.run_audit())


class TestConsumers(AuditTestCase):

    def test_allocations_of_an_unknown_consumer(self):
        stranger = uuidutils.generate_uuid()
        self.allocate(stranger, {self.nodes['h2']: FLAVOR_USAGE})
        self.assertOneViolation(stranger, 'neither a server nor a move')

    def test_allocations_of_a_deleted_server(self):
        instance = self.server()
        with self.in_cell() as cctxt:
            objects.Instance.get_by_uuid(cctxt, instance.uuid).destroy()
        self.assertOneViolation(instance.uuid, 'neither a server')

    def test_another_services_providers_and_consumers_are_theirs(self):
        # A Placement shared with another service: its provider, and its
        # consumer holding nothing of this deployment's, are not looked
        # at.
        theirs = uuidutils.generate_uuid()
        self.reportclient.ensure_resource_provider(theirs, 'elsewhere')
        self.reportclient.set_inventory(theirs, {'VCPU': {'total': 4}})
        self.allocate(uuidutils.generate_uuid(), {theirs: {'VCPU': 1}})
        self.assertEqual([], self.run_audit())

    def test_a_consumer_holding_here_and_elsewhere_is_reported(self):
        theirs = uuidutils.generate_uuid()
        self.reportclient.ensure_resource_provider(theirs, 'elsewhere')
        self.reportclient.set_inventory(theirs, {'VCPU': {'total': 4}})
        stranger = uuidutils.generate_uuid()
        self.allocate(stranger, {theirs: {'VCPU': 1},
                                 self.nodes['h1']: {'VCPU': 1}})
        self.assertOneViolation(stranger, 'neither a server nor a move')

    def test_a_server_being_scheduled_may_hold_its_claim(self):
        uuid = self.build_request()
        self.allocate(uuid, {self.nodes['h1']: FLAVOR_USAGE})
        self.assertEqual([], self.run_audit())


class TestMovesInProgress(AuditTestCase):

    def evacuated(self, status='done'):
        """Evacuated from h1 to h2: the server holds h2, its migration
        h1 (with the port's bandwidth)."""
        instance = self.server(host='h2', allocated_on='h2')
        migration = self.migration(instance, status=status)
        self.allocate(migration.uuid, {self.nodes['h1']: FLAVOR_USAGE,
                                       self.nics['h1']: {EGRESS: 100}})
        return instance, migration

    def test_an_evacuation_not_cleaned_up_may_hold_its_source_tree(self):
        self.evacuated()
        self.assertEqual([], self.run_audit())

    def test_a_move_in_progress_holding_another_host(self):
        instance = self.server(host='h2', allocated_on='h2')
        migration = self.migration(instance, status='pre-migrating')
        self.allocate(migration.uuid, {self.nodes['h2']: FLAVOR_USAGE})
        self.assertOneViolation(migration.uuid, 'not its source')

    def test_a_completed_move_holding_anything(self):
        _instance, migration = self.evacuated(status='completed')
        self.assertOneViolation(migration.uuid, 'neither a server')


class TestSkipped(AuditTestCase):

    def test_a_server_in_a_task_is_skipped_whatever_it_holds(self):
        instance = self.server(allocated_on='h2',
                               task_state=states.REBUILDING)
        self.port_of(instance, host='h2')
        self.assertEqual([], self.run_audit())
        self.assertEqual((0, 1), (self.audit.checked, self.audit.skipped))


class TestACellThatDoesNotAnswer(AuditTestCase):
    """Its servers cannot be checked; the audit says so (``down``) and
    does not report what may be theirs."""

    def setUp(self):
        super().setUp()
        nova_fixtures.map_unreachable_cell(self.admin)

    def test_it_is_reported_and_the_other_cells_servers_are_checked(self):
        instance = self.server(allocated_on='h2')
        self.assertOneViolation(instance.uuid, 'is on h1', self.nodes['h2'])
        self.assertEqual(['cell9'], list(self.audit.down))
        self.assertIn('Cannot reach the database',
                      str(self.audit.down['cell9']))

    def test_allocations_and_ports_of_no_known_server_are_not_reported(
            self):
        stranger = uuidutils.generate_uuid()
        self.allocate(stranger, {self.nodes['h2']: FLAVOR_USAGE})
        self.ports.add(port_fakes.port(device_id=stranger, host='h2'))
        self.assertEqual([], self.run_audit())
        self.assertEqual(['cell9'], list(self.audit.down))
