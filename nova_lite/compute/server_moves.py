"""Moving servers, on the API side: live migration (and the list and
abort of the live migrations in progress) and evacuation. Each is checked
before anything changes -- the hosts, the computes' and the conductor's RPC
versions, the port service for a server with resource-request ports --
then the server gets its task state and the conductor's task is cast; the
conductor records the migration, schedules and hands the server on.

A host named for a move is the only candidate, and the scheduler's
filters still judge it (server group policy, availability zone, a
disabled or down compute); only ``force`` skips them, as in Nova (2.29
for evacuate, 2.30 for live migration). Placement's claim still checks a
forced host's room.
"""

from nova_lite.compute import instance_actions
from nova_lite.compute import states
from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite import objects
from nova_lite import servicegroup


def live_migrate(api, context, instance, host=None,
                 block_migration=False, force=False):
    """Checks, task_state ``migrating``, the cast to the conductor's
    live-migration task (which records the migration, finds a
    destination with its reschedule loop and hands the server to the
    source compute). Refused before anything changes: a server not
    ACTIVE or in a task (409), an unknown or same target host (404,
    400), a source compute that is down (409), computes too old for
    live migration -- or for the port bindings of a server with
    resource-request ports -- (409), a port service without multiple
    bindings for such a server (409), conductors too old to run the
    filters on an unforced ``host`` (409)."""
    api.start_task(
        context, instance, instance_actions.LIVE_MIGRATION,
        [states.ACTIVE], states.MIGRATING,
        check=lambda cctxt, i: _check_live_migration(api, cctxt, i, host,
                                                     force),
        send=lambda cctxt, i: api.conductor_api.live_migrate_instance(
            context, i, host=host, block_migration=block_migration,
            force=force),
        service=lambda i: 'nova-lite-conductor', needs_host=True,
        method='os-migrateLive')


def _check_target_host(context, instance, host):
    """A target host asked for (``host``, None: the scheduler picks one)
    must be another host, with a compute."""
    if host is None:
        return
    if host == instance.host:
        raise exception.Invalid(
            reason='The target host can\'t be the same one.')
    if servicegroup.compute_service(context, host) is None:
        raise exception.ComputeHostNotFound(host=host)


def _check_conductor_filters(api, action, host, force):
    """A conductor below 1.5 would force every named host: an unforced
    one is refused rather than moved to past the filters."""
    api.check_conductor(
        '%s to a named host without force (the scheduler filters '
        'checking it)' % action, '1.5',
        lambda: api.conductor_api.can_filter_named_host(host, force))


def _check_live_migration(api, context, instance, host, force):
    _check_target_host(context, instance, host)
    if not servicegroup.compute_is_up(context, instance.host):
        raise exception.InstanceInvalidState(
            method='os-migrateLive', instance_uuid=instance.uuid,
            attr='host', state='%s (its compute is down)' %
            instance.host)
    api.check_conductor('live migrate', '1.3',
                        api.conductor_api.can_live_migrate)
    _check_conductor_filters(api, 'live migrate', host, force)
    from nova_lite.network import api as network_api
    groups = network_api.request_groups(
        api.port_client.ports_of(instance))
    need = api.compute_rpcapi.LIVE_MIGRATION_VERSION
    for probe in filter(None, (instance.host, host)):
        if not api.compute_rpcapi.can_send_version(context, probe, need):
            if groups:
                raise exception.ComputeTooOldForPortResources(
                    action='live migrate', instance_uuid=instance.uuid,
                    host=probe, have=api.compute_rpcapi.version_cap,
                    need=need)
            raise exception.ComputeTooOld(
                host=probe, action='live migrate', version=need,
                pinned=api.compute_rpcapi.version_cap)
    if groups and not api.port_client.has_extension('binding-extended'):
        raise exception.MultipleBindingsUnsupported(
            instance_uuid=instance.uuid)


def server_migrations(api, context, instance):
    """The server's live migrations that are not over."""
    mapping, instance = api.locate(context, instance.uuid)
    if mapping.cell_mapping is None:
        return []
    with nova_context.target_cell(context, mapping.cell_mapping) as cctxt:
        return [m for m in objects.MigrationList.get_by_instance(
            cctxt, instance.uuid)
            if m.migration_type == 'live-migration' and
            m.status in ('accepted', 'queued', 'preparing', 'running')]


def abort_live_migration(api, context, instance, migration_id,
                         allow_queued):
    """A running live migration is aborted on its source compute; one
    still queued (from 2.65) is cancelled where it waits."""
    mapping, instance = api.locate(context, instance.uuid)
    migration = next((m for m in server_migrations(api, context, instance)
                      if str(m.id) == str(migration_id)), None)
    if migration is None:
        from nova_lite.objects import migration as migration_obj
        raise migration_obj.MigrationNotFound(migration_id=migration_id)
    with nova_context.target_cell(context, mapping.cell_mapping) as cctxt:
        migration._context = cctxt
        if migration.status in ('accepted', 'queued'):
            if not allow_queued:
                raise exception.InstanceInvalidState(
                    method='abort live migration',
                    instance_uuid=instance.uuid, attr='migration status',
                    state=migration.status)
            from nova_lite.objects import migration as migration_obj
            migration.status = 'cancelled'
            try:
                migration.save(expected_status=['accepted', 'queued'])
                return
            except migration_obj.MigrationStatusChanged:
                migration = migration_obj.Migration.get_by_uuid(
                    cctxt, migration.uuid)
        if migration.status not in ('preparing', 'running'):
            raise exception.InstanceInvalidState(
                method='abort live migration',
                instance_uuid=instance.uuid, attr='migration status',
                state=migration.status)
        instance._context = cctxt
        api.compute_rpcapi.live_migration_abort(cctxt, instance,
                                                migration.id)


def evacuate(api, context, instance, host=None, force=False):
    """Rebuild a server whose compute is down on another host (seed
    001): checks, task_state ``rebuilding`` and the cast to the
    conductor, which records the migration, schedules and hands the
    server to the destination. Nothing changes unless every check
    passes."""
    api.start_task(
        context, instance, instance_actions.EVACUATE,
        [states.ACTIVE, states.STOPPED, states.ERROR],
        states.REBUILDING,
        check=lambda cctxt, i: _check_evacuation(api, cctxt, i, host,
                                                 force),
        send=lambda cctxt, i: api.conductor_api.evacuate_instance(
            context, i, host=host, force=force),
        service=lambda i: 'nova-lite-conductor', needs_host=True)


def _check_evacuation(api, context, instance, host, force):
    if servicegroup.compute_is_up(context, instance.host):
        raise exception.Invalid(
            reason='Compute service of %s is still in use. Evacuate a '
                   'server only when its host is down (stopped, or '
                   'forced down with PUT /os-services/{id} '
                   '{"forced_down": true}).' % instance.host)
    _check_target_host(context, instance, host)
    api.check_conductor('evacuate', '1.2', api.conductor_api.can_evacuate)
    _check_conductor_filters(api, 'evacuate', host, force)
    from nova_lite.network import api as network_api
    groups = network_api.request_groups(
        api.port_client.ports_of(instance))
    probe = host or instance.host
    need = '1.3' if groups else '1.2'
    if not api.compute_rpcapi.can_send_version(context, probe, need):
        if groups:
            raise exception.ComputeTooOldForPortResources(
                action='evacuate', instance_uuid=instance.uuid,
                host=host or 'the destination',
                have=api.compute_rpcapi.version_cap, need=need)
        raise exception.ComputeTooOld(
            host=host or 'the destination', action='evacuate',
            version=need, pinned=api.compute_rpcapi.version_cap)
