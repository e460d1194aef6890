"""The resource tracker's audit and the moves in progress: what the
scheduler claimed on this host for a server that is still elsewhere.

The compute manager of ``dst`` (its resource tracker reporting to the
real placement app, in this process; a real cell database), as in
``test_manager_moves``; the server is ACTIVE on ``src``.
"""

from nova_lite.compute import states
from nova_lite import objects
from tests.unit.compute import test_manager_moves as manager_fixtures


class TestAuditDuringALiveMigration(manager_fixtures.ManagerTestCase):
    """The scheduler claimed ``dst`` for the server, which still runs on
    ``src`` while it is live migrated here."""

    def setUp(self):
        super().setUp()
        self.instance = self.make_instance(task_state=states.MIGRATING,
                                           host='src')
        self.claimed = self.allocation_on('dst', with_port=False)
        self.allocate(self.instance.uuid, self.claimed)

    def audit(self):
        self.manager.rt.update_available_resource(self.context, 'dst')

    def test_the_claim_of_a_migrating_server_is_left_to_its_move(self):
        self.audit()
        self.assertEqual(self.claimed, self.resources(self.instance.uuid))

    def test_the_claim_is_removed_once_the_server_is_at_rest_elsewhere(self):
        self.audit()
        self.instance.task_state = None
        self.instance.save()
        self.audit()
        self.assertEqual({}, self.resources(self.instance.uuid))


class TestAuditOfMigrationConsumers(manager_fixtures.ManagerTestCase):
    """A migration record's consumer on ``dst`` (the source side of a
    move that started there)."""

    def setUp(self):
        super().setUp()
        self.instance = self.make_instance(host='src')
        self.migration = objects.Migration(
            self.context, instance_uuid=self.instance.uuid,
            migration_type='live-migration', status='running',
            source_compute='dst', source_node='dst', dest_compute='src',
            dest_node='src')
        self.migration.create()
        self.held = self.allocation_on('dst')
        self.allocate(self.migration.uuid, self.held)

    def audit(self):
        self.manager.rt.update_available_resource(self.context, 'dst')

    def test_it_is_left_while_the_move_runs(self):
        self.audit()
        self.assertEqual(self.held, self.resources(self.migration.uuid))

    def test_it_is_deleted_with_its_bandwidth_once_the_move_is_over(self):
        self.migration.status = 'completed'
        self.migration.save()
        self.audit()
        self.assertEqual({}, self.resources(self.migration.uuid))


class TestAuditOfAServerThatLeft(manager_fixtures.ManagerTestCase):

    def test_its_whole_allocation_here_goes_bandwidth_included(self):
        instance = self.make_instance(host='src')
        self.allocate(instance.uuid, dict(self.allocation_on('dst'),
                                          **self.allocation_on('src')))
        self.manager.rt.update_available_resource(self.context, 'dst')
        self.assertEqual(self.allocation_on('src'),
                         self.resources(instance.uuid))
