"""The one database layer: the API database, every cell, placement and
the port service.

Engines and sessions come from oslo.db's enginefacade, one transaction
context per connection URL (and tuning), created on first use and shared
by all threads. oslo.db translates driver errors: a duplicate key is
``DBDuplicateEntry``, a missing foreign key ``DBReferenceError``, a
deadlock or lock wait timeout ``DBDeadlock``. Here a server that cannot
be reached becomes ``DatabaseUnavailable`` with the URL's password
hidden (a 503, a retry at start), and a connection lost in the middle of
a transaction ``DatabaseConnectionLost``, which ``retried`` runs again,
as it does a deadlock.

Three ways in:

- ``api_session()`` / ``cell_session(context)``: an ORM session in one
  transaction, for the object layer;
- ``connection(url, group)``: a Core connection in one transaction, for
  the port service and placement (whose engine is tuned, see
  ``placement/db.py``);
- ``retried``: run a whole function (which opens its own transactions)
  again on a deadlock or a lost connection.
"""

import contextlib
import threading
import time

from oslo_db import api as oslo_db_api
from oslo_db import exception as db_exc
from oslo_db.sqlalchemy import enginefacade
from oslo_log import log as logging
import pymysql
from pymysql.constants import SERVER_STATUS
import sqlalchemy as sa
from sqlalchemy import exc as sa_exc
from sqlalchemy import pool as sa_pool

from nova_lite import concurrency
from nova_lite import conf as nova_conf
from nova_lite import counters
from nova_lite import exception

CONF = nova_conf.CONF
LOG = logging.getLogger(__name__)

DBDuplicateEntry = db_exc.DBDuplicateEntry
DBReferenceError = db_exc.DBReferenceError
DBDeadlock = db_exc.DBDeadlock

# Execution options of an ORM UPDATE or DELETE whose session holds none
# of the rows it changes (each session here is one short transaction):
# SQLAlchemy need not look for them to bring them up to date, which costs
# more than the statement's own compilation.
NO_SYNC = {'synchronize_session': False}

_FACADES = {}
_LOCK = threading.Lock()
# The binary of a process that must never touch a database (a compute),
# set by block_access().
_BLOCKED_FOR = None

# MySQL/MariaDB errors that mean the server cannot serve us now, not that
# the statement is wrong: 2002/2003 can't connect, 2006 gone away, 2013
# lost connection, 1049 unknown database, 1045 access denied, 1040 too
# many connections (max_connections used up: a 503 that may pass), 1047 a
# Galera node that is not (or no longer) a synced member of the cluster's
# primary component -- it shuts down, or it is joining again.
_UNAVAILABLE = (2002, 2003, 2006, 2013, 1049, 1045, 1040, 1047)
# ... and those of them that end a connection that was working.
_LOST = (2006, 2013)


def block_access(binary):
    """Make every database use in this process raise DBNotAllowed.

    A compute holds no database credentials: its objects go through the
    conductor (``indirection_api``), so a direct use is a bug that must
    fail loudly, not find some connection string to try.
    """
    global _BLOCKED_FOR
    _BLOCKED_FOR = binary


def _refuse_if_blocked(url):
    if _BLOCKED_FOR is None:
        return
    import traceback
    # The first frame outside this module (and contextlib's wrapping of
    # the session context managers) is the code that asked.
    caller = next(frame for frame in reversed(traceback.extract_stack())
                  if frame.filename not in (__file__, contextlib.__file__))
    attempted = '%s from %s:%d %s()' % (
        safe_url(url) if url else 'no connection', caller.filename,
        caller.lineno, caller.name)
    LOG.error('Direct database access attempted in %s: %s', _BLOCKED_FOR,
              attempted)
    raise exception.DBNotAllowed(binary=_BLOCKED_FOR, attempted=attempted)


