"""Undoing the moves a dead conductor left half-done
(``recover.InterruptedMoves``) and deleting allocations nobody holds
(``recover.OrphanAllocations``). Same fixtures as test_recover: real
SQLite databases and placement, the port service in memory."""

import datetime

from oslo_utils import timeutils
from oslo_utils import uuidutils
import sqlalchemy as sa

from nova_lite.compute import states
from nova_lite.conductor.tasks import migrate
from nova_lite.conductor.tasks import recover
from nova_lite.db import api as db
from nova_lite.db import main_models
from nova_lite import objects
from tests.unit.conductor import test_recover
from tests.unit import fixtures as nl_fixtures
from tests.unit.network import test_client_helpers as port_fakes

TIMEOUT = test_recover.TIMEOUT
STALE = TIMEOUT + 100


class MovesTestCase(test_recover.RecoverTestCase):

    def server(self, vm_state, task_state, host, seconds_ago=STALE,
               cell=None):
        uuid = uuidutils.generate_uuid()
        with self.in_cell(cell) as cctxt:
            instance = objects.Instance(
                cctxt, uuid=uuid, project_id='p', user_id='u',
                display_name='vm', vm_state=vm_state, task_state=task_state,
                power_state=0, host=host, node=host, flavor=self.flavor)
            instance.create()
        objects.InstanceMapping(self.admin, instance_uuid=uuid,
                                project_id='p',
                                cell_mapping=cell or self.cell1).create()
        self.age(uuid, seconds_ago, cell)
        return instance

    def evacuation(self, instance, status, seconds_ago=STALE):
        return self.migration(instance, 'evacuation', status, seconds_ago)

    def migration(self, instance, migration_type, status, seconds_ago):
        """A migration of ``instance`` from h1 to h2, last changed
        ``seconds_ago``."""
        with self.in_cell() as cctxt:
            migration = objects.Migration(
                cctxt, instance_uuid=instance.uuid,
                migration_type=migration_type, status=status,
                source_compute='h1', source_node='h1', dest_compute='h2',
                dest_node='h2')
            migration.create()
            with db.cell_session(cctxt) as session:
                session.execute(sa.update(main_models.Migration).where(
                    main_models.Migration.uuid == migration.uuid).values(
                        updated_at=test_recover.ago(seconds_ago)))
        return migration

    def migration_status(self, migration):
        with self.in_cell() as cctxt:
            return objects.Migration.get_by_uuid(cctxt,
                                                 migration.uuid).status

    def evacuating(self, status='pre-migrating', seconds_ago=STALE):
        """A server evacuated from h1 (down) to h2: its source allocation
        held by the migration, h2 claimed for the server, its port still
        bound to h1."""
        instance = self.server(states.ACTIVE, states.REBUILDING, 'h1',
                               seconds_ago)
        migration = self.evacuation(instance, status, seconds_ago)
        self.allocate(migration.uuid, 'h1')
        self.allocate(instance.uuid, 'h2')
        self.ports.add(port_fakes.port(device_id=instance.uuid, host='h1',
                                       project_id=instance.project_id))
        return instance, migration

    def undo(self):
        return recover.InterruptedMoves(self.admin, TIMEOUT,
                                        self.reportclient,
                                        ports=self.ports).run()

    def sweep(self, first_seen, now):
        return recover.OrphanAllocations(
            self.admin, TIMEOUT, self.reportclient, first_seen).run(now)


