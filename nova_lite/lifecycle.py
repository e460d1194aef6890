"""What ends a server's build or task, for whichever service ends it:
record a fault, put the server in ERROR, bury a build that cannot be
scheduled in cell0, give back the allocation of a server that will not be
built or the source side of a move that is undone, fail a build nobody
finishes.

The API, the conductor's flows and the computes all use these; so this
module imports none of them -- only the vocabulary below them (instance
states, action history) and the placement client. Whatever of a caller it
needs (a conductor's build leases) is passed in.
"""

import traceback

from oslo_log import log as logging
import oslo_messaging as messaging

from nova_lite.compute import instance_actions
from nova_lite.compute import states
from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import cell_mapping as cell_mapping_obj
from nova_lite import conf as nova_conf
from nova_lite import placement_client

CONF = nova_conf.CONF
LOG = logging.getLogger(__name__)


def fault_message(error):
    """What a server's fault (and the failed step of its history) says
    about ``error``: the owner's summary of a NoValidHost, a hint when
    the scheduler did not answer, else the error's message as every
    action event says it (``instance_actions.error_details``)."""
    if isinstance(error, messaging.MessagingTimeout):
        return ('The scheduler did not answer in time; is '
                'nova-lite-scheduler running?')
    if isinstance(error, exception.NoValidHost) and error.summary:
        return error.summary
    return instance_actions.error_details(error)


def _fault_details(error):
    if isinstance(error, exception.NovaLiteException):
        return error.format_message()
    return ''.join(traceback.format_exception_only(type(error), error))


def record_fault(context, instance, error, host=None, details=None):
    code = getattr(error, 'code', 500)
    fault = objects.InstanceFault(
        context, instance_uuid=instance.uuid, code=code,
        message=fault_message(error)[:255],
        details=details or _fault_details(error), host=host)
    fault.create()
    return fault


def set_error(context, instance, error, host=None, details=None,
              expected_task_state=None):
    """Put ``instance`` in ERROR, its task ended, with ``error`` as its
    fault. The fault first: whoever sees ERROR must see why.

    With ``expected_task_state``, only while the server is still in that
    task: one deleted or moved on meanwhile belongs to whoever changed
    it, and nothing is written (False). The fault then follows the ERROR.
    """
    instance.vm_state = states.ERROR
    instance.task_state = None
    if expected_task_state is None:
        record_fault(context, instance, error, host=host, details=details)
        instance.save()
        return True
    try:
        instance.save(expected_task_state=[expected_task_state])
    except (exception.InstanceNotFound,
            exception.UnexpectedTaskStateError) as e:
        LOG.info('%s not put in ERROR: %s', instance.uuid, e)
        return False
    record_fault(context, instance, error, host=host, details=details)
    return True


def give_back(reportclient, instance_uuid, if_on=None):
    """Remove what the scheduler claimed for an instance that will not be
    built (with ``if_on``, only while the claim is still on that compute
    node); if placement cannot be reached the compute audit removes it
    later (its consumer is gone or not on that host)."""
    try:
        reportclient.delete_allocations(instance_uuid, if_on=if_on)
    except (placement_client.PlacementUnavailable,
            placement_client.PlacementConflict) as e:
        LOG.warning('Could not give back the allocation of %s: %s',
                    instance_uuid, e)


def claim_alternate(reportclient, instance, selection):
    """Claim ``selection``'s allocation candidate for ``instance``; True
    when it holds (or the selection carries none: the compute claims)."""
    request = selection.allocation
    if request is None:
        return True
    try:
        return reportclient.claim_resources(
            instance.uuid, request, instance.project_id, instance.user_id)
    except (placement_client.PlacementUnavailable,
            placement_client.PlacementConflict) as e:
        LOG.warning('Cannot claim %s on %s: %s', instance.uuid,
                    selection.service_host, e)
        return False


def return_source_side(reportclient, migration_uuid, instance_uuid,
                       context=None):
    """Give the server back what its migration's consumer holds (the
    source side of a move that is undone), in place of what the server
    holds (the destination's claim); if the migration holds nothing any
    more the server keeps what it has. An error is logged: the source
    compute's audit settles it later.

    A flow that runs beside the server's delete rather than under its
    compute's lock (a conductor's) passes the server's cell ``context``:
    a server deleted meanwhile keeps nothing. Its compute gave back what
    the server held when it deleted it -- nothing, the migration holding
    the source -- so what came back would be nobody's. The delete is
    looked for once the allocation is back: one not seen then had not
    been asked of the compute yet (the API marks the server DELETING
    first), and gives back what came back itself."""
    try:
        reportclient.move_allocations(migration_uuid, instance_uuid)
    except (placement_client.PlacementUnavailable,
            placement_client.PlacementConflict) as e:
        LOG.error('Could not give %s its source allocation back from '
                  'migration %s: %s', instance_uuid, migration_uuid, e)
    if context is not None and deleted_meanwhile(context, instance_uuid):
        LOG.info('%s was deleted during its move; giving back its source '
                 'allocation (migration %s)', instance_uuid, migration_uuid)
        give_back(reportclient, migration_uuid)
        give_back(reportclient, instance_uuid)


def deleted_meanwhile(context, instance_uuid):
    """Whether the server is deleted, or its delete has begun (DELETING:
    its compute is asked next)."""
    try:
        current = objects.Instance.get_by_uuid(context, instance_uuid)
    except exception.InstanceNotFound:
        return True
    return (current.vm_state == states.DELETED or
            current.task_state == states.DELETING)


