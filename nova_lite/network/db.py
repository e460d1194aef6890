"""Transactions on the API database for the port service, and the helpers
its data modules share (tables, JSON columns, ids, timestamps).

``read``/``write`` run a function on a SQLAlchemy Core connection in one
transaction, again when MariaDB reports a deadlock or a lock wait timeout.
Writers that change a port lock its row first (``lock_port``), so two
requests on the bindings of one port run one after the other.
"""

from oslo_log import log as logging
from oslo_serialization import jsonutils
from oslo_utils import timeutils
from oslo_utils import uuidutils
import sqlalchemy as sa

from nova_lite import conf as nova_conf
from nova_lite.db import api as db_api
from nova_lite.db import api_models as models
from nova_lite import exception
from nova_lite.network import exception as net_exc

CONF = nova_conf.CONF
LOG = logging.getLogger(__name__)

NETWORKS = models.Network.__table__
PORTS = models.Port.__table__
BINDINGS = models.PortBinding.__table__
QOS_POLICIES = models.QosPolicy.__table__
QOS_MIN_BW_RULES = models.QosMinimumBandwidthRule.__table__
AGENTS = models.NetworkAgent.__table__

MAX_ATTEMPTS = 5


class RetryTransaction(Exception):
    """Raised inside a transaction that lost a race it can win on a second
    try (two inserts of the same new row): the whole transaction runs
    again."""


def _once(function, *args, **kwargs):
    with db_api.connection(CONF.api_database.connection,
                           CONF.api_database) as connection:
        return function(connection, *args, **kwargs)


_attempts = db_api.retried(_once, attempts=MAX_ATTEMPTS,
                           also=RetryTransaction)


def _run(function, *args, **kwargs):
    try:
        return _attempts(function, *args, **kwargs)
    except (RetryTransaction, db_api.DBDeadlock,
            exception.DatabaseConnectionLost) as e:
        LOG.info('%s gave up after %d attempts: %s',
                 getattr(function, '__name__', function), MAX_ATTEMPTS, e)
        raise net_exc.Conflict(
            reason='Another request changed the same resources at the '
                   'same time; retry.')
    except db_api.DBReferenceError as e:
        # A foreign key to a row another request deleted meanwhile (the
        # checks before the write found it).
        LOG.info('%s: %s', getattr(function, '__name__', function), e)
        raise net_exc.Conflict(
            reason='A network, port or QoS policy this request refers to '
                   'was changed or deleted at the same time; retry.')


def read(function, *args, **kwargs):
    """``function(connection, *args, **kwargs)`` in a transaction."""
    return _run(function, *args, **kwargs)


def write(function, *args, **kwargs):
    """``function(connection, *args, **kwargs)`` in a transaction that is
    run again as a whole on a deadlock or a lost connection."""
    return _run(function, *args, **kwargs)


def any_of(column, values):
    """``column`` equal to any of ``values`` (None matches NULL)."""
    values = list(values)
    plain = [value for value in values if value is not None]
    clauses = []
    if plain:
        clauses.append(column.in_(plain))
    if len(plain) < len(values):
        clauses.append(column.is_(None))
    return sa.or_(*clauses) if clauses else sa.false()


def new_id():
    return uuidutils.generate_uuid()


def now():
    return timeutils.utcnow()


def dumps(value):
    return jsonutils.dumps(value, sort_keys=True)


def loads(text, default=None):
    if text is None or text == '':
        return default
    try:
        return jsonutils.loads(text)
    except ValueError:
        LOG.warning('Unreadable JSON column value %r', text[:100])
        return default
