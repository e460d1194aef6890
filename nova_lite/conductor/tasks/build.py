"""The build flow: schedule, place each instance in its cell (or bury it
in cell0), hand it to its compute; and the reschedule of a failed spawn.

Each server's build is a ``nova_lite.flow.Flow``; its steps, with what
undoes each (``build_undos``):

1. ``schedule`` -- the scheduler claims the chosen host in placement
   (undo: the claim is given back);
2. ``create_in_cell`` -- the instance is created in the chosen cell, with
   its history (undo: the record is removed);
3. ``map_to_cell`` -- the instance mapping points at that cell (undo: it
   points at no cell again);
4. ``delete_build_request`` -- the build request is deleted: from here the
   server is its cell's and its compute's, and nothing is undone (a cast
   that cannot be sent puts it in ERROR holding nothing).

When a step fails, the steps taken are undone newest first and the server
is buried: ``bury_in_cell0`` -- in cell0 in ERROR with a fault, mapped
there (undo: the cell0 record is removed and the mapping cleared) -- then
``delete_build_request``. A server whose user deleted it meanwhile is
undone and not buried.

The build requests are leased (``conductor/leases.py``), and every step is
recorded on the build request in the same UPDATE that checks the lease:
a conductor that lost the build stops before changing anything of its new
owner's, and the new owner reads the steps and replays their undos before
it builds the server again (``conductor/tasks/recover.py``). The last,
``delete_build_request``, is not recorded: it has no undo, and its DELETE
is itself conditional on the lease.

A reschedule claims the alternate host's allocation candidate in
placement before it sends the instance there, and moves on to the next
alternate if placement refuses.
"""

import itertools

from oslo_log import log as logging
import oslo_messaging as messaging

from nova_lite.compute import instance_actions
from nova_lite.compute import states
from nova_lite.conductor import leases as build_leases
from nova_lite import conf as nova_conf
from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite import flow as flows
from nova_lite import lifecycle
from nova_lite import objects
from nova_lite.scheduler import rpcapi as scheduler_rpc
from nova_lite import outage
from nova_lite.objects import cell_mapping as cell_mapping_obj
from nova_lite.objects import instance_action as instance_action_obj
from nova_lite import quota

CONF = nova_conf.CONF
LOG = logging.getLogger(__name__)


