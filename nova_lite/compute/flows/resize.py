"""Resize and cold migration, the computes' halves (DESIGN.md, flow 7).

The conductor (``conductor/tasks/migrate.py``) has created the migration
(``pre-migrating``), moved what the server holds on its source to the
migration's consumer, claimed the destination for the server at the new
flavor and had the destination check it can take the server
(``check_destination``). Then:

As the source (``resize_instance``), a ``nova_lite.flow.Flow`` recorded on
the migration; the first three steps are the conductor's, handed over
with the cast (``handed_over``):

1. ``migration`` -- the migration record (undo: it ends ``error``);
2. ``move_source_to_migration`` -- the migration's consumer holds what the
   server holds here (undo: it goes back to the server, in place of the
   destination's claim);
3. ``claim_destination`` -- the server's consumer holds the destination at
   the new flavor (undo: given back);
4. ``migrating`` -- the migration from ``pre-migrating`` to ``migrating``:
   the fence (a migration that is not pre-migrating any more is not this
   cast's: nothing is written or undone); no undo of its own;
5. ``power_off`` -- the guest here powered off (undo: powered on again,
   if it ran -- the step's argument);
6. ``transfer`` -- the guest's disks sent to the destination (the fake
   driver takes ``[compute] fake_resize_seconds``); no undo of its own;
7. ``hand_over`` -- the migration ``post-migrating``, the server's task
   ``resize_migrated``, and ``finish_resize`` cast to the destination,
   which takes every step above over.

A failure here undoes the steps taken: the server stays where it was, as
it was, with a fault saying why, and the migration is ``error``.

As the destination (``finish_resize``), the flow goes on under its own
name, with the steps above inherited:

8. ``claim_here`` -- the claim on this node at the new flavor, with the
   ports' request groups on the providers the scheduler chose (undo: the
   resource tracker drops it);
9. ``bind_here`` -- each port bound to this host with this host's
   provider as ``allocation`` (undo: bound to the source again with the
   profile it had);
10. ``take_over`` -- the server's host, node and flavor are this one's,
   the old flavor kept (undo: back on its source at its old flavor);
11. ``spawn`` -- the guest built here (undo: destroyed).

Then the server is RESIZED (``VERIFY_RESIZE``) here and the migration
``finished``. A failure here undoes the steps taken and gives the server
back to its source (``give_back_to_source``): the source runs it again
as it was, with a fault saying why, and the migration ends ``error``.

What a finished resize becomes:

- confirmed (``confirm_resize``, on the source): the remains of the guest
  there go, and what the migration's consumer holds there is deleted;
  the migration ``confirmed``;
- reverted (``revert_resize`` on the destination, then
  ``finish_revert_resize`` on the source): the guest here goes, each port
  is bound to the source again with the profile it had, the server gets
  its source allocation back from the migration in place of this host's,
  and the source runs it again at its old flavor; the migration
  ``reverted``.

A resize left ``finished`` longer than ``[DEFAULT] resize_confirm_window``
seconds is confirmed by its destination (``confirm_old_resizes``).
"""

from oslo_log import log as logging
from oslo_utils import timeutils

from nova_lite.compute.flows import common
from nova_lite.compute import instance_actions
from nova_lite.compute import states
from nova_lite import conf as nova_conf
from nova_lite import exception
from nova_lite import flow as flows
from nova_lite import lifecycle
from nova_lite import objects

CONF = nova_conf.CONF
LOG = logging.getLogger(__name__)

# The conductor's flow, recorded on the migration until the source
# records its own there.
CONDUCTOR_FLOW = 'resize'
SOURCE_FLOW = 'resize at the source'
DEST_FLOW = 'resize at the destination'
# The task states of a resize; a compute's recovery leaves them to
# ``recover_resizes``.
RESIZE_TASKS = (states.RESIZE_PREP, states.RESIZE_MIGRATING,
                states.RESIZE_MIGRATED, states.RESIZE_FINISH,
                states.RESIZE_REVERTING, states.RESIZE_CONFIRMING)
# Where the server's vm_state before the move is kept: a resize of a
# stopped server ends stopped.
OLD_VM_STATE = 'old_vm_state'


def action_of(migration):
    return (instance_actions.RESIZE
            if migration.migration_type == 'resize'
            else instance_actions.MIGRATE)


