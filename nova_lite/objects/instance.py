"""Instance, InstanceList and InstanceFault (cell databases).

Every method a compute uses is ``@remotable``: on a compute it runs in the
conductor, which holds the cell database credentials.

An instance's ``updated_at`` is the lease of its task: a takeover waits
for a task that made no progress for its timeout. Every write here sets
it by the database's clock (``db.clock``) and staleness is judged by that
clock too (``InstanceList`` filter ``stale_for``,
``Instance.end_task_if_stale``), so the machines that renew a task and
take it over need not agree on the time.
"""

import collections
import copy

from oslo_log import log as logging
from oslo_serialization import jsonutils
from oslo_utils import versionutils
from oslo_versionedobjects import fields
import sqlalchemy as sa
from sqlalchemy.orm import attributes as orm_attributes

from nova_lite.db import api as db
from nova_lite.db import clock
from nova_lite.db import main_models as models
from nova_lite import exception
from nova_lite.objects import base
from nova_lite.objects import boot_details
from nova_lite.objects import flavor as flavor_obj
from nova_lite.objects import instance_action

LOG = logging.getLogger(__name__)

_PLAIN_COLUMNS = (
    'id', 'uuid', 'user_id', 'project_id', 'display_name',
    'display_description', 'hostname', 'host', 'node', 'launched_on',
    'vm_state', 'task_state', 'power_state', 'image_ref', 'memory_mb',
    'vcpus', 'root_gb', 'ephemeral_gb', 'availability_zone', 'key_name',
    'user_data', 'locked', 'config_drive', 'launch_index', 'reservation_id',
    'progress', 'launched_at', 'terminated_at', 'created_at', 'updated_at',
    'deleted_at', 'deleted')
_JSON_COLUMNS = ('metadata', 'system_metadata', 'tags')
_JSON_DEFAULTS = {'metadata': {}, 'system_metadata': {}, 'tags': []}
# Added in 1.1; an instance serialized by 1.0 (in a BuildRequest, or from
# an older sender) reads them as "not asked for".
_BOOT_DETAIL_DEFAULTS = {'key_data': None, 'trusted_certs': None,
                         'block_device_mapping': []}
_COLUMN_OF = {'metadata': 'metadata_'}
# And back: the table's column of each such attribute.
_COLUMN_NAME = {attribute: name for name, attribute in _COLUMN_OF.items()}
# Set only while a resize waits to be confirmed or reverted (1.3).
_RESIZE_FLAVORS = ('old_flavor', 'new_flavor')
# Optional attributes a query can load up front instead of lazily.
INSTANCE_OPTIONAL_ATTRS = ('fault',)
# What a new row holds in each column the object leaves unset (with
# ``Instance.create_all``: one INSERT of several rows names the same
# columns in each).
_ROW_DEFAULTS = dict(
    {name: None for name in _PLAIN_COLUMNS + _JSON_COLUMNS + (
        'flavor', 'key_data', 'trusted_certs', 'block_device_mapping') +
     _RESIZE_FLAVORS if name not in ('id', 'updated_at')},
    locked=False)


