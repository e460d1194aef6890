"""Transactions on the API database for the Placement service.

``transaction()`` yields a SQLAlchemy Core connection inside a transaction.
On MySQL/MariaDB its isolation level is READ COMMITTED: writers lock the
resource provider rows they change (``SELECT ... FOR UPDATE``, in id
order so two writers never deadlock on them) and every later statement
then sees what the previous lock holder committed, so a capacity check
reads current usage, not a snapshot older than the lock.

``retrying()`` reruns a whole transaction when MariaDB reports a deadlock
or a lock wait timeout, or when a provider's generation moved under a
write that did not name it (``ProviderGenerationRace``); a few attempts,
then the client gets 409 ``placement.concurrent_update``.
"""

import functools

from oslo_log import log as logging
import sqlalchemy as sa
from sqlalchemy.ext import compiler as sa_compiler
from sqlalchemy.sql import functions as sa_functions

from nova_lite import conf as nova_conf
from nova_lite.db import api as db_api
from nova_lite.db import api_models as models
from nova_lite import exception
from nova_lite.placement import exception as placement_exc

CONF = nova_conf.CONF
LOG = logging.getLogger(__name__)

PROVIDERS = models.ResourceProvider.__table__
INVENTORIES = models.Inventory.__table__
ALLOCATIONS = models.Allocation.__table__
CONSUMERS = models.Consumer.__table__
CONSUMER_TYPES = models.ConsumerType.__table__
RESOURCE_CLASSES = models.ResourceClass.__table__
TRAITS = models.Trait.__table__
PROVIDER_TRAITS = models.ResourceProviderTrait.__table__
AGGREGATES = models.PlacementAggregate.__table__
PROVIDER_AGGREGATES = models.ResourceProviderAggregate.__table__

DBDuplicateEntry = db_api.DBDuplicateEntry

MAX_ATTEMPTS = 10
PACKED_MAX_LEN = 256 * 1024 * 1024


def _tune(engine):
    """Placement's engine on the API database, on MySQL/MariaDB.

    Connections are READ COMMITTED from the start (set once per
    connection, not per checkout) and may return whole result sets as
    one GROUP_CONCAT value (``packed_rows``). Like every engine here
    (``db.api``), its pool pings only a connection idle for a second and
    rolls back only an open transaction; a use that finds its connection
    dead is run again (``retrying``).
    """
    if engine.dialect.name != 'mysql':
        return

    @sa.event.listens_for(engine, 'connect')
    def _session_settings(dbapi_connection, record):
        cursor = dbapi_connection.cursor()
        cursor.execute('SET SESSION TRANSACTION ISOLATION LEVEL '
                       'READ COMMITTED')
        cursor.execute('SET SESSION group_concat_max_len = %d'
                       % PACKED_MAX_LEN)
        cursor.close()


def reset():
    """Forget the engines (tests switch databases between cases)."""
    db_api.forget(CONF.api_database.connection)


def is_mysql(connection):
    return connection.dialect.name == 'mysql'


def transaction():
    """A Core connection in a transaction on the API database."""
    return db_api.connection(CONF.api_database.connection,
                             CONF.api_database, tuning='placement',
                             on_engine_create=[_tune])


def retrying(function):
    """Run ``function`` (which opens its own transaction) again on a
    deadlock, a lost connection or a provider generation race, at most
    MAX_ATTEMPTS times; then the client gets 409
    ``placement.concurrent_update``."""
    attempt = db_api.retried(function, attempts=MAX_ATTEMPTS,
                             also=placement_exc.ProviderGenerationRace)

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        try:
            return attempt(*args, **kwargs)
        except (db_api.DBDeadlock, exception.DatabaseConnectionLost,
                placement_exc.ProviderGenerationRace) as error:
            LOG.warning('%s gave up after %d attempts: %s',
                        function.__name__, MAX_ATTEMPTS, error)
            raise placement_exc.ConcurrentUpdate(
                reason='Another request changed the same resource '
                       'providers at the same time; retry.')
    return wrapper


def chunks(values, size=500):
    """``values`` in lists of at most ``size`` (bounded IN lists)."""
    values = list(values)
    for start in range(0, len(values), size):
        yield values[start:start + size]


def lock_for_update(statement, connection):
    """``statement`` with FOR UPDATE where the backend supports it."""
    if is_mysql(connection):
        return statement.with_for_update()
    return statement


def now():
    from oslo_utils import timeutils
    return timeutils.utcnow()


