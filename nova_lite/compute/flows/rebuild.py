"""A rebuild in place: same host, same node, same flavor, so the
allocation in placement stays as it is. A stopped server is stopped again
afterwards; a failed spawn leaves it in ERROR with a fault, still here and
still holding its allocation, so it can be rebuilt again.
"""

from oslo_log import log as logging

from nova_lite.compute.flows import common
from nova_lite.compute import instance_actions
from nova_lite.compute import states

LOG = logging.getLogger(__name__)


def rebuild(compute, context, instance, image, orig_image_ref):
    with compute.work.lock(instance.uuid), instance_actions.event(
            context, instance.uuid, 'compute_rebuild_instance',
            host=compute.host, action=instance_actions.REBUILD) as step:
        try:
            _rebuild_here(compute, context, instance, image, orig_image_ref)
        except Exception as error:
            LOG.exception('Rebuild of %s failed on %s', instance.uuid,
                          compute.host)
            step.fail('The rebuild failed on %s: %s' % (
                compute.host, instance_actions.error_details(error)), error)
            common.set_error(compute, context, instance, error)


def _rebuild_here(compute, context, instance, image, orig_image_ref):
    was_stopped = instance.power_state == states.SHUTDOWN
    LOG.info('Rebuilding %s on %s from image %s (was %s)',
             instance.uuid, compute.host, instance.image_ref or 'a volume',
             orig_image_ref or 'a volume')
    compute.driver.destroy(context, instance)
    instance.power_state = states.NOSTATE
    instance.task_state = states.REBUILD_SPAWNING
    overtaken = common.save_expecting(instance, states.REBUILDING)
    if overtaken is not None:
        LOG.info('Not rebuilding %s: %s', instance.uuid, overtaken)
        return
    compute.driver.spawn(context, instance, image)
    common.spawned(compute, instance, was_stopped)
    overtaken = common.save_expecting(instance, states.REBUILD_SPAWNING)
    if overtaken is not None:
        LOG.info('%s changed while it was rebuilt (%s)', instance.uuid,
                 overtaken)
        return
    LOG.info('Instance %s rebuilt on %s', instance.uuid, compute.host)

