"""The tasks of this host's servers that nothing here works on any more:
at start, those the previous process was doing when it died; every
[compute] recovery_interval, any task that has not moved for [compute]
interrupted_task_timeout (its message was lost). Each is finished when
doing it again is harmless (a delete, a power off or on, an offload, a
rebuild in place, a reboot, a pause, a suspend or their undoing) and
undone otherwise: a build is undone and scheduled again, an evacuation
here goes back to its source, a live migration from here is rolled back,
anything else ends in ERROR in place with a fault saying why.

A move whose flow recorded its steps on the migration (a live migration
from here, an evacuation to here) is undone by replaying the undos of
those steps, as its own failure would have undone them; one begun before
the computes recorded their steps is repaired from what the port service
and placement say (``_roll_back_unrecorded``,
``_evacuation_cut_off_unrecorded``). Where a flow has no record (a build,
an unshelve), the server's state shows which steps were taken, and every
one of them is undone.
"""

from oslo_log import log as logging

from nova_lite.compute.flows import build
from nova_lite.compute.flows import common
from nova_lite.compute.flows import delete
from nova_lite.compute.flows import evacuate
from nova_lite.compute.flows import live_migration
from nova_lite.compute.flows import power
from nova_lite.compute.flows import rebuild
from nova_lite.compute.flows import resize
from nova_lite.compute.flows import shelve
from nova_lite.compute import instance_actions
from nova_lite.compute import states
from nova_lite import conf as nova_conf
from nova_lite import exception
from nova_lite import flow as flows
from nova_lite import lifecycle
from nova_lite.network import api as network_api
from nova_lite import objects

CONF = nova_conf.CONF
LOG = logging.getLogger(__name__)

# Task states only this compute sets: a server found in one when the
# compute starts was being worked on by the process that died.
_STARTED_HERE = (states.NETWORKING, states.BLOCK_DEVICE_MAPPING,
                 states.SPAWNING, states.REBUILD_SPAWNING,
                 states.REBOOT_PENDING, states.REBOOT_STARTED,
                 states.REBOOT_PENDING_HARD, states.REBOOT_STARTED_HARD)

# Tasks done again when interrupted: each is harmless twice.
_DONE_AGAIN = {states.POWERING_OFF: power.stop,
               states.POWERING_ON: power.start,
               states.PAUSING: power.pause,
               states.UNPAUSING: power.unpause,
               states.SUSPENDING: power.suspend,
               states.RESUMING: power.resume}


def recover_live_migrations(compute, context, instances=None, stale=False):
    """A live migration from here that this compute's restart cut off
    is undone from the steps it recorded (or, once the guest was
    transferred, finished): the server stays here, ACTIVE, with its
    allocation and bindings; the migration is in error. Nothing stays
    ``migrating`` forever. With ``stale`` (``instances`` have not moved
    for [compute] interrupted_task_timeout) one that never reached
    this compute is rolled back too: its conductor died, or its cast
    was lost -- unless its conductor kept the migration alive meanwhile
    (``_end_for_its_conductor``) -- and so is one that ended (an admin
    cancelled it, or it failed) while the server was left migrating:
    what undid it died half-way."""
    if instances is None:
        try:
            instances = objects.InstanceList.get_by_host(context,
                                                         compute.host)
        except Exception:
            LOG.exception('Cannot read the instances of %s', compute.host)
            return
    for instance in instances:
        if instance.task_state != states.MIGRATING:
            continue
        migrations = [m for m in objects.MigrationList.get_by_instance(
            context, instance.uuid)
            if m.migration_type == 'live-migration' and
            m.source_compute == compute.host]
        if not migrations:
            continue
        migration = migrations[-1]
        if migration.status not in live_migration.NOT_OVER and not (
                stale and migration.status in ('cancelled', 'error')):
            continue
        steps = migration.recorded_steps(live_migration.FLOW)
        if steps is None and migration.status in _CONDUCTORS:
            if not stale:
                # Still the conductor's, or its cast to this compute is
                # on its way: the migration starts (or is rolled back)
                # when it arrives.
                continue
            migration = _end_for_its_conductor(context, migration)
            if migration is None:
                continue
        LOG.warning('The live migration %s of %s was interrupted (%s)',
                    migration.uuid, instance.uuid,
                    'no progress for %ss' %
                    CONF.compute.interrupted_task_timeout if stale else
                    'a restart of %s' % compute.host)
        if steps is None:
            handed = migration.recorded_steps(live_migration.CONDUCTOR_FLOW)
            if handed is not None:
                # Its conductor died before the cast reached this
                # compute: the steps it recorded, with the task state
                # and the migration that every live migration holds.
                steps = [['migrating', None], ['migration', None]] + handed
        if steps is not None:
            live_migration.take_over(compute, context, instance, migration,
                                     steps)
        else:
            _roll_back_unrecorded(compute, context, instance, migration)