def in_ids(column, ids):
    """``column IN (1, 2, ...)`` with the integers written into the SQL.

    Thousands of bound parameters cost milliseconds each request in
    SQLAlchemy's expansion and PyMySQL's escaping; ids are integers read
    from the database, so they are rendered as literals (statements
    built with this are not worth caching: see ``packed_rows``).
    """
    ids = sorted({int(i) for i in ids})
    if not ids:
        return sa.false()
    return column.op('IN')(sa.literal_column(
        '(%s)' % ','.join(map(str, ids))))


def _packed(connection, query, cache):
    """(the rows of ``query`` joined into one string, how many rows).

    A plain filtered SELECT is packed in place; one that groups, orders,
    limits or is DISTINCT is packed from a derived table (which costs the
    database a copy of its rows)."""
    plain = not (query._group_by_clauses or query._order_by_clauses or
                 query._limit_clause is not None or query._distinct or
                 query._having_criteria)
    inner = None if plain else query.subquery()
    columns = query.selected_columns if plain else inner.c
    packed = None
    for column in columns:
        text = sa.func.coalesce(sa.cast(column, sa.String), '',
                                type_=sa.String)
        packed = text if packed is None else packed + ':' + text
    aggregates = (sa.func.group_concat(packed, type_=sa.String),
                  sa.func.count())
    statement = query.with_only_columns(*aggregates) if plain else \
        sa.select(*aggregates).select_from(inner)
    options = {} if cache else {'compiled_cache': None}
    return connection.execute(statement, execution_options=options).one()


def _cut(count, found):
    # Cut at group_concat_max_len/max_allowed_packet: never guess.
    return placement_exc.PlacementError(
        message='A packed result of %d rows came back with %d; raise '
                'max_allowed_packet of the database server.' % (
                    count, found))


def packed_rows(connection, query, cache=True):
    """The rows of ``query`` as lists of strings, fetched as one value.

    The database joins every row into a single GROUP_CONCAT string
    ('a:b,c:d'), which is split here. PyMySQL decodes each result row in
    pure Python (tens of microseconds a row); for the thousands of small
    rows of an allocation candidates request that dominated its latency.
    Values must not contain ':' or ',' (ids, uuids, numbers); NULL comes
    back as ''.
    """
    value, count = _packed(connection, query, cache)
    if not count:
        return []
    rows = [item.split(':') for item in value.split(',')]
    if len(rows) != count:
        raise _cut(count, len(rows))
    return rows


def packed_ints(connection, query, cache=True):
    """The rows of ``query``, every column an integer and never NULL, as
    tuples of ints: packed as ``packed_rows`` packs them, then split and
    converted in one pass each rather than row by row (a third of the
    time for the thousands of rows of a candidates request)."""
    value, count = _packed(connection, query, cache)
    if not count:
        return []
    width = len(query.selected_columns)
    numbers = iter(map(int, value.replace(',', ':').split(':')))
    rows = list(zip(*[numbers] * width))
    if len(rows) != count:
        raise _cut(count, len(rows))
    return rows


class group_concat(sa_functions.GenericFunction):
    """GROUP_CONCAT(expr SEPARATOR 'sep') on MySQL, group_concat(expr,
    'sep') on SQLite: ``group_concat(expr, ';')``."""
    type = sa.String()
    inherit_cache = True
    name = 'group_concat_sep'


@sa_compiler.compiles(group_concat, 'mysql')
def _group_concat_mysql(element, compiler, **kw):
    expr, separator = list(element.clauses)
    return 'GROUP_CONCAT(%s SEPARATOR %s)' % (
        compiler.process(expr, **kw), compiler.process(separator, **kw))


@sa_compiler.compiles(group_concat)
def _group_concat_default(element, compiler, **kw):
    expr, separator = list(element.clauses)
    return 'group_concat(%s, %s)' % (compiler.process(expr, **kw),
                                     compiler.process(separator, **kw))


def separator(text):
    """A separator for ``group_concat``: a literal, never a parameter
    (MySQL takes no placeholder after SEPARATOR)."""
    assert text in (';', '/', '|')
    return sa.literal_column("'%s'" % text)


def as_text(*columns, sep=':'):
    """The columns joined by ``sep`` as one string (NULL as '')."""
    packed = None
    for column in columns:
        text = sa.func.coalesce(sa.cast(column, sa.String), '',
                                type_=sa.String)
        packed = text if packed is None else packed + sep + text
    return packed
