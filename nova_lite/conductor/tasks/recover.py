"""Taking over the builds that a dead daemon left half-done.

An RPC cast is taken off its queue when a daemon receives it, so a
conductor killed in the middle of a build takes the rest of that build with
it, and a cast to a compute that dies before it starts the build is gone
too. Nothing else would ever move those servers out of BUILD. Every
``[conductor] recovery_interval`` seconds a conductor holding the API
database looks for them:

- a **build request** never claimed and accepted longer than
  ``interrupted_task_timeout`` ago, or whose owner has not renewed its
  lease for that long (``conductor/leases.py``): its conductor died (or
  every conductor was down while its cast waited). The conductor claims it
  -- one UPDATE, so of several conductors exactly one does, and the old
  owner's further steps fail --, undoes whatever the dead one had done
  (the steps it recorded on the build request, undone by the build flow's
  own undos: a claim in placement, an instance created in a cell or
  half-buried in cell0, the mapping) and builds it again from its request
  spec, as if it had just come from the API;
- a **server in BUILD in a cell** that long, sent to no compute (its cast
  was lost) or to a compute that is down: what it holds is given back
  (allocation, port bindings) and it is scheduled again, with a fault of
  the attempt saying why -- or, after [scheduler] max_attempts such
  restarts, it goes to ERROR (``lifecycle.restart_interrupted_build``).
  Its state changes only from the state it was read in, so a build that
  resumes meanwhile (a queued cast reaching a restarted compute) wins,
  and the takeover loses harmlessly.

A compute that comes back finds its own interrupted work itself (see
``ComputeManager.resolve_interrupted_tasks``). What a conductor was
orchestrating on hosts that are down is undone here (``InterruptedMoves``):
an **evacuation** whose destination never took the server over goes back
to its source (the undos of the steps its destination recorded on the
migration, if it began; else its allocation moved back from the
migration, its ports pointed back at the source; the server in ERROR, to
be evacuated again), an **unshelve** that never reached a compute leaves
the server SHELVED_OFFLOADED holding nothing, and a **resize** or cold
migration its source never took over is undone from the conductor's
recorded steps (the server where it was, as it was, with a fault). Each
is claimed by the migration's or the server's state changing from the one
read, so of several conductors one does it, and a destination that
resumes loses its takeover.

And **allocations nobody holds** (``OrphanAllocations``): a scheduler that
claimed and then died, or answered after the conductor had given up on
it, leaves a claim for a server that went to cell0 -- or for no server at
all. A compute's own audit cannot tell (it sees only its cell), so the
conductor deletes allocations of servers in cell0 that are not being
rebuilt, and of consumers that are neither a server, nor a build request,
nor a migration, once it has seen them so for interrupted_task_timeout --
only on the providers of this deployment's compute nodes, and each with
its consumer generation checked
(``PlacementClient.delete_allocations``).

Every cell is looked at at once (``cells.scatter``), each on its own. A
cell whose database does not answer is skipped and logged, and looked at
again by the next run; while one does not answer, no allocation is deleted
as nobody's (its servers' would look so), and a build request whose undo
has to search every cell is left for a later run.
"""

from oslo_log import log as logging

from nova_lite import allocation_owners
from nova_lite import cells
from nova_lite.compute.flows import evacuate as compute_evacuate
from nova_lite.compute import instance_actions
from nova_lite.compute import states
from nova_lite.conductor import leases as build_leases
from nova_lite.conductor.tasks import build
from nova_lite.conductor.tasks import evacuate
from nova_lite.conductor.tasks import migrate
from nova_lite import exception
from nova_lite import flow as flows
from nova_lite import lifecycle
from nova_lite.network import api as network_api
from nova_lite import objects
from nova_lite.objects import cell_mapping as cell_mapping_obj
from nova_lite import servicegroup

LOG = logging.getLogger(__name__)


