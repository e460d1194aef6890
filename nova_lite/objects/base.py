"""Base classes of nova_lite's versioned objects.

Every RPC payload is a versioned object. A compute has no database: its
objects get ``indirection_api`` set to the conductor RPC client at start, so
each ``@remotable`` method runs in the conductor instead (see
``conductor.manager.ConductorManager.object_action``). A receiver that is
older than the sender asks the sender's side to backport the object
(``object_backport_versions``).
"""

import copy
import datetime
import re

from oslo_utils import timeutils
from oslo_versionedobjects import base as ovo_base
from oslo_versionedobjects import exception as ovo_exception
from oslo_versionedobjects import fields
import sqlalchemy as sa

from nova_lite.db import api as db
from nova_lite.db import clock


def remotable(function):
    """oslo.versionedobjects' remotable: on a compute the method runs in
    the conductor; where it runs, a deadlock or a lost connection runs it
    again (``db.retried``)."""
    wrapper = ovo_base.remotable(db.retried(function))
    # What fingerprints (and readers) inspect: the method as written.
    wrapper.original_fn = function
    return wrapper


_VERSION_RE = re.compile(r'^\d+\.\d+(\.\d+)?$')


class NovaLiteObjectRegistry(ovo_base.VersionedObjectRegistry):
    def registration_hook(self, cls, index):
        _read_fields_directly(cls)
        # Expose the newest version of each class as nova_lite.objects.Name.
        from nova_lite import objects
        current = getattr(objects, cls.obj_name(), None)
        if current is None or (ovo_base.versionutils.convert_version_to_tuple(
                cls.VERSION) >= ovo_base.versionutils.
                convert_version_to_tuple(current.VERSION)):
            setattr(objects, cls.obj_name(), cls)


def _field_getter(name):
    attribute = '_obj_' + name

    def getter(self):
        try:
            return self.__dict__[attribute]
        except KeyError:
            pass
        # Unset: a lazy default, else an error (obj_load_attr) that does
        # not carry the KeyError along.
        self.obj_load_attr(name)
        return getattr(self, attribute)
    getter.direct = True
    return getter


def _read_fields_directly(cls):
    """Give each field of ``cls`` a getter that reads the value where its
    setter stored it, in one dict lookup: oslo's makes three calls and two
    attribute tests for it (0.21 us a read against 0.08), and a
    scheduler reads some ten fields of each of a thousand compute nodes
    per request. Setting and deleting stay oslo's."""
    for name in cls.fields:
        prop = cls.__dict__.get(name)
        if isinstance(prop, property) and \
                not getattr(prop.fget, 'direct', False):
            setattr(cls, name, property(_field_getter(name), prop.fset,
                                        prop.fdel))


class NovaLiteObject(ovo_base.VersionedObject):
    OBJ_SERIAL_NAMESPACE = 'nova_lite_object'
    OBJ_PROJECT_NAMESPACE = 'nova_lite'
    # Fields an object built in code may leave unset: reading one gives
    # (a copy of) this default instead of an error.
    lazy_defaults = {}

    def obj_load_attr(self, attrname):
        if attrname not in self.lazy_defaults:
            from nova_lite import exception
            raise exception.ObjectActionError(
                action='obj_load_attr',
                reason='attribute %s not lazy-loadable' % attrname)
        setattr(self, attrname, copy.copy(self.lazy_defaults[attrname]))

    def obj_reset_changes(self, fields=None, recursive=False):
        super().obj_reset_changes(fields, recursive=recursive)

    # {remotable method: the fields it reads besides those changed}. A
    # compute sends such a call only those (``obj_for_call``): a save
    # writes the changed fields of the row those name, and the rest of
    # the object would only be serialised, sent and read back for
    # nothing (a fifth of a compute's build and a tenth of the
    # conductor's answer went into that).
    obj_sent_for = {}

    def obj_for_call(self, method):
        """What a call of the remotable ``method`` sends the conductor:
        this object, or a copy holding only what the method reads
        (``obj_sent_for``) and the changed fields, as changed. The
        conductor's answer is applied to this object, as for any call."""
        keep = self.obj_sent_for.get(method)
        if keep is None:
            return self
        changed = self.obj_what_changed()
        sent = type(self)()
        sent._context = self._context
        for name in changed.union(keep):
            if self.obj_attr_is_set(name):
                # The value as set (coerced already), not set again.
                attribute = '_obj_' + name
                setattr(sent, attribute, getattr(self, attribute))
        sent._changed_fields = set(changed)
        return sent

    def obj_what_changed(self):
        # As oslo's, looking only at the fields that can hold an object
        # (whose own changes count) rather than reading every field:
        # serialising an object asks this twice, and an Instance has
        # forty fields of which three hold objects.
        changes = {name for name in self._changed_fields
                   if name in self.fields}
        for name in _object_fields(type(self)):
            value = getattr(self, '_obj_' + name, None)
            if isinstance(value, ovo_base.VersionedObject) and \
                    value.obj_what_changed():
                changes.add(name)
        return changes

    def obj_attr_is_set(self, attrname):
        # As oslo's, without building the list of every field name on each
        # call: it is asked of every field whenever an object is
        # serialised, cloned, compared or saved (a third of a conductor's
        # object call went into those lists).
        if attrname not in self.fields and \
                attrname not in self.obj_extra_fields:
            raise AttributeError("%s object has no attribute '%s'" % (
                self.obj_name(), attrname))
        return hasattr(self, '_obj_' + attrname)


_OBJECT_FIELDS = {}


def _object_fields(cls):
    """The names of ``cls``'s fields whose value is an object."""
    names = _OBJECT_FIELDS.get(cls)
    if names is None:
        names = _OBJECT_FIELDS[cls] = tuple(
            name for name, field in cls.fields.items()
            if isinstance(getattr(field, '_type', None), fields.Object))
    return names


