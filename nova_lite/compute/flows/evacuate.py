"""Evacuation, as its destination: the server comes here from a host that
is down. The conductor has moved the source allocation to the migration's
consumer and claimed this host for the server.

Here, a ``nova_lite.flow.Flow`` recorded on the migration. Its steps, with
what undoes each (``evacuation_undos``); the first three are the
conductor's, handed over with the cast:

1. ``migration`` -- the migration record, pre-migrating (undo: it ends
   ``failed``, unless it ended already);
2. ``move_source_to_migration`` -- the migration's consumer holds what the
   server holds on its source (undo: it goes back to the server, in place
   of this host's claim; to nobody if the server was deleted meanwhile);
3. ``claim_destination`` -- the server's consumer holds this host (undo:
   given back);
4. ``claim_here`` -- the claim on this node: the flavor and the ports'
   request groups on the providers the scheduler chose (undo: the
   resource tracker drops it, here and in placement);
5. ``bind_here`` -- each port bound to this host with this host's provider
   as ``allocation`` (undo: bound to the source again with the profile it
   had; released, if the server was deleted);
6. ``take_over`` -- the server's host and node are this one's, its task
   ``rebuild_spawning`` (undo: back on its source, ``rebuilding``);
7. ``spawn`` -- the guest built here (undo: destroyed).

Then the server is ACTIVE (or STOPPED) here and the migration ``done``. A
failure undoes the steps taken and leaves the server on its source in
ERROR with a fault saying why, to be evacuated again (``_failed``); one
deleted meanwhile leaves nothing anywhere. A takeover after a crash
replays the recorded steps' undos the same way: this compute, restarted
after it took the server over (``take_over``), or a conductor that found
the evacuation stale before it did (``InterruptedMoves``, without this
host's own count and guest).

And as the source, when it is back: the remains of each server evacuated
away while it was down are destroyed, and what the migration's consumer
still holds here is deleted.
"""

from oslo_log import log as logging

from nova_lite.compute.flows import common
from nova_lite.compute import instance_actions
from nova_lite.compute import states
from nova_lite import exception
from nova_lite import flow as flows
from nova_lite import lifecycle
from nova_lite.network import api as network_api
from nova_lite import objects

LOG = logging.getLogger(__name__)

FLOW = 'evacuation at the destination'


def handed_over(selection):
    """The conductor's steps, whose undo is this compute's from the cast
    on; the destination's claim is on the chosen node."""
    return [['migration', None], ['move_source_to_migration', None],
            ['claim_destination', selection.compute_node_uuid]]


def evacuate(compute, context, instance, image, migration, selection,
             request_spec):
    """Claim here, point the ports at this host with this host's
    providers as their ``allocation``, and build the server again (the
    module's docstring). A late or repeated cast touches nothing."""
    with compute.work.lock(instance.uuid):
        late = _late_or_repeated(context, instance, migration)
        if late is not None:
            LOG.info('Not evacuating %s here: %s', instance.uuid, late)
            return
        _evacuate(compute, context, instance, image, migration, selection,
                  request_spec)


def _late_or_repeated(context, instance, migration):
    """Why this evacuation is not the server's current work (None when
    it is): its migration has moved on from pre-migrating -- done,
    failed, undone by a takeover -- or the server's task has. A server
    deleted meanwhile is still this evacuation's: its flow gives back
    what the move holds."""
    try:
        status = objects.Migration.get_by_uuid(context,
                                               migration.uuid).status
    except exception.NotFound:
        return 'its migration %s is gone' % migration.uuid
    if status != 'pre-migrating':
        return 'its migration %s is %s' % (migration.uuid, status)
    return common.late_or_repeated(context, instance, states.REBUILDING,
                                   deleted_is_late=False)


