"""Resize and cold migration (DESIGN.md, flow 7; seed 001's premise).

The API has checked the server (ACTIVE or STOPPED, on a host, no task),
the quota of a larger flavor, and set its task_state to ``resize_prep``.
Here, in order, each step with its undo (a ``nova_lite.flow.Flow``; the
table is ``migration_undos``):

1. ``migration`` -- the migration record (type ``resize``, or
   ``migration`` when the flavor stays), ``pre-migrating``, with the old
   and the new flavor (undo: it ends ``error``);
2. the source compute must be up and speak the RPC version of resize;
3. ``move_source_to_migration`` -- what the server holds on the source
   moves to the migration's consumer (undo: it moves back -- to nobody
   when the server was deleted meanwhile: its compute's delete found
   the migration holding it), so the server's own consumer can hold the
   destination at the new flavor;
4. ``claim_destination`` -- the scheduler picks a destination (the new
   flavor; the source excluded unless a resize may stay on its host,
   ``[DEFAULT] allow_resize_to_same_host``; group policies honoured) with
   alternates, and claims it for the server with the request-group ->
   provider mapping (undo: the claim is given back). The destination
   checks it can take the server (``prep_resize``); when it refuses, or
   speaks too old an RPC version, the claim is given back and the next
   alternate is claimed and asked, until none is left;
5. ``cast_resize`` -- ``resize_instance`` is cast to the source compute,
   which takes these steps over (``compute/flows/resize.py``).

When no destination takes it, the server stays where it was, as it was
(its allocation and bindings untouched), with a fault saying why; the
migration is ``error``.

Each step is recorded on the migration before it is taken, while the
migration is still ``pre-migrating``; the conductor keeps it alive
meanwhile (``conductor/move_leases.py``). The source's flow takes the
list over once the cast arrives.
"""

from oslo_log import log as logging
import oslo_messaging as messaging

from nova_lite.compute.flows import resize as compute_resize
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
from nova_lite.objects import migration as migration_obj
from nova_lite.scheduler import rpcapi as scheduler_rpc
from nova_lite import servicegroup

CONF = nova_conf.CONF
LOG = logging.getLogger(__name__)

FLOW = compute_resize.CONDUCTOR_FLOW

# What makes the task try the next alternate rather than give up.
_RESCHEDULABLE = (exception.MigrationPreCheckError,
                  exception.ComputeTooOld, messaging.MessagingTimeout)


