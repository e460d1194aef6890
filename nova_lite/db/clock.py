"""The database's clock, for leases that several machines compare.

A lease written with one conductor's clock and judged with another's is
only as good as the two clocks agree. Taking "now" from the database that
holds the lease gives every party one clock: ``utc_now()`` renders as
``UTC_TIMESTAMP(6)`` on MySQL/MariaDB and as SQLite's ``strftime(...,
'now')``, optionally shifted by whole seconds, to be used inside the
UPDATE or SELECT that takes, renews or judges a lease.
"""

import sqlalchemy as sa
from sqlalchemy.ext import compiler
from sqlalchemy.sql import expression
from sqlalchemy.sql import visitors


class utc_now(expression.FunctionElement):
    """The database's current UTC time plus ``offset_seconds`` (an int,
    negative for the past), as a naive DATETIME."""

    type = sa.DateTime()
    name = 'utc_now'
    # The offset is rendered into the SQL text, so it is part of the
    # cache key: a statement is compiled once per offset, not every time
    # it runs (which ``inherit_cache = False`` would do).
    inherit_cache = True
    _traverse_internals = expression.FunctionElement._traverse_internals + [
        ('offset_seconds', visitors.InternalTraversal.dp_plain_obj)]

    def __init__(self, offset_seconds=0):
        self.offset_seconds = int(offset_seconds)
        super().__init__()


@compiler.compiles(utc_now)
def _utc_now_default(element, compiler, **kw):
    # SQLite (and anything not MySQL): text comparable with the
    # 'YYYY-MM-DD HH:MM:SS.ffffff' SQLAlchemy stores.
    return "strftime('%%Y-%%m-%%d %%H:%%M:%%f', 'now', '%+d seconds')" % (
        element.offset_seconds)


@compiler.compiles(utc_now, 'mysql')
def _utc_now_mysql(element, compiler, **kw):
    if not element.offset_seconds:
        return 'UTC_TIMESTAMP(6)'
    return 'TIMESTAMPADD(SECOND, %d, UTC_TIMESTAMP(6))' % (
        element.offset_seconds)
