"""The counters every daemon keeps: what they count, and the line a
benchmark reads them from."""

import os
import tracemalloc

import fixtures
import sqlalchemy as sa
import testtools

from nova_lite import counters
from nova_lite import objects
from nova_lite import rpc


class _Incoming:
    def __init__(self, message, reply_q=None):
        self.message = message
        self.reply_q = reply_q


class TestCounters(testtools.TestCase):

    def setUp(self):
        super().setUp()
        objects.register_all()

    def _counted(self, work):
        before = counters.snapshot()
        work()
        after = counters.snapshot()
        return {name: after[name] - before.get(name, 0) for name in after
                if after[name] != before.get(name, 0)}

    def test_the_logged_line_reads_back(self):
        counters.add('test.one', 3)
        line = '2026-11-27 12:00:00.000 1 INFO nova_lite.service [-] ' + \
            counters.render()
        self.assertEqual(counters.snapshot(), counters.parse(line))

    def test_a_line_without_counters_reads_as_none(self):
        self.assertIsNone(counters.parse('Caught SIGHUP'))
        self.assertIsNone(counters.parse(counters.LOG_PREFIX + '{broken'))
        self.assertIsNone(counters.parse(counters.LOG_PREFIX + '[1, 2]'))

    def test_statements_and_commits_of_an_engine_are_counted(self):
        engine = sa.create_engine('sqlite://')
        counters.count_statements(engine)

        def work():
            with engine.begin() as conn:
                conn.execute(sa.text('SELECT 1'))
                conn.execute(sa.text('SELECT 2'))
        self.assertEqual({'db.statements': 2, 'db.commits': 1},
                         self._counted(work))

    def test_rpc_names_say_call_or_cast_and_the_object_method(self):
        self.assertEqual('rpc.cast.build_and_run_instance',
                         rpc._counter_name(_Incoming(
                             {'method': 'build_and_run_instance',
                              'args': {}})))
        self.assertEqual('rpc.call.object_action.Instance.save',
                         rpc._counter_name(_Incoming(
                             {'method': 'object_action', 'args': {
                                 'objmethod': 'save', 'objinst': {
                                     'nova_lite_object.name': 'Instance'}}},
                             reply_q='reply_1')))
        self.assertEqual(
            'rpc.call.object_class_action_versions.Service.'
            'get_by_host_and_binary',
            rpc._counter_name(_Incoming(
                {'method': 'object_class_action_versions', 'args': {
                    'objname': 'Service',
                    'objmethod': 'get_by_host_and_binary'}},
                reply_q='reply_1')))
        # Names a sender made up are kept out of the counters' names.
        for args in ({'objmethod': 'save', 'objinst': 'not an object'},
                     {'objmethod': 'save', 'objname': 'NoSuchClass'},
                     {'objmethod': 'no_such_method', 'objname': 'Service'},
                     {'objmethod': 7, 'objname': 'Service'}):
            self.assertEqual('rpc.call.object_action', rpc._counter_name(
                _Incoming({'method': 'object_action', 'args': args},
                          reply_q='reply_1')))


class TestMemorySnapshot(testtools.TestCase):

    def test_written_only_when_tracing_and_told_where(self):
        directory = self.useFixture(fixtures.TempDir()).path
        self.assertIsNone(counters.dump_memory_snapshot('nova-lite-test'))
        self.useFixture(fixtures.EnvironmentVariable(
            counters.SNAPSHOT_DIR_ENV, directory))
        if not tracemalloc.is_tracing():
            self.assertIsNone(counters.dump_memory_snapshot('x'))
            tracemalloc.start(2)
            self.addCleanup(tracemalloc.stop)
        path = counters.dump_memory_snapshot('nova-lite-test')
        self.assertEqual(directory, os.path.dirname(path))
        self.assertIn('nova-lite-test-%d-' % os.getpid(), path)
        self.assertIsInstance(tracemalloc.Snapshot.load(path),
                              tracemalloc.Snapshot)