# A live migration its conductor still works on, or whose cast to this
# compute is on its way.
_CONDUCTORS = ('accepted', 'queued')


def _end_for_its_conductor(context, migration):
    """The fence of a takeover from a conductor: a live migration its
    conductor has not kept alive for [compute] interrupted_task_timeout
    (``conductor/move_leases.py``), by the database's clock, is ended
    here -- ``error``, if it is still as it was read -- and returned as
    it is now: its recorded steps are all it will ever record, since its
    conductor writes nothing more once it is over. None: its conductor
    still works on it (it renewed it), or it moved on meanwhile."""
    if not migration.end_if_stale([migration.status],
                                  CONF.compute.interrupted_task_timeout):
        LOG.info('The live migration %s of %s is kept alive, or moved on; '
                 'left to its conductor', migration.uuid,
                 migration.instance_uuid)
        return None
    return objects.Migration.get_by_uuid(context, migration.uuid)


def _roll_back_unrecorded(compute, context, instance, migration):
    """A live migration that recorded no step here (its conductor died
    before the cast, or it began before the computes recorded their
    steps), rolled back from what the port service and placement say:
    the destination drops what it has and the ports' bindings there go;
    the migration's allocation comes back to the server in place of the
    destination's claim; the server stays here, ACTIVE; the migration is
    in error."""
    dest = migration.dest_compute
    try:
        bound = [port['id'] for port in
                 compute.ports.ports_of(instance)
                 if dest in {b['host'] for b in compute.ports.bindings(
                     port['id'])}]
    except exception.NovaLiteException as e:
        LOG.error('Ports of %s not read: %s', instance.uuid, e)
        bound = []
    try:
        compute.compute_rpcapi.rollback_live_migration_at_destination(
            context, instance, dest, objects.LiveMigrateData(
                source_host=compute.host, source_node=migration.source_node,
                dest_host=dest, dest_node=migration.dest_node,
                bound_ports=bound))
    except Exception as e:
        LOG.warning('%s not told to drop %s: %s', dest, instance.uuid, e)
    for port_id in bound:
        try:
            compute.ports.delete_binding(port_id, dest)
        except exception.NovaLiteException as e:
            LOG.error('Inactive binding of port %s on %s not deleted: '
                      '%s', port_id, dest, e)
    lifecycle.return_source_side(compute.rt.reportclient, migration.uuid,
                                 instance.uuid)
    instance.task_state = None
    overtaken = common.save_expecting(instance, states.MIGRATING)
    if overtaken is not None:
        LOG.info('%s changed during its live migration: %s',
                 instance.uuid, overtaken)
    migration.status = 'error'
    migration.save()


