"""The business layer behind the Compute API: servers and hosts.

No HTTP here: the REST handlers validate and authorize, then call this.
A server lives in one of three places, and every read or delete starts
from its InstanceMapping to find out which:

* no cell yet: a BuildRequest in the API database (being scheduled);
* cell0: it never got a host (ERROR, with a fault);
* a real cell: the Instance row in that cell's database.

A server booted with the scheduler hint ``group`` joins that server group
(API database) in the same all-or-nothing step as its other API database
records, and leaves it when it is deleted.

``API`` is the whole surface the REST handlers call. Reading, the task
mechanics every server action shares, power and shelve actions and delete
are here; creating is ``server_create``, rebuilding (on its host or from
cell0) ``server_rebuild``, live migration and evacuation ``server_moves``,
resize and cold migration ``server_resize``.

What changes only the server's record (its name and description, metadata,
lock and state) is ``server_updates``. A locked server refuses every
action but to an administrator.
"""

import re2

from oslo_log import log as logging
import oslo_messaging as messaging
from oslo_utils import uuidutils

from nova_lite import cells
from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite import lifecycle
from nova_lite import objects
from nova_lite import placement_client
from nova_lite import servicegroup
from nova_lite.compute import instance_actions
from nova_lite.compute import server_common
from nova_lite.compute import server_create
from nova_lite.compute import server_list
from nova_lite.compute import server_moves
from nova_lite.compute import server_rebuild
from nova_lite.compute import server_resize
from nova_lite.compute import server_updates
from nova_lite.compute import states

LOG = logging.getLogger(__name__)


def _owned(context, instance):
    return context.is_admin or instance.project_id == context.project_id


# The longest ``name`` filter: as long as a server's name may be.
NAME_FILTER_MAX = 255
_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.log_errors = False
# A pattern with none of these matches the names that contain it.
_RE2_SPECIAL = re2.compile(r'[\\.^$*+?()\[\]{}|]')


class NameFilter:
    """``GET /servers?name=``: a regular expression searched for in each
    server's name, as in Nova. Run by RE2, whose time is linear in the
    name whatever the pattern (``(a+)+$`` cannot backtrack for hours and
    hold every worker); a pattern RE2 does not take (a backreference, a
    lookaround) matches the name that equals it."""

    def __init__(self, pattern):
        self.pattern = pattern
        try:
            self._regex = re2.compile(pattern, _RE2_OPTIONS)
        except re2.error:
            self._regex = None

    def matches(self, name):
        if self._regex is None:
            return name == self.pattern
        return self._regex.search(name) is not None

    def contained(self):
        """A string every name this filter matches contains (for a
        database to narrow its search by), or None: the pattern itself
        when it has no special character, or when RE2 did not take it."""
        if self._regex is None or not _RE2_SPECIAL.search(self.pattern):
            return self.pattern
        return None


def name_filter(pattern):
    """The ``name`` filter ``pattern``; Invalid (400) if it is longer than
    a name may be."""
    if len(pattern) > NAME_FILTER_MAX:
        raise exception.Invalid(
            reason='the name filter is %d characters long; at most %d' % (
                len(pattern), NAME_FILTER_MAX))
    return NameFilter(pattern)


