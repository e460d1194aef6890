"""Stop and start, pause and unpause, suspend and resume, reboot: the guest
powered off or on, paused or suspended, the server's states following; a
failure leaves the server as it was, with a fault. A late or repeated
message (the server was asked for something else since) touches nothing;
one resumed after an interruption is done again.

A reboot goes through three task states, as in Nova: the API's
``rebooting`` (or ``rebooting_hard``), then ``reboot_pending`` and
``reboot_started`` (or their ``_hard`` twins) here, each saved only while
the one before is still there -- a hard reboot may be asked for while a
soft one runs, and then the soft one stops where it is. A reboot that
fails with the guest still running leaves the server as it was, with a
fault; one that leaves the guest down puts the server in ERROR (a hard
reboot is how it is brought back).
"""

from oslo_log import log as logging

from nova_lite.compute.flows import common
from nova_lite.compute import instance_actions
from nova_lite.compute import states

LOG = logging.getLogger(__name__)

SOFT = 'SOFT'
HARD = 'HARD'


def stop(compute, context, instance, resumed=False):
    _power(compute, context, instance, instance_actions.STOP,
           states.POWERING_OFF, compute.driver.power_off, states.STOPPED,
           states.SHUTDOWN, resumed)


def start(compute, context, instance, resumed=False):
    _power(compute, context, instance, instance_actions.START,
           states.POWERING_ON, compute.driver.power_on, states.ACTIVE,
           states.RUNNING, resumed)


def pause(compute, context, instance, resumed=False):
    _power(compute, context, instance, instance_actions.PAUSE,
           states.PAUSING, compute.driver.pause, states.PAUSED,
           states.PAUSED_POWER, resumed)


def unpause(compute, context, instance, resumed=False):
    _power(compute, context, instance, instance_actions.UNPAUSE,
           states.UNPAUSING, compute.driver.unpause, states.ACTIVE,
           states.RUNNING, resumed)


def suspend(compute, context, instance, resumed=False):
    _power(compute, context, instance, instance_actions.SUSPEND,
           states.SUSPENDING, compute.driver.suspend, states.SUSPENDED,
           states.SUSPENDED_POWER, resumed)


def resume(compute, context, instance, resumed=False):
    _power(compute, context, instance, instance_actions.RESUME,
           states.RESUMING, compute.driver.resume, states.ACTIVE,
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


def reboot(compute, context, instance, reboot_type, resumed=False):
    """Reboot the guest (``SOFT`` or ``HARD``); the server is ACTIVE and
    running after it. ``resumed``: an interrupted reboot done again,
    from whichever of its task states it was left in."""
    asked, pending, started = (states.HARD_REBOOT_STATES
                               if reboot_type == HARD
                               else states.SOFT_REBOOT_STATES)
    with compute.work.working_on(instance.uuid), \
            compute.work.lock(instance.uuid):
        late = (None if resumed else
                common.late_or_repeated(context, instance, asked))
        if late is not None:
            LOG.info('Not doing the %s reboot of %s: %s', reboot_type,
                     instance.uuid, late)
            return
        with instance_actions.event(
                context, instance.uuid, 'compute_reboot_instance',
                host=compute.host, action=instance_actions.REBOOT) as step:
            for task_state in (pending, started):
                overtaken = _move_task(instance, task_state)
                if overtaken is not None:
                    LOG.info('The %s reboot of %s overtaken: %s',
                             reboot_type, instance.uuid, overtaken)
                    return
            _reboot_here(compute, context, instance, reboot_type, started,
                         step)


def _move_task(instance, task_state):
    """The task on to ``task_state`` if it is still where it was; None,
    or why it was overtaken."""
    previous = instance.task_state
    instance.task_state = task_state
    return common.save_expecting(instance, previous)


def _reboot_here(compute, context, instance, reboot_type, started, step):
    try:
        compute.driver.reboot(instance, reboot_type)
    except Exception as error:
        LOG.exception('The %s reboot of %s failed', reboot_type,
                      instance.uuid)
        if compute.driver.power_state(instance) == states.RUNNING:
            common.failed_in_place(compute, context, instance, step, error)
        else:
            step.fail(instance_actions.error_details(error), error)
            common.set_error(compute, context, instance, error)
        return
    instance.vm_state = states.ACTIVE
    instance.power_state = states.RUNNING
    instance.task_state = None
    overtaken = common.save_expecting(instance, started)
    if overtaken is not None:
        LOG.info('The %s reboot of %s overtaken: %s', reboot_type,
                 instance.uuid, overtaken)