def bury_in_cell0(context, build_request, spec, error,
                  requested_networks=None, action=instance_actions.CREATE,
                  leases=None):
    """Create the instance in cell0 in ERROR with ``error`` as its fault;
    its spec keeps ``requested_networks`` for a rebuild from cell0. Its
    history there shows ``action`` with the failed scheduling step. With
    ``leases`` (a conductor's BuildLeases), the build request is deleted
    only while they hold it: BuildTakenOver if another conductor has it
    now (the cell0 record made here is removed again)."""
    if requested_networks is not None:
        spec.requested_networks = requested_networks
        spec.save()
    cell0 = objects.CellMapping.get_by_uuid(context,
                                            cell_mapping_obj.CELL0_UUID)
    with nova_context.target_cell(context, cell0) as cctxt:
        instance = build_request.instance
        instance._context = cctxt
        instance.vm_state = states.ERROR
        instance.task_state = None
        try:
            instance.create()
        except exception.Conflict:
            instance = objects.Instance.get_by_uuid(cctxt, instance.uuid)
        record_fault(cctxt, instance, error)
        instance_actions.record_action(cctxt, instance.uuid, action)
        with instance_actions.event(cctxt, instance.uuid,
                                    'conductor_schedule_and_build_instances',
                                    action=action) as step:
            step.fail(fault_message(error))
        mapping = objects.InstanceMapping.get_by_instance_uuid(
            context, instance.uuid)
        mapping.cell_mapping = cell0
        try:
            if leases is not None:
                # Both only while the build is still this task's.
                mapping.save(build_owner=leases.owner)
                leases.destroy(build_request)
            else:
                mapping.save()
                build_request.destroy()
        except exception.BuildRequestNotFound:
            LOG.info('Instance %s was deleted during scheduling; removing '
                     'it from cell0', instance.uuid)
            instance.destroy()
        except exception.BuildTakenOver:
            # Its new owner builds it (and points the mapping where it
            # does); the record made here must not stay beside it.
            remove_own_record(instance)
            raise


def remove_own_record(instance):
    """Hard-delete the cell record ``instance`` was created as -- only
    that row (by its id): a build that lost its lease removes what it made
    after its last check, never a record of the same server its new
    owner made since."""
    try:
        stored = objects.Instance.get_by_uuid(instance._context,
                                              instance.uuid)
    except exception.InstanceNotFound:
        return
    if stored.id == instance.id:
        stored.destroy(hard_delete=True)


def fail_interrupted_build(context, instance, error, host=None,
                           stale_for=None):
    """Put a build nobody finishes in ERROR on no host with ``error`` as
    its fault -- only if it is still BUILDING in the task state it was
    read in, so a build that resumed meanwhile wins. True if it did; the
    caller then frees what the server held."""
    return _leave_build(context, instance, error, host, stale_for,
                        vm_state=states.ERROR, task_state=None)


def _leave_build(context, instance, error, host, stale_for=None,
                 **changes):
    """Take a build off its host with ``changes`` (and ``error`` as its
    fault), only if it is still BUILDING in the task state it was read in;
    whether it was."""
    task = instance.task_state
    for field, value in changes.items():
        setattr(instance, field, value)
    instance.host = None
    instance.node = None
    try:
        expected = {'expected_vm_state': [states.BUILDING],
                    'expected_task_state': [task]}
        if stale_for is None:
            instance.save(**expected)
        else:
            instance.save_if_stale(stale_for, **expected)
    except (exception.InstanceNotFound, exception.UnexpectedTaskStateError):
        return False
    record_fault(context, instance, error, host=host)
    return True


# Counted in the server's system_metadata: how many times its build was
# cut off by a fault and scheduled again.
BUILD_RESTARTS = 'build_restarts'


def restart_interrupted_build(context, instance, error, host=None,
                              stale_for=None):
    """Send a build that a fault cut off (its compute died in it, or its
    message was lost) back to be scheduled, as a failed spawn is: BUILDING
    on no host, scheduling, with ``error`` recorded as a fault of the
    attempt -- only if it is still BUILDING in the task state it was read
    in, so a build that resumed meanwhile wins. After [scheduler]
    max_attempts restarts it is failed instead (``fail_interrupted_build``),
    so a server whose build kills its compute every time does not go round
    for ever. With ``stale_for`` (a conductor's takeover), only if nobody
    wrote the server for that long either: a build its conductor keeps
    alive stays its conductor's.

    RESCHEDULED or FAILED -- the caller then frees what the server held,
    and for RESCHEDULED asks the conductor to schedule it -- or None when
    the build moved on meanwhile (or the server was deleted)."""
    restarts = int((instance.system_metadata or {}).get(BUILD_RESTARTS, 0))
    if restarts >= CONF.scheduler.max_attempts:
        failed = fail_interrupted_build(context, instance, error, host=host,
                                        stale_for=stale_for)
        return FAILED if failed else None
    restarted = _leave_build(
        context, instance, error, host, stale_for,
        task_state=states.SCHEDULING,
        system_metadata=dict(instance.system_metadata or {},
                             **{BUILD_RESTARTS: str(restarts + 1)}))
    return RESCHEDULED if restarted else None


RESCHEDULED = 'rescheduled'
FAILED = 'failed'
