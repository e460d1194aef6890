"""A build on this host: the scheduler has claimed it for the server.

A ``nova_lite.flow.Flow``; its steps, with what undoes each
(``build_undos``):

1. ``schedule`` -- the scheduler's claim, handed over by the conductor
   (undo: given back);
2. ``take_over`` -- the server's host and node are this one's, its task
   ``spawning`` (no undo: what follows a failure -- a reschedule, or ERROR
   -- sets them). A server deleted meanwhile has what the build holds
   given back, and nothing else done;
3. ``claim_here`` -- the claim on this node: the flavor and the ports'
   request groups on the providers the allocation maps them to (undo:
   the resource tracker drops it, here and in placement);
4. ``bind_ports`` -- the ports the create named bound here, those on the
   networks it named created (undo: released; the created ones deleted);
5. ``spawn`` -- the guest (undo: destroyed).

On a failure the steps are undone and the server is sent to an alternate
host, or, none being left, put in ERROR holding nothing. The build has no
record to write its steps on; a restart that cut one off here undoes
everything a build may hold (``flows.interrupted``).
"""

from oslo_log import log as logging

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

FLOW = 'build on the compute'

# How a build here ended (``build_and_run``).
ACTIVE = 'active'
FAILED = 'failed'  # the server is in ERROR
RESCHEDULED = 'rescheduled'  # sent to an alternate host
DELETED = 'deleted'  # deleted while it was built
NOT_TAKEN = 'not taken'  # a late or repeated request, left alone


def build_and_run(compute, context, instance, selection, request_spec,
                  host_list, limits, image):
    """Build the server here, recording the compute's part of its
    action; how it ended (ACTIVE, FAILED, ...)."""
    # The event's start goes with the take-over's save, and its finish
    # with the last save of a build that ends ACTIVE: two conductor calls
    # fewer.
    with compute.work.lock(instance.uuid), instance_actions.event(
            context, instance.uuid, 'compute_build_and_run_instance',
            host=compute.host, action=instance_actions.CREATE,
            start_with_save=True) as build:
        try:
            taken = build_here(compute, context, instance, selection,
                               request_spec, host_list, limits, image,
                               event=build)
        except Exception as error:
            LOG.exception('Unexpected error building %s', instance.uuid)
            build.fail('Unexpected error building on %s: %s' % (
                compute.host, instance_actions.error_details(error)), error)
            _abandon_build(compute, context, instance)
            common.set_error(compute, context, instance, exception.
                             BuildAbortException(
                                 instance_uuid=instance.uuid,
                                 reason='unexpected error on %s' %
                                 compute.host))
            return FAILED
        # build_here handles its failures itself; what it left on the
        # instance tells whether the server runs here.
        if taken is False:
            build.fail('A late or repeated build request reached %s; the '
                       'server was not waiting for a host and was left '
                       'alone.' % compute.host)
            return NOT_TAKEN
        if instance.vm_state == states.ERROR:
            build.fail('The build failed on %s; the server is in ERROR '
                       '(see its fault).' % compute.host)
            return FAILED
        if (instance.host is None and
                instance.task_state == states.SCHEDULING):
            build.fail('The build failed on %s; the server was sent '
                       'to an alternate host.' % compute.host)
            return RESCHEDULED
        if (instance.vm_state != states.ACTIVE or
                instance.obj_what_changed()):
            build.fail('The server was deleted while it was built on '
                       '%s.' % compute.host)
            return DELETED
        return ACTIVE


def build_here(compute, context, instance, selection, request_spec,
               host_list, limits, image, event=None):
    """Build the server here (the module's docstring); False when the
    request was not one to act on (``_take_over``). ``event``: the
    build's action event (``instance_actions.event``), whose start and
    finish its saves carry; None for none."""
    event = event or _NoEvent()
    nodename = selection.nodename
    try:
        with compute.rt.claiming(instance.uuid), flows.Flow(
                FLOW, instance.uuid,
                build_undos(compute, context, instance)) as flow:
            if not _take_over(compute, context, instance, nodename, event):
                return False
            flow.inherit([['schedule', nodename]])
            flow.step('take_over', nodename)
            _build(compute, context, instance, selection, request_spec,
                   limits, image, flow, event)
    except (exception.InstanceNotFound,
            exception.UnexpectedTaskStateError) as overtaken:
        # Deleted meanwhile: what the build held is given back (its
        # undos), and there is nothing to reschedule.
        LOG.info('%s was deleted during its build here (%s)',
                 instance.uuid, overtaken)
        return
    except Exception as error:
        LOG.warning('Build of %s failed on %s: %s', instance.uuid,
                    compute.host, error)
        _reschedule_or_fail(compute, context, instance, request_spec,
                            host_list, image, error)
        return
    LOG.info('Instance %s is ACTIVE on %s', instance.uuid, compute.host)


