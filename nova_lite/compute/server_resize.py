"""Resize and cold migration, on the API side, and what ends them: confirm
and revert.

A resize or cold migration is checked before anything changes -- the
server (ACTIVE or STOPPED, no task), the flavor, the quota of a larger
one, the target host asked for, the computes' and the conductor's RPC
versions -- then the server gets its task state (``resize_prep``) and the
conductor's task is cast (``conductor/tasks/migrate.py``). Once the server
waits in VERIFY_RESIZE, confirm has its source drop what it left there,
and revert has its destination give it back to the source
(``compute/flows/resize.py``).
"""

import oslo_messaging as messaging

from nova_lite.compute.flows import resize as resize_flow
from nova_lite.compute import instance_actions
from nova_lite.compute import server_common
from nova_lite.compute import server_updates
from nova_lite.compute import states
from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite import objects
from nova_lite import quota
from nova_lite import servicegroup


def resize(api, context, instance, flavor):
    """Move the server to ``flavor`` (a Flavor of the API database)."""
    def check(cctxt, i):
        if flavor.flavorid == i.flavor.flavorid:
            raise exception.Invalid(
                reason='When resizing, instances must change flavor!')
        if flavor.root_gb < i.flavor.root_gb and \
                not i.block_device_mapping:
            raise exception.Invalid(
                reason='Resizing the root disk down (%d GB to %d GB) is '
                       'not allowed.' % (i.flavor.root_gb, flavor.root_gb))
        deltas = {'cores': flavor.vcpus - i.flavor.vcpus,
                  'ram': flavor.memory_mb - i.flavor.memory_mb}
        deltas = {name: delta for name, delta in deltas.items()
                  if delta > 0}
        if deltas:
            quota.check_deltas(context, i.project_id, deltas)
        _check_move(api, cctxt, i, None)
    _start(api, context, instance, instance_actions.RESIZE, check,
           flavor, None)


def migrate(api, context, instance, host=None):
    """Move the server to another host at its flavor: ``host``, checked
    by the scheduler's filters, or one the scheduler picks."""
    def check(cctxt, i):
        if host is not None:
            if host == i.host:
                raise exception.Invalid(
                    reason='The target host can\'t be the same one.')
            if servicegroup.compute_service(cctxt, host) is None:
                raise exception.Invalid(
                    reason='Compute host %s could not be found.' % host)
        _check_move(api, cctxt, i, host)
    _start(api, context, instance, instance_actions.MIGRATE, check,
           instance.flavor, host)


def _start(api, context, instance, action, check, flavor, host):
    api.start_task(
        context, instance, action, [states.ACTIVE, states.STOPPED],
        states.RESIZE_PREP, check=check,
        send=lambda cctxt, i: api.conductor_api.migrate_server(
            context, i, flavor if flavor is not None else i.flavor,
            host=host),
        service=lambda i: 'nova-lite-conductor', needs_host=True)


def _check_move(api, context, instance, host):
    """The source compute up; the conductor and the computes involved
    speak resize."""
    if not servicegroup.compute_is_up(context, instance.host):
        raise exception.InstanceInvalidState(
            method='resize', instance_uuid=instance.uuid, attr='host',
            state='%s (its compute is down)' % instance.host)
    api.check_conductor('resize', '1.6', api.conductor_api.can_resize)
    for probe in filter(None, (instance.host, host)):
        if not api.compute_rpcapi.can_resize(context, probe):
            raise exception.ComputeTooOld(
                host=probe, action='resize',
                version=api.compute_rpcapi.RESIZE_VERSION,
                pinned=api.compute_rpcapi.version_cap)