def _sized(instance, flavor):
    """``instance`` as it will be at ``flavor`` (for a claim)."""
    sized = instance.obj_clone()
    sized.flavor = flavor
    return sized


def _set_flavor(instance, flavor):
    """The server at ``flavor``: the flavor and the figures the quota
    counts."""
    instance.flavor = flavor
    for name in ('memory_mb', 'vcpus', 'root_gb', 'ephemeral_gb'):
        setattr(instance, name, getattr(flavor, name))


# -- as the destination, before anything moves -------------------------------

def check_destination(compute, context, instance, migration, flavor,
                      limits=None):
    """Can ``instance`` come here at ``flavor``? The scheduler has claimed
    the room in placement; what is left is this host's own say."""
    if CONF.compute.fake_refuse_resize:
        raise exception.MigrationPreCheckError(
            reason='%s refuses resizes and cold migrations ([compute] '
                   'fake_refuse_resize)' % compute.host)
    same_host = migration.source_compute == compute.host
    if not same_host and \
            instance.uuid in compute.driver.list_instance_uuids():
        raise exception.MigrationPreCheckError(
            reason='%s already has a guest of %s' % (compute.host,
                                                     instance.uuid))
    try:
        compute.rt.check_room(context, _sized(instance, flavor),
                              migration.dest_node or
                              compute.driver.nodename, limits)
    except exception.ComputeResourcesUnavailable as error:
        raise exception.MigrationPreCheckError(
            reason=error.format_message())


# -- as the source -----------------------------------------------------------

def resize_instance(compute, context, instance, migration, flavor,
                    request_spec, claimed_node):
    """The source's half: power the guest off here and hand the server
    to the destination (the module's docstring)."""
    with compute.work.lock(instance.uuid), instance_actions.event(
            context, instance.uuid, 'compute_resize_instance',
            host=compute.host, action=action_of(migration)) as step:
        was_running = instance.power_state == states.RUNNING
        flow = flows.Flow(
            SOURCE_FLOW, instance.uuid,
            source_undos(compute, context, instance, migration),
            record=common.recorded_on(migration, SOURCE_FLOW),
            not_ours=(exception.MigrationStatusChanged,))
        try:
            with flow:
                flow.inherit(_conductor_steps(claimed_node))
                migration.status = 'migrating'
                migration.save(expected_status=['pre-migrating'])
                flow.step('migrating')
                instance.task_state = states.RESIZE_MIGRATING
                instance.save(expected_task_state=[states.RESIZE_PREP])
                flow.step('power_off', was_running)
                compute.driver.power_off(instance)
                flow.step('transfer', migration.dest_compute)
                compute.driver.migrate_disk_and_power_off(
                    instance, migration.dest_compute)
                instance.power_state = states.SHUTDOWN
                instance.task_state = states.RESIZE_MIGRATED
                instance.system_metadata[OLD_VM_STATE] = instance.vm_state
                instance.save(expected_task_state=[states.RESIZE_MIGRATING])
                flow.step('hand_over', migration.dest_compute)
                migration.status = 'post-migrating'
                migration.save(expected_status=['migrating'])
                compute.compute_rpcapi.finish_resize(
                    context, instance, migration, flavor, request_spec,
                    claimed_node)
                flow.done()
        except exception.MigrationStatusChanged as error:
            LOG.warning('Resize %s of %s not started here: %s',
                        migration.uuid, instance.uuid, error)
            return
        except Exception as error:
            LOG.warning('%s of %s to %s failed at its source: %s',
                        action_of(migration), instance.uuid,
                        migration.dest_compute, error)
            step.fail('The %s to %s failed: %s' % (
                action_of(migration), migration.dest_compute,
                instance_actions.error_details(error)), error)
            _stays_on_source(compute, context, instance, error)
            return
        LOG.info('%s of %s handed over to %s', action_of(migration),
                 instance.uuid, migration.dest_compute)


def _conductor_steps(claimed_node):
    """The conductor's steps, whose undo is the source's from the cast
    on (steps 1-3 of the module's docstring)."""
    return [['migration', None], ['move_source_to_migration', None],
            ['claim_destination', claimed_node]]


def _stays_on_source(compute, context, instance, error):
    """A resize undone before it left the source: the server as it was,
    with a fault saying why and no task."""
    lifecycle.record_fault(context, instance, error, host=compute.host)
    instance.task_state = None
    try:
        instance.save(expected_task_state=[
            states.RESIZE_PREP, states.RESIZE_MIGRATING,
            states.RESIZE_MIGRATED])
    except (exception.InstanceNotFound,
            exception.UnexpectedTaskStateError) as e:
        LOG.info('%s changed during its resize: %s', instance.uuid, e)


