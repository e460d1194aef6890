"""A move its conductor still works on is kept alive, and a conductor
whose move was taken over changes nothing of what the takeover settled
(conductor/move_leases.py).

The takeover is the real one (``recover.InterruptedMoves``), run while
the first conductor waits for the scheduler -- as when the scheduler
restarts for longer than interrupted_task_timeout.
"""

import datetime

from oslo_utils import timeutils

from nova_lite.compute import states
from nova_lite.conductor import move_leases
from nova_lite.conductor.tasks import evacuate
from nova_lite.conductor.tasks import recover
from nova_lite.conductor.tasks import unshelve
from nova_lite import context as nova_context
from nova_lite.db import api as db
from nova_lite.db import main_models as models
from nova_lite import objects
from tests.unit.conductor import test_evacuate_unshelve_tasks as moves

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


class MoveLeaseTestCase(moves.MoveTaskTestCase):

    def cell(self):
        return nova_context.target_cell(self.admin,
                                        self.plane.databases.cell1)

    def age(self, model, uuid, seconds=TIMEOUT + 10):
        """Make the record look untouched for ``seconds``."""
        old = timeutils.utcnow() - datetime.timedelta(seconds=seconds)
        with self.cell() as cctxt, db.cell_session(cctxt) as session:
            session.query(model).filter_by(uuid=uuid).update(
                {'updated_at': old})

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

    def test_an_unshelve_is_kept_alive_while_the_server_unshelves(self):
        with self.cell() as cctxt:
            shelved = self.server(states.SHELVED_OFFLOADED,
                                  states.UNSHELVING)
            with self.moves.unshelve(cctxt, shelved.uuid):
                self.assertEqual(1, self.moves.renew())
                shelved.task_state = None
                shelved.save()
                self.assertEqual(0, self.moves.renew())
