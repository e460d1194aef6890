"""Live migration through the Compute API: POST /servers/{id}/action
os-migrateLive; a server's live migrations in progress
(/servers/{id}/migrations: list, show, abort); every cell's migration
records (/os-migrations).

As in ``test_server_moves``: the port service is the in-memory stand-in
(with the multiple bindings extension) in place of the API's port
client; the conductor and the computes are recorders on their RPC
topics. The servers are demo's, in cell1, on host1.
"""

import shutil

import fixtures
import oslo_messaging as messaging

from nova_lite.api.compute import servers
from nova_lite.compute import states
from nova_lite.conductor import rpcapi as conductor_rpcapi
from nova_lite import context as nova_context
from nova_lite.db import migration as db_migration
from nova_lite import objects
from tests.unit.api import base
from tests.unit.api import test_server_moves
from tests.unit.conductor import test_live_migrate_task as live_fakes
from tests.unit.objects import test_migration_and_groups as db_fixtures
from tests.unit import test_quota

GUEST_MEMORY = 512 * 1024 * 1024


class LiveMigrationConductorRecorder(test_server_moves.MoveConductorRecorder):
    """The conductor recorder, also for conductor RPC 1.3: the live
    migrations (and from 1.5 their force)."""

    target = messaging.Target(version='1.5')

    def _setUp(self):
        self.live_migrations = []
        super()._setUp()

    def live_migrate_instance(self, context, **kwargs):
        with self._arrived:
            self.live_migrations.append((context, kwargs))
            self._arrived.notify_all()


class LiveMigrationCompute(test_server_moves.ShelvingCompute):
    """A compute of compute RPC 1.4 recording what it is sent."""

    target = messaging.Target(version='1.4')

    def live_migration_abort(self, context, **kwargs):
        self._record('live_migration_abort', **kwargs)


class LiveMigrationAPITestCase(test_server_moves.MovesTestCase):

    def setUp(self):
        self.useFixture(fixtures.MonkeyPatch(
            'tests.unit.api.test_server_moves.MoveConductorRecorder',
            LiveMigrationConductorRecorder))
        super().setUp()
        self.ports = live_fakes.BindingPortService()
        servers._API._ports = self.ports

    def migration(self, instance, status, migration_type='live-migration',
                  cell=None, **values):
        with nova_context.target_cell(self.admin_context,
                                      cell or self.cell1) as cctxt:
            migration = objects.Migration(
                cctxt, instance_uuid=instance.uuid,
                migration_type=migration_type, status=status,
                source_compute=instance.host, source_node=instance.host,
                **values)
            migration.create()
        return migration

    def stored_migration(self, migration):
        with nova_context.target_cell(self.admin_context,
                                      self.cell1) as cctxt:
            return objects.Migration.get_by_uuid(cctxt, migration.uuid)


# -- os-migrateLive -----------------------------------------------------------

class MigrateLiveTestCase(LiveMigrationAPITestCase):

    def migrate_live(self, instance, version='2.30', token=base.ADMIN,
                     **arguments):
        return self.action(instance.uuid, {'os-migrateLive': arguments},
                           version=version, token=token)

    def assertNothingChanged(self, instance):
        self.assertIsNone(self.in_cell1(instance.uuid).task_state)
        self.assertEqual([], self.conductor.live_migrations)

    def cast(self):
        [(_context, cast)] = self.conductor.wait_for(
            self.conductor.live_migrations)
        return cast


class TestMigrateLive(MigrateLiveTestCase):

    def setUp(self):
        super().setUp()
        self.service_up('host1')
        self.service_up('host2')
        self.instance = self.server(port='bandwidth')

    def test_accepted_and_cast_to_the_conductor(self):
        response = self.migrate_live(self.instance, host='host2',
                                     block_migration=True)
        self.assertEqual((202, b''), (response.status_int, response.body))
        cast = self.cast()
        self.assertEqual((self.instance.uuid, 'host2', True),
                         (cast['instance'].uuid, cast['host'],
                          cast['block_migration']))

    def test_without_a_host_the_scheduler_picks_one(self):
        self.migrate_live(self.instance, host=None, block_migration='auto')
        cast = self.cast()
        self.assertEqual((None, False),
                         (cast['host'], cast['block_migration']))

    def test_the_server_is_migrating_until_the_conductor_is_done(self):
        self.migrate_live(self.instance, host=None, block_migration='auto')
        self.assertEqual(states.MIGRATING,
                         self.in_cell1(self.instance.uuid).task_state)

    def test_the_live_migration_is_recorded_as_an_action(self):
        self.migrate_live(self.instance, host=None, block_migration='auto')
        actions = self.request(
            'GET', '/v2.1/servers/%s/os-instance-actions' %
            self.instance.uuid, token=base.ADMIN).json['instanceActions']
        self.assertEqual(['live-migration'], [a['action'] for a in actions])

    def test_an_unsent_cast_is_503_and_the_server_has_no_task(self):
        self.useFixture(fixtures.MockPatchObject(
            conductor_rpcapi.ConductorAPI, 'live_migrate_instance',
            side_effect=messaging.MessageDeliveryFailure('broker down')))
        self.assertError(self.migrate_live(self.instance, host=None,
                                           block_migration='auto'),
                         503, 'serviceUnavailable', 'broker down')
        self.assertIsNone(self.in_cell1(self.instance.uuid).task_state)


