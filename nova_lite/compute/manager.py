"""Server side of the compute RPC API: one per hypervisor host.

The compute holds no database credentials; every object it reads or saves
goes through the conductor (object indirection, set up in
``nova_lite.cmd.compute``).
"""

import collections
import contextlib
import datetime
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
from nova_lite.network import agent as network_agent
from nova_lite.network import api as network_api
from nova_lite import objects
from nova_lite import service
from nova_lite.virt import fake

CONF = nova_conf.CONF
LOG = logging.getLogger(__name__)


class ComputeManager(manager.Manager):
    target = messaging.Target(version='1.4')

    def __init__(self, host=None, driver=None):
        self.host = host or CONF.host
        self.driver = driver or fake.FakeDriver(self.host)
        self.rt = resource_tracker.ResourceTracker(self.host, self.driver)
        self.conductor_api = conductor_rpcapi.ConductorAPI()
        self.ports = network_api.PortClient()
        from nova_lite.compute import rpcapi as compute_rpcapi
        self.compute_rpcapi = compute_rpcapi.ComputeAPI()
        self.rt.port_allocations_of = self._port_allocations_of
        self.rt.idle_instance = self._idle_instance
        from nova_lite import cmd
        if cmd.concurrency_backend() == 'eventlet':
            self._builds = futurist.GreenThreadPoolExecutor(
                CONF.compute.max_concurrent_builds)
        else:
            self._builds = futurist.ThreadPoolExecutor(
                CONF.compute.max_concurrent_builds)
        self._instance_locks = {}
        self._locks_guard = threading.Lock()
        # Instances this process has work for (queued or running): the
        # look for interrupted tasks leaves them alone.
        self._in_flight = collections.Counter()
        # Ids of migrations an admin asked to abort while they run here.
        self._aborted_migrations = set()

    # -- lifecycle -----------------------------------------------------------

    def init_host(self, context):
        self._wait_for_conductor(context)
        self._destroy_evacuated_instances(context)
        self._recover_interrupted_live_migrations(context)
        self._resolve_interrupted_tasks(context, restarted=True)
        self.update_available_resource()

    def _recover_interrupted_live_migrations(self, context, instances=None,
                                             stale=False):
        """A live migration from here that this compute's restart cut off
        is rolled back: the server stays here, ACTIVE, with its allocation
        and bindings; the migration is in error. Nothing stays
        ``migrating`` forever. With ``stale`` (``instances`` have not moved
        for [compute] interrupted_task_timeout) one that never reached
        this compute is rolled back too: its conductor died, or its cast
        was lost."""
        if instances is None:
            try:
                instances = objects.InstanceList.get_by_host(context,
                                                             self.host)
            except Exception:
                LOG.exception('Cannot read the instances of %s', self.host)
                return
        for instance in instances:
            if instance.task_state != states.MIGRATING:
                continue
            migrations = [m for m in objects.MigrationList.get_by_instance(
                context, instance.uuid)
                if m.migration_type == 'live-migration' and
                m.source_compute == self.host and m.status in (
                    'accepted', 'queued', 'preparing', 'running')]
            if not migrations:
                continue
            migration = migrations[-1]
            if migration.status in ('accepted', 'queued') and not stale:
                # Still the conductor's, or its cast to this compute is on
                # its way: the migration starts (or is rolled back) when
                # it arrives.
                continue
            LOG.warning('The live migration %s of %s was interrupted (%s); '
                        'rolling it back', migration.uuid, instance.uuid,
                        'no progress for %ss' %
                        CONF.compute.interrupted_task_timeout if stale else
                        'a restart of %s' % self.host)
            try:
                bound = [port['id'] for port in
                         self.ports.ports_of(instance.uuid)
                         if migration.dest_compute in {
                             b['host'] for b in self.ports.bindings(
                                 port['id'])}]
            except exception.NovaLiteException as e:
                LOG.error('Ports of %s not read: %s', instance.uuid, e)
                bound = []
            migrate_data = objects.LiveMigrateData(
                source_host=self.host, source_node=migration.source_node,
                dest_host=migration.dest_compute,
                dest_node=migration.dest_node, bound_ports=bound)
            self._rollback_live_migration(context, instance, migration,
                                          migrate_data, 'error')

    # Task states only this compute sets: a server found in one when the
    # compute starts was being worked on by the process that died.
    _STARTED_HERE = (states.NETWORKING, states.BLOCK_DEVICE_MAPPING,
                     states.SPAWNING, states.REBUILD_SPAWNING)

    @service.periodic_task(lambda: CONF.compute.recovery_interval)
    def resolve_interrupted_tasks(self):
        self._resolve_interrupted_tasks(nova_context.get_admin_context())

    def _resolve_interrupted_tasks(self, context, restarted=False):
        """Finish or undo the tasks of servers on this host that nothing
        here is working on, so none stays in a task state forever: at
        start (``restarted``), those the previous process was doing when
        it died; and, every [compute] recovery_interval, any task that has
        not moved for [compute] interrupted_task_timeout seconds (its
        message was lost: a conductor died, or this compute died after
        taking the message off its queue). A live migration from here is
        left to _recover_interrupted_live_migrations."""
        timeout = CONF.compute.interrupted_task_timeout
        cutoff = (timeutils.utcnow().replace(tzinfo=None) -
                  datetime.timedelta(seconds=timeout)) if timeout else None
        try:
            instances = objects.InstanceList.get_by_host(context, self.host)
        except Exception:
            LOG.exception('Cannot read the instances of %s', self.host)
            return
        for instance in instances:
            if instance.task_state is None and \
                    instance.vm_state != states.BUILDING:
                continue
            if self._is_worked_on(instance.uuid):
                continue
            interrupted = (restarted and
                           instance.task_state in self._STARTED_HERE)
            stale = (cutoff is not None and instance.updated_at is not None
                     and instance.updated_at.replace(tzinfo=None) < cutoff)
            if not (interrupted or stale):
                continue
            if instance.task_state == states.MIGRATING:
                if stale:
                    self._recover_interrupted_live_migrations(
                        context, [instance], stale=True)
                continue
            with self._working_on(instance.uuid):
                try:
                    self._resolve_interrupted(context, instance, restarted)
                except Exception:
                    LOG.exception('Could not resolve the interrupted task '
                                  '%s of %s', instance.task_state,
                                  instance.uuid)

    def _resolve_interrupted(self, context, instance, restarted):
        task = instance.task_state
        why = ('%s restarted during it' % self.host if restarted and
               task in self._STARTED_HERE else
               'no progress for %ss' % CONF.compute.interrupted_task_timeout)
        LOG.warning('Instance %s: its %s was interrupted (%s); resolving '
                    'it', instance.uuid, task or instance.vm_state, why)
        if task == states.DELETING:
            self.terminate_instance(context, instance)
        elif task in (states.POWERING_OFF, states.POWERING_ON):
            # Done again: powering off or on twice is harmless.
            if task == states.POWERING_OFF:
                self.stop_instance(context, instance)
            else:
                self.start_instance(context, instance)
        elif task == states.SHELVING_OFFLOADING:
            self._shelve_offload(context, instance)
        elif task == states.SHELVING:
            # Not shelved: it stays as it was, running.
            instance.task_state = None
            instance.save(expected_task_state=[task])
        elif task == states.UNSHELVING:
            # Shelved here and not offloaded: power it on again.
            self._unshelve(context, instance, None, None, None)
        elif instance.vm_state == states.SHELVED_OFFLOADED:
            # An unshelve that had taken the server over here.
            self.driver.destroy(context, instance)
            self.rt.drop_instance(context, instance, instance.node)
            self._unshelve_failed(context, instance, exception.
                                  InstanceTaskInterrupted(
                                      instance_uuid=instance.uuid,
                                      task=task, reason=why))
        elif instance.vm_state == states.BUILDING:
            self._fail_interrupted_build(context, instance, why)
        elif task in (states.REBUILDING, states.REBUILD_SPAWNING):
            evacuation = self._evacuation_in_progress(context, instance)
            if evacuation is None:
                # A rebuild here: it stays here with its allocation, in
                # ERROR; rebuild it again or delete it.
                self._fail_in_place(context, instance, task, why)
            elif (task == states.REBUILD_SPAWNING and
                  evacuation.dest_compute == self.host):
                self._evacuation_cut_off(context, instance, evacuation, why)
            # else this host is the evacuation's source: the destination
            # and the conductor own the server now.
        else:
            self._fail_in_place(context, instance, task, why)

    def _fail_interrupted_build(self, context, instance, why):
        """A build that died here ends in ERROR holding nothing, as a failed
        build does; only if its state is still the one we read."""
        nodename = instance.node or self.driver.nodename
        error = exception.BuildAbortException(
            instance_uuid=instance.uuid,
            reason='the build on %s was interrupted (%s). Delete the '
                   'server, or rebuild it.' % (self.host, why))
        if not build_task.fail_interrupted_build(context, instance, error,
                                                 host=self.host):
            return
        with instance_actions.event(
                context, instance.uuid, 'compute_recover_interrupted_build',
                host=self.host, action=instance_actions.CREATE) as step:
            step.fail(error.format_message())
        self.driver.destroy(context, instance)
        self.rt.drop_instance(context, instance, nodename)
        network_api.release_ports(self.ports, instance)
        if instance.obj_what_changed():
            instance.save()

    def _fail_in_place(self, context, instance, task, why):
        instance.vm_state = states.ERROR
        instance.task_state = None
        try:
            instance.save(expected_task_state=[task])
        except (exception.InstanceNotFound,
                exception.UnexpectedTaskStateError):
            return
        build_task.record_fault(
            context, instance, exception.InstanceTaskInterrupted(
                instance_uuid=instance.uuid, task=task, reason=why),
            host=self.host)

    def _evacuation_in_progress(self, context, instance):
        """The evacuation of ``instance`` that is not over, or None."""
        for migration in objects.MigrationList.get_by_instance(
                context, instance.uuid):
            if migration.migration_type == 'evacuation' and \
                    migration.status in ('accepted', 'pre-migrating'):
                return migration
        return None

    def _evacuation_cut_off(self, context, instance, migration, why):
        """An evacuation to this host that a restart here cut off while it
        spawned: undone like a failed one (the server back on its source,
        in ERROR, holding its source allocation, to be evacuated again),
        its ports pointed back at the source with the source providers."""
        error = exception.InstanceTaskInterrupted(
            instance_uuid=instance.uuid, task='evacuation', reason=why)
        self.driver.destroy(context, instance)
        self.rt.drop_instance(context, instance, instance.node or
                              self.driver.nodename)
        self._evacuation_failed(context, instance, migration, [], error)
        try:
            network_api.point_back(
                self.ports, instance, migration.source_compute,
                self.rt.reportclient.get_allocations(instance.uuid).get(
                    'allocations') or {})
        except exception.NovaLiteException as e:
            LOG.error('Ports of %s not pointed back at %s: %s',
                      instance.uuid, migration.source_compute, e)

    def _destroy_evacuated_instances(self, context):
        """Clean up after the evacuations that happened while this host was
        down: destroy what is left of each evacuated server here and delete
        what its migration's consumer holds on this host's providers. The
        port bindings are not touched: they point at the destination."""
        try:
            migrations = objects.MigrationList.get_evacuated_from(context,
                                                                  self.host)
        except Exception:
            LOG.exception('Cannot read the evacuations from %s; their '
                          'remains stay until the next start', self.host)
            return
        for migration in migrations:
            try:
                instance = objects.Instance.get_by_uuid(
                    context.elevated(read_deleted='yes'),
                    migration.instance_uuid)
            except exception.InstanceNotFound:
                instance = None
            if instance is not None and not instance.deleted and \
                    instance.host == self.host:
                # The evacuation has not moved it (yet, or it failed and
                # the server stayed here): it is still ours.
                continue
            LOG.info('Instance %s was evacuated from %s to %s while this '
                     'host was down; destroying its remains here',
                     migration.instance_uuid, self.host,
                     migration.dest_compute)
            if instance is not None:
                self.driver.destroy(context, instance)
            try:
                self.rt.reportclient.delete_allocations(migration.uuid)
            except Exception as e:
                LOG.warning('Source allocation of evacuated %s not deleted '
                            '(retried at the next start): %s',
                            migration.instance_uuid, e)
                continue
            if migration.status == 'done' or instance is None or \
                    instance.deleted:
                migration.status = 'completed'
                migration.save()

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

    def _submit(self, work, context, instance, *args):
        """Run ``work(context, instance, *args)`` on the build pool, with
        the request's context as the thread's current one, so its log
        lines carry the request id like the RPC thread's do. From now
        until it ends the instance counts as being worked on here."""
        self._begin_work(instance.uuid)

        def run():
            try:
                context.update_store()
                return work(context, instance, *args)
            finally:
                self._end_work(instance.uuid)
        try:
            return self._builds.submit(run)
        except Exception:
            self._end_work(instance.uuid)
            raise

    def _begin_work(self, uuid):
        with self._locks_guard:
            self._in_flight[uuid] += 1

    def _end_work(self, uuid):
        with self._locks_guard:
            self._in_flight[uuid] -= 1
            if self._in_flight[uuid] <= 0:
                del self._in_flight[uuid]

    @contextlib.contextmanager
    def _working_on(self, uuid):
        self._begin_work(uuid)
        try:
            yield
        finally:
            self._end_work(uuid)

    def _is_worked_on(self, uuid):
        with self._locks_guard:
            return self._in_flight[uuid] > 0

    def cleanup_host(self):
        self._builds.shutdown(wait=True)

    def _instance_lock(self, uuid):
        with self._locks_guard:
            return self._instance_locks.setdefault(uuid, threading.Lock())

    @contextlib.contextmanager
    def _idle_instance(self, uuid):
        """Hold ``uuid``'s lock if nothing of this process works on the
        instance; entered as whether it could."""
        lock = self._instance_lock(uuid)
        if not lock.acquire(blocking=False):
            yield False
            return
        try:
            yield not self._is_worked_on(uuid)
        finally:
            lock.release()

    def _forget_lock(self, uuid):
        with self._locks_guard:
            self._instance_locks.pop(uuid, None)

    # -- periodic tasks ------------------------------------------------------

    @service.periodic_task(lambda: CONF.compute.update_resources_interval)
    def update_available_resource(self):
        context = nova_context.get_admin_context()
        for nodename in self.driver.get_available_nodes():
            self.rt.update_available_resource(context, nodename)
            # As this host's network agent: its physical networks and
            # bandwidth, which the port service offers to placement under
            # this node's provider.
            network_agent.report_state(self.host, nodename)

    def _port_allocations_of(self, instance):
        """The ports' part of ``instance``'s allocation, read back from
        the port service (their resource requests and the providers their
        bindings name)."""
        allocations = {}
        for port in self.ports.ports_of(instance.uuid):
            group = objects.RequestGroup.from_port(port)
            provider = (port.get('binding:profile') or {}).get('allocation')
            if group is None or provider is None:
                continue
            resources = allocations.setdefault(provider, {'resources': {}})[
                'resources']
            for resource_class, amount in group.resources.items():
                resources[resource_class] = resources.get(
                    resource_class, 0) + amount
        return allocations

    # -- build ---------------------------------------------------------------

    def build_and_run_instance(self, context, instance, selection,
                               request_spec, host_list, limits=None,
                               image=None):
        self._submit(self._build_and_run, context, instance,
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
            groups = request_spec.requested_resources
            provider_of_port = network_api.provider_by_port(
                groups, (selection.allocation or {}).get('mappings'))
            with self.rt.instance_claim(
                    context, instance, nodename, limits,
                    network_api.port_allocations(groups, provider_of_port)):
                network_api.bind_for_build(
                    self.ports, instance, self.host,
                    request_spec.requested_networks, provider_of_port)
                try:
                    self.driver.spawn(context, instance, image)
                except Exception:
                    network_api.release_ports(self.ports, instance)
                    raise
        except Exception as error:
            LOG.warning('Build of %s failed on %s: %s', instance.uuid,
                        self.host, error)
            self.driver.destroy(context, instance)
            # What the scheduler claimed here goes back (the claim's undo
            # did already, unless the failure came before it).
            self.rt.drop_instance(context, instance, nodename)
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
            network_api.release_ports(self.ports, instance)
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
                         preserve_ephemeral=False, recreate=False,
                         migration=None, selection=None, request_spec=None):
        """Destroy and re-create ``instance`` here from ``image``.

        Same host, same node, same flavor: the allocation in placement
        stays as it is. A stopped server is stopped again afterwards; a
        failed spawn leaves it in ERROR with a fault, still on this host
        and still holding its allocation, so it can be rebuilt again.

        With ``recreate`` (RPC 1.2) the server comes here from a host that
        is down: an evacuation (see _evacuate).
        """
        if recreate:
            self._submit(self._evacuate, context, instance, image,
                                migration, selection, request_spec)
            return
        self._submit(self._rebuild, context, instance, image,
                            orig_image_ref)

    def _evacuate(self, context, instance, image, migration, selection,
                  request_spec):
        """Claim here, point the ports at this host with this host's
        providers as their ``allocation``, and build the server again; on
        failure everything goes back to the source (bindings, allocation)
        and the server is left there in ERROR with a fault."""
        with self._instance_lock(instance.uuid), instance_actions.event(
                context, instance.uuid, 'compute_rebuild_instance',
                host=self.host, action=instance_actions.EVACUATE) as step:
            was_stopped = instance.vm_state == states.STOPPED
            groups = (request_spec.requested_resources
                      if request_spec is not None else [])
            provider_of_port = {group.requester_id: group.provider_uuids[0]
                                for group in groups if group.provider_uuids}
            ports = []
            try:
                ports = self.ports.ports_of(instance.uuid)
                if len(provider_of_port) != len(groups):
                    raise exception.PortUpdateFailed(
                        port_id=','.join(g.requester_id for g in groups),
                        reason='the request spec names no provider for '
                               'every port resource request')
                self._spawn_moved_here(
                    context, instance, image, selection, groups,
                    provider_of_port, ports, states.REBUILDING,
                    states.REBUILD_SPAWNING)
            except Exception as error:
                LOG.warning('Evacuation of %s to %s failed: %s',
                            instance.uuid, self.host, error)
                step.fail('The evacuation to %s failed: %s' % (
                    self.host, instance_actions.error_details(error)), error)
                self._evacuation_failed(context, instance, migration, ports,
                                        error)
                return
            if was_stopped:
                self.driver.power_off(instance)
            instance.vm_state = states.STOPPED if was_stopped else \
                states.ACTIVE
            instance.power_state = (states.SHUTDOWN if was_stopped
                                    else states.RUNNING)
            instance.task_state = None
            instance.launched_at = timeutils.utcnow()
            try:
                instance.save(expected_task_state=[states.REBUILD_SPAWNING])
            except exception.InstanceNotFound:
                self._evacuation_abandoned(context, instance, migration)
                return
            except exception.UnexpectedTaskStateError as e:
                LOG.info('%s changed while it was evacuated (%s)',
                         instance.uuid, e)
            migration.status = 'done'
            migration.save()
            LOG.info('Instance %s evacuated from %s to %s', instance.uuid,
                     migration.source_compute, self.host)

    def _spawn_moved_here(self, context, instance, image, selection, groups,
                          provider_of_port, ports, from_task, to_task):
        """What an evacuation and an unshelve do on the destination: claim
        (the flavor and the ports' groups on the providers the scheduler
        chose), point each port's binding and ``allocation`` here, take
        the instance over and spawn it. Any failure undoes the claim and
        the guest and is raised for the caller's own undo."""
        with self.rt.instance_claim(
                context, instance, selection.nodename, selection.limits,
                network_api.port_allocations(groups, provider_of_port)):
            try:
                network_api.move_bindings(self.ports, instance, self.host,
                                          provider_of_port, ports)
                instance.host = self.host
                instance.node = selection.nodename
                instance.task_state = to_task
                instance.save(expected_task_state=[from_task])
                self.driver.spawn(context, instance, image)
            except Exception:
                self.driver.destroy(context, instance)
                raise

    def _evacuation_abandoned(self, context, instance, migration):
        """The server was deleted while it was evacuated here (its source
        being down, the API deleted it locally): nothing of it may stay --
        no guest here, no allocation on either side, no port bound."""
        LOG.info('Instance %s was deleted during its evacuation to %s; '
                 'cleaning up', instance.uuid, self.host)
        self.driver.destroy(context, instance)
        self.rt.drop_instance(context, instance, instance.node or
                              self.driver.nodename)
        try:
            self.rt.reportclient.delete_allocations(migration.uuid)
        except Exception as e:
            LOG.warning('Source allocation of deleted %s not deleted now '
                        '(the source compute does when it is back): %s',
                        instance.uuid, e)
        network_api.release_ports(self.ports, instance)
        migration.status = 'failed'
        migration.save()

    def _evacuation_failed(self, context, instance, migration, ports,
                           error):
        """Undo an evacuation that failed here: the server's allocation on
        this host is gone (the claim's undo); its source allocation goes
        back from the migration to the server, its ports back to the
        source host with their old binding profile; the server stays on
        its source in ERROR, to be evacuated again."""
        try:
            objects.Instance.get_by_uuid(context, instance.uuid)
        except exception.InstanceNotFound:
            self._evacuation_abandoned(context, instance, migration)
            return
        try:
            self.rt.reportclient.move_allocations(migration.uuid,
                                                  instance.uuid)
        except Exception as e:
            LOG.error('Source allocation of %s not given back by migration '
                      '%s: %s', instance.uuid, migration.uuid, e)
        for port in ports:
            try:
                self.ports.update_port(
                    port['id'], **{
                        'binding:host_id': port.get('binding:host_id'),
                        'binding:profile': port.get('binding:profile') or {}})
            except exception.NovaLiteException as e:
                LOG.error('Binding of port %s not put back on %s: %s',
                          port['id'], port.get('binding:host_id'), e)
        migration.status = 'failed'
        migration.save()
        instance.host = migration.source_compute
        instance.node = migration.source_node
        try:
            build_task.record_fault(context, instance, error, host=self.host)
            instance.vm_state = states.ERROR
            instance.task_state = None
            instance.save()
        except exception.InstanceNotFound:
            pass

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
        with self._working_on(instance.uuid), \
                self._instance_lock(instance.uuid), instance_actions.event(
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

    # -- live migration ------------------------------------------------------

    @messaging.expected_exceptions(exception.MigrationPreCheckError)
    def check_can_live_migrate_destination(self, context, instance,
                                           migrate_data):
        """As the destination: can ``instance`` come here live? The
        scheduler has claimed the room; what is left is the hypervisor's
        say."""
        if CONF.compute.fake_refuse_live_migration:
            raise exception.MigrationPreCheckError(
                reason='%s refuses live migrations ([compute] '
                       'fake_refuse_live_migration)' % self.host)
        if instance.uuid in self.driver.list_instance_uuids():
            raise exception.MigrationPreCheckError(
                reason='%s already runs %s' % (self.host, instance.uuid))
        return migrate_data

    @messaging.expected_exceptions(exception.MigrationPreCheckError)
    def check_can_live_migrate_source(self, context, instance,
                                      migrate_data):
        if instance.host != self.host:
            raise exception.MigrationPreCheckError(
                reason='%s is not on %s' % (instance.uuid, self.host))
        return migrate_data

    def pre_live_migration(self, context, instance, migrate_data):
        """As the destination, just before the transfer: nothing to plug
        for a fake guest; the inactive bindings are already here."""
        LOG.info('Ready to receive %s from %s', instance.uuid,
                 migrate_data.source_host)
        return migrate_data

    def live_migration(self, context, instance, migration, migrate_data):
        self._submit(self._live_migrate, context, instance,
                            migration, migrate_data)

    def live_migration_abort(self, context, instance, migration_id):
        LOG.info('Aborting the live migration %s of %s', migration_id,
                 instance.uuid)
        with self._locks_guard:
            self._aborted_migrations.add(migration_id)

    def _live_migrate(self, context, instance, migration, migrate_data):
        with self._instance_lock(instance.uuid), instance_actions.event(
                context, instance.uuid, 'compute_live_migration',
                host=self.host,
                action=instance_actions.LIVE_MIGRATION) as step:
            def aborted():
                with self._locks_guard:
                    if migration.id in self._aborted_migrations:
                        return True
                return objects.Migration.get_by_uuid(
                    context, migration.uuid).status == 'cancelled'

            def progress(total, processed, remaining):
                migration.memory_total = total
                migration.memory_processed = processed
                migration.memory_remaining = remaining
                migration.save()

            dest = migrate_data.dest_host
            if self._deleted_meanwhile(context, instance):
                # The delete ran first (it holds the same lock) and gave
                # back what the server held then; the destination's claim,
                # written after it, is given back here.
                LOG.info('%s was deleted before its live migration to %s '
                         'started; giving back its claim there',
                         instance.uuid, dest)
                self._drop_migration_of_deleted(context, instance,
                                                migration, migrate_data)
                return
            try:
                migration.status = 'preparing'
                try:
                    migration.save(expected_status=['queued'])
                except Exception:
                    current = objects.Migration.get_by_uuid(
                        context, migration.uuid).status
                    if current != 'cancelled':
                        # Not ours to run or undo any more.
                        LOG.warning('Live migration %s of %s is %s; not '
                                    'starting it', migration.uuid,
                                    instance.uuid, current)
                        return
                    raise exception.LiveMigrationAborted(
                        instance_uuid=instance.uuid)
                migrate_data = self.compute_rpcapi.pre_live_migration(
                    context, instance, dest, migrate_data)
                migration.status = 'running'
                migration.save()
                self.driver.live_migration(instance, dest, progress,
                                           aborted)
            except Exception as error:
                cancelled = isinstance(error,
                                       exception.LiveMigrationAborted)
                LOG.warning('Live migration of %s to %s %s: %s',
                            instance.uuid, dest,
                            'aborted' if cancelled else 'failed', error)
                step.fail('The live migration to %s %s: %s' % (
                    dest, 'was aborted' if cancelled else 'failed',
                    instance_actions.error_details(error)), error)
                self._rollback_live_migration(
                    context, instance, migration, migrate_data,
                    'cancelled' if cancelled else 'error')
                return
            finally:
                with self._locks_guard:
                    self._aborted_migrations.discard(migration.id)
            self._post_live_migration(context, instance, migration,
                                      migrate_data)

    def _post_live_migration(self, context, instance, migration,
                             migrate_data):
        """The guest runs on the destination: its bindings there become
        ACTIVE and the source ones go, the source guest and the migration's
        source allocation go, and the destination takes the server over."""
        dest = migrate_data.dest_host
        for port_id in migrate_data.bound_ports:
            try:
                self.ports.activate_binding(port_id, dest)
                self.ports.delete_binding(port_id, self.host)
            except exception.NovaLiteException as e:
                LOG.error('Binding of port %s not moved to %s: %s', port_id,
                          dest, e)
        self.driver.destroy(context, instance)
        self.rt.forget_instance(context, instance, migration.source_node)
        try:
            self.rt.reportclient.delete_allocations(migration.uuid)
        except Exception as e:
            LOG.warning('Source allocation of %s (migration %s) not deleted '
                        'now; the audit of %s will: %s', instance.uuid,
                        migration.uuid, self.host, e)
        try:
            self.compute_rpcapi.post_live_migration_at_destination(
                context, instance, dest, migrate_data)
        except Exception as error:
            # The guest, its bindings and its allocation are on the
            # destination now: the record follows them there, in ERROR
            # with the reason, rather than stay "migrating" here.
            LOG.exception('%s did not finish taking %s over', dest,
                          instance.uuid)
            instance.host = dest
            instance.node = migrate_data.dest_node
            try:
                build_task.record_fault(
                    context, instance, exception.ServiceUnavailable(
                        service='nova-lite-compute on %s' % dest,
                        reason='it did not finish taking the live migrated '
                               'server over (%s)' %
                               instance_actions.error_details(error)),
                    host=dest)
                instance.vm_state = states.ERROR
                instance.task_state = None
                instance.save()
            except exception.InstanceNotFound:
                pass
            migration.status = 'error'
            migration.save()
            return
        migration.status = 'completed'
        migration.save()
        LOG.info('Instance %s live migrated from %s to %s', instance.uuid,
                 self.host, dest)

    def post_live_migration_at_destination(self, context, instance,
                                           migrate_data):
        self.driver.accept_migrated(instance)
        instance.host = self.host
        instance.node = migrate_data.dest_node or self.driver.nodename
        instance.power_state = states.RUNNING
        instance.task_state = None
        instance.save(expected_task_state=[states.MIGRATING])
        self.rt.track_instance(context, instance, instance.node)

    def _rollback_live_migration(self, context, instance, migration,
                                 migrate_data, status):
        """The server stays here, ACTIVE: the destination's inactive
        bindings and its allocation go, the source allocation comes back
        from the migration to the server; the source bindings were never
        touched and still carry the right ``allocation``."""
        self._undo_on_destination(context, instance, migrate_data)
        try:
            # The move replaces what the server holds (the destination's
            # claim) with the source side; if the migration holds nothing
            # any more, the server keeps what it has.
            self.rt.reportclient.move_allocations(migration.uuid,
                                                  instance.uuid)
        except Exception as e:
            LOG.error('Allocations of %s not put back on %s: %s',
                      instance.uuid, self.host, e)
        instance.task_state = None
        try:
            instance.save(expected_task_state=[states.MIGRATING])
        except (exception.InstanceNotFound,
                exception.UnexpectedTaskStateError) as e:
            LOG.info('%s changed during its live migration: %s',
                     instance.uuid, e)
        migration.status = status
        migration.save()

    def _undo_on_destination(self, context, instance, migrate_data):
        """The destination drops what it prepared (a guest, if any) and
        the ports' inactive bindings there go."""
        dest = migrate_data.dest_host
        try:
            self.compute_rpcapi.rollback_live_migration_at_destination(
                context, instance, dest, migrate_data)
        except Exception as e:
            LOG.warning('%s not told to drop %s: %s', dest, instance.uuid,
                        e)
        for port_id in migrate_data.bound_ports:
            try:
                self.ports.delete_binding(port_id, dest)
            except exception.NovaLiteException as e:
                LOG.error('Inactive binding of port %s on %s not deleted: '
                          '%s', port_id, dest, e)

    @staticmethod
    def _deleted_meanwhile(context, instance):
        try:
            current = objects.Instance.get_by_uuid(context, instance.uuid)
        except exception.InstanceNotFound:
            return True
        return (current.vm_state == states.DELETED or
                current.task_state == states.DELETING)

    def _drop_migration_of_deleted(self, context, instance, migration,
                                   migrate_data):
        """A live migration whose server was deleted before it started:
        nothing may stay held for it, on either side."""
        dest = migrate_data.dest_host
        self._undo_on_destination(context, instance, migrate_data)
        for consumer in (instance.uuid, migration.uuid):
            try:
                self.rt.reportclient.delete_allocations(consumer)
            except Exception as e:
                LOG.warning('Allocations of %s not given back now; the '
                            'audit of %s will: %s', consumer, dest, e)
        migration.status = 'cancelled'
        try:
            migration.save()
        except exception.NovaLiteException as e:
            LOG.info('Migration %s of deleted %s not updated: %s',
                     migration.uuid, instance.uuid, e)

    def rollback_live_migration_at_destination(self, context, instance,
                                               migrate_data):
        if instance.host != self.host:
            self.driver.destroy(context, instance)

    # -- shelve, offload, unshelve -------------------------------------------

    def shelve_instance(self, context, instance, image_id):
        self._submit(self._shelve, context, instance, image_id)

    def _shelve(self, context, instance, image_id):
        with self._instance_lock(instance.uuid), instance_actions.event(
                context, instance.uuid, 'compute_shelve_instance',
                host=self.host, action=instance_actions.SHELVE) as step:
            try:
                self.driver.power_off(instance)
            except Exception as error:
                LOG.exception('Shelve of %s failed', instance.uuid)
                step.fail(instance_actions.error_details(error), error)
                build_task.record_fault(context, instance, error,
                                        host=self.host)
                instance.task_state = None
                instance.save()
                return
            # The snapshot: an opaque image reference the server is spawned
            # from again when it is unshelved.
            instance.system_metadata.update({
                'shelved_image_id': image_id,
                'shelved_at': timeutils.utcnow().isoformat(),
                'shelved_host': self.host})
            instance.vm_state = states.SHELVED
            instance.power_state = states.SHUTDOWN
            offload = CONF.compute.shelved_offload_time == 0
            instance.task_state = (states.SHELVING_OFFLOADING if offload
                                   else None)
            try:
                instance.save(expected_task_state=[states.SHELVING])
            except (exception.InstanceNotFound,
                    exception.UnexpectedTaskStateError) as e:
                LOG.info('Shelve of %s overtaken: %s', instance.uuid, e)
                return
            LOG.info('Instance %s shelved on %s', instance.uuid, self.host)
            if offload:
                self._offload(context, instance)

    def shelve_offload_instance(self, context, instance):
        self._submit(self._shelve_offload, context, instance)

    def _shelve_offload(self, context, instance):
        with self._instance_lock(instance.uuid), instance_actions.event(
                context, instance.uuid, 'compute_shelve_offload_instance',
                host=self.host, action=instance_actions.SHELVE_OFFLOAD):
            self._offload(context, instance)

    def _offload(self, context, instance):
        """Free the host: no guest, no allocation, ports bound to no host
        (they stay the server's: device_id is kept)."""
        self.driver.destroy(context, instance)
        self.rt.drop_instance(context, instance, instance.node)
        try:
            for port in self.ports.ports_of(instance.uuid):
                network_api.unbind_from_host(self.ports, port)
        except exception.NovaLiteException as e:
            LOG.warning('Ports of offloaded %s not unbound: %s',
                        instance.uuid, e)
        instance.host = None
        instance.node = None
        instance.vm_state = states.SHELVED_OFFLOADED
        instance.task_state = None
        try:
            instance.save(expected_task_state=[states.SHELVING_OFFLOADING])
        except (exception.InstanceNotFound,
                exception.UnexpectedTaskStateError) as e:
            LOG.info('Offload of %s overtaken: %s', instance.uuid, e)
            return
        self._forget_lock(instance.uuid)
        LOG.info('Instance %s offloaded from %s', instance.uuid, self.host)

    @service.periodic_task(lambda: CONF.compute.update_resources_interval)
    def offload_shelved_instances(self):
        """Offload the servers shelved here longer than
        [compute] shelved_offload_time."""
        wait = CONF.compute.shelved_offload_time
        if wait <= 0:
            return
        context = nova_context.get_admin_context()
        now = timeutils.utcnow()
        for instance in objects.InstanceList.get_by_host(context,
                                                         self.host):
            shelved_at = instance.system_metadata.get('shelved_at')
            if instance.vm_state != states.SHELVED or \
                    instance.task_state is not None or not shelved_at:
                continue
            if (now - timeutils.parse_isotime(shelved_at).replace(
                    tzinfo=None)).total_seconds() < wait:
                continue
            instance.task_state = states.SHELVING_OFFLOADING
            try:
                instance.save(expected_task_state=[None])
            except (exception.InstanceNotFound,
                    exception.UnexpectedTaskStateError):
                continue
            self._shelve_offload(context, instance)

    def unshelve_instance(self, context, instance, image=None,
                          request_spec=None, selection=None):
        self._submit(self._unshelve, context, instance, image,
                            request_spec, selection)

    def _unshelve(self, context, instance, image, request_spec, selection):
        with self._instance_lock(instance.uuid), instance_actions.event(
                context, instance.uuid, 'compute_unshelve_instance',
                host=self.host, action=instance_actions.UNSHELVE) as step:
            if selection is None:
                # Shelved here, never offloaded: the guest is powered on.
                self._power_on_shelved(context, instance, step)
                return
            groups = request_spec.requested_resources
            provider_of_port = {g.requester_id: g.provider_uuids[0]
                                for g in groups if g.provider_uuids}
            try:
                self._spawn_moved_here(
                    context, instance, image, selection, groups,
                    provider_of_port, None, states.UNSHELVING,
                    states.SPAWNING)
            except Exception as error:
                LOG.warning('Unshelve of %s on %s failed: %s',
                            instance.uuid, self.host, error)
                step.fail('The unshelve on %s failed: %s' % (
                    self.host, instance_actions.error_details(error)), error)
                self._unshelve_failed(context, instance, error)
                return
            self._unshelved(instance, states.SPAWNING)

    def _power_on_shelved(self, context, instance, step):
        try:
            self.driver.power_on(instance)
        except Exception as error:
            step.fail(instance_actions.error_details(error), error)
            build_task.record_fault(context, instance, error,
                                    host=self.host)
            instance.task_state = None
            instance.save()
            return
        self._unshelved(instance, states.UNSHELVING)

    def _unshelved(self, instance, task_state):
        for key in ('shelved_image_id', 'shelved_at', 'shelved_host'):
            instance.system_metadata.pop(key, None)
        instance.vm_state = states.ACTIVE
        instance.power_state = states.RUNNING
        instance.task_state = None
        instance.launched_at = timeutils.utcnow()
        try:
            instance.save(expected_task_state=[task_state])
        except (exception.InstanceNotFound,
                exception.UnexpectedTaskStateError) as e:
            LOG.info('%s changed while it was unshelved (%s)',
                     instance.uuid, e)
            return
        LOG.info('Instance %s unshelved on %s', instance.uuid, self.host)

    def _unshelve_failed(self, context, instance, error):
        """Back to offloaded: its allocation here is gone (the claim's
        undo), its ports bound to no host."""
        try:
            for port in self.ports.ports_of(instance.uuid):
                network_api.unbind_from_host(self.ports, port)
        except exception.NovaLiteException as e:
            LOG.error('Ports of %s not unbound after its failed unshelve: '
                      '%s', instance.uuid, e)
        instance.host = None
        instance.node = None
        try:
            build_task.record_fault(context, instance, error, host=self.host)
            instance.vm_state = states.SHELVED_OFFLOADED
            instance.task_state = None
            instance.save()
        except exception.InstanceNotFound:
            pass

    # -- delete --------------------------------------------------------------

    def terminate_instance(self, context, instance):
        with self._working_on(instance.uuid), \
                self._instance_lock(instance.uuid), instance_actions.event(
                context, instance.uuid, 'compute_terminate_instance',
                host=self.host, action=instance_actions.DELETE):
            self.driver.destroy(context, instance)
            self.rt.drop_instance(context, instance, instance.node)
            network_api.release_ports(self.ports, instance)
            try:
                instance.destroy()
            except exception.InstanceNotFound:
                pass
            LOG.info('Instance %s deleted on %s', instance.uuid, self.host)
        self._forget_lock(instance.uuid)
