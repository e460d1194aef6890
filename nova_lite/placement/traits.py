"""Traits: qualitative capabilities of a resource provider.

The standard traits are those of the os-traits library (``STANDARD``);
they are written to the ``traits`` table the first time this process needs
them, so that providers can refer to them by id, and a standard name
os-traits no longer has is removed then unless a provider still has it.
Custom traits (``CUSTOM_*``) are created through the API. Ids are cached
in memory, reloaded on a miss.
"""

import re
import threading

import os_traits
import sqlalchemy as sa

from nova_lite.placement import db
from nova_lite.placement import exception

CUSTOM_PREFIX = 'CUSTOM_'
CUSTOM_NAME = re.compile(r'^CUSTOM_[A-Z0-9_]+$')
NAME = re.compile(r'^[A-Z0-9_]+$')
SHARES_VIA_AGGREGATE = 'MISC_SHARES_VIA_AGGREGATE'


# Every standard trait, as the os-traits library of this release names
# them (its get_traits() is the list OpenStack Placement serves).
STANDARD = frozenset(os_traits.get_traits())


class _Cache:

    def __init__(self):
        self.lock = threading.Lock()
        self.id_by_name = {}
        self.synced = False

    def clear(self):
        with self.lock:
            self.id_by_name = {}
            self.synced = False

    def reload(self, connection):
        rows = connection.execute(
            sa.select(db.TRAITS.c.id, db.TRAITS.c.name)).all()
        with self.lock:
            self.id_by_name = {row.name: row.id for row in rows}


_CACHE = _Cache()


def reset_cache():
    _CACHE.clear()


def is_custom(name):
    return name.startswith(CUSTOM_PREFIX)


def ensure_standard(connection):
    """Write the standard traits missing from the table (once a process)."""
    if _CACHE.synced:
        return
    present = {row.name for row in connection.execute(
        sa.select(db.TRAITS.c.name))}
    missing = sorted(STANDARD - present)
    if missing:
        stamp = db.now()
        try:
            with connection.begin_nested():
                connection.execute(db.TRAITS.insert(), [
                    {'name': name, 'created_at': stamp} for name in missing])
        except db.DBDuplicateEntry:
            # Another process is writing them too: one by one, skipping
            # the ones it wrote first.
            for name in missing:
                try:
                    with connection.begin_nested():
                        connection.execute(db.TRAITS.insert().values(
                            name=name, created_at=stamp))
                except db.DBDuplicateEntry:
                    pass
    stale = sorted(name for name in present
                   if not is_custom(name) and name not in STANDARD)
    if stale:
        # Standard once (an older os-traits, or an older nova_lite's own
        # list), not any more: gone, unless a provider still has it.
        in_use = sa.select(db.PROVIDER_TRAITS.c.trait_id)
        connection.execute(db.TRAITS.delete().where(
            db.TRAITS.c.name.in_(stale), db.TRAITS.c.id.not_in(in_use)))
    _CACHE.reload(connection)
    _CACHE.synced = True


def ids_of(connection, names):
    """{name: id} of existing traits; BadRequest naming unknown ones."""
    ensure_standard(connection)
    names = set(names)
    missing = [n for n in names if n not in _CACHE.id_by_name]
    if missing:
        _CACHE.reload(connection)
        missing = [n for n in names if n not in _CACHE.id_by_name]
    if missing:
        raise exception.BadRequest(
            reason='No such trait(s): %s.' % ', '.join(sorted(missing)))
    return {name: _CACHE.id_by_name[name] for name in names}


def names_by_id(connection, trait_ids):
    ensure_standard(connection)
    by_id = {v: k for k, v in _CACHE.id_by_name.items()}
    if any(i not in by_id for i in trait_ids):
        _CACHE.reload(connection)
        by_id = {v: k for k, v in _CACHE.id_by_name.items()}
    return {i: by_id[i] for i in trait_ids if i in by_id}