class API:
    """Servers: create, read, list and delete across the cells."""

    def __init__(self):
        self._ports = None
        self._conductor = None
        self._compute_rpc = None
        self._reportclient = None

    # RPC clients are created on first use: rpc.init() must have run.
    @property
    def port_client(self):
        if self._ports is None:
            from nova_lite.network import api as network_api
            self._ports = network_api.PortClient()
        return self._ports

    @property
    def reportclient(self):
        if self._reportclient is None:
            self._reportclient = placement_client.PlacementClient()
        return self._reportclient

    @property
    def conductor_api(self):
        if self._conductor is None:
            from nova_lite.conductor import rpcapi as conductor_rpcapi
            self._conductor = conductor_rpcapi.ConductorAPI()
        return self._conductor

    @property
    def compute_rpcapi(self):
        if self._compute_rpc is None:
            from nova_lite.compute import rpcapi as compute_rpcapi
            self._compute_rpc = compute_rpcapi.ComputeAPI()
        return self._compute_rpc

    # -- create ----------------------------------------------------------

    def create(self, context, flavor, image_href, name, **options):
        """Accept a request to build servers; return (instances, resv_id).
        The ``options`` (counts, key pair, zone, networks, devices, hints,
        ...) and what is checked: see ``server_create.create``."""
        return server_create.create(self, context, flavor, image_href, name,
                                    **options)

    # -- read ------------------------------------------------------------

    def locate(self, context, uuid):
        """(mapping, instance) for ``uuid``; InstanceNotFound if none.

        A server moves from its BuildRequest to a cell while we look; so a
        BuildRequest that vanished under an unmapped mapping means "read
        the mapping again", once.
        """
        if not uuidutils.is_uuid_like(uuid):
            raise exception.InstanceNotFound(instance_id=uuid)
        for attempt in (1, 2):
            try:
                mapping = objects.InstanceMapping.get_by_instance_uuid(
                    context, uuid)
            except exception.InstanceMappingNotFound:
                raise exception.InstanceNotFound(instance_id=uuid)
            if mapping.cell_mapping is None:
                try:
                    build_request = objects.BuildRequest.get_by_instance_uuid(
                        context, uuid)
                    return mapping, build_request.instance
                except exception.BuildRequestNotFound:
                    continue
            with nova_context.target_cell(context,
                                          mapping.cell_mapping) as cctxt:
                try:
                    instance = objects.Instance.get_by_uuid(
                        cctxt, uuid, expected_attrs=['fault'])
                except exception.InstanceNotFound:
                    if attempt == 1 and not mapping.queued_for_delete:
                        continue
                    raise
            return mapping, instance
        raise exception.InstanceNotFound(instance_id=uuid)

    def get(self, context, uuid):
        """The server ``uuid`` if the caller may see it; else 404."""
        _mapping, instance = self.locate(context, uuid)
        if not _owned(context, instance):
            raise exception.InstanceNotFound(instance_id=uuid)
        return instance

    def get_all(self, context, search_opts=None, limit=None, marker=None):
        """Servers matching ``search_opts``, newest first, paged: at most
        ``limit`` (None: all) after the server ``marker``.

        search_opts: ``project_id`` (None lists every project), ``name``
        (a regular expression), ``vm_state`` (a list), ``host``, and the
        tag filters of ``_matches``. Build requests and the instances of
        every cell (cell0 included) are merged; a cell whose database is
        unreachable is skipped with a warning rather than failing the
        whole list. Each cell pages in its database: see
        ``server_list``.
        """
        search_opts = dict(search_opts or {})
        if search_opts.get('name') and not isinstance(search_opts['name'],
                                                      NameFilter):
            search_opts['name'] = name_filter(search_opts['name'])
        return server_list.servers_page(context, search_opts, limit,
                                        marker, self._matches)

    @staticmethod
    def _matches(instance, search_opts):
        """Whether ``instance`` fits ``search_opts``; tag filters (lists)
        as Nova's: ``tags`` has them all, ``tags-any`` has one of them,
        ``not-tags`` lacks one of them, ``not-tags-any`` has none."""
        if search_opts.get('vm_state') and (instance.vm_state not in
                                            search_opts['vm_state']):
            return False
        if search_opts.get('host') and instance.host != search_opts['host']:
            return False
        tags = set(instance.tags)
        for option, wanted in (('tags', all), ('tags-any', any),
                               ('not-tags', lambda has: not all(has)),
                               ('not-tags-any', lambda has: not any(has))):
            asked = search_opts.get(option)
            if asked and not wanted([tag in tags for tag in asked]):
                return False
        name = search_opts.get('name')
        if name:
            if not isinstance(name, NameFilter):
                name = name_filter(name)
            return name.matches(instance.display_name or '')
        return True

    # -- rebuild, stop, start --------------------------------------------

    def rebuild(self, context, instance, image_href, changes=None,
                personality=None, from_cell0=False):
        """Rebuild a server from ``image_href`` on its host, or from cell0
        when ``from_cell0``; return the instance. See
        ``server_rebuild.rebuild``."""
        return server_rebuild.rebuild(self, context, instance, image_href,
                                      changes=changes,
                                      personality=personality,
                                      from_cell0=from_cell0)

    def stop(self, context, instance):
        self._power(context, instance, instance_actions.STOP,
                    [states.ACTIVE, states.ERROR], states.POWERING_OFF,
                    self.compute_rpcapi.stop_instance)

    def start(self, context, instance):
        self._power(context, instance, instance_actions.START,
                    [states.STOPPED], states.POWERING_ON,
                    self.compute_rpcapi.start_instance)

    def _power(self, context, instance, action, vm_states, task_state,
               cast):
        self._cast_to_host(context, instance, action, vm_states, task_state,
                           cast)

    # -- reboot, pause, suspend ------------------------------------------

    # What a hard reboot may overtake, as in Nova: a soft reboot, or a
    # pause, suspend or their undoing that has not finished.
    _HARD_REBOOT_OVERTAKES = (None, states.REBOOTING, states.REBOOT_PENDING,
                              states.REBOOT_STARTED, states.REBOOTING_HARD,
                              states.PAUSING, states.UNPAUSING,
                              states.SUSPENDING, states.RESUMING)

    def reboot(self, context, instance, reboot_type):
        """``SOFT``: an ACTIVE server, with no task. ``HARD``: also one
        that is stopped, paused, suspended or in ERROR, and over a task
        a hard reboot overtakes; the compute brings it back ACTIVE."""
        if reboot_type == 'SOFT':
            vm_states, task_state, task_states = (
                [states.ACTIVE], states.REBOOTING, (None,))
        else:
            vm_states, task_state, task_states = (
                [states.ACTIVE, states.STOPPED, states.PAUSED,
                 states.SUSPENDED, states.ERROR], states.REBOOTING_HARD,
                self._HARD_REBOOT_OVERTAKES)
        self._cast_to_host(
            context, instance, instance_actions.REBOOT, vm_states,
            task_state, lambda cctxt, i: self.compute_rpcapi.reboot_instance(
                cctxt, i, reboot_type),
            version=self.compute_rpcapi.POWER_ACTIONS_VERSION,
            task_states=task_states)

    def pause(self, context, instance):
        self._pause_or_suspend(context, instance, instance_actions.PAUSE,
                               states.ACTIVE, states.PAUSING,
                               self.compute_rpcapi.pause_instance)

    def unpause(self, context, instance):
        self._pause_or_suspend(context, instance, instance_actions.UNPAUSE,
                               states.PAUSED, states.UNPAUSING,
                               self.compute_rpcapi.unpause_instance)

    def suspend(self, context, instance):
        self._pause_or_suspend(context, instance, instance_actions.SUSPEND,
                               states.ACTIVE, states.SUSPENDING,
                               self.compute_rpcapi.suspend_instance)

    def resume(self, context, instance):
        self._pause_or_suspend(context, instance, instance_actions.RESUME,
                               states.SUSPENDED, states.RESUMING,
                               self.compute_rpcapi.resume_instance)

    def _pause_or_suspend(self, context, instance, action, vm_state,
                          task_state, cast):
        self._cast_to_host(
            context, instance, action, [vm_state], task_state, cast,
            version=self.compute_rpcapi.POWER_ACTIONS_VERSION)

    # -- the server's record: name, lock, state, metadata -----------------

    def update(self, context, instance, changes):
        """See ``server_updates.update``."""
        return server_updates.update(self, context, instance, changes)

    def lock(self, context, instance):
        server_updates.lock(self, context, instance)

    def unlock(self, context, instance):
        server_updates.unlock(self, context, instance)

    @staticmethod
    def unlock_needs_override(context, instance):
        """See ``server_updates.unlock_needs_override``."""
        return server_updates.unlock_needs_override(context, instance)

    def reset_state(self, context, instance, state):
        return server_updates.reset_state(self, context, instance, state)

    def set_metadata(self, context, instance, metadata, replace=False):
        """See ``server_updates.set_metadata``."""
        return server_updates.set_metadata(self, context, instance,
                                           metadata, replace=replace)

    def delete_metadata(self, context, instance, key):
        server_updates.delete_metadata(self, context, instance, key)

    # -- shelve, offload, unshelve -----------------------------------------

    def shelve(self, context, instance):
        """Power the server off and keep a snapshot reference; the compute
        offloads it per [compute] shelved_offload_time."""
        image_id = uuidutils.generate_uuid()
        self._cast_to_host(
            context, instance, instance_actions.SHELVE,
            [states.ACTIVE, states.STOPPED], states.SHELVING,
            lambda cctxt, i: self.compute_rpcapi.shelve_instance(
                cctxt, i, image_id), version='1.3')

    def shelve_offload(self, context, instance):
        self._cast_to_host(
            context, instance, instance_actions.SHELVE_OFFLOAD,
            [states.SHELVED], states.SHELVING_OFFLOADING,
            self.compute_rpcapi.shelve_offload_instance, version='1.3')

    def unshelve(self, context, instance):
        """A shelved server is powered on where it is; an offloaded one is
        scheduled again by the conductor (with its ports' resource
        requests) and spawned on the chosen host."""
        mapping, instance = self.locate(context, instance.uuid)
        if instance.vm_state == states.SHELVED:
            self._cast_to_host(
                context, instance, instance_actions.UNSHELVE,
                [states.SHELVED], states.UNSHELVING,
                lambda cctxt, i: self.compute_rpcapi.unshelve_instance(
                    cctxt, i, i.host), version='1.3')
            return
        self.start_task(
            context, instance, instance_actions.UNSHELVE,
            [states.SHELVED_OFFLOADED], states.UNSHELVING,
            check=lambda cctxt, i: self.check_conductor(
                'unshelve', '1.2', self.conductor_api.can_evacuate),
            send=lambda cctxt, i: self.conductor_api.unshelve_instance(
                context, i),
            service=lambda i: 'nova-lite-conductor')

    def check_compute_for(self, context, instance, action):
        """409 unless the server's compute is up and speaks compute RPC
        1.1: the server would otherwise wait in a task state."""
        if not instance.host:
            raise exception.InstanceInvalidState(
                method=action, instance_uuid=instance.uuid,
                attr='host', state='None')
        if not servicegroup.compute_is_up(context, instance.host):
            raise exception.ServiceUnavailable(
                service='nova-lite-compute on %s' % instance.host,
                reason='the compute is down; nothing was changed. Try '
                       'again when it is back')
        if not self.compute_rpcapi.can_send_version(context, instance.host,
                                                    '1.1'):
            raise exception.ComputeTooOld(
                host=instance.host, action=action, version='1.1',
                pinned=self.compute_rpcapi.version_cap)

    def check_conductor(self, action, version, can):
        if not can():
            raise exception.ConductorTooOld(
                action=action, version=version,
                pinned=self.conductor_api.version_cap)

    def _cast_to_host(self, context, instance, action, vm_states, task_state,
                      cast, version='1.1', task_states=(None,)):
        """An action the server's compute does: it must be up and speak
        compute RPC ``version``."""
        def check(cctxt, instance):
            self.check_compute_for(cctxt, instance, action)
            if not self.compute_rpcapi.can_send_version(
                    cctxt, instance.host, version):
                raise exception.ComputeTooOld(
                    host=instance.host, action=action, version=version,
                    pinned=self.compute_rpcapi.version_cap)
        self.start_task(
            context, instance, action, vm_states, task_state, check=check,
            send=cast,
            service=lambda i: 'nova-lite-compute on %s' % i.host,
            task_states=task_states)

    def start_task(self, context, instance, action, vm_states, task_state,
                   check, send, service, needs_host=False, method=None,
                   task_states=(None,)):
        """The shape of every server action the API hands on. The server
        must not be locked (but for an administrator), must be in one of
        ``vm_states`` in a real cell (with a host if ``needs_host``) and
        in no task (or one of ``task_states``, which the action
        overtakes); ``check(cctxt, instance)`` refuses what cannot be
        done before anything changes; then the task state is set (a
        racing task wins: 409), the action recorded and ``send(cctxt,
        instance)`` hands it on. If sending fails the task state is put
        back; a message that could not be sent is a 503 naming
        ``service(instance)``."""
        method = method or action
        mapping, instance = self.locate(context, instance.uuid)
        server_updates.check_not_locked(context, instance)
        if mapping.cell_mapping is None or mapping.cell_mapping.is_cell0 \
                or (needs_host and not instance.host) \
                or instance.vm_state not in vm_states:
            raise exception.InstanceInvalidState(
                method=method, instance_uuid=instance.uuid,
                attr='vm_state', state=instance.vm_state)
        if instance.task_state not in task_states:
            raise exception.InstanceInvalidState(
                method=method, instance_uuid=instance.uuid,
                attr='task_state', state=instance.task_state)
        with nova_context.target_cell(context, mapping.cell_mapping) as cctxt:
            instance._context = cctxt
            check(cctxt, instance)
            overtaken = instance.task_state
            instance.task_state = task_state
            try:
                instance.save(expected_task_state=list(task_states))
            except exception.UnexpectedTaskStateError as e:
                raise exception.InstanceInvalidState(
                    method=method, instance_uuid=instance.uuid,
                    attr='task_state', state=e.kwargs.get('actual'))
            instance_actions.record_action(cctxt, instance.uuid, action)
            try:
                send(cctxt, instance)
            except Exception as e:
                LOG.error('%s of %s not sent: %s', action, instance.uuid, e)
                with server_common.logged_cleanup(
                        '%s of %s' % (action, instance.uuid)):
                    instance.task_state = overtaken
                    instance.save()
                if isinstance(e, messaging.MessagingException):
                    raise exception.ServiceUnavailable(
                        service=service(instance),
                        reason='the %s could not be sent (%s); nothing was '
                               'changed' % (action, e))
                raise

    # -- live migration ---------------------------------------------------

    def live_migrate(self, context, instance, host=None,
                     block_migration=False, force=False):
        """See ``server_moves.live_migrate``."""
        server_moves.live_migrate(self, context, instance, host=host,
                                  block_migration=block_migration,
                                  force=force)

    def server_migrations(self, context, instance):
        """The server's live migrations that are not over."""
        return server_moves.server_migrations(self, context, instance)

    def abort_live_migration(self, context, instance, migration_id,
                             allow_queued):
        """See ``server_moves.abort_live_migration``."""
        server_moves.abort_live_migration(self, context, instance,
                                          migration_id, allow_queued)

    # -- evacuate ----------------------------------------------------------

    # -- resize and cold migration ------------------------------------------

    def resize(self, context, instance, flavor):
        server_resize.resize(self, context, instance, flavor)

    def migrate(self, context, instance, host=None):
        server_resize.migrate(self, context, instance, host=host)

    def confirm_resize(self, context, instance):
        server_resize.confirm_resize(self, context, instance)

    def revert_resize(self, context, instance):
        server_resize.revert_resize(self, context, instance)

    def evacuate(self, context, instance, host=None, force=False):
        """See ``server_moves.evacuate``."""
        server_moves.evacuate(self, context, instance, host=host,
                              force=force)

    # -- delete ----------------------------------------------------------

    def delete(self, context, instance):
        """Delete a server wherever it is; see the module docstring."""
        uuid = instance.uuid
        mapping, instance = self.locate(context, uuid)
        server_updates.check_not_locked(context, instance)
        if mapping.cell_mapping is None:
            try:
                objects.BuildRequest(context, instance_uuid=uuid).destroy()
            except exception.BuildRequestNotFound:
                # The conductor mapped it to a cell in the meantime.
                mapping, instance = self.locate(context, uuid)
                if mapping.cell_mapping is not None:
                    instance_actions.record_action(
                        context, uuid, instance_actions.DELETE,
                        cell_mapping=mapping.cell_mapping)
                    self._delete_in_cell(context, mapping, instance)
            # Otherwise the conductor notices the missing BuildRequest and
            # cleans up whatever it has started; a server that never left
            # the API database has no action history.
        else:
            # Before the compute is asked: its event joins this action.
            instance_actions.record_action(
                context, uuid, instance_actions.DELETE,
                cell_mapping=mapping.cell_mapping)
            self._delete_in_cell(context, mapping, instance)
        mapping.queued_for_delete = True
        mapping.save()
        if mapping.cell_mapping is not None:
            # A rebuild from cell0 may have just put up a BuildRequest;
            # without it the conductor will not build the server.
            try:
                objects.BuildRequest(context, instance_uuid=uuid).destroy()
            except exception.BuildRequestNotFound:
                pass
        objects.RequestSpec(context, instance_uuid=uuid).destroy()
        self._leave_group(context, uuid)

    @staticmethod
    def _leave_group(context, instance_uuid):
        group = objects.InstanceGroup.get_by_instance_uuid(context,
                                                           instance_uuid)
        if group is not None:
            objects.InstanceGroup.remove_members(context, group.uuid,
                                                 [instance_uuid])

    def _delete_in_cell(self, context, mapping, instance):
        with nova_context.target_cell(context, mapping.cell_mapping) as cctxt:
            instance._context = cctxt
            if mapping.cell_mapping.is_cell0 or not instance.host:
                self._local_delete(
                    instance, in_cell0=mapping.cell_mapping.is_cell0)
            elif servicegroup.compute_is_up(cctxt, instance.host):
                self._terminate_on_compute(cctxt, instance)
            else:
                LOG.warning('Compute %s of instance %s is down; deleting it '
                            'locally.', instance.host, instance.uuid)
                self._local_delete(instance)

    def _local_delete(self, instance, in_cell0=False):
        """Delete a server no compute will delete: its compute is down,
        or it has none (offloaded, in cell0, or scheduled and not yet
        taken over by its compute). No one else gives back its ports,
        nor -- at once -- what it holds in placement: the scheduler's
        claim of a server not yet taken over would be held until its
        compute got the build (for as long as that compute is away), a
        down compute's until it returned. A compute that takes the build
        over later finds the server gone and gives back again (nothing).
        A server in cell0 holds nothing."""
        has_ports = bool(instance.host) or \
            instance.vm_state == states.SHELVED_OFFLOADED
        try:
            instance.destroy()
        except exception.InstanceNotFound:
            pass  # deleted concurrently: the outcome is the same
        if not in_cell0:
            lifecycle.give_back(self.reportclient, instance.uuid)
        if has_ports:
            from nova_lite.network import api as network_api
            network_api.release_ports(self.port_client, instance)

    def _terminate_on_compute(self, context, instance):
        previous = instance.task_state
        if previous == states.DELETING:
            return  # a delete is already on its way
        instance.task_state = states.DELETING
        try:
            instance.save(expected_task_state=[previous])
        except exception.UnexpectedDeletingTaskStateError:
            return
        except exception.UnexpectedTaskStateError:
            # The compute moved the task on (e.g. spawning finished); the
            # delete still wins, from whatever state it moved to.
            instance.refresh()
            current = instance.task_state
            if current == states.DELETING:
                return
            instance.task_state = states.DELETING
            instance.save(expected_task_state=[current])
        try:
            self.compute_rpcapi.terminate_instance(context, instance)
        except messaging.MessagingException as e:
            instance.task_state = previous
            instance.save()
            raise exception.ServiceUnavailable(
                service='nova-lite-compute on %s' % instance.host,
                reason='the delete could not be sent (%s)' % e)


