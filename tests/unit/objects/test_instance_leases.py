"""An instance's ``updated_at`` as the lease of its task: written and
judged by the database's clock, so a takeover on a machine whose clock
runs ahead takes nothing from a worker that keeps its task alive."""

import datetime

from oslo_utils import timeutils
import sqlalchemy as sa

from nova_lite.compute import states
from nova_lite.db import api as db
from nova_lite.db import main_models
from nova_lite import objects
from tests.unit.objects import test_objects

TIMEOUT = 300


class InstanceLeaseTestCase(test_objects.DatabaseTestCase):

    def age(self, instance, seconds):
        with db.cell_session(self.context) as session:
            session.execute(sa.update(main_models.Instance).where(
                main_models.Instance.uuid == instance.uuid).values(
                    updated_at=timeutils.utcnow().replace(tzinfo=None) -
                    datetime.timedelta(seconds=seconds)))

    def clock_ahead_here(self, hours=1):
        timeutils.set_time_override(
            timeutils.utcnow() + datetime.timedelta(hours=hours))
        self.addCleanup(timeutils.clear_time_override)

    def stale(self, **filters):
        return [instance.uuid for instance in
                objects.InstanceList.get_by_filters(
                    self.context, dict(filters, stale_for=TIMEOUT))]

    def unshelving(self):
        return self.make_instance(vm_state=states.SHELVED_OFFLOADED,
                                  task_state=states.UNSHELVING, host=None,
                                  node=None)


class TestStaleFor(InstanceLeaseTestCase):

    def test_only_those_not_written_for_the_timeout_are_listed(self):
        old, new = self.make_instance(), self.make_instance()
        self.age(old, TIMEOUT + 10)
        self.age(new, TIMEOUT - 10)
        self.assertEqual([old.uuid], self.stale())

    def test_a_save_makes_it_fresh(self):
        instance = self.make_instance()
        self.age(instance, TIMEOUT + 10)
        instance.task_state = states.SPAWNING
        instance.save()
        self.assertEqual([], self.stale())

    def test_a_clock_ahead_here_finds_nothing_stale(self):
        # Written just now by the database's clock; this machine's is an
        # hour ahead, and must not see the task as an hour old.
        self.make_instance()
        self.clock_ahead_here()
        self.assertEqual([], self.stale())

    def test_it_combines_with_the_other_filters(self):
        here, there = self.make_instance(), self.make_instance(
            host='compute2')
        self.age(here, TIMEOUT + 10)
        self.age(there, TIMEOUT + 10)
        self.assertEqual([there.uuid], self.stale(host='compute2'))


class TestEndTaskIfStale(InstanceLeaseTestCase):

    def test_a_stale_task_is_ended(self):
        instance = self.unshelving()
        self.age(instance, TIMEOUT + 10)
        self.assertTrue(instance.end_task_if_stale(states.UNSHELVING,
                                                   TIMEOUT))
        self.assertIsNone(instance.task_state)
        self.assertIsNone(objects.Instance.get_by_uuid(
            self.context, instance.uuid).task_state)

    def test_a_task_renewed_after_it_was_read_stale_is_kept(self):
        instance = self.unshelving()
        self.age(instance, TIMEOUT + 10)
        [read] = objects.InstanceList.get_by_filters(
            self.context, {'uuid': [instance.uuid], 'stale_for': TIMEOUT})
        # Its conductor renews it between the takeover's read and write.
        self.assertEqual(1, objects.Instance.renew(
            self.context, [instance.uuid], states.UNSHELVING))
        self.assertFalse(read.end_task_if_stale(states.UNSHELVING, TIMEOUT))
        self.assertEqual(states.UNSHELVING, objects.Instance.get_by_uuid(
            self.context, instance.uuid).task_state)

    def test_another_task_is_left(self):
        instance = self.unshelving()
        self.age(instance, TIMEOUT + 10)
        self.assertFalse(instance.end_task_if_stale(states.SPAWNING,
                                                    TIMEOUT))
        self.assertEqual(states.UNSHELVING, objects.Instance.get_by_uuid(
            self.context, instance.uuid).task_state)

    def test_a_clock_ahead_here_ends_no_fresh_task(self):
        instance = self.unshelving()
        self.clock_ahead_here()
        self.assertFalse(instance.end_task_if_stale(states.UNSHELVING,
                                                    TIMEOUT))

    def test_a_deleted_server_is_left(self):
        instance = self.unshelving()
        self.age(instance, TIMEOUT + 10)
        objects.Instance.get_by_uuid(self.context, instance.uuid).destroy()
        self.assertFalse(instance.end_task_if_stale(states.UNSHELVING,
                                                    TIMEOUT))