@base.NovaLiteObjectRegistry.register
class Instance(base.NovaLiteObject):
    # Version 1.0: Initial version
    # Version 1.1: Added key_data, trusted_certs, block_device_mapping
    # Version 1.2: Added end_task_if_stale()
    # Version 1.3: Added old_flavor and new_flavor (resize)
    # Version 1.4: save() records an action event with the write
    # Version 1.5: save() writes the changes of its node's record too
    VERSION = '1.5'

    fields = dict(base.NovaLitePersistentObject.fields, **{
        'id': fields.IntegerField(),
        'uuid': fields.UUIDField(),
        'user_id': fields.StringField(nullable=True),
        'project_id': fields.StringField(nullable=True),
        'display_name': fields.StringField(nullable=True),
        'display_description': fields.StringField(nullable=True),
        'hostname': fields.StringField(nullable=True),
        'host': fields.StringField(nullable=True),
        'node': fields.StringField(nullable=True),
        'launched_on': fields.StringField(nullable=True),
        'vm_state': fields.StringField(nullable=True),
        'task_state': fields.StringField(nullable=True),
        'power_state': fields.IntegerField(nullable=True),
        'image_ref': fields.StringField(nullable=True),
        'flavor': fields.ObjectField('Flavor'),
        # While a resize waits to be confirmed or reverted.
        'old_flavor': fields.ObjectField('Flavor', nullable=True),
        'new_flavor': fields.ObjectField('Flavor', nullable=True),
        'memory_mb': fields.IntegerField(nullable=True),
        'vcpus': fields.IntegerField(nullable=True),
        'root_gb': fields.IntegerField(nullable=True),
        'ephemeral_gb': fields.IntegerField(nullable=True),
        'availability_zone': fields.StringField(nullable=True),
        'key_name': fields.StringField(nullable=True),
        'user_data': fields.StringField(nullable=True),
        'metadata': fields.DictOfStringsField(default={}),
        'system_metadata': fields.DictOfNullableStringsField(default={}),
        'tags': fields.ListOfStringsField(default=[]),
        'locked': fields.BooleanField(default=False),
        'config_drive': fields.StringField(nullable=True),
        'launch_index': fields.IntegerField(nullable=True),
        'reservation_id': fields.StringField(nullable=True),
        'progress': fields.IntegerField(nullable=True),
        'launched_at': fields.DateTimeField(nullable=True),
        'terminated_at': fields.DateTimeField(nullable=True),
        'fault': fields.ObjectField('InstanceFault', nullable=True),
        # The public key of ``key_name`` when the server was created or
        # rebuilt: it stays even if the key pair is deleted.
        'key_data': fields.StringField(nullable=True),
        'trusted_certs': fields.ListOfStringsField(nullable=True),
        'block_device_mapping': fields.ListOfObjectsField(
            'BlockDeviceMapping', default=[]),
    })

    obj_relationships = {'block_device_mapping': [('1.1', '1.0')]}

    # A save writes the changed fields of the row with this uuid.
    obj_sent_for = {'save': ('id', 'uuid')}

    # Dict fields callers change in place (instance.system_metadata[k] =
    # v): a change is found by comparing with the value at the last reset,
    # since no attribute is set.
    _CHANGED_IN_PLACE = ('metadata', 'system_metadata')

    def obj_reset_changes(self, fields=None, recursive=False):
        super().obj_reset_changes(fields, recursive=recursive)
        self._remember_originals(fields)

    def _remember_originals(self, fields=None):
        """What the dicts changed in place (``_CHANGED_IN_PLACE``) among
        ``fields`` (None: all) are compared with from now on."""
        originals = self.__dict__.setdefault('_originals', {})
        for name in self._CHANGED_IN_PLACE:
            if (fields is None or name in fields) and \
                    self.obj_attr_is_set(name):
                # A plain dict of the strings: a deep copy of the field's
                # CoercedDict would copy the whole instance it points at
                # (1 ms an instance, most of a server list's time).
                originals[name] = dict(getattr(self, name))

    @classmethod
    def _obj_from_primitive(cls, context, objver, primitive):
        # An instance read from the wire compares its dicts with what it
        # was sent, as one read from the database does: a compute changes
        # system_metadata in place (a resize's old vm state, a shelve's
        # image), and that change would not be seen, sent nor saved.
        self = super()._obj_from_primitive(context, objver, primitive)
        self._remember_originals([name for name in self._CHANGED_IN_PLACE
                                  if name not in self._changed_fields])
        return self

    def obj_what_changed(self):
        changed = super().obj_what_changed()
        for name, original in self.__dict__.get('_originals', {}).items():
            if self.obj_attr_is_set(name) and \
                    getattr(self, name) != original:
                changed.add(name)
        return changed

    def obj_make_compatible(self, primitive, target_version):
        super().obj_make_compatible(primitive, target_version)
        target = versionutils.convert_version_to_tuple(target_version)
        if target < (1, 1):
            for name in _BOOT_DETAIL_DEFAULTS:
                primitive.pop(name, None)
        if target < (1, 3):
            primitive.pop('old_flavor', None)
            primitive.pop('new_flavor', None)

    @staticmethod
    def _from_db(context, instance, row, expected_attrs=(), faults=None):
        base.copy_from_row(instance, row, _PLAIN_COLUMNS)
        for name in _JSON_COLUMNS:
            raw = getattr(row, _COLUMN_OF.get(name, name))
            setattr(instance, name,
                    jsonutils.loads(raw) if raw else
                    type(_JSON_DEFAULTS[name])())
        instance.flavor = flavor_obj.Flavor.obj_from_primitive(
            jsonutils.loads(row.flavor))
        for name in _RESIZE_FLAVORS:
            raw = getattr(row, name)
            setattr(instance, name, flavor_obj.Flavor.obj_from_primitive(
                jsonutils.loads(raw)) if raw else None)
        instance.key_data = row.key_data
        instance.trusted_certs = (jsonutils.loads(row.trusted_certs)
                                  if row.trusted_certs else None)
        instance.block_device_mapping = [
            boot_details.BlockDeviceMapping.obj_from_primitive(p)
            for p in jsonutils.loads(row.block_device_mapping or '[]')]
        if 'fault' in expected_attrs:
            instance.fault = (faults or {}).get(row.uuid)
        instance._context = context
        instance.obj_reset_changes(recursive=True)
        return instance

    def _db_values(self, names):
        values = {}
        for name in names:
            value = getattr(self, name)
            if name == 'flavor':
                value = jsonutils.dumps(value.obj_to_primitive())
            elif name in _RESIZE_FLAVORS:
                value = (jsonutils.dumps(value.obj_to_primitive())
                         if value is not None else None)
            elif name == 'block_device_mapping':
                value = jsonutils.dumps([b.obj_to_primitive()
                                         for b in value])
            elif name == 'trusted_certs':
                value = jsonutils.dumps(value) if value is not None else None
            elif name in _JSON_COLUMNS:
                value = jsonutils.dumps(value)
            elif name in ('launched_at', 'terminated_at', 'created_at',
                          'updated_at', 'deleted_at'):
                value = base.db_datetime(value)
            values[_COLUMN_OF.get(name, name)] = value
        return values

    @classmethod
    @base.remotable
    def get_by_uuid(cls, context, uuid, expected_attrs=None):
        expected_attrs = expected_attrs or []
        query = sa.select(models.Instance).where(models.Instance.uuid == uuid)
        if context.read_deleted == 'no':
            query = query.where(models.Instance.deleted == 0)
        with db.cell_session(context) as session:
            row = session.execute(query).scalar_one_or_none()
            if row is None:
                raise exception.InstanceNotFound(instance_id=uuid)
            faults = (InstanceFault.latest_for_instances(context, session,
                                                         [uuid])
                      if 'fault' in expected_attrs else None)
        return cls._from_db(context, cls(), row, expected_attrs, faults)

    @base.remotable
    def create(self):
        values = self._new_row()
        values['updated_at'] = clock.utc_now()
        try:
            with db.cell_session(self._context) as session:
                row = models.Instance(**values)
                session.add(row)
                session.flush()
                # The row has the database's updated_at; near enough for
                # a reader here, without reading it back.
                orm_attributes.set_committed_value(row, 'updated_at',
                                                   base.utcnow())
                self._from_db(self._context, self, row)
        except db.DBDuplicateEntry:
            raise exception.Conflict(
                reason='instance %s already exists in this cell' % self.uuid)

    @classmethod
    def create_all(cls, context, instances, action):
        """``create`` of several new instances in the cell ``context`` is
        aimed at, with the start of ``action`` by the calling request on
        each (what ``InstanceAction.action_start`` records), in one
        transaction of three statements: the servers of one build request
        are placed in their cell together. Nothing is written if any of
        it fails. The conductor's only: it is not remotable."""
        if not instances:
            return
        now = base.utcnow()
        rows = []
        for instance in instances:
            instance._set_create_defaults()
            values = dict(_ROW_DEFAULTS)
            values.update((_COLUMN_NAME.get(key, key), value) for key, value
                          in instance._new_row(now).items())
            rows.append(values)
        actions = [dict(action=action, instance_uuid=instance.uuid,
                        request_id=context.request_id,
                        user_id=context.user_id,
                        project_id=context.project_id, start_time=now,
                        created_at=now, updated_at=now)
                   for instance in instances]
        table = models.Instance.__table__
        uuids = [instance.uuid for instance in instances]
        try:
            with db.cell_session(context) as session:
                session.execute(
                    sa.insert(table).values(updated_at=clock.utc_now()),
                    rows)
                session.execute(
                    sa.insert(models.InstanceAction.__table__), actions)
                # The new rows' ids, and their actions' (the compute's
                # start of its event finds the action by it).
                made = models.InstanceAction.__table__
                rows_made = session.execute(
                    sa.select(table.c.uuid, table.c.id, made.c.id)
                    .select_from(table.outerjoin(made, sa.and_(
                        made.c.instance_uuid == table.c.uuid,
                        made.c.request_id == context.request_id)))
                    .where(table.c.uuid.in_(uuids))).all()
                ids = {uuid: id_ for uuid, id_, _action in rows_made}
        except db.DBDuplicateEntry:
            raise exception.Conflict(
                reason='an instance of %s already exists in this cell' %
                ', '.join(uuids))
        if context.request_id is not None:
            action_ids = {}
            for uuid, _id, action_id in rows_made:
                if action_id is not None:
                    action_ids[uuid] = max(action_id,
                                           action_ids.get(uuid, action_id))
            instance_action.remember_actions(context, action_ids)
        for instance, values in zip(instances, rows):
            # What reading the row back would give (``_from_db``), but
            # for updated_at: the database's clock set it; near enough.
            instance.id = ids[instance.uuid]
            for name in _PLAIN_COLUMNS:
                if name not in ('id', 'updated_at'):
                    value = values[name]
                    setattr(instance, name,
                            bool(value) if name == 'deleted' else value)
            instance.updated_at = base.utcnow()
            instance.obj_reset_changes(recursive=True)

    def _new_row(self, now=None):
        """The column values (by attribute) of the row ``create`` adds
        for this new instance, but for updated_at."""
        if self.obj_attr_is_set('id'):
            raise exception.ObjectActionError(action='create',
                                              reason='already created')
        for name, default in _JSON_DEFAULTS.items():
            if not self.obj_attr_is_set(name):
                setattr(self, name, type(default)())
        values = self._db_values([n for n in self.fields
                                  if self.obj_attr_is_set(n) and
                                  n not in ('id', 'fault')])
        if values.get('created_at') is None:
            values['created_at'] = now or base.utcnow()
        values['deleted'] = 0
        for name in ('memory_mb', 'vcpus', 'root_gb', 'ephemeral_gb'):
            values[name] = getattr(self.flavor, name)
        return values

    def _set_create_defaults(self):
        """Give the fields a new row stores a default for that default,
        as reading the row back would (``_new_row`` sets the JSON
        ones)."""
        for name in _RESIZE_FLAVORS + ('key_data', 'trusted_certs'):
            if not self.obj_attr_is_set(name):
                setattr(self, name, None)
        if not self.obj_attr_is_set('block_device_mapping'):
            self.block_device_mapping = []

    @base.remotable
    def save(self, expected_vm_state=None, expected_task_state=None,
             action_event=None, node=None):
        """Write the changed fields; optionally compare-and-swap states.

        ``expected_task_state`` (a value or a list) makes the update apply
        only while the row still has that task state, so a delete that
        started in the meantime is not overwritten.

        ``action_event`` (``instance_action.event_start_record`` or
        ``event_finish_record``) is recorded in the write's transaction:
        a compute's step starts or ends with a save, and one conductor
        call does both. Not when the write is refused. Recording is
        bookkeeping: an event that cannot be recorded (its action or its
        start is not there) is logged, and the write stays.

        ``node`` (a ComputeNode holding its changes) is saved in the
        write's transaction too, and not when the write is refused: the
        compute's stats of the node follow the operation this save ends
        (``ResourceTracker.usage_with_save``).
        """
        if action_event is None and node is None:
            self._write(expected_vm_state, expected_task_state)
            return
        if action_event is not None:
            instance_action.check_event_record(action_event)

        def record(session):
            if node is not None:
                node.save_in(session)
            if action_event is None:
                return
            try:
                instance_action.record_event_in(
                    session, self._context, self.uuid, action_event)
            except exception.NovaLiteException as error:
                LOG.warning('Could not record %r of instance %s with its '
                            'save (request %s): %s', action_event, self.uuid,
                            self._context.request_id, error.format_message())
        self._write(expected_vm_state, expected_task_state, also=record)

    def save_if_stale(self, stale_for, expected_vm_state=None,
                      expected_task_state=None):
        """``save``, as a takeover's fence (where the database is at
        hand: a conductor): the update applies only while the row was
        not written (renewed) for ``stale_for`` seconds either, by the
        database's clock -- else UnexpectedTaskStateError, as for a task
        that moved on."""
        self._write(expected_vm_state, expected_task_state, stale_for)

    def _write(self, expected_vm_state, expected_task_state,
               stale_for=None, also=None):
        """The UPDATE of ``save``; ``also(session)`` then runs in its
        transaction (or alone, when there is nothing to write)."""
        changed = [n for n in self.obj_what_changed() if n != 'fault']
        if not changed:
            if also is not None:
                with db.cell_session(self._context) as session:
                    also(session)
            return
        params = {_COLUMN_NAME.get(name, name): value for name, value
                  in self._db_values(changed).items()}
        params.pop('updated_at', None)  # the database's now (the UPDATE)
        params['b_uuid'] = self.uuid
        shape = (_expecting(params, 'b_task_state', expected_task_state),
                 _expecting(params, 'b_vm_state', expected_vm_state),
                 stale_for)
        query = _UPDATES.get(shape)
        if query is None:
            query = _UPDATES[shape] = _update_statement(*shape)
        with db.cell_session(self._context) as session:
            result = session.execute(query, params)
            if not result.rowcount:
                row = session.execute(sa.select(models.Instance).where(
                    models.Instance.uuid == self.uuid)).scalar_one_or_none()
                if row is None or row.deleted:
                    raise exception.InstanceNotFound(instance_id=self.uuid)
                error = (exception.UnexpectedDeletingTaskStateError
                         if row.task_state == 'deleting'
                         else exception.UnexpectedTaskStateError)
                raise error(instance_uuid=self.uuid,
                            expected=expected_task_state or
                            expected_vm_state,
                            actual=row.task_state)
            if also is not None:
                also(session)
        # Near enough for a reader here; the row has the database's.
        self.updated_at = base.utcnow()
        self.obj_reset_changes(recursive=True)

    @classmethod
    def renew(cls, context, uuids, task_state):
        """Mark these servers' task alive now (a takeover waits for a
        task that made no progress for its timeout), those still in
        ``task_state``; how many were."""
        return base.mark_alive(context, models.Instance, uuids,
                               models.Instance.task_state == task_state)

    @base.remotable
    def end_task_if_stale(self, task_state, timeout):
        """Clear the task ``task_state`` if it made no progress for
        ``timeout`` seconds by the database's clock: a takeover's end of
        a task whose worker is gone, in one UPDATE, so a renewal (or any
        write) in between keeps the task its worker's. Whether it
        ended it."""
        return base.end_if_stale(
            self, models.Instance, timeout,
            models.Instance.task_state == task_state, task_state=None)

    @base.remotable
    def destroy(self, hard_delete=False):
        """Delete the instance: soft by default, as cell rows are kept."""
        now = base.utcnow()
        with db.cell_session(self._context) as session:
            if hard_delete:
                # Its faults go with it; its history (instance actions)
                # stays, like that of any deleted server: a server rebuilt
                # from cell0 takes it along (move_history).
                session.execute(sa.delete(models.InstanceFault).where(
                    models.InstanceFault.instance_uuid == self.uuid))
                result = session.execute(sa.delete(models.Instance).where(
                    models.Instance.uuid == self.uuid))
            else:
                result = session.execute(
                    sa.update(models.Instance)
                    .where(models.Instance.uuid == self.uuid,
                           models.Instance.deleted == 0)
                    .values(deleted=models.Instance.id, deleted_at=now,
                            updated_at=clock.utc_now(), terminated_at=now,
                            vm_state='deleted', task_state=None))
        if not result.rowcount:
            raise exception.InstanceNotFound(instance_id=self.uuid)
        self.deleted = True
        self.deleted_at = now
        self.vm_state = 'deleted'
        self.task_state = None
        self.obj_reset_changes()

    @base.remotable
    def refresh(self):
        current = type(self).get_by_uuid(self._context, self.uuid)
        for name in self.fields:
            if name == 'fault':
                continue
            if current.obj_attr_is_set(name):
                setattr(self, name, getattr(current, name))
        self.obj_reset_changes()

    def obj_load_attr(self, attrname):
        if attrname in _BOOT_DETAIL_DEFAULTS:
            setattr(self, attrname,
                    copy.copy(_BOOT_DETAIL_DEFAULTS[attrname]))
            return
        if attrname in _RESIZE_FLAVORS:
            # Not resizing (an instance from an older sender, or one made
            # in memory): no old or new flavor.
            setattr(self, attrname, None)
            return
        if attrname != 'fault':
            raise exception.ObjectActionError(
                action='obj_load_attr',
                reason='attribute %s not lazy-loadable' % attrname)
        self.fault = InstanceFault.get_latest_for_instance(self._context,
                                                           self.uuid)
        self.obj_reset_changes(['fault'])

    @classmethod
    def update_tags(cls, context, uuid, change):
        """Set the tags of live instance ``uuid`` to ``change(tags)`` and
        return them.

        The row is locked from read to write, so of two requests changing
        tags at once the second sees the first's result. ``change`` may
        raise to leave the tags as they were. Not remotable: only the API
        changes tags.
        """
        return list(cls._change_locked(
            context, uuid, 'tags', lambda tags, _row: list(change(tags))))

    @classmethod
    def update_metadata(cls, context, uuid, change):
        """Set the metadata of live instance ``uuid`` to ``change(metadata,
        row)`` and return it, as ``update_tags`` does the tags. ``row``
        has the server's ``vm_state``, ``task_state`` and ``locked`` as
        they are while the row is locked, for ``change`` to refuse (raise)
        a server whose metadata may not change now."""
        return dict(cls._change_locked(context, uuid, 'metadata', change))

    @classmethod
    @db.retried
    def _change_locked(cls, context, uuid, name, change):
        table = models.Instance
        column = _COLUMN_OF.get(name, name)
        live = sa.and_(table.uuid == uuid, table.deleted == 0)
        with db.cell_session(context) as session:
            found = session.execute(
                sa.select(getattr(table, column).label('value'),
                          table.vm_state, table.task_state, table.locked)
                .where(live).with_for_update()).first()
            if found is None:
                raise exception.InstanceNotFound(instance_id=uuid)
            old = (jsonutils.loads(found.value) if found.value else
                   type(_JSON_DEFAULTS[name])())
            new = change(copy.deepcopy(old), found)
            if new != old:
                session.execute(sa.update(table).where(live).values(
                    **{column: jsonutils.dumps(new),
                       'updated_at': clock.utc_now()}))
        return new


