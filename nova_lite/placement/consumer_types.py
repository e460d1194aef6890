"""Consumer types (microversion 1.38): what kind of consumer holds an
allocation (``INSTANCE``, ``MIGRATION``, any ``[A-Z0-9_]+`` a client
names).

A type is made the first time a consumer is written with it. A consumer
written before 1.38, or by an older client since, has none: it is shown
as ``UNKNOWN`` ('unknown'), a name no client can give a type. What reads
have seen is cached in memory (a type is never renamed or removed); a
writer does not cache the type it makes, which its transaction may yet
roll back.
"""

import threading

import sqlalchemy as sa

from nova_lite.placement import db
from nova_lite.placement import resource_classes

UNKNOWN = 'unknown'
# GET /usages?consumer_type=all: every consumer under one key.
ALL = 'all'

T = db.CONSUMER_TYPES
_LOCK = threading.Lock()
_ID_BY_NAME = {}
_NAME_BY_ID = {}


def reset_cache():
    with _LOCK:
        _ID_BY_NAME.clear()
        _NAME_BY_ID.clear()


def _remember(name, type_id):
    with _LOCK:
        _ID_BY_NAME[name] = type_id
        _NAME_BY_ID[type_id] = name


def id_of(connection, name):
    """The id of type ``name``, made in the caller's transaction if it is
    new."""
    found = _ID_BY_NAME.get(name)
    if found is not None:
        return found
    select = sa.select(T.c.id).where(T.c.name == name)
    found = connection.execute(select).scalar()
    if found is None:
        try:
            with connection.begin_nested():
                connection.execute(T.insert().values(name=name,
                                                     created_at=db.now()))
        except db.DBDuplicateEntry:
            pass  # made by a concurrent writer: read below
        found = connection.execute(select).scalar()
    return found


def name_of(connection, type_id):
    """The name of type ``type_id``; UNKNOWN for none."""
    if type_id is None:
        return UNKNOWN
    found = _NAME_BY_ID.get(type_id)
    if found is None:
        found = connection.execute(sa.select(T.c.name).where(
            T.c.id == type_id)).scalar()
        _remember(found, type_id)
    return found


def usages(connection, project_id, user_id=None, consumer_type=None):
    """GET /usages from 1.38: {type name: {class: used, 'consumer_count':
    consumers}} over the consumers of a project (and user).

    ``consumer_type`` narrows it to one type; ALL puts every consumer
    under 'all', UNKNOWN only those without a type under 'unknown'.
    """
    A, C = db.ALLOCATIONS, db.CONSUMERS
    owned = [C.c.project_id == project_id]
    if user_id is not None:
        owned.append(C.c.user_id == user_id)
    if consumer_type == UNKNOWN:
        owned.append(C.c.consumer_type_id.is_(None))
    elif consumer_type not in (None, ALL):
        type_id = connection.execute(sa.select(T.c.id).where(
            T.c.name == consumer_type)).scalar()
        if type_id is None:
            return {}
        owned.append(C.c.consumer_type_id == type_id)
    # ALL and UNKNOWN are one group; otherwise one per type.
    one_group = consumer_type in (ALL, UNKNOWN)
    by_type = [] if one_group else [C.c.consumer_type_id]

    def key(row):
        return consumer_type if one_group else name_of(
            connection, row.consumer_type_id)

    joined = A.join(C, C.c.uuid == A.c.consumer_id)
    result = {}
    for row in connection.execute(
            sa.select(*by_type, A.c.resource_class_id,
                      sa.func.sum(A.c.used).label('used'))
            .select_from(joined).where(*owned)
            .group_by(*by_type, A.c.resource_class_id)):
        result.setdefault(key(row), {})[resource_classes.name_of(
            connection, row.resource_class_id)] = int(row.used)
    # Consumers counted once each, whatever classes they hold.
    for row in connection.execute(
            sa.select(*by_type, sa.func.count(sa.distinct(A.c.consumer_id))
                      .label('consumers'))
            .select_from(joined).where(*owned).group_by(*by_type)):
        if row.consumers:
            result.setdefault(key(row), {})['consumer_count'] = \
                row.consumers
    return result