def _take_over(compute, context, instance, nodename, event):
    """Make the server this host's, if it still waits for a host: True.

    The cast may be a late or duplicated one -- the server was built
    already (here or on an alternate), or is being built by an earlier
    delivery -- and then nothing of it is touched: not its record, not
    the allocation the live build holds. A server deleted while it was
    scheduled holds only the scheduler's claim, which is given back."""
    instance.host = compute.host
    instance.node = nodename
    instance.launched_on = compute.host
    instance.task_state = states.SPAWNING
    try:
        event.save(instance, expected_task_state=[states.SCHEDULING])
    except exception.InstanceNotFound:
        LOG.info('%s was deleted while it was scheduled; giving back its '
                 'claim', instance.uuid)
        compute.rt.drop_instance(context, instance, nodename)
        return False
    except exception.UnexpectedTaskStateError as e:
        LOG.warning('Not building %s here: it is not waiting for a host '
                    '(%s); a late or repeated request, left alone',
                    instance.uuid, e)
        return False
    return True


def _build(compute, context, instance, selection, request_spec, limits,
           image, flow, event):
    """The steps after ``take_over`` (the module's docstring)."""
    groups = request_spec.requested_resources
    provider_of_port = network_api.provider_by_port(
        groups, (selection.allocation or {}).get('mappings'))
    flow.step('claim_here', selection.nodename)
    # What the scheduler claimed in placement is not read back when it
    # is what this claim would write (as Nova's compute trusts it). The
    # node's record goes with the last save, if the spawn is quick.
    compute.rt.claim(context, instance, selection.nodename, limits,
                     network_api.port_allocations(groups, provider_of_port),
                     claimed=(selection.allocation or {}).get('allocations'),
                     write_soon=True)
    flow.step('bind_ports')
    # Safe to bind again: a failed try has unbound what it bound.
    outage.ride_out(
        lambda: network_api.bind_for_build(
            compute.ports, instance, compute.host,
            request_spec.requested_networks, provider_of_port),
        exception.NetworkUnavailable,
        'Binding the ports of %s' % instance.uuid)
    flow.step('spawn')
    compute.driver.spawn(context, instance, image)
    common.spawned(compute, instance, was_stopped=False)
    # The node's stats count the server ACTIVE with the same call.
    with compute.rt.usage_with_save(context, instance) as node:
        event.save(instance, finishing=True,
                   expected_task_state=[states.SPAWNING], node=node)
    flow.done()


class _NoEvent:
    """The saves of a build that records no event."""

    @staticmethod
    def save(instance, finishing=False, **kwargs):
        instance.save(**kwargs)


def every_step(nodename):
    """Every step a build on ``nodename`` takes, in order: what a build
    cut off here without a record may have taken."""
    return [['schedule', nodename], ['take_over', nodename],
            ['claim_here', nodename], ['bind_ports', None], ['spawn', None]]


def build_undos(compute, context, instance):
    """What undoes each step of a build here (the module's docstring);
    each is idempotent."""
    def give_back(node):
        # The scheduler's claim and this node's are one allocation.
        compute.rt.drop_instance(context, instance,
                                 node or compute.driver.nodename)

    return flows.undo_table(
        schedule=give_back,
        take_over=None,  # the reschedule or the ERROR sets host and task
        claim_here=give_back,
        bind_ports=lambda _: network_api.release_ports(compute.ports,
                                                       instance),
        spawn=lambda _: compute.driver.destroy(context, instance))


def _reschedule_or_fail(compute, context, instance, request_spec,
                        host_list, image, error):
    if not host_list:
        _abandon_build(compute, context, instance)
        common.set_error(
            compute, context, instance, exception.MaxRetriesExceeded(
                reason='no alternate host is left after the build failed '
                       'on %s ([scheduler] max_attempts = %d).' %
                       (compute.host, CONF.scheduler.max_attempts)),
            details=str(getattr(error, 'message', error)))
        return
    lifecycle.record_fault(context, instance, error, host=compute.host)
    nodename = instance.node or compute.driver.nodename
    tried = [compute.host, instance.node or '']
    instance.host = None
    instance.node = None
    instance.task_state = states.SCHEDULING
    try:
        # Spawning here, or still scheduling if it failed before
        # take_over.
        instance.save(expected_task_state=[states.SPAWNING,
                                           states.SCHEDULING])
    except (exception.InstanceNotFound, exception.UnexpectedTaskStateError):
        return  # deleted meanwhile; nothing to reschedule
    # The alternate is claimed afresh: a build that failed before its
    # steps took the scheduler's claim (undone with them) still holds it
    # here, and the claim on the alternate would find it in the way.
    compute.rt.drop_instance(context, instance, nodename)
    retry = request_spec.retry or objects.SchedulerRetries(
        num_attempts=0, hosts=[])
    retry.num_attempts += 1
    retry.hosts = retry.hosts + [tried]
    request_spec.retry = retry
    compute.conductor_api.build_instances(context, [instance], request_spec,
                                          [host_list], image=image)


def _abandon_build(compute, context, instance):
    """A build that ends here in ERROR holds nothing here: no
    allocation, and no host that the audit would heal one for."""
    nodename = instance.node or compute.driver.nodename
    compute.driver.destroy(context, instance)
    compute.rt.drop_instance(context, instance, nodename)
    instance.host = None
    instance.node = None
