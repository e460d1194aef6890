"""A rebuild in place: same host, same node, same flavor, so the
allocation in placement stays as it is. A stopped server is stopped again
afterwards; a failed spawn leaves it in ERROR with a fault, still here and
still holding its allocation, so it can be rebuilt again. A rebuild cut
off (this compute restarted during it, or its message was lost) is done
again from the start: destroying and spawning once more is harmless.
"""

from oslo_log import log as logging

from nova_lite.compute.flows import common
from nova_lite.compute import instance_actions
from nova_lite.compute import states
from nova_lite import objects

LOG = logging.getLogger(__name__)


def rebuild(compute, context, instance, image, orig_image_ref):
    with compute.work.lock(instance.uuid):
        late = common.late_or_repeated(context, instance, states.REBUILDING)
        if late is not None:
            LOG.info('Not rebuilding %s: %s', instance.uuid, late)
            return
        _rebuild(compute, context, instance, image, orig_image_ref,
                 'compute_rebuild_instance', states.REBUILDING)


def resume(compute, context, instance, why):
    """Do again a rebuild here that was cut off (``why``), from the image
    the server records; the caller holds the server's work lock."""
    LOG.warning('Rebuilding %s again: its rebuild was interrupted (%s)',
                instance.uuid, why)
    image = (objects.ImageMeta(id=instance.image_ref)
             if instance.image_ref else None)
    _rebuild(compute, context, instance, image, None,
             'compute_resume_rebuild', instance.task_state)


def _rebuild(compute, context, instance, image, orig_image_ref, event,
             task_state):
    with instance_actions.event(
            context, instance.uuid, event,
            host=compute.host, action=instance_actions.REBUILD) as step:
        try:
            _rebuild_here(compute, context, instance, image, orig_image_ref,
                          task_state)
        except Exception as error:
            LOG.exception('Rebuild of %s failed on %s', instance.uuid,
                          compute.host)
            step.fail('The rebuild failed on %s: %s' % (
                compute.host, instance_actions.error_details(error)), error)
            common.set_error(compute, context, instance, error)


def _rebuild_here(compute, context, instance, image, orig_image_ref,
                  task_state):
    # Its vm_state stays as it was until the spawn: a rebuild done again
    # after a restart still knows the server was stopped.
    was_stopped = instance.vm_state == states.STOPPED
    LOG.info('Rebuilding %s on %s from image %s (was %s)',
             instance.uuid, compute.host, instance.image_ref or 'a volume',
             orig_image_ref or 'a volume')
    # The task moves on before the guest goes, so that a late or repeated
    # rebuild message (the server was rebuilt meanwhile) touches nothing.
    instance.power_state = states.NOSTATE
    instance.task_state = states.REBUILD_SPAWNING
    overtaken = common.save_expecting(instance, task_state)
    if overtaken is not None:
        LOG.info('Not rebuilding %s: %s', instance.uuid, overtaken)
        return
    compute.driver.destroy(context, instance)
    compute.driver.spawn(context, instance, image)
    common.spawned(compute, instance, was_stopped)
    overtaken = common.save_ending(compute, context, instance,
                                   states.REBUILD_SPAWNING)
    if overtaken is not None:
        LOG.info('%s changed while it was rebuilt (%s)', instance.uuid,
                 overtaken)
        return
    LOG.info('Instance %s rebuilt on %s', instance.uuid, compute.host)
