"""Live migration, both computes' halves.

As the destination: the pre-checks, ``prepare_destination`` just before
the transfer, ``post_at_destination`` to take the server over, and
``rollback_at_destination`` to drop what it has of a server that stays
on its source.

As the source (``live_migrate``), a ``nova_lite.flow.Flow`` recorded on
the migration. Its steps, with what undoes each (``live_migration_undos``);
the first six are the conductor's, handed over with the cast
(``handed_over``):

1. ``migrating`` -- the server's task state, set by the API (undo: cleared;
   the server stays here, ACTIVE);
2. ``migration`` -- the migration record, queued (undo: it ends ``error``,
   or ``cancelled`` when an admin aborted it or the server was deleted;
   one an admin cancelled already stays so);
3. ``move_source_to_migration`` -- the migration's consumer holds what the
   server holds here (undo: it goes back to the server, in place of the
   destination's claim; to nobody if the server was deleted);
4. ``claim_destination`` -- the server's consumer holds the destination's
   resources (undo: given back);
5. ``check_destination`` -- the destination's pre-check (undo: the
   destination is told to drop whatever it has of the server: a guest
   the transfer left there);
6. ``bind_destination`` -- each port's INACTIVE binding on the destination,
   whose ``allocation`` is the destination's provider (undo: deleted; the
   port's binding here was never touched);
7. ``preparing`` -- recorded once the migration went from ``queued`` to
   ``preparing``: it is this compute's now, and an admin's abort reaches
   the transfer (no undo of its own: the migration's ends it). That
   change is the fence, made before anything is recorded: a migration
   cancelled while it was queued is undone; one that is neither queued
   nor cancelled (a takeover ended it) is not ours, and nothing is
   written or undone;
8. ``prepare_destination`` -- ``pre_live_migration`` on the destination
   (undo: ``check_destination``'s);
9. ``transfer`` -- the migration ``running``; the driver transfers the
   guest (undo: ``check_destination``'s drops what arrived);
10. ``transferred`` -- the guest runs on the destination: the flow is done
    and the move goes forward (``finish``): the destination's bindings
    become ACTIVE and the ones here go, the guest here and the
    migration's allocation go, and the destination takes the server over.

A takeover after a crash (``take_over``, from ``flows.interrupted``) reads
the steps recorded on the migration: up to ``transferred`` it replays
their undos, from there it finishes the move.
"""

import time

from oslo_log import log as logging
import oslo_messaging as messaging

from nova_lite.compute.flows import common
from nova_lite.compute import instance_actions
from nova_lite.compute import states
from nova_lite import conf as nova_conf
from nova_lite import exception
from nova_lite import flow as flows
from nova_lite import lifecycle
from nova_lite.network import api as network_api
from nova_lite import objects
from nova_lite import outage

CONF = nova_conf.CONF
LOG = logging.getLogger(__name__)

FLOW = 'live migration at the source'
# The name the conductor records its half under on the migration, until
# the source records its own flow there (which takes those steps over).
CONDUCTOR_FLOW = 'live migration'
# A migration in one of these is not over: its undo may still end it.
NOT_OVER = ['accepted', 'queued', 'preparing', 'running']


def check_destination(compute, context, instance, migrate_data):
    """As the destination: can ``instance`` come here live? The
    scheduler has claimed the room; what is left is the hypervisor's
    say."""
    held = CONF.compute.fake_live_migration_check_seconds.get(
        instance.display_name)
    if held:
        time.sleep(held)
    if CONF.compute.fake_refuse_live_migration:
        raise exception.MigrationPreCheckError(
            reason='%s refuses live migrations ([compute] '
                   'fake_refuse_live_migration)' % compute.host)
    if instance.uuid in compute.driver.list_instance_uuids():
        raise exception.MigrationPreCheckError(
            reason='%s already runs %s' % (compute.host, instance.uuid))
    return migrate_data


def check_source(compute, context, instance, migrate_data):
    if instance.host != compute.host:
        raise exception.MigrationPreCheckError(
            reason='%s is not on %s' % (instance.uuid, compute.host))
    return migrate_data


def prepare_destination(compute, context, instance, migrate_data):
    """As the destination, just before the transfer: nothing to plug
    for a fake guest; the inactive bindings are already here."""
    LOG.info('Ready to receive %s from %s', instance.uuid,
             migrate_data.source_host)
    return migrate_data


def abort(compute, context, instance, migration_id):
    LOG.info('Aborting the live migration %s of %s', migration_id,
             instance.uuid)
    compute.work.abort_migration(migration_id)


def handed_over(migration, migrate_data):
    """The conductor's steps, whose undo is the source's from the cast
    on (steps 1-6 of the module's docstring)."""
    return ([['migrating', None], ['migration', None],
             ['move_source_to_migration', None], ['claim_destination', None],
             ['check_destination', migrate_data.dest_host]] +
            [['bind_destination', {'port': port_id,
                                   'host': migrate_data.dest_host}]
             for port_id in migrate_data.bound_ports])