class ScheduleAndBuildTask:

    def __init__(self, context, scheduler_rpcapi, compute_rpcapi,
                 build_requests, request_specs, image, reportclient,
                 requested_networks=None, action=instance_actions.CREATE,
                 claimed=False, leases=None):
        self.context = context
        # This conductor's leases on its builds (renewed by its manager).
        self.leases = leases or build_leases.BuildLeases()
        # Whether the caller has claimed the build requests already (the
        # takeover of an interrupted build has); else execute() does.
        self.claimed = claimed
        # What the servers' action history calls this build: create, or
        # rebuild for a server built again from cell0.
        self.action = action
        # A NetworkRequestList or None: kept in the spec of a server that
        # is buried in cell0, for its rebuild.
        self.requested_networks = requested_networks
        self.scheduler_rpcapi = scheduler_rpcapi
        self.compute_rpcapi = compute_rpcapi
        self.reportclient = reportclient
        self.build_requests = build_requests
        self.request_specs = request_specs
        self.image = image
        self._cells = {}

    def execute(self):
        if not self.claimed:
            self._claim()
        try:
            self._execute()
        finally:
            for build_request in self.build_requests:
                self.leases.release(build_request.instance_uuid)

    def _flow(self, build_request):
        uuid = build_request.instance_uuid
        return flows.Flow(
            'build', uuid,
            build_undos(self.context, self.reportclient, uuid, self.action,
                        owner=self.leases.owner),
            record=lambda steps: self.leases.record(
                self.context, uuid, {'action': self.action, 'steps': steps}),
            not_ours=(exception.BuildTakenOver,))

    def _execute(self):
        """Build every server; one a database blink interrupted (its
        steps undone) is tried again after each of ``outage.pauses()``,
        then left to a takeover: a blink delays a build, it does not fail
        it."""
        pending = list(zip(self.build_requests, self.request_specs))
        for pause in itertools.chain(outage.pauses(), [None]):
            if pending:
                pending = self._attempt(pending)
            if not pending:
                return
            uuids = [br.instance_uuid for br, _ in pending]
            if pause is None:
                LOG.warning('The database is still unavailable to the build '
                            'of %s; its build request waits for a takeover',
                            uuids)
                return
            LOG.warning('The build of %s waits for the database; trying '
                        'again in %d s', uuids, pause)
            outage.sleep(pause)

    def _attempt(self, pending):
        """One try at building ``pending`` ([(build request, spec)]); the
        ones to try again."""
        builds = [(br, spec, self._flow(br)) for br, spec in pending]
        again = []
        try:
            quota.recheck(self.context, builds[0][0].project_id)
        except exception.OverQuota as error:
            # Another request may have used the quota up since the API
            # checked: every server of this one is buried.
            LOG.warning('Not building %s: %s',
                        [br.instance_uuid for br, _, _ in builds],
                        error.format_message())
            for build in builds:
                self._fail(*build, error=error)
            return again
        scheduled = []
        recorded = self._record_schedule_steps(builds)
        for build_request, spec, flow in builds:
            try:
                # One not recorded with the others (no longer ours, or
                # the database blinked) is recorded on its own, which
                # says why it fails.
                flow.step('schedule',
                          record=build_request.instance_uuid not in recorded)
            except Exception as error:
                if self._fail(build_request, spec, flow, error=error):
                    again.append((build_request, spec))
                continue
            scheduled.append((build_request, spec, flow))
        if not scheduled:
            return again
        uuids = [br.instance_uuid for br, _, _ in scheduled]
        try:
            host_lists = scheduler_rpc.select_destinations_patiently(
                self.scheduler_rpcapi, self.context, scheduled[0][1], uuids)
        except Exception as error:
            if not isinstance(error, (exception.NoValidHost,
                                      messaging.MessagingTimeout)):
                LOG.exception('Scheduling of %s failed', uuids)
            else:
                LOG.warning('Scheduling of %s failed: %s', uuids,
                            lifecycle.fault_message(error))
            for build in scheduled:
                self._fail(*build, error=error)
            return again
        for (build_request, spec, flow), host_list in zip(scheduled,
                                                          host_lists):
            try:
                self._build_one(build_request, spec, host_list, flow)
            except Exception as error:
                if not isinstance(error, _EXPECTED):
                    LOG.exception('Placing %s on %s failed',
                                  build_request.instance_uuid,
                                  host_list[0].service_host)
                if self._fail(build_request, spec, flow, error=error):
                    again.append((build_request, spec))
        return again

    def _record_schedule_steps(self, builds):
        """The first step of every build of the cast, recorded in one
        UPDATE (``_attempt`` makes each flow afresh: all are at their
        start): the uuids whose record it wrote."""
        try:
            return self.leases.record_first_step(
                self.context, [br.instance_uuid for br, _, _ in builds],
                {'action': self.action, 'steps': [['schedule', None]]})
        except Exception as error:
            LOG.warning('Could not record the start of the builds of %s '
                        'together: %s', [br.instance_uuid
                                         for br, _, _ in builds], error)
            return set()

    def _fail(self, build_request, spec, flow, error):
        """Undo what the build of one server did and bury it in cell0 --
        while the build is still ours (see the module's docstring). A
        server its user deleted meanwhile is undone and not buried; one
        another conductor took over is left to it, untouched. One that a
        database blink interrupted is undone and not buried: True, to be
        tried again."""
        uuid = build_request.instance_uuid
        if isinstance(error, exception.DatabaseUnavailable):
            try:
                return (self.leases.holds(self.context, uuid) and
                        flow.undo())
            except exception.DatabaseUnavailable:
                # Still down: the steps recorded are undone by the
                # takeover once the lease runs out.
                return False
        if isinstance(error, exception.BuildRequestNotFound):
            if not _deleted_by_user(self.context, uuid):
                # Another conductor took the build over and finished it
                # while this one stalled: what is in the cells is its.
                LOG.warning('The build of %s was finished by another '
                            'conductor; leaving it alone', uuid)
                return
            LOG.info('Instance %s was deleted during its build; undoing '
                     'what was done for it', uuid)
            flow.undo()
            return
        if isinstance(error, exception.BuildTakenOver) or \
                not self.leases.holds(self.context, uuid):
            LOG.warning('Not undoing the build of %s: it is no longer '
                        'this conductor\'s', uuid)
            return
        flow.undo()
        try:
            flow.step('bury_in_cell0')
            lifecycle.bury_in_cell0(self.context, build_request, spec,
                                    error, self.requested_networks,
                                    self.action, leases=self.leases)
            flow.done()
        except (exception.BuildTakenOver,
                exception.BuildRequestNotFound) as gone:
            LOG.warning('Not burying %s: %s', uuid, gone.format_message())
        except Exception:
            # Its build request stays: once the lease runs out, a takeover
            # builds it again (and so do its undos).
            LOG.exception('Could not bury %s in cell0', uuid)
            flow.undo()

    def _claim(self):
        """Own each build request before working on it. One this conductor
        cannot claim was deleted by its user, or taken over by another
        conductor because this cast waited too long in the queue (every
        conductor was down): either way it is not ours to build."""
        claimed = self.leases.claim_new(
            self.context, [br.instance_uuid for br in self.build_requests])
        kept = [(br, spec) for br, spec in zip(self.build_requests,
                                               self.request_specs)
                if br.instance_uuid in claimed]
        skipped = ({br.instance_uuid for br in self.build_requests} -
                   {br.instance_uuid for br, _ in kept})
        if skipped:
            LOG.info('Not building %s: deleted, or taken over by another '
                     'conductor', ', '.join(sorted(skipped)))
        self.build_requests = [br for br, _ in kept]
        self.request_specs = [spec for _, spec in kept]

    def _cell(self, cell_uuid):
        if cell_uuid not in self._cells:
            self._cells[cell_uuid] = objects.CellMapping.get_by_uuid(
                self.context, cell_uuid)
        return self._cells[cell_uuid]

    def _build_one(self, build_request, spec, host_list, flow):
        chosen, alternates = host_list[0], host_list[1:]
        cell = self._cell(chosen.cell_uuid)
        with nova_context.target_cell(self.context, cell) as cctxt:
            # A copy: if a step fails the BuildRequest's instance is
            # buried in cell0 as it came from the API.
            instance = build_request.instance.obj_clone()
            instance._context = cctxt
            flow.step('create_in_cell', {
                'cell': cell.uuid, 'request_id': self.context.request_id})
            instance.create()
            try:
                if self.action == instance_actions.REBUILD:
                    self._bring_history_from_cell0(cctxt, instance.uuid)
                instance_actions.record_action(cctxt, instance.uuid,
                                               self.action)
                # Recorded with the mapping's change, in its
                # transaction.
                flow.step('map_to_cell', cell.uuid, record=False)
                self.leases.map_to_cell(self.context, instance.uuid, cell,
                                        {'action': self.action,
                                         'steps': flow.steps})
                # Not recorded: it has no undo, so a takeover undoes
                # the same steps with or without it, and the DELETE holds
                # only while this task owns the build (as a record
                # would have checked).
                flow.step('delete_build_request', record=False)
                self.leases.destroy(build_request)
            except exception.BuildTakenOver:
                # Lost after the lease was last checked: the record made
                # since is a stray beside the new owner's build.
                lifecycle.remove_own_record(instance)
                raise
            flow.done()
            if self.requested_networks is not None:
                # What the compute binds (a rebuild from cell0 passes them
                # here, not in the stored spec).
                spec.requested_networks = self.requested_networks
            _send_to_compute(cctxt, self.compute_rpcapi, self.reportclient,
                             instance, chosen, spec, alternates, self.image)

    def _bring_history_from_cell0(self, cctxt, instance_uuid):
        """A server rebuilt from cell0 keeps its history: the actions it
        gathered there (its create, earlier rebuilds) move with it."""
        cell0 = objects.CellMapping.get_by_uuid(self.context,
                                                cell_mapping_obj.CELL0_UUID)
        try:
            with nova_context.target_cell(self.context, cell0) as c0ctxt:
                instance_action_obj.move_history(c0ctxt, cctxt,
                                                 instance_uuid)
        except Exception:
            LOG.exception('Could not move the action history of %s from '
                          'cell0; it stays there', instance_uuid)