def safe_url(url):
    """The URL with its password masked, for messages and logs."""
    try:
        return sa.engine.make_url(url).render_as_string(hide_password=True)
    except Exception:
        return '<unparseable connection string>'


def parse_url(url):
    """``url`` parsed; ConfigurationError or InvalidDatabaseURL if it is
    missing or names no installed driver."""
    if not url:
        raise exception.ConfigurationError(
            reason='no database connection is configured')
    try:
        parsed = sa.engine.make_url(url)
        parsed.get_dialect()
    except (sa_exc.ArgumentError, sa_exc.NoSuchModuleError) as e:
        raise exception.InvalidDatabaseURL(url=safe_url(url), reason=e)
    return parsed


# A pooled connection used less than this many seconds ago is not pinged
# when it is checked out again.
PING_AFTER_IDLE = 1.0


def _fewer_round_trips(engine):
    """On MySQL/MariaDB, no round trip a transaction does not need.

    - SQLAlchemy rolls back every connection returned to its pool, even
      one whose transaction just committed. Here the rollback is sent
      only when the server said, in its last reply, that a transaction is
      still open (PyMySQL keeps the status flags of every reply).
    - oslo.db pings every connection as it is checked out. Here only a
      connection idle for ``PING_AFTER_IDLE`` seconds or more is: one
      used a moment ago was answering then. One that died since fails
      its first statement as a lost connection, as a statement already
      in flight would, and callers ride that out
      (``DatabaseConnectionLost``). A failed ping throws the connection
      away and the pool connects again.

    Each was a round trip per transaction: two of the five of a typical
    object save.
    """
    if engine.dialect.name != 'mysql':
        return
    # SQLAlchemy has no public way to change these on a made engine;
    # tests.unit.test_db_api checks that they still exist.
    engine.pool._pre_ping = False
    engine.pool._reset_on_return = sa_pool.base.reset_none

    @sa.event.listens_for(engine, 'reset')
    def _roll_back_if_open(dbapi_connection, record, reset_state):
        status = getattr(dbapi_connection, 'server_status', None)
        if status is None or status & SERVER_STATUS.SERVER_STATUS_IN_TRANS:
            dbapi_connection.rollback()

    @sa.event.listens_for(engine, 'checkin')
    def _note_return(dbapi_connection, record):
        if record is not None:
            record.info['returned_at'] = time.monotonic()

    @sa.event.listens_for(engine, 'checkout')
    def _ping_if_idle(dbapi_connection, record, proxy):
        returned = record.info.get('returned_at')
        if returned is not None and \
                time.monotonic() - returned < PING_AFTER_IDLE:
            return
        try:
            dbapi_connection.ping(reconnect=False)
        except Exception as e:
            raise sa_exc.DisconnectionError(
                'connection lost while idle in the pool: %s' % e)


def _sqlite_file_settings(engine):
    @sa.event.listens_for(engine, 'connect')
    def _wal(dbapi_connection, record):
        # Readers do not wait for a writer (the embedded quick start runs
        # every daemon on one file).
        dbapi_connection.execute('PRAGMA journal_mode=WAL')


def facade(url, group=None, tuning=None, on_engine_create=()):
    """The enginefacade transaction context for ``url``.

    ``group`` (default [database]) gives the pool options; ``tuning``
    names a differently tuned engine on the same URL (placement's), made
    by the ``on_engine_create`` hooks.
    """
    _refuse_if_blocked(url)
    key = (url, tuning)
    found = _FACADES.get(key)
    if found is not None:
        return found
    with _LOCK:
        found = _FACADES.get(key)
        if found is None:
            found = _FACADES[key] = _new_facade(
                url, group or CONF.database, on_engine_create)
    return found


