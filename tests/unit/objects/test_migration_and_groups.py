"""Migration and MigrationList in a cell database; RequestGroup (a port's
resource request) and what RequestSpec 1.3 carries of them, and sends an
older receiver.

Also home of ``MigratedDatabases``, which the tests of the moves use in
place of ``tests.unit.fixtures.Databases``.
"""

import atexit
import os
import shutil
import tempfile
import threading

import fixtures
from oslo_config import fixture as config_fixture
from oslo_serialization import jsonutils
from oslo_utils import uuidutils
from oslo_versionedobjects import base as ovo_base
import testtools

from nova_lite import conf as nova_conf
from nova_lite import context as nova_context
from nova_lite.db import api as db
from nova_lite.db import api_models
from nova_lite.db import migration as db_migration
from nova_lite import objects
from nova_lite.objects import base
from nova_lite.objects import cell_mapping
from nova_lite.objects import migration as migration_obj
from tests.unit import fixtures as nova_fixtures
from tests.unit.objects import test_objects

CONF = nova_conf.CONF
EGRESS = 'NET_BW_EGR_KILOBIT_PER_SEC'

_TEMPLATES = {}
_TEMPLATES_LOCK = threading.Lock()


def _migrated_template(schema):
    """A SQLite file of ``schema`` (API or MAIN) migrated once per test
    process, for each test to copy."""
    with _TEMPLATES_LOCK:
        if schema not in _TEMPLATES:
            directory = tempfile.mkdtemp(prefix='nova-lite-%s-' % schema)
            atexit.register(shutil.rmtree, directory, True)
            path = os.path.join(directory, schema + '.sqlite')
            url = 'sqlite:///' + path
            db_migration.db_sync(url, schema)
            db.forget(url)
            _TEMPLATES[schema] = path
    return _TEMPLATES[schema]


class MigratedDatabases(nova_fixtures.Databases):
    """``tests.unit.fixtures.Databases`` (an API database, cell0 and
    cell1, mapped), each a copy of a database migrated once per test
    process rather than migrated for each test: the same schema in a
    fraction of the time."""

    def _setUp(self):
        objects.register_all()
        directory = self.useFixture(fixtures.TempDir()).path
        urls = {}
        for name, schema in (('api', db_migration.API),
                             ('cell0', db_migration.MAIN),
                             ('cell1', db_migration.MAIN)):
            path = os.path.join(directory, name + '.sqlite')
            shutil.copy(_migrated_template(schema), path)
            urls[name] = 'sqlite:///' + path
        self.api_url = urls['api']
        self.cell0_url = urls['cell0']
        self.cell1_url = urls['cell1']
        overrides = self.useFixture(config_fixture.Config(CONF))
        overrides.config(connection=self.api_url, group='api_database')
        overrides.config(connection=self.cell1_url, group='database')
        self.addCleanup(db.dispose_all)
        admin = nova_context.get_admin_context()
        self.cell0 = objects.CellMapping(
            admin, uuid=cell_mapping.CELL0_UUID, name='cell0',
            transport_url=nova_fixtures.FAKE_TRANSPORT_URL,
            database_connection=self.cell0_url)
        self.cell0.create()
        self.cell1 = objects.CellMapping(
            admin, name='cell1',
            transport_url=nova_fixtures.FAKE_TRANSPORT_URL,
            database_connection=self.cell1_url)
        self.cell1.create()


def use_migrated_databases(test):
    """Have ``tests.unit.fixtures.Databases`` (which the existing base test
    cases use) be MigratedDatabases for ``test``; call before their
    setUp."""
    test.useFixture(fixtures.MonkeyPatch('tests.unit.fixtures.Databases',
                                         MigratedDatabases))


def bandwidth_port(port_id='port-1', egress=1000,
                   required=('CUSTOM_VNIC_TYPE_NORMAL',
                             'CUSTOM_PHYSNET_PHYSNET0')):
    return {'id': port_id, 'resource_request': {
        'resources': {EGRESS: egress}, 'required': list(required)}}


class MigrationTestCase(test_objects.DatabaseTestCase):

    def setUp(self):
        use_migrated_databases(self)
        super().setUp()

    def make_migration(self, context=None, **overrides):
        values = dict(instance_uuid=uuidutils.generate_uuid(),
                      migration_type=migration_obj.EVACUATION,
                      status='accepted', source_compute='compute1',
                      source_node='compute1')
        values.update(overrides)
        migration = objects.Migration(context or self.context, **values)
        migration.create()
        return migration

    def stored(self, migration):
        return objects.Migration.get_by_uuid(self.context, migration.uuid)