class TestMigrateLiveSchema(MigrateLiveTestCase):
    """block_migration, disk_over_commit and host are required before
    2.25; from 2.25 block_migration may be "auto" and disk_over_commit is
    gone; force is accepted from 2.30."""

    def setUp(self):
        super().setUp()
        self.service_up('host1')
        self.instance = self.server()

    def test_before_225_disk_over_commit_is_required(self):
        self.assertError(self.migrate_live(self.instance, version='2.24',
                                           host=None, block_migration=False),
                         400, 'badRequest', 'disk_over_commit')

    def test_before_225_the_three_are_accepted(self):
        response = self.migrate_live(self.instance, version='2.24',
                                     host=None, block_migration='true',
                                     disk_over_commit=False)
        self.assertEqual(202, response.status_int, response.body)
        self.assertTrue(self.cast()['block_migration'])

    def test_before_225_the_host_is_required(self):
        self.assertError(self.migrate_live(self.instance, version='2.24',
                                           block_migration=False,
                                           disk_over_commit=False),
                         400, 'badRequest', 'host')

    def test_before_225_auto_is_refused(self):
        self.assertError(self.migrate_live(self.instance, version='2.24',
                                           host=None, block_migration='auto',
                                           disk_over_commit=False),
                         400, 'badRequest')

    def test_from_225_auto_is_accepted(self):
        response = self.migrate_live(self.instance, version='2.25',
                                     host=None, block_migration='auto')
        self.assertEqual(202, response.status_int, response.body)

    def test_from_225_disk_over_commit_is_refused(self):
        self.assertError(self.migrate_live(self.instance, version='2.25',
                                           host=None, block_migration=False,
                                           disk_over_commit=False),
                         400, 'badRequest')

    def test_before_230_force_is_refused(self):
        self.assertError(self.migrate_live(self.instance, version='2.29',
                                           host=None, block_migration='auto',
                                           force=False),
                         400, 'badRequest')

    def test_from_230_force_is_accepted(self):
        response = self.migrate_live(self.instance, version='2.30',
                                     host=None, block_migration='auto',
                                     force=False)
        self.assertEqual(202, response.status_int, response.body)


class TestMigrateLiveToANamedHost(MigrateLiveTestCase):
    """A named host is filtered by the scheduler unless ``force`` (2.30)
    is true; the conductor is told which."""

    def setUp(self):
        super().setUp()
        self.service_up('host1')
        self.service_up('host2')
        self.instance = self.server()

    def test_from_230_force_is_passed_on(self):
        self.migrate_live(self.instance, host='host2', block_migration='auto',
                          force=True)
        self.assertEqual(('host2', True),
                         (self.cast()['host'], self.cast()['force']))

    def test_from_230_a_host_without_force_is_not_forced(self):
        self.migrate_live(self.instance, host='host2', block_migration='auto')
        self.assertEqual(('host2', False),
                         (self.cast()['host'], self.cast()['force']))

    def test_before_230_a_named_host_is_not_forced(self):
        # Nova's live migration went to a named host without the
        # scheduler before 2.30; nova_lite runs the filters at every
        # microversion.
        self.migrate_live(self.instance, version='2.29', host='host2',
                          block_migration='auto')
        self.assertEqual(('host2', False),
                         (self.cast()['host'], self.cast()['force']))

    def test_force_without_a_host_is_400(self):
        self.assertError(self.migrate_live(self.instance, host=None,
                                           block_migration='auto',
                                           force=True),
                         400, 'badRequest', 'non-provided destination')
        self.assertNothingChanged(self.instance)

    def test_conductors_pinned_to_1_4_refuse_an_unforced_host(self):
        # A 1.4 conductor would skip the filters for it.
        self.plane.config.config(conductor='1.4', group='upgrade_levels')
        self.fresh_rpc_clients()
        self.assertError(self.migrate_live(self.instance, host='host2',
                                           block_migration='auto'),
                         409, 'conflictingRequest', 'without force')
        self.assertNothingChanged(self.instance)

    def test_conductors_pinned_to_1_4_take_a_forced_host_as_before(self):
        self.plane.config.config(conductor='1.4', group='upgrade_levels')
        self.fresh_rpc_clients()
        response = self.migrate_live(self.instance, host='host2',
                                     block_migration='auto', force=True)
        self.assertEqual(202, response.status_int, response.body)
        self.assertNotIn('force', self.cast())

    def test_conductors_pinned_to_1_4_migrate_without_a_host(self):
        self.plane.config.config(conductor='1.4', group='upgrade_levels')
        self.fresh_rpc_clients()
        response = self.migrate_live(self.instance, host=None,
                                     block_migration='auto')
        self.assertEqual(202, response.status_int, response.body)
        self.assertNotIn('force', self.cast())