def list_names(connection, name_in=None, startswith=None, associated=None):
    ensure_standard(connection)
    query = sa.select(db.TRAITS.c.name)
    if name_in is not None:
        query = query.where(db.TRAITS.c.name.in_(sorted(name_in)))
    if startswith is not None:
        query = query.where(db.TRAITS.c.name.startswith(startswith,
                                                        autoescape=True))
    if associated is not None:
        linked = sa.select(db.PROVIDER_TRAITS.c.trait_id)
        if associated:
            query = query.where(db.TRAITS.c.id.in_(linked))
        else:
            query = query.where(db.TRAITS.c.id.not_in(linked))
    return [row.name for row in connection.execute(
        query.order_by(db.TRAITS.c.name))]


def exists(connection, name):
    ensure_standard(connection)
    return connection.execute(sa.select(db.TRAITS.c.id).where(
        db.TRAITS.c.name == name)).first() is not None


def create(connection, name):
    """Create custom trait ``name``; True if created, False if present."""
    ensure_standard(connection)
    if exists(connection, name):
        return False
    try:
        with connection.begin_nested():
            result = connection.execute(db.TRAITS.insert().values(
                name=name, created_at=db.now()))
    except db.DBDuplicateEntry:
        return False
    with _CACHE.lock:
        _CACHE.id_by_name[name] = result.inserted_primary_key[0]
    return True


def delete(connection, name):
    if not is_custom(name):
        raise exception.BadRequest(
            reason='Cannot delete standard trait %s.' % name)
    row = connection.execute(sa.select(db.TRAITS.c.id).where(
        db.TRAITS.c.name == name)).first()
    if row is None:
        raise exception.NotFound(reason='No such trait(s): %s.' % name)
    in_use = connection.execute(sa.select(db.PROVIDER_TRAITS.c.trait_id)
                                .where(db.PROVIDER_TRAITS.c.trait_id ==
                                       row.id).limit(1)).first()
    if in_use is not None:
        raise exception.Conflict(
            reason='The trait %s is in use by a resource provider.' % name)
    connection.execute(db.TRAITS.delete().where(db.TRAITS.c.id == row.id))
    with _CACHE.lock:
        _CACHE.id_by_name.pop(name, None)


def of_provider(connection, provider_id):
    query = (sa.select(db.TRAITS.c.name)
             .select_from(db.PROVIDER_TRAITS.join(
                 db.TRAITS, db.TRAITS.c.id == db.PROVIDER_TRAITS.c.trait_id))
             .where(db.PROVIDER_TRAITS.c.resource_provider_id == provider_id)
             .order_by(db.TRAITS.c.name))
    return [row.name for row in connection.execute(query)]


def of_providers(connection, provider_ids):
    """{provider id: [trait names]} for every provider in ``provider_ids``."""
    result = {pid: [] for pid in provider_ids}
    for chunk in db.chunks(provider_ids, 5000):
        query = (sa.select(db.PROVIDER_TRAITS.c.resource_provider_id,
                           db.TRAITS.c.name)
                 .select_from(db.PROVIDER_TRAITS.join(
                     db.TRAITS,
                     db.TRAITS.c.id == db.PROVIDER_TRAITS.c.trait_id))
                 .where(db.PROVIDER_TRAITS.c.resource_provider_id.in_(chunk)))
        for row in connection.execute(query):
            result[row.resource_provider_id].append(row.name)
    for names in result.values():
        names.sort()
    return result


def set_for_provider(connection, provider_id, names):
    """Replace the traits of a provider (the caller bumps its generation)."""
    wanted = ids_of(connection, names) if names else {}
    connection.execute(db.PROVIDER_TRAITS.delete().where(
        db.PROVIDER_TRAITS.c.resource_provider_id == provider_id))
    if wanted:
        stamp = db.now()
        connection.execute(db.PROVIDER_TRAITS.insert(), [
            {'resource_provider_id': provider_id, 'trait_id': trait_id,
             'created_at': stamp} for trait_id in sorted(wanted.values())])
