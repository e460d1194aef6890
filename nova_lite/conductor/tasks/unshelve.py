"""Unshelve of an offloaded server (seed 001, same pattern as evacuation):
schedule it again with its ports' resource requests, and hand it to the
chosen compute, which claims, points each port binding at itself with
its own provider as ``allocation``, and spawns it from its snapshot.

The API has set task_state ``unshelving``. The steps (a
``nova_lite.flow.Flow``; the table is ``unshelve_undos``):
``claim_destination`` -- the scheduler claims a host (undo: the claim is
given back) -- and ``cast_unshelve``. A failure (no valid host, the compute
too old to update port bindings, the cast) undoes them and leaves the
server SHELVED_OFFLOADED with a fault saying why, to be unshelved again.
While it works the conductor keeps the unshelve alive
(``conductor/move_leases.py``); it casts only while the server is still
unshelving, so a conductor whose unshelve was taken over stops there and
undoes nothing (UnexpectedTaskStateError).
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
from nova_lite.scheduler import rpcapi as scheduler_rpc

LOG = logging.getLogger(__name__)


class UnshelveTask:

    def __init__(self, context, instance, scheduler_rpcapi, compute_rpcapi,
                 reportclient, port_client=None, moves=None):
        self.moves = (moves if moves is not None else
                      move_leases.MovesInProgress())
        self.context = context
        self.instance = instance
        self.scheduler_rpcapi = scheduler_rpcapi
        self.compute_rpcapi = compute_rpcapi
        self.reportclient = reportclient
        self.port_client = port_client or network_api.PortClient()

    def execute(self):
        move_common.run_in_cell(
            self, 'Unshelve', 'conductor_unshelve_instance',
            instance_actions.UNSHELVE, self._unshelve, self._rollback)

    def _unshelve(self):
        spec = move_common.request_spec_for_move(
            self.context, self.instance, self.port_client)
        with self.moves.unshelve(self.cctxt, self.instance.uuid), \
                flows.Flow('unshelve', self.instance.uuid, unshelve_undos(
                    self.reportclient, self.instance.uuid),
                    not_ours=(exception.UnexpectedTaskStateError,)) as flow:
            flow.step('claim_destination')
            [[selection]] = scheduler_rpc.select_destinations_patiently(
                self.scheduler_rpcapi, self.context, spec,
                [self.instance.uuid], return_alternates=False)
            flow.settle(selection.compute_node_uuid)
            move_common.fill_provider_mapping(spec, selection)
            if spec.requested_resources and not \
                    self.compute_rpcapi.can_send_version(
                        self.cctxt, selection.service_host, '1.3'):
                raise exception.ComputeTooOldForPortResources(
                    action='unshelve', instance_uuid=self.instance.uuid,
                    host=selection.service_host,
                    have=self.compute_rpcapi.version_cap, need='1.3')
            LOG.info('Unshelving %s on %s', self.instance.uuid,
                     selection.service_host)
            self._still_unshelving()
            flow.step('cast_unshelve')
            self.compute_rpcapi.unshelve_instance(
                self.cctxt, self.instance, selection.service_host,
                image=spec.image, request_spec=spec, selection=selection)
            flow.done()

    def _still_unshelving(self):
        """UnexpectedTaskStateError unless the server is still unshelving
        (marking it alive): a takeover ended the unshelve, or a delete
        began."""
        if not objects.Instance.renew(self.cctxt, [self.instance.uuid],
                                      states.UNSHELVING):
            raise exception.UnexpectedTaskStateError(
                instance_uuid=self.instance.uuid,
                expected=states.UNSHELVING, actual='another task or none')

    def _rollback(self, error):
        """What a failure leaves once the flow's steps are undone: the
        server offloaded, with the reason as its fault."""
        if isinstance(error, exception.UnexpectedTaskStateError):
            LOG.warning('The unshelve of %s is no longer this conductor\'s '
                        '(%s); leaving it alone', self.instance.uuid, error)
            return
        lifecycle.record_fault(self.cctxt, self.instance, error)
        self.instance.vm_state = states.SHELVED_OFFLOADED
        self.instance.task_state = None
        try:
            self.instance.save(expected_task_state=[states.UNSHELVING])
        except (exception.InstanceNotFound,
                exception.UnexpectedTaskStateError) as e:
            LOG.info('%s changed during its unshelve: %s',
                     self.instance.uuid, e)


def unshelve_undos(reportclient, instance_uuid):
    """What undoes each step of an unshelve (the module's docstring)."""
    return flows.undo_table(
        claim_destination=lambda node: lifecycle.give_back(
            reportclient, instance_uuid, if_on=node),
        cast_unshelve=None)
