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

The servers of one cast bound for one cell are placed together
(``_place_together``): steps 2 to 4 are each one transaction for all of
them, which writes for all or for none; a step that cannot be taken for
all (one build was taken over or deleted, the database blinked) is taken
for each alone, which finds the one that cannot go on and why.

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

import contextlib
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
        by_cell = {}
        for (build_request, spec, flow), host_list in zip(scheduled,
                                                          host_lists):
            by_cell.setdefault(host_list[0].cell_uuid, []).append(
                _Placing(build_request, spec, flow, host_list))
        for cell_uuid, placing in by_cell.items():
            if len(placing) > 1 and self.action == instance_actions.CREATE:
                try:
                    cell = self._cell(cell_uuid)
                except Exception:
                    cell = None  # each build alone finds out why
                if cell is not None:
                    self._place_together(cell, placing, again)
                    continue
            for build in placing:
                self._place_alone(build, again)
        return again

    def _failed(self, build, error, again):
        """``_fail`` of one build whose placing raised ``error``; one to
        try again joins ``again``."""
        if not isinstance(error, _EXPECTED):
            LOG.error('Placing %s on %s failed',
                      build.request.instance_uuid,
                      build.host_list[0].service_host,
                      exc_info=(type(error), error, error.__traceback__))
        if self._fail(build.request, build.spec, build.flow, error=error):
            again.append((build.request, build.spec))

    def _place_alone(self, build, again):
        try:
            self._build_one(build.request, build.spec, build.host_list,
                            build.flow)
        except Exception as error:
            self._failed(build, error, again)

    def _record_schedule_steps(self, builds):
        """The first step of every build of the cast, recorded in one
        UPDATE (``_attempt`` makes each flow afresh: all are at their
        start): the uuids whose record it wrote."""
        try:
            return self.leases.record_together(
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
        chosen = host_list[0]
        cell = self._cell(chosen.cell_uuid)
        with nova_context.target_cell(self.context, cell) as cctxt:
            # A copy: if a step fails the BuildRequest's instance is
            # buried in cell0 as it came from the API.
            instance = build_request.instance.obj_clone()
            instance._context = cctxt
            flow.step('create_in_cell', self._created_in(cell))
            instance.create()
            with _fenced(instance):
                if self.action == instance_actions.REBUILD:
                    self._bring_history_from_cell0(cctxt, instance.uuid)
                instance_actions.record_action(cctxt, instance.uuid,
                                               self.action)
                self._map_one(flow, instance, cell)
                self._delete_one(flow, build_request)
            flow.done()
            self._send(cctxt, instance, spec, host_list)

    def _created_in(self, cell):
        """What the step create_in_cell records: its undo's arguments."""
        return {'cell': cell.uuid, 'request_id': self.context.request_id}

    def _map_one(self, flow, instance, cell, declare=True):
        # Recorded with the mapping's change, in its transaction.
        if declare:
            flow.step('map_to_cell', cell.uuid, record=False)
        self.leases.map_to_cell(self.context, instance.uuid, cell,
                                {'action': self.action,
                                 'steps': flow.steps})

    def _delete_one(self, flow, build_request, declare=True):
        # Not recorded: it has no undo, so a takeover undoes the same
        # steps with or without it, and the DELETE holds only while this
        # task owns the build (as a record would have checked).
        if declare:
            flow.step('delete_build_request', record=False)
        self.leases.destroy(build_request)

    def _send(self, cctxt, instance, spec, host_list):
        if self.requested_networks is not None:
            # What the compute binds (a rebuild from cell0 passes them
            # here, not in the stored spec).
            spec.requested_networks = self.requested_networks
        _send_to_compute(cctxt, self.compute_rpcapi, self.reportclient,
                         instance, host_list[0], spec, host_list[1:],
                         self.image)

    def _place_together(self, cell, placing, again):
        """``_build_one`` of several builds for one ``cell``, each of its
        steps taken for all of them at once: one UPDATE records the
        first, one transaction creates the instances with their
        actions, one maps them and records it, one DELETE removes their
        build requests; then each is sent to its compute. A statement
        that does not hold for every build (one was taken over, deleted,
        or the database blinked) changes nothing, and that step is taken
        for each build alone, which finds out which one cannot go on and
        why; the others go on together."""
        created_in = self._created_in(cell)
        first = placing[0].flow.steps
        alike = [b for b in placing if b.flow.steps == first]
        for build in placing:
            if build not in alike:
                self._place_alone(build, again)
        try:
            held = self.leases.record_together(
                self.context, [b.uuid for b in alike],
                {'action': self.action,
                 'steps': first + [['create_in_cell', created_in]]})
        except Exception as error:
            LOG.warning('Could not record the placing of %s together: %s',
                        [b.uuid for b in alike], error)
            held = set()
        for build in alike:
            if build.uuid not in held:
                self._place_alone(build, again)
        placing = self._declare([b for b in alike if b.uuid in held],
                                again, 'create_in_cell', created_in)

        with nova_context.target_cell(self.context, cell) as cctxt:
            for build in placing:
                build.instance = build.request.instance.obj_clone()
                build.instance._context = cctxt
            placing = self._together(
                placing, again, None,
                lambda builds: objects.Instance.create_all(
                    cctxt, [b.instance for b in builds], self.action),
                lambda build: (build.instance.create(),
                               instance_actions.record_action(
                                   cctxt, build.uuid, self.action)))
            placing = self._together(
                placing, again, ('map_to_cell', cell.uuid),
                lambda builds: self.leases.map_all_to_cell(
                    self.context, [b.uuid for b in builds], cell,
                    {'action': self.action, 'steps': builds[0].flow.steps}),
                lambda build: self._map_one(build.flow, build.instance,
                                            cell, declare=False))
            placing = self._together(
                placing, again, ('delete_build_request', None),
                lambda builds: self.leases.destroy_all(
                    self.context, [b.uuid for b in builds]),
                lambda build: self._delete_one(build.flow, build.request,
                                               declare=False))
            for build in placing:
                build.flow.done()
                self._send(cctxt, build.instance, build.spec,
                           build.host_list)

    def _together(self, placing, again, step, all_at_once, each):
        """Take a step of the builds ``placing`` -- ``step``, (name, arg)
        of the flows' step, declared here, or None for one declared
        already -- for all of them with ``all_at_once(builds)``, which
        does all or nothing (False: nothing done); else with
        ``each(build)``. The builds that took it; one that failed is
        undone and buried (``_failed``)."""
        if step is not None:
            placing = self._declare(placing, again, *step)
        if not placing:
            return placing
        try:
            if all_at_once(placing) is not False:
                return placing
        except Exception as error:
            LOG.warning('Could not take step %s of %s together: %s',
                        step[0] if step else 'create_in_cell',
                        [b.uuid for b in placing], error)
        went_on = []
        for build in placing:
            try:
                with _fenced(build.instance):
                    each(build)
            except Exception as error:
                self._failed(build, error, again)
                continue
            went_on.append(build)
        return went_on

    def _declare(self, placing, again, name, arg):
        """``flow.step(name, arg)`` of each build, unrecorded (what takes
        it records it); the builds that may take it."""
        declared = []
        for build in placing:
            try:
                build.flow.step(name, arg, record=False)
            except Exception as error:
                self._failed(build, error, again)
                continue
            declared.append(build)
        return declared

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


class _Placing:
    """One server of a cast on its way to its cell: its build request,
    spec, flow and hosts, and its instance once created."""

    def __init__(self, request, spec, flow, host_list):
        self.request = request
        self.spec = spec
        self.flow = flow
        self.host_list = host_list
        self.uuid = request.instance_uuid
        self.instance = None


@contextlib.contextmanager
def _fenced(instance):
    """A build that finds it lost its lease after it created ``instance``
    removes that record, a stray beside the new owner's build."""
    try:
        yield
    except exception.BuildTakenOver:
        if instance is not None and instance.obj_attr_is_set('id'):
            lifecycle.remove_own_record(instance)
        raise


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