class TestInterruptedEvacuation(MovesTestCase):

    def test_it_goes_back_to_its_source_in_error(self):
        instance, migration = self.evacuating()
        self.assertEqual(1, self.undo())
        stored = self.stored(instance.uuid)
        self.assertEqual((states.ERROR, None, 'h1'), (
            stored.vm_state, stored.task_state, stored.host))
        self.assertIn('evacuation', stored.fault.message)
        self.assertEqual('error', self.migration_status(migration))

    def test_its_source_allocation_comes_back_and_the_claim_goes(self):
        instance, migration = self.evacuating()
        self.undo()
        self.assertEqual({self.providers['h1']: test_recover.FLAVOR_USAGE},
                         self.resources(instance.uuid))
        self.assertEqual({}, self.resources(migration.uuid))

    def test_its_ports_stay_on_the_source(self):
        instance, _migration = self.evacuating()
        self.undo()
        self.assertEqual(['h1'], [p['binding:host_id'] for p in
                                  self.ports.ports_of(instance)])

    def test_an_accepted_one_is_undone_too(self):
        instance, migration = self.evacuating(status='accepted')
        self.assertEqual(1, self.undo())
        self.assertEqual('error', self.migration_status(migration))

    def test_a_recent_one_is_left_alone(self):
        instance, migration = self.evacuating(seconds_ago=10)
        self.assertEqual(0, self.undo())
        self.assertEqual('pre-migrating', self.migration_status(migration))
        self.assertEqual(states.REBUILDING,
                         self.stored(instance.uuid).task_state)

    def test_one_the_destination_took_over_is_left_to_it(self):
        instance, migration = self.evacuating()
        with self.in_cell() as cctxt:
            stored = objects.Instance.get_by_uuid(cctxt, instance.uuid)
            stored.host = 'h2'
            stored.task_state = states.REBUILD_SPAWNING
            stored.save()
        self.age(instance.uuid, STALE)
        self.assertEqual(0, self.undo())
        self.assertEqual('pre-migrating', self.migration_status(migration))

    def test_two_conductors_undo_it_once(self):
        instance, migration = self.evacuating()
        self.assertEqual(1, self.undo() + self.undo())

    def test_one_that_arrived_before_its_destination_died_is_done(self):
        # The destination saved the server (on h2, no task) and died
        # before it marked the migration done.
        instance, migration = self.evacuating()
        with self.in_cell() as cctxt:
            stored = objects.Instance.get_by_uuid(cctxt, instance.uuid)
            stored.host = 'h2'
            stored.node = 'h2'
            stored.task_state = None
            stored.save()
        self.age(instance.uuid, STALE)
        self.assertEqual(0, self.undo())
        self.assertEqual('done', self.migration_status(migration))
        stored = self.stored(instance.uuid)
        self.assertEqual((states.ACTIVE, None, 'h2'), (
            stored.vm_state, stored.task_state, stored.host))


class TestLiveMigrationThatArrived(MovesTestCase):
    """Its source died after the destination took the server over, before
    it marked the migration completed."""

    def arrived(self, status='running', seconds_ago=STALE):
        instance = self.server(states.ACTIVE, None, 'h2', seconds_ago)
        return instance, self.migration(instance, 'live-migration', status,
                                        seconds_ago)

    def test_it_is_completed(self):
        instance, migration = self.arrived()
        self.undo()
        self.assertEqual('completed', self.migration_status(migration))
        stored = self.stored(instance.uuid)
        self.assertEqual((states.ACTIVE, None, 'h2'), (
            stored.vm_state, stored.task_state, stored.host))

    def test_a_recent_one_is_left_to_its_source(self):
        _instance, migration = self.arrived(seconds_ago=10)
        self.undo()
        self.assertEqual('running', self.migration_status(migration))


class TestInterruptedUnshelve(MovesTestCase):

    def unshelving(self, seconds_ago=STALE):
        instance = self.server(states.SHELVED_OFFLOADED, states.UNSHELVING,
                               None, seconds_ago)
        self.allocate(instance.uuid, 'h2')  # the scheduler's claim
        self.ports.add(port_fakes.port(
            device_id=instance.uuid, project_id=instance.project_id))
        return instance

    def test_it_stays_offloaded_holding_nothing(self):
        instance = self.unshelving()
        self.assertEqual(1, self.undo())
        stored = self.stored(instance.uuid)
        self.assertEqual((states.SHELVED_OFFLOADED, None, None), (
            stored.vm_state, stored.task_state, stored.host))
        self.assertIn('unshelve', stored.fault.message)
        self.assertEqual({}, self.resources(instance.uuid))
        self.assertEqual([], self.bound_ports(instance.uuid))

    def test_a_recent_one_is_left_alone(self):
        instance = self.unshelving(seconds_ago=10)
        self.assertEqual(0, self.undo())
        self.assertEqual(states.UNSHELVING,
                         self.stored(instance.uuid).task_state)

    def test_a_clock_ahead_here_leaves_a_recent_one_alone(self):
        # Judged by the database's clock, not this conductor's.
        instance = self.unshelving(seconds_ago=10)
        timeutils.set_time_override(
            timeutils.utcnow() + datetime.timedelta(hours=1))
        self.addCleanup(timeutils.clear_time_override)
        self.assertEqual(0, self.undo())
        self.assertEqual(states.UNSHELVING,
                         self.stored(instance.uuid).task_state)


