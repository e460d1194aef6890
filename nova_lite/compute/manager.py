"""Server side of the compute RPC API: one per hypervisor host.

The compute holds no database credentials; every object it reads or saves
goes through the conductor (object indirection, set up in
``nova_lite.cmd.compute``).

The manager receives the RPC and delegates: each flow (build, rebuild,
evacuation, live migration, power, shelve, delete, the recovery of
interrupted tasks) is a module of ``nova_lite.compute.flows``. What stays
here is what the whole host shares: the pool the long flows run on, the
per-instance bookkeeping (``work``), the periodic tasks and the start.
"""

import time

from oslo_log import log as logging
import oslo_messaging as messaging

from nova_lite.compute.flows import build
from nova_lite.compute.flows import delete
from nova_lite.compute.flows import evacuate
from nova_lite.compute.flows import interrupted
from nova_lite.compute.flows import live_migration
from nova_lite.compute.flows import power
from nova_lite.compute.flows import rebuild
from nova_lite.compute.flows import resize
from nova_lite.compute.flows import shelve
from nova_lite.compute import resource_tracker
from nova_lite.compute import work
from nova_lite import concurrency
from nova_lite.conductor import rpcapi as conductor_rpcapi
from nova_lite import conf as nova_conf
from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite import manager
from nova_lite.network import agent as network_agent
from nova_lite.network import api as network_api
from nova_lite import objects
from nova_lite.virt import fake

CONF = nova_conf.CONF
LOG = logging.getLogger(__name__)


