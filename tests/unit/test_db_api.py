"""How database errors reach callers: a server that cannot be reached, or
has no connection left to give, is DatabaseUnavailable (a 503 that may
pass, a retry at start); an error in the statement itself is not."""

import pymysql
from sqlalchemy import exc as sa_exc
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

    def test_lost_connection_is_unavailable(self):
        raised = self.raised_by_session(server_error(
            2013, 'Lost connection to MySQL server during query'))
        self.assertIsInstance(raised, exception.DatabaseUnavailable)

    def test_a_bad_statement_is_not_unavailable(self):
        raised = self.raised_by_session(server_error(
            1054, "Unknown column 'x' in 'field list'"))
        self.assertNotIsInstance(raised, exception.DatabaseUnavailable)
        self.assertIsInstance(raised, sa_exc.OperationalError)