def _failing_alone(look, what):
    """``look(cctxt, cell)`` (which counts what it did) for
    ``cells.scatter``, an unexpected failure of it in one cell logged and
    counted as 0: it must not keep the other cells' counts from being
    added up. A cell whose database does not answer is left to
    ``scatter``, which skips and logs it; the next run looks again."""
    def look_in(cctxt, cell):
        try:
            return look(cctxt, cell)
        except exception.DatabaseUnavailable:
            raise
        except Exception:
            LOG.exception('Cannot look for %s in cell %s', what, cell.name)
            return 0
    return look_in


class InterruptedBuilds:
    """One look for interrupted builds; ``run()`` returns how many servers
    it took over ({'rebuilt': n, 'stuck': n})."""

    def __init__(self, context, timeout, scheduler_rpcapi, compute_rpcapi,
                 reportclient, ports=None, leases=None):
        self.context = context
        self.leases = leases or build_leases.BuildLeases()
        self.timeout = timeout
        self.scheduler_rpcapi = scheduler_rpcapi
        self.compute_rpcapi = compute_rpcapi
        self.reportclient = reportclient
        self.ports = ports or network_api.PortClient()
        self.counts = {'rebuilt': 0, 'stuck': 0}

    def run(self):
        every_cell = objects.CellMappingList.get_all(self.context)
        for build_request in objects.BuildRequestList.get_stale(
                self.context, self.timeout):
            try:
                self._take_over_build_request(build_request, every_cell)
            except Exception:
                # One request that cannot be taken over must not keep the
                # others (and the cells' look below) from being.
                LOG.exception('Cannot take over the build of %s',
                              build_request.instance_uuid)
        stuck = cells.scatter(
            self.context, _failing_alone(self._take_over_stuck_builds,
                                         'interrupted builds'),
            'a look for interrupted builds', cells=every_cell,
            with_cell0=False)
        self.counts['stuck'] += sum(stuck.answers.values())
        return self.counts

    # -- build requests ------------------------------------------------------

    def _take_over_build_request(self, build_request, every_cell):
        uuid = build_request.instance_uuid
        # Its own owner name: the stalled owner may be a task of this
        # very conductor.
        lease = self.leases.task()
        if not lease.claim(self.context, uuid, timeout=self.timeout):
            return  # another conductor was quicker, or it moved on
        try:
            self._take_over(build_request, every_cell, lease)
        finally:
            lease.release(uuid)

    def _take_over(self, build_request, every_cell, lease):
        uuid = build_request.instance_uuid
        try:
            spec = objects.RequestSpec.get_by_instance_uuid(self.context,
                                                            uuid)
        except exception.RequestSpecNotFound:
            # Its user deleted it after we read it: nothing to build.
            return
        try:
            objects.InstanceMapping.get_by_instance_uuid(self.context, uuid)
        except exception.InstanceMappingNotFound:
            # The API died while it wrote the request down: it never
            # answered 202, so nobody waits for this server.
            LOG.warning('Removing the build request of %s: the API that '
                        'accepted it died before mapping it', uuid)
            objects.RequestSpec(self.context, instance_uuid=uuid).destroy()
            try:
                lease.destroy(build_request)
            except (exception.BuildRequestNotFound,
                    exception.BuildTakenOver):
                pass
            return
        LOG.warning('The build of %s was interrupted (accepted at %s, no '
                    'progress for %ss: its conductor is gone); scheduling '
                    'it again', uuid, build_request.created_at,
                    self.timeout)
        recorded = objects.BuildRequest.get_flow(self.context, uuid)
        if recorded is not None:
            # The dead owner's steps, undone as its own failure would have.
            flows.undo_recorded(
                'build', uuid,
                build.build_undos(self.context, self.reportclient, uuid,
                                  recorded['action'], owner=lease.owner),
                recorded['steps'])
            action = recorded['action']
        else:
            # No conductor recorded a step (it died before its first), or
            # the API died half-way through a rebuild from cell0.
            action = self._undo_partial_build(uuid, every_cell, lease)
            if action is None:
                LOG.warning('Not taking over the build of %s now: a cell '
                            'that may hold half of it did not answer; '
                            'trying again after %ss', uuid, self.timeout)
                return
        lifecycle.give_back(self.reportclient, uuid)
        networks = spec.requested_networks
        try:
            build.ScheduleAndBuildTask(
                self.context, self.scheduler_rpcapi, self.compute_rpcapi,
                [build_request], [spec], spec.image, self.reportclient,
                requested_networks=networks, action=action,
                claimed=True, leases=lease).execute()
        except Exception:
            # The task buries what it cannot build; this is the unexpected.
            LOG.exception('Taking over the build of %s failed; trying '
                          'again after %ss', uuid, self.timeout)
            return
        self.counts['rebuilt'] += 1

    def _undo_partial_build(self, uuid, every_cell, lease):
        """Remove what a conductor that died while building ``uuid`` had
        made: the instance created in a cell, or in cell0 by a burial it
        did not finish, and the mapping pointing at it (its build request
        still exists, so the server is in no cell yet and was never sent
        to a compute). Returns the action the build records: a rebuild
        when the server's history is in cell0 (it came back from there, or
        its burial got that far); None when a cell did not answer: it may
        hold half of the build, so the takeover waits for a run that can
        see every cell."""
        def undo_in(cctxt, cell):
            """Remove it from ``cell``; whether its history is there."""
            in_cell0 = cell.uuid == cell_mapping_obj.CELL0_UUID
            history = in_cell0 and bool(
                objects.InstanceActionList.get_by_instance_uuid(
                    cctxt, uuid, limit=1))
            try:
                instance = objects.Instance.get_by_uuid(cctxt, uuid)
            except exception.InstanceNotFound:
                return history
            LOG.info('Removing the half-%s %s from cell %s',
                     'buried' if in_cell0 else 'built', uuid, cell.name)
            instance.destroy(hard_delete=True)
            return history

        undone = cells.scatter(self.context, undo_in,
                               'the undoing of the half-done build of %s' %
                               uuid, cells=every_cell)
        if undone.down:
            return None
        action = (instance_actions.REBUILD if any(undone.answers.values())
                  else instance_actions.CREATE)
        mapping = objects.InstanceMapping.get_by_instance_uuid(self.context,
                                                               uuid)
        if mapping.cell_mapping is not None:
            mapping.cell_mapping = None
            mapping.save(build_owner=lease.owner)
        return action

    # -- servers in BUILD ----------------------------------------------------

    def _take_over_stuck_builds(self, cctxt, cell):
        """Schedule again (or fail) the builds of ``cell`` that no one
        will finish; how many."""
        building = objects.InstanceList.get_by_filters(
            cctxt, {'vm_state': [states.BUILDING],
                    'stale_for': self.timeout})
        # A server whose build request is still there is its conductor's
        # (created in its cell, not yet handed to a compute): its lease
        # says whether that conductor is gone, and the build request's
        # takeover above undoes and builds it -- never this look too.
        uuids = [instance.uuid for instance in building]
        pending = objects.BuildRequestList.pending_among(self.context, uuids)
        mapped_to = {m.instance_uuid: m.cell_mapping and m.cell_mapping.uuid
                     for m in objects.InstanceMappingList
                     .get_by_instance_uuids(self.context, uuids)} \
            if uuids else {}
        hosts_up = {}
        stuck = 0
        for instance in building:
            if instance.uuid in pending:
                continue
            if mapped_to.get(instance.uuid, cell.uuid) != cell.uuid:
                # A stray: a build that lost its lease made it after its
                # new owner put the server elsewhere (and died before it
                # could remove it). What the server holds is the real
                # record's; only the stray goes.
                LOG.warning('Removing %s from cell %s: it is mapped to '
                            'another cell (a stray of a build taken over)',
                            instance.uuid, cell.name)
                lifecycle.remove_own_record(instance)
                continue
            if instance.host is None:
                if instance.task_state != states.SCHEDULING:
                    continue
                reason = ('it was never started on a compute: its '
                          'build message was lost')
            else:
                if instance.host not in hosts_up:
                    hosts_up[instance.host] = servicegroup.compute_is_up(
                        cctxt, instance.host)
                if hosts_up[instance.host]:
                    continue  # that compute resolves its own
                reason = ('its compute %s is down' % instance.host)
            stuck += self._restart_build(cctxt, instance, reason)
        return stuck

    def _restart_build(self, cctxt, instance, reason):
        """Send ``instance`` to be scheduled again holding nothing (or,
        restarted too often, put it in ERROR); whether it did either."""
        error = exception.BuildAbortException(
            instance_uuid=instance.uuid,
            reason='no progress for %ss: %s' % (self.timeout, reason))
        outcome = lifecycle.restart_interrupted_build(
            cctxt, instance, error, stale_for=self.timeout)
        if outcome is None:
            return False  # it moved on (or was deleted) meanwhile
        LOG.warning('Instance %s: %s; %s', instance.uuid,
                    error.format_message(), outcome)
        with instance_actions.event(cctxt, instance.uuid,
                                    'conductor_recover_interrupted_build',
                                    action=instance_actions.CREATE) as step:
            step.fail(error.format_message())
        lifecycle.give_back(self.reportclient, instance.uuid)
        network_api.release_ports(self.ports, instance)
        if instance.obj_what_changed():
            instance.save()
        if outcome == lifecycle.RESCHEDULED:
            build.reschedule(cctxt, self.compute_rpcapi, [instance], None,
                             [[]], None, self.reportclient,
                             self.scheduler_rpcapi)
        return True