class TestMigrateLiveRefusals(MigrateLiveTestCase):

    def migrate(self, instance, **arguments):
        arguments.setdefault('host', None)
        return self.migrate_live(instance, block_migration='auto',
                                 **arguments)

    def test_it_is_for_admins(self):
        self.service_up('host1')
        instance = self.server()
        self.assertError(self.migrate(instance, token=base.DEMO), 403,
                         'forbidden')
        self.assertNothingChanged(instance)

    def test_a_server_that_is_not_active_is_409(self):
        self.service_up('host1')
        instance = self.server(vm_state=states.STOPPED)
        self.assertError(self.migrate(instance), 409, 'conflictingRequest',
                         'vm_state')
        self.assertNothingChanged(instance)

    def test_a_server_in_a_task_is_409(self):
        self.service_up('host1')
        instance = self.server()
        self.set_state(instance, task_state=states.REBUILDING)
        self.assertError(self.migrate(instance), 409, 'conflictingRequest',
                         'task_state')
        self.assertEqual([], self.conductor.live_migrations)

    def test_its_own_host_as_target_is_400(self):
        self.service_up('host1')
        instance = self.server()
        self.assertError(self.migrate(instance, host='host1'), 400,
                         'badRequest', 'same one')
        self.assertNothingChanged(instance)

    def test_an_unknown_target_host_is_404(self):
        self.service_up('host1')
        instance = self.server()
        self.assertError(self.migrate(instance, host='nowhere'), 404,
                         'itemNotFound', 'nowhere')
        self.assertNothingChanged(instance)

    def test_a_source_compute_that_is_down_is_409(self):
        instance = self.server()
        self.assertError(self.migrate(instance), 409, 'conflictingRequest',
                         'its compute is down')
        self.assertNothingChanged(instance)

    def test_computes_pinned_to_1_3_are_too_old(self):
        self.service_up('host1')
        self.plane.config.config(compute='1.3', group='upgrade_levels')
        self.fresh_rpc_clients()
        instance = self.server(port='plain')
        self.assertError(self.migrate(instance), 409, 'conflictingRequest',
                         'compute RPC API 1.4')
        self.assertNothingChanged(instance)

    def test_computes_pinned_to_1_3_cannot_move_port_resources(self):
        self.service_up('host1')
        self.plane.config.config(compute='1.3', group='upgrade_levels')
        self.fresh_rpc_clients()
        instance = self.server(port='bandwidth')
        self.assertError(self.migrate(instance), 409, 'conflictingRequest',
                         'minimum bandwidth')
        self.assertNothingChanged(instance)

    def test_conductors_pinned_below_1_3_are_409(self):
        self.service_up('host1')
        self.plane.config.config(conductor='1.2', group='upgrade_levels')
        self.fresh_rpc_clients()
        instance = self.server()
        self.assertError(self.migrate(instance), 409, 'conflictingRequest',
                         'conductor')
        self.assertNothingChanged(instance)

    def test_port_resources_without_multiple_bindings_are_409(self):
        self.service_up('host1')
        self.ports.extensions = set()
        instance = self.server(port='bandwidth')
        self.assertError(self.migrate(instance), 409, 'conflictingRequest',
                         'binding-extended')
        self.assertNothingChanged(instance)

    def test_plain_ports_need_no_multiple_bindings(self):
        self.service_up('host1')
        self.ports.extensions = set()
        instance = self.server(port='plain')
        self.assertEqual(202, self.migrate(instance).status_int)