def _end_migration(migration, status='error'):
    migration.status = status
    try:
        migration.save(expected_status=['pre-migrating', 'migrating',
                                        'post-migrating'])
    except exception.MigrationStatusChanged:
        pass  # ended already


def source_undos(compute, context, instance, migration):
    """What undoes each step of the source's flow (the module's
    docstring); each is idempotent."""
    def power_on(was_running):
        if was_running:
            compute.driver.power_on(instance)
            instance.power_state = states.RUNNING
    return flows.undo_table(
        migration=lambda _: _end_migration(migration),
        move_source_to_migration=lambda _: lifecycle.return_source_side(
            compute.rt.reportclient, migration.uuid, instance.uuid),
        claim_destination=lambda node: lifecycle.give_back(
            compute.rt.reportclient, instance.uuid, if_on=node),
        migrating=None,
        power_off=power_on,
        transfer=None,  # power_off's undo runs the guest here again
        hand_over=None)


# -- as the destination ------------------------------------------------------

def finish_resize(compute, context, instance, migration, flavor,
                  request_spec, claimed_node):
    """The destination's half: claim here at the new flavor, point the
    ports here, take the server over and build its guest; RESIZED."""
    with compute.work.lock(instance.uuid), instance_actions.event(
            context, instance.uuid, 'compute_finish_resize',
            host=compute.host, action=action_of(migration)) as step:
        if _current_migration(context, migration, 'post-migrating') is None:
            return  # a late or repeated cast: given back, or finished
        groups = (request_spec.requested_resources
                  if request_spec is not None else [])
        provider_of_port = {group.requester_id: group.provider_uuids[0]
                            for group in groups if group.provider_uuids}
        node = migration.dest_node or compute.driver.nodename
        old_flavor = instance.flavor
        flow = flows.Flow(
            DEST_FLOW, instance.uuid,
            destination_undos(compute, context, instance, migration,
                              old_flavor),
            record=common.recorded_on(migration, DEST_FLOW))
        try:
            with compute.rt.claiming(instance.uuid), flow:
                flow.inherit(_conductor_steps(claimed_node) + [
                    ['migrating', None], ['power_off', None],
                    ['transfer', compute.host], ['hand_over', compute.host]])
                if len(provider_of_port) != len(groups):
                    raise exception.PortUpdateFailed(
                        port_id=','.join(g.requester_id for g in groups),
                        reason='the request spec names no provider for '
                               'every port resource request')
                ports = compute.ports.ports_of(instance)
                common.claim_and_bind_here(
                    compute, context, _sized(instance, flavor), flow, node,
                    None, groups, provider_of_port, ports)
                flow.step('take_over', node)
                instance.host = compute.host
                instance.node = node
                instance.old_flavor = old_flavor
                instance.new_flavor = flavor
                _set_flavor(instance, flavor)
                instance.task_state = states.RESIZE_FINISH
                instance.save(expected_task_state=[states.RESIZE_MIGRATED])
                flow.step('spawn')
                compute.driver.spawn(context, instance)
                was_stopped = instance.system_metadata.get(
                    OLD_VM_STATE) == states.STOPPED
                if was_stopped:
                    compute.driver.power_off(instance)
                instance.vm_state = states.RESIZED
                instance.power_state = (states.SHUTDOWN if was_stopped
                                        else states.RUNNING)
                instance.task_state = None
                instance.launched_at = timeutils.utcnow()
                # The claim's record and the end of the move's workload
                # go with it.
                common.save_with_usage(compute, context, instance,
                                       states.RESIZE_FINISH)
                migration.status = 'finished'
                migration.save(expected_status=['post-migrating'])
                flow.done()
        except Exception as error:
            LOG.warning('%s of %s to %s failed: %s', action_of(migration),
                        instance.uuid, compute.host, error)
            step.fail('The %s to %s failed: %s' % (
                action_of(migration), compute.host,
                instance_actions.error_details(error)), error)
            give_back_to_source(compute, context, instance, migration, error)
            return
        LOG.info('%s of %s from %s to %s finished; waiting for it to be '
                 'confirmed or reverted', action_of(migration),
                 instance.uuid, migration.source_compute, compute.host)


