"""Live migration, both computes' halves. The conductor has moved the
source allocation to the migration's consumer, claimed the destination for
the server and given each port an inactive binding there.

As the destination: the pre-checks, ``prepare_destination`` just before
the transfer, ``post_at_destination`` to take the server over, and
``rollback_at_destination`` to drop what it prepared.

As the source (``live_migrate``): the migration ``preparing``, then
``running`` while the driver transfers the guest (an admin may abort it).
Done, the destination's bindings become active and the source's go, the
source guest and the migration's source allocation go, and the destination
takes the server over. Failed or aborted, the rollback: the destination
drops its guest and its inactive bindings, the source allocation moves
back from the migration to the server, and the server stays here, ACTIVE.
A server deleted before the transfer started holds nothing on either side
afterwards.
"""

from oslo_log import log as logging

from nova_lite.compute.flows import common
from nova_lite.compute import instance_actions
from nova_lite.compute import states
from nova_lite import conf as nova_conf
from nova_lite import exception
from nova_lite import objects

CONF = nova_conf.CONF
LOG = logging.getLogger(__name__)


def check_destination(compute, context, instance, migrate_data):
    """As the destination: can ``instance`` come here live? The
    scheduler has claimed the room; what is left is the hypervisor's
    say."""
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


def live_migrate(compute, context, instance, migration, migrate_data):
    with compute.work.lock(instance.uuid), instance_actions.event(
            context, instance.uuid, 'compute_live_migration',
            host=compute.host,
            action=instance_actions.LIVE_MIGRATION) as step:
        def aborted():
            if compute.work.migration_aborted(migration.id):
                return True
            return objects.Migration.get_by_uuid(
                context, migration.uuid).status == 'cancelled'

        def progress(total, processed, remaining):
            migration.memory_total = total
            migration.memory_processed = processed
            migration.memory_remaining = remaining
            migration.save()

        dest = migrate_data.dest_host
        if _deleted_meanwhile(context, instance):
            # The delete ran first (it holds the same lock) and gave
            # back what the server held then; the destination's claim,
            # written after it, is given back here.
            LOG.info('%s was deleted before its live migration to %s '
                     'started; giving back its claim there',
                     instance.uuid, dest)
            _drop_migration_of_deleted(compute, context, instance,
                                       migration, migrate_data)
            return
        try:
            migration.status = 'preparing'
            try:
                migration.save(expected_status=['queued'])
            except Exception:
                current = objects.Migration.get_by_uuid(
                    context, migration.uuid).status
                if current != 'cancelled':
                    # Not ours to run or undo any more.
                    LOG.warning('Live migration %s of %s is %s; not '
                                'starting it', migration.uuid,
                                instance.uuid, current)
                    return
                raise exception.LiveMigrationAborted(
                    instance_uuid=instance.uuid)
            migrate_data = compute.compute_rpcapi.pre_live_migration(
                context, instance, dest, migrate_data)
            migration.status = 'running'
            migration.save()
            compute.driver.live_migration(instance, dest, progress,
                                          aborted)
        except Exception as error:
            cancelled = isinstance(error,
                                   exception.LiveMigrationAborted)
            LOG.warning('Live migration of %s to %s %s: %s',
                        instance.uuid, dest,
                        'aborted' if cancelled else 'failed', error)
            step.fail('The live migration to %s %s: %s' % (
                dest, 'was aborted' if cancelled else 'failed',
                instance_actions.error_details(error)), error)
            rollback(compute, context, instance, migration, migrate_data,
                     'cancelled' if cancelled else 'error')
            return
        finally:
            compute.work.forget_abort(migration.id)
        _post(compute, context, instance, migration, migrate_data)


def _post(compute, context, instance, migration, migrate_data):
    """The guest runs on the destination: its bindings there become
    ACTIVE and the source ones go, the source guest and the migration's
    source allocation go, and the destination takes the server over."""
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
        compute.compute_rpcapi.post_live_migration_at_destination(
            context, instance, dest, migrate_data)
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


def post_at_destination(compute, context, instance, migrate_data):
    compute.driver.accept_migrated(instance)
    instance.host = compute.host
    instance.node = migrate_data.dest_node or compute.driver.nodename
    instance.power_state = states.RUNNING
    instance.task_state = None
    instance.save(expected_task_state=[states.MIGRATING])
    compute.rt.track_instance(context, instance, instance.node)


def rollback(compute, context, instance, migration, migrate_data,
             status):
    """The server stays here, ACTIVE: the destination's inactive
    bindings and its allocation go, the source allocation comes back
    from the migration to the server; the source bindings were never
    touched and still carry the right ``allocation``."""
    _undo_on_destination(compute, context, instance, migrate_data)
    try:
        # The move replaces what the server holds (the destination's
        # claim) with the source side; if the migration holds nothing
        # any more, the server keeps what it has.
        compute.rt.reportclient.move_allocations(migration.uuid,
                                                 instance.uuid)
    except Exception as e:
        LOG.error('Allocations of %s not put back on %s: %s',
                  instance.uuid, compute.host, e)
    instance.task_state = None
    overtaken = common.save_expecting(instance, states.MIGRATING)
    if overtaken is not None:
        LOG.info('%s changed during its live migration: %s',
                 instance.uuid, overtaken)
    migration.status = status
    migration.save()


def _undo_on_destination(compute, context, instance, migrate_data):
    """The destination drops what it prepared (a guest, if any) and
    the ports' inactive bindings there go."""
    dest = migrate_data.dest_host
    try:
        compute.compute_rpcapi.rollback_live_migration_at_destination(
            context, instance, dest, migrate_data)
    except Exception as e:
        LOG.warning('%s not told to drop %s: %s', dest, instance.uuid,
                    e)
    for port_id in migrate_data.bound_ports:
        try:
            compute.ports.delete_binding(port_id, dest)
        except exception.NovaLiteException as e:
            LOG.error('Inactive binding of port %s on %s not deleted: '
                      '%s', port_id, dest, e)


def _deleted_meanwhile(context, instance):
    try:
        current = objects.Instance.get_by_uuid(context, instance.uuid)
    except exception.InstanceNotFound:
        return True
    return (current.vm_state == states.DELETED or
            current.task_state == states.DELETING)


def _drop_migration_of_deleted(compute, context, instance, migration,
                               migrate_data):
    """A live migration whose server was deleted before it started:
    nothing may stay held for it, on either side."""
    dest = migrate_data.dest_host
    _undo_on_destination(compute, context, instance, migrate_data)
    for consumer in (instance.uuid, migration.uuid):
        try:
            compute.rt.reportclient.delete_allocations(consumer)
        except Exception as e:
            LOG.warning('Allocations of %s not given back now; the '
                        'audit of %s will: %s', consumer, dest, e)
    migration.status = 'cancelled'
    try:
        migration.save()
    except exception.NovaLiteException as e:
        LOG.info('Migration %s of deleted %s not updated: %s',
                 migration.uuid, instance.uuid, e)


def rollback_at_destination(compute, context, instance, migrate_data):
    if instance.host != compute.host:
        compute.driver.destroy(context, instance)

