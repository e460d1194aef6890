"""nova_lite.flow: steps recorded before they are taken, undone newest
first on a failure, never on a crash or when the subject is not ours."""

import fixtures
import testtools

from nova_lite import flow


class Lost(Exception):
    pass


class FlowTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.logs = self.useFixture(fixtures.FakeLogger())
        self.undone = []
        self.records = []
        self.undos = flow.undo_table(
            claim=lambda arg: self.undone.append(('claim', arg)),
            create=lambda arg: self.undone.append(('create', arg)),
            broken=self.broken_undo,
            mark=None)

    def broken_undo(self, arg):
        raise RuntimeError('placement is down')

    def record(self, steps):
        self.records.append(steps)

    def run_flow(self, error, steps=('claim', 'create'), **kwargs):
        def body():
            with flow.Flow('test', 'server-1', self.undos,
                           record=self.record, **kwargs) as f:
                for index, name in enumerate(steps):
                    f.step(name, index)
                raise error
        self.assertRaises(type(error), body)


class TestUndo(FlowTestCase):

    def test_a_failure_undoes_the_steps_newest_first(self):
        self.run_flow(ValueError('boom'))
        self.assertEqual([('create', 1), ('claim', 0)], self.undone)

    def test_an_undo_that_fails_does_not_stop_the_others(self):
        self.run_flow(ValueError('boom'), steps=('claim', 'broken', 'create'))
        self.assertEqual([('create', 2), ('claim', 0)], self.undone)
        self.assertIn('could not undo broken', self.logs.output)

    def test_a_crash_undoes_nothing(self):
        self.run_flow(KeyboardInterrupt())
        self.assertEqual([], self.undone)

    def test_a_subject_that_is_not_ours_is_not_undone(self):
        self.run_flow(Lost(), not_ours=(Lost,))
        self.assertEqual([], self.undone)

    def test_a_finished_flow_is_not_undone(self):
        def body():
            with flow.Flow('test', 'server-1', self.undos) as f:
                f.step('claim')
                f.done()
                raise ValueError('after the outcome')
        self.assertRaises(ValueError, body)
        self.assertEqual([], self.undone)

    def test_a_step_with_no_undo_is_passed_over(self):
        self.run_flow(ValueError('boom'), steps=('claim', 'mark'))
        self.assertEqual([('claim', 0)], self.undone)


class TestRecord(FlowTestCase):

    def test_each_step_is_recorded_before_it_is_taken(self):
        self.run_flow(ValueError('boom'))
        self.assertEqual([[['claim', 0]], [['claim', 0], ['create', 1]]],
                         self.records)

    def test_a_step_taken_without_a_record_is_undone_and_recorded_later(
            self):
        def body():
            with flow.Flow('test', 'server-1', self.undos,
                           record=self.record) as f:
                f.step('claim', 0)
                f.step('mark', record=False)
                f.step('create', 2)
                raise ValueError('boom')
        self.assertRaises(ValueError, body)
        self.assertEqual([[['claim', 0]],
                          [['claim', 0], ['mark', None], ['create', 2]]],
                         self.records)
        self.assertEqual([('create', 2), ('claim', 0)], self.undone)

    def test_a_step_whose_record_fails_is_not_undone(self):
        def refuse_second(steps):
            if len(steps) == 2:
                raise Lost('taken over')

        def body():
            with flow.Flow('test', 'server-1', self.undos,
                           record=refuse_second) as f:
                f.step('claim', 0)
                f.step('create', 1)
        self.assertRaises(Lost, body)
        self.assertEqual([('claim', 0)], self.undone)

    def test_a_settled_step_is_recorded_and_undone_with_its_new_arg(self):
        def body():
            with flow.Flow('test', 'server-1', self.undos,
                           record=self.record) as f:
                f.step('claim')
                f.settle('node-2')
                raise ValueError('boom')
        self.assertRaises(ValueError, body)
        self.assertEqual([[['claim', None]], [['claim', 'node-2']]],
                         self.records)
        self.assertEqual([('claim', 'node-2')], self.undone)

    def test_a_settle_whose_record_fails_keeps_the_first_arg(self):
        def refuse_settle(steps):
            if steps[-1][1] is not None:
                raise Lost('taken over')

        def body():
            with flow.Flow('test', 'server-1', self.undos,
                           record=refuse_settle) as f:
                f.step('claim')
                f.settle('node-2')
        self.assertRaises(Lost, body)
        self.assertEqual([('claim', None)], self.undone)

    def test_nothing_to_settle_before_a_step(self):
        f = flow.Flow('test', 'server-1', self.undos)
        self.assertRaises(KeyError, f.settle, 'node-2')

    def test_an_unknown_step_is_refused(self):
        f = flow.Flow('test', 'server-1', self.undos)
        self.assertRaises(KeyError, f.step, 'no-such-step')

    def test_a_takeover_replays_the_recorded_undos(self):
        flow.undo_recorded('test', 'server-1', self.undos,
                           [['claim', 0], ['create', 1]])
        self.assertEqual([('create', 1), ('claim', 0)], self.undone)


class TestInherit(FlowTestCase):
    """Steps another daemon took, handed over with the work."""

    def test_inherited_steps_are_undone_with_the_flows_own(self):
        def body():
            with flow.Flow('test', 'server-1', self.undos) as f:
                f.inherit([['claim', 'conductor']])
                f.step('create', 1)
                raise ValueError('boom')
        self.assertRaises(ValueError, body)
        self.assertEqual([('create', 1), ('claim', 'conductor')],
                         self.undone)

    def test_they_are_recorded_with_the_next_step(self):
        with flow.Flow('test', 'server-1', self.undos,
                       record=self.record) as f:
            f.inherit([['claim', 'conductor']])
            self.assertEqual([], self.records)
            f.step('create', 1)
        self.assertEqual([[['claim', 'conductor'], ['create', 1]]],
                         self.records)

    def test_a_failed_record_still_undoes_them(self):
        def refuse(steps):
            raise Lost('the record cannot be written')

        def body():
            with flow.Flow('test', 'server-1', self.undos,
                           record=refuse) as f:
                f.inherit([['claim', 'conductor']])
                f.step('create', 1)
        self.assertRaises(Lost, body)
        self.assertEqual([('claim', 'conductor')], self.undone)

    def test_an_unknown_inherited_step_is_refused(self):
        f = flow.Flow('test', 'server-1', self.undos)
        self.assertRaises(KeyError, f.inherit, [['no-such-step', None]])
        self.assertEqual([], f.steps)