def destination_undos(compute, context, instance, migration, old_flavor):
    """What undoes each step of the destination's flow (the module's
    docstring); each is idempotent."""
    def drop_claim(node):
        compute.rt.drop_instance(context, instance, node)

    def unbind(bound):
        compute.ports.update_port(bound['port'], **{
            'binding:host_id': bound['host'],
            'binding:profile': bound['profile']})

    def back_on_source(_):
        instance.host = migration.source_compute
        instance.node = migration.source_node
        _set_flavor(instance, old_flavor)
        instance.old_flavor = None
        instance.new_flavor = None
        instance.task_state = states.RESIZE_MIGRATED
        common.save_expecting(instance, states.RESIZE_FINISH)

    def destroy(_):
        compute.driver.destroy(context, instance)

    return flows.undo_table(
        # The migration ends, and the guest on the source runs again,
        # when the source takes the server back (give_back_to_source).
        migration=None,
        move_source_to_migration=lambda _: lifecycle.return_source_side(
            compute.rt.reportclient, migration.uuid, instance.uuid),
        claim_destination=lambda node: lifecycle.give_back(
            compute.rt.reportclient, instance.uuid, if_on=node),
        migrating=None,
        power_off=None,
        transfer=None,
        hand_over=None,
        claim_here=drop_claim,
        bind_here=unbind,
        take_over=back_on_source,
        spawn=destroy)


def give_back_to_source(compute, context, instance, migration, error):
    """A resize that will not finish here, its steps here undone: the
    migration ``reverting`` (marked as given back, so it ends ``error``),
    the server's source allocation returned to it, and the source told to
    run it again as it was (``finish_revert_resize``)."""
    lifecycle.return_source_side(compute.rt.reportclient, migration.uuid,
                                 instance.uuid)
    migration.status = 'reverting'
    try:
        migration.save(expected_status=['post-migrating'])
    except exception.MigrationStatusChanged as e:
        LOG.info('Not giving %s back to %s: %s', instance.uuid,
                 migration.source_compute, e)
        return
    migration.record_flow(DEST_FLOW, [['give_back', None]])
    lifecycle.record_fault(context, instance, error, host=compute.host)
    instance.task_state = states.RESIZE_REVERTING
    instance.save(expected_task_state=list(RESIZE_TASKS))
    LOG.warning('Giving %s back to %s: %s', instance.uuid,
                migration.source_compute, error)
    compute.compute_rpcapi.finish_revert_resize(context, instance,
                                                migration)


def _given_back(migration):
    return any(name == 'give_back' for name, _arg in
               migration.recorded_steps(DEST_FLOW) or [])


# -- confirm -----------------------------------------------------------------

def begin_confirm(context, instance, migration, compute_rpcapi):
    """Mark ``migration`` (``finished``) ``confirming`` -- a revert asked
    for meanwhile wins: MigrationStatusChanged -- and have its source
    drop what the server left there."""
    migration.status = 'confirming'
    migration.save(expected_status=['finished'])
    compute_rpcapi.confirm_resize(context, instance, migration)


def confirm_resize(compute, context, instance, migration):
    """As the source: the guest's remains here go (unless the server
    resized in place), what the migration holds here is given back, and
    the server is ACTIVE (or STOPPED) at its new flavor."""
    with compute.work.lock(instance.uuid), instance_actions.event(
            context, instance.uuid, 'compute_confirm_resize',
            host=compute.host,
            action=instance_actions.CONFIRM_RESIZE) as step:
        current = _current_migration(context, migration, 'confirming')
        if current is None:
            return
        try:
            if migration.source_compute != migration.dest_compute:
                compute.driver.destroy(context, instance)
                compute.rt.forget_instance(context, instance,
                                           migration.source_node)
            compute.rt.reportclient.delete_allocations(migration.uuid)
            instance.refresh()
            instance.vm_state = (
                states.STOPPED if instance.system_metadata.get(
                    OLD_VM_STATE) == states.STOPPED else states.ACTIVE)
            instance.system_metadata.pop(OLD_VM_STATE, None)
            instance.old_flavor = None
            instance.new_flavor = None
            instance.save(expected_vm_state=[states.RESIZED],
                          expected_task_state=[None])
        except Exception as error:
            _ended_in_error(compute, context, instance, migration, step,
                            error, 'Confirming', host=migration.dest_compute)
            return
        migration.status = 'confirmed'
        migration.save()
        LOG.info('Resize of %s confirmed; its source %s is clean',
                 instance.uuid, compute.host)


