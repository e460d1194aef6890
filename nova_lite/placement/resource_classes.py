"""Resource classes: the standard ones (os-resource-classes, fixed ids) and
CUSTOM_*.

A standard class's id is its position in ``STANDARD``, os-resource-classes'
list (append only: the ids are stored in inventories and allocations).
Custom classes live in the ``resource_classes`` table with ids from
``CUSTOM_MIN_ID``. Names and ids are cached in memory; a miss reloads the
custom ones, so a class created by another placement process is found on
first use.
"""

import re
import threading

import os_resource_classes as orc
import sqlalchemy as sa

from nova_lite.placement import db
from nova_lite.placement import exception

# The standard classes of the os-resource-classes library, in its order
# (which it only appends to).
STANDARD = tuple(orc.STANDARDS)
_STANDARD_SET = frozenset(STANDARD)
CUSTOM_PREFIX = 'CUSTOM_'
CUSTOM_MIN_ID = 10000
CUSTOM_NAME = re.compile(r'^CUSTOM_[A-Z0-9_]+$')
NAME = re.compile(r'^[A-Z0-9_]+$')


class _Cache:

    def __init__(self):
        self.lock = threading.Lock()
        self.clear()

    def clear(self):
        self.id_by_name = {name: index for index, name in enumerate(STANDARD)}
        self.name_by_id = dict(enumerate(STANDARD))

    def reload(self, connection):
        rows = connection.execute(sa.select(
            db.RESOURCE_CLASSES.c.id, db.RESOURCE_CLASSES.c.name)).all()
        with self.lock:
            self.clear()
            for row in rows:
                self.id_by_name[row.name] = row.id
                self.name_by_id[row.id] = row.name


_CACHE = _Cache()


def reset_cache():
    _CACHE.clear()


def is_standard(name):
    return name in _STANDARD_SET


def id_of(connection, name):
    """The id of resource class ``name``; ResourceClassNotFound if none."""
    found = _CACHE.id_by_name.get(name)
    if found is None and name.startswith(CUSTOM_PREFIX):
        _CACHE.reload(connection)
        found = _CACHE.id_by_name.get(name)
    if found is None:
        raise exception.ResourceClassNotFound(name=name)
    return found


def ids_of(connection, names):
    """{name: id}; BadRequest naming every unknown class."""
    result, unknown = {}, []
    for name in names:
        try:
            result[name] = id_of(connection, name)
        except exception.ResourceClassNotFound:
            unknown.append(name)
    if unknown:
        raise exception.BadRequest(
            reason='Unknown resource class(es): %s' % ', '.join(
                sorted(unknown)))
    return result


def name_of(connection, class_id):
    found = _CACHE.name_by_id.get(class_id)
    if found is None:
        _CACHE.reload(connection)
        found = _CACHE.name_by_id.get(class_id)
    return found


def names_by_id(connection):
    """Every known {id: name} (custom ones freshly read)."""
    _CACHE.reload(connection)
    return dict(_CACHE.name_by_id)


def all_names(connection):
    """Every class name in id order: the standard ones as
    os-resource-classes lists them, then the custom ones as created."""
    by_id = names_by_id(connection)
    return [by_id[class_id] for class_id in sorted(by_id)]


def create(connection, name):
    """Create custom class ``name``; Conflict if it exists."""
    if is_standard(name) or _exists(connection, name):
        raise exception.Conflict(
            reason='Conflicting resource class already exists: %s' % name)
    highest = connection.execute(
        sa.select(sa.func.max(db.RESOURCE_CLASSES.c.id))).scalar()
    new_id = max(highest or 0, CUSTOM_MIN_ID - 1) + 1
    try:
        connection.execute(db.RESOURCE_CLASSES.insert().values(
            id=new_id, name=name, created_at=db.now()))
    except db.DBDuplicateEntry:
        raise exception.Conflict(
            reason='Conflicting resource class already exists: %s' % name)
    with _CACHE.lock:
        _CACHE.id_by_name[name] = new_id
        _CACHE.name_by_id[new_id] = name
    return new_id


def _exists(connection, name):
    return connection.execute(sa.select(db.RESOURCE_CLASSES.c.id).where(
        db.RESOURCE_CLASSES.c.name == name)).first() is not None


def exists(connection, name):
    return is_standard(name) or _exists(connection, name)


def rename(connection, name, new_name):
    """Give custom class ``name`` the name ``new_name`` (what PUT
    /resource_classes/{name} does before microversion 1.7); its id, and
    so its inventories and allocations, stay."""
    if not exists(connection, name):
        raise exception.ResourceClassNotFound(name=name)
    if is_standard(name):
        raise exception.BadRequest(
            reason='Cannot update standard resource class %s' % name)
    if new_name != name and exists(connection, new_name):
        raise exception.Conflict(
            reason='Resource class already exists: %s' % new_name)
    try:
        connection.execute(db.RESOURCE_CLASSES.update().where(
            db.RESOURCE_CLASSES.c.name == name).values(
                name=new_name, updated_at=db.now()))
    except db.DBDuplicateEntry:
        raise exception.Conflict(
            reason='Resource class already exists: %s' % new_name)
    _CACHE.reload(connection)


def delete(connection, name):
    if is_standard(name):
        raise exception.BadRequest(
            reason='Error in delete resource class: Cannot delete standard '
                   'resource class %s.' % name)
    row = connection.execute(sa.select(db.RESOURCE_CLASSES.c.id).where(
        db.RESOURCE_CLASSES.c.name == name)).first()
    if row is None:
        raise exception.ResourceClassNotFound(name=name)
    in_use = connection.execute(sa.select(db.INVENTORIES.c.id).where(
        db.INVENTORIES.c.resource_class_id == row.id).limit(1)).first()
    if in_use is not None:
        raise exception.Conflict(
            reason='Error in delete resource class: Cannot delete resource '
                   'class %s. Class is in use in inventory.' % name)
    connection.execute(db.RESOURCE_CLASSES.delete().where(
        db.RESOURCE_CLASSES.c.id == row.id))
    with _CACHE.lock:
        _CACHE.id_by_name.pop(name, None)
        _CACHE.name_by_id.pop(row.id, None)