class TestMigration(MigrationTestCase):

    def test_create_gives_it_an_id_and_a_uuid(self):
        migration = self.make_migration()
        self.assertTrue(uuidutils.is_uuid_like(migration.uuid))
        self.assertIsInstance(migration.id, int)

    def test_create_keeps_a_uuid_it_was_given(self):
        uuid = uuidutils.generate_uuid()
        self.assertEqual(uuid, self.make_migration(uuid=uuid).uuid)

    def test_get_by_uuid_returns_what_create_stored(self):
        migration = self.make_migration(dest_compute='compute2')
        found = self.stored(migration)
        self.assertEqual(
            (migration.instance_uuid, 'evacuation', 'accepted', 'compute1',
             'compute1', 'compute2', None, None),
            (found.instance_uuid, found.migration_type, found.status,
             found.source_compute, found.source_node, found.dest_compute,
             found.dest_node, found.dest_host))

    def test_an_unknown_uuid_is_migration_not_found(self):
        error = self.assertRaises(migration_obj.MigrationNotFound,
                                  objects.Migration.get_by_uuid,
                                  self.context, uuidutils.generate_uuid())
        self.assertEqual(404, error.code)

    def test_save_writes_the_changed_fields(self):
        migration = self.make_migration()
        migration.status = 'pre-migrating'
        migration.dest_compute = migration.dest_host = 'compute2'
        migration.dest_node = 'node2'
        migration.save()
        found = self.stored(migration)
        self.assertEqual(('pre-migrating', 'compute2', 'node2', 'compute2'),
                         (found.status, found.dest_compute, found.dest_node,
                          found.dest_host))

    def test_save_leaves_no_pending_changes(self):
        migration = self.make_migration()
        migration.status = 'done'
        migration.save()
        self.assertEqual(set(), migration.obj_what_changed())

    def test_save_without_changes_writes_nothing(self):
        migration = self.make_migration()
        before = self.stored(migration).updated_at
        migration.save()
        self.assertEqual(before, self.stored(migration).updated_at)

    def test_a_migration_read_back_has_no_pending_changes(self):
        self.assertEqual(set(), self.stored(self.make_migration())
                         .obj_what_changed())

    def test_migrations_live_in_the_cell_they_were_created_in(self):
        migration = self.make_migration()
        self.assertRaises(
            migration_obj.MigrationNotFound, objects.Migration.get_by_uuid,
            test_objects.cell_context(self.databases.cell0), migration.uuid)

    def test_a_migration_crosses_the_wire_unchanged(self):
        migration = self.stored(self.make_migration(dest_compute='c2'))
        received = test_objects.over_the_wire(migration)
        self.assertEqual(
            test_objects.comparable(migration.obj_to_primitive()),
            test_objects.comparable(received.obj_to_primitive()))


class TestMigrationFlow(MigrationTestCase):
    """The steps of a compute flow, recorded for a takeover to read."""

    def test_recorded_steps_are_read_back(self):
        migration = self.make_migration()
        migration.record_flow('evacuation at the destination',
                              [['claim_here', 'node2'],
                               ['bind_here', {'port': 'p1', 'host': None}]])
        self.assertEqual(
            [['claim_here', 'node2'], ['bind_here', {'port': 'p1',
                                                     'host': None}]],
            self.stored(migration).recorded_steps(
                'evacuation at the destination'))

    def test_another_flows_record_is_not_read_as_this_ones(self):
        migration = self.make_migration()
        migration.record_flow('live migration at the source', [])
        self.assertEqual((None, []), (
            self.stored(migration).recorded_steps('evacuation'),
            self.stored(migration).recorded_steps(
                'live migration at the source')))

    def test_a_migration_without_a_record_has_no_steps(self):
        self.assertIsNone(self.stored(self.make_migration()).recorded_steps(
            'evacuation at the destination'))

    def test_a_record_writes_nothing_else_and_keeps_other_changes(self):
        migration = self.make_migration()
        migration.status = 'pre-migrating'
        migration.record_flow('evacuation', [['claim_here', None]])
        self.assertEqual(('accepted', {'status'}),
                         (self.stored(migration).status,
                          migration.obj_what_changed()))

    def test_a_receiver_older_than_1_2_gets_no_record(self):
        migration = self.make_migration()
        migration.record_flow('evacuation', [['claim_here', None]])
        primitive = self.stored(migration).obj_to_primitive(
            target_version='1.1')
        self.assertNotIn('flow', primitive['nova_lite_object.data'])
        self.assertIn('memory_total', primitive['nova_lite_object.data'])