_INSTANCES = models.Instance.__table__
# Instance._write's UPDATE statements, one per shape of its conditions
# (``_update_statement``), made on first use: building one costs more
# than running it.
_UPDATES = {}


def _expecting(params, name, expected):
    """Add the states ``expected`` (None, a value or a list) to an UPDATE's
    ``params`` under ``name``; which condition they make: None (none),
    'in', 'null' (IS NULL only) or 'in_or_null'."""
    if expected is None:
        return None
    expected = (expected if isinstance(expected, (list, tuple))
                else [expected])
    present = [value for value in expected if value is not None]
    if len(present) < len(expected) and not present:
        return 'null'
    params[name] = present
    return 'in' if len(present) == len(expected) else 'in_or_null'


def _state_condition(column, name, kind):
    is_in = column.in_(sa.bindparam(name, expanding=True))
    if kind == 'in':
        return is_in
    if kind == 'null':
        return column.is_(None)
    return sa.or_(column.is_(None), is_in)


def _update_statement(task_state, vm_state, stale_for):
    """The UPDATE of one live instance by ``b_uuid``, while its task and
    vm states are as expected (``_expecting``) and, with ``stale_for``,
    while it was not written for that many seconds (by the database's
    clock); it sets updated_at (the database's now) and the columns its
    other parameters name."""
    query = sa.update(_INSTANCES).values(updated_at=clock.utc_now()).where(
        _INSTANCES.c.uuid == sa.bindparam('b_uuid'),
        _INSTANCES.c.deleted == 0)
    if task_state is not None:
        query = query.where(_state_condition(
            _INSTANCES.c.task_state, 'b_task_state', task_state))
    if vm_state is not None:
        query = query.where(_state_condition(
            _INSTANCES.c.vm_state, 'b_vm_state', vm_state))
    if stale_for is not None:
        query = query.where(
            _INSTANCES.c.updated_at < clock.utc_now(-stale_for))
    return query