# -- /servers/{id}/migrations -------------------------------------------------

class ServerMigrationsTestCase(LiveMigrationAPITestCase):

    def setUp(self):
        super().setUp()
        self.instance = self.server()

    def path(self, migration=None):
        path = '/v2.1/servers/%s/migrations' % self.instance.uuid
        return path if migration is None else '%s/%s' % (path, migration.id)

    def list(self, version='2.23', token=base.ADMIN):
        return self.request('GET', self.path(), version=version, token=token)


class TestListServerMigrations(ServerMigrationsTestCase):

    def test_before_223_there_is_no_such_resource(self):
        self.assertError(self.list(version='2.22'), 404, 'itemNotFound')

    def test_it_is_for_admins(self):
        self.assertError(self.list(token=base.DEMO), 403, 'forbidden')

    def test_only_live_migrations_in_progress_are_listed(self):
        running = self.migration(self.instance, 'running')
        queued = self.migration(self.instance, 'queued')
        self.migration(self.instance, 'completed')
        self.migration(self.instance, 'error')
        self.migration(self.instance, 'accepted',
                       migration_type='evacuation')
        self.assertEqual(
            [running.id, queued.id],
            [m['id'] for m in self.list().json['migrations']])

    def test_a_migration_shows_its_hosts_and_memory_progress(self):
        self.migration(self.instance, 'running', dest_compute='host2',
                       dest_node='host2', dest_host='host2',
                       memory_total=GUEST_MEMORY,
                       memory_processed=GUEST_MEMORY // 2,
                       memory_remaining=GUEST_MEMORY // 2)
        [shown] = self.list().json['migrations']
        self.assertEqual(
            (self.instance.uuid, 'running', 'host1', 'host2', 'host2',
             GUEST_MEMORY, GUEST_MEMORY // 2, GUEST_MEMORY // 2, None),
            (shown['server_uuid'], shown['status'], shown['source_compute'],
             shown['dest_compute'], shown['dest_host'],
             shown['memory_total_bytes'], shown['memory_processed_bytes'],
             shown['memory_remaining_bytes'], shown['disk_total_bytes']))

    def test_the_uuid_is_shown_from_259(self):
        migration = self.migration(self.instance, 'running')
        [before] = self.list(version='2.58').json['migrations']
        [after] = self.list(version='2.59').json['migrations']
        self.assertNotIn('uuid', before)
        self.assertEqual(migration.uuid, after['uuid'])


class TestShowServerMigration(ServerMigrationsTestCase):

    def show(self, migration, version='2.23'):
        return self.request('GET', self.path(migration), version=version,
                            token=base.ADMIN)

    def test_a_migration_in_progress_is_shown(self):
        migration = self.migration(self.instance, 'running')
        shown = self.show(migration).json['migration']
        self.assertEqual((migration.id, 'running'),
                         (shown['id'], shown['status']))

    def test_a_finished_migration_is_404(self):
        migration = self.migration(self.instance, 'completed')
        self.assertError(self.show(migration), 404, 'itemNotFound')

    def test_before_223_it_is_404(self):
        migration = self.migration(self.instance, 'running')
        self.assertError(self.show(migration, version='2.22'), 404,
                         'itemNotFound')


class TestAbortServerMigration(ServerMigrationsTestCase):

    def abort(self, migration, version='2.24'):
        return self.request('DELETE', self.path(migration), version=version,
                            token=base.ADMIN)

    def test_before_224_there_is_no_abort(self):
        migration = self.migration(self.instance, 'running')
        self.assertError(self.abort(migration, version='2.23'), 404,
                         'itemNotFound')
        self.assertEqual('running',
                         self.stored_migration(migration).status)

    def test_a_running_one_is_aborted_on_its_source_compute(self):
        compute = self.compute_up('host1', LiveMigrationCompute())
        migration = self.migration(self.instance, 'running')
        response = self.abort(migration)
        self.assertEqual(202, response.status_int, response.body)
        self.assertTrue(compute.arrived.wait(10))
        [(method, kwargs)] = compute.calls
        self.assertEqual(
            ('live_migration_abort', self.instance.uuid, migration.id),
            (method, kwargs['instance'].uuid, kwargs['migration_id']))

    def test_a_queued_one_before_265_is_409(self):
        migration = self.migration(self.instance, 'queued')
        self.assertError(self.abort(migration, version='2.64'), 409,
                         'conflictingRequest', 'queued')
        self.assertEqual('queued', self.stored_migration(migration).status)

    def test_a_queued_one_from_265_is_cancelled(self):
        migration = self.migration(self.instance, 'queued')
        response = self.abort(migration, version='2.65')
        self.assertEqual(202, response.status_int, response.body)
        self.assertEqual('cancelled',
                         self.stored_migration(migration).status)

    def test_an_accepted_one_from_265_is_cancelled(self):
        migration = self.migration(self.instance, 'accepted')
        self.abort(migration, version='2.65')
        self.assertEqual('cancelled',
                         self.stored_migration(migration).status)

    def test_a_finished_one_is_404(self):
        migration = self.migration(self.instance, 'completed')
        self.assertError(self.abort(migration, version='2.65'), 404,
                         'itemNotFound')


# -- /os-migrations -----------------------------------------------------------

class TestOsMigrations(LiveMigrationAPITestCase):

    def setUp(self):
        super().setUp()
        self.cell2 = self.another_cell()
        self.first = self.server()
        self.second = self.server(host='host2')

    def another_cell(self):
        """cell2: a copy of the migrated cell database, mapped."""
        path = self.useFixture(fixtures.TempDir()).join('cell2.sqlite')
        shutil.copy(db_fixtures._migrated_template(db_migration.MAIN), path)
        cell = objects.CellMapping(
            self.admin_context, name='cell2',
            transport_url=self.cell1.transport_url,
            database_connection='sqlite:///' + path)
        cell.create()
        return cell

    def list(self, query='', version='2.59', token=base.ADMIN):
        return self.request('GET', '/v2.1/os-migrations' + query,
                            version=version, token=token).json['migrations']

    def uuids(self, query='', version='2.59'):
        return [m['uuid'] for m in self.list(query, version)]

    def test_it_is_for_admins(self):
        response = self.request('GET', '/v2.1/os-migrations')
        self.assertError(response, 403, 'forbidden')

    def test_every_cells_migrations_newest_first(self):
        oldest = self.migration(self.first, 'completed')
        middle = self.migration(self.second, 'running', cell=self.cell2)
        newest = self.migration(self.first, 'error',
                                migration_type='evacuation')
        self.assertEqual([newest.uuid, middle.uuid, oldest.uuid],
                         self.uuids())

    def test_a_cell_whose_database_is_down_is_left_out_not_a_500(self):
        listed = self.migration(self.first, 'completed')
        objects.CellMapping(
            self.admin_context, name='cell9',
            transport_url=self.cell1.transport_url,
            database_connection=test_quota.UNREACHABLE_DB).create()
        response = self.request('GET', '/v2.1/os-migrations',
                                version='2.59', token=base.ADMIN)
        self.assertEqual(200, response.status_int, response.body)
        self.assertEqual([listed.uuid],
                         [m['uuid'] for m in response.json['migrations']])
        self.assertIn('Skipping cell cell9 in a migration list',
                      self.logs.output)

    def test_filtered_by_instance(self):
        self.migration(self.first, 'completed')
        theirs = self.migration(self.second, 'completed')
        self.assertEqual([theirs.uuid],
                         self.uuids('?instance_uuid=' + self.second.uuid))

    def test_filtered_by_type(self):
        live = self.migration(self.first, 'completed')
        self.migration(self.first, 'completed', migration_type='evacuation')
        self.assertEqual([live.uuid],
                         self.uuids('?migration_type=live-migration'))

    def test_filtered_by_status(self):
        self.migration(self.first, 'completed')
        running = self.migration(self.first, 'running', cell=self.cell2)
        self.assertEqual([running.uuid], self.uuids('?status=running'))

    def test_filtered_by_source_or_destination_host(self):
        away = self.migration(self.first, 'completed')
        towards = self.migration(self.second, 'running', dest_compute='host1',
                                 cell=self.cell2)
        self.migration(self.second, 'error', dest_compute='host3')
        self.assertEqual([towards.uuid, away.uuid],
                         self.uuids('?host=host1'))

    def test_type_and_links_are_shown_from_223(self):
        self.migration(self.first, 'completed')
        [before] = self.list(version='2.22')
        [after] = self.list(version='2.23')
        self.assertEqual(
            (False, False, 'live-migration', []),
            ('migration_type' in before, 'links' in before,
             after['migration_type'], after['links']))

    def test_the_uuid_is_shown_from_259(self):
        migration = self.migration(self.first, 'completed')
        [before] = self.list(version='2.58')
        [after] = self.list(version='2.59')
        self.assertEqual((False, migration.uuid),
                         ('uuid' in before, after['uuid']))
