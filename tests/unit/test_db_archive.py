"""Archiving and purging a cell database (nova_lite.db.archive), on real
SQLite API, cell0 and cell1 databases: what moves to the shadow tables,
in which order and in which batches, what stays, and which API database
rows go with an archived server.

Also home of ``CellRows``, which writes the rows of servers, services and
compute nodes as the services leave them (deleted ones soft-deleted), for
the tests of ``nova-lite-manage db archive_deleted_rows`` and ``db purge``.
"""

import datetime
import types

import fixtures
from oslo_utils import uuidutils
import sqlalchemy as sa
import testtools

from nova_lite.db import api as db_api
from nova_lite.db import api_models
from nova_lite.db import archive
from nova_lite.db import main_models as models
from tests.unit import fixtures as nova_fixtures
from tests.unit.objects import test_migration_and_groups as db_fixtures

EVENTS = models.InstanceActionEvent.__table__
ACTIONS = models.InstanceAction.__table__
FAULTS = models.InstanceFault.__table__
MIGRATIONS = models.Migration.__table__
SERVERS = models.Instance.__table__
SERVICES = models.Service.__table__
NODES = models.ComputeNode.__table__
MAPPINGS = api_models.InstanceMapping.__table__
SPECS = api_models.RequestSpec.__table__
GROUPS = api_models.InstanceGroup.__table__
MEMBERS = api_models.InstanceGroupMember.__table__

NOW = datetime.datetime.utcnow().replace(microsecond=0)
DAYS_AGO = datetime.timedelta(days=1)