class TestOrphanAllocations(MovesTestCase):

    def record_provider_reads(self):
        """The list of providers whose allocations placement is asked
        for from now on, in order (placement still answers)."""
        reads = []
        real = self.reportclient.get_provider_allocations

        def read(uuid):
            reads.append(uuid)
            return real(uuid)
        self.reportclient.get_provider_allocations = read
        return reads

    def test_a_server_in_cell0_loses_its_allocation_at_once(self):
        instance = self.server(states.ERROR, None, None, cell=self.cell0)
        self.allocate(instance.uuid, 'h1')
        self.assertEqual(1, self.sweep({}, 1000.0))
        self.assertEqual({}, self.resources(instance.uuid))

    def test_an_unknown_consumer_loses_it_only_after_the_timeout(self):
        consumer = uuidutils.generate_uuid()
        self.allocate(consumer, 'h1')
        first_seen = {}
        self.assertEqual(0, self.sweep(first_seen, 1000.0))
        self.assertEqual(0, self.sweep(first_seen, 1000.0 + TIMEOUT - 1))
        self.assertIn(self.providers['h1'], self.resources(consumer))
        self.assertEqual(1, self.sweep(first_seen, 1000.0 + TIMEOUT))
        self.assertEqual({}, self.resources(consumer))
        self.assertEqual({}, first_seen)

    def test_servers_builds_and_moves_keep_theirs(self):
        active = self.server(states.ACTIVE, None, 'h1')
        self.allocate(active.uuid, 'h1')
        request, _spec = self.accepted()
        self.allocate(request.instance_uuid, 'h2')
        _instance, migration = self.evacuating()
        first_seen = {}
        self.sweep(first_seen, 1000.0)
        self.assertEqual(0, self.sweep(first_seen, 1000.0 + 10 * TIMEOUT))
        for consumer in (active.uuid, request.instance_uuid,
                         migration.uuid):
            self.assertNotEqual({}, self.resources(consumer), consumer)

    def test_a_provider_whose_generation_stayed_is_not_read_again(self):
        active = self.server(states.ACTIVE, None, 'h1')
        self.allocate(active.uuid, 'h1')
        reads = self.record_provider_reads()
        first_seen, known = {}, {}

        def sweep(now):
            return recover.OrphanAllocations(
                self.admin, TIMEOUT, self.reportclient, first_seen,
                known).run(now)
        sweep(1000.0)
        self.assertEqual(sorted(self.providers.values()), sorted(reads))
        del reads[:]
        sweep(1001.0)
        self.assertEqual([], reads)
        # An allocation written since changes its provider's generation:
        # that provider alone is read again, and its consumer is seen.
        stray = uuidutils.generate_uuid()
        self.allocate(stray, 'h2')
        sweep(1002.0)
        self.assertEqual([self.providers['h2']], reads)
        self.assertEqual(1, sweep(1002.0 + TIMEOUT))
        self.assertEqual({}, self.resources(stray))
        self.assertNotEqual({}, self.resources(active.uuid))

    def test_a_look_reads_at_most_its_share_the_oldest_first(self):
        reads = self.record_provider_reads()
        stray = uuidutils.generate_uuid()
        self.allocate(stray, 'h2')
        first_seen, known = {}, {}

        def sweep(now):
            del reads[:]
            deleted = recover.OrphanAllocations(
                self.admin, TIMEOUT, self.reportclient, first_seen, known,
                most=1).run(now)
            return deleted, list(reads)
        # Each look reads one provider; together they read every one.
        first = sweep(1000.0)[1]
        second = sweep(1001.0)[1]
        self.assertEqual(1, len(first))
        self.assertEqual(sorted(self.providers.values()),
                         sorted(first + second))
        self.assertEqual((0, []), sweep(1002.0))
        # The stray was seen when h2 was read, and goes after the timeout
        # though h2 is not read again.
        seen = 1000.0 if first == [self.providers['h2']] else 1001.0
        self.assertEqual(seen, first_seen[stray])
        self.assertEqual((1, []), sweep(seen + TIMEOUT))
        self.assertEqual({}, self.resources(stray))
        # Both changed since: the one read longest ago is read first.
        for host in ('h1', 'h2'):
            self.allocate(uuidutils.generate_uuid(), host)
        self.assertEqual(first, sweep(seen + TIMEOUT + 1)[1])
        self.assertEqual(second, sweep(seen + TIMEOUT + 2)[1])

    def test_the_placement_audit_counts_a_moves_source_side_as_held(self):
        from nova_lite import allocation_owners
        _instance, migration = self.evacuating()
        owners = allocation_owners.look(self.admin, self.reportclient)
        self.assertIn(migration.uuid, owners.allocations)
        self.assertIn(migration.uuid, owners.held)
        self.assertNotIn(migration.uuid, owners.nobodys())

    def test_another_services_allocation_is_never_touched(self):
        # A provider of a shared Placement that no compute node of this
        # deployment roots: someone else's.
        theirs = uuidutils.generate_uuid()
        self.reportclient.ensure_resource_provider(theirs, 'their-disk')
        self.reportclient.set_inventory(theirs, {'DISK_GB': {'total': 10}})
        consumer = uuidutils.generate_uuid()
        self.assertTrue(self.reportclient.claim_resources(consumer, {
            'allocations': {theirs: {'resources': {'DISK_GB': 1}}}},
            'p', 'u'))
        first_seen = {}
        self.sweep(first_seen, 1000.0)
        self.assertEqual(0, self.sweep(first_seen, 1000.0 + 10 * TIMEOUT))
        self.assertEqual({theirs: {'DISK_GB': 1}}, self.resources(consumer))

    def test_a_consumer_that_became_a_server_is_forgotten(self):
        consumer = uuidutils.generate_uuid()
        self.allocate(consumer, 'h1')
        first_seen = {}
        self.sweep(first_seen, 1000.0)
        self.assertIn(consumer, first_seen)
        with self.in_cell() as cctxt:
            objects.Instance(cctxt, uuid=consumer, project_id='p',
                             user_id='u', vm_state=states.ACTIVE,
                             task_state=None, power_state=0, host='h1',
                             node='h1', flavor=self.flavor).create()
        self.sweep(first_seen, 1000.0 + 1)
        self.assertNotIn(consumer, first_seen)


