"""InstanceAction and InstanceActionEvent: what was done to an instance.

An action is one request against a server (create, delete, rebuild...),
identified by the request id of the context that started it; its events
are the steps services ran for it (``compute_build_and_run_instance``...),
each with a result and, on failure, a traceback. Both live in the cell
database next to the instance and outlive it, so the history of a deleted
server can still be read (``os-instance-actions``, microversion 2.21).

Every method a compute calls is ``@remotable``: on a compute it runs in the
conductor, which holds the cell database credentials. Records are made with
the caller's context: its request id ties an event to its action.
"""

import collections
import datetime
import threading
import types

from oslo_utils import timeutils
from oslo_versionedobjects import fields
import sqlalchemy as sa

from nova_lite.db import api as db
from nova_lite.db import main_models as models
from nova_lite import exception
from nova_lite.objects import base

RESULT_SUCCESS = 'Success'
RESULT_ERROR = 'Error'
# An action's message once one of its events failed.
MESSAGE_ERROR = 'Error'

_ACTION_COLUMNS = ('id', 'action', 'instance_uuid', 'request_id', 'user_id',
                   'project_id', 'start_time', 'finish_time', 'message',
                   'created_at', 'updated_at')
_EVENT_COLUMNS = ('id', 'action_id', 'event', 'start_time', 'finish_time',
                  'result', 'traceback', 'host', 'details', 'created_at',
                  'updated_at')


def _naive_utc(value):
    """A time filter (aware or naive datetime, or ISO 8601 text, as it
    arrives over RPC) as the naive UTC the columns hold."""
    if value is None:
        return None
    if isinstance(value, str):
        value = timeutils.parse_isotime(value)
    if not isinstance(value, datetime.datetime):
        raise exception.Invalid(reason='%r is not a time.' % (value,))
    return timeutils.normalize_time(value)


def _action_row(session, instance_uuid, request_id):
    if request_id is None:
        return None
    return session.execute(
        sa.select(models.InstanceAction)
        .where(models.InstanceAction.instance_uuid == instance_uuid,
               models.InstanceAction.request_id == request_id)
        .order_by(models.InstanceAction.id.desc())
        .limit(1)).scalar_one_or_none()


def _new_action_row(session, context, instance_uuid, action, now):
    row = models.InstanceAction(
        action=action, instance_uuid=instance_uuid,
        request_id=context.request_id, user_id=context.user_id,
        project_id=context.project_id, start_time=now, created_at=now,
        # Listing with changes-since (2.58) filters on updated_at: a new
        # action has changed now.
        updated_at=now)
    session.add(row)
    session.flush()
    if context.request_id is not None:
        remember_actions(context, {instance_uuid: row.id})
    return row