# Failures of a build step that are logged without a traceback.
_EXPECTED = (exception.BuildTakenOver, exception.BuildRequestNotFound,
             exception.DatabaseUnavailable)


def build_undos(context, reportclient, instance_uuid, action, owner=None):
    """What undoes each step of the ``action`` build of ``instance_uuid``
    (see the module's docstring), for the flow that runs it and for a
    takeover that replays a crashed one -- ``owner``, the build's lease
    holder: the mapping is changed only while it holds the build. Each is
    idempotent."""
    return flows.undo_table(
        schedule=lambda _: lifecycle.give_back(reportclient, instance_uuid),
        create_in_cell=lambda created: _take_back_from_cell(
            context, instance_uuid, action, **created),
        map_to_cell=lambda _: _unmap(context, instance_uuid, owner),
        bury_in_cell0=lambda _: (
            _remove_from_cell(context, cell_mapping_obj.CELL0_UUID,
                              instance_uuid),
            _unmap(context, instance_uuid, owner)),
        delete_build_request=None)


def _deleted_by_user(context, instance_uuid):
    """Whether the API deleted this server (its mapping is gone or queued
    for delete) -- rather than another conductor having built it."""
    try:
        mapping = objects.InstanceMapping.get_by_instance_uuid(
            context, instance_uuid)
    except exception.InstanceMappingNotFound:
        return True
    return bool(mapping.queued_for_delete)


