"""Many small rows read as one value.

PyMySQL decodes each result row in pure Python, and SQLAlchemy wraps
each in a Row: tens of microseconds a row, which for the thousand
services and compute nodes a scheduler looks at for every request cost
more than the database's work. ``rows`` has the database join them
instead (GROUP_CONCAT), each column as text, and splits the one string
here.

Rows are separated by ',' (GROUP_CONCAT's own separator in MySQL and
SQLite alike), the columns of a row by the ASCII unit separator. Should a
value hold either (a ',' in a free-text reason, say), or the database
cut the string short (at its ``group_concat_max_len``), the pieces do not
add up to the rows and columns counted, and ``rows`` answers None: the
caller reads the rows one by one, as it would have.
(Placement's own packing, ``placement/db.py``, packs ids and numbers
only, and treats a cut as an error.)
"""

import re

import sqlalchemy as sa

UNIT = '\x1f'


def _text(column):
    """``column`` as text, NULL as ''."""
    return sa.func.coalesce(sa.cast(column, sa.String), '', type_=sa.String)


def statement(columns, *where, table):
    """The SELECT of ``rows``: the ``columns`` of ``table``'s rows that
    match ``where``, packed. SQLAlchemy keeps its compiled form by its
    shape, so one built again for each read is compiled once (unless run
    with ``ONCE``)."""
    # Each row ends with a unit separator too, so that a value cut
    # short, the last one included, leaves one separator fewer.
    unit = sa.literal_column("'%s'" % UNIT)
    record = None
    for column in columns:
        record = (_text(column) + unit if record is None else
                  record + _text(column) + unit)
    concat = sa.func.group_concat(record, type_=sa.String)
    return sa.select(concat, sa.func.count()).select_from(table).where(
        *where).execution_options(packed_width=len(columns))


def uuids_in(column, uuids):
    """``column IN ('...', ...)`` with ``uuids`` written into the SQL
    (a thousand bound parameters cost milliseconds in SQLAlchemy's
    expansion and PyMySQL's escaping); only those in the canonical form
    this code stores (lowercase, with dashes), which no quote can hide
    in. A statement with it is run with ``ONCE``."""
    canonical = sorted({u for u in uuids if _canonical(u)})
    if not canonical:
        return sa.false()
    return column.op('IN')(sa.literal_column(
        '(%s)' % ','.join("'%s'" % u for u in canonical)))


_CANONICAL = re.compile(
    '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\\Z')


def _canonical(value):
    return isinstance(value, str) and _CANONICAL.match(value) is not None


# The execution options of a statement with values written in: not worth
# keeping compiled (each is new text).
ONCE = {'compiled_cache': None}


def rows(session, query, params=None, options=None):
    """The rows of ``query`` (made by ``statement``) as lists of strings,
    NULL as ''; None when they cannot be told apart (see above)."""
    value, count = session.execute(query, params or {},
                                   execution_options=options or {}).one()
    if not count:
        return []
    width = query.get_execution_options()['packed_width']
    # One split in C rather than one per row: 'a<US>b<US>,c<US>d<US>'
    # gives a, b, '', c, d, '' -- a row's values and its end.
    fields = value.replace(',', UNIT).split(UNIT)
    if len(fields) != count * (width + 1):
        return None
    found = list(zip(*[iter(fields)] * (width + 1)))
    if any(values[width] for values in found):
        return None  # (a separator too many in one place, one cut off)
    return [values[:width] for values in found]