class TestMigrationFlowThroughTheConductor(MigrationTestCase):
    """A compute records its steps through the conductor."""

    def setUp(self):
        super().setUp()
        self.useFixture(nova_fixtures.FakeRPC())
        self.conductor = test_objects.InProcessConductor()
        base.NovaLiteObject.indirection_api = self.conductor
        self.addCleanup(setattr, base.NovaLiteObject,
                        'indirection_api', None)

    def test_the_record_lands_and_the_other_changes_stay(self):
        with test_objects.conductor_side():
            created = self.make_migration(status='pre-migrating')
        migration = objects.Migration.get_by_uuid(
            nova_context.get_admin_context(), created.uuid)
        migration.status = 'done'
        migration.record_flow('evacuation', [['claim_here', 'n1']])
        self.assertIn(('Migration', 'record_flow'), self.conductor.calls)
        with test_objects.conductor_side():
            stored = self.stored(migration)
        self.assertEqual(([['claim_here', 'n1']], 'pre-migrating'),
                         (stored.recorded_steps('evacuation'),
                          stored.status))
        self.assertEqual({'status'}, migration.obj_what_changed())


class TestMigrationInProgress(testtools.TestCase):
    """``in_progress``: the move's source side still holds something."""

    def assertInProgress(self, expected, status):
        migration = objects.Migration(status=status)
        self.assertEqual(expected, migration.in_progress, status)

    def test_a_move_until_done_is_in_progress(self):
        objects.register_all()
        for status in ('accepted', 'pre-migrating', 'migrating', 'running',
                       'preparing', 'queued', 'done'):
            self.assertInProgress(True, status)

    def test_a_completed_failed_or_error_move_is_not(self):
        objects.register_all()
        for status in ('completed', 'failed', 'error'):
            self.assertInProgress(False, status)


class TestMigrationList(MigrationTestCase):

    def uuids(self, migrations):
        return [m.uuid for m in migrations]

    def test_evacuated_from_lists_the_evacuations_the_host_must_clean(self):
        wanted = [self.make_migration(status=status)
                  for status in ('accepted', 'pre-migrating', 'done')]
        found = objects.MigrationList.get_evacuated_from(self.context,
                                                         'compute1')
        self.assertEqual(self.uuids(wanted), self.uuids(found))

    def test_evacuated_from_skips_finished_evacuations(self):
        for status in ('completed', 'failed', 'error'):
            self.make_migration(status=status)
        self.assertEqual([], self.uuids(
            objects.MigrationList.get_evacuated_from(self.context,
                                                     'compute1')))

    def test_evacuated_from_skips_other_hosts_and_other_moves(self):
        self.make_migration(source_compute='compute2')
        self.make_migration(migration_type=migration_obj.LIVE_MIGRATION)
        self.assertEqual([], self.uuids(
            objects.MigrationList.get_evacuated_from(self.context,
                                                     'compute1')))

    def test_by_instance_lists_its_moves_oldest_first(self):
        instance_uuid = uuidutils.generate_uuid()
        first = self.make_migration(instance_uuid=instance_uuid,
                                    status='error')
        second = self.make_migration(instance_uuid=instance_uuid)
        self.make_migration()
        self.assertEqual(self.uuids([first, second]), self.uuids(
            objects.MigrationList.get_by_instance(self.context,
                                                  instance_uuid)))

    def test_in_progress_lists_the_moves_still_holding_a_source(self):
        running = self.make_migration(
            migration_type=migration_obj.LIVE_MIGRATION, status='running')
        done = self.make_migration(status='done')
        for status in ('completed', 'failed', 'error'):
            self.make_migration(status=status)
        self.assertEqual(self.uuids([running, done]), self.uuids(
            objects.MigrationList.get_in_progress(self.context)))


class TestRequestGroup(testtools.TestCase):

    def setUp(self):
        super().setUp()
        objects.register_all()

    def test_a_port_with_a_resource_request_is_a_group(self):
        group = objects.RequestGroup.from_port(bandwidth_port())
        self.assertEqual(
            ('port-1', {EGRESS: 1000},
             ['CUSTOM_PHYSNET_PHYSNET0', 'CUSTOM_VNIC_TYPE_NORMAL']),
            (group.requester_id, group.resources, group.required_traits))

    def test_its_suffix_is_the_port_id_behind_an_underscore(self):
        group = objects.RequestGroup.from_port(bandwidth_port('a1b2'))
        self.assertEqual('_a1b2', group.suffix)

    def test_a_new_group_has_no_providers_yet(self):
        self.assertEqual([], objects.RequestGroup.from_port(
            bandwidth_port()).provider_uuids)

    def test_a_request_without_required_traits_requires_none(self):
        port = bandwidth_port()
        del port['resource_request']['required']
        self.assertEqual([], objects.RequestGroup.from_port(port)
                         .required_traits)

    def test_a_port_without_a_resource_request_is_no_group(self):
        self.assertIsNone(objects.RequestGroup.from_port({'id': 'p'}))
        self.assertIsNone(objects.RequestGroup.from_port(
            {'id': 'p', 'resource_request': None}))

    def test_a_request_without_resources_is_no_group(self):
        self.assertIsNone(objects.RequestGroup.from_port(
            {'id': 'p', 'resource_request': {'resources': {},
                                             'required': ['X']}}))

    def test_a_group_crosses_the_wire_with_its_providers(self):
        group = objects.RequestGroup.from_port(bandwidth_port())
        group.provider_uuids = ['rp-1']
        received = test_objects.over_the_wire(group)
        self.assertEqual((['rp-1'], {EGRESS: 1000}),
                         (received.provider_uuids, received.resources))


