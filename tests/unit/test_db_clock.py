"""nova_lite.db.clock: "now" taken from the database, so that leases
written and judged by different machines compare against one clock."""

import datetime

from oslo_utils import timeutils
import sqlalchemy as sa
from sqlalchemy.dialects import mysql
import testtools

from nova_lite.db import clock


def _sql(expression, dialect):
    return str(sa.select(expression).compile(dialect=dialect))


class TestRendering(testtools.TestCase):

    def test_mysql_reads_its_own_utc_clock(self):
        self.assertIn('UTC_TIMESTAMP(6)', _sql(clock.utc_now(),
                                               mysql.dialect()))

    def test_mysql_shifts_by_whole_seconds(self):
        self.assertIn('TIMESTAMPADD(SECOND, -300, UTC_TIMESTAMP(6))',
                      _sql(clock.utc_now(-300), mysql.dialect()))

    def test_two_offsets_never_share_a_compiled_statement(self):
        # The offset is in the SQL text: a cached statement of one offset
        # must not serve the other.
        engine = sa.create_engine('sqlite://')
        with engine.connect() as connection:
            now, earlier = (connection.execute(sa.select(clock.utc_now(o)))
                            .scalar_one() for o in (0, -300))
        self.assertAlmostEqual(300, (now - earlier).total_seconds(),
                               delta=1)

    def test_one_offset_is_compiled_once(self):
        engine = sa.create_engine('sqlite://')
        hits = []
        with engine.connect() as connection:
            for offset in (-300, -300, 0, -300):
                result = connection.execute(sa.select(
                    clock.utc_now(offset)))
                hits.append(result.context.cache_hit)
                result.close()
        cached = result.context.dialect.CACHE_HIT
        # The first of each offset is compiled, the others come from the
        # cache.
        self.assertEqual([False, True, False, True],
                         [hit == cached for hit in hits])


class TestSQLite(testtools.TestCase):

    def test_sqlite_gives_utc_now(self):
        engine = sa.create_engine('sqlite://')
        with engine.connect() as connection:
            now = connection.execute(
                sa.select(clock.utc_now())).scalar_one()
        self.assertLess(abs(now - timeutils.utcnow().replace(tzinfo=None)),
                        datetime.timedelta(seconds=5))

    def test_sqlite_shifts_by_whole_seconds(self):
        engine = sa.create_engine('sqlite://')
        with engine.connect() as connection:
            now, later = connection.execute(
                sa.select(clock.utc_now(), clock.utc_now(60))).one()
        self.assertAlmostEqual(60, (later - now).total_seconds(), delta=1)