def live_migrate(compute, context, instance, migration, migrate_data):
    with compute.work.lock(instance.uuid), instance_actions.event(
            context, instance.uuid, 'compute_live_migration',
            host=compute.host,
            action=instance_actions.LIVE_MIGRATION) as step:
        dest = migrate_data.dest_host
        if lifecycle.deleted_meanwhile(context, instance.uuid):
            # The delete ran first (it holds the same lock) and gave
            # back what the server held then; what the conductor claimed
            # for the move, written after it, is given back here.
            LOG.info('%s was deleted before its live migration to %s '
                     'started; giving back what the move holds',
                     instance.uuid, dest)
            flow = flows.Flow(FLOW, instance.uuid, live_migration_undos(
                compute, context, instance, migration, deleted=True))
            flow.inherit(handed_over(migration, migrate_data))
            flow.undo()
            return
        flow = flows.Flow(
            FLOW, instance.uuid,
            live_migration_undos(compute, context, instance, migration),
            record=common.recorded_on(migration, FLOW),
            not_ours=(exception.MigrationStatusChanged,))
        try:
            with flow:
                flow.inherit(handed_over(migration, migrate_data))
                _start(context, instance, migration)
                flow.step('preparing')
                flow.step('prepare_destination', dest)
                migrate_data = compute.compute_rpcapi.pre_live_migration(
                    context, instance, dest, migrate_data)
                flow.step('transfer')
                migration.status = 'running'
                migration.save()
                compute.driver.live_migration(
                    instance, dest, _progress_of(migration),
                    _aborted(compute, context, migration))
                flow.step('transferred')
                flow.done()
        except exception.MigrationStatusChanged as error:
            LOG.warning('Live migration %s of %s not started: %s',
                        migration.uuid, instance.uuid, error)
            return
        except Exception as error:
            cancelled = isinstance(error, exception.LiveMigrationAborted)
            LOG.warning('Live migration of %s to %s %s: %s',
                        instance.uuid, dest,
                        'aborted' if cancelled else 'failed', error)
            step.fail('The live migration to %s %s: %s' % (
                dest, 'was aborted' if cancelled else 'failed',
                instance_actions.error_details(error)), error)
            return
        finally:
            compute.work.forget_abort(migration.id)
        finish(compute, context, instance, migration, migrate_data)


def _start(context, instance, migration):
    """``preparing``: the migration from queued to preparing, unless an
    admin cancelled it meanwhile (LiveMigrationAborted) or it is not
    queued any more (MigrationStatusChanged: not ours)."""
    migration.status = 'preparing'
    try:
        migration.save(expected_status=['queued'])
    except exception.MigrationStatusChanged:
        if objects.Migration.get_by_uuid(
                context, migration.uuid).status == 'cancelled':
            raise exception.LiveMigrationAborted(
                instance_uuid=instance.uuid)
        raise


def _progress_of(migration):
    def progress(total, processed, remaining):
        migration.memory_total = total
        migration.memory_processed = processed
        migration.memory_remaining = remaining
        migration.save()
    return progress


def _aborted(compute, context, migration):
    def aborted():
        if compute.work.migration_aborted(migration.id):
            return True
        return objects.Migration.get_by_uuid(
            context, migration.uuid).status == 'cancelled'
    return aborted


def live_migration_undos(compute, context, instance, migration,
                         deleted=False):
    """What undoes each step of the source's flow (the module's
    docstring); each is idempotent. ``deleted``: the server was deleted
    before the move started, so nothing goes back to it."""
    def clear_task(_):
        instance.task_state = None
        overtaken = common.save_expecting(instance, states.MIGRATING)
        if overtaken is not None:
            LOG.info('%s changed during its live migration: %s',
                     instance.uuid, overtaken)

    def end_migration(_):
        cancelled = deleted or compute.work.migration_aborted(migration.id)
        migration.status = 'cancelled' if cancelled else 'error'
        try:
            migration.save(expected_status=NOT_OVER)
        except exception.MigrationStatusChanged:
            pass  # an admin cancelled it, or a takeover ended it

    def return_source_side(_):
        if deleted:
            lifecycle.give_back(compute.rt.reportclient, migration.uuid)
        else:
            lifecycle.return_source_side(compute.rt.reportclient,
                                         migration.uuid, instance.uuid)

    def drop_destination(dest):
        compute.compute_rpcapi.rollback_live_migration_at_destination(
            context, instance, dest, _migrate_data(migration, dest))

    def unbind(bound):
        network_api.drop_binding(compute.ports, bound['port'],
                                 bound['host'])

    return flows.undo_table(
        migrating=clear_task,
        migration=end_migration,
        move_source_to_migration=return_source_side,
        claim_destination=lambda node: lifecycle.give_back(
            compute.rt.reportclient, instance.uuid, if_on=node),
        check_destination=drop_destination,
        bind_destination=unbind,
        preparing=None,
        prepare_destination=None,  # check_destination's undo drops it
        transfer=None,             # and what the transfer left there
        transferred=None)