class NovaLiteTimestampObject:
    fields = {
        'created_at': fields.DateTimeField(nullable=True),
        'updated_at': fields.DateTimeField(nullable=True),
    }


class NovaLitePersistentObject:
    """Timestamps and the soft-delete columns of cell tables."""
    fields = {
        'created_at': fields.DateTimeField(nullable=True),
        'updated_at': fields.DateTimeField(nullable=True),
        'deleted_at': fields.DateTimeField(nullable=True),
        'deleted': fields.BooleanField(default=False),
    }


class ObjectListBase(ovo_base.ObjectListBase):
    pass


class NovaLiteObjectSerializer(ovo_base.VersionedObjectSerializer):
    """Objects to primitives and back, refusing what cannot be read.

    A primitive of a class this process does not know, of a version it
    has no compatible class for (and no conductor to backport it), or
    whose fields do not fit raises ``UnreadableObject``: a clear error the
    sender gets back, where oslo.versionedobjects would raise (and log)
    whatever its parsing tripped over.
    """
    OBJ_BASE_CLASS = NovaLiteObject

    def _process_object(self, context, objprim):
        from nova_lite import exception
        prefix = self.OBJ_BASE_CLASS.OBJ_SERIAL_NAMESPACE + '.'
        namespace = objprim.get(prefix + 'namespace')
        name = objprim.get(prefix + 'name')
        version = objprim.get(prefix + 'version')
        objtype = '%s.%s' % (namespace, name)
        if namespace != self.OBJ_BASE_CLASS.OBJ_PROJECT_NAMESPACE or \
                not isinstance(name, str) or \
                name not in ovo_base.VersionedObjectRegistry.obj_classes():
            raise exception.UnreadableObject(
                objtype=objtype, reason='no such object class here')
        if not isinstance(version, str) or \
                not _VERSION_RE.match(version):
            raise exception.UnreadableObject(
                objtype=objtype, reason='version %r is not X.Y' % (version,))
        if not isinstance(objprim.get(prefix + 'data'), dict):
            raise exception.UnreadableObject(
                objtype=objtype, reason='its data is not a mapping')
        try:
            return super()._process_object(context, objprim)
        except exception.NovaLiteException:
            raise  # the conductor's answer to a backport
        except ovo_exception.IncompatibleObjectVersion as e:
            raise exception.UnreadableObject(
                objtype=objtype, reason='version %s is not supported (newest '
                'known: %s)' % (version, e.kwargs.get('supported')))
        except (ovo_exception.VersionedObjectsException, ValueError,
                TypeError, KeyError, AttributeError) as e:
            raise exception.UnreadableObject(
                objtype=objtype, reason='%s: %s' % (type(e).__name__, e))


def obj_to_json_primitive(obj):
    return obj.obj_to_primitive()


def db_datetime(value):
    """A field's aware datetime as the naive UTC value the columns hold."""
    if value is None:
        return None
    if value.tzinfo is not None:
        value = value.astimezone(datetime.timezone.utc).replace(tzinfo=None)
    return value


def utcnow():
    return timeutils.utcnow().replace(tzinfo=None)


@db.retried
def mark_alive(context, model, uuids, *where):
    """Set ``updated_at`` to now, by the database's clock, on the cell
    rows of ``model`` with these uuids that are not deleted and match
    ``where``: a takeover waits for work that made no progress for its
    timeout. How many rows matched."""
    if not uuids:
        return 0
    with db.cell_session(context) as session:
        return session.execute(sa.update(model).where(
            model.uuid.in_(sorted(uuids)), model.deleted == 0,
            *where).values(updated_at=clock.utc_now())).rowcount


def end_if_stale(obj, model, timeout, where, **values):
    """A takeover's fence on ``obj`` (a row of ``model``): write
    ``values`` only if the row still matches ``where`` and was not
    written (renewed) for ``timeout`` seconds by the database's clock,
    in one UPDATE, so a renewal in between keeps it its owner's. Whether
    it did; ``obj`` takes the values if so."""
    with db.cell_session(obj._context) as session:
        ended = session.execute(sa.update(model).where(
            model.uuid == obj.uuid, model.deleted == 0, where,
            model.updated_at < clock.utc_now(-timeout)).values(
                updated_at=clock.utc_now(), **values)).rowcount
    if ended:
        for name, value in values.items():
            setattr(obj, name, value)
        obj.updated_at = utcnow()
        obj.obj_reset_changes(list(values) + ['updated_at'])
    return bool(ended)


def copy_from_row(obj, row, names, renames=None):
    """Set ``names`` on ``obj`` from the columns of ``row``, unchanged.

    Each value is coerced by its field and stored where its setter
    stores it, without the setter's note that it changed, which the
    reset would only take back: objects are built from rows on the
    scheduler's and the conductor's busiest paths (a scheduler reads
    again every node written since its last request). A read-only
    field, which must not change once set, still goes through its
    setter."""
    renames = renames or {}
    fields = obj.fields
    for name in names:
        value = getattr(row, renames.get(name, name))
        if name == 'deleted':
            value = bool(value)
        field = fields[name]
        if field.read_only:
            setattr(obj, name, value)
        else:
            setattr(obj, '_obj_' + name, field.coerce(obj, name, value))
    obj.obj_reset_changes(names)
    return obj


def changes_for_db(obj, skip=()):
    """The changed, persisted fields of ``obj`` as column values."""
    values = {}
    for name in obj.obj_what_changed():
        if name in skip:
            continue
        value = getattr(obj, name)
        if isinstance(value, datetime.datetime):
            value = db_datetime(value)
        values[name] = value
    return values
