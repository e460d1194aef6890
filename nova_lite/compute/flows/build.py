"""A build on this host: the scheduler has claimed it for the server. The
claim here (the flavor and the ports' request groups on the providers the
allocation maps them to), the ports bound here, the guest spawned; on a
failure the guest and the claim go and the server is sent to an alternate
host, or, none being left, put in ERROR holding nothing.
"""

from oslo_log import log as logging

from nova_lite.compute.flows import common
from nova_lite.compute import instance_actions
from nova_lite.compute import states
from nova_lite import conf as nova_conf
from nova_lite import exception
from nova_lite import lifecycle
from nova_lite.network import api as network_api
from nova_lite import objects

CONF = nova_conf.CONF
LOG = logging.getLogger(__name__)


def build_and_run(compute, context, instance, selection, request_spec,
                   host_list, limits, image):
    with compute.work.lock(instance.uuid), instance_actions.event(
            context, instance.uuid, 'compute_build_and_run_instance',
            host=compute.host, action=instance_actions.CREATE) as build:
        try:
            build_here(compute, context, instance, selection, request_spec,
                       host_list, limits, image)
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
            return
        # build_here handles its failures itself; what it left on the
        # instance tells whether the server runs here.
        if instance.vm_state == states.ERROR:
            build.fail('The build failed on %s; the server is in ERROR '
                       '(see its fault).' % compute.host)
        elif (instance.host is None and
              instance.task_state == states.SCHEDULING):
            build.fail('The build failed on %s; the server was sent '
                       'to an alternate host.' % compute.host)
        elif (instance.vm_state != states.ACTIVE or
              instance.obj_what_changed()):
            build.fail('The server was deleted while it was built on '
                       '%s.' % compute.host)


def build_here(compute, context, instance, selection, request_spec,
               host_list, limits, image):
    nodename = selection.nodename
    instance.host = compute.host
    instance.node = nodename
    instance.launched_on = compute.host
    instance.task_state = states.SPAWNING
    overtaken = common.save_expecting(instance, states.SCHEDULING)
    if overtaken is not None:
        LOG.info('Not building %s: it was deleted meanwhile (%s)',
                 instance.uuid, overtaken)
        # The scheduler's claim for it is ours to give back.
        compute.rt.drop_instance(context, instance, nodename)
        return
    try:
        groups = request_spec.requested_resources
        provider_of_port = network_api.provider_by_port(
            groups, (selection.allocation or {}).get('mappings'))
        with compute.rt.instance_claim(
                context, instance, nodename, limits,
                network_api.port_allocations(groups, provider_of_port)):
            network_api.bind_for_build(
                compute.ports, instance, compute.host,
                request_spec.requested_networks, provider_of_port)
            try:
                compute.driver.spawn(context, instance, image)
            except Exception:
                network_api.release_ports(compute.ports, instance)
                raise
    except Exception as error:
        LOG.warning('Build of %s failed on %s: %s', instance.uuid,
                    compute.host, error)
        compute.driver.destroy(context, instance)
        # What the scheduler claimed here goes back (the claim's undo
        # did already, unless the failure came before it).
        compute.rt.drop_instance(context, instance, nodename)
        _reschedule_or_fail(compute, context, instance, request_spec,
                            host_list, image, error)
        return
    common.spawned(compute, instance, was_stopped=False)
    if common.save_expecting(instance, states.SPAWNING) is not None:
        LOG.info('%s was deleted while spawning; cleaning up',
                 instance.uuid)
        compute.driver.destroy(context, instance)
        compute.rt.drop_instance(context, instance, nodename)
        network_api.release_ports(compute.ports, instance)
        return
    LOG.info('Instance %s is ACTIVE on %s', instance.uuid, compute.host)


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
    tried = [compute.host, instance.node or '']
    instance.host = None
    instance.node = None
    instance.task_state = states.SCHEDULING
    if common.save_expecting(instance, states.SPAWNING) is not None:
        return  # deleted meanwhile; nothing to reschedule
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

