"""How database errors reach callers: a server that cannot be reached, or
has no connection left to give, is DatabaseUnavailable (a 503 that may
pass, a retry at start); an error in the statement itself is not."""

import pymysql
import sqlalchemy as sa
from sqlalchemy import exc as sa_exc
from sqlalchemy import pool as sa_pool
import testtools

from nova_lite.db import api as db
from nova_lite import exception
from tests.unit import fixtures as nova_fixtures
from tests.unit.objects import test_migration_and_groups as db_fixtures


def server_error(code, message):
    return sa_exc.OperationalError('SELECT 1', {},
                                   pymysql.err.OperationalError(code, message))


class SessionErrorTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(nova_fixtures.Config())
        self.useFixture(db_fixtures.MigratedDatabases())

    def raised_by_session(self, error):
        try:
            with db.api_session():
                raise error
        except Exception as raised:
            return raised
        self.fail('nothing raised')

    def test_too_many_connections_is_unavailable(self):
        raised = self.raised_by_session(server_error(
            1040, 'Too many connections'))
        self.assertIsInstance(raised, exception.DatabaseUnavailable)
        self.assertIn('Too many connections', str(raised))

    def test_a_galera_node_out_of_the_cluster_is_unavailable(self):
        raised = self.raised_by_session(server_error(
            1047, 'WSREP has not yet prepared node for application use'))
        self.assertIsInstance(raised, exception.DatabaseUnavailable)

    def test_lost_connection_is_unavailable(self):
        raised = self.raised_by_session(server_error(
            2013, 'Lost connection to MySQL server during query'))
        self.assertIsInstance(raised, exception.DatabaseUnavailable)

    def test_a_bad_statement_is_not_unavailable(self):
        raised = self.raised_by_session(server_error(
            1054, "Unknown column 'x' in 'field list'"))
        self.assertNotIsInstance(raised, exception.DatabaseUnavailable)
        self.assertIsInstance(raised, sa_exc.OperationalError)

    def test_a_connection_lost_mid_way_is_worth_a_retry(self):
        raised = self.raised_by_session(server_error(
            2006, 'MySQL server has gone away'))
        self.assertIsInstance(raised, exception.DatabaseConnectionLost)

    def test_a_server_that_cannot_be_reached_is_not_a_lost_connection(self):
        raised = self.raised_by_session(server_error(
            2003, "Can't connect to MySQL server on '127.0.0.1'"))
        self.assertIsInstance(raised, exception.DatabaseUnavailable)
        self.assertNotIsInstance(raised, exception.DatabaseConnectionLost)


class ErrorTranslationTestCase(testtools.TestCase):
    """oslo.db tells a duplicate key from a missing foreign key."""

    def setUp(self):
        super().setUp()
        self.useFixture(nova_fixtures.Config())
        self.useFixture(db_fixtures.MigratedDatabases())

    def test_a_duplicate_key_is_a_duplicate_entry(self):
        with db.api_session() as session:
            session.execute(sa.text(
                "INSERT INTO key_pairs (name, user_id, fingerprint, "
                "public_key, type) VALUES ('k', 'u', 'f', 'p', 'ssh')"))
        with testtools.ExpectedException(db.DBDuplicateEntry):
            with db.api_session() as session:
                session.execute(sa.text(
                    "INSERT INTO key_pairs (name, user_id, fingerprint, "
                    "public_key, type) VALUES ('k', 'u', 'f', 'p', 'ssh')"))

    def test_a_missing_parent_is_a_reference_error(self):
        with testtools.ExpectedException(db.DBReferenceError):
            with db.api_session() as session:
                session.execute(sa.text(
                    "INSERT INTO host_mappings (host, cell_id) "
                    "VALUES ('h', 4242)"))


class RetriedTestCase(testtools.TestCase):

    def failing(self, *errors):
        calls = []

        def function():
            calls.append(1)
            if len(calls) <= len(errors):
                raise errors[len(calls) - 1]
            return 'done'
        return function, calls

    def test_a_deadlock_runs_it_again(self):
        function, calls = self.failing(db.DBDeadlock())
        self.assertEqual('done', db.retried(function)())
        self.assertEqual(2, len(calls))

    def test_a_lost_connection_runs_it_again(self):
        function, calls = self.failing(exception.DatabaseConnectionLost(
            url='mysql://x', reason='gone away'))
        self.assertEqual('done', db.retried(function)())
        self.assertEqual(2, len(calls))

    def test_a_server_that_is_down_is_not_asked_again(self):
        function, calls = self.failing(exception.DatabaseUnavailable(
            url='mysql://x', reason='refused'))
        self.assertRaises(exception.DatabaseUnavailable,
                          db.retried(function))
        self.assertEqual(1, len(calls))

    def test_it_gives_up_after_its_attempts_with_the_last_error(self):
        function, calls = self.failing(*[db.DBDeadlock()] * 5)
        self.assertRaises(db.DBDeadlock, db.retried(function, attempts=3))
        self.assertEqual(3, len(calls))


class PlacementEngineTestCase(testtools.TestCase):
    """placement/db.py turns off the ping and the rollback of its pool
    through attributes SQLAlchemy does not promise to keep."""

    def test_the_pool_attributes_it_changes_exist(self):
        from nova_lite.placement import db as placement_db
        engine = sa.create_engine('mysql+pymysql://u:p@127.0.0.1:1/x')
        self.addCleanup(engine.dispose)
        self.assertTrue(hasattr(engine.pool, '_pre_ping'))
        self.assertTrue(hasattr(engine.pool, '_reset_on_return'))
        placement_db._tune(engine)
        self.assertFalse(engine.pool._pre_ping)
        self.assertEqual(sa_pool.base.reset_none,
                         engine.pool._reset_on_return)
