"""Server side of the conductor RPC API.

The manager only receives and delegates: object indirection for computes
is here; each orchestrated flow lives in its own module under
``conductor/tasks``.
"""

import time

from oslo_log import log as logging
import oslo_messaging as messaging

from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.conductor import answers
from nova_lite.conductor import leases
from nova_lite.conductor import move_leases
from nova_lite.conductor.tasks import build
from nova_lite.conductor.tasks import evacuate
from nova_lite.conductor.tasks import live_migrate
from nova_lite.conductor.tasks import migrate
from nova_lite.conductor.tasks import rebuild_from_cell0
from nova_lite.conductor.tasks import recover
from nova_lite.conductor.tasks import unshelve
from nova_lite import concurrency
from nova_lite import conf as nova_conf
from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite import manager
from nova_lite import objects
from nova_lite.objects import base as objects_base
from nova_lite import placement_client
from nova_lite.scheduler import rpcapi as scheduler_rpcapi

CONF = nova_conf.CONF
LOG = logging.getLogger(__name__)


def _refused(reason):
    LOG.warning('Refused object indirection request: %s', reason)
    return exception.InvalidRPCMessage(reason=reason)


def _remotable(target, objmethod, args, kwargs):
    """``target``'s remotable method ``objmethod``: a compute may ask for
    those only, never any other attribute of an object or its class."""
    method = getattr(target, objmethod, None) if isinstance(
        objmethod, str) else None
    if not getattr(method, 'remotable', False):
        raise _refused('%r is not a remotable method of %s' % (
            objmethod, target.obj_name()))
    if not isinstance(args, (list, tuple)) or not isinstance(kwargs, dict):
        raise _refused('the args and kwargs of %s.%s are not a list and a '
                       'mapping' % (target.obj_name(), objmethod))
    return method


# Writes as good run twice: a heartbeat counts one more report. A
# thousand computes send a hundred a second, which would push every other
# answer out of the conductor's memory (answers.MOST) in seconds.
_RUN_AGAIN = frozenset(('refresh', 'heartbeat', 'heartbeat_many'))


def _remembered(call_id, objmethod):
    """The id under which to keep the answer of a compute's call: none
    for a read (``get_*``, ``refresh``), which is as good run again and
    whose answer (a list of servers) may be large, nor for a heartbeat."""
    if isinstance(objmethod, str) and (objmethod.startswith('get_') or
                                       objmethod in _RUN_AGAIN):
        return None
    return call_id


def _object_action(objinst, objmethod, args, kwargs):
    """Run ``objinst``'s remotable ``objmethod``: (the fields it changed,
    as primitives, and which ones are unsaved; what it returned)."""
    method = _remotable(objinst, objmethod, args, kwargs)
    # The fields as primitives before and after, rather than a deep copy
    # of the object to compare with: cheaper, and a nested object (the
    # flavor) the method left alone is not sent back.
    before = _field_primitives(objinst)
    result = method(*args, **kwargs)
    updates = {name: value
               for name, value in _field_primitives(objinst).items()
               if name not in before or before[name] != value}
    updates['obj_what_changed'] = list(objinst.obj_what_changed())
    return updates, result


def _field_primitives(obj):
    return {name: field.to_primitive(obj, name, getattr(obj, name))
            for name, field in obj.fields.items()
            if obj.obj_attr_is_set(name)}