class RequestSpecTestCase(test_objects.DatabaseTestCase):
    """A spec with a port's request group, and how it is sent."""

    def setUp(self):
        use_migrated_databases(self)
        super().setUp()

    def make_spec(self, **overrides):
        group = objects.RequestGroup.from_port(bandwidth_port())
        group.provider_uuids = ['rp-1']
        values = dict(instance_uuid=uuidutils.generate_uuid(),
                      flavor=test_objects.make_flavor(),
                      requested_networks=objects.NetworkRequestList
                      .from_api([{'port': uuidutils.generate_uuid()}]),
                      requested_resources=[group])
        values.update(overrides)
        return objects.RequestSpec(self.admin_context, **values)

    def as_sent_to(self, spec, version):
        """The spec's primitive for a receiver of RequestSpec ``version``,
        as the scheduler RPC client backports it."""
        manifest = dict(ovo_base.obj_tree_get_versions('RequestSpec'),
                        RequestSpec=version)
        return spec.obj_to_primitive(target_version=version,
                                     version_manifest=manifest)

    def backported(self, spec, version):
        return self.as_sent_to(spec, version)['nova_lite_object.data']


class TestRequestSpecGroups(RequestSpecTestCase):

    def test_for_a_1_2_receiver_the_request_groups_are_dropped(self):
        data = self.backported(self.make_spec(), '1.2')
        self.assertNotIn('requested_resources', data)
        self.assertIn('requested_networks', data)

    def test_for_a_1_3_receiver_the_request_groups_are_kept(self):
        data = self.backported(self.make_spec(), '1.3')
        [group] = data['requested_resources']
        self.assertEqual(['rp-1'],
                         group['nova_lite_object.data']['provider_uuids'])

    def test_a_spec_sent_as_1_2_reads_as_having_no_groups(self):
        primitive = self.as_sent_to(self.make_spec(), '1.2')
        received = objects.RequestSpec.obj_from_primitive(primitive)
        self.assertEqual([], received.requested_resources)

    def test_a_stored_spec_keeps_its_groups_and_their_providers(self):
        spec = self.make_spec()
        spec.create()
        found = objects.RequestSpec.get_by_instance_uuid(
            self.admin_context, spec.instance_uuid)
        [group] = found.requested_resources
        self.assertEqual(('port-1', '_port-1', ['rp-1']),
                         (group.requester_id, group.suffix,
                          group.provider_uuids))

    def test_a_spec_an_older_api_stored_reads_as_having_no_groups(self):
        spec = self.make_spec()
        with db.api_session() as session:
            session.add(api_models.RequestSpec(
                instance_uuid=spec.instance_uuid,
                spec=jsonutils.dumps(self.as_sent_to(spec, '1.2'))))
        found = objects.RequestSpec.get_by_instance_uuid(
            self.admin_context, spec.instance_uuid)
        self.assertEqual([], found.requested_resources)

    def test_a_spec_with_groups_crosses_the_wire(self):
        received = test_objects.over_the_wire(self.make_spec())
        [group] = received.requested_resources
        self.assertEqual(['rp-1'], group.provider_uuids)


class TestRequestedDestination(RequestSpecTestCase):
    """RequestSpec 1.4: a move's named host, kept for a 1.4 receiver and
    dropped for an older one."""

    def make_spec(self, **overrides):
        return super().make_spec(
            requested_destination=objects.Destination(host='compute2'),
            **overrides)

    def test_for_a_1_3_receiver_the_requested_destination_is_dropped(self):
        data = self.backported(self.make_spec(), '1.3')
        self.assertNotIn('requested_destination', data)
        self.assertIn('requested_resources', data)

    def test_a_spec_sent_as_1_3_reads_as_requesting_no_host(self):
        primitive = self.as_sent_to(self.make_spec(), '1.3')
        received = objects.RequestSpec.obj_from_primitive(primitive)
        self.assertIsNone(received.requested_destination)

    def test_the_requested_destination_crosses_the_wire(self):
        received = test_objects.over_the_wire(self.make_spec())
        self.assertEqual(('compute2', None),
                         (received.requested_destination.host,
                          received.requested_destination.node))

    def test_a_spec_without_one_requests_no_host(self):
        spec = objects.RequestSpec(flavor=test_objects.make_flavor())
        self.assertIsNone(spec.requested_destination)
