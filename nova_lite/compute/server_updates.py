"""What the API changes on a server's own record, without its compute:
its name and description (``PUT /servers/{id}``), its metadata, its lock,
and its state when an administrator resets it.

The record is the Instance in the server's cell (cell0 included). A server
that is still only a BuildRequest is being scheduled: the conductor is
about to replace that record with its own, so a change now would be lost
-- it is refused (409), as a change of its tags is.

A locked server refuses every action and every change of its metadata to
anyone but an administrator, as in Nova (``check_not_locked``: in
``API.start_task`` for every action that starts a task, and in delete,
rebuild, confirmResize and revertResize). Who locked it is kept, so that
the owner cannot unlock what an administrator locked (``locked_by``); it
is kept in the server's system metadata, where Nova keeps the lock's
reason.

Callers locate the server and check policy first (``API.get``).
"""

from nova_lite.compute import instance_actions
from nova_lite.compute import states
from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite import objects
from nova_lite import quota

# Who locked a server: its project ('owner'), or an administrator of
# another project ('admin').
LOCKED_BY = 'locked_by'
OWNER = 'owner'
ADMIN = 'admin'

# Where a server's metadata may change (Nova's): not while it is being
# built, moved or deleted, nor in ERROR.
_METADATA_VM_STATES = (states.ACTIVE, states.PAUSED, states.SUSPENDED,
                       states.STOPPED)

# What os-resetState sets.
RESET_STATES = {'active': states.ACTIVE, 'error': states.ERROR}


def check_not_locked(context, instance):
    """InstanceIsLocked (409) if ``instance`` is locked and the caller is
    not an administrator."""
    if instance.locked and not context.is_admin:
        raise exception.InstanceIsLocked(instance_uuid=instance.uuid)


def _in_a_cell(api, context, instance, action):
    """(mapping, instance) of a server in a cell; InstanceWhileScheduling
    if it has none yet."""
    mapping, instance = api.locate(context, instance.uuid)
    if mapping.cell_mapping is None:
        raise exception.InstanceWhileScheduling(
            action=action, instance_uuid=instance.uuid)
    return mapping, instance


def _saved(api, context, instance, what, change, action=None):
    """Apply ``change(instance)`` to the server's record in its cell and
    save it, recording ``action`` first if given; the instance."""
    mapping, instance = _in_a_cell(api, context, instance, what)
    with nova_context.target_cell(context, mapping.cell_mapping) as cctxt:
        instance._context = cctxt
        if action is not None:
            instance_actions.record_action(cctxt, instance.uuid, action)
        change(instance)
        instance.save()
    return instance


# -- name and description ----------------------------------------------------

def update(api, context, instance, changes):
    """Set ``changes`` (display_name, display_description) on the server;
    the instance as saved."""
    def apply(instance):
        for name, value in changes.items():
            setattr(instance, name, value)
    return _saved(api, context, instance, 'update', apply)


# -- lock --------------------------------------------------------------------

def locker(context, instance):
    """Who the caller locks ``instance`` as: OWNER or ADMIN."""
    return OWNER if context.project_id == instance.project_id else ADMIN


def locked_by(instance):
    """Who locked ``instance`` (OWNER, ADMIN), or None."""
    if not instance.locked:
        return None
    return instance.system_metadata.get(LOCKED_BY)


def unlock_needs_override(context, instance):
    """Whether unlocking ``instance`` undoes someone else's lock: an
    administrator's, for its owner; its owner's, for an administrator of
    another project (Nova: the unlock_override rule)."""
    by = locked_by(instance)
    return by is not None and by != locker(context, instance)


def lock(api, context, instance):
    """Lock the server. Its owner locking it again changes nothing; an
    administrator's lock replaces the owner's, as in Nova."""
    by = locker(context, instance)
    if instance.locked and by == OWNER:
        return

    def apply(instance):
        instance.locked = True
        instance.system_metadata[LOCKED_BY] = by
    _saved(api, context, instance, 'lock', apply, instance_actions.LOCK)


def unlock(api, context, instance):
    def apply(instance):
        instance.locked = False
        instance.system_metadata.pop(LOCKED_BY, None)
    _saved(api, context, instance, 'unlock', apply, instance_actions.UNLOCK)


# -- reset state -------------------------------------------------------------

def reset_state(api, context, instance, state):
    """os-resetState: the server's vm_state set to ``state`` ('active' or
    'error') and its task cleared, whatever it was doing (a compute still
    working on it finds its task overtaken and stops)."""
    def apply(instance):
        instance.vm_state = RESET_STATES[state]
        instance.task_state = None
    return _saved(api, context, instance, 'reset the state of', apply,
                  instance_actions.RESET_STATE)


# -- metadata ----------------------------------------------------------------

def _change_metadata(api, context, instance, change):
    """``change(metadata)`` applied with the server's row locked, while
    it is in a state that allows it and not locked (for the caller)."""
    mapping, instance = _in_a_cell(api, context, instance,
                                   'change the metadata of')

    def checked(metadata, row):
        if row.locked and not context.is_admin:
            raise exception.InstanceIsLocked(instance_uuid=instance.uuid)
        if row.vm_state not in _METADATA_VM_STATES:
            raise exception.InstanceInvalidState(
                method='update metadata', instance_uuid=instance.uuid,
                attr='vm_state', state=row.vm_state)
        if row.task_state is not None:
            raise exception.InstanceInvalidState(
                method='update metadata', instance_uuid=instance.uuid,
                attr='task_state', state=row.task_state)
        return change(metadata)
    with nova_context.target_cell(context, mapping.cell_mapping) as cctxt:
        return objects.Instance.update_metadata(cctxt, instance.uuid,
                                                checked)


def set_metadata(api, context, instance, metadata, replace=False):
    """Merge ``metadata`` into the server's (or, with ``replace``, make it
    the server's); the metadata it has now. OverQuota (403) past
    ``[quota] metadata_items``."""
    def change(current):
        merged = dict(metadata) if replace else dict(current, **metadata)
        quota.check_metadata_items(merged)
        return merged
    return _change_metadata(api, context, instance, change)


def delete_metadata(api, context, instance, key):
    """Remove the item ``key``; InstanceMetadataNotFound (404) if the
    server has none."""
    def change(current):
        if key not in current:
            raise exception.InstanceMetadataNotFound(
                instance_uuid=instance.uuid, key=key)
        del current[key]
        return current
    _change_metadata(api, context, instance, change)