def resolve_interrupted_tasks(compute, context, restarted=False):
    """Finish or undo the tasks of servers on this host that nothing
    here is working on, so none stays in a task state forever: at
    start (``restarted``), those the previous process was doing when
    it died; and, every [compute] recovery_interval, any task that has
    not moved for [compute] interrupted_task_timeout seconds (its
    message was lost: a conductor died, or this compute died after
    taking the message off its queue). A live migration from here is
    left to recover_live_migrations, a resize to
    resize.recover_resizes."""
    timeout = CONF.compute.interrupted_task_timeout
    try:
        # Stale is judged by the database's clock, which writes every
        # task's updated_at (objects/instance.py). The periodic look needs
        # only those; a restart looks at every instance here too.
        stale = objects.InstanceList.get_by_filters(
            context, {'host': compute.host, 'stale_for': timeout,
                      'in_task': True}) if timeout else []
        instances = (objects.InstanceList.get_by_host(context, compute.host)
                     if restarted else stale)
        stale_ones = {instance.uuid for instance in stale}
    except Exception:
        LOG.exception('Cannot read the instances of %s', compute.host)
        return
    for instance in instances:
        if instance.task_state is None and \
                instance.vm_state != states.BUILDING:
            continue
        if compute.work.is_worked_on(instance.uuid):
            continue
        interrupted = (restarted and
                       instance.task_state in _STARTED_HERE)
        stale = instance.uuid in stale_ones
        if not (interrupted or stale):
            continue
        if instance.task_state in resize.RESIZE_TASKS:
            continue  # resize.recover_resizes, by its migration
        if instance.task_state == states.MIGRATING:
            if stale:
                recover_live_migrations(compute, context, [instance],
                                        stale=True)
            continue
        with compute.work.working_on(instance.uuid):
            try:
                _resolve(compute, context, instance, restarted)
            except Exception:
                LOG.exception('Could not resolve the interrupted task '
                              '%s of %s', instance.task_state,
                              instance.uuid)


def _resolve(compute, context, instance, restarted):
    task = instance.task_state
    why = ('%s restarted during it' % compute.host if restarted and
           task in _STARTED_HERE else
           'no progress for %ss' % CONF.compute.interrupted_task_timeout)
    LOG.warning('Instance %s: its %s was interrupted (%s); resolving '
                'it', instance.uuid, task or instance.vm_state, why)
    if task == states.DELETING:
        delete.terminate(compute, context, instance)
    elif task in _DONE_AGAIN:
        _DONE_AGAIN[task](compute, context, instance, resumed=True)
    elif task in states.SOFT_REBOOT_STATES + states.HARD_REBOOT_STATES:
        # Rebooted again, as Nova does at start: hard unless a soft one
        # was asked for and the guest still runs.
        soft = (task in states.SOFT_REBOOT_STATES and
                compute.driver.power_state(instance) == states.RUNNING)
        power.reboot(compute, context, instance,
                     power.SOFT if soft else power.HARD, resumed=True)
    elif task == states.SHELVING_OFFLOADING:
        shelve.shelve_offload(compute, context, instance)
    elif task == states.SHELVING:
        # Not shelved: it stays as it was, running.
        instance.task_state = None
        instance.save(expected_task_state=[task])
    elif task == states.UNSHELVING:
        # Shelved here and not offloaded: power it on again.
        shelve.unshelve(compute, context, instance, None, None, None,
                        resumed=True)
    elif instance.vm_state == states.SHELVED_OFFLOADED:
        # An unshelve that had taken the server over here.
        shelve.unshelve_cut_off(compute, context, instance, exception.
                                InstanceTaskInterrupted(
                                    instance_uuid=instance.uuid,
                                    task=task, reason=why))
    elif instance.vm_state == states.BUILDING:
        _restart_interrupted_build(compute, context, instance, why)
    elif task in (states.REBUILDING, states.REBUILD_SPAWNING):
        evacuation = _evacuation_in_progress(context, instance)
        if evacuation is None:
            # A rebuild here, done again: it holds its allocation here
            # all along, and destroying and spawning again is harmless.
            rebuild.resume(compute, context, instance, why)
        elif (task == states.REBUILD_SPAWNING and
              evacuation.dest_compute == compute.host):
            _evacuation_cut_off(compute, context, instance, evacuation, why)
        # else this host is the evacuation's source: the destination
        # and the conductor own the server now.
    else:
        _fail_in_place(compute, context, instance, task, why)