class MigrationTask:

    def __init__(self, context, instance, flavor, host, scheduler_rpcapi,
                 compute_rpcapi, reportclient, port_client=None,
                 moves=None):
        self.moves = (moves if moves is not None else
                      move_leases.MovesInProgress())
        self.context = context
        self.instance = instance
        self.flavor = flavor
        self.requested_host = host
        self.scheduler_rpcapi = scheduler_rpcapi
        self.compute_rpcapi = compute_rpcapi
        self.reportclient = reportclient
        self.port_client = port_client or network_api.PortClient()
        self.migration = None
        self.undos = None
        self.resize = flavor.flavorid != instance.flavor.flavorid
        # The destinations that refused, for the logs and the tests.
        self.tried = []

    @property
    def what(self):
        return 'Resize' if self.resize else 'Cold migration'

    def execute(self):
        move_common.run_in_cell(
            self, self.what, 'conductor_migrate_server',
            instance_actions.RESIZE if self.resize
            else instance_actions.MIGRATE, self._migrate, self.rollback)

    def _migrate(self):
        self.migration = objects.Migration(
            self.cctxt, instance_uuid=self.instance.uuid,
            migration_type=(migration_obj.RESIZE if self.resize
                            else migration_obj.COLD_MIGRATION),
            status='pre-migrating', source_compute=self.instance.host,
            source_node=self.instance.node,
            dest_compute=self.requested_host,
            old_instance_type_id=self.instance.flavor.id,
            new_instance_type_id=self.flavor.id)
        self.migration.create()
        self.undos = migration_undos(self.cctxt, self.reportclient,
                                     self.instance.uuid, self.migration)
        flow = flows.Flow(
            FLOW, self.instance.uuid, self.undos,
            record=lambda steps: self.migration.record_flow_while(
                FLOW, steps, move_leases.RESIZING),
            not_ours=(exception.MigrationStatusChanged,))
        with self.moves.resize(self.cctxt, self.migration), flow:
            flow.step('migration')
            self._check_source()
            flow.step('move_source_to_migration')
            self.reportclient.move_allocations(self.instance.uuid,
                                               self.migration.uuid)
            spec, selection = self._find_destination(flow)
            self.migration.save(expected_status=['pre-migrating'])
            LOG.info('%s of %s from %s to %s (after %d refused)', self.what,
                     self.instance.uuid, self.instance.host,
                     selection.service_host, len(self.tried))
            flow.step('cast_resize')
            self.compute_rpcapi.resize_instance(
                self.cctxt, self.instance, self.migration, self.flavor,
                spec, selection.compute_node_uuid)
            flow.done()

    def _check_source(self):
        source = self.instance.host
        if not servicegroup.compute_is_up(self.cctxt, source):
            raise exception.MigrationPreCheckError(
                reason='the compute of the source host %s is down' % source)
        if not self.compute_rpcapi.can_resize(self.cctxt, source):
            raise exception.ComputeTooOld(
                host=source, action='resize',
                version=self.compute_rpcapi.RESIZE_VERSION,
                pinned=self.compute_rpcapi.version_cap)

    def _request_spec(self):
        same_host = self.resize and CONF.allow_resize_to_same_host
        # A host asked for is the requested destination: the only
        # candidate, and every filter still runs on it (never forced).
        spec = move_common.request_spec_for_move(
            self.context, self.instance, self.port_client,
            ignore_hosts=None if same_host else [self.instance.host],
            requested_host=self.requested_host)
        spec.flavor = self.flavor
        return spec

    def _find_destination(self, flow):
        spec = self._request_spec()
        this_try = flow.mark()
        flow.step('claim_destination')
        [candidates] = scheduler_rpc.select_destinations_patiently(
            self.scheduler_rpcapi, self.context, spec, [self.instance.uuid])
        candidates = list(candidates)
        refused = []
        claimed = True  # the scheduler claimed the first for the server
        while candidates:
            selection = candidates.pop(0)
            if not claimed and not lifecycle.claim_alternate(
                    self.reportclient, self.instance, selection):
                refused.append('%s: no room left in placement' %
                               selection.service_host)
                continue
            flow.settle(selection.compute_node_uuid)
            try:
                self._prepare(spec, selection)
                return spec, selection
            except _RESCHEDULABLE as error:
                flow.undo(since=this_try)
                host = selection.service_host
                reason = '%s: %s' % (host,
                                     instance_actions.error_details(error))
                LOG.info('%s of %s: %s refused (%s)', self.what,
                         self.instance.uuid, host, reason)
                refused.append(reason)
                self.tried.append(host)
                this_try = flow.mark()
                flow.step('claim_destination')
                claimed = False
        raise exception.MigrationPreCheckError(
            reason='no host is left: %s' % '; '.join(refused))

    def _prepare(self, spec, selection):
        """The destination's say on taking the server: its RPC version,
        then its own check (``prep_resize``)."""
        dest = selection.service_host
        if not self.compute_rpcapi.can_resize(self.cctxt, dest):
            raise exception.ComputeTooOld(
                host=dest, action='resize',
                version=self.compute_rpcapi.RESIZE_VERSION,
                pinned=self.compute_rpcapi.version_cap)
        move_common.fill_provider_mapping(spec, selection)
        self.migration.dest_compute = dest
        self.migration.dest_node = selection.nodename
        self.migration.dest_host = dest
        self.compute_rpcapi.prep_resize(self.cctxt, self.instance,
                                        self.migration, self.flavor,
                                        selection.limits)

    def rollback(self, error):
        """What a failure leaves once the flow's steps are undone: the
        server where it was, as it was, with a fault saying why; the
        migration in error. A move taken over is left as it is."""
        if isinstance(error, exception.MigrationStatusChanged):
            LOG.warning('The %s of %s was taken over (%s); this conductor '
                        'leaves it alone', self.what.lower(),
                        self.instance.uuid, error)
            return
        if self.undos is not None:
            # Ended whether or not its step was recorded (idempotent).
            self.undos['migration'](None)
        try:
            lifecycle.record_fault(self.cctxt, self.instance, error)
        except exception.NovaLiteException as e:
            LOG.warning('No fault recorded on %s: %s', self.instance.uuid, e)
        self.instance.task_state = None
        try:
            self.instance.save(expected_task_state=[states.RESIZE_PREP])
        except (exception.InstanceNotFound,
                exception.UnexpectedTaskStateError) as e:
            LOG.info('%s changed during its %s: %s', self.instance.uuid,
                     self.what.lower(), e)


def migration_undos(cctxt, reportclient, instance_uuid, migration):
    """What undoes each step of a resize or cold migration (the module's
    docstring); each is idempotent."""
    def end_migration(_):
        if not migration.obj_attr_is_set('id'):
            return
        migration.status = 'error'
        try:
            migration.save(expected_status=list(move_leases.RESIZING))
        except exception.MigrationStatusChanged:
            pass  # ended already
    return flows.undo_table(
        migration=end_migration,
        move_source_to_migration=lambda _: lifecycle.return_source_side(
            reportclient, migration.uuid, instance_uuid, context=cctxt),
        claim_destination=lambda node: lifecycle.give_back(
            reportclient, instance_uuid, if_on=node),
        cast_resize=None)
