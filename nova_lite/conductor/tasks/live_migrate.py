"""Live migration with its reschedule loop (seed 001).

The API has checked the server (ACTIVE, on a host, no task) and set its
task_state to ``migrating``. Here, in order, each step with its undo (a
``nova_lite.flow.Flow``; the table is ``live_migration_undos``):

1. the migration record (type ``live-migration``, ``accepted``);
2. the source compute must be up, and both computes must speak the RPC
   version of live migration; a server with resource-request ports also
   needs the port service's multiple-bindings extension -- refused up
   front otherwise;
3. ``move_source_to_migration``: what the server holds on the source
   moves to the migration's consumer (undo: it moves back -- to nobody
   when the server was deleted meanwhile: its compute's delete found
   the migration holding it), so the server's own consumer can hold the
   destination's resources;
4. the loop: ``claim_destination`` -- the scheduler picks a destination
   (the source and the hosts tried already excluded, group policies
   honoured; a host the caller named is the only candidate and must pass
   the filters too, unless the caller forced it) and claims it for the
   server with the request-group -> provider mapping (undo: the claim is
   given back); the destination and
   the source run their pre-checks; ``bind_destination`` -- each port gets
   an INACTIVE binding on the destination whose ``allocation`` is the
   destination's provider (undo: that binding is deleted; one made
   ACTIVE -- the port was released since it was read, its server
   deleted or the port detached -- ends the move, PortReleasedDuringMove,
   and its undo binds the port to no host again). When a
   pre-check or a binding fails, that try's steps are undone, the host is
   added to the tried ones and the scheduler is asked again, up to
   ``[DEFAULT] migrate_max_retries`` times (-1: until no host is left);
5. ``cast_live_migration``: ``live_migration`` is cast to the source
   compute, which transfers the guest and finishes (post) or undoes
   (rollback) the move; from here the move is the computes'.

When the loop gives up, the server stays ACTIVE on its source with its
allocation and bindings as they were -- a failed pre-check is not a
broken server -- and the migration is ``error`` with the reason.

Each step is recorded on the migration before it is taken: when the
conductor dies mid-way, the source compute's look for stale moves replays
these undos from the list (and the source's own flow takes the list over
once the cast arrives). While it works, the conductor keeps the migration
and the server alive (``conductor/move_leases.py``), so a conductor that
waits out a scheduler restart is not taken for dead; the step records and
the migration's next status are written only while the migration is still
``accepted`` or ``queued``. One an admin cancelled meanwhile is undone
here (LiveMigrationAborted); one a takeover ended (``error``) is left as
the takeover settled it: this conductor stops and undoes nothing
(MigrationStatusChanged).
"""

import contextlib

from oslo_log import log as logging
import oslo_messaging as messaging

from nova_lite.compute.flows import live_migration as compute_live_migration
from nova_lite.compute import instance_actions
from nova_lite.compute import states
from nova_lite.conductor import move_leases
from nova_lite.conductor.tasks import move_common
from nova_lite import conf as nova_conf
from nova_lite import exception
from nova_lite import flow as flows
from nova_lite import lifecycle
from nova_lite.network import api as network_api
from nova_lite import objects
from nova_lite.scheduler import rpcapi as scheduler_rpc
from nova_lite.objects import migration as migration_obj
from nova_lite import servicegroup

CONF = nova_conf.CONF
LOG = logging.getLogger(__name__)

# Each step is recorded on the migration under this name before it is
# taken; the source compute takes the list over (see
# ``compute.flows.interrupted.recover_live_migrations``).
FLOW = compute_live_migration.CONDUCTOR_FLOW

# What makes the loop try the next host rather than give up at once.
_RESCHEDULABLE = (exception.MigrationPreCheckError,
                  exception.PortBindingFailed, exception.PortUpdateFailed,
                  exception.ComputeTooOld, messaging.MessagingTimeout)