class CellRows(fixtures.Fixture):
    """Rows of a cell database (and of the API database) written as the
    services write them, read back table by table."""

    def __init__(self, databases):
        super().__init__()
        self.databases = databases
        self.group_id = None

    def _setUp(self):
        with self.api() as connection:
            self.group_id = connection.execute(GROUPS.insert().values(
                uuid=uuidutils.generate_uuid(), policy='affinity',
                project_id='demo')).inserted_primary_key[0]

    def api(self):
        return db_api.connection(self.databases.api_url)

    def cell(self, url=None):
        return db_api.connection(url or self.databases.cell1_url)

    def server(self, deleted_at=None, cell=None, history=True,
               migration_status=None, mapped_to=None):
        """A server of ``cell`` (default cell1) and its API rows: mapping
        (to ``mapped_to``, default that cell), request spec, group
        membership; with ``history``, an action with an event and a
        fault; with ``migration_status``, a migration. Soft-deleted at
        ``deleted_at`` if given. Its uuid."""
        cell = cell or self.databases.cell1
        uuid = uuidutils.generate_uuid()
        with self.cell(cell.database_connection) as connection:
            connection.execute(SERVERS.insert().values(
                uuid=uuid, project_id='demo', user_id='demo',
                display_name='web', locked=False, created_at=NOW,
                deleted=0))
            if history:
                action_id = connection.execute(ACTIONS.insert().values(
                    instance_uuid=uuid, action='create', created_at=NOW,
                    request_id='req-%s' % uuid)).inserted_primary_key[0]
                connection.execute(EVENTS.insert().values(
                    action_id=action_id, event='compute_build_and_run',
                    result='Success', created_at=NOW))
                connection.execute(FAULTS.insert().values(
                    instance_uuid=uuid, code=500, message='No valid host',
                    created_at=NOW))
            if migration_status:
                connection.execute(MIGRATIONS.insert().values(
                    uuid=uuidutils.generate_uuid(), instance_uuid=uuid,
                    migration_type='evacuation', status=migration_status,
                    created_at=NOW, deleted=0))
        if deleted_at is not None:
            self.delete_server(uuid, deleted_at, cell)
        with self.api() as connection:
            connection.execute(MAPPINGS.insert().values(
                instance_uuid=uuid, cell_id=(mapped_to or cell).id,
                project_id='demo', queued_for_delete=deleted_at is not None))
            connection.execute(SPECS.insert().values(instance_uuid=uuid,
                                                     spec='{}'))
            connection.execute(MEMBERS.insert().values(
                group_id=self.group_id, instance_uuid=uuid))
        return uuid

    def newest_server(self, cell=None):
        """A live server with a row newer than every other in each table
        of a server's: where ids are given out again (SQLite), the row of
        the highest id stays, so without it the newest deleted server
        would not be archived."""
        return self.server(cell=cell, migration_status='completed')

    def delete_server(self, uuid, deleted_at=None, cell=None):
        """Soft-delete, as Instance.destroy does."""
        cell = cell or self.databases.cell1
        with self.cell(cell.database_connection) as connection:
            connection.execute(SERVERS.update().where(
                SERVERS.c.uuid == uuid).values(
                deleted=SERVERS.c.id, deleted_at=deleted_at or NOW,
                vm_state='deleted'))

    def service(self, host, deleted_at=None):
        with self.cell() as connection:
            service_id = connection.execute(SERVICES.insert().values(
                uuid=uuidutils.generate_uuid(), host=host,
                binary='nova-lite-compute', report_count=0, disabled=False,
                forced_down=False, version=1, created_at=NOW,
                deleted=0)).inserted_primary_key[0]
            if deleted_at is not None:
                connection.execute(SERVICES.update().where(
                    SERVICES.c.id == service_id).values(
                    deleted=service_id, deleted_at=deleted_at))
        return host

    def compute_node(self, host, deleted_at=None):
        with self.cell() as connection:
            node_id = connection.execute(NODES.insert().values(
                uuid=uuidutils.generate_uuid(), host=host,
                hypervisor_hostname=host, hypervisor_type='fake',
                hypervisor_version=1, vcpus=8, memory_mb=4096, local_gb=100,
                vcpus_used=0, memory_mb_used=0, local_gb_used=0,
                free_ram_mb=4096, free_disk_gb=100, running_vms=0,
                current_workload=0, cpu_allocation_ratio=1.0,
                ram_allocation_ratio=1.0, disk_allocation_ratio=1.0,
                mapped=True, created_at=NOW, deleted=0))\
                .inserted_primary_key[0]
            if deleted_at is not None:
                connection.execute(NODES.update().where(
                    NODES.c.id == node_id).values(
                    deleted=node_id, deleted_at=deleted_at))
        return host

    def rows(self, table, shadow=False, url=None):
        """Every row of ``table`` (or of its shadow table), as dicts in id
        order."""
        read = models.SHADOW[table.name] if shadow else table
        with self.cell(url) as connection:
            return [dict(row._mapping) for row in connection.execute(
                sa.select(read).order_by(read.c.id))]

    def api_rows(self, table):
        with self.api() as connection:
            return [dict(row._mapping) for row in connection.execute(
                sa.select(table).order_by(table.c.id))]

    def of_server(self, uuid, shadow=False, url=None):
        """{table: rows} of the server ``uuid`` and its history, in the
        live tables or in the shadow tables."""
        servers = [r for r in self.rows(SERVERS, shadow, url)
                   if r['uuid'] == uuid]
        actions = [r for r in self.rows(ACTIONS, shadow, url)
                   if r['instance_uuid'] == uuid]
        action_ids = {r['id'] for r in actions}
        return {
            'instances': servers,
            'instance_actions': actions,
            'instance_actions_events': [
                r for r in self.rows(EVENTS, shadow, url)
                if r['action_id'] in action_ids],
            'instance_faults': [r for r in self.rows(FAULTS, shadow, url)
                                if r['instance_uuid'] == uuid],
            'migrations': [r for r in self.rows(MIGRATIONS, shadow, url)
                           if r['instance_uuid'] == uuid],
        }

    def api_rows_of(self, uuid):
        return {table.name: [r for r in self.api_rows(table)
                             if r['instance_uuid'] == uuid]
                for table in (MAPPINGS, SPECS, MEMBERS)}

    def dangling(self):
        """Live rows that point at a row no longer live: an event whose
        action, or an action, fault or migration whose server is gone."""
        action_ids = {r['id'] for r in self.rows(ACTIONS)}
        server_uuids = {r['uuid'] for r in self.rows(SERVERS)}
        found = ['event %(id)s' % r for r in self.rows(EVENTS)
                 if r['action_id'] not in action_ids]
        for table in (ACTIONS, FAULTS, MIGRATIONS):
            found += ['%s %s' % (table.name, r['id'])
                      for r in self.rows(table)
                      if r['instance_uuid'] not in server_uuids]
        return found


def empty_history():
    return {name: [] for name in ('instances', 'instance_actions',
                                  'instance_actions_events',
                                  'instance_faults', 'migrations')}


class ArchiveTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(nova_fixtures.Config())
        self.databases = self.useFixture(db_fixtures.MigratedDatabases())
        self.cell = self.useFixture(CellRows(self.databases))
        self.url = self.databases.cell1_url

    def archive(self, max_rows=1000, before=None, until_complete=False):
        return archive.archive(self.url, max_rows, before, until_complete)


