"""Archiving and purging a cell database: what ``nova-lite-manage db
archive_deleted_rows`` and ``db purge`` do to one cell.

A deleted server stays in its cell as a soft-deleted row (``deleted`` set
to the row's id) together with its history: its actions and their events,
its faults, its migrations. Deleted services and compute nodes stay the
same way. ``archive`` moves such rows to the cell's shadow tables
(``main_models.SHADOW``) in batches. A batch is one transaction that moves
at most ``max_rows`` rows, children before their parents, in the order of
``main_models.ARCHIVED_TABLES``: action events, actions, faults,
migrations, servers, then services and compute nodes.

A row is archived only when it is soft-deleted (``deleted != 0``) or
belongs to a soft-deleted server, and a server only once none of its rows
is left behind: a row that stays never points at one that went. Kept back:

- a deleted server with a move still in progress
  (``MIGRATION_IN_PROGRESS``), and all of its rows: its source host has yet
  to clean up after it;
- where the database gives an id out again once the row holding the
  highest one is gone (``_reuses_ids``), that row (and so its server): the
  shadow table would get the id twice. It goes once a newer row exists.

Before a batch moves servers, their rows in the API database are deleted
(``forget_servers``): instance mappings, request specs and server group
memberships. They go first so that a batch that fails afterwards leaves a
deleted server without a mapping, which the next run archives, rather than
a mapping of an archived server.

``purge`` deletes shadow rows: all of them, or those deleted before a date
-- a server's actions, events, faults and migrations by the date the
server was deleted.
"""

import collections

import sqlalchemy as sa

from nova_lite import conf as nova_conf
from nova_lite.db import api as db_api
from nova_lite.db import api_models
from nova_lite.db import main_models as models
from nova_lite import exception

CONF = nova_conf.CONF

_events = models.InstanceActionEvent.__table__
_actions = models.InstanceAction.__table__
_faults = models.InstanceFault.__table__
_migrations = models.Migration.__table__
_servers = models.Instance.__table__
_services = models.Service.__table__
_nodes = models.ComputeNode.__table__

# Statements take lists of ids or uuids in slices of this many: SQLite
# allows 32766 parameters in one statement.
_SLICE = 500


class ShadowRowExists(exception.NovaLiteException):
    msg_fmt = ('A row of %(table)s is already in shadow_%(table)s with the '
               'same id (%(reason)s): its id was given out twice. Nothing '
               'of this batch was archived; purge the shadow table '
               '(nova-lite-manage db purge) and run the command again.')


class Archived:
    """What ``archive`` did in one cell: ``rows``, {table: rows moved to
    its shadow table}; ``api_rows``, {API database table: rows deleted};
    ``complete``, False when the last batch was full, so more rows may be
    waiting."""

    def __init__(self):
        self.rows = collections.Counter()
        self.api_rows = collections.Counter()
        self.complete = True


def archive(cell_url, max_rows, before=None, until_complete=False):
    """Move the deleted rows of the cell database at ``cell_url`` to its
    shadow tables: one batch of at most ``max_rows`` rows, or, with
    ``until_complete``, batches until one is not full. ``before`` (a naive
    UTC datetime) archives only the rows deleted before then, with the
    rows of the servers deleted before then."""
    archived = Archived()
    while True:
        moved, forgotten = _archive_batch(cell_url, max_rows, before)
        archived.rows.update(moved)
        archived.api_rows.update(forgotten)
        archived.complete = sum(moved.values()) < max_rows
        if archived.complete or not until_complete:
            return archived


@db_api.retried(also=db_api.DBReferenceError)
def _archive_batch(cell_url, max_rows, before):
    """One transaction: at most ``max_rows`` rows moved; ({table: rows
    moved}, {API table: rows deleted}). A row written meanwhile that
    points at a row moved here (an event of an action, say) fails the
    transaction, which runs again."""
    moved, forgotten = {}, {}
    room = max_rows
    with db_api.connection(cell_url) as connection:
        steps = _steps(before, _reuses_ids(connection))
        for table, where in steps:
            if not room:
                break
            ids = connection.execute(
                sa.select(table.c.id).where(*where).order_by(table.c.id)
                .limit(room)).scalars().all()
            if not ids:
                continue
            if table is _servers:
                forgotten = forget_servers(cell_url, _uuids(connection, ids))
            count = _move(connection, table, ids)
            if count:
                moved[table.name] = count
                room -= count
    return moved, forgotten


def _steps(before, reuses_ids):
    """(table, conditions of its rows to move) in the order of
    ARCHIVED_TABLES."""
    archivable = _deleted(_servers, before, reuses_ids) + [
        ~sa.exists().where(_migrations.c.instance_uuid == _servers.c.uuid,
                           _migrations.c.status.in_(
                               models.MIGRATION_IN_PROGRESS))]
    servers = sa.select(_servers.c.uuid).where(*archivable)

    def newest_stays(table):
        return [_below_highest_id(table)] if reuses_ids else []

    def has_rows(table):
        return sa.exists().where(table.c.instance_uuid == _servers.c.uuid)

    return (
        (_events, [_events.c.action_id.in_(
            sa.select(_actions.c.id).where(
                _actions.c.instance_uuid.in_(servers)))] +
         newest_stays(_events)),
        (_actions, [_actions.c.instance_uuid.in_(servers),
                    ~sa.exists().where(_events.c.action_id == _actions.c.id)]
         + newest_stays(_actions)),
        (_faults, [_faults.c.instance_uuid.in_(servers)] +
         newest_stays(_faults)),
        (_migrations, [_migrations.c.instance_uuid.in_(servers)] +
         newest_stays(_migrations)),
        (_servers, archivable + [~has_rows(_actions), ~has_rows(_faults),
                                 ~has_rows(_migrations)]),
        (_services, _deleted(_services, before, reuses_ids)),
        (_nodes, _deleted(_nodes, before, reuses_ids)),
    )