class OrphanAllocations:
    """Deletes the allocations that no server, build or move holds (see
    the module's docstring). ``first_seen`` ({consumer: monotonic time})
    and ``known`` are kept by the caller between runs."""

    def __init__(self, context, timeout, reportclient, first_seen,
                 known=None, most=None):
        self.context = context
        self.timeout = timeout
        self.reportclient = reportclient
        self.first_seen = first_seen
        # The providers' allocations read by earlier runs, by generation
        # (``allocation_owners.look``), kept by the caller too.
        self.known = known
        # At most this many providers read per look (``look``).
        self.most = most

    def run(self, now):
        owners = allocation_owners.look(self.context, self.reportclient,
                                        self.known, self.most)
        if owners.down:
            # Its servers' allocations would look like nobody's.
            LOG.warning('No allocation is deleted while a cell does not '
                        'answer; looking again next time')
            return 0
        nobodys = owners.nobodys()
        deleted = 0
        for consumer in sorted(nobodys):
            if consumer in owners.buried:
                why = 'its server is in cell0, where servers hold nothing'
            else:
                first = self.first_seen.setdefault(consumer, now)
                if now - first < self.timeout:
                    continue
                why = ('it is no server, build or move (for %ss)' %
                       self.timeout)
            LOG.warning('Deleting the allocations of %s: %s', consumer, why)
            try:
                if self.reportclient.delete_allocations(consumer):
                    deleted += 1
            except Exception as e:
                LOG.warning('Allocations of %s not deleted (next time): %s',
                            consumer, e)
                continue
            self.first_seen.pop(consumer, None)
        for consumer in set(self.first_seen) - nobodys:
            del self.first_seen[consumer]
        return deleted


