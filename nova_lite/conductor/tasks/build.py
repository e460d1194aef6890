"""The build flow: schedule, place each instance in its cell (or bury it
in cell0), hand it to its compute; and the reschedule of a failed spawn.

Every step that creates something has its undo beside it: an instance
created in a cell whose BuildRequest the user deleted meanwhile is removed
again, and the allocation the scheduler claimed for it given back; an
instance that cannot be scheduled ends in cell0 in ERROR with a fault,
mapped there, its BuildRequest gone -- never left in BUILD. A reschedule
claims the alternate host's allocation candidate in placement before it
sends the instance there, and moves on to the next alternate if placement
refuses.
"""

import time
import traceback

from oslo_log import log as logging
import oslo_messaging as messaging

from nova_lite.compute import instance_actions
from nova_lite.compute import states
from nova_lite import conf as nova_conf
from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import cell_mapping as cell_mapping_obj
from nova_lite.objects import instance_action as instance_action_obj
from nova_lite import quota
from nova_lite.scheduler.client import report

CONF = nova_conf.CONF
LOG = logging.getLogger(__name__)


def _fault_details(error):
    if isinstance(error, exception.NovaLiteException):
        return error.format_message()
    return ''.join(traceback.format_exception_only(type(error), error))


def _fault_message(error):
    if isinstance(error, messaging.MessagingTimeout):
        return ('The scheduler did not answer in time; is '
                'nova-lite-scheduler running?')
    if isinstance(error, exception.NoValidHost) and error.summary:
        return error.summary
    if isinstance(error, exception.NovaLiteException):
        return error.format_message()
    return '%s: %s' % (type(error).__name__, error)


def record_fault(context, instance, error, host=None, details=None):
    code = getattr(error, 'code', 500)
    fault = objects.InstanceFault(
        context, instance_uuid=instance.uuid, code=code,
        message=_fault_message(error)[:255],
        details=details or _fault_details(error), host=host)
    fault.create()
    return fault