class HostAPI:
    """Services and compute nodes of every cell (cell0 has none). A list
    leaves out a cell that does not answer; a lookup by uuid missing from
    every cell that answered, when one did not, is CellUnavailable (503)."""

    def __init__(self):
        self._compute_rpc = None

    @property
    def compute_rpcapi(self):
        if self._compute_rpc is None:
            from nova_lite.compute import rpcapi as compute_rpcapi
            self._compute_rpc = compute_rpcapi.ComputeAPI()
        return self._compute_rpc

    def service_get_all(self, context, host=None, binary=None):
        return cells.list_from_every_cell(
            context, lambda cctxt, cell: objects.ServiceList.get_all(
                cctxt, binary=binary, host=host), 'a service list',
            with_cell0=False)

    def service_get_by_uuid(self, context, service_uuid):
        return _find_in_a_cell(
            context, service_uuid, objects.Service.get_by_uuid, 'service',
            lambda: exception.ServiceNotFound(service_id=service_uuid))

    def service_update(self, context, service_uuid, values):
        """Set status fields (disabled, disabled_reason, forced_down). A
        compute told it is enabled or disabled updates its providers'
        COMPUTE_STATUS_DISABLED trait at once."""
        service = self.service_get_by_uuid(context, service_uuid)
        for name, value in values.items():
            setattr(service, name, value)
        service.save()
        if 'disabled' in values and \
                service.binary == servicegroup.COMPUTE_BINARY:
            self._tell_compute_its_status(service)
        return service

    def _tell_compute_its_status(self, service):
        """Cast set_host_enabled to the compute of ``service``. A compute
        that is down, or too old for it, is not told: its audit
        synchronises the trait with its service record (once it runs and
        is upgraded), so nothing is lost, only later."""
        context = service._context
        if not servicegroup.service_is_up(service):
            LOG.info('The compute service of %s is down: '
                     'COMPUTE_STATUS_DISABLED is synchronised when it runs '
                     'again', service.host)
            return
        if not self.compute_rpcapi.can_set_host_enabled(context, service):
            LOG.info('The compute service of %s is too old (or pinned) to '
                     'be told its status: its audit synchronises '
                     'COMPUTE_STATUS_DISABLED', service.host)
            return
        try:
            self.compute_rpcapi.set_host_enabled(context, service.host,
                                                 not service.disabled)
        except Exception as e:
            LOG.warning('The compute service of %s was not told its status '
                        '(its audit synchronises COMPUTE_STATUS_DISABLED): '
                        '%s', service.host, e)

    def service_delete(self, context, service_uuid):
        """Delete a service record and, for a compute, its nodes."""
        service = self.service_get_by_uuid(context, service_uuid)
        if service.binary == servicegroup.COMPUTE_BINARY:
            for node in objects.ComputeNodeList.get_by_host(service._context,
                                                            service.host):
                node.destroy()
        service.destroy()

    def compute_node_get_all(self, context, hostname_pattern=None):
        nodes = cells.list_from_every_cell(
            context, lambda cctxt, cell: objects.ComputeNodeList.get_all(
                cctxt), 'a hypervisor list', with_cell0=False)
        if hostname_pattern:
            nodes = [n for n in nodes
                     if hostname_pattern in n.hypervisor_hostname]
        return nodes

    def compute_node_get(self, context, node_uuid):
        return _find_in_a_cell(
            context, node_uuid, objects.ComputeNode.get_by_uuid,
            'hypervisor',
            lambda: exception.HypervisorNotFound(hypervisor_id=node_uuid))

    @staticmethod
    def compute_service_of(node):
        """The compute service on the node's host, or None."""
        return servicegroup.compute_service(node._context, node.host)


def _find_in_a_cell(context, uuid, get_by_uuid, what, not_found):
    """``get_by_uuid(cell_context, uuid)`` in every cell but cell0 at
    once; ``not_found()`` is raised for a malformed uuid or one no cell
    has (CellUnavailable if a cell that did not answer may have it)."""
    if not uuidutils.is_uuid_like(uuid):
        raise not_found()
    found = cells.find(
        context, lambda cctxt, cell: get_by_uuid(cctxt, uuid),
        '%s %s' % (what, uuid), with_cell0=False)
    if found is None:
        raise not_found()
    return found