class LiveMigrationTask:

    def __init__(self, context, instance, host, block_migration,
                 scheduler_rpcapi, compute_rpcapi, reportclient,
                 port_client=None, moves=None, force=False):
        self.moves = (moves if moves is not None else
                      move_leases.MovesInProgress())
        self.context = context
        self.instance = instance
        self.requested_host = host
        # Whether the requested host skips the scheduler's filters.
        self.force = bool(force)
        self.block_migration = bool(block_migration)
        self.scheduler_rpcapi = scheduler_rpcapi
        self.compute_rpcapi = compute_rpcapi
        self.reportclient = reportclient
        self.port_client = port_client or network_api.PortClient()
        self.migration = None
        self.flow = None
        # Reschedule bookkeeping, kept for the measurements and the tests.
        self.tried = []

    def execute(self):
        move_common.run_in_cell(
            self, 'Live migration', 'conductor_live_migrate',
            instance_actions.LIVE_MIGRATION, self._live_migrate,
            self.rollback)

    def _live_migrate(self):
        source = self.instance.host
        self.migration = objects.Migration(
            self.cctxt, instance_uuid=self.instance.uuid,
            migration_type=migration_obj.LIVE_MIGRATION, status='accepted',
            source_compute=source, source_node=self.instance.node,
            dest_compute=self.requested_host)
        self.migration.create()
        self.flow = flows.Flow(
            FLOW, self.instance.uuid, live_migration_undos(
                self.cctxt, self.reportclient, self.port_client,
                self.instance.uuid, self.migration),
            record=self._record, not_ours=(exception.MigrationStatusChanged,))
        with self.moves.live_migration(self.cctxt, self.migration), \
                self.flow:
            self._check_source(source)
            ports = self.port_client.ports_of(self.instance)
            groups = network_api.request_groups(ports)
            if groups and not self.port_client.has_extension(
                    'binding-extended'):
                raise exception.MultipleBindingsUnsupported(
                    instance_uuid=self.instance.uuid)
            self.flow.step('move_source_to_migration')
            self.reportclient.move_allocations(self.instance.uuid,
                                               self.migration.uuid)
            spec, selection, migrate_data = self._find_destination(ports)
            self.migration.dest_compute = selection.service_host
            self.migration.dest_node = selection.nodename
            self.migration.dest_host = selection.service_host
            self.migration.status = 'queued'
            with self._unless_cancelled():
                self.migration.save(expected_status=['accepted'])
            LOG.info('Live migrating %s from %s to %s (after %d refused)',
                     self.instance.uuid, source, selection.service_host,
                     len(self.tried))
            self.flow.step('cast_live_migration')
            self.compute_rpcapi.live_migration(self.cctxt, self.instance,
                                               self.migration, migrate_data)
            self.flow.done()

    def _record(self, steps):
        with self._unless_cancelled():
            self.migration.record_flow_while(FLOW, steps,
                                             move_leases.LIVE_MIGRATING)

    @contextlib.contextmanager
    def _unless_cancelled(self):
        """A write that finds the migration over: an admin cancelled it
        (LiveMigrationAborted: undone here), or a takeover ended it
        (MigrationStatusChanged: not ours any more)."""
        try:
            yield
        except migration_obj.MigrationStatusChanged as changed:
            if changed.kwargs.get('status') == 'cancelled':
                raise exception.LiveMigrationAborted(
                    instance_uuid=self.instance.uuid)
            raise

    def _check_source(self, source):
        if not servicegroup.compute_is_up(self.cctxt, source):
            raise exception.MigrationPreCheckError(
                reason='the compute of the source host %s is down' % source)
        if not self.compute_rpcapi.can_live_migrate(self.cctxt, source):
            raise exception.ComputeTooOld(
                host=source, action='live migrate',
                version=self.compute_rpcapi.LIVE_MIGRATION_VERSION,
                pinned=self.compute_rpcapi.version_cap)

    def _find_destination(self, ports):
        max_retries = CONF.migrate_max_retries
        refused = []
        while True:
            spec = move_common.request_spec_for_move(
                self.context, self.instance, self.port_client,
                ignore_hosts=[self.instance.host] + self.tried,
                requested_host=self.requested_host, force=self.force)
            this_try = self.flow.mark()
            self.flow.step('claim_destination')
            try:
                [[selection]] = scheduler_rpc.select_destinations_patiently(
                    self.scheduler_rpcapi, self.context, spec,
                    [self.instance.uuid], return_alternates=False)
            except exception.NoValidHost as error:
                if refused:
                    raise exception.MigrationPreCheckError(
                        reason='no host is left: %s' % '; '.join(refused))
                raise error
            self.flow.settle(selection.compute_node_uuid)
            try:
                migrate_data = self._prepare(spec, selection, ports)
                return spec, selection, migrate_data
            except _RESCHEDULABLE as error:
                self.flow.undo(since=this_try)
                host = selection.service_host
                reason = '%s: %s' % (
                    host, instance_actions.error_details(error))
                LOG.info('Live migration of %s: %s refused (%s)',
                         self.instance.uuid, host, reason)
                refused.append(reason)
                self.tried.append(host)
                if max_retries != -1 and len(self.tried) > max_retries:
                    raise exception.MigrationPreCheckError(
                        reason='gave up after %d destination(s) '
                               '([DEFAULT] migrate_max_retries = %d): %s' % (
                                   len(self.tried), max_retries,
                                   '; '.join(refused)))
                if self.requested_host:
                    raise exception.MigrationPreCheckError(reason=reason)

    def _prepare(self, spec, selection, ports):
        """Pre-checks and inactive bindings on one destination."""
        dest = selection.service_host
        if not self.compute_rpcapi.can_live_migrate(self.cctxt, dest):
            raise exception.ComputeTooOld(
                host=dest, action='live migrate',
                version=self.compute_rpcapi.LIVE_MIGRATION_VERSION,
                pinned=self.compute_rpcapi.version_cap)
        move_common.fill_provider_mapping(spec, selection)
        migrate_data = objects.LiveMigrateData(
            block_migration=self.block_migration,
            source_host=self.instance.host, source_node=self.instance.node,
            dest_host=dest, dest_node=selection.nodename, bound_ports=[],
            port_providers={g.requester_id: g.provider_uuids[0]
                            for g in spec.requested_resources})
        migrate_data = self.compute_rpcapi.check_can_live_migrate_destination(
            self.cctxt, self.instance, dest, migrate_data)
        migrate_data = self.compute_rpcapi.check_can_live_migrate_source(
            self.cctxt, self.instance, migrate_data)
        for port in ports:
            profile = dict(port.get('binding:profile') or {})
            profile.pop('allocation', None)
            provider = migrate_data.port_providers.get(port['id'])
            if provider:
                profile['allocation'] = provider
            self.flow.step('bind_destination',
                           {'port': port['id'], 'host': dest})
            binding = self.port_client.create_binding(port['id'], dest,
                                                      profile)
            migrate_data.bound_ports = migrate_data.bound_ports + [
                port['id']]
            if binding.get('status') == network_api.ACTIVE:
                # Bound to no host any more: released since it was read.
                raise exception.PortReleasedDuringMove(
                    port_id=port['id'], instance_uuid=self.instance.uuid,
                    host=dest)
            if binding.get('vif_type') in network_api.VIF_FAILED:
                raise exception.PortBindingFailed(
                    port_id=port['id'], host=dest,
                    vif_type=binding.get('vif_type'))
        return migrate_data

    # -- undo ----------------------------------------------------------------

    def rollback(self, error):
        """What a failure leaves, once the flow's steps are undone (the
        server's allocation and bindings as they were): the server ACTIVE
        on its source without a task, the migration in error with the
        reason (cancelled, if an admin aborted it). A live migration
        taken over (its migration ended by the takeover) is left as it
        is."""
        taken_over = (error if isinstance(
            error, exception.MigrationStatusChanged) else None)
        if taken_over is None and self.migration is not None and \
                self.migration.obj_attr_is_set('id'):
            self.migration.status = (
                'cancelled' if isinstance(error,
                                          exception.LiveMigrationAborted)
                else 'error')
            try:
                self.migration.save(expected_status=list(
                    move_leases.LIVE_MIGRATING) + ['cancelled'])
            except exception.MigrationStatusChanged as e:
                taken_over = e
        if taken_over is not None:
            LOG.warning('The live migration of %s was taken over (%s); '
                        'this conductor leaves it alone',
                        self.instance.uuid, taken_over)
            return
        self.instance.task_state = None
        try:
            self.instance.save(expected_task_state=[states.MIGRATING])
        except (exception.InstanceNotFound,
                exception.UnexpectedTaskStateError) as e:
            LOG.info('%s changed during its live migration: %s',
                     self.instance.uuid, e)


def live_migration_undos(cctxt, reportclient, port_client, instance_uuid,
                         migration):
    """What undoes each step of a live migration (the module's
    docstring); each is idempotent."""
    def unbind(bound):
        try:
            network_api.drop_binding(port_client, bound['port'],
                                     bound['host'])
        except exception.NovaLiteException as e:
            LOG.error('Inactive binding of port %s on %s not deleted: %s',
                      bound['port'], bound['host'], e)
    return flows.undo_table(
        move_source_to_migration=lambda _: lifecycle.return_source_side(
            reportclient, migration.uuid, instance_uuid, context=cctxt),
        claim_destination=lambda node: lifecycle.give_back(
            reportclient, instance_uuid, if_on=node),
        bind_destination=unbind,
        cast_live_migration=None)