class ScheduleAndBuildTask:

    def __init__(self, context, scheduler_rpcapi, compute_rpcapi,
                 build_requests, request_specs, image, reportclient,
                 requested_networks=None, action=instance_actions.CREATE,
                 claimed=False):
        self.context = context
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
        if not self.build_requests:
            return
        uuids = [br.instance_uuid for br in self.build_requests]
        if not self._quota_holds(uuids):
            return
        try:
            host_lists = self._select_destinations(uuids)
        except Exception as error:
            if not isinstance(error, (exception.NoValidHost,
                                      messaging.MessagingTimeout)):
                LOG.exception('Scheduling of %s failed', uuids)
            else:
                LOG.warning('Scheduling of %s failed: %s', uuids,
                            _fault_message(error))
            for build_request, spec in zip(self.build_requests,
                                           self.request_specs):
                # A scheduler that claimed and then died (or whose answer
                # came too late) leaves claims nobody else would remove.
                give_back(self.reportclient, build_request.instance_uuid)
                bury_in_cell0(self.context, build_request, spec, error,
                              self.requested_networks, self.action)
            return
        for build_request, spec, host_list in zip(
                self.build_requests, self.request_specs, host_lists):
            try:
                self._build_one(build_request, spec, host_list)
            except Exception as error:
                LOG.exception('Placing %s on %s failed',
                              build_request.instance_uuid,
                              host_list[0].service_host)
                give_back(self.reportclient, build_request.instance_uuid)
                bury_in_cell0(self.context, build_request, spec, error,
                              self.requested_networks, self.action)

    def _select_destinations(self, uuids):
        """The scheduler's answer. While the scheduler cannot reach
        placement (nothing was chosen or kept) it is asked again, after
        1, 2, 4, 8, 8... seconds, for up to [conductor]
        placement_outage_wait: a placement restart delays builds instead
        of failing them."""
        wait = CONF.conductor.placement_outage_wait
        if CONF.conductor.interrupted_task_timeout:
            wait = min(wait, CONF.conductor.interrupted_task_timeout // 2)
        deadline = time.monotonic() + wait
        pause = 1
        while True:
            try:
                return self.scheduler_rpcapi.select_destinations(
                    self.context, self.request_specs[0], uuids)
            except exception.PlacementUnreachable as error:
                if time.monotonic() + pause > deadline:
                    raise
                LOG.warning('Scheduling of %s waits for placement (%s); '
                            'asking again in %d s', uuids,
                            error.format_message(), pause)
                time.sleep(pause)
                pause = min(pause * 2, 8)

    def _claim(self):
        """Own each build request before working on it. One this conductor
        cannot claim was deleted by its user, or taken over by another
        conductor because this cast waited too long in the queue (every
        conductor was down): either way it is not ours to build."""
        kept = [(br, spec) for br, spec in zip(self.build_requests,
                                                self.request_specs)
                if objects.BuildRequest.claim(self.context,
                                              br.instance_uuid)]
        skipped = ({br.instance_uuid for br in self.build_requests} -
                   {br.instance_uuid for br, _ in kept})
        if skipped:
            LOG.info('Not building %s: deleted, or taken over by another '
                     'conductor', ', '.join(sorted(skipped)))
        self.build_requests = [br for br, _ in kept]
        self.request_specs = [spec for _, spec in kept]

    def _quota_holds(self, uuids):
        """Re-check the project's quota now that these servers count:
        another request may have used it up since the API checked. Over
        quota, every server of the request is buried in cell0."""
        try:
            quota.recheck(self.context, self.build_requests[0].project_id)
        except exception.OverQuota as error:
            LOG.warning('Not building %s: %s', uuids, error.format_message())
            for build_request, spec in zip(self.build_requests,
                                           self.request_specs):
                bury_in_cell0(self.context, build_request, spec, error,
                              self.requested_networks, self.action)
            return False
        return True

    def _cell(self, cell_uuid):
        if cell_uuid not in self._cells:
            self._cells[cell_uuid] = objects.CellMapping.get_by_uuid(
                self.context, cell_uuid)
        return self._cells[cell_uuid]

    def _build_one(self, build_request, spec, host_list):
        chosen, alternates = host_list[0], host_list[1:]
        cell = self._cell(chosen.cell_uuid)
        with nova_context.target_cell(self.context, cell) as cctxt:
            # A copy: if this step fails the BuildRequest's instance is
            # buried in cell0 as it came from the API.
            instance = build_request.instance.obj_clone()
            instance._context = cctxt
            instance.create()
            if self.action == instance_actions.REBUILD:
                self._bring_history_from_cell0(cctxt, instance.uuid)
            instance_actions.record_action(cctxt, instance.uuid, self.action)
            mapping = None
            try:
                mapping = objects.InstanceMapping.get_by_instance_uuid(
                    self.context, instance.uuid)
                mapping.cell_mapping = cell
                mapping.save()
                build_request.destroy()
            except exception.BuildRequestNotFound:
                # The user deleted the server while it was scheduled: undo
                # the instance we just created; the API already removed the
                # request spec and marked the mapping.
                LOG.info('Instance %s was deleted during scheduling; '
                         'not building it', instance.uuid)
                instance.destroy()
                give_back(self.reportclient, instance.uuid)
                return
            except Exception:
                # Undo before the caller buries it in cell0, so the
                # instance never exists twice.
                self._undo_placement(instance, mapping)
                raise
            if self.requested_networks is not None:
                # What the compute binds (a rebuild from cell0 passes them
                # here, not in the stored spec).
                spec.requested_networks = self.requested_networks
            try:
                self.compute_rpcapi.build_and_run_instance(
                    cctxt, instance, chosen, request_spec=spec,
                    host_list=alternates, limits=chosen.limits,
                    image=self.image)
            except Exception as error:
                LOG.exception('Cannot reach compute %s for %s',
                              chosen.service_host, instance.uuid)
                give_back(self.reportclient, instance.uuid)
                record_fault(cctxt, instance, error)
                instance.vm_state = states.ERROR
                instance.task_state = None
                instance.save()

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

    @staticmethod
    def _undo_placement(instance, mapping):
        try:
            instance.destroy(hard_delete=True)
            if mapping is not None and mapping.cell_mapping is not None:
                mapping.cell_mapping = None
                mapping.save()
        except Exception:
            LOG.exception('Could not undo the placement of %s',
                          instance.uuid)


def bury_in_cell0(context, build_request, spec, error,
                  requested_networks=None, action=instance_actions.CREATE):
    """Create the instance in cell0 in ERROR with ``error`` as its fault;
    its spec keeps ``requested_networks`` for a rebuild from cell0. Its
    history there shows ``action`` with the failed scheduling step."""
    if requested_networks is not None:
        spec.requested_networks = requested_networks
        spec.save()
    cell0 = objects.CellMapping.get_by_uuid(context,
                                            cell_mapping_obj.CELL0_UUID)
    with nova_context.target_cell(context, cell0) as cctxt:
        instance = build_request.instance
        instance._context = cctxt
        instance.vm_state = states.ERROR
        instance.task_state = None
        try:
            instance.create()
        except exception.Conflict:
            instance = objects.Instance.get_by_uuid(cctxt, instance.uuid)
        record_fault(cctxt, instance, error)
        instance_actions.record_action(cctxt, instance.uuid, action)
        with instance_actions.event(cctxt, instance.uuid,
                                    'conductor_schedule_and_build_instances',
                                    action=action) as step:
            step.fail(_fault_message(error))
        mapping = objects.InstanceMapping.get_by_instance_uuid(
            context, instance.uuid)
        mapping.cell_mapping = cell0
        mapping.save()
        try:
            build_request.destroy()
        except exception.BuildRequestNotFound:
            LOG.info('Instance %s was deleted during scheduling; removing '
                     'it from cell0', instance.uuid)
            instance.destroy()


def fail_interrupted_build(context, instance, error, host=None):
    """Put a build nobody finishes in ERROR on no host with ``error`` as
    its fault -- only if it is still BUILDING in the task state it was
    read in, so a build that resumed meanwhile wins. True if it did; the
    caller then frees what the server held."""
    task = instance.task_state
    instance.vm_state = states.ERROR
    instance.task_state = None
    instance.host = None
    instance.node = None
    try:
        instance.save(expected_vm_state=[states.BUILDING],
                      expected_task_state=[task])
    except (exception.InstanceNotFound, exception.UnexpectedTaskStateError):
        return False
    record_fault(context, instance, error, host=host)
    return True


def give_back(reportclient, instance_uuid):
    """Delete what the scheduler claimed for an instance that will not be
    built; if placement cannot be reached the compute audit removes it
    later (its consumer is gone or not on that host)."""
    try:
        reportclient.delete_allocations(instance_uuid)
    except (report.PlacementUnavailable, report.PlacementConflict) as e:
        LOG.warning('Could not give back the allocation of %s: %s',
                    instance_uuid, e)


def _claim_alternate(reportclient, instance, selection):
    """Claim ``selection``'s allocation candidate for ``instance``; True
    when it holds (or the selection carries none: the compute claims)."""
    request = selection.allocation
    if request is None:
        return True
    try:
        return reportclient.claim_resources(
            instance.uuid, request, instance.project_id, instance.user_id)
    except (report.PlacementUnavailable, report.PlacementConflict) as e:
        LOG.warning('Cannot claim %s on %s: %s', instance.uuid,
                    selection.service_host, e)
        return False


def reschedule(context, compute_rpcapi, instances, request_spec,
               host_lists, image, reportclient):
    """Send each instance whose spawn failed to its next alternate host
    that placement still has room on."""
    for instance, host_list in zip(instances, host_lists):
        host_list = list(host_list)
        while host_list and not _claim_alternate(reportclient, instance,
                                                 host_list[0]):
            LOG.info('Alternate %s has no room left for %s in placement',
                     host_list[0].service_host, instance.uuid)
            host_list.pop(0)
        if not host_list:
            error = exception.MaxRetriesExceeded(
                reason='Exhausted all hosts available for retrying build '
                       'failures for instance %s.' % instance.uuid)
            record_fault(context, instance, error)
            instance.vm_state = states.ERROR
            instance.task_state = None
            instance.save()
            continue
        chosen, alternates = host_list[0], host_list[1:]
        LOG.info('Rescheduling %s to %s (%d alternates left)',
                 instance.uuid, chosen.service_host, len(alternates))
        try:
            compute_rpcapi.build_and_run_instance(
                context, instance, chosen, request_spec=request_spec,
                host_list=alternates, limits=chosen.limits, image=image)
        except Exception as error:
            LOG.exception('Cannot reach compute %s for %s',
                          chosen.service_host, instance.uuid)
            give_back(reportclient, instance.uuid)
            record_fault(context, instance, error)
            instance.vm_state = states.ERROR
            instance.task_state = None
            instance.save()
