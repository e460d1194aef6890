"""``nova-lite-manage audit``: providers used beyond their inventory, and
servers whose records disagree (in two cells, in a cell and still a
BuildRequest, unmapped, or mapped to another cell).

The fixtures of ``test_audit``: real cell and API databases, real
placement in this process, the in-memory port service; hosts h1 and h2
with 4 VCPU and 4096 MB each. Placement never lets usage exceed an
inventory, so an over-commit (left by an operator's hand, or by a bug) is
made by writing the inventory row with SQL.
"""

from oslo_utils import uuidutils
import sqlalchemy as sa

from nova_lite.compute import states
from nova_lite import objects
from nova_lite.placement import db as placement_db
from nova_lite.placement import resource_classes
from tests.unit import test_audit


class TestCapacity(test_audit.AuditTestCase):

    def set_inventory_row(self, provider, resource_class, **values):
        """Write one inventory row of ``provider`` as no API would."""
        inv = placement_db.INVENTORIES
        with placement_db.transaction() as connection:
            provider_id = connection.execute(
                sa.select(placement_db.PROVIDERS.c.id).where(
                    placement_db.PROVIDERS.c.uuid == provider)
            ).scalar_one()
            connection.execute(inv.update().where(
                inv.c.resource_provider_id == provider_id,
                inv.c.resource_class_id == resource_classes.id_of(
                    connection, resource_class)).values(**values))

    def test_usage_above_the_inventory_is_reported(self):
        self.server()
        self.server()
        self.set_inventory_row(self.nodes['h1'], 'VCPU', total=1)
        self.assertOneViolation(self.nodes['h1'],
                                '2 VCPU in use, more than the 1')

    def test_usage_at_exactly_the_inventory_is_fine(self):
        for _ in range(4):
            self.server()
        self.assertEqual([], self.run_audit())

    def test_the_limit_counts_reserved_and_the_allocation_ratio(self):
        # (4 - 1) * 2.0 = 6 VCPU may be handed out.
        self.reportclient.set_inventory(self.nodes['h1'], {
            'VCPU': {'total': 4, 'reserved': 1, 'allocation_ratio': 2.0},
            'MEMORY_MB': {'total': 4096}})
        for _ in range(6):
            self.server()
        self.assertEqual([], self.run_audit())

    def test_a_lower_allocation_ratio_than_the_usage_is_reported(self):
        self.reportclient.set_inventory(self.nodes['h1'], {
            'VCPU': {'total': 4, 'reserved': 1, 'allocation_ratio': 2.0},
            'MEMORY_MB': {'total': 4096}})
        for _ in range(6):
            self.server()
        self.set_inventory_row(self.nodes['h1'], 'VCPU',
                               allocation_ratio=1.0)
        self.assertOneViolation(self.nodes['h1'],
                                '6 VCPU in use, more than the 3')

    def test_a_child_providers_bandwidth_is_checked_too(self):
        instance = self.server(allocated_on=None)
        self.allocate(instance.uuid, {self.nodes['h1']: {'VCPU': 1,
                                                         'MEMORY_MB': 512},
                                      self.nics['h1']: {test_audit.EGRESS:
                                                        5000}})
        self.set_inventory_row(self.nics['h1'], test_audit.EGRESS,
                               total=1000)
        self.assertOneViolation(self.nics['h1'], '5000 %s in use'
                                % test_audit.EGRESS, 'the 1000')


class TestRecords(test_audit.AuditTestCase):

    def build_request_for(self, uuid):
        objects.BuildRequest(
            self.admin, instance_uuid=uuid, project_id='p',
            instance=objects.Instance(uuid=uuid, project_id='p',
                                      flavor=test_audit.make_flavor())
        ).create()

    def test_a_consistent_server_is_not_reported(self):
        self.server()
        self.assertEqual([], self.run_audit())

    def test_a_server_in_two_cells_is_reported_once(self):
        # Buried in cell0 and built in cell1 as well: both hold nothing.
        instance = self.server(host=None, allocated_on=None,
                               vm_state=states.ERROR)
        self.server(host=None, allocated_on=None, vm_state=states.ERROR,
                    cell=self.databases.cell0, uuid=instance.uuid,
                    mapped=False)
        self.assertOneViolation(
            'server %s exists in more than one cell' % instance.uuid,
            'cell0', 'cell1')

    def test_a_server_in_a_cell_and_still_a_build_request_is_reported(self):
        instance = self.server()
        self.build_request_for(instance.uuid)
        self.assertOneViolation(
            'server %s exists in cell cell1 and is still a BuildRequest'
            % instance.uuid)

    def test_a_server_without_a_mapping_is_reported(self):
        instance = self.server(mapped=False)
        self.assertOneViolation(
            'server %s in cell cell1 has no instance mapping'
            % instance.uuid)

    def test_a_server_mapped_to_another_cell_is_reported(self):
        instance = self.server(mapped=False)
        objects.InstanceMapping(
            self.admin, instance_uuid=instance.uuid, project_id='p',
            cell_mapping=self.databases.cell0).create()
        self.assertOneViolation(
            'server %s is in cell cell1 but its mapping points at cell0'
            % instance.uuid)

    def test_a_server_whose_mapping_points_at_no_cell_is_reported(self):
        instance = self.server(mapped=False)
        objects.InstanceMapping(
            self.admin, instance_uuid=instance.uuid, project_id='p',
            cell_mapping=None).create()
        self.assertOneViolation(
            'server %s is in cell cell1 but its mapping points at no cell'
            % instance.uuid)

    def test_a_server_still_only_a_build_request_is_not_reported(self):
        self.build_request_for(uuidutils.generate_uuid())
        self.assertEqual([], self.run_audit())

    def test_a_server_the_conductor_is_placing_is_not_reported(self):
        # ScheduleAndBuildTask._build_one has created the instance in the
        # cell and not yet mapped it there nor deleted its BuildRequest:
        # a normal step of every build, which an audit run at that moment
        # sees. Servers in a task are skipped, as the module says.
        instance = self.server(host=None, allocated_on=None,
                               vm_state=states.BUILDING,
                               task_state=states.SCHEDULING, mapped=False)
        objects.InstanceMapping(
            self.admin, instance_uuid=instance.uuid, project_id='p',
            cell_mapping=None).create()
        self.build_request_for(instance.uuid)
        self.assertEqual([], self.run_audit())
