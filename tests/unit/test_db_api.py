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
    """placement's tuned engine gets the pool of every engine here: no
    ping of a busy connection, no rollback of a committed one."""

    def test_its_pool_neither_pings_nor_rolls_back_by_itself(self):
        from nova_lite.placement import db as placement_db
        url = 'mysql+pymysql://u:p@127.0.0.1:1/placement_engine_test'
        self.addCleanup(db.forget, url)
        engine = db.facade(url, tuning='placement',
                           on_engine_create=[placement_db._tune]
                           ).writer.get_engine()
        self.assertFalse(engine.pool._pre_ping)
        self.assertEqual(sa_pool.base.reset_none,
                         engine.pool._reset_on_return)
        # The ping of an idle connection (_fewer_round_trips).
        self.assertTrue(engine.pool.dispatch.checkout)
        # The process's one TLS context (_one_tls_context).
        self.assertTrue(engine.dialect.dispatch.do_connect)


class SharedTlsContextTestCase(testtools.TestCase):
    """PyMySQL's opportunistic TLS context is built once per process,
    not on each connection."""

    def connected(self, engine, **params):
        params = dict(host='127.0.0.1', defer_connect=True, **params)
        made = [listener(engine.dialect, None, [], params)
                for listener in engine.dialect.dispatch.do_connect]
        self.assertEqual(1, len(made))
        return made[0]

    def setUp(self):
        super().setUp()
        self.engine = sa.create_engine('mysql+pymysql://u:p@127.0.0.1:1/x')
        self.addCleanup(self.engine.dispose)
        db._one_tls_context(self.engine)

    def test_connections_that_ask_for_no_tls_share_one_context(self):
        first = self.connected(self.engine)
        second = self.connected(self.engine)
        self.assertIsInstance(first, pymysql.connections.Connection)
        self.assertIs(first.ctx, second.ctx)
        self.assertFalse(first._ssl_required)

    def test_the_shared_context_is_the_one_pymysql_would_build(self):
        shared = self.connected(self.engine).ctx
        own = pymysql.connections.Connection(
            host='127.0.0.1', defer_connect=True).ctx
        self.assertIsNot(shared, own)
        for name in ('verify_mode', 'check_hostname', 'options',
                     'verify_flags', 'minimum_version', 'protocol'):
            self.assertEqual(getattr(own, name), getattr(shared, name),
                             name)

    def test_a_connection_that_asks_for_tls_builds_its_own(self):
        shared = self.connected(self.engine).ctx
        asked = self.connected(self.engine, ssl={'verify_mode': 'none'})
        self.assertIsNot(shared, asked.ctx)
        self.assertTrue(asked._ssl_required)

    def test_only_pymysql_engines_get_it(self):
        engine = sa.create_engine('sqlite://')
        self.addCleanup(engine.dispose)
        db._one_tls_context(engine)
        self.assertFalse(engine.dialect.dispatch.do_connect)


class _Record:
    def __init__(self):
        self.info = {}


class _DBAPIConnection:
    """What the pool's events see of a PyMySQL connection."""

    def __init__(self, server_status=0, ping_error=None):
        self.server_status = server_status
        self.ping_error = ping_error
        self.calls = []

    def rollback(self):
        self.calls.append('rollback')

    def ping(self, reconnect=True):
        self.calls.append('ping')
        if self.ping_error is not None:
            raise self.ping_error


class FewerRoundTripsTestCase(testtools.TestCase):
    """Every MySQL engine's pool rolls back only an open transaction and
    pings only a connection that was idle."""

    def setUp(self):
        super().setUp()
        self.engine = sa.create_engine('mysql+pymysql://u:p@127.0.0.1:1/x')
        self.addCleanup(self.engine.dispose)
        self.assertTrue(hasattr(self.engine.pool, '_pre_ping'))
        self.assertTrue(hasattr(self.engine.pool, '_reset_on_return'))
        db._fewer_round_trips(self.engine)
        self.pool = self.engine.pool

    def returned(self, connection, record):
        self.pool.dispatch.reset(connection, record, sa_pool.PoolResetState(
            transaction_was_reset=False, terminate_only=False,
            asyncio_safe=True))
        self.pool.dispatch.checkin(connection, record)

    def test_the_pool_neither_pings_nor_rolls_back_by_itself(self):
        self.assertFalse(self.pool._pre_ping)
        self.assertEqual(sa_pool.base.reset_none, self.pool._reset_on_return)

    def test_a_committed_connection_is_not_rolled_back(self):
        connection = _DBAPIConnection(server_status=0x2)  # autocommit flag
        self.returned(connection, _Record())
        self.assertEqual([], connection.calls)

    def test_an_open_transaction_is_rolled_back(self):
        connection = _DBAPIConnection(server_status=0x1 | 0x2)
        self.returned(connection, _Record())
        self.assertEqual(['rollback'], connection.calls)

    def test_a_connection_of_unknown_state_is_rolled_back(self):
        connection = _DBAPIConnection(server_status=None)
        self.returned(connection, _Record())
        self.assertEqual(['rollback'], connection.calls)

    def test_a_connection_used_a_moment_ago_is_not_pinged(self):
        connection, record = _DBAPIConnection(), _Record()
        self.returned(connection, record)
        self.pool.dispatch.checkout(connection, record, None)
        self.assertEqual([], connection.calls)

    def test_a_new_or_idle_connection_is_pinged(self):
        connection, record = _DBAPIConnection(), _Record()
        # Never returned yet: pinged.
        self.pool.dispatch.checkout(connection, record, None)
        self.assertEqual(['ping'], connection.calls)
        self.returned(connection, record)
        record.info['returned_at'] -= db.PING_AFTER_IDLE
        self.pool.dispatch.checkout(connection, record, None)
        self.assertEqual(['ping', 'ping'], connection.calls)

    def test_a_failed_ping_is_a_disconnection(self):
        connection = _DBAPIConnection(
            ping_error=pymysql.err.OperationalError(2006, 'gone away'))
        self.assertRaises(sa_exc.DisconnectionError,
                          self.pool.dispatch.checkout, connection, _Record(),
                          None)