@base.NovaLiteObjectRegistry.register
class InstanceAction(base.NovaLiteObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = dict(base.NovaLiteTimestampObject.fields, **{
        'id': fields.IntegerField(),
        'action': fields.StringField(nullable=True),
        'instance_uuid': fields.UUIDField(nullable=True),
        'request_id': fields.StringField(nullable=True),
        'user_id': fields.StringField(nullable=True),
        'project_id': fields.StringField(nullable=True),
        'start_time': fields.DateTimeField(nullable=True),
        'finish_time': fields.DateTimeField(nullable=True),
        'message': fields.StringField(nullable=True),
    })

    @classmethod
    def _from_db(cls, context, row):
        action = base.copy_from_row(cls(), row, _ACTION_COLUMNS)
        action._context = context
        return action

    @classmethod
    @base.remotable
    def action_start(cls, context, instance_uuid, action):
        """Record that the calling request started ``action`` (a name of
        ``nova_lite.compute.instance_actions``) on an instance.

        One action per request and instance: if the request has one
        already (an event of it was recorded first), that one is returned.
        """
        now = base.utcnow()
        with db.cell_session(context) as session:
            row = _action_row(session, instance_uuid, context.request_id)
            if row is None:
                row = _new_action_row(session, context, instance_uuid,
                                      action, now)
        return cls._from_db(context, row)

    @classmethod
    @base.remotable
    def action_finish(cls, context, instance_uuid):
        """Record that the calling request's action is over."""
        now = base.utcnow()
        with db.cell_session(context) as session:
            row = _action_row(session, instance_uuid, context.request_id)
            if row is None:
                raise exception.InstanceActionNotFound(
                    request_id=context.request_id,
                    instance_uuid=instance_uuid)
            row.finish_time = now
            row.updated_at = now
        return cls._from_db(context, row)

    @classmethod
    @base.remotable
    def get_by_request_id(cls, context, instance_uuid, request_id):
        """The action of request ``request_id`` on an instance;
        InstanceActionNotFound without one."""
        with db.cell_session(context) as session:
            row = _action_row(session, instance_uuid, request_id)
        if row is None:
            raise exception.InstanceActionNotFound(
                request_id=request_id, instance_uuid=instance_uuid)
        return cls._from_db(context, row)


@base.NovaLiteObjectRegistry.register
class InstanceActionList(base.ObjectListBase, base.NovaLiteObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {'objects': fields.ListOfObjectsField('InstanceAction')}

    @classmethod
    @base.remotable
    def get_by_instance_uuid(cls, context, instance_uuid, limit=None,
                             marker=None, changes_since=None,
                             changes_before=None):
        """The actions on an instance, newest first.

        ``marker`` is the request id of an action: the page starts after
        it (MarkerNotFound if the instance has no such action).
        ``changes_since``/``changes_before`` keep the actions whose
        ``updated_at`` (start, or latest event) is at or after / at or
        before a time.
        """
        table = models.InstanceAction
        query = sa.select(table).where(table.instance_uuid == instance_uuid)
        since, before = _naive_utc(changes_since), _naive_utc(changes_before)
        if since is not None:
            query = query.where(table.updated_at >= since)
        if before is not None:
            query = query.where(table.updated_at <= before)
        with db.cell_session(context) as session:
            if marker is not None:
                after = _action_row(session, instance_uuid, marker)
                if after is None:
                    raise exception.MarkerNotFound(marker=marker)
                query = query.where(sa.or_(
                    table.created_at < after.created_at,
                    sa.and_(table.created_at == after.created_at,
                            table.id < after.id)))
            query = query.order_by(table.created_at.desc(), table.id.desc())
            if limit is not None:
                query = query.limit(limit)
            rows = list(session.execute(query).scalars())
        return cls(context, objects=[InstanceAction._from_db(context, row)
                                     for row in rows])


@base.NovaLiteObjectRegistry.register
class InstanceActionEvent(base.NovaLiteObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = dict(base.NovaLiteTimestampObject.fields, **{
        'id': fields.IntegerField(),
        'action_id': fields.IntegerField(nullable=True),
        'event': fields.StringField(nullable=True),
        'start_time': fields.DateTimeField(nullable=True),
        'finish_time': fields.DateTimeField(nullable=True),
        'result': fields.StringField(nullable=True),
        'traceback': fields.StringField(nullable=True),
        'host': fields.StringField(nullable=True),
        'details': fields.StringField(nullable=True),
    })

    @classmethod
    def _from_db(cls, context, row):
        event = base.copy_from_row(cls(), row, _EVENT_COLUMNS)
        event._context = context
        return event

    @classmethod
    @base.remotable
    def event_start(cls, context, instance_uuid, event, host=None,
                    action=None):
        """Record that ``event`` of the calling request's action started
        (on ``host``).

        If the request has no action on the instance yet, one is created,
        named ``action`` (default: the event's name), so that no event is
        ever lost for want of its action.
        """
        with db.cell_session(context) as session:
            row = _start_in(session, context, instance_uuid, event, host,
                            action)
        return cls._from_db(context, row)

    @classmethod
    @base.remotable
    def event_finish(cls, context, instance_uuid, event, result,
                     traceback=None, details=None, host=None):
        """Record that ``event`` of the calling request's action ended
        with ``result`` (RESULT_SUCCESS or RESULT_ERROR).

        The latest unfinished event of that name (and of ``host``, if
        given: a build rescheduled to another host has one such event per
        host, which may overlap) is finished; an Error also marks the
        action's message "Error". InstanceActionNotFound or
        InstanceActionEventNotFound if the event was never started.
        """
        with db.cell_session(context) as session:
            row = _finish_in(session, context, instance_uuid, event, result,
                             traceback, details, host)
        return cls._from_db(context, row)


_ACTIONS = models.InstanceAction.__table__
_EVENTS = models.InstanceActionEvent.__table__


# The statements every build's saves run, made once: building one costs
# more than running it. Their parameters are named b_*; an UPDATE sets
# the columns its other parameters name.
_ACTION_OF_REQUEST = (
    sa.select(_ACTIONS.c.id)
    .where(_ACTIONS.c.instance_uuid == sa.bindparam('b_instance_uuid'),
           _ACTIONS.c.request_id == sa.bindparam('b_request_id'))
    .order_by(_ACTIONS.c.id.desc())
    .limit(1))
_UPDATE_ACTION = sa.update(_ACTIONS).where(
    _ACTIONS.c.id == sa.bindparam('b_action_id'))
_INSERT_EVENT = sa.insert(_EVENTS)
_UPDATE_EVENT = sa.update(_EVENTS).where(
    _EVENTS.c.id == sa.bindparam('b_event_id'))


def _event_to_finish(by_host):
    """The latest unfinished event of a name (and of a host) of the
    request's latest action, with that action's id."""
    query = sa.select(
        *(_EVENTS.c[name] for name in _EVENT_COLUMNS)).where(
        _EVENTS.c.action_id == _ACTION_OF_REQUEST.scalar_subquery(),
        _EVENTS.c.event == sa.bindparam('b_event'))
    if by_host:
        query = query.where(_EVENTS.c.host == sa.bindparam('b_host'))
    # Unfinished first (false sorts before true), then the newest.
    return query.order_by(_EVENTS.c.finish_time.is_not(None),
                          _EVENTS.c.id.desc()).limit(1)


_EVENT_TO_FINISH = {False: _event_to_finish(False),
                    True: _event_to_finish(True)}


def _action_id(session, instance_uuid, request_id):
    """The id of the request's (latest) action on the instance, or None."""
    if request_id is None:
        return None
    return session.execute(_ACTION_OF_REQUEST, {
        'b_instance_uuid': instance_uuid,
        'b_request_id': request_id}).scalar()


# The event writes are statements, not ORM objects: they ride on the
# saves of every build (Instance.save(action_event=...)), where the
# session's bookkeeping of a row object cost more than the statement.

class _Kept:
    """A bounded memory shared by a process's threads: the newest
    ``most`` entries (the oldest are forgotten first)."""

    def __init__(self, most=4096):
        self.most = most
        self._entries = collections.OrderedDict()
        self._lock = threading.Lock()

    def put(self, key, value):
        with self._lock:
            self._entries[key] = value
            self._entries.move_to_end(key)
            while len(self._entries) > self.most:
                self._entries.popitem(last=False)

    def get(self, key):
        with self._lock:
            return self._entries.get(key)

    def pop(self, key):
        with self._lock:
            return self._entries.pop(key, None)

    def keys(self):
        with self._lock:
            return list(self._entries)

    def clear(self):
        with self._lock:
            self._entries.clear()


# The actions this process made (``_new_action_row``, and
# ``Instance.create_all`` for the servers a conductor places together),
# kept for the start of a compute's event, which would otherwise look its
# action up: {(cell database, instance, request): action id}. The start
# touches the action by that id, and only while the row is still that
# request's (``_TOUCH_MADE_ACTION``); one gone (archived, or never
# committed) is looked for as any other. A request has one action per
# server, but for a history a server rebuilt from cell0 brings along.
_MADE = _Kept()
_TOUCH_MADE_ACTION = _UPDATE_ACTION.where(
    _ACTIONS.c.instance_uuid == sa.bindparam('b_instance_uuid'),
    _ACTIONS.c.request_id == sa.bindparam('b_request_id'))


def remember_actions(context, action_ids):
    """Keep the ids of the actions ({instance uuid: action id}) the
    request of ``context`` has just created in its cell."""
    for instance_uuid, action_id in action_ids.items():
        _MADE.put((db.cell_url(context), instance_uuid, context.request_id),
                  action_id)


def _touch_made_action(session, context, instance_uuid, now):
    """The id of the request's action on the instance if this process
    made it and it is still there, its updated_at set to ``now``; else
    None, having written nothing."""
    if context.request_id is None:
        return None
    action_id = _MADE.get((db.cell_url(context), instance_uuid,
                           context.request_id))
    if action_id is None:
        return None
    touched = session.execute(_TOUCH_MADE_ACTION, {
        'b_action_id': action_id, 'b_instance_uuid': instance_uuid,
        'b_request_id': context.request_id, 'updated_at': now})
    return action_id if touched.rowcount == 1 else None


def _start_in(session, context, instance_uuid, event, host, action):
    """``InstanceActionEvent.event_start`` in the caller's transaction;
    the event's columns."""
    now = base.utcnow()
    action_id = _touch_made_action(session, context, instance_uuid, now)
    if action_id is None:
        action_id = _action_id(session, instance_uuid, context.request_id)
        if action_id is None:
            action_id = _new_action_row(session, context, instance_uuid,
                                        action or event, now).id
        else:
            session.execute(_UPDATE_ACTION, {'b_action_id': action_id,
                                             'updated_at': now})
    values = dict(action_id=action_id, event=event, start_time=now,
                  finish_time=None, result=None, traceback=None, host=host,
                  details=None, created_at=now, updated_at=now)
    inserted = session.execute(_INSERT_EVENT, values)
    return types.SimpleNamespace(id=inserted.inserted_primary_key[0],
                                 **values)


def _finish_in(session, context, instance_uuid, event, result, traceback,
               details, host):
    """``InstanceActionEvent.event_finish`` in the caller's transaction;
    the event's columns. It raises before it writes anything."""
    now = base.utcnow()
    row = None
    if context.request_id is not None:
        row = session.execute(_EVENT_TO_FINISH[host is not None], {
            'b_instance_uuid': instance_uuid,
            'b_request_id': context.request_id, 'b_event': event,
            'b_host': host}).one_or_none()
    if row is None:
        if _action_id(session, instance_uuid, context.request_id) is None:
            raise exception.InstanceActionNotFound(
                request_id=context.request_id, instance_uuid=instance_uuid)
        raise exception.InstanceActionEventNotFound(
            event=event, request_id=context.request_id,
            instance_uuid=instance_uuid)
    changes = dict(finish_time=now, updated_at=now, result=result,
                   traceback=traceback, details=details)
    session.execute(_UPDATE_EVENT, dict(changes, b_event_id=row.id))
    action_changes = {'b_action_id': row.action_id, 'updated_at': now}
    if result == RESULT_ERROR:
        action_changes['message'] = MESSAGE_ERROR
    session.execute(_UPDATE_ACTION, action_changes)
    return types.SimpleNamespace(**dict(row._mapping, **changes))


# The events whose start this process recorded from a compute's save,
# kept until their finish: {(cell database, instance, request, event,
# host): (event id, action id)}. The finish that follows (the build's
# last save, most often answered by the conductor that recorded the
# start) then writes the event and its action by their ids, without the
# query that finds them. A finish that finds its event finished or gone
# (another process finished it, the archive removed it, the start's
# transaction never committed) looks for it as any other finish does.
_STARTED = _Kept()
_UNFINISHED_EVENT = _UPDATE_EVENT.where(_EVENTS.c.finish_time.is_(None))


def _started_key(context, instance_uuid, event, host):
    if context.request_id is None:
        return None
    return (db.cell_url(context), instance_uuid, context.request_id,
            event, host)


def _finish_remembered(session, key, result, traceback, details):
    """Finish the event whose start is remembered under ``key`` by its
    ids: whether it was there to finish."""
    ids = _STARTED.pop(key)
    if ids is None:
        return False
    event_id, action_id = ids
    now = base.utcnow()
    finished = session.execute(_UNFINISHED_EVENT, dict(
        b_event_id=event_id, finish_time=now, updated_at=now,
        result=result, traceback=traceback, details=details))
    if finished.rowcount != 1:
        return False
    action_changes = {'b_action_id': action_id, 'updated_at': now}
    if result == RESULT_ERROR:
        action_changes['message'] = MESSAGE_ERROR
    session.execute(_UPDATE_ACTION, action_changes)
    return True


def event_start_record(event, host=None, action=None):
    """What ``record_event`` makes the start of ``event`` from: a record a
    remotable call can carry (an instance's save carries a compute's)."""
    return {'event': event, 'host': host, 'start': {'action': action}}


def event_finish_record(event, result, traceback=None, details=None,
                        host=None):
    """What ``record_event`` makes the finish of ``event`` from."""
    return {'event': event, 'host': host, 'finish': {
        'result': result, 'traceback': traceback, 'details': details}}


def check_event_record(record):
    """InvalidRPCMessage unless ``record`` is an ``event_start_record`` or
    an ``event_finish_record`` (it comes from a compute)."""
    if not isinstance(record, dict) or \
            not isinstance(record.get('event'), str) or \
            not isinstance(record.get('host'), (str, type(None))) or \
            len([k for k in ('start', 'finish')
                 if isinstance(record.get(k), dict)]) != 1:
        raise exception.InvalidRPCMessage(
            reason='an action event to record is {"event": name, "host": '
                   'host, "start" or "finish": {...}}, not %r' % (record,))


def record_event_in(session, context, instance_uuid, record):
    """Record, in the caller's transaction, the start or the finish an
    ``event_start_record`` or an ``event_finish_record`` describes, as
    event_start and event_finish do (a finish never started raises before
    it writes anything)."""
    check_event_record(record)
    key = _started_key(context, instance_uuid, record['event'],
                       record['host'])
    if 'start' in record:
        row = _start_in(session, context, instance_uuid, record['event'],
                        record['host'], record['start'].get('action'))
        if key is not None:
            _STARTED.put(key, (row.id, row.action_id))
        return
    finish = record['finish']
    if key is not None and _finish_remembered(
            session, key, finish.get('result'), finish.get('traceback'),
            finish.get('details')):
        return
    _finish_in(session, context, instance_uuid, record['event'],
               finish.get('result'), finish.get('traceback'),
               finish.get('details'), record['host'])


@base.NovaLiteObjectRegistry.register
class InstanceActionEventList(base.ObjectListBase, base.NovaLiteObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {'objects': fields.ListOfObjectsField('InstanceActionEvent')}

    @classmethod
    @base.remotable
    def get_by_action(cls, context, action_id):
        """The events of an action, newest first."""
        table = models.InstanceActionEvent
        with db.cell_session(context) as session:
            rows = list(session.execute(
                sa.select(table).where(table.action_id == action_id)
                .order_by(table.created_at.desc(), table.id.desc()))
                .scalars())
        return cls(context, objects=[InstanceActionEvent._from_db(context,
                                                                  row)
                                     for row in rows])


@db.retried
def move_history(source_context, target_context, instance_uuid):
    """Move the actions and events of ``instance_uuid`` from the cell
    database ``source_context`` is aimed at to ``target_context``'s, as
    they were (times, results, request ids); the number of actions moved.

    For a server rebuilt from cell0: its history, the create whose
    scheduling failed included, follows it to its real cell. Not
    remotable: only the conductor, which holds both cells' credentials,
    moves a server between cells.
    """
    with db.cell_session(source_context) as session:
        actions = list(session.execute(
            sa.select(models.InstanceAction)
            .where(models.InstanceAction.instance_uuid == instance_uuid)
            .order_by(models.InstanceAction.id)).scalars())
        events = list(session.execute(
            sa.select(models.InstanceActionEvent)
            .where(models.InstanceActionEvent.action_id.in_(
                [a.id for a in actions]))
            .order_by(models.InstanceActionEvent.id)).scalars())
    if not actions:
        return 0
    with db.cell_session(target_context) as session:
        new_ids = {}
        for action in actions:
            copied = models.InstanceAction(**{
                name: getattr(action, name) for name in _ACTION_COLUMNS
                if name != 'id'})
            session.add(copied)
            session.flush()
            new_ids[action.id] = copied.id
        for event in events:
            values = {name: getattr(event, name) for name in _EVENT_COLUMNS
                      if name != 'id'}
            values['action_id'] = new_ids[event.action_id]
            session.add(models.InstanceActionEvent(**values))
    with db.cell_session(source_context) as session:
        session.execute(sa.delete(models.InstanceActionEvent).where(
            models.InstanceActionEvent.action_id.in_(list(new_ids))))
        session.execute(sa.delete(models.InstanceAction).where(
            models.InstanceAction.id.in_(list(new_ids))))
    return len(actions)


@db.retried
def forget_action(context, instance_uuid, request_id):
    """Delete the action request ``request_id`` started on
    ``instance_uuid``, with its events, from the cell ``context`` is aimed
    at: the undo of a step that recorded it (a build that is taken back).
    Not remotable: only the conductor undoes a build."""
    with db.cell_session(context) as session:
        ids = list(session.execute(
            sa.select(models.InstanceAction.id)
            .where(models.InstanceAction.instance_uuid == instance_uuid,
                   models.InstanceAction.request_id == request_id))
                   .scalars())
        if not ids:
            return
        session.execute(sa.delete(models.InstanceActionEvent).where(
            models.InstanceActionEvent.action_id.in_(ids)))
        session.execute(sa.delete(models.InstanceAction).where(
            models.InstanceAction.id.in_(ids)))
