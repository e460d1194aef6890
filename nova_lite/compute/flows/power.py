"""Stop and start: the guest powered off or on, the server's states
following; a failure leaves the server as it was, with a fault.
"""

from oslo_log import log as logging

from nova_lite.compute.flows import common
from nova_lite.compute import instance_actions
from nova_lite.compute import states

LOG = logging.getLogger(__name__)


def stop(compute, context, instance):
    _power(compute, context, instance, instance_actions.STOP,
           states.POWERING_OFF, compute.driver.power_off, states.STOPPED,
           states.SHUTDOWN)


def start(compute, context, instance):
    _power(compute, context, instance, instance_actions.START,
           states.POWERING_ON, compute.driver.power_on, states.ACTIVE,
           states.RUNNING)


def _power(compute, context, instance, action, task_state, operation,
           vm_state, power_state):
    with compute.work.working_on(instance.uuid), \
            compute.work.lock(instance.uuid), instance_actions.event(
            context, instance.uuid, 'compute_%s_instance' % action,
            host=compute.host, action=action) as step:
        try:
            operation(instance)
        except Exception as error:
            LOG.exception('%s of %s failed', task_state, instance.uuid)
            common.failed_in_place(compute, context, instance, step, error)
            return
        instance.vm_state = vm_state
        instance.power_state = power_state
        instance.task_state = None
        overtaken = common.save_expecting(instance, task_state)
        if overtaken is not None:
            LOG.info('%s of %s overtaken: %s', task_state,
                     instance.uuid, overtaken)

