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

import contextlib
import functools
import random
import threading
import time

from oslo_log import log as logging
import sqlalchemy as sa
from sqlalchemy import exc as sa_exc
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
RESOURCE_CLASSES = models.ResourceClass.__table__
TRAITS = models.Trait.__table__
PROVIDER_TRAITS = models.ResourceProviderTrait.__table__
AGGREGATES = models.PlacementAggregate.__table__
PROVIDER_AGGREGATES = models.ResourceProviderAggregate.__table__

MAX_ATTEMPTS = 10
PACKED_MAX_LEN = 256 * 1024 * 1024
# MySQL error numbers worth a retry of the whole transaction.
_DEADLOCK = 1213
_LOCK_WAIT_TIMEOUT = 1205

_ENGINES = {}
_LOCK = threading.Lock()


def _engine():
    url = CONF.api_database.connection
    engine = _ENGINES.get(url)
    if engine is not None:
        return engine
    with _LOCK:
        engine = _ENGINES.get(url)
        if engine is None:
            parsed = db_api._parse(url)
            if parsed.get_backend_name() == 'mysql':
                # Our own pool whose connections are READ COMMITTED from
                # the start (set once per connection, not per checkout).
                options = CONF.api_database
                # No pre-ping and no rollback on checkin: each costs a
                # round trip per request, a fifth of an allocation write.
                # Every use is a whole transaction (begin() commits or
                # rolls back), and a connection found dead is retried
                # (see retrying()).
                engine = sa.create_engine(
                    parsed, isolation_level='READ COMMITTED',
                    pool_pre_ping=False, pool_reset_on_return=None,
                    pool_size=options.max_pool_size,
                    max_overflow=options.max_overflow,
                    pool_timeout=options.pool_timeout,
                    pool_recycle=options.connection_recycle_time)
                sa.event.listen(engine, 'connect', _mysql_session_settings)
            else:
                engine = db_api.get_engine(url, CONF.api_database)
            _ENGINES[url] = engine
    return engine


def _mysql_session_settings(dbapi_connection, record):
    cursor = dbapi_connection.cursor()
    # packed_rows() returns whole result sets as one GROUP_CONCAT value.
    cursor.execute('SET SESSION group_concat_max_len = %d' % PACKED_MAX_LEN)
    cursor.close()


def reset():
    """Forget the engines (tests switch databases between cases)."""
    with _LOCK:
        for engine in _ENGINES.values():
            if engine.dialect.name == 'mysql':
                engine.dispose()
        _ENGINES.clear()


def is_mysql(connection):
    return connection.dialect.name == 'mysql'


@contextlib.contextmanager
def transaction():
    """A Core connection in a transaction on the API database."""
    engine = _engine()
    try:
        with engine.begin() as connection:
            yield connection
    except (sa_exc.OperationalError, sa_exc.InterfaceError) as e:
        url = db_api.safe_url(CONF.api_database.connection)
        if getattr(e, 'connection_invalidated', False):
            raise StaleConnection(url=url, reason=e.orig or e)
        if db_api._is_connect_error(e):
            raise exception.DatabaseUnavailable(url=url, reason=e.orig or e)
        raise


class StaleConnection(exception.DatabaseUnavailable):
    """A pooled connection turned out dead; a new one may well work."""


def _retriable(error):
    if isinstance(error, (placement_exc.ProviderGenerationRace,
                          StaleConnection)):
        # StaleConnection: a pooled connection the server had closed
        # (restart, idle timeout); the transaction died with it.
        return True
    if isinstance(error, sa_exc.OperationalError):
        args = getattr(error.orig, 'args', ())
        return bool(args) and args[0] in (_DEADLOCK, _LOCK_WAIT_TIMEOUT)
    return False


def retrying(function):
    """Run ``function`` (which opens its own transaction) again on a
    deadlock or a provider generation race, at most MAX_ATTEMPTS times."""
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        for attempt in range(1, MAX_ATTEMPTS + 1):
            try:
                return function(*args, **kwargs)
            except Exception as error:
                if not _retriable(error):
                    raise
                if attempt == MAX_ATTEMPTS:
                    LOG.warning('%s gave up after %d attempts: %s',
                                function.__name__, attempt, error)
                    raise placement_exc.ConcurrentUpdate(
                        reason='Another request changed the same resource '
                               'providers at the same time; retry.')
                LOG.debug('%s: retrying after %s', function.__name__, error)
                time.sleep(random.uniform(0, 0.01 * attempt))
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


def packed_rows(connection, query, cache=True):
    """The rows of ``query`` as lists of strings, fetched as one value.

    The database joins every row into a single GROUP_CONCAT string
    ('a:b,c:d'), which is split here. PyMySQL decodes each result row in
    pure Python (tens of microseconds a row); for the thousands of small
    rows of an allocation candidates request that dominated its latency.
    Values must not contain ':' or ',' (ids, uuids, numbers); NULL comes
    back as ''.
    """
    inner = query.subquery()
    packed = None
    for column in inner.c:
        text = sa.func.coalesce(sa.cast(column, sa.String), '',
                                type_=sa.String)
        packed = text if packed is None else packed + ':' + text
    statement = (sa.select(sa.func.group_concat(packed, type_=sa.String),
                           sa.func.count())
                 .select_from(inner))
    options = {} if cache else {'compiled_cache': None}
    value, count = connection.execute(statement,
                                      execution_options=options).one()
    if not count:
        return []
    rows = [item.split(':') for item in value.split(',')]
    if len(rows) != count:
        # Cut at group_concat_max_len/max_allowed_packet: never guess.
        raise placement_exc.PlacementError(
            message='A packed result of %d rows came back with %d; raise '
                    'max_allowed_packet of the database server.' % (
                        count, len(rows)))
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
