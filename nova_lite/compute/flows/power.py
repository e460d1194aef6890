"""Stop and start: the guest powered off or on, the server's states
following; a failure leaves the server as it was, with a fault. A late or
repeated stop or start (the server was started or stopped again since)
touches nothing; one resumed after an interruption is done again.
"""

from oslo_log import log as logging

from nova_lite.compute.flows import common
from nova_lite.compute import instance_actions
from nova_lite.compute import states

LOG = logging.getLogger(__name__)


def stop(compute, context, instance, resumed=False):
    _power(compute, context, instance, instance_actions.STOP,
           states.POWERING_OFF, compute.driver.power_off, states.STOPPED,
           states.SHUTDOWN, resumed)


def start(compute, context, instance, resumed=False):
    _power(compute, context, instance, instance_actions.START,
           states.POWERING_ON, compute.driver.power_on, states.ACTIVE,
           states.RUNNING, resumed)


def _power(compute, context, instance, action, task_state, operation,
           vm_state, power_state, resumed):
    with compute.work.working_on(instance.uuid), \
            compute.work.lock(instance.uuid):
        late = (None if resumed else
                common.late_or_repeated(context, instance, task_state))
        if late is not None:
            LOG.info('Not doing %s of %s: %s', action, instance.uuid, late)
            return
        _power_here(compute, context, instance, action, task_state,
                    operation, vm_state, power_state)


def _power_here(compute, context, instance, action, task_state, operation,
                vm_state, power_state):
    with instance_actions.event(
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