class Listed(collections.namedtuple('Listed', [
        'uuid', 'created_at', 'display_name', 'vm_state', 'host', 'tags'])):
    """An instance as a server list orders and checks it
    (``InstanceList.get_newest_first``)."""


def _filtered(query, context, filters):
    """``query`` on instances narrowed by ``filters`` (see
    ``InstanceList.get_by_filters`` and ``get_newest_first``)."""
    table = models.Instance
    if not filters.get('deleted', context.read_deleted == 'yes'):
        query = query.where(table.deleted == 0)
    for name in ('project_id', 'user_id', 'host', 'node'):
        if filters.get(name) is not None:
            query = query.where(getattr(table, name) == filters[name])
    if filters.get('uuid') is not None:
        query = query.where(table.uuid.in_(list(filters['uuid'])))
    if filters.get('vm_state') is not None:
        query = query.where(table.vm_state.in_(list(filters['vm_state'])))
    if filters.get('in_task'):
        query = query.where(sa.or_(table.task_state.is_not(None),
                                   table.vm_state == 'building'))
    if filters.get('name_contains'):
        query = query.where(table.display_name.contains(
            filters['name_contains'], autoescape=True))
    for tag in filters.get('tags_all') or ():
        query = query.where(_tags_hold(tag))
    if filters.get('tags_any'):
        query = query.where(sa.or_(*[_tags_hold(tag)
                                     for tag in filters['tags_any']]))
    return query


