"""Server side of the compute RPC API: one per hypervisor host.

The compute holds no database credentials; every object it reads or saves
goes through the conductor (object indirection, set up in
``nova_lite.cmd.compute``).
"""

import threading
import time

import futurist
from oslo_log import log as logging
import oslo_messaging as messaging
from oslo_utils import timeutils

from nova_lite.compute import instance_actions
from nova_lite.compute import resource_tracker
from nova_lite.compute import states
from nova_lite.conductor import rpcapi as conductor_rpcapi
from nova_lite.conductor.tasks import build as build_task
from nova_lite import conf as nova_conf
from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite import manager
from nova_lite import objects
from nova_lite import service
from nova_lite.virt import fake

CONF = nova_conf.CONF
LOG = logging.getLogger(__name__)


class ComputeManager(manager.Manager):
    target = messaging.Target(version='1.1')

    def __init__(self, host=None, driver=None):
        self.host = host or CONF.host
        self.driver = driver or fake.FakeDriver(self.host)
        self.rt = resource_tracker.ResourceTracker(self.host, self.driver)
        self.conductor_api = conductor_rpcapi.ConductorAPI()
        from nova_lite import cmd
        if cmd.concurrency_backend() == 'eventlet':
            self._builds = futurist.GreenThreadPoolExecutor(
                CONF.compute.max_concurrent_builds)
        else:
            self._builds = futurist.ThreadPoolExecutor(
                CONF.compute.max_concurrent_builds)
        self._instance_locks = {}
        self._locks_guard = threading.Lock()

    # -- lifecycle -----------------------------------------------------------

    def init_host(self, context):
        self._wait_for_conductor(context)
        self.update_available_resource()

    def _wait_for_conductor(self, context):
        deadline = (time.monotonic() + CONF.compute.conductor_wait_seconds
                    if CONF.compute.conductor_wait_seconds else None)
        while True:
            try:
                self.conductor_api.ping(context, 'compute %s' % self.host,
                                        timeout=3)
                return
            except messaging.MessagingTimeout:
                if deadline is not None and time.monotonic() > deadline:
                    raise exception.ServiceUnavailable(
                        service='nova-lite-conductor',
                        reason='no answer within %ss; a compute cannot '
                               'start without a conductor' %
                               CONF.compute.conductor_wait_seconds)
                LOG.warning('Waiting for a conductor to answer...')

    def cleanup_host(self):
        self._builds.shutdown(wait=True)

    def _instance_lock(self, uuid):
        with self._locks_guard:
            return self._instance_locks.setdefault(uuid, threading.Lock())

    def _forget_lock(self, uuid):
        with self._locks_guard:
            self._instance_locks.pop(uuid, None)

    # -- periodic tasks ------------------------------------------------------

    @service.periodic_task(lambda: CONF.compute.update_resources_interval)
    def update_available_resource(self):
        context = nova_context.get_admin_context()
        for nodename in self.driver.get_available_nodes():
            self.rt.update_available_resource(context, nodename)

    # -- build ---------------------------------------------------------------

    def build_and_run_instance(self, context, instance, selection,
                               request_spec, host_list, limits=None,
                               image=None):
        self._builds.submit(self._build_and_run, context, instance,
                            selection, request_spec, host_list, limits,
                            image)

    def _build_and_run(self, context, instance, selection, request_spec,
                       host_list, limits, image):
        with self._instance_lock(instance.uuid), instance_actions.event(
                context, instance.uuid, 'compute_build_and_run_instance',
                host=self.host, action=instance_actions.CREATE) as build:
            try:
                self._do_build(context, instance, selection, request_spec,
                               host_list, limits, image)
            except Exception as error:
                LOG.exception('Unexpected error building %s', instance.uuid)
                build.fail('Unexpected error building on %s: %s' % (
                    self.host, instance_actions.error_details(error)), error)
                self._abandon_build(context, instance)
                self._set_error(context, instance, exception.
                                BuildAbortException(
                                    instance_uuid=instance.uuid,
                                    reason='unexpected error on %s' %
                                    self.host))
                return
            # _do_build handles its failures itself; what it left on the
            # instance tells whether the server runs here.
            if instance.vm_state == states.ERROR:
                build.fail('The build failed on %s; the server is in ERROR '
                           '(see its fault).' % self.host)
            elif (instance.host is None and
                  instance.task_state == states.SCHEDULING):
                build.fail('The build failed on %s; the server was sent '
                           'to an alternate host.' % self.host)
            elif (instance.vm_state != states.ACTIVE or
                  instance.obj_what_changed()):
                build.fail('The server was deleted while it was built on '
                           '%s.' % self.host)

    def _do_build(self, context, instance, selection, request_spec,
                  host_list, limits, image):
        nodename = selection.nodename
        instance.host = self.host
        instance.node = nodename
        instance.launched_on = self.host
        instance.task_state = states.SPAWNING
        try:
            instance.save(expected_task_state=[states.SCHEDULING])
        except (exception.InstanceNotFound,
                exception.UnexpectedTaskStateError) as e:
            LOG.info('Not building %s: it was deleted meanwhile (%s)',
                     instance.uuid, e)
            # The scheduler's claim for it is ours to give back.
            self.rt.drop_instance(context, instance, nodename)
            return
        try:
            with self.rt.instance_claim(context, instance, nodename, limits):
                self.driver.spawn(context, instance, image)
        except Exception as error:
            LOG.warning('Build of %s failed on %s: %s', instance.uuid,
                        self.host, error)
            self.driver.destroy(context, instance)
            self._reschedule_or_fail(context, instance, request_spec,
                                     host_list, image, error)
            return
        instance.vm_state = states.ACTIVE
        instance.power_state = states.RUNNING
        instance.task_state = None
        instance.launched_at = timeutils.utcnow()
        try:
            instance.save(expected_task_state=[states.SPAWNING])
        except (exception.InstanceNotFound,
                exception.UnexpectedTaskStateError):
            LOG.info('%s was deleted while spawning; cleaning up',
                     instance.uuid)
            self.driver.destroy(context, instance)
            self.rt.drop_instance(context, instance, nodename)
            return
        LOG.info('Instance %s is ACTIVE on %s', instance.uuid, self.host)

    def _reschedule_or_fail(self, context, instance, request_spec,
                            host_list, image, error):
        if not host_list:
            self._abandon_build(context, instance)
            self._set_error(context, instance, exception.MaxRetriesExceeded(
                reason='no alternate host is left after the build failed '
                       'on %s ([scheduler] max_attempts = %d).' %
                       (self.host, CONF.scheduler.max_attempts)),
                details=str(getattr(error, 'message', error)))
            return
        build_task.record_fault(context, instance, error, host=self.host)
        tried = [self.host, instance.node or '']
        instance.host = None
        instance.node = None
        instance.task_state = states.SCHEDULING
        try:
            instance.save(expected_task_state=[states.SPAWNING])
        except (exception.InstanceNotFound,
                exception.UnexpectedTaskStateError):
            return  # deleted meanwhile; nothing to reschedule
        retry = request_spec.retry or objects.SchedulerRetries(
            num_attempts=0, hosts=[])
        retry.num_attempts += 1
        retry.hosts = retry.hosts + [tried]
        request_spec.retry = retry
        self.conductor_api.build_instances(context, [instance], request_spec,
                                           [host_list], image=image)

    def _abandon_build(self, context, instance):
        """A build that ends here in ERROR holds nothing here: no
        allocation, and no host that the audit would heal one for."""
        nodename = instance.node or self.driver.nodename
        self.driver.destroy(context, instance)
        self.rt.drop_instance(context, instance, nodename)
        instance.host = None
        instance.node = None

    def _set_error(self, context, instance, error, details=None):
        # The fault first: whoever sees ERROR must see why.
        try:
            build_task.record_fault(context, instance, error,
                                    host=self.host, details=details)
            instance.vm_state = states.ERROR
            instance.task_state = None
            instance.save()
        except exception.InstanceNotFound:
            pass

    # -- rebuild, stop, start ----------------------------------------------

    def rebuild_instance(self, context, instance, image, orig_image_ref,
                         preserve_ephemeral=False):
        """Destroy and re-create ``instance`` here from ``image``.

        Same host, same node, same flavor: the allocation in placement
        stays as it is. A stopped server is stopped again afterwards; a
        failed spawn leaves it in ERROR with a fault, still on this host
        and still holding its allocation, so it can be rebuilt again.
        """
        self._builds.submit(self._rebuild, context, instance, image,
                            orig_image_ref)

    def _rebuild(self, context, instance, image, orig_image_ref):
        with self._instance_lock(instance.uuid), instance_actions.event(
                context, instance.uuid, 'compute_rebuild_instance',
                host=self.host, action=instance_actions.REBUILD) as step:
            try:
                self._do_rebuild(context, instance, image, orig_image_ref)
            except Exception as error:
                LOG.exception('Rebuild of %s failed on %s', instance.uuid,
                              self.host)
                step.fail('The rebuild failed on %s: %s' % (
                    self.host, instance_actions.error_details(error)), error)
                self._set_error(context, instance, error)

    def _do_rebuild(self, context, instance, image, orig_image_ref):
        was_stopped = instance.power_state == states.SHUTDOWN
        LOG.info('Rebuilding %s on %s from image %s (was %s)',
                 instance.uuid, self.host, instance.image_ref or 'a volume',
                 orig_image_ref or 'a volume')
        self.driver.destroy(context, instance)
        instance.power_state = states.NOSTATE
        instance.task_state = states.REBUILD_SPAWNING
        try:
            instance.save(expected_task_state=[states.REBUILDING])
        except (exception.InstanceNotFound,
                exception.UnexpectedTaskStateError) as e:
            LOG.info('Not rebuilding %s: %s', instance.uuid, e)
            return
        self.driver.spawn(context, instance, image)
        if was_stopped:
            self.driver.power_off(instance)
        instance.vm_state = states.STOPPED if was_stopped else states.ACTIVE
        instance.power_state = (states.SHUTDOWN if was_stopped
                                else states.RUNNING)
        instance.task_state = None
        instance.launched_at = timeutils.utcnow()
        try:
            instance.save(expected_task_state=[states.REBUILD_SPAWNING])
        except (exception.InstanceNotFound,
                exception.UnexpectedTaskStateError) as e:
            LOG.info('%s changed while it was rebuilt (%s)', instance.uuid, e)
            return
        LOG.info('Instance %s rebuilt on %s', instance.uuid, self.host)

    def stop_instance(self, context, instance):
        self._power(context, instance, instance_actions.STOP,
                    states.POWERING_OFF, self.driver.power_off,
                    states.STOPPED, states.SHUTDOWN)

    def start_instance(self, context, instance):
        self._power(context, instance, instance_actions.START,
                    states.POWERING_ON, self.driver.power_on, states.ACTIVE,
                    states.RUNNING)

    def _power(self, context, instance, action, task_state, operation,
               vm_state, power_state):
        with self._instance_lock(instance.uuid), instance_actions.event(
                context, instance.uuid, 'compute_%s_instance' % action,
                host=self.host, action=action) as step:
            try:
                operation(instance)
            except Exception as error:
                LOG.exception('%s of %s failed', task_state, instance.uuid)
                step.fail(instance_actions.error_details(error), error)
                build_task.record_fault(context, instance, error,
                                        host=self.host)
                instance.task_state = None
                instance.save()
                return
            instance.vm_state = vm_state
            instance.power_state = power_state
            instance.task_state = None
            try:
                instance.save(expected_task_state=[task_state])
            except (exception.InstanceNotFound,
                    exception.UnexpectedTaskStateError) as e:
                LOG.info('%s of %s overtaken: %s', task_state,
                         instance.uuid, e)

    # -- delete --------------------------------------------------------------

    def terminate_instance(self, context, instance):
        with self._instance_lock(instance.uuid), instance_actions.event(
                context, instance.uuid, 'compute_terminate_instance',
                host=self.host, action=instance_actions.DELETE):
            self.driver.destroy(context, instance)
            self.rt.drop_instance(context, instance, instance.node)
            try:
                instance.destroy()
            except exception.InstanceNotFound:
                pass
            LOG.info('Instance %s deleted on %s', instance.uuid, self.host)
        self._forget_lock(instance.uuid)