class TestArchive(ArchiveTestCase):

    def test_a_deleted_server_and_its_history_move_to_the_shadow_tables(
            self):
        gone = self.cell.server(deleted_at=NOW,
                                migration_status='completed')
        self.cell.newest_server()
        before = self.cell.of_server(gone)
        archived = self.archive()
        self.assertEqual(empty_history(), self.cell.of_server(gone))
        self.assertEqual(before, self.cell.of_server(gone, shadow=True))
        self.assertEqual({'instance_actions_events': 1,
                          'instance_actions': 1, 'instance_faults': 1,
                          'migrations': 1, 'instances': 1},
                         dict(archived.rows))
        self.assertTrue(archived.complete)

    def test_a_live_server_and_its_history_stay(self):
        live = self.cell.server(migration_status='completed')
        self.cell.server(deleted_at=NOW)
        self.cell.newest_server()
        before = self.cell.of_server(live)
        self.archive()
        self.assertEqual(before, self.cell.of_server(live))
        self.assertEqual(empty_history(),
                         self.cell.of_server(live, shadow=True))

    def test_each_batch_moves_at_most_max_rows_children_first(self):
        for _ in range(2):
            self.cell.server(deleted_at=NOW, migration_status='completed')
        self.cell.newest_server()
        batches = []
        while True:
            archived = self.archive(max_rows=3)
            batches.append(dict(archived.rows))
            self.assertEqual([], self.cell.dangling())
            if archived.complete:
                break
        self.assertEqual([
            {'instance_actions_events': 2, 'instance_actions': 1},
            {'instance_actions': 1, 'instance_faults': 2},
            {'migrations': 2, 'instances': 1},
            {'instances': 1}], batches)

    def test_until_complete_runs_batches_until_one_is_not_full(self):
        for _ in range(2):
            self.cell.server(deleted_at=NOW, migration_status='completed')
        self.cell.newest_server()
        archived = self.archive(max_rows=3, until_complete=True)
        self.assertEqual({'instance_actions_events': 2,
                          'instance_actions': 2, 'instance_faults': 2,
                          'migrations': 2, 'instances': 2},
                         dict(archived.rows))
        self.assertTrue(archived.complete)
        self.assertEqual(0, sum(self.archive().rows.values()))

    def test_before_archives_only_what_was_deleted_before_the_date(self):
        old = self.cell.server(deleted_at=NOW - 10 * DAYS_AGO)
        recent = self.cell.server(deleted_at=NOW)
        self.cell.newest_server()
        recent_rows = self.cell.of_server(recent)
        self.archive(before=NOW - DAYS_AGO)
        self.assertEqual(empty_history(), self.cell.of_server(old))
        self.assertEqual(recent_rows, self.cell.of_server(recent))
        self.assertEqual(empty_history(),
                         self.cell.of_server(recent, shadow=True))

    def test_a_server_with_a_move_in_progress_stays_with_its_history(self):
        moving = self.cell.server(deleted_at=NOW, migration_status='done')
        self.cell.newest_server()
        before = self.cell.of_server(moving)
        self.assertEqual({}, dict(self.archive().rows))
        self.assertEqual(before, self.cell.of_server(moving))
        # Once the source host has cleaned up, the move has ended.
        with self.cell.cell() as connection:
            connection.execute(MIGRATIONS.update().values(
                status='completed'))
        self.archive()
        self.assertEqual(empty_history(), self.cell.of_server(moving))

    def test_the_api_rows_of_an_archived_server_are_deleted(self):
        gone = self.cell.server(deleted_at=NOW)
        live = self.cell.server()
        live_rows = self.cell.api_rows_of(live)
        archived = self.archive()
        self.assertEqual({'instance_mappings': [], 'request_specs': [],
                          'instance_group_members': []},
                         self.cell.api_rows_of(gone))
        self.assertEqual(live_rows, self.cell.api_rows_of(live))
        self.assertEqual({'instance_mappings': 1, 'request_specs': 1,
                          'instance_group_members': 1},
                         dict(archived.api_rows))

    def test_a_server_mapped_to_another_cell_keeps_its_api_rows(self):
        # Its record here is an old one; the server lives in cell0.
        elsewhere = self.cell.server(deleted_at=NOW,
                                     mapped_to=self.databases.cell0)
        self.cell.newest_server()
        rows = self.cell.api_rows_of(elsewhere)
        archived = self.archive()
        self.assertEqual(1, archived.rows['instances'])
        self.assertEqual(rows, self.cell.api_rows_of(elsewhere))
        self.assertEqual({}, dict(archived.api_rows))

    def test_deleted_services_and_compute_nodes_go_live_ones_stay(self):
        self.cell.service('compute1', deleted_at=NOW)
        self.cell.service('compute2')
        self.cell.compute_node('compute1', deleted_at=NOW)
        self.cell.compute_node('compute2')
        archived = self.archive()
        self.assertEqual({'services': 1, 'compute_nodes': 1},
                         dict(archived.rows))
        for table in (SERVICES, NODES):
            self.assertEqual(['compute2'],
                             [r['host'] for r in self.cell.rows(table)])
            self.assertEqual(['compute1'], [
                r['host'] for r in self.cell.rows(table, shadow=True)])

    def test_the_newest_row_stays_until_a_newer_one_exists(self):
        # SQLite gives the highest id out again once its row is gone:
        # the next server deleted would collide in the shadow table.
        gone = self.cell.server(deleted_at=NOW)
        self.assertEqual({}, dict(self.archive().rows))
        self.assertEqual(1, len(self.cell.of_server(gone)['instances']))
        newer = self.cell.server(deleted_at=NOW)
        self.assertEqual(1, self.archive().rows['instances'])
        self.assertEqual(empty_history(), self.cell.of_server(gone))
        self.assertEqual(1, len(self.cell.of_server(newer)['instances']))

    def test_a_row_already_in_its_shadow_table_fails_the_whole_batch(self):
        gone = self.cell.server(deleted_at=NOW)
        self.cell.newest_server()
        before = self.cell.of_server(gone)
        with self.cell.cell() as connection:
            connection.execute(models.SHADOW['instance_faults'].insert()
                               .values(before['instance_faults'][0]))
        error = self.assertRaises(archive.ShadowRowExists, self.archive)
        self.assertIn('instance_faults', error.format_message())
        # The events and actions moved before the faults are back.
        self.assertEqual(before, self.cell.of_server(gone))
        self.assertEqual([], self.cell.rows(EVENTS, shadow=True))