def _tags_hold(tag):
    """The instance's tags column (a JSON list, written by
    ``jsonutils.dumps`` as every tag is) may have ``tag`` in it. A tag
    whose JSON has an escape in it (a quote, a backslash, a character
    beyond ASCII) narrows nothing: a backslash in a LIKE pattern does
    not mean the same in every database."""
    encoded = jsonutils.dumps(tag)
    if '\\' in encoded:
        return sa.true()
    return models.Instance.tags.contains(encoded, autoescape=True)


@base.NovaLiteObjectRegistry.register
class InstanceList(base.ObjectListBase, base.NovaLiteObject):
    # Version 1.0: Initial version
    # Version 1.1: get_by_filters takes stale_for
    VERSION = '1.1'

    fields = {'objects': fields.ListOfObjectsField('Instance')}

    @classmethod
    @base.remotable
    def get_by_filters(cls, context, filters, sort_key='created_at',
                       sort_dir='desc', limit=None, expected_attrs=None):
        """Instances matching ``filters``.

        Filters: project_id, user_id, host, node, uuid (a list), vm_state
        (a list), deleted (bool; default only live rows), stale_for
        (seconds: only those not written for that long by the database's
        clock -- tasks a takeover may end), in_task (True: only those in
        a task state or building; a conductor older than it answers
        every one, which its callers tell apart themselves).
        """
        expected_attrs = expected_attrs or []
        query = _filtered(sa.select(models.Instance), context, filters)
        if filters.get('stale_for') is not None:
            query = query.where(models.Instance.updated_at <
                                clock.utc_now(-filters['stale_for']))
        column = getattr(models.Instance, sort_key)
        query = query.order_by(column.desc() if sort_dir == 'desc'
                               else column.asc(),
                               models.Instance.id.desc() if sort_dir == 'desc'
                               else models.Instance.id.asc())
        if limit is not None:
            query = query.limit(limit)
        with db.cell_session(context) as session:
            rows = list(session.execute(query).scalars())
            faults = (InstanceFault.latest_for_instances(
                context, session, [r.uuid for r in rows])
                if 'fault' in expected_attrs else None)
        return cls(context, objects=[
            Instance._from_db(context, Instance(), r, expected_attrs, faults)
            for r in rows])

    @classmethod
    @db.retried
    def get_newest_first(cls, context, filters, after=None, limit=None):
        """Up to ``limit`` instances matching ``filters``, newest first:
        ``created_at`` descending, then ``uuid`` descending -- the order
        of a server list, which reads them a page at a time -- as
        ``Listed`` tuples: what a list orders and checks them by, without
        the rest of their rows (the list reads those of its page only,
        with ``get_by_filters``).

        ``filters``: those of ``get_by_filters`` but ``stale_for``, and
        what narrows a server list's search without deciding it (the
        caller checks each instance it is given): ``name_contains`` (the
        name contains it, in whatever case the database's collation
        ignores), ``tags_all`` and ``tags_any`` (lists: the JSON of the
        tags holds every one, or one of them, likewise).

        ``after`` is a position, (created_at, uuid): only the instances
        after it in that order; with uuid None, those created at or
        before created_at. Keyset paging: the database seeks to the
        position in its (deleted, created_at, uuid) index, or (project_id,
        deleted, created_at, uuid) for one project, whatever the number
        of instances before it. An instance always has a created_at
        (``create`` sets one); one without is never after a position.
        """
        table = models.Instance
        query = _filtered(sa.select(*[getattr(table, name)
                                      for name in Listed._fields]),
                          context, filters)
        if after is not None:
            created_at, uuid = base.db_datetime(after[0]), after[1]
            query = query.where(table.created_at <= created_at)
            if uuid is not None:
                # Said as a range on created_at and the rest, which
                # MariaDB's optimizer turns into an index seek (a row
                # comparison it does not).
                query = query.where(sa.or_(table.created_at < created_at,
                                           table.uuid < uuid))
            live = not filters.get('deleted', context.read_deleted == 'yes')
            if live and filters.get('host') is None:
                # Far down the list MariaDB reads the index's whole
                # (project_id,) deleted prefix back from its end (ref)
                # rather than seek to the place (range): 68 ms instead of
                # 7 at the middle of 100,000 servers. Named, it seeks.
                index = ('instances_project_id_deleted_created_at_uuid_idx'
                         if filters.get('project_id') is not None
                         else 'instances_deleted_created_at_uuid_idx')
                for dialect in ('mysql', 'mariadb'):
                    query = query.with_hint(table, 'FORCE INDEX (%s)' % index,
                                            dialect)
        query = query.order_by(table.created_at.desc(), table.uuid.desc())
        if limit is not None:
            query = query.limit(limit)
        with db.cell_session(context) as session:
            rows = session.execute(query).all()
        return [Listed(row.uuid, row.created_at, row.display_name,
                       row.vm_state, row.host,
                       jsonutils.loads(row.tags) if row.tags else [])
                for row in rows]

    @classmethod
    @db.retried
    def position_of(cls, context, uuid, project_id=None):
        """(created_at, uuid) of instance ``uuid`` -- deleted or not, of
        ``project_id`` if given -- by the unique index on uuid; None if
        this cell has no such instance. Where a server list's page after
        the marker ``uuid`` starts."""
        table = models.Instance
        query = sa.select(table.created_at, table.uuid).where(
            table.uuid == uuid)
        if project_id is not None:
            query = query.where(table.project_id == project_id)
        with db.cell_session(context) as session:
            row = session.execute(query).first()
        return None if row is None else (row.created_at, row.uuid)

    @classmethod
    @db.retried
    def uuids_among(cls, context, uuids, filters):
        """Which of ``uuids`` are instances of this cell matching
        ``filters`` (those of ``get_by_filters``)."""
        if not uuids:
            return set()
        query = _filtered(sa.select(models.Instance.uuid), context,
                          dict(filters, uuid=sorted(uuids)))
        with db.cell_session(context) as session:
            return set(session.execute(query).scalars())

    @classmethod
    @db.retried
    def uuids_by_host(cls, context):
        """{host: set of instance uuids} of the live instances of the
        context's cell (the scheduler's view of who runs where)."""
        found = {}
        with db.cell_session(context) as session:
            for host, uuid in session.execute(
                    sa.select(models.Instance.host, models.Instance.uuid)
                    .where(models.Instance.deleted == 0,
                           models.Instance.host.is_not(None))):
                found.setdefault(host, set()).add(uuid)
        return found

    @classmethod
    def get_by_host(cls, context, host, expected_attrs=None):
        return cls.get_by_filters(context, {'host': host},
                                  sort_key='created_at', sort_dir='asc',
                                  expected_attrs=expected_attrs)

    @classmethod
    def get_by_host_and_node(cls, context, host, node):
        return cls.get_by_filters(context, {'host': host, 'node': node},
                                  sort_key='created_at', sort_dir='asc')


