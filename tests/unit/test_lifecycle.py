"""``lifecycle.set_error``: a server put in ERROR carries its fault, and
with an expected task state only a server still in that task is."""

from nova_lite.compute import states
from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite import lifecycle
from nova_lite import objects
from tests.unit.conductor import test_evacuate_unshelve_tasks as moves


class TestSetError(moves.MoveTaskTestCase):

    def setUp(self):
        super().setUp()
        self.instance = self.server(states.ACTIVE, states.REBUILDING,
                                    host='src', with_port=False)
        self.cctxt = self.instance._context
        self.error = exception.InstanceTaskInterrupted(
            instance_uuid=self.instance.uuid, task='evacuation',
            reason='no progress')

    def current(self):
        return objects.Instance.get_by_uuid(self.cctxt, self.instance.uuid,
                                            expected_attrs=['fault'])

    def test_it_ends_the_task_in_error_with_the_fault(self):
        self.assertTrue(lifecycle.set_error(self.cctxt, self.instance,
                                            self.error))
        stored = self.current()
        self.assertEqual((states.ERROR, None),
                         (stored.vm_state, stored.task_state))
        self.assertIn('no progress', stored.fault.message)

    def test_while_still_in_the_task_it_is_the_same(self):
        self.assertTrue(lifecycle.set_error(
            self.cctxt, self.instance, self.error,
            expected_task_state=states.REBUILDING))
        stored = self.current()
        self.assertEqual((states.ERROR, None),
                         (stored.vm_state, stored.task_state))
        self.assertIn('no progress', stored.fault.message)

    def test_a_server_that_moved_on_is_left_alone_without_a_fault(self):
        other = objects.Instance.get_by_uuid(self.cctxt, self.instance.uuid)
        other.task_state = states.DELETING
        other.save()
        self.assertFalse(lifecycle.set_error(
            self.cctxt, self.instance, self.error,
            expected_task_state=states.REBUILDING))
        stored = self.current()
        self.assertEqual((states.ACTIVE, states.DELETING, None),
                         (stored.vm_state, stored.task_state, stored.fault))

    def test_a_deleted_server_is_not_an_error(self):
        with nova_context.target_cell(self.admin,
                                      self.plane.databases.cell1) as cctxt:
            objects.Instance.get_by_uuid(cctxt,
                                         self.instance.uuid).destroy()
        self.assertFalse(lifecycle.set_error(
            self.cctxt, self.instance, self.error,
            expected_task_state=states.REBUILDING))