def _finished_migration(context, instance, method):
    """The server's resize that waits to be confirmed or reverted: 409
    when the server is not RESIZED or is in a task, 400 when no such
    migration is found (as Nova answers)."""
    if instance.vm_state != states.RESIZED:
        raise exception.InstanceInvalidState(
            method=method, instance_uuid=instance.uuid, attr='vm_state',
            state=instance.vm_state)
    if instance.task_state is not None:
        raise exception.InstanceInvalidState(
            method=method, instance_uuid=instance.uuid, attr='task_state',
            state=instance.task_state)
    finished = [m for m in objects.MigrationList.get_by_instance(
        context, instance.uuid) if m.status == 'finished' and
        m.migration_type in ('resize', 'migration')]
    if not finished:
        raise exception.Invalid(
            reason='Migration for instance %s with status finished not '
                   'found.' % instance.uuid)
    return finished[-1]


def confirm_resize(api, context, instance):
    """Keep the server where it was resized to: its source drops what
    the server left there."""
    mapping, instance = api.locate(context, instance.uuid)
    server_updates.check_not_locked(context, instance)
    _in_a_cell(mapping, instance, 'confirmResize')
    with nova_context.target_cell(context, mapping.cell_mapping) as cctxt:
        instance._context = cctxt
        migration = _finished_migration(cctxt, instance, 'confirmResize')
        instance_actions.record_action(cctxt, instance.uuid,
                                       instance_actions.CONFIRM_RESIZE)
        try:
            resize_flow.begin_confirm(cctxt, instance, migration,
                                      api.compute_rpcapi)
        except exception.MigrationStatusChanged as e:
            raise exception.InstanceInvalidState(
                method='confirmResize', instance_uuid=instance.uuid,
                attr='migration status', state=e.kwargs.get('status'))
        except Exception as e:
            with server_common.logged_cleanup(
                    'confirmResize of %s' % instance.uuid):
                migration.status = 'finished'
                migration.save(expected_status=['confirming'])
            raise _unsent(e, 'confirmResize', migration.source_compute)


def revert_resize(api, context, instance):
    """Put the server back where it was, at its old flavor: its
    destination gives it back to the source."""
    mapping, instance = api.locate(context, instance.uuid)
    server_updates.check_not_locked(context, instance)
    _in_a_cell(mapping, instance, 'revertResize')
    with nova_context.target_cell(context, mapping.cell_mapping) as cctxt:
        instance._context = cctxt
        migration = _finished_migration(cctxt, instance, 'revertResize')
        instance.task_state = states.RESIZE_REVERTING
        try:
            instance.save(expected_task_state=[None])
        except exception.UnexpectedTaskStateError as e:
            raise exception.InstanceInvalidState(
                method='revertResize', instance_uuid=instance.uuid,
                attr='task_state', state=e.kwargs.get('actual'))
        migration.status = 'reverting'
        try:
            migration.save(expected_status=['finished'])
            instance_actions.record_action(cctxt, instance.uuid,
                                           instance_actions.REVERT_RESIZE)
            api.compute_rpcapi.revert_resize(cctxt, instance, migration)
        except Exception as e:
            with server_common.logged_cleanup(
                    'revertResize of %s' % instance.uuid):
                instance.task_state = None
                instance.save()
                if not isinstance(e, exception.MigrationStatusChanged):
                    migration.status = 'finished'
                    migration.save(expected_status=['reverting'])
            if isinstance(e, exception.MigrationStatusChanged):
                raise exception.InstanceInvalidState(
                    method='revertResize', instance_uuid=instance.uuid,
                    attr='migration status', state=e.kwargs.get('status'))
            raise _unsent(e, 'revertResize', migration.dest_compute)


def _unsent(error, action, host):
    """A message to a compute that could not be sent: 503 naming it."""
    if isinstance(error, messaging.MessagingException):
        return exception.ServiceUnavailable(
            service='nova-lite-compute on %s' % host,
            reason='the %s could not be sent (%s); nothing was changed' % (
                action, error))
    return error


def _in_a_cell(mapping, instance, method):
    if mapping.cell_mapping is None or mapping.cell_mapping.is_cell0:
        raise exception.InstanceInvalidState(
            method=method, instance_uuid=instance.uuid, attr='vm_state',
            state=instance.vm_state)