def _take_back_from_cell(context, instance_uuid, action, cell,
                         request_id):
    """The undo of ``create_in_cell``: the record goes, and so does the
    action the build recorded there; a server rebuilt from cell0 takes
    the history it had brought along back to cell0."""
    _remove_from_cell(context, cell, instance_uuid)
    cell_mapping = objects.CellMapping.get_by_uuid(context, cell)
    with nova_context.target_cell(context, cell_mapping) as cctxt:
        instance_action_obj.forget_action(cctxt, instance_uuid, request_id)
        if action == instance_actions.REBUILD:
            cell0 = objects.CellMapping.get_by_uuid(
                context, cell_mapping_obj.CELL0_UUID)
            with nova_context.target_cell(context, cell0) as c0ctxt:
                instance_action_obj.move_history(cctxt, c0ctxt,
                                                 instance_uuid)


def _remove_from_cell(context, cell_uuid, instance_uuid):
    cell = objects.CellMapping.get_by_uuid(context, cell_uuid)
    with nova_context.target_cell(context, cell) as cctxt:
        try:
            objects.Instance.get_by_uuid(cctxt, instance_uuid).destroy(
                hard_delete=True)
        except exception.InstanceNotFound:
            pass


def _unmap(context, instance_uuid, owner=None):
    try:
        mapping = objects.InstanceMapping.get_by_instance_uuid(
            context, instance_uuid)
    except exception.InstanceMappingNotFound:
        return  # its user deleted it
    if mapping.cell_mapping is None:
        return
    mapping.cell_mapping = None
    try:
        mapping.save(build_owner=owner)
    except (exception.BuildTakenOver, exception.BuildRequestNotFound,
            exception.InstanceMappingNotFound) as gone:
        LOG.info('Leaving the mapping of %s as it is: %s', instance_uuid,
                 gone.format_message())