@base.NovaLiteObjectRegistry.register
class InstanceFault(base.NovaLiteObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'id': fields.IntegerField(),
        'instance_uuid': fields.UUIDField(),
        'code': fields.IntegerField(),
        'message': fields.StringField(nullable=True),
        'details': fields.StringField(nullable=True),
        'host': fields.StringField(nullable=True),
        'created_at': fields.DateTimeField(nullable=True),
    }

    @classmethod
    def _from_db(cls, context, row):
        fault = base.copy_from_row(cls(), row, (
            'id', 'instance_uuid', 'code', 'message', 'details', 'host',
            'created_at'))
        fault._context = context
        return fault

    @classmethod
    def latest_for_instances(cls, context, session, uuids):
        if not uuids:
            return {}
        rows = session.execute(
            sa.select(models.InstanceFault)
            .where(models.InstanceFault.instance_uuid.in_(list(uuids)))
            .order_by(models.InstanceFault.id.asc())).scalars()
        return {r.instance_uuid: cls._from_db(context, r) for r in rows}

    @classmethod
    @base.remotable
    def get_latest_for_instance(cls, context, instance_uuid):
        with db.cell_session(context) as session:
            faults = cls.latest_for_instances(context, session,
                                              [instance_uuid])
        return faults.get(instance_uuid)

    @base.remotable
    def create(self):
        values = base.changes_for_db(self)
        values['message'] = (values.get('message') or '')[:255]
        values['created_at'] = base.utcnow()
        with db.cell_session(self._context) as session:
            row = models.InstanceFault(**values)
            session.add(row)
            session.flush()
        self.id = row.id
        self.created_at = values['created_at']
        self.obj_reset_changes()