class TestWhichDatabasesGiveIdsOutAgain(testtools.TestCase):

    def reuses(self, name, version=None, mariadb=False):
        dialect = types.SimpleNamespace(name=name,
                                        server_version_info=version,
                                        is_mariadb=mariadb)
        return archive._reuses_ids(types.SimpleNamespace(dialect=dialect))

    def test_sqlite_does(self):
        self.assertTrue(self.reuses('sqlite'))

    def test_mariadb_before_10_2_4_does(self):
        self.assertTrue(self.reuses('mysql', (10, 1, 48), mariadb=True))

    def test_mariadb_10_2_4_and_later_does_not(self):
        self.assertFalse(self.reuses('mysql', (10, 11, 19, 'MariaDB'),
                                     mariadb=True))

    def test_mysql_before_8_does(self):
        self.assertTrue(self.reuses('mysql', (5, 7, 44)))

    def test_mysql_8_does_not(self):
        self.assertFalse(self.reuses('mysql', (8, 0, 36)))


class TestPurge(ArchiveTestCase):

    def test_without_a_date_every_shadow_row_goes(self):
        gone = self.cell.server(deleted_at=NOW, migration_status='error')
        self.cell.service('compute1', deleted_at=NOW)
        self.cell.newest_server()
        self.cell.service('compute2')
        self.archive()
        deleted = archive.purge(self.url)
        self.assertEqual({'shadow_instance_actions_events': 1,
                          'shadow_instance_actions': 1,
                          'shadow_instance_faults': 1,
                          'shadow_migrations': 1, 'shadow_instances': 1,
                          'shadow_services': 1}, deleted)
        for table in models.ARCHIVED_TABLES:
            self.assertEqual([], self.cell.rows(table, shadow=True))
        self.assertEqual(empty_history(), self.cell.of_server(gone))

    def test_before_a_date_the_history_of_servers_deleted_earlier_goes(
            self):
        old = self.cell.server(deleted_at=NOW - 10 * DAYS_AGO,
                               migration_status='completed')
        recent = self.cell.server(deleted_at=NOW,
                                  migration_status='completed')
        self.cell.newest_server()
        self.archive()
        recent_rows = self.cell.of_server(recent, shadow=True)
        deleted = archive.purge(self.url, before=NOW - DAYS_AGO)
        self.assertEqual(empty_history(),
                         self.cell.of_server(old, shadow=True))
        self.assertEqual(recent_rows,
                         self.cell.of_server(recent, shadow=True))
        self.assertEqual(5, sum(deleted.values()))

    def test_before_a_date_services_deleted_earlier_go(self):
        self.cell.service('compute1', deleted_at=NOW - 10 * DAYS_AGO)
        self.cell.service('compute2', deleted_at=NOW)
        self.cell.service('compute3')
        self.archive()
        self.assertEqual({'shadow_services': 1},
                         archive.purge(self.url, before=NOW - DAYS_AGO))
        self.assertEqual(['compute2'], [
            r['host'] for r in self.cell.rows(SERVICES, shadow=True)])