def reschedule(context, compute_rpcapi, instances, request_spec,
               host_lists, image, reportclient, scheduler_api=None):
    """Send each instance whose spawn failed (or was cut off) to its next
    alternate host that placement still has room on; with none left but
    attempts left ([scheduler] max_attempts), to a host the scheduler
    chooses now (the hosts tried are in the spec's ``retry``). A
    ``request_spec`` of None is read from the API database: a compute
    that restarted in the middle of a build no longer has it."""
    for instance, host_list in zip(instances, host_lists):
        spec = request_spec
        if spec is None:
            try:
                spec = objects.RequestSpec.get_by_instance_uuid(
                    context, instance.uuid)
            except exception.RequestSpecNotFound as error:
                # Deleted meanwhile (its delete drops the spec), or never
                # kept: nothing to schedule it from.
                lifecycle.set_error(context, instance, error)
                continue
        host_list = list(host_list)
        while host_list and not lifecycle.claim_alternate(
                reportclient, instance, host_list[0]):
            LOG.info('Alternate %s has no room left for %s in placement',
                     host_list[0].service_host, instance.uuid)
            host_list.pop(0)
        error = None
        if not host_list and scheduler_api is not None:
            host_list, error = _schedule_afresh(context, scheduler_api,
                                                instance, spec)
        if not host_list:
            error = error or exception.MaxRetriesExceeded(
                reason='Exhausted all hosts available for retrying build '
                       'failures for instance %s.' % instance.uuid)
            lifecycle.set_error(context, instance, error)
            continue
        chosen, alternates = host_list[0], host_list[1:]
        LOG.info('Rescheduling %s to %s (%d alternates left)',
                 instance.uuid, chosen.service_host, len(alternates))
        _send_to_compute(context, compute_rpcapi, reportclient, instance,
                         chosen, spec, alternates, image)


def _schedule_afresh(context, scheduler_api, instance, spec):
    """([chosen, alternates...], None) from the scheduler for an instance
    with attempts left, or ([], why not)."""
    tried = spec.retry.num_attempts if spec.retry is not None else 0
    if tried >= CONF.scheduler.max_attempts:
        return [], None
    try:
        [host_list] = scheduler_rpc.select_destinations_patiently(
            scheduler_api, context, spec, [instance.uuid])
    except (exception.NoValidHost, messaging.MessagingTimeout) as error:
        LOG.warning('No host for %s after %d attempt(s): %s', instance.uuid,
                    tried, lifecycle.fault_message(error))
        return [], error
    return host_list, None


def _send_to_compute(context, compute_rpcapi, reportclient, instance,
                     chosen, spec, alternates, image):
    """Cast the build to ``chosen``'s compute, again while the broker is
    away (a repeat reaching the compute changes nothing: see the compute's
    build flow); one that cannot be sent at all puts the server in ERROR
    holding nothing."""
    tries = itertools.count()

    def send():
        # Each try after the first keeps the server's build alive, as its
        # conductor's (by the database's clock): a build whose cast waits
        # for the broker is not one whose cast was lost, and the takeover
        # of stuck builds leaves it alone. A server no longer waiting for
        # a host (deleted meanwhile) is not sent, and gives back the
        # claim the compute would have dropped.
        if next(tries) and not _still_waiting(context, instance):
            LOG.info('Not sending the build of %s: it no longer waits for '
                     'a host', instance.uuid)
            lifecycle.give_back(reportclient, instance.uuid,
                                if_on=chosen.compute_node_uuid)
            return
        compute_rpcapi.build_and_run_instance(
            context, instance, chosen, request_spec=spec,
            host_list=alternates, limits=chosen.limits, image=image)

    try:
        outage.ride_out(send, outage.BROKER_AWAY,
                        'Sending the build of %s to %s' % (
                            instance.uuid, chosen.service_host))
    except Exception as error:
        LOG.exception('Cannot reach compute %s for %s',
                      chosen.service_host, instance.uuid)
        lifecycle.give_back(reportclient, instance.uuid,
                            if_on=chosen.compute_node_uuid)
        lifecycle.set_error(context, instance, error)


def _still_waiting(context, instance):
    """Renew the build of ``instance`` while it waits for a host; whether
    it still does. A database blink as well as the broker's is no reason
    to give up the cast: the renewal is then skipped (the server may look
    stale a little sooner), and the cast is tried as it would have been."""
    try:
        return bool(objects.Instance.renew(context, [instance.uuid],
                                           states.SCHEDULING))
    except exception.DatabaseUnavailable as e:
        LOG.warning('Cannot renew the build of %s while its cast waits '
                    '(%s); trying the cast anyway', instance.uuid, e)
        return True
