"""A move its conductor still works on is kept alive, and a conductor
whose move was taken over changes nothing of what the takeover settled
(conductor/move_leases.py).

The takeover is the real one (``recover.InterruptedMoves``), run while
the first conductor waits for the scheduler -- as when the scheduler
restarts for longer than interrupted_task_timeout.
"""

import datetime

from oslo_utils import timeutils

from nova_lite.compute.flows import interrupted
from nova_lite.compute import states
from nova_lite.conductor import move_leases
from nova_lite.conductor.tasks import evacuate
from nova_lite.conductor.tasks import live_migrate
from nova_lite.conductor.tasks import recover
from nova_lite.conductor.tasks import unshelve
from nova_lite import context as nova_context
from nova_lite.db import api as db
from nova_lite.db import main_models as models
from nova_lite import objects
from tests.unit.conductor import test_evacuate_unshelve_tasks as moves
from tests.unit.conductor import test_live_migrate_task as live
from tests.unit import fixtures as nova_fixtures

TIMEOUT = 60


class TakingOverScheduler(moves.FakeScheduler):
    """Before it answers, the move is taken over: ``takeover()`` runs.
    Then it answers its selection as if its claim held (whatever it
    would claim or adopt, the first conductor must not go on)."""

    def __init__(self, takeover, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.takeover = takeover

    def select_destinations(self, context, spec, uuids,
                            return_alternates=True):
        self.specs.append(spec.obj_clone())
        self.takeover()
        return [[self.answer]]


class Aging:
    """For a move test case: records made to look untouched."""

    def cell(self):
        return nova_context.target_cell(self.admin,
                                        self.plane.databases.cell1)

    def age(self, model, uuid, seconds=TIMEOUT + 10):
        """Make the record look untouched for ``seconds``."""
        old = timeutils.utcnow() - datetime.timedelta(seconds=seconds)
        with self.cell() as cctxt, db.cell_session(cctxt) as session:
            session.query(model).filter_by(uuid=uuid).update(
                {'updated_at': old})


class MoveLeaseTestCase(Aging, moves.MoveTaskTestCase):

    def take_over(self):
        with self.cell() as cctxt:
            return recover.InterruptedMoves(
                cctxt, TIMEOUT, self.reportclient, ports=self.ports).run()


class TestAnEvacuationTakenOverWhileItsConductorWaits(MoveLeaseTestCase):

    def setUp(self):
        super().setUp()
        self.instance = self.server(states.ACTIVE, states.REBUILDING,
                                    host='src')
        self.compute = moves.FakeComputeRPC()
        self.undone = []

        def takeover():
            [migration] = self.migrations()
            self.age(models.Migration, migration.uuid)
            self.age(models.Instance, self.instance.uuid)
            self.undone.append(self.take_over())

        self.scheduler = TakingOverScheduler(
            takeover, self.selection(), self.reportclient)

    def migrations(self):
        with self.cell() as cctxt:
            return list(objects.MigrationList.get_by_instance(
                cctxt, self.instance.uuid))

    def evacuate(self):
        evacuate.EvacuateTask(
            self.context, self.instance, None, self.scheduler, self.compute,
            self.reportclient, self.ports).execute()

    def test_the_first_conductor_sends_nothing_to_a_compute(self):
        self.evacuate()
        self.assertEqual([1], self.undone)
        self.assertEqual([], self.compute.evacuations)

    def test_the_migration_stays_as_the_takeover_ended_it(self):
        self.evacuate()
        [migration] = self.migrations()
        self.assertEqual(('error', None), (migration.status,
                                           migration.dest_node))

    def test_the_server_stays_in_error_on_its_source_with_the_takeovers_fault(
            self):
        self.evacuate()
        stored = self.stored(self.instance)
        self.assertEqual((states.ERROR, None, 'src'),
                         (stored.vm_state, stored.task_state, stored.host))
        self.assertIn('no progress', stored.fault.details or
                      stored.fault.message)


class TestAnUnshelveTakenOverWhileItsConductorWaits(MoveLeaseTestCase):

    def setUp(self):
        super().setUp()
        self.instance = self.server(states.SHELVED_OFFLOADED,
                                    states.UNSHELVING)
        self.compute = moves.FakeComputeRPC()

        def takeover():
            self.age(models.Instance, self.instance.uuid)
            self.assertEqual(1, self.take_over())

        self.scheduler = TakingOverScheduler(
            takeover, self.selection(), self.reportclient)

    def test_the_first_conductor_sends_nothing_to_a_compute(self):
        unshelve.UnshelveTask(
            self.context, self.instance, self.scheduler, self.compute,
            self.reportclient, self.ports).execute()
        self.assertEqual([], self.compute.unshelves)
        stored = self.stored(self.instance)
        self.assertEqual((states.SHELVED_OFFLOADED, None, None),
                         (stored.vm_state, stored.task_state, stored.host))


class TestMovesItsConductorKeepsAlive(MoveLeaseTestCase):
    """The records look untouched for longer than the timeout, but the
    conductor's renewal (the manager's MovesInProgress, handed to the
    task) ran just before the takeover looked."""

    def setUp(self):
        super().setUp()
        self.moves = move_leases.MovesInProgress()
        self.compute = moves.FakeComputeRPC()
        self.undone = []

    def renewed_then_looked_at(self, aged):
        """A scheduler that, asked, ages the records ``aged()`` names,
        runs the conductor's renewal, then the takeover."""
        def look():
            for model, uuid in aged():
                self.age(model, uuid)
            self.assertEqual(1, self.moves.renew())
            self.undone.append(self.take_over())
        return TakingOverScheduler(look, self.selection(),
                                   self.reportclient)

    def test_an_evacuation_is_not_taken_over(self):
        instance = self.server(states.ACTIVE, states.REBUILDING, host='src')

        def aged():
            with self.cell() as cctxt:
                [migration] = objects.MigrationList.get_by_instance(
                    cctxt, instance.uuid)
            return [(models.Migration, migration.uuid),
                    (models.Instance, instance.uuid)]

        evacuate.EvacuateTask(
            self.context, instance, None, self.renewed_then_looked_at(aged),
            self.compute, self.reportclient, self.ports,
            moves=self.moves).execute()
        self.assertEqual(([0], 1), (self.undone,
                                    len(self.compute.evacuations)))

    def test_an_unshelve_is_not_taken_over(self):
        instance = self.server(states.SHELVED_OFFLOADED, states.UNSHELVING)
        unshelve.UnshelveTask(
            self.context, instance, self.renewed_then_looked_at(
                lambda: [(models.Instance, instance.uuid)]),
            self.compute, self.reportclient, self.ports,
            moves=self.moves).execute()
        self.assertEqual(([0], 1), (self.undone,
                                    len(self.compute.unshelves)))


class TakingOverHostsScheduler(live.HostsScheduler):
    """``takeover()`` runs before the request is answered (and claimed)."""

    def __init__(self, takeover, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.takeover = takeover

    def select_destinations(self, context, spec, uuids,
                            return_alternates=True):
        self.takeover()
        return super().select_destinations(context, spec, uuids,
                                           return_alternates)


class TestALiveMigrationTakenOverWhileItsConductorWaits(
        Aging, live.LiveMigrateTestCase):
    """The source compute's fence (``_end_for_its_conductor``) runs while
    the conductor waits for the scheduler; the source's undo of the
    recorded steps is left out, so that whatever the first conductor
    would still do shows."""

    def setUp(self):
        super().setUp()
        self.useFixture(nova_fixtures.Config()).config(
            interrupted_task_timeout=TIMEOUT, group='compute')
        self.ended = []

        def takeover():
            [migration] = self.migrations()
            with self.cell() as cctxt:
                self.age(models.Migration, migration.uuid)
                migration = objects.Migration.get_by_uuid(cctxt,
                                                          migration.uuid)
                self.ended.append(interrupted._end_for_its_conductor(
                    cctxt, migration))

        self.migrate(scheduler=TakingOverHostsScheduler(
            takeover, live.DESTINATIONS, self.selection, self.reportclient))

    def test_the_takeover_reads_every_step_the_conductor_will_take(self):
        [ended] = self.ended
        self.assertEqual(
            ['move_source_to_migration', 'claim_destination'],
            [name for name, _ in ended.recorded_steps(live_migrate.FLOW)])

    def test_the_first_conductor_binds_and_sends_nothing(self):
        self.assertEqual(([], []),
                         (self.ports.hosts_written('create_binding'),
                          self.compute.live_migrations))

    def test_the_migration_stays_as_the_takeover_ended_it(self):
        self.assertEqual('error', self.stored_migration().status)

    def test_the_first_conductor_undoes_nothing(self):
        # What the steps made is the takeover's to undo: the source
        # allocation still on the migration, the claim the scheduler
        # answered still the server's, the server still migrating.
        self.assertEqual(
            (self.allocation_on('dst', self.port_ids()),
             self.allocation_on('src', self.port_ids()), states.MIGRATING),
            (self.resources(self.instance.uuid),
             self.resources(self.migration.uuid),
             self.stored(self.instance).task_state))


class TestALiveMigrationItsConductorKeepsAlive(Aging,
                                               live.LiveMigrateTestCase):
    """The server and the migration look untouched for longer than the
    timeout, but the conductor renewed them just before the source
    compute looked."""

    def setUp(self):
        super().setUp()
        self.useFixture(nova_fixtures.Config()).config(
            interrupted_task_timeout=TIMEOUT, group='compute')
        self.moves = move_leases.MovesInProgress()
        self.ended = []

        def renewed_then_looked_at():
            [migration] = self.migrations()
            self.age(models.Migration, migration.uuid)
            self.age(models.Instance, self.instance.uuid)
            self.assertEqual(1, self.moves.renew())
            with self.cell() as cctxt:
                self.ended.append(interrupted._end_for_its_conductor(
                    cctxt, objects.Migration.get_by_uuid(cctxt,
                                                         migration.uuid)))

        self.scheduler = TakingOverHostsScheduler(
            renewed_then_looked_at, live.DESTINATIONS, self.selection,
            self.reportclient)
        live_migrate.LiveMigrationTask(
            self.context, self.instance, None, False, self.scheduler,
            live.LiveMigrationComputeRPC(), self.reportclient, self.ports,
            moves=self.moves).execute()

    def test_it_is_not_taken_over(self):
        self.assertEqual([None], self.ended)

    def test_it_goes_on_to_its_source(self):
        [migration] = self.migrations()
        self.assertEqual('queued', migration.status)

    def test_the_server_was_marked_alive_too(self):
        self.assertGreater(
            self.stored(self.instance).updated_at.replace(tzinfo=None),
            timeutils.utcnow().replace(tzinfo=None) -
            datetime.timedelta(seconds=TIMEOUT))


class TestMovesInProgress(MoveLeaseTestCase):

    def setUp(self):
        super().setUp()
        self.moves = move_leases.MovesInProgress()
        self.instance = self.server(states.ACTIVE, states.REBUILDING,
                                    host='src')
        with self.cell() as cctxt:
            self.migration = objects.Migration(
                cctxt, instance_uuid=self.instance.uuid,
                migration_type='evacuation', status='accepted',
                source_compute='src', source_node='src')
            self.migration.create()
        self.age(models.Migration, self.migration.uuid)

    def updated_at(self):
        with self.cell() as cctxt:
            return objects.Migration.get_by_uuid(
                cctxt, self.migration.uuid).updated_at.replace(tzinfo=None)

    def test_a_move_worked_on_is_marked_alive(self):
        with self.cell() as cctxt, self.moves.evacuation(cctxt,
                                                         self.migration):
            self.assertEqual(1, self.moves.renew())
        self.assertGreater(self.updated_at(), timeutils.utcnow().replace(
            tzinfo=None) - datetime.timedelta(seconds=TIMEOUT))

    def test_a_move_no_longer_worked_on_is_left_to_age(self):
        with self.cell() as cctxt, self.moves.evacuation(cctxt,
                                                         self.migration):
            pass
        before = self.updated_at()
        self.assertEqual((0, 0), (len(self.moves), self.moves.renew()))
        self.assertEqual(before, self.updated_at())

    def test_a_move_ended_by_a_takeover_is_not_kept_alive(self):
        with self.cell() as cctxt, self.moves.evacuation(cctxt,
                                                         self.migration):
            self.migration.status = 'error'
            self.migration.save()
            self.age(models.Migration, self.migration.uuid)
            before = self.updated_at()
            self.assertEqual(0, self.moves.renew())
            self.assertEqual(before, self.updated_at())

    def test_a_cancelled_live_migration_is_kept_alive_until_undone(self):
        # Its conductor undoes it at its next step; meanwhile its source
        # compute must not take it for one whose conductor died.
        with self.cell() as cctxt:
            instance = self.server(states.ACTIVE, states.MIGRATING,
                                   host='src')
            migration = objects.Migration(
                cctxt, instance_uuid=instance.uuid,
                migration_type='live-migration', status='accepted',
                source_compute='src', source_node='src')
            migration.create()
            with self.moves.live_migration(cctxt, migration):
                migration.status = 'cancelled'
                migration.save()
                self.age(models.Instance, instance.uuid)
                self.assertEqual(1, self.moves.renew())
                migration.status = 'error'  # a takeover ended it
                migration.save()
                self.assertEqual(0, self.moves.renew())
        self.assertGreater(
            self.stored(instance).updated_at.replace(tzinfo=None),
            timeutils.utcnow().replace(tzinfo=None) -
            datetime.timedelta(seconds=TIMEOUT))

    def test_an_unshelve_is_kept_alive_while_the_server_unshelves(self):
        with self.cell() as cctxt:
            shelved = self.server(states.SHELVED_OFFLOADED,
                                  states.UNSHELVING)
            with self.moves.unshelve(cctxt, shelved.uuid):
                self.assertEqual(1, self.moves.renew())
                shelved.task_state = None
                shelved.save()
                self.assertEqual(0, self.moves.renew())