class TestACellThatDoesNotAnswer(MovesTestCase):
    """A cell whose database is down is skipped and logged; the others
    are looked at all the same."""

    def setUp(self):
        super().setUp()
        nl_fixtures.map_unreachable_cell(self.admin)

    def test_an_interrupted_move_in_another_cell_is_still_undone(self):
        _instance, migration = self.evacuating()
        self.assertEqual(1, self.undo())
        self.assertEqual('error', self.migration_status(migration))
        self.assertIn('Skipping cell cell9 in a look for interrupted moves',
                      self.logs.output)

    def test_no_allocation_is_deleted_as_nobodys_meanwhile(self):
        # Either might be a server of the cell that does not answer.
        buried = self.server(states.ERROR, None, None, cell=self.cell0)
        self.allocate(buried.uuid, 'h1')
        stranger = uuidutils.generate_uuid()
        self.allocate(stranger, 'h1')
        first_seen = {}
        self.assertEqual(0, self.sweep(first_seen, 1000.0))
        self.assertEqual(0, self.sweep(first_seen, 1000.0 + 10 * TIMEOUT))
        self.assertNotEqual({}, self.resources(buried.uuid))
        self.assertNotEqual({}, self.resources(stranger))
        self.assertIn('No allocation is deleted while a cell does not '
                      'answer', self.logs.output)


class TestInterruptedResize(MovesTestCase):
    """A resize whose conductor died while it was ``pre-migrating``: the
    conductor's recorded steps are undone."""

    def resizing(self, seconds_ago=STALE, steps=(
            'migration', 'move_source_to_migration', 'claim_destination')):
        """A server on h1 being resized to h2: its source allocation held
        by the migration, h2 claimed for the server, the conductor's
        ``steps`` recorded."""
        instance = self.server(states.ACTIVE, states.RESIZE_PREP, 'h1',
                               seconds_ago)
        migration = self.migration(instance, 'resize', 'pre-migrating',
                                   seconds_ago)
        self.allocate(migration.uuid, 'h1')
        self.allocate(instance.uuid, 'h2')
        with self.in_cell() as cctxt:
            migration._context = cctxt
            migration.record_flow(migrate.FLOW, [[step, None]
                                                 for step in steps])
            with db.cell_session(cctxt) as session:
                session.execute(sa.update(main_models.Migration).where(
                    main_models.Migration.uuid == migration.uuid).values(
                        updated_at=test_recover.ago(seconds_ago)))
        return instance, migration

    def test_the_server_gets_its_source_side_back_and_no_task(self):
        instance, migration = self.resizing()
        self.assertEqual(1, self.undo())
        self.assertEqual({self.providers['h1']},
                         set(self.resources(instance.uuid)))
        self.assertEqual({}, self.resources(migration.uuid))
        self.assertEqual('error', self.migration_status(migration))
        with self.in_cell() as cctxt:
            stored = objects.Instance.get_by_uuid(
                cctxt, instance.uuid, expected_attrs=['fault'])
        self.assertEqual(('h1', None), (stored.host, stored.task_state))
        self.assertIn('no progress', stored.fault.message)

    def test_a_resize_its_conductor_still_renews_is_left_alone(self):
        instance, migration = self.resizing(seconds_ago=0)
        self.assertEqual(0, self.undo())
        self.assertEqual('pre-migrating', self.migration_status(migration))

    def test_one_its_source_took_over_is_the_sources(self):
        instance, migration = self.resizing()
        with self.in_cell() as cctxt:
            stored = objects.Instance.get_by_uuid(cctxt, instance.uuid)
            stored.task_state = states.RESIZE_MIGRATING
            stored.save()
        self.assertEqual(0, self.undo())