class ComputeManager(manager.Manager):
    target = messaging.Target(version='1.7')

    def __init__(self, host=None, driver=None, conductor_api=None,
                 reportclient=None, ports=None, compute_rpcapi=None,
                 builds=None):
        """A compute of its own makes its clients and its build pool; a
        process hosting many (``cmd.fake_computes``) passes the ones all
        its hosts share: ``conductor_api``, ``reportclient`` (placement),
        ``ports``, ``compute_rpcapi`` and ``builds`` (an executor whose
        shutdown() the process does, not each host)."""
        self.host = host or CONF.host
        self.driver = driver or fake.FakeDriver(self.host)
        self.rt = resource_tracker.ResourceTracker(self.host, self.driver,
                                                   reportclient)
        self.conductor_api = conductor_api or conductor_rpcapi.ConductorAPI()
        self.ports = ports or network_api.PortClient()
        if compute_rpcapi is None:
            from nova_lite.compute import rpcapi
            compute_rpcapi = rpcapi.ComputeAPI()
        self.compute_rpcapi = compute_rpcapi
        self.work = work.InstanceWork()
        self.rt.port_allocations_of = self._port_allocations_of
        self.rt.idle_instance = self.work.idle
        self._builds = builds or concurrency.executor(
            CONF.compute.max_concurrent_builds)

    # -- lifecycle -----------------------------------------------------------

    def init_host(self, context):
        self._wait_for_conductor(context)
        evacuate.destroy_evacuated_instances(self, context)
        interrupted.recover_live_migrations(self, context)
        resize.recover_resizes(self, context, restarted=True)
        interrupted.resolve_interrupted_tasks(self, context, restarted=True)
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

    def _submit(self, flow, context, instance, *args):
        """Run ``flow(self, context, instance, *args)`` on the build pool,
        with the request's context as the thread's current one, so its log
        lines carry the request id like the RPC thread's do. From now
        until it ends the instance counts as being worked on here."""
        self.work.begin(instance.uuid)

        def run():
            try:
                context.update_store()
                self._note_usage(context, instance)
                return flow(self, context, instance, *args)
            finally:
                self._note_usage(context, instance)
                self.work.end(instance.uuid)
        try:
            return self._builds.submit(run)
        except Exception:
            self.work.end(instance.uuid)
            raise

    def _note_usage(self, context, instance):
        """An operation on ``instance`` begins or ends: what it does
        now counts in the node's stats (its I/O workload) at once."""
        try:
            self.rt.update_usage(context, instance)
        except Exception as e:
            LOG.warning('The stats of this node were not updated for %s '
                        '(the next audit will): %s', instance.uuid, e)

    def cleanup_host(self):
        self._builds.shutdown(wait=True)

    # -- periodic tasks ------------------------------------------------------

    @manager.periodic_task(lambda: CONF.compute.recovery_interval)
    def resolve_interrupted_tasks(self):
        context = nova_context.get_admin_context()
        resize.recover_resizes(self, context)
        interrupted.resolve_interrupted_tasks(self, context)

    @manager.periodic_task(lambda: CONF.compute.update_resources_interval)
    def update_available_resource(self):
        context = nova_context.get_admin_context()
        for nodename in self.driver.get_available_nodes():
            self.rt.update_available_resource(context, nodename)
            # As this host's network agent: its physical networks and
            # bandwidth, which the port service offers to placement under
            # this node's provider.
            network_agent.report_state(self.host, nodename, self.ports)

    def _port_allocations_of(self, instance):
        """The ports' part of ``instance``'s allocation, read back from
        the port service (their resource requests and the providers their
        bindings name)."""
        allocations = {}
        for port in self.ports.ports_of(instance):
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

    @manager.periodic_task(lambda: CONF.compute.update_resources_interval)
    def offload_shelved_instances(self):
        """Offload the servers shelved here longer than
        [compute] shelved_offload_time."""
        shelve.offload_shelved_instances(self,
                                         nova_context.get_admin_context())

    # -- build ---------------------------------------------------------------

    def build_and_run_instance(self, context, instance, selection,
                               request_spec, host_list, limits=None,
                               image=None):
        self._submit(ComputeManager._build_and_count, context, instance,
                     selection, request_spec, host_list, limits, image)

    def _build_and_count(self, context, instance, selection, *args):
        """Build (``flows.build``) and count the node's consecutive
        failed builds for the scheduler's BuildFailureWeigher, as Nova
        does: a build that ends in ERROR or is sent to an alternate is
        one more (while [compute]
        consecutive_build_service_disable_threshold is not 0), a
        server that goes ACTIVE starts again from none. A server deleted
        while it is built counts as neither."""
        outcome = build.build_and_run(self, context, instance, selection,
                                      *args)
        try:
            if outcome == build.ACTIVE:
                self.rt.build_succeeded(selection.nodename)
            elif outcome in (build.FAILED, build.RESCHEDULED) and \
                    CONF.compute.consecutive_build_service_disable_threshold:
                self.rt.build_failed(selection.nodename)
        except Exception as e:
            LOG.warning('The failed builds of %s were not reported (the '
                        'next audit will): %s', selection.nodename, e)
        return outcome

    # -- rebuild, stop, start ----------------------------------------------

    def rebuild_instance(self, context, instance, image, orig_image_ref,
                         preserve_ephemeral=False, recreate=False,
                         migration=None, selection=None, request_spec=None):
        """Destroy and re-create ``instance`` here from ``image`` (see
        ``flows.rebuild``).

        With ``recreate`` (RPC 1.2) the server comes here from a host that
        is down: an evacuation (see ``flows.evacuate``).
        """
        if recreate:
            self._submit(evacuate.evacuate, context, instance, image,
                         migration, selection, request_spec)
            return
        self._submit(rebuild.rebuild, context, instance, image,
                     orig_image_ref)

    def stop_instance(self, context, instance):
        power.stop(self, context, instance)

    def start_instance(self, context, instance):
        power.start(self, context, instance)

    # -- reboot, pause, suspend (1.5) ----------------------------------------

    def reboot_instance(self, context, instance, reboot_type):
        power.reboot(self, context, instance, reboot_type)

    def pause_instance(self, context, instance):
        power.pause(self, context, instance)

    def unpause_instance(self, context, instance):
        power.unpause(self, context, instance)

    def suspend_instance(self, context, instance):
        power.suspend(self, context, instance)

    def resume_instance(self, context, instance):
        power.resume(self, context, instance)

    # -- live migration ------------------------------------------------------

    @messaging.expected_exceptions(exception.MigrationPreCheckError)
    def check_can_live_migrate_destination(self, context, instance,
                                           migrate_data):
        return live_migration.check_destination(self, context, instance,
                                                migrate_data)

    @messaging.expected_exceptions(exception.MigrationPreCheckError)
    def check_can_live_migrate_source(self, context, instance,
                                      migrate_data):
        return live_migration.check_source(self, context, instance,
                                           migrate_data)

    def pre_live_migration(self, context, instance, migrate_data):
        return live_migration.prepare_destination(self, context, instance,
                                                  migrate_data)

    def live_migration(self, context, instance, migration, migrate_data):
        self._submit(live_migration.live_migrate, context, instance,
                     migration, migrate_data)

    def live_migration_abort(self, context, instance, migration_id):
        live_migration.abort(self, context, instance, migration_id)

    @messaging.expected_exceptions(exception.UnexpectedDeletingTaskStateError)
    def post_live_migration_at_destination(self, context, instance,
                                           migrate_data):
        live_migration.post_at_destination(self, context, instance,
                                           migrate_data)

    def rollback_live_migration_at_destination(self, context, instance,
                                               migrate_data):
        live_migration.rollback_at_destination(self, context, instance,
                                               migrate_data)

    # -- resize and cold migration (1.6) -------------------------------------

    @messaging.expected_exceptions(exception.MigrationPreCheckError)
    def prep_resize(self, context, instance, migration, flavor, limits=None):
        resize.check_destination(self, context, instance, migration, flavor,
                                 limits)

    def resize_instance(self, context, instance, migration, flavor,
                        request_spec, claimed_node):
        self._submit(resize.resize_instance, context, instance, migration,
                     flavor, request_spec, claimed_node)

    def finish_resize(self, context, instance, migration, flavor,
                      request_spec, claimed_node):
        self._submit(resize.finish_resize, context, instance, migration,
                     flavor, request_spec, claimed_node)

    def confirm_resize(self, context, instance, migration):
        self._submit(resize.confirm_resize, context, instance, migration)

    def revert_resize(self, context, instance, migration):
        self._submit(resize.revert_resize, context, instance, migration)

    def finish_revert_resize(self, context, instance, migration):
        self._submit(resize.finish_revert_resize, context, instance,
                     migration)

    @manager.periodic_task(lambda: CONF.compute.update_resources_interval)
    def confirm_old_resizes(self):
        resize.confirm_old_resizes(self, nova_context.get_admin_context())

    # -- shelve, offload, unshelve -------------------------------------------

    def shelve_instance(self, context, instance, image_id):
        self._submit(shelve.shelve, context, instance, image_id)

    def shelve_offload_instance(self, context, instance):
        self._submit(shelve.shelve_offload, context, instance)

    def unshelve_instance(self, context, instance, image=None,
                          request_spec=None, selection=None):
        self._submit(shelve.unshelve, context, instance, image,
                     request_spec, selection)

    # -- the host's status (1.7) ----------------------------------------------

    def set_host_enabled(self, context, enabled):
        """An administrator enabled or disabled this compute service:
        COMPUTE_STATUS_DISABLED goes off or on its nodes' providers now
        (the audit would, within [compute] update_resources_interval)."""
        if not self.rt.set_service_status(disabled=not enabled):
            LOG.warning('No compute node yet on %s: COMPUTE_STATUS_DISABLED '
                        'is set by its first audit', self.host)

    # -- delete --------------------------------------------------------------

    def terminate_instance(self, context, instance):
        delete.terminate(self, context, instance)