def _restart_interrupted_build(compute, context, instance, why):
    """A build that died here is undone and scheduled again, as a failed
    spawn is -- or, restarted too often already, ends in ERROR holding
    nothing (``lifecycle.restart_interrupted_build``); only if its state
    is still the one we read."""
    nodename = instance.node or compute.driver.nodename
    error = exception.BuildAbortException(
        instance_uuid=instance.uuid,
        reason='the build on %s was interrupted (%s)' % (compute.host, why))
    outcome = lifecycle.restart_interrupted_build(context, instance, error,
                                                  host=compute.host)
    if outcome is None:
        return
    with instance_actions.event(
            context, instance.uuid, 'compute_recover_interrupted_build',
            host=compute.host, action=instance_actions.CREATE) as step:
        step.fail(error.format_message() + (
            ' It is scheduled again.' if outcome == lifecycle.RESCHEDULED
            else ' It was restarted too often; delete the server, or '
                 'rebuild it.'))
    # It has no record of its steps: each is undone (an undo is harmless
    # for a step never taken).
    flows.run_undos(build.FLOW, instance.uuid,
                    build.build_undos(compute, context, instance),
                    build.every_step(nodename))
    if instance.obj_what_changed():
        instance.save()
    if outcome == lifecycle.RESCHEDULED:
        # The conductor reads its request spec and asks the scheduler.
        compute.conductor_api.build_instances(context, [instance], None,
                                              [[]])


def _fail_in_place(compute, context, instance, task, why):
    lifecycle.set_error(
        context, instance, exception.InstanceTaskInterrupted(
            instance_uuid=instance.uuid, task=task, reason=why),
        host=compute.host, expected_task_state=task)


def _evacuation_in_progress(context, instance):
    """The evacuation of ``instance`` that is not over, or None."""
    for migration in objects.MigrationList.get_by_instance(
            context, instance.uuid):
        if migration.migration_type == 'evacuation' and \
                migration.status in ('accepted', 'pre-migrating'):
            return migration
    return None


def _evacuation_cut_off(compute, context, instance, migration, why):
    """An evacuation to this host that a restart here cut off while it
    spawned: undone like a failed one (the server back on its source,
    in ERROR, holding its source allocation, to be evacuated again), by
    the undos of the steps it recorded."""
    error = exception.InstanceTaskInterrupted(
        instance_uuid=instance.uuid, task='evacuation', reason=why)
    steps = migration.recorded_steps(evacuate.FLOW)
    if steps is None:
        _evacuation_cut_off_unrecorded(compute, context, instance,
                                       migration, error)
        return
    evacuate.take_over(compute, context, instance, migration, steps, error)


def _evacuation_cut_off_unrecorded(compute, context, instance, migration,
                                   error):
    """The same for an evacuation begun before the computes recorded
    their steps: the guest and the claim here go, the source allocation
    comes back from the migration, the ports are pointed back at the
    source with the source providers, the migration failed."""
    compute.driver.destroy(context, instance)
    compute.rt.drop_instance(context, instance, instance.node or
                             compute.driver.nodename)
    lifecycle.return_source_side(compute.rt.reportclient, migration.uuid,
                                 instance.uuid)
    migration.status = 'failed'
    migration.save()
    instance.host = migration.source_compute
    instance.node = migration.source_node
    common.set_error(compute, context, instance, error)
    try:
        network_api.point_back(
            compute.ports, instance, migration.source_compute,
            compute.rt.reportclient.get_allocations(instance.uuid).get(
                'allocations') or {})
    except exception.NovaLiteException as e:
        LOG.error('Ports of %s not pointed back at %s: %s',
                  instance.uuid, migration.source_compute, e)
