"""Evacuation (seed 001): rebuild, on another host, a server whose host is
down.

The API has checked that the source compute is down and put the server
in task_state ``rebuilding``. Here, in order, each step with its undo (a
``nova_lite.flow.Flow``; the table is ``evacuation_undos``):

1. the migration record (type ``evacuation``, status ``accepted``) is
   created in the server's cell;
2. the ports' resource requests are read from the port service and become
   request groups of the server's RequestSpec;
3. ``move_source_to_migration``: what the server holds on the source
   moves to the migration's placement consumer (undo: it moves back -- or,
   if the server was deleted meanwhile, it is given back), so the server's
   own consumer is free to hold the destination's resources;
4. ``claim_destination``: the scheduler picks a destination (source
   excluded, server-group policies honoured; a host the caller named is
   the only candidate and must pass the filters too, unless the caller
   forced it) and claims it in placement for the server, with the request
   group -> provider mapping (undo: the claim is given back);
5. ``cast_evacuate``: the destination compute is sent ``rebuild_instance`` with
   ``recreate=True``; it claims locally, points each port binding at
   itself with its own provider as ``allocation``, rebuilds, and marks the
   migration ``done``.

A failure before the cast leaves the server on its source in ERROR with a
fault saying why, holding its source allocation again, the migration
``error``; the compute handles failures after it the same way. The source
compute, when it comes back, removes what the migration consumer holds
(see ``compute.flows.evacuate.destroy_evacuated_instances``).

Each step is recorded on the migration before it is taken: a conductor
that dies mid-way leaves the list for ``recover.InterruptedMoves``, which
replays these undos (or the destination's, once it recorded its own).
While it works, the conductor keeps the migration alive
(``conductor/move_leases.py``); the step records and the migration's next
status are written only while the migration is still ``accepted`` or
``pre-migrating``, so a conductor whose evacuation was taken over stops
there and undoes nothing (MigrationStatusChanged).
"""

from oslo_log import log as logging

from nova_lite.compute import instance_actions
from nova_lite.compute import states
from nova_lite.conductor import move_leases
from nova_lite.conductor.tasks import move_common
from nova_lite import exception
from nova_lite import flow as flows
from nova_lite import lifecycle
from nova_lite.network import api as network_api
from nova_lite import objects
from nova_lite.objects import migration as migration_obj
from nova_lite.scheduler import rpcapi as scheduler_rpc

LOG = logging.getLogger(__name__)

# The name its steps are recorded under on the migration, until the
# destination records its own flow there (which takes these over).
FLOW = 'evacuation'


class EvacuateTask:

    def __init__(self, context, instance, host, scheduler_rpcapi,
                 compute_rpcapi, reportclient, port_client=None,
                 moves=None, force=False):
        self.moves = (moves if moves is not None else
                      move_leases.MovesInProgress())
        self.context = context
        self.instance = instance
        self.migration = None
        self.host = host
        # Whether the requested host skips the scheduler's filters.
        self.force = bool(force)
        self.scheduler_rpcapi = scheduler_rpcapi
        self.compute_rpcapi = compute_rpcapi
        self.reportclient = reportclient
        self.port_client = port_client or network_api.PortClient()

    def execute(self):
        move_common.run_in_cell(
            self, 'Evacuation', 'conductor_rebuild_instance',
            instance_actions.EVACUATE, self._evacuate, self._rollback)

    def _evacuate(self):
        self.migration = objects.Migration(
            self.cctxt, instance_uuid=self.instance.uuid,
            migration_type=migration_obj.EVACUATION, status='accepted',
            source_compute=self.instance.host,
            source_node=self.instance.node, dest_compute=self.host)
        self.migration.create()
        flow = flows.Flow(
            FLOW, self.instance.uuid, evacuation_undos(
                self.cctxt, self.reportclient, self.instance.uuid,
                self.migration),
            record=lambda steps: self.migration.record_flow_while(
                FLOW, steps, move_leases.EVACUATING),
            not_ours=(exception.MigrationStatusChanged,))
        with self.moves.evacuation(self.cctxt, self.migration), flow:
            spec = self._request_spec()
            LOG.info('Evacuating %s from %s (migration %s)',
                     self.instance.uuid, self.migration.source_compute,
                     self.migration.uuid)
            flow.step('move_source_to_migration')
            self.reportclient.move_allocations(self.instance.uuid,
                                               self.migration.uuid)
            flow.step('claim_destination')
            [[selection]] = scheduler_rpc.select_destinations_patiently(
                self.scheduler_rpcapi, self.context, spec,
                [self.instance.uuid], return_alternates=False)
            flow.settle(selection.compute_node_uuid)
            move_common.fill_provider_mapping(spec, selection)
            self.migration.dest_compute = selection.service_host
            self.migration.dest_node = selection.nodename
            self.migration.dest_host = selection.service_host
            self.migration.status = 'pre-migrating'
            self.migration.save(expected_status=['accepted'])
            LOG.info('Evacuating %s to %s', self.instance.uuid,
                     selection.service_host)
            flow.step('cast_evacuate')
            self.compute_rpcapi.evacuate_instance(
                self.cctxt, self.instance, selection.service_host,
                spec.image, self.migration, selection, spec)
            flow.done()

    def _request_spec(self):
        return move_common.request_spec_for_move(
            self.context, self.instance, self.port_client,
            ignore_hosts=[self.migration.source_compute],
            requested_host=self.host, force=self.force)

    def _rollback(self, error):
        """What a failure leaves once the flow's steps are undone: back
        on its source, holding its source allocation, in ERROR with the
        reason as its fault; the migration in error. An evacuation taken
        over (its migration ended by the takeover) is left as it is."""
        taken_over = (error if isinstance(
            error, exception.MigrationStatusChanged) else None)
        if taken_over is None and self.migration is not None and \
                self.migration.obj_attr_is_set('id'):
            self.migration.status = 'error'
            try:
                self.migration.save(
                    expected_status=list(move_leases.EVACUATING))
            except exception.MigrationStatusChanged as e:
                taken_over = e
        if taken_over is not None:
            LOG.warning('The evacuation of %s was taken over (%s); this '
                        'conductor leaves it alone', self.instance.uuid,
                        taken_over)
            return
        lifecycle.set_error(self.cctxt, self.instance, error,
                            expected_task_state=states.REBUILDING)


def evacuation_undos(cctxt, reportclient, instance_uuid, migration):
    """What undoes each step of an evacuation (the module's docstring);
    each is idempotent."""
    def return_source_side(_):
        # A server deleted meanwhile (locally, its host being down), even
        # while its source side comes back, keeps nothing.
        lifecycle.return_source_side(reportclient, migration.uuid,
                                     instance_uuid, context=cctxt)
    return flows.undo_table(
        move_source_to_migration=return_source_side,
        claim_destination=lambda node: lifecycle.give_back(
            reportclient, instance_uuid, if_on=node),
        cast_evacuate=None)