class _SharedTlsConnection(pymysql.connections.Connection):
    """A PyMySQL connection whose opportunistic TLS context is the
    process's one, not one of its own.

    Asked for no TLS, PyMySQL (1.2 on) still offers it to the server (its
    PREFERRED mode) and builds a context for that on every connection:
    ``ssl.create_default_context()``, which reads the system's whole
    certificate store to verify nothing (the context verifies no
    certificate). That was 37 ms of CPU per connection on the benchmark
    machine against 0.2 for the rest of a connect, paid by every daemon's
    start and by every connection a pool adds under load. The context is
    the same PyMySQL would build; only the first connection builds it.
    A connection that asks for TLS builds its own, as before.
    """

    _preferred = None
    _preferred_lock = threading.Lock()

    def _create_ssl_ctx(self, sslp):
        if sslp:
            return super()._create_ssl_ctx(sslp)
        cls = _SharedTlsConnection
        if cls._preferred is None:
            with cls._preferred_lock:
                if cls._preferred is None:
                    cls._preferred = super()._create_ssl_ctx(sslp)
        return cls._preferred


def _one_tls_context(engine):
    """Connect a PyMySQL engine with ``_SharedTlsConnection``."""
    if engine.dialect.driver != 'pymysql':
        return

    @sa.event.listens_for(engine, 'do_connect')
    def _connect(dialect, record, cargs, cparams):
        return _SharedTlsConnection(*cargs, **cparams)


def _new_facade(url, options, on_engine_create):
    parsed = parse_url(url)
    hooks = [counters.count_statements, _fewer_round_trips,
             _one_tls_context, *on_engine_create]
    settings = dict(
        connection=url,
        # Never another group's: enginefacade would read [database]'s.
        slave_connection=options.slave_connection,
        sqlite_fk=True,
        max_pool_size=options.max_pool_size,
        max_overflow=options.max_overflow,
        pool_timeout=options.pool_timeout,
        connection_recycle_time=options.connection_recycle_time,
        connection_debug=options.connection_debug,
        connection_trace=options.connection_trace,
        mysql_sql_mode=options.mysql_sql_mode,
        mysql_wsrep_sync_wait=options.mysql_wsrep_sync_wait,
        connection_parameters=options.connection_parameters,
        # Daemons wait for their databases at start (wait_for_database);
        # a request must not block ten times ten seconds on a down server.
        max_retries=0,
        expire_on_commit=False,
        # oslo.db's sleep(0) on every connection check-in lets green
        # threads take turns; native threads need no such turn, and it
        # cost a write a tenth of a millisecond.
        thread_checkin=concurrency.green())
    if parsed.get_backend_name() == 'sqlite':
        # oslo.db gives a SQLite file no pool (and a memory database one
        # static connection): pool options would be refused.
        for name in ('max_pool_size', 'max_overflow', 'pool_timeout'):
            settings[name] = None
        settings['connection_parameters'] = 'timeout=30'
        if parsed.database not in (None, '', ':memory:'):
            hooks.append(_sqlite_file_settings)
    settings['on_engine_create'] = hooks
    context = enginefacade.transaction_context()
    context.configure(**settings)
    return context


def get_engine(url, group=None):
    """The shared engine for ``url``, created on first use."""
    return facade(url, group).writer.get_engine()


def forget(url):
    """Close ``url``'s engines and forget them (a test that copies the
    file under it, a cell whose database moved)."""
    with _LOCK:
        for key in [key for key in _FACADES if key[0] == url]:
            _dispose(_FACADES.pop(key))


def _dispose(context):
    # A no-op for a context that never started.
    context.dispose_pool()


def dispose_all():
    with _LOCK:
        for context in _FACADES.values():
            _dispose(context)
        _FACADES.clear()


class _Transaction(object):
    """The holder enginefacade keeps one transaction's state on: every
    session here is its own transaction, never joined to an outer one."""