def _deleted(table, before, reuses_ids):
    where = [table.c.deleted != 0]
    if before is not None:
        where.append(table.c.deleted_at < before)
    if reuses_ids:
        where.append(_below_highest_id(table))
    return where


def _below_highest_id(table):
    highest = table.alias()
    return table.c.id < sa.select(sa.func.max(highest.c.id)).scalar_subquery()


def _reuses_ids(connection):
    """Whether the database at ``connection`` gives the highest id of a
    table out again once its row is gone: SQLite does (our tables have no
    AUTOINCREMENT), and MariaDB before 10.2.4 and MySQL before 8.0 count
    AUTO_INCREMENT again from the rows at a restart."""
    dialect = connection.dialect
    if dialect.name == 'sqlite':
        return True
    if dialect.name == 'mysql':
        version = tuple(dialect.server_version_info or ())[:3]
        return version < ((10, 2, 4) if dialect.is_mariadb else (8, 0))
    return False


def _slices(values):
    values = list(values)
    for start in range(0, len(values), _SLICE):
        yield values[start:start + _SLICE]


def _uuids(connection, ids):
    return [uuid for part in _slices(ids) for uuid in connection.execute(
        sa.select(_servers.c.uuid).where(_servers.c.id.in_(part))).scalars()]


def _move(connection, table, ids):
    """Copy the rows ``ids`` of ``table`` to its shadow table and delete
    them; how many went."""
    shadow = models.SHADOW[table.name]
    columns = [column.name for column in table.columns]
    count = 0
    for part in _slices(ids):
        try:
            connection.execute(shadow.insert().from_select(
                columns, sa.select(table).where(table.c.id.in_(part))))
        except db_api.DBDuplicateEntry as e:
            raise ShadowRowExists(table=table.name,
                                  reason=e.inner_exception or e)
        count += connection.execute(
            table.delete().where(table.c.id.in_(part))).rowcount
    return count


def forget_servers(cell_url, uuids):
    """Delete the API database rows of the servers ``uuids`` that are
    archived from the cell whose database is ``cell_url``: their instance
    mappings, request specs and server group memberships; {table: rows
    deleted}. A server whose mapping points at another cell (or at none
    yet: a build) lives there, and keeps its rows."""
    mappings = api_models.InstanceMapping.__table__
    cells = api_models.CellMapping.__table__
    this_cell = sa.select(cells.c.id).where(
        cells.c.database_connection == cell_url)
    deleted = collections.Counter()
    with db_api.connection(CONF.api_database.connection,
                           CONF.api_database) as connection:
        for part in _slices(uuids):
            elsewhere = set(connection.execute(
                sa.select(mappings.c.instance_uuid).where(
                    mappings.c.instance_uuid.in_(part),
                    sa.or_(mappings.c.cell_id.is_(None),
                           mappings.c.cell_id.not_in(this_cell))))
                .scalars())
            here = [uuid for uuid in part if uuid not in elsewhere]
            if not here:
                continue
            for model in (api_models.InstanceMapping, api_models.RequestSpec,
                          api_models.InstanceGroupMember):
                table = model.__table__
                count = connection.execute(table.delete().where(
                    table.c.instance_uuid.in_(here))).rowcount
                if count:
                    deleted[table.name] += count
    return deleted


def purge(cell_url, before=None):
    """Delete the shadow rows of the cell database at ``cell_url``: all of
    them, or (``before``, a naive UTC datetime) those of rows deleted
    before then; {shadow table: rows deleted}. One transaction."""
    deleted = {}
    with db_api.connection(cell_url) as connection:
        for table in models.ARCHIVED_TABLES:
            shadow = models.SHADOW[table.name]
            statement = shadow.delete()
            if before is not None:
                statement = statement.where(_deleted_before(table, before))
            count = connection.execute(statement).rowcount
            if count:
                deleted[shadow.name] = count
    return deleted


def _deleted_before(table, before):
    """The condition on ``table``'s shadow rows deleted before ``before``:
    a server's action events, actions, faults and migrations went with it,
    so they count as deleted when it was."""
    shadow = models.SHADOW[table.name]
    servers = models.SHADOW[_servers.name]
    gone = sa.select(servers.c.uuid).where(servers.c.deleted_at < before)
    if table is _events:
        actions = models.SHADOW[_actions.name]
        return shadow.c.action_id.in_(sa.select(actions.c.id).where(
            actions.c.instance_uuid.in_(gone)))
    if table in (_actions, _faults):
        return shadow.c.instance_uuid.in_(gone)
    if table is _migrations:
        return sa.or_(shadow.c.deleted_at < before,
                      shadow.c.instance_uuid.in_(gone))
    return shadow.c.deleted_at < before