def _is_on_destination(instance, migration):
    """The move's destination took the server over and ended its task."""
    return (instance.host == migration.dest_compute and
            instance.task_state is None)


def _arrived(migration, status, final='done'):
    """The server is on the move's destination, its task over, and the
    compute that should have said so died first: the migration is
    ``final`` (after an evacuation, the source, once back, then removes
    what the migration still holds there)."""
    migration.status = final
    try:
        migration.save(expected_status=[status])
    except exception.MigrationStatusChanged:
        return
    LOG.warning('The %s %s of %s to %s was left %s after the server '
                'arrived there; it is %s', migration.migration_type,
                migration.uuid, migration.instance_uuid,
                migration.dest_compute, status, final)


class InterruptedMoves:
    """One look for moves a dead conductor left half-done (see the
    module's docstring); ``run()`` returns how many it undid."""

    def __init__(self, context, timeout, reportclient, ports=None):
        self.context = context
        self.timeout = timeout
        self.reportclient = reportclient
        self.ports = ports or network_api.PortClient()

    def run(self):
        undone = cells.scatter(
            self.context, _failing_alone(self._undo_interrupted_moves,
                                         'interrupted moves'),
            'a look for interrupted moves', with_cell0=False)
        return sum(undone.answers.values())

    def _undo_interrupted_moves(self, cctxt, cell):
        """Undo the interrupted moves of ``cell``; how many."""
        self._live_migrations_arrived(cctxt)
        return (self._evacuations(cctxt) + self._unshelves(cctxt) +
                self._resizes(cctxt))

    def _stale(self, cctxt, instance):
        """Whether ``instance`` was not written for the timeout, by the
        database's clock."""
        return bool(objects.InstanceList.get_by_filters(
            cctxt, {'uuid': [instance.uuid], 'stale_for': self.timeout}))

    def _stale_moves(self, cctxt, migration_type, statuses):
        """(migration, its server, status) for each move of
        ``migration_type`` in one of ``statuses`` that made no progress
        for the timeout and whose server still exists."""
        for status in statuses:
            for migration in objects.MigrationList.get_by_filters(
                    cctxt, {'migration_type': migration_type,
                            'status': status, 'stale_for': self.timeout}):
                try:
                    instance = objects.Instance.get_by_uuid(
                        cctxt, migration.instance_uuid)
                except exception.InstanceNotFound:
                    continue  # deleted: the source cleans up when back
                yield migration, instance, status

    def _live_migrations_arrived(self, cctxt):
        """A live migration whose server the destination took over (on
        it, no task) while its source died before it said so is
        completed, not left running."""
        for migration, instance, status in self._stale_moves(
                cctxt, 'live-migration', ('preparing', 'running')):
            if _is_on_destination(instance, migration):
                _arrived(migration, status, 'completed')

    def _evacuations(self, cctxt):
        undone = 0
        for migration, instance, status in self._stale_moves(
                cctxt, 'evacuation', ('accepted', 'pre-migrating')):
            if _is_on_destination(instance, migration):
                _arrived(migration, status)
                continue
            if instance.host != migration.source_compute or \
                    instance.task_state != states.REBUILDING or \
                    not self._stale(cctxt, instance):
                continue  # the destination has it, or it moves on
            undone += self._undo_evacuation(cctxt, instance, migration,
                                            status)
        return undone

    def _undo_evacuation(self, cctxt, instance, migration, status):
        """Send the server back to its source; whether this did."""
        if not migration.end_if_stale([status], self.timeout):
            return False  # renewed (by the database's clock), or moved on
        LOG.warning('The evacuation %s of %s from %s made no progress for '
                    '%ss (its conductor died); undoing it', migration.uuid,
                    instance.uuid, migration.source_compute, self.timeout)
        # The steps as recorded until now: none is recorded once the
        # migration is over (conductor/move_leases.py).
        migration = objects.Migration.get_by_uuid(cctxt, migration.uuid)
        # Whose steps are recorded: the destination's (it began, and
        # stopped before it took the server over; its undos but for its
        # own count and guest, which are that compute's), else the
        # conductor's (only it began), else none (a move begun before
        # steps were recorded).
        by_destination = migration.recorded_steps(compute_evacuate.FLOW)
        by_conductor = migration.recorded_steps(evacuate.FLOW)
        if by_destination is not None:
            flows.undo_recorded(
                compute_evacuate.FLOW, instance.uuid,
                compute_evacuate.evacuation_undos(
                    cctxt, instance, migration, self.reportclient,
                    self.ports), by_destination)
        elif by_conductor is not None:
            flows.undo_recorded(
                evacuate.FLOW, instance.uuid, evacuate.evacuation_undos(
                    cctxt, self.reportclient, instance.uuid, migration),
                by_conductor)
        else:
            self._undo_unrecorded_evacuation(instance, migration)
        error = exception.InstanceTaskInterrupted(
            instance_uuid=instance.uuid, task='evacuation',
            reason='no progress for %ss' % self.timeout)
        return lifecycle.set_error(cctxt, instance, error,
                                   expected_task_state=states.REBUILDING)

    def _undo_unrecorded_evacuation(self, instance, migration):
        """No destination recorded a step: what the conductor's flow
        holds goes back (the source allocation from the migration, in
        place of the destination's claim) and the ports are pointed at
        the source with the source providers."""
        try:
            self.reportclient.move_allocations(migration.uuid, instance.uuid)
            network_api.point_back(
                self.ports, instance, migration.source_compute,
                self.reportclient.get_allocations(instance.uuid).get(
                    'allocations') or {})
        except Exception as e:
            LOG.error('Evacuation %s of %s not fully undone: %s',
                      migration.uuid, instance.uuid, e)

    def _resizes(self, cctxt):
        """A resize or cold migration still ``pre-migrating`` (its source
        compute has not taken it over) that made no progress for the
        timeout: its conductor died. The conductor's recorded steps are
        undone (the source allocation back to the server, the
        destination's claim given back) and the server stays where it
        was, as it was, with a fault saying why."""
        undone = 0
        for migration_type in ('resize', 'migration'):
            for migration, instance, status in self._stale_moves(
                    cctxt, migration_type, ('pre-migrating',)):
                if instance.task_state != states.RESIZE_PREP or \
                        not migration.end_if_stale([status], self.timeout):
                    continue  # the source has it, or it was renewed
                LOG.warning('The %s %s of %s made no progress for %ss (its '
                            'conductor died); undoing it', migration_type,
                            migration.uuid, instance.uuid, self.timeout)
                migration = objects.Migration.get_by_uuid(cctxt,
                                                          migration.uuid)
                flows.undo_recorded(
                    migrate.FLOW, instance.uuid, migrate.migration_undos(
                        cctxt, self.reportclient, instance.uuid, migration),
                    migration.recorded_steps(migrate.FLOW) or [])
                lifecycle.record_fault(
                    cctxt, instance, exception.InstanceTaskInterrupted(
                        instance_uuid=instance.uuid, task=migration_type,
                        reason='no progress for %ss' % self.timeout))
                instance.task_state = None
                try:
                    instance.save(expected_task_state=[states.RESIZE_PREP])
                except (exception.InstanceNotFound,
                        exception.UnexpectedTaskStateError) as e:
                    LOG.info('%s changed meanwhile: %s', instance.uuid, e)
                undone += 1
        return undone

    def _unshelves(self, cctxt):
        undone = 0
        for instance in objects.InstanceList.get_by_filters(
                cctxt, {'vm_state': [states.SHELVED_OFFLOADED],
                        'stale_for': self.timeout}):
            if instance.task_state != states.UNSHELVING or \
                    instance.host is not None:
                continue
            if not instance.end_task_if_stale(states.UNSHELVING,
                                              self.timeout):
                continue  # renewed meanwhile, moved on, or deleted
            LOG.warning('The unshelve of %s made no progress for %ss (its '
                        'conductor died); it stays offloaded',
                        instance.uuid, self.timeout)
            lifecycle.give_back(self.reportclient, instance.uuid)
            try:
                for port in self.ports.ports_of(instance):
                    network_api.unbind_from_host(self.ports, port)
            except exception.NovaLiteException as e:
                LOG.error('Ports of %s not unbound: %s', instance.uuid, e)
            lifecycle.record_fault(
                cctxt, instance, exception.InstanceTaskInterrupted(
                    instance_uuid=instance.uuid, task='unshelve',
                    reason='no progress for %ss' % self.timeout))
            undone += 1
        return undone
