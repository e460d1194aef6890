"""Shelve, offload and unshelve. Shelved, a server keeps its host, its
allocation and its ports, its guest powered off; offloaded (at once with
[compute] shelved_offload_time = 0, or by the periodic task once it has
been shelved that long), the host is freed: no guest, no allocation, its
ports bound to no host but still the server's. An unshelve of a server
shelved here powers its guest on; of an offloaded one, the scheduler has
claimed this host and the server is taken over and spawned here, its
undo leaving it offloaded again.
"""

from oslo_log import log as logging
from oslo_utils import timeutils

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


def shelve(compute, context, instance, image_id):
    with compute.work.lock(instance.uuid), instance_actions.event(
            context, instance.uuid, 'compute_shelve_instance',
            host=compute.host, action=instance_actions.SHELVE) as step:
        try:
            compute.driver.power_off(instance)
        except Exception as error:
            LOG.exception('Shelve of %s failed', instance.uuid)
            common.failed_in_place(compute, context, instance, step, error)
            return
        # The snapshot: an opaque image reference the server is spawned
        # from again when it is unshelved.
        instance.system_metadata.update({
            'shelved_image_id': image_id,
            'shelved_at': timeutils.utcnow().isoformat(),
            'shelved_host': compute.host})
        instance.vm_state = states.SHELVED
        instance.power_state = states.SHUTDOWN
        offload = CONF.compute.shelved_offload_time == 0
        instance.task_state = (states.SHELVING_OFFLOADING if offload
                               else None)
        overtaken = common.save_expecting(instance, states.SHELVING)
        if overtaken is not None:
            LOG.info('Shelve of %s overtaken: %s', instance.uuid, overtaken)
            return
        LOG.info('Instance %s shelved on %s', instance.uuid, compute.host)
        if offload:
            _offload(compute, context, instance)


def shelve_offload(compute, context, instance):
    with compute.work.lock(instance.uuid), instance_actions.event(
            context, instance.uuid, 'compute_shelve_offload_instance',
            host=compute.host, action=instance_actions.SHELVE_OFFLOAD):
        _offload(compute, context, instance)


def _offload(compute, context, instance):
    """Free the host: no guest, no allocation, ports bound to no host
    (they stay the server's: device_id is kept)."""
    compute.driver.destroy(context, instance)
    compute.rt.drop_instance(context, instance, instance.node)
    try:
        for port in compute.ports.ports_of(instance.uuid):
            network_api.unbind_from_host(compute.ports, port)
    except exception.NovaLiteException as e:
        LOG.warning('Ports of offloaded %s not unbound: %s',
                    instance.uuid, e)
    instance.host = None
    instance.node = None
    instance.vm_state = states.SHELVED_OFFLOADED
    instance.task_state = None
    overtaken = common.save_expecting(instance, states.SHELVING_OFFLOADING)
    if overtaken is not None:
        LOG.info('Offload of %s overtaken: %s', instance.uuid, overtaken)
        return
    compute.work.forget_lock(instance.uuid)
    LOG.info('Instance %s offloaded from %s', instance.uuid, compute.host)


def offload_shelved_instances(compute, context):
    """Offload the servers shelved here longer than
    [compute] shelved_offload_time."""
    wait = CONF.compute.shelved_offload_time
    if wait <= 0:
        return
    now = timeutils.utcnow()
    for instance in objects.InstanceList.get_by_host(context,
                                                     compute.host):
        shelved_at = instance.system_metadata.get('shelved_at')
        if instance.vm_state != states.SHELVED or \
                instance.task_state is not None or not shelved_at:
            continue
        if (now - timeutils.parse_isotime(shelved_at).replace(
                tzinfo=None)).total_seconds() < wait:
            continue
        instance.task_state = states.SHELVING_OFFLOADING
        if common.save_expecting(instance, None) is not None:
            continue
        shelve_offload(compute, context, instance)


def unshelve(compute, context, instance, image, request_spec, selection):
    with compute.work.lock(instance.uuid), instance_actions.event(
            context, instance.uuid, 'compute_unshelve_instance',
            host=compute.host, action=instance_actions.UNSHELVE) as step:
        if selection is None:
            # Shelved here, never offloaded: the guest is powered on.
            _power_on_shelved(compute, context, instance, step)
            return
        groups = request_spec.requested_resources
        provider_of_port = {g.requester_id: g.provider_uuids[0]
                            for g in groups if g.provider_uuids}
        try:
            common.spawn_moved_here(
                compute, context, instance, image, selection, groups,
                provider_of_port, None, states.UNSHELVING,
                states.SPAWNING)
        except Exception as error:
            LOG.warning('Unshelve of %s on %s failed: %s',
                        instance.uuid, compute.host, error)
            step.fail('The unshelve on %s failed: %s' % (
                compute.host, instance_actions.error_details(error)), error)
            unshelve_failed(compute, context, instance, error)
            return
        _unshelved(compute, instance, states.SPAWNING)


def _power_on_shelved(compute, context, instance, step):
    try:
        compute.driver.power_on(instance)
    except Exception as error:
        common.failed_in_place(compute, context, instance, step, error)
        return
    _unshelved(compute, instance, states.UNSHELVING)


def _unshelved(compute, instance, task_state):
    for key in ('shelved_image_id', 'shelved_at', 'shelved_host'):
        instance.system_metadata.pop(key, None)
    common.spawned(compute, instance, was_stopped=False)
    overtaken = common.save_expecting(instance, task_state)
    if overtaken is not None:
        LOG.info('%s changed while it was unshelved (%s)',
                 instance.uuid, overtaken)
        return
    LOG.info('Instance %s unshelved on %s', instance.uuid, compute.host)


def unshelve_failed(compute, context, instance, error):
    """Back to offloaded: its allocation here is gone (the claim's
    undo), its ports bound to no host."""
    try:
        for port in compute.ports.ports_of(instance.uuid):
            network_api.unbind_from_host(compute.ports, port)
    except exception.NovaLiteException as e:
        LOG.error('Ports of %s not unbound after its failed unshelve: '
                  '%s', instance.uuid, e)
    instance.host = None
    instance.node = None
    try:
        lifecycle.record_fault(context, instance, error, host=compute.host)
        instance.vm_state = states.SHELVED_OFFLOADED
        instance.task_state = None
        instance.save()
    except exception.InstanceNotFound:
        pass