def unavailable(url, error):
    """``error`` as DatabaseUnavailable (or DatabaseConnectionLost) when it
    says the server cannot serve us; None when the statement is at
    fault."""
    if isinstance(error, db_exc.DBConnectionError):
        inner = error.inner_exception
    elif isinstance(error, db_exc.DBNonExistentDatabase):
        inner = error.inner_exception
        return exception.DatabaseUnavailable(url=safe_url(url),
                                             reason=inner or error)
    elif isinstance(error, (sa_exc.OperationalError, sa_exc.InterfaceError,
                            db_exc.DBError)):
        inner = error
    else:
        return None
    orig = getattr(inner, 'orig', inner)
    args = getattr(orig, 'args', ())
    code = args[0] if args and isinstance(args[0], int) else None
    invalidated = getattr(inner, 'connection_invalidated', False)
    if code in _LOST or (invalidated and code not in _UNAVAILABLE):
        return exception.DatabaseConnectionLost(url=safe_url(url),
                                                reason=orig or error)
    if isinstance(error, db_exc.DBConnectionError) or code in _UNAVAILABLE:
        return exception.DatabaseUnavailable(url=safe_url(url),
                                             reason=orig or error)
    return None


@contextlib.contextmanager
def _translated(url):
    try:
        yield
    except (db_exc.DBError, sa_exc.OperationalError,
            sa_exc.InterfaceError) as e:
        translated = unavailable(url, e)
        if translated is None:
            raise
        raise translated from e


@contextlib.contextmanager
def _session(url, group):
    with _translated(url):
        with facade(url, group).writer.using(_Transaction()) as session:
            yield session


@contextlib.contextmanager
def connection(url, group=None, tuning=None, on_engine_create=()):
    """A Core connection in one transaction on ``url``."""
    context = facade(url, group, tuning, on_engine_create)
    with _translated(url):
        with context.writer.connection.using(_Transaction()) as conn:
            yield conn


def api_session():
    """A transaction on the API database."""
    return _session(CONF.api_database.connection, CONF.api_database)


def cell_url(context):
    """The URL of the cell database ``context`` is aimed at: its own, or
    this service's cell's."""
    return getattr(context, 'db_connection', None) or CONF.database.connection


def cell_session(context):
    """A transaction on the cell database ``context`` is aimed at."""
    return _session(cell_url(context), CONF.database)


def _worth_a_retry(error):
    return isinstance(error, exception.DatabaseConnectionLost)


def retried(function=None, attempts=5, also=None):
    """Run ``function`` again on a deadlock or a lost connection.

    ``function`` must open its own transactions and do nothing but
    database work, so that running it again is safe. ``also`` names
    further exceptions worth another run. The last error is raised
    as it came.
    """
    def checker(error):
        return _worth_a_retry(error) or bool(also and isinstance(error,
                                                                 also))

    def decorate(function):
        return oslo_db_api.wrap_db_retry(
            max_retries=attempts - 1, retry_interval=0.01,
            inc_retry_interval=True, max_retry_interval=0.5,
            retry_on_deadlock=True, exception_checker=checker,
            jitter=True)(function)
    return decorate(function) if function is not None else decorate


def check_connection(url, group=None):
    """Connect once; raise DatabaseUnavailable or InvalidDatabaseURL."""
    engine = get_engine(url, group)
    try:
        with engine.connect() as conn:
            conn.execute(sa.text('SELECT 1'))
    except (db_exc.DBError, sa_exc.OperationalError,
            sa_exc.InterfaceError) as e:
        # Whatever stops a SELECT 1 is the server, not the statement.
        raise unavailable(url, e) or exception.DatabaseUnavailable(
            url=safe_url(url), reason=e) from e


def wait_for_database(url, group):
    """Block until ``url`` answers, retrying as [database] says."""
    attempt = 0
    while True:
        try:
            check_connection(url, group)
            return
        except exception.DatabaseUnavailable as e:
            attempt += 1
            if group.max_retries != -1 and attempt > group.max_retries:
                raise
            LOG.warning('%s; retrying in %ss', e, group.retry_interval)
            time.sleep(group.retry_interval)