def _lease_renewal_spacing():
    """A quarter of the lease, so that three renewals in a row may fail
    (a database blink) before a live build can be taken over."""
    timeout = CONF.conductor.interrupted_task_timeout
    return max(1, timeout // 4) if timeout > 0 else 0


class ConductorManager(manager.Manager):
    target = messaging.Target(version='1.6')

    def __init__(self):
        self.scheduler_rpcapi = scheduler_rpcapi.SchedulerAPI()
        self.compute_rpcapi = compute_rpcapi.ComputeAPI()
        self.reportclient = placement_client.PlacementClient()
        # The builds this conductor works on (conductor/leases.py).
        self.build_leases = leases.BuildLeases()
        # {consumer: when first seen holding an allocation that no server,
        # build or move explains} (recover.OrphanAllocations).
        self._orphans_first_seen = {}
        # {provider: (generation, its allocations)} as the orphan scan
        # last read them.
        self._provider_allocations = {}
        # The moves this conductor works on, kept alive while it does.
        self.moves = move_leases.MovesInProgress()
        # The object calls of computes answered lately, for their repeats.
        self.answers = answers.Answers()
        # The pool that builds create requests, [conductor] build_workers
        # at once: the RPC threads are free again as soon as a cast is
        # handed to it, for the computes' object calls and heartbeats.
        self._builds = concurrency.executor(CONF.conductor.build_workers)

    # -- object indirection ------------------------------------------------

    @messaging.expected_exceptions(exception.NovaLiteException)
    def object_class_action_versions(self, context, objname, objmethod,
                                     object_versions, args, kwargs,
                                     call_id=None):
        return self.answers.once(
            _remembered(call_id, objmethod), lambda: self._class_action(
                context, objname, objmethod, object_versions, args, kwargs))

    def _class_action(self, context, objname, objmethod, object_versions,
                      args, kwargs):
        if not isinstance(object_versions, dict) or \
                not isinstance(object_versions.get(objname), str):
            raise _refused('object_class_action_versions: no version of %r '
                           'in object_versions' % (objname,))
        try:
            objclass = objects_base.NovaLiteObject.obj_class_from_name(
                objname, object_versions[objname])
        except Exception as e:
            raise _refused('object_class_action_versions: %s' % e)
        result = _remotable(objclass, objmethod, args, kwargs)(
            context, *args, **kwargs)
        if isinstance(result, objects_base.NovaLiteObject):
            return result.obj_to_primitive(
                target_version=object_versions[objname],
                version_manifest=object_versions)
        return result

    @messaging.expected_exceptions(exception.NovaLiteException)
    def object_action(self, context, objinst, objmethod, args, kwargs,
                      call_id=None):
        return self.answers.once(
            _remembered(call_id, objmethod), lambda: _object_action(
                objinst, objmethod, args, kwargs))

    def object_backport_versions(self, context, objinst, object_versions):
        return objinst.obj_to_primitive(
            target_version=object_versions[objinst.obj_name()],
            version_manifest=object_versions)

    # -- liveness ------------------------------------------------------------

    def ping(self, context, arg):
        return {'service': 'conductor', 'arg': arg}

    # -- interrupted work ----------------------------------------------------

    @manager.periodic_task(_lease_renewal_spacing)
    def renew_build_leases(self):
        """Keep the builds this conductor works on its own: a lease not
        renewed for interrupted_task_timeout is taken over."""
        if not CONF.api_database.connection:
            return
        self.build_leases.renew(nova_context.get_admin_context())

    @manager.periodic_task(_lease_renewal_spacing)
    def renew_move_leases(self):
        """Keep the moves this conductor works on alive: one that made no
        progress for interrupted_task_timeout is undone by a takeover
        (conductor/move_leases.py)."""
        self.moves.renew()

    @manager.periodic_task(lambda: CONF.conductor.recovery_interval)
    def recover_interrupted_work(self):
        """Take over the builds and undo the moves a dead daemon left
        half-done, and delete what nobody holds (see
        ``conductor/tasks/recover.py``). A cell conductor has no API
        database and leaves it to the superconductors."""
        timeout = CONF.conductor.interrupted_task_timeout
        if timeout <= 0 or not CONF.api_database.connection:
            return
        context = nova_context.get_admin_context()
        counts = recover.InterruptedBuilds(
            context, timeout, self.scheduler_rpcapi, self.compute_rpcapi,
            self.reportclient, leases=self.build_leases).run()
        if any(counts.values()):
            LOG.warning('Interrupted builds taken over: %(rebuilt)d built '
                        'again from their build request, %(stuck)d stuck in '
                        'a cell scheduled again (or failed)', counts)
        undone = recover.InterruptedMoves(context, timeout,
                                          self.reportclient).run()
        if undone:
            LOG.warning('Interrupted moves undone: %d', undone)
        recover.OrphanAllocations(context, timeout, self.reportclient,
                                  self._orphans_first_seen,
                                  self._provider_allocations,
                                  CONF.conductor.orphan_reads_per_look).run(
                                      time.monotonic())

    # -- compute tasks -------------------------------------------------------

    def schedule_and_build_instances(self, context, build_requests,
                                     request_specs, image,
                                     requested_networks=None,
                                     block_device_mapping=None, tags=None):
        task = build.ScheduleAndBuildTask(
            context, self.scheduler_rpcapi, self.compute_rpcapi,
            build_requests, request_specs, image, self.reportclient,
            requested_networks=objects.NetworkRequestList.from_api(
                requested_networks), leases=self.build_leases.task())

        def run():
            # The request's context is the thread's, for its log lines.
            context.update_store()
            try:
                task.execute()
            except Exception:
                LOG.exception('The build of %s failed', [
                    br.instance_uuid for br in build_requests])
        self._builds.submit(run)

    def cleanup_host(self):
        # The builds received are finished before the process ends (a
        # stop bounded by the service's graceful_shutdown_timeout): one
        # left undone would wait for a takeover.
        self._builds.shutdown(wait=True)

    def rebuild_instance_in_cell0(self, context, build_request, request_spec,
                                  image):
        rebuild_from_cell0.RebuildFromCell0Task(
            context, self.scheduler_rpcapi, self.compute_rpcapi,
            build_request, request_spec, image, self.reportclient,
            leases=self.build_leases.task()).execute()

    def evacuate_instance(self, context, instance, host=None, force=True):
        # (A 1.4 API sends no force: it meant every named host forced.)
        evacuate.EvacuateTask(
            context, instance, host, self.scheduler_rpcapi,
            self.compute_rpcapi, self.reportclient, moves=self.moves,
            force=force).execute()

    def live_migrate_instance(self, context, instance, host=None,
                              block_migration=False, force=True):
        live_migrate.LiveMigrationTask(
            context, instance, host, block_migration, self.scheduler_rpcapi,
            self.compute_rpcapi, self.reportclient, moves=self.moves,
            force=force).execute()

    def migrate_server(self, context, instance, flavor, host=None):
        migrate.MigrationTask(
            context, instance, flavor, host, self.scheduler_rpcapi,
            self.compute_rpcapi, self.reportclient,
            moves=self.moves).execute()

    def unshelve_instance(self, context, instance):
        unshelve.UnshelveTask(
            context, instance, self.scheduler_rpcapi, self.compute_rpcapi,
            self.reportclient, moves=self.moves).execute()

    def build_instances(self, context, instances, request_spec, host_lists,
                        image=None):
        build.reschedule(context, self.compute_rpcapi, instances,
                         request_spec, host_lists, image, self.reportclient,
                         self.scheduler_rpcapi)
