"""What several compute flows do: tell a late or repeated message from
the server's current work, save a server unless it was overtaken, ask
once whether it still exists, record a flow's steps on its migration,
claim a moved server here and bind its ports here, leave it as it was with
a fault when an operation on it failed, put it in ERROR with its fault,
and finish a spawn.
"""

from oslo_log import log as logging
import oslo_messaging as messaging
from oslo_utils import timeutils

from nova_lite.compute import instance_actions
from nova_lite.compute import states
from nova_lite import exception
from nova_lite import lifecycle
from nova_lite.network import api as network_api
from nova_lite import objects
from nova_lite import outage

LOG = logging.getLogger(__name__)


def save_expecting(instance, task_state):
    """Save ``instance`` if its task state is still ``task_state``: None
    when saved; otherwise why it was overtaken (deleted meanwhile, or its
    task moved on), for the caller to log and stop."""
    try:
        instance.save(expected_task_state=[task_state])
    except (exception.InstanceNotFound,
            exception.UnexpectedTaskStateError) as e:
        return e
    return None


def save_with_usage(compute, context, instance, task_state):
    """The last save of an operation here, expecting ``task_state``: what
    the node's record waits to have written (a claim's, the operation's
    end in its stats) goes with the same conductor call
    (``ResourceTracker.usage_with_save``). Raises what the save raises."""
    with compute.rt.usage_with_save(context, instance) as node:
        instance.save(expected_task_state=[task_state], node=node)


def save_ending(compute, context, instance, task_state):
    """``save_expecting`` for the last save of an operation here
    (``save_with_usage``)."""
    try:
        save_with_usage(compute, context, instance, task_state)
    except (exception.InstanceNotFound,
            exception.UnexpectedTaskStateError) as e:
        return e
    return None


def late_or_repeated(context, instance, task_state, deleted_is_late=True):
    """Why the message that asks for ``task_state`` on ``instance`` is not
    the server's current work -- the server is gone, its task moved on
    (done already: a repeat), or a later request on it was accepted since
    (its newest action is not this message's request: a late one) -- or
    None when it is. A message that is late or a repeat touches nothing:
    its request id is its identity. ``deleted_is_late`` False: a server
    deleted meanwhile is the message's to clean up after (a move gives
    back what it claimed for it)."""
    try:
        stored = objects.Instance.get_by_uuid(context, instance.uuid)
    except exception.InstanceNotFound:
        return 'it was deleted meanwhile' if deleted_is_late else None
    if stored.task_state != task_state:
        return 'its task is %s now' % (stored.task_state or 'over')
    try:
        newest = objects.InstanceActionList.get_by_instance_uuid(
            context, instance.uuid, limit=1)
    except exception.NovaLiteException as e:
        LOG.warning('The actions of %s not read (%s): taking the message '
                    'for its current work', instance.uuid, e)
        return None
    if newest and context.request_id and \
            newest[0].request_id != context.request_id:
        return 'request %s on it came after this one (%s)' % (
            newest[0].request_id, context.request_id)
    return None


def server_exists(context, instance):
    """Whether the server still exists, asked once when first needed:
    the undos of a move differ for a server deleted meanwhile."""
    answer = []

    def exists():
        if not answer:
            try:
                objects.Instance.get_by_uuid(context, instance.uuid)
                answer.append(True)
            except exception.InstanceNotFound:
                answer.append(False)
        return answer[0]
    return exists


def recorded_on(migration, flow):
    """A compute flow's ``record``: its steps written on ``migration``
    (through the conductor), where a takeover after a crash reads them.
    The whole list is written each time, so a write that timed out is
    sent again while the conductor or its database is away
    (``nova_lite.outage``); only then does the step fail."""
    def record(steps):
        return outage.ride_out(
            lambda: migration.record_flow(flow, steps),
            (messaging.MessagingTimeout, exception.DatabaseUnavailable),
            'Recording %s of %s' % (flow, migration.instance_uuid))
    return record


def claim_and_bind_here(compute, context, instance, flow, node, limits,
                        groups, provider_of_port, ports):
    """Two steps of a server moved here: claim ``node`` for it (with its
    ports' request groups on the providers the scheduler chose), then
    point each port's binding here, with this host's provider as its
    ``allocation``. ``bind_here`` records what it replaces, for its
    undo to put back. The node's record follows the claim within
    ``resource_tracker.WRITE_SOON_SECONDS``, with the operation's last
    save if that comes first (``save_with_usage``)."""
    flow.step('claim_here', node)
    compute.rt.claim(context, instance, node, limits,
                     network_api.port_allocations(groups, provider_of_port),
                     write_soon=True)
    for port in ports:
        flow.step('bind_here', {
            'port': port['id'], 'host': port.get('binding:host_id'),
            'profile': port.get('binding:profile') or {}})
        network_api.bind_port(compute.ports, port, instance, compute.host,
                              provider_of_port.get(port['id']))


def failed_in_place(compute, context, instance, step, error):
    """An operation on the server failed here and changed nothing: the
    action's ``step`` and a fault say why, and its task is cleared."""
    step.fail(instance_actions.error_details(error), error)
    lifecycle.record_fault(context, instance, error, host=compute.host)
    instance.task_state = None
    instance.save()


def set_error(compute, context, instance, error, details=None, host=None):
    """``lifecycle.set_error`` with the fault on ``host`` (default:
    this one); a server deleted meanwhile is left alone."""
    try:
        lifecycle.set_error(context, instance, error,
                            host=host or compute.host, details=details)
    except exception.InstanceNotFound:
        pass


def spawned(compute, instance, was_stopped):
    """After a spawn here: a server that was stopped is stopped again,
    one that was running runs, and its task is done (not saved yet)."""
    if was_stopped:
        compute.driver.power_off(instance)
    instance.vm_state = states.STOPPED if was_stopped else states.ACTIVE
    instance.power_state = (states.SHUTDOWN if was_stopped
                            else states.RUNNING)
    instance.task_state = None
    instance.launched_at = timeutils.utcnow()
