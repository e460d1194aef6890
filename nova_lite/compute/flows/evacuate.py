"""Evacuation, as its destination: the server comes here from a host that
is down. The conductor has moved the source allocation to the migration's
consumer and claimed this host for the server. Here: the claim (the flavor
and the ports' request groups on the providers the scheduler chose), each
port's binding and ``allocation`` pointed here, the server taken over and
spawned. Its undo: the claim and the guest go, the source allocation moves
back from the migration to the server, the ports go back to the source
with their old binding profile, and the server stays on its source in
ERROR, to be evacuated again.

And as the source, when it is back: the remains of each server evacuated
away while it was down are destroyed, and what the migration's consumer
still holds here is deleted.
"""

from oslo_log import log as logging

from nova_lite.compute.flows import common
from nova_lite.compute import instance_actions
from nova_lite.compute import states
from nova_lite import exception
from nova_lite.network import api as network_api
from nova_lite import objects

LOG = logging.getLogger(__name__)


def evacuate(compute, context, instance, image, migration, selection,
             request_spec):
    """Claim here, point the ports at this host with this host's
    providers as their ``allocation``, and build the server again; on
    failure everything goes back to the source (bindings, allocation)
    and the server is left there in ERROR with a fault."""
    with compute.work.lock(instance.uuid), instance_actions.event(
            context, instance.uuid, 'compute_rebuild_instance',
            host=compute.host, action=instance_actions.EVACUATE) as step:
        was_stopped = instance.vm_state == states.STOPPED
        groups = (request_spec.requested_resources
                  if request_spec is not None else [])
        provider_of_port = {group.requester_id: group.provider_uuids[0]
                            for group in groups if group.provider_uuids}
        ports = []
        try:
            ports = compute.ports.ports_of(instance.uuid)
            if len(provider_of_port) != len(groups):
                raise exception.PortUpdateFailed(
                    port_id=','.join(g.requester_id for g in groups),
                    reason='the request spec names no provider for '
                           'every port resource request')
            common.spawn_moved_here(
                compute, context, instance, image, selection, groups,
                provider_of_port, ports, states.REBUILDING,
                states.REBUILD_SPAWNING)
        except Exception as error:
            LOG.warning('Evacuation of %s to %s failed: %s',
                        instance.uuid, compute.host, error)
            step.fail('The evacuation to %s failed: %s' % (
                compute.host, instance_actions.error_details(error)), error)
            undo(compute, context, instance, migration, ports, error)
            return
        common.spawned(compute, instance, was_stopped)
        try:
            instance.save(expected_task_state=[states.REBUILD_SPAWNING])
        except exception.InstanceNotFound:
            _abandoned(compute, context, instance, migration)
            return
        except exception.UnexpectedTaskStateError as e:
            LOG.info('%s changed while it was evacuated (%s)',
                     instance.uuid, e)
        migration.status = 'done'
        migration.save()
        LOG.info('Instance %s evacuated from %s to %s', instance.uuid,
                 migration.source_compute, compute.host)


def _abandoned(compute, context, instance, migration):
    """The server was deleted while it was evacuated here (its source
    being down, the API deleted it locally): nothing of it may stay --
    no guest here, no allocation on either side, no port bound."""
    LOG.info('Instance %s was deleted during its evacuation to %s; '
             'cleaning up', instance.uuid, compute.host)
    compute.driver.destroy(context, instance)
    compute.rt.drop_instance(context, instance, instance.node or
                             compute.driver.nodename)
    try:
        compute.rt.reportclient.delete_allocations(migration.uuid)
    except Exception as e:
        LOG.warning('Source allocation of deleted %s not deleted now '
                    '(the source compute does when it is back): %s',
                    instance.uuid, e)
    network_api.release_ports(compute.ports, instance)
    migration.status = 'failed'
    migration.save()


def undo(compute, context, instance, migration, ports, error):
    """Undo an evacuation that failed here: the server's allocation on
    this host is gone (the claim's undo); its source allocation goes
    back from the migration to the server, its ports back to the
    source host with their old binding profile; the server stays on
    its source in ERROR, to be evacuated again."""
    try:
        objects.Instance.get_by_uuid(context, instance.uuid)
    except exception.InstanceNotFound:
        _abandoned(compute, context, instance, migration)
        return
    try:
        compute.rt.reportclient.move_allocations(migration.uuid,
                                                 instance.uuid)
    except Exception as e:
        LOG.error('Source allocation of %s not given back by migration '
                  '%s: %s', instance.uuid, migration.uuid, e)
    for port in ports:
        try:
            compute.ports.update_port(
                port['id'], **{
                    'binding:host_id': port.get('binding:host_id'),
                    'binding:profile': port.get('binding:profile') or {}})
        except exception.NovaLiteException as e:
            LOG.error('Binding of port %s not put back on %s: %s',
                      port['id'], port.get('binding:host_id'), e)
    migration.status = 'failed'
    migration.save()
    instance.host = migration.source_compute
    instance.node = migration.source_node
    common.set_error(compute, context, instance, error)


def destroy_evacuated_instances(compute, context):
    """Clean up after the evacuations that happened while this host was
    down: destroy what is left of each evacuated server here and delete
    what its migration's consumer holds on this host's providers. The
    port bindings are not touched: they point at the destination."""
    try:
        migrations = objects.MigrationList.get_evacuated_from(context,
                                                              compute.host)
    except Exception:
        LOG.exception('Cannot read the evacuations from %s; their '
                      'remains stay until the next start', compute.host)
        return
    for migration in migrations:
        try:
            instance = objects.Instance.get_by_uuid(
                context.elevated(read_deleted='yes'),
                migration.instance_uuid)
        except exception.InstanceNotFound:
            instance = None
        if instance is not None and not instance.deleted and \
                instance.host == compute.host:
            # The evacuation has not moved it (yet, or it failed and
            # the server stayed here): it is still ours.
            continue
        LOG.info('Instance %s was evacuated from %s to %s while this '
                 'host was down; destroying its remains here',
                 migration.instance_uuid, compute.host,
                 migration.dest_compute)
        if instance is not None:
            compute.driver.destroy(context, instance)
        try:
            compute.rt.reportclient.delete_allocations(migration.uuid)
        except Exception as e:
            LOG.warning('Source allocation of evacuated %s not deleted '
                        '(retried at the next start): %s',
                        migration.instance_uuid, e)
            continue
        if migration.status == 'done' or instance is None or \
                instance.deleted:
            migration.status = 'completed'
            migration.save()