def _migrate_data(migration, dest, bound_ports=()):
    """What the destination is told of the move (a takeover has no
    LiveMigrateData but the migration and the recorded steps)."""
    return objects.LiveMigrateData(
        source_host=migration.source_compute,
        source_node=migration.source_node, dest_host=dest,
        dest_node=migration.dest_node, bound_ports=list(bound_ports))


def finish(compute, context, instance, migration, migrate_data):
    """The guest runs on the destination: its bindings there become
    ACTIVE and the source ones go, the source guest and the migration's
    source allocation go, and the destination takes the server over.
    Each part is done again harmlessly (a takeover finishes a move cut
    off here)."""
    dest = migrate_data.dest_host
    for port_id in migrate_data.bound_ports:
        try:
            compute.ports.activate_binding(port_id, dest)
            compute.ports.delete_binding(port_id, compute.host)
        except exception.NovaLiteException as e:
            LOG.error('Binding of port %s not moved to %s: %s', port_id,
                      dest, e)
    compute.driver.destroy(context, instance)
    compute.rt.forget_instance(context, instance, migration.source_node)
    try:
        compute.rt.reportclient.delete_allocations(migration.uuid)
    except Exception as e:
        LOG.warning('Source allocation of %s (migration %s) not deleted '
                    'now; the audit of %s will: %s', instance.uuid,
                    migration.uuid, compute.host, e)
    try:
        # Safe to repeat (the destination takes over a server it already
        # holds as done): a call whose request or answer a broker blink
        # lost is sent again, until [DEFAULT] outage_wait is over.
        outage.ride_out(
            lambda: compute.compute_rpcapi.post_live_migration_at_destination(
                context, instance, dest, migrate_data),
            outage.BROKER_AWAY + (messaging.MessagingTimeout,),
            'Handing %s over to %s' % (instance.uuid, dest))
    except exception.UnexpectedDeletingTaskStateError:
        # Deleted meanwhile: the destination dropped its guest, and the
        # delete (waiting for this flow to let the server go) removes
        # what the server holds anywhere, its ports and its record.
        LOG.info('Instance %s was deleted as it finished its live '
                 'migration to %s; the delete removes it', instance.uuid,
                 dest)
    except Exception as error:
        # The guest, its bindings and its allocation are on the
        # destination now: the record follows them there, in ERROR
        # with the reason, rather than stay "migrating" here.
        LOG.exception('%s did not finish taking %s over', dest,
                      instance.uuid)
        instance.host = dest
        instance.node = migrate_data.dest_node
        common.set_error(
            compute, context, instance, exception.ServiceUnavailable(
                service='nova-lite-compute on %s' % dest,
                reason='it did not finish taking the live migrated '
                       'server over (%s)' %
                       instance_actions.error_details(error)),
            host=dest)
        migration.status = 'error'
        migration.save()
        return
    migration.status = 'completed'
    migration.save()
    LOG.info('Instance %s live migrated from %s to %s', instance.uuid,
             compute.host, dest)


def take_over(compute, context, instance, migration, steps):
    """A live migration from here cut off after it recorded ``steps``
    (a restart of this compute, or no progress for [compute]
    interrupted_task_timeout): undone as its own failure would have
    been, or, once the guest was transferred, finished."""
    dest = migration.dest_compute
    if any(name == 'transferred' for name, _arg in steps):
        LOG.warning('The live migration %s of %s was interrupted after '
                    'the transfer; finishing it', migration.uuid,
                    instance.uuid)
        bound = [arg['port'] for name, arg in steps
                 if name == 'bind_destination']
        finish(compute, context, instance, migration,
               _migrate_data(migration, dest, bound))
        return
    flows.undo_recorded(FLOW, instance.uuid, live_migration_undos(
        compute, context, instance, migration), steps)


def post_at_destination(compute, context, instance, migrate_data):
    """Take over the live migrated server. Asked again (the source's
    call, or its answer, was lost to a broker blink), a server already
    taken over -- here, with no task -- is done."""
    compute.driver.accept_migrated(instance)
    instance.host = compute.host
    instance.node = migrate_data.dest_node or compute.driver.nodename
    instance.power_state = states.RUNNING
    instance.task_state = None
    try:
        instance.save(expected_task_state=[states.MIGRATING])
    except exception.UnexpectedDeletingTaskStateError:
        compute.driver.destroy(context, instance)
        raise
    except exception.UnexpectedTaskStateError:
        current = objects.Instance.get_by_uuid(context, instance.uuid)
        if current.host != compute.host:
            # Not taken over here (its move was rolled back meanwhile):
            # the guest that arrived goes.
            compute.driver.destroy(context, instance)
            raise
        if current.task_state is not None:
            raise
        LOG.info('Instance %s was taken over here already', instance.uuid)
        instance = current
    compute.rt.track_instance(context, instance, instance.node)


def rollback_at_destination(compute, context, instance, migrate_data):
    if instance.host != compute.host:
        compute.driver.destroy(context, instance)