def _evacuate(compute, context, instance, image, migration, selection,
              request_spec):
    with instance_actions.event(
            context, instance.uuid, 'compute_rebuild_instance',
            host=compute.host, action=instance_actions.EVACUATE) as step:
        was_stopped = instance.vm_state == states.STOPPED
        groups = (request_spec.requested_resources
                  if request_spec is not None else [])
        provider_of_port = {group.requester_id: group.provider_uuids[0]
                            for group in groups if group.provider_uuids}
        node = selection.nodename
        flow = flows.Flow(FLOW, instance.uuid, evacuation_undos(
            context, instance, migration, compute.rt.reportclient,
            compute.ports, here=compute),
            record=common.recorded_on(migration, FLOW))
        try:
            with compute.rt.claiming(instance.uuid), flow:
                flow.inherit(handed_over(selection))
                ports = compute.ports.ports_of(instance)
                if len(provider_of_port) != len(groups):
                    raise exception.PortUpdateFailed(
                        port_id=','.join(g.requester_id for g in groups),
                        reason='the request spec names no provider for '
                               'every port resource request')
                common.claim_and_bind_here(
                    compute, context, instance, flow, node,
                    selection.limits, groups, provider_of_port, ports)
                flow.step('take_over', node)
                instance.host = compute.host
                instance.node = node
                instance.task_state = states.REBUILD_SPAWNING
                instance.save(expected_task_state=[states.REBUILDING])
                flow.step('spawn')
                compute.driver.spawn(context, instance, image)
                common.spawned(compute, instance, was_stopped)
                try:
                    # The claim's record and the end of the move's
                    # workload go with it.
                    common.save_with_usage(compute, context, instance,
                                           states.REBUILD_SPAWNING)
                except exception.UnexpectedTaskStateError as e:
                    LOG.info('%s changed while it was evacuated (%s)',
                             instance.uuid, e)
                flow.done()
        except Exception as error:
            LOG.warning('Evacuation of %s to %s failed: %s',
                        instance.uuid, compute.host, error)
            step.fail('The evacuation to %s failed: %s' % (
                compute.host, instance_actions.error_details(error)), error)
            _failed(compute, context, instance, error)
            return
        migration.status = 'done'
        migration.save()
        LOG.info('Instance %s evacuated from %s to %s', instance.uuid,
                 migration.source_compute, compute.host)


def evacuation_undos(context, instance, migration, reportclient,
                     port_client, here=None):
    """What undoes each step of the destination's flow (the module's
    docstring); each is idempotent. ``here``: the destination's
    ComputeManager, whose resource tracker and driver hold its own
    count and guest; a conductor's takeover has none, and gives back
    what placement and the port service hold."""
    exists = common.server_exists(context, instance)

    def end_migration(_):
        migration.status = 'failed'
        try:
            migration.save(expected_status=['accepted', 'pre-migrating'])
        except exception.MigrationStatusChanged:
            pass  # ended already (a conductor's takeover says error)

    def return_source_side(_):
        # A server deleted meanwhile (locally, its source being down),
        # even while its source side comes back, keeps nothing.
        lifecycle.return_source_side(reportclient, migration.uuid,
                                     instance.uuid, context=context)

    def drop_claim(node):
        if here is not None:
            here.rt.drop_instance(context, instance, node)
        else:
            lifecycle.give_back(reportclient, instance.uuid)

    def unbind(bound):
        if not exists():
            network_api.release_ports(port_client, instance, ports=[
                {'id': bound['port'], 'binding:profile': bound['profile']}])
            return
        port_client.update_port(bound['port'], **{
            'binding:host_id': bound['host'],
            'binding:profile': bound['profile']})

    def back_on_source(_):
        instance.host = migration.source_compute
        instance.node = migration.source_node
        instance.task_state = states.REBUILDING
        # Not taken (or overtaken: deleted meanwhile): nothing to undo.
        common.save_expecting(instance, states.REBUILD_SPAWNING)

    def destroy(_):
        if here is not None:
            here.driver.destroy(context, instance)
        else:
            LOG.warning('The guest of %s on %s stays until that compute '
                        'is back', instance.uuid, migration.dest_compute)

    return flows.undo_table(
        migration=end_migration,
        move_source_to_migration=return_source_side,
        claim_destination=lambda node: lifecycle.give_back(
            reportclient, instance.uuid, if_on=node),
        claim_here=drop_claim,
        bind_here=unbind,
        take_over=back_on_source,
        spawn=destroy)


def _failed(compute, context, instance, error):
    """What a failure leaves once the steps are undone: the server on
    its source in ERROR with the reason as its fault, to be evacuated
    again (the migration ended with its undo); nothing, if it was
    deleted meanwhile."""
    if not common.server_exists(context, instance)():
        LOG.info('Instance %s was deleted during its evacuation to %s; '
                 'nothing of it is left', instance.uuid, compute.host)
        return
    common.set_error(compute, context, instance, error)


def take_over(compute, context, instance, migration, steps, error):
    """An evacuation to this host cut off after it recorded ``steps``
    (this compute restarted while it spawned): undone as its own failure
    would have been."""
    flows.undo_recorded(FLOW, instance.uuid, evacuation_undos(
        context, instance, migration, compute.rt.reportclient,
        compute.ports, here=compute), steps)
    _failed(compute, context, instance, error)


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