def _ended_in_error(compute, context, instance, migration, step, error,
                    what, host=None):
    """A confirmation or a revert that failed half-way (the hypervisor
    or a peer said no where nothing should): the server in ERROR with
    the reason, for an admin, and the migration ``error``."""
    LOG.exception('%s the resize of %s failed on %s', what, instance.uuid,
                  compute.host)
    step.fail('%s failed: %s' % (what, instance_actions.error_details(
        error)), error)
    migration.status = 'error'
    migration.save()
    common.set_error(compute, context, instance, error, host=host)


def _current_migration(context, migration, status):
    """``migration`` read again, if it is still ``status`` (else None,
    logged: a late or repeated message)."""
    try:
        current = objects.Migration.get_by_uuid(context, migration.uuid)
    except exception.NotFound:
        LOG.info('Migration %s is gone', migration.uuid)
        return None
    if current.status != status:
        LOG.info('Migration %s of %s is %s, not %s: nothing to do',
                 migration.uuid, migration.instance_uuid, current.status,
                 status)
        return None
    return current


def confirm_old_resizes(compute, context):
    """Confirm the resizes to this host that waited longer than
    ``[DEFAULT] resize_confirm_window`` (0: never)."""
    window = CONF.resize_confirm_window
    if not window:
        return
    for migration in objects.MigrationList.get_resizes_of_host(
            context, compute.host, ['finished'], stale_for=window):
        if migration.dest_compute != compute.host:
            continue
        try:
            instance = objects.Instance.get_by_uuid(context,
                                                    migration.instance_uuid)
        except exception.InstanceNotFound:
            continue
        if instance.vm_state != states.RESIZED or \
                instance.task_state is not None:
            continue
        LOG.info('Confirming the resize of %s: it waited more than %d s '
                 '([DEFAULT] resize_confirm_window)', instance.uuid, window)
        instance_actions.record_action(context, instance.uuid,
                                       instance_actions.CONFIRM_RESIZE)
        try:
            begin_confirm(context, instance, migration,
                          compute.compute_rpcapi)
        except exception.MigrationStatusChanged:
            continue  # confirmed or reverted meanwhile
        except Exception as error:
            LOG.warning('Could not confirm the resize of %s now: %s',
                        instance.uuid, error)


# -- revert ------------------------------------------------------------------

def revert_resize(compute, context, instance, migration):
    """As the destination: the guest here goes, each port is bound to the
    source again with the profile it had, the server gets its source
    allocation back in place of this host's; then the source runs it
    again (``finish_revert_resize``)."""
    with compute.work.lock(instance.uuid), instance_actions.event(
            context, instance.uuid, 'compute_revert_resize',
            host=compute.host,
            action=instance_actions.REVERT_RESIZE) as step:
        current = _current_migration(context, migration, 'reverting')
        if current is None:
            return
        try:
            compute.driver.destroy(context, instance)
            for name, bound in current.recorded_steps(DEST_FLOW) or []:
                if name == 'bind_here':
                    compute.ports.update_port(bound['port'], **{
                        'binding:host_id': bound['host'],
                        'binding:profile': bound['profile']})
            if migration.source_compute != compute.host:
                compute.rt.forget_instance(context, instance,
                                           migration.dest_node)
            lifecycle.return_source_side(compute.rt.reportclient,
                                         migration.uuid, instance.uuid)
            compute.compute_rpcapi.finish_revert_resize(
                context, instance, migration)
        except Exception as error:
            _ended_in_error(compute, context, instance, migration, step,
                            error, 'Reverting')


