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
    target = messaging.Target(version='1.0')

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
        with self._instance_lock(instance.uuid):
            try:
                self._do_build(context, instance, selection, request_spec,
                               host_list, limits, image)
            except Exception:
                LOG.exception('Unexpected error building %s', instance.uuid)
                self._set_error(context, instance, exception.
                                BuildAbortException(
                                    instance_uuid=instance.uuid,
                                    reason='unexpected error on %s' %
                                    self.host))

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

    # -- delete --------------------------------------------------------------

    def terminate_instance(self, context, instance):
        with self._instance_lock(instance.uuid):
            self.driver.destroy(context, instance)
            self.rt.drop_instance(context, instance, instance.node)
            try:
                instance.destroy()
            except exception.InstanceNotFound:
                pass
            LOG.info('Instance %s deleted on %s', instance.uuid, self.host)
        self._forget_lock(instance.uuid)
