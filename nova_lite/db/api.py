"""Engines and sessions for the API database and the cell databases.

One engine per connection URL, created on first use and shared by all
threads. A context aimed at a cell (``context.target_cell``) carries that
cell's URL; otherwise a cell session uses this daemon's [database].
Connection failures become DatabaseUnavailable with the URL's password
hidden, so callers can answer 503 instead of a traceback.
"""

import contextlib
import threading
import time

from oslo_log import log as logging
import sqlalchemy as sa
from sqlalchemy import exc as sa_exc
from sqlalchemy import orm
from sqlalchemy import pool as sa_pool

from nova_lite import conf as nova_conf
from nova_lite import exception

CONF = nova_conf.CONF
LOG = logging.getLogger(__name__)

_ENGINES = {}
_LOCK = threading.Lock()
# The binary of a process that must never touch a database (a compute),
# set by block_access().
_BLOCKED_FOR = None


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


def _parse(url):
    if not url:
        raise exception.ConfigurationError(
            reason='no database connection is configured')
    try:
        parsed = sa.engine.make_url(url)
        parsed.get_dialect()
    except (sa_exc.ArgumentError, sa_exc.NoSuchModuleError) as e:
        raise exception.InvalidDatabaseURL(url=safe_url(url), reason=e)
    return parsed


def get_engine(url, group=None):
    """Return the shared engine for ``url``, creating it on first use."""
    _refuse_if_blocked(url)
    engine = _ENGINES.get(url)
    if engine is not None:
        return engine
    with _LOCK:
        engine = _ENGINES.get(url)
        if engine is None:
            engine = _create_engine(url, group or CONF.database)
            _ENGINES[url] = engine
    return engine


def _create_engine(url, options):
    parsed = _parse(url)
    if parsed.get_backend_name() == 'sqlite':
        kwargs = {'connect_args': {'check_same_thread': False,
                                   'timeout': 30}}
        if parsed.database in (None, '', ':memory:'):
            kwargs['poolclass'] = sa_pool.StaticPool
        engine = sa.create_engine(parsed, **kwargs)

        @sa.event.listens_for(engine, 'connect')
        def _sqlite_pragmas(dbapi_connection, record):
            cursor = dbapi_connection.cursor()
            cursor.execute('PRAGMA foreign_keys=ON')
            if parsed.database not in (None, '', ':memory:'):
                cursor.execute('PRAGMA journal_mode=WAL')
            cursor.close()
        return engine
    return sa.create_engine(
        parsed, pool_pre_ping=True,
        pool_size=options.max_pool_size,
        max_overflow=options.max_overflow,
        pool_timeout=options.pool_timeout,
        pool_recycle=options.connection_recycle_time)


def dispose_all():
    with _LOCK:
        for engine in _ENGINES.values():
            engine.dispose()
        _ENGINES.clear()


@contextlib.contextmanager
def _session(url, group):
    engine = get_engine(url, group)
    try:
        with orm.Session(engine, expire_on_commit=False) as session:
            with session.begin():
                yield session
    except (sa_exc.OperationalError, sa_exc.InterfaceError) as e:
        if getattr(e, 'connection_invalidated', False) or _is_connect_error(e):
            raise exception.DatabaseUnavailable(url=safe_url(url),
                                                reason=e.orig or e)
        raise


def _is_connect_error(error):
    orig = getattr(error, 'orig', None)
    args = getattr(orig, 'args', ())
    # PyMySQL: 2003 can't connect, 2006 gone away, 2013 lost connection,
    # 1049 unknown database, 1045 access denied, 1040 too many
    # connections (the server's max_connections is used up: a 503 that
    # may pass, not a server error).
    return bool(args) and args[0] in (2003, 2006, 2013, 1049, 1045, 1040)


def api_session():
    """A transaction on the API database."""
    return _session(CONF.api_database.connection, CONF.api_database)


def cell_session(context):
    """A transaction on the cell database ``context`` is aimed at."""
    url = getattr(context, 'db_connection', None) or CONF.database.connection
    return _session(url, CONF.database)


def check_connection(url, group=None):
    """Connect once; raise DatabaseUnavailable or InvalidDatabaseURL."""
    engine = get_engine(url, group)
    try:
        with engine.connect() as connection:
            connection.execute(sa.text('SELECT 1'))
    except (sa_exc.OperationalError, sa_exc.InterfaceError) as e:
        raise exception.DatabaseUnavailable(url=safe_url(url),
                                            reason=e.orig or e)


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