def finish_revert_resize(compute, context, instance, migration):
    """As the source: the server is here again at its old flavor, its
    guest running again (or stopped, if it was); the migration
    ``reverted``."""
    with compute.work.lock(instance.uuid), instance_actions.event(
            context, instance.uuid, 'compute_finish_revert_resize',
            host=compute.host,
            action=instance_actions.REVERT_RESIZE) as step:
        current = _current_migration(context, migration, 'reverting')
        if current is None:
            return
        try:
            instance.refresh()
            was_stopped = instance.system_metadata.pop(
                OLD_VM_STATE, None) == states.STOPPED
            if instance.old_flavor is not None:
                _set_flavor(instance, instance.old_flavor)
            instance.old_flavor = None
            instance.new_flavor = None
            instance.host = compute.host
            instance.node = migration.source_node
            if was_stopped:
                compute.driver.power_off(instance)
            else:
                compute.driver.power_on(instance)
            instance.vm_state = (states.STOPPED if was_stopped
                                 else states.ACTIVE)
            instance.power_state = (states.SHUTDOWN if was_stopped
                                    else states.RUNNING)
            instance.task_state = None
            instance.save(expected_task_state=[states.RESIZE_REVERTING])
            compute.rt.track_instance(context, instance, instance.node)
        except Exception as error:
            _ended_in_error(compute, context, instance, migration, step,
                            error, 'Reverting')
            return
        migration.status = 'error' if _given_back(current) else 'reverted'
        migration.save()
        LOG.info('%s of %s %s: it runs on %s again', action_of(migration),
                 instance.uuid, 'undone' if _given_back(current)
                 else 'reverted', compute.host)


# -- recovery ---------------------------------------------------------------

# The statuses of a resize that a compute works on: the source's part,
# the destination's, a revert's and a confirmation's.
_COMPUTES_PART = ('migrating', 'post-migrating', 'reverting', 'confirming')


def recover_resizes(compute, context, restarted=False):
    """The resizes this host works on that nothing here works on any more:
    at start (``restarted``) those the previous process was doing, and
    later any that made no progress for [compute]
    interrupted_task_timeout. The source's part cut off is undone (the
    server runs here again as it was); the destination's is undone and
    the server given back to its source; a revert or a confirmation is
    done again (each is harmless twice)."""
    timeout = CONF.compute.interrupted_task_timeout
    if not restarted and not timeout:
        return
    try:
        migrations = objects.MigrationList.get_resizes_of_host(
            context, compute.host, _COMPUTES_PART,
            stale_for=None if restarted else timeout)
    except Exception:
        LOG.exception('Cannot read the resizes of %s', compute.host)
        return
    for migration in migrations:
        if compute.work.is_worked_on(migration.instance_uuid):
            continue
        try:
            instance = objects.Instance.get_by_uuid(context,
                                                    migration.instance_uuid)
        except exception.InstanceNotFound:
            _end_migration(migration)
            continue
        with compute.work.working_on(instance.uuid):
            try:
                _recover(compute, context, instance, migration, restarted)
            except Exception:
                LOG.exception('Could not recover the %s %s of %s',
                              migration.migration_type, migration.uuid,
                              instance.uuid)


def _recover(compute, context, instance, migration, restarted):
    why = ('%s restarted during it' % compute.host if restarted else
           'no progress for %ss' % CONF.compute.interrupted_task_timeout)
    error = exception.InstanceTaskInterrupted(
        instance_uuid=instance.uuid, task=instance.task_state or
        migration.status, reason=why)
    here = compute.host
    if migration.status == 'migrating' and migration.source_compute == here:
        LOG.warning('The %s of %s from here was cut off (%s); undoing it',
                    action_of(migration), instance.uuid, why)
        steps = (migration.recorded_steps(SOURCE_FLOW) or
                 migration.recorded_steps(CONDUCTOR_FLOW) or [])
        flows.undo_recorded(SOURCE_FLOW, instance.uuid, source_undos(
            compute, context, instance, migration), steps)
        _stays_on_source(compute, context, instance, error)
    elif migration.status == 'post-migrating' and \
            migration.dest_compute == here:
        LOG.warning('The %s of %s to here was cut off (%s); giving it back '
                    'to %s', action_of(migration), instance.uuid, why,
                    migration.source_compute)
        old_flavor = instance.old_flavor or instance.flavor
        steps = migration.recorded_steps(DEST_FLOW) or []
        flows.undo_recorded(DEST_FLOW, instance.uuid, destination_undos(
            compute, context, instance, migration, old_flavor), steps)
        give_back_to_source(compute, context, instance, migration, error)
    elif migration.status == 'reverting' and \
            migration.dest_compute == here and \
            not _given_back(migration) and \
            instance.host == here:
        revert_resize(compute, context, instance, migration)
    elif migration.status == 'reverting' and \
            migration.source_compute == here:
        finish_revert_resize(compute, context, instance, migration)
    elif migration.status == 'confirming' and \
            migration.source_compute == here:
        confirm_resize(compute, context, instance, migration)
