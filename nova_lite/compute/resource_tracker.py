"""The compute resource tracker: what this host has and what its instances
use -- kept in the host's ComputeNode record and reported to placement.

The compute node is a resource provider (UUID = compute node UUID) whose
inventory is VCPU, MEMORY_MB and DISK_GB from the driver with the
configured allocation ratios and reserved amounts, plus PCI_DEVICE when the
driver has generic PCI devices. A claim reserves an instance's resources
locally and writes its allocation (``PUT /allocations/{instance}``) before
the spawn; a failed claim or spawn gives both back. The periodic audit
(``update_available_resource``) recomputes usage from the instances really
on this host, re-PUTs their missing allocations and removes allocations
against this node whose consumer is gone (the API's local delete). If
placement cannot be reached the audit logs and tries again next period,
and builds fail their claim (and reschedule) rather than go ACTIVE without
an allocation.

For the scheduler's filters and weighers the record also carries the
hypervisor type and version, and ``stats`` (``nova_lite.compute.stats``):
what the instances counted here are doing (I/O-heavy operations in
``io_workload``), consecutive failed builds and the kinds of guest the
driver runs. They follow each claim, drop and start or end of an operation
at once, and are recomputed by the audit. The provider's traits that the
compute decides (the driver's disk formats, COMPUTE_NODE,
COMPUTE_STATUS_DISABLED while its service is disabled) are synchronised
by the audit and, for the status, when an administrator changes it; other
traits on the provider are left alone.

What the audit last read from placement about its provider, and the
service's status, are trusted for ``[compute]
resource_provider_association_refresh`` seconds (the placement client's
provider cache): an idle audit asks placement only for the allocations on
the node, and writes the inventory and the traits only when they change
here. A failed request about the provider, a refused allocation and the
API telling this compute its status each make the next audit read again
what they concern.
"""

import contextlib
import threading
import time

from oslo_log import log as logging

from nova_lite.compute import states
from nova_lite.compute import stats
from nova_lite import conf as nova_conf
from nova_lite import exception
from nova_lite import objects
from nova_lite import outage
from nova_lite import placement_client
from nova_lite.scheduler import utils as scheduler_utils
from nova_lite import servicegroup

CONF = nova_conf.CONF
LOG = logging.getLogger(__name__)

COMPUTE_NODE = 'COMPUTE_NODE'
STATUS_DISABLED = 'COMPUTE_STATUS_DISABLED'


# The task states of a server whose record still names the host it is
# leaving (see ResourceTracker._departed).
_LEAVING = (states.RESIZE_REVERTING, states.MIGRATING)

# How long a build's claim may wait for the build's last save to carry
# the node's record (``claim(write_soon=True)``) before it is written with
# a conductor call of its own: a build that spawns within it costs one
# call fewer, one that takes longer the same calls as before.
WRITE_SOON_SECONDS = 1.0

_NONE = object()


def is_boot_from_volume(instance):
    return instance.system_metadata.get('boot_from_volume') == 'True'


def _usage_of(instance):
    return scheduler_utils.instance_usage(
        instance.flavor, is_boot_from_volume(instance)) + (
            scheduler_utils.pci_devices_requested(instance.flavor),)


def _resources_by_provider(allocations):
    """{provider: {class: amount}} of an allocations mapping (what
    PUT /allocations takes, or an allocation request's), for comparing
    two of them."""
    return {provider: dict(allocation.get('resources') or {})
            for provider, allocation in (allocations or {}).items()}


def build_allocations(instance, node_uuid, disk_provider_uuid=None,
                      port_allocations=None):
    """The PUT /allocations body for ``instance`` on the compute node
    provider ``node_uuid``; DISK_GB goes to ``disk_provider_uuid`` (a
    sharing provider) when given; ``port_allocations`` (what its ports'
    resource requests take from bandwidth providers) are added."""
    vcpus, memory_mb, disk_gb, pci = _usage_of(instance)
    on_node = {'VCPU': vcpus, 'MEMORY_MB': memory_mb}
    if pci:
        on_node['PCI_DEVICE'] = pci
    allocations = {node_uuid: {'resources': on_node}}
    if disk_gb:
        disk_provider = disk_provider_uuid or node_uuid
        allocations.setdefault(disk_provider, {'resources': {}})
        allocations[disk_provider]['resources']['DISK_GB'] = disk_gb
    return with_added(allocations, port_allocations)


def with_added(allocations, more):
    """``allocations`` ({provider: {'resources': {class: amount}}}, as
    PUT /allocations takes) with ``more`` added provider by provider;
    neither is changed."""
    total = {provider: {'resources': dict(allocation['resources'])}
             for provider, allocation in allocations.items()}
    for provider, allocation in (more or {}).items():
        resources = total.setdefault(provider, {'resources': {}})[
            'resources']
        for resource_class, amount in allocation['resources'].items():
            resources[resource_class] = resources.get(resource_class,
                                                      0) + amount
    return total


class ResourceTracker:

    def __init__(self, host, driver, reportclient=None):
        self.host = host
        self.driver = driver
        self.reportclient = reportclient or placement_client.PlacementClient(
            cache_providers=True)
        self.compute_nodes = {}  # nodename -> ComputeNode
        # instance uuid -> (vcpus, memory_mb, disk_gb, pci_devices)
        self.tracked = {}
        # instance uuid -> stats.Activity, for the same instances: what
        # they are doing, for the node's stats and workload.
        self.activity = {}
        # nodename -> consecutive failed builds (build_failed).
        self.failed_builds = {}
        # Instances between claim and the end of their spawn: the audit
        # must not drop them although their record is not ACTIVE yet.
        self._claiming = set()
        # Instances this host forgot while their record still names it: a
        # reverted resize's destination, until the source takes the
        # record back. The audit does not count them again meanwhile.
        self._departed = set()
        # Instances dropped here in the middle of a task (a delete, a
        # failed build) -> that task_state: their record still names this
        # host until the task writes it (destroys it, sends it elsewhere),
        # and an audit that reads it meanwhile must not count it again.
        # Forgotten once the record is gone or its task_state changed.
        self._dropped = {}
        # While an audit reads the instances of this host: the ones that
        # left meanwhile (deleted, failed, migrated away), so that its
        # snapshot does not count them again. None between audits.
        self._left_during_audit = None
        self._lock = threading.Lock()
        # Nodes whose record is to be written (``_write_nodes``), and
        # whether a thread is writing them.
        self._unsaved = set()
        self._writing = False
        # Whether a ``_write_soon`` thread is waiting to write them.
        self._write_due = False
        # Held from reading the service's status to writing its trait, so
        # that an older reading never lands after a newer one.
        self._status_lock = threading.Lock()
        # (disabled, when it was read by ``clock``) of this host's compute
        # service; None: read it at the next audit.
        self._service_status = None
        self.clock = time.monotonic
        # nodename -> provider UUID holding its instances' DISK_GB (a
        # sharing provider in one of the node's aggregates, or the node).
        self._disk_providers = {}
        # Providers whose inventory reached placement at least once.
        self._reported = set()
        # instance -> its ports' part of its allocation (the compute
        # manager asks the port service); used when an allocation is
        # healed.
        self.port_allocations_of = lambda instance: {}
        # uuid -> a context manager holding the instance while nothing
        # else works on it, entered as whether it could (the compute
        # manager's per-instance lock): a heal must not interleave with a
        # delete or a move that gives the allocation back.
        self.idle_instance = lambda uuid: contextlib.nullcontext(True)

    # -- the ComputeNode record -----------------------------------------

    def _ensure_node(self, context, nodename, resources):
        node = self.compute_nodes.get(nodename)
        if node is None:
            try:
                node = objects.ComputeNode.get_by_host_and_nodename(
                    context, self.host, nodename)
            except exception.ComputeHostNotFound:
                node = objects.ComputeNode(
                    context, host=self.host, hypervisor_hostname=nodename,
                    hypervisor_type=resources['hypervisor_type'],
                    hypervisor_version=resources['hypervisor_version'],
                    cpu_info=resources['cpu_info'], vcpus=0, memory_mb=0,
                    local_gb=0, vcpus_used=0, memory_mb_used=0,
                    local_gb_used=0, free_ram_mb=0, free_disk_gb=0,
                    running_vms=0, current_workload=0,
                    cpu_allocation_ratio=CONF.cpu_allocation_ratio,
                    ram_allocation_ratio=CONF.ram_allocation_ratio,
                    disk_allocation_ratio=CONF.disk_allocation_ratio)
                self._apply(node, resources)
                node.create()
                LOG.info('Created compute node record for %s/%s',
                         self.host, nodename)
            self.compute_nodes[nodename] = node
        return node

    def _apply(self, node, resources):
        """Set on ``node`` what the tracker counts now: only the fields
        whose value differs, so that an audit that finds nothing new
        writes nothing (and the scheduler has no node to read again)."""
        vcpus = memory_mb = disk_gb = 0
        for used in self.tracked.values():
            vcpus += used[0]
            memory_mb += used[1]
            disk_gb += used[2]
        vcpus_used = vcpus + CONF.reserved_host_cpus
        memory_mb_used = memory_mb + CONF.reserved_host_memory_mb
        local_gb_used = disk_gb + -(-CONF.reserved_host_disk_mb // 1024)
        values = {
            'vcpus': resources['vcpus'],
            'memory_mb': resources['memory_mb'],
            'local_gb': resources['local_gb'],
            'cpu_allocation_ratio': CONF.cpu_allocation_ratio,
            'ram_allocation_ratio': CONF.ram_allocation_ratio,
            'disk_allocation_ratio': CONF.disk_allocation_ratio,
            'vcpus_used': vcpus_used,
            'memory_mb_used': memory_mb_used,
            'local_gb_used': local_gb_used,
            'free_ram_mb': resources['memory_mb'] - memory_mb_used,
            'free_disk_gb': resources['local_gb'] - local_gb_used,
            'running_vms': len(self.tracked),
            'hypervisor_type': resources['hypervisor_type'],
            'hypervisor_version': resources['hypervisor_version'],
            'current_workload': stats.current_workload(
                self.activity.values()),
            'stats': stats.node_stats(
                self.activity.values(),
                self.failed_builds.get(node.hypervisor_hostname, 0),
                resources.get('supported_instances') or []),
        }
        for name, value in values.items():
            if not node.obj_attr_is_set(name) or \
                    getattr(node, name) != value:
                setattr(node, name, value)

    # -- placement -----------------------------------------------------------

    @staticmethod
    def inventory(resources):
        """The provider inventory for the driver's ``resources``."""
        def item(total, reserved, ratio):
            return {'total': total, 'reserved': min(reserved, total),
                    'min_unit': 1, 'max_unit': total, 'step_size': 1,
                    'allocation_ratio': ratio}
        inventory = {
            'VCPU': item(resources['vcpus'], CONF.reserved_host_cpus,
                         CONF.cpu_allocation_ratio),
            'MEMORY_MB': item(resources['memory_mb'],
                              CONF.reserved_host_memory_mb,
                              CONF.ram_allocation_ratio),
            'DISK_GB': item(resources['local_gb'],
                            -(-CONF.reserved_host_disk_mb // 1024),
                            CONF.disk_allocation_ratio),
        }
        if resources.get('pci_devices'):
            inventory['PCI_DEVICE'] = item(resources['pci_devices'], 0, 1.0)
        return inventory

    def _report_inventory(self, context, node, resources):
        """Make the node's provider, inventory and traits current; False
        if placement could not be reached (retried next period)."""
        try:
            self.reportclient.ensure_resource_provider(
                node.uuid, node.hypervisor_hostname)
            self.reportclient.set_inventory(node.uuid,
                                            self.inventory(resources))
            disk_provider = self._find_disk_provider(node)
            if disk_provider != self._disk_providers.get(
                    node.hypervisor_hostname, node.uuid):
                LOG.info('Instance disks of %s are now allocated from '
                         'provider %s%s', node.hypervisor_hostname,
                         disk_provider, ' (shared storage)'
                         if disk_provider != node.uuid else '')
            self._disk_providers[node.hypervisor_hostname] = disk_provider
            self._reported.add(node.uuid)
        except (placement_client.PlacementUnavailable,
                placement_client.PlacementConflict) as e:
            LOG.warning('Cannot report %s to placement (will retry next '
                        'period): %s', node.hypervisor_hostname, e)
            return False
        self._sync_traits(context, node)
        return True

    # -- traits ---------------------------------------------------------------

    def _sync_traits(self, context, node):
        """The traits this compute decides on its node's provider: the
        driver's (disk formats it boots), COMPUTE_NODE, and
        COMPUTE_STATUS_DISABLED while the compute service is disabled.
        Any other trait (an operator's CUSTOM_ ones) is left as it is."""
        owned = self.driver.capability_traits()
        add = {trait for trait, supported in owned.items() if supported}
        add.add(COMPUTE_NODE)
        remove = set(owned) - add
        with self._status_lock:
            disabled = self._known_service_status(context)
            if disabled is not None:
                (add if disabled else remove).add(STATUS_DISABLED)
            self._write_traits(node, add, remove)

    def _known_service_status(self, context):
        """Whether this host's compute service is disabled: as read
        last, unless that was [compute]
        resource_provider_association_refresh seconds ago or more, or the
        API has told this compute of a change since (set_service_status);
        then read again. An administrator's change through the API is
        written by set_service_status at once and confirmed here; one the
        API could not tell this compute (it was down) is seen within the
        refresh interval, or at once when it starts again. Call with the
        status lock held."""
        known = self._service_status
        refresh = CONF.compute.resource_provider_association_refresh
        if known is not None and (not refresh or
                                  self.clock() - known[1] < refresh):
            return known[0]
        disabled = self._service_disabled(context)
        self._service_status = (None if disabled is None
                                else (disabled, self.clock()))
        return disabled

    def _service_disabled(self, context):
        """Whether this host's compute service is disabled; None when
        its record cannot be read (not registered yet at the first
        start, or the conductor does not answer)."""
        try:
            service = servicegroup.compute_service(context, self.host)
        except Exception as e:
            LOG.warning('The status of the compute service of %s was not '
                        'read (COMPUTE_STATUS_DISABLED is synchronised next '
                        'period): %s', self.host, e)
            return None
        return None if service is None else bool(service.disabled)

    def _write_traits(self, node, add, remove, trust_cache=True):
        try:
            changed = self.reportclient.update_provider_traits(
                node.uuid, add, remove, trust_cache=trust_cache)
            if changed:
                LOG.info('Traits of %s brought up to date (on: %s; off: '
                         '%s)', node.hypervisor_hostname,
                         ', '.join(sorted(changed[0])) or '-',
                         ', '.join(sorted(changed[1])) or '-')
        except (placement_client.PlacementUnavailable,
                placement_client.PlacementConflict) as e:
            LOG.warning('Traits of %s not written (will retry next period): '
                        '%s', node.hypervisor_hostname, e)

    def set_service_status(self, disabled):
        """The compute service was just disabled (or enabled): put
        COMPUTE_STATUS_DISABLED on every node's provider (or take it off)
        now, so that the scheduler's placement query leaves them out (or
        in) without waiting for the next audit. False when this compute
        has no node yet (the audit sets it when it has). Placement is
        asked whatever it is known to hold, and the next audit reads the
        service record again: two changes in quick succession may reach
        here in either order, and the record has the last word."""
        nodes = list(self.compute_nodes.values())
        with self._status_lock:
            self._service_status = None
            for node in nodes:
                self._write_traits(node, {STATUS_DISABLED} if disabled
                                   else (), () if disabled
                                   else {STATUS_DISABLED},
                                   trust_cache=False)
        return bool(nodes)

    def _find_disk_provider(self, node):
        sharing = self.reportclient.sharing_providers_of(node.uuid,
                                                         {'DISK_GB': 1})
        return sharing[0] if sharing else node.uuid

    def allocations_for(self, instance, node, port_allocations=None):
        """The PUT /allocations body for ``instance`` on ``node``."""
        return build_allocations(
            instance, node.uuid,
            self._disk_providers.get(node.hypervisor_hostname),
            port_allocations)

    def _write_allocations(self, instance, node, port_allocations=None,
                           claimed=None):
        """Write ``instance``'s allocation on ``node`` -- unless
        ``claimed`` (the allocations the scheduler wrote for it: a
        selection's allocation request) is that allocation already, which
        placement then holds as the scheduler left it."""
        allocations = self.allocations_for(instance, node, port_allocations)
        if claimed is not None and _resources_by_provider(claimed) == \
                _resources_by_provider(allocations):
            return
        try:
            self.reportclient.put_allocations(
                instance.uuid, allocations, instance.project_id,
                instance.user_id)
        except (placement_client.PlacementUnavailable,
                placement_client.PlacementConflict):
            # What the tracker believes of its provider (that it exists,
            # which provider shares its disk) may be why: read it again.
            self.reportclient.forget_provider(node.uuid)
            raise

    # -- audit ----------------------------------------------------------------

    def update_available_resource(self, context, nodename):
        """Audit: recompute usage from the instances on this host, report
        the inventory and heal allocations in placement."""
        resources = self.driver.get_available_resource(nodename)
        with self._lock:
            self._left_during_audit = set()
        try:
            instances = [
                i for i in objects.InstanceList.get_by_host_and_node(
                    context, self.host, nodename)
                if i.vm_state not in (states.DELETED,)]
        except BaseException:
            with self._lock:
                self._left_during_audit = None
            raise
        with self._lock:
            left, self._left_during_audit = self._left_during_audit, None
            # Forgotten and still leaving (its move's task not over): not
            # counted; once its record names another host, forgotten for
            # good.
            listed = {i.uuid for i in instances}
            self._departed &= listed
            left = left | {i.uuid for i in instances
                           if i.uuid in self._departed and
                           i.task_state in _LEAVING}
            # Dropped, and its task has not written its record yet.
            self._dropped = {i.uuid: i.task_state for i in instances
                             if self._dropped.get(i.uuid, _NONE) ==
                             i.task_state}
            left |= set(self._dropped)
            node = self._ensure_node(context, nodename, resources)
            in_flight = {uuid: usage for uuid, usage in self.tracked.items()
                         if uuid in self._claiming}
            in_flight_activity = {uuid: self.activity[uuid]
                                  for uuid in in_flight
                                  if uuid in self.activity}
            self.tracked = {i.uuid: _usage_of(i) for i in instances
                            if i.uuid not in left}
            self.activity = {i.uuid: stats.activity_of(i) for i in instances
                             if i.uuid not in left}
            self.tracked.update(in_flight)
            self.activity.update(in_flight_activity)
            self._apply(node, resources)
            self._unsaved.add(nodename)
        self._write_nodes()
        if self._report_inventory(context, node, resources):
            self._heal_allocations(context, node, instances)
        return node

    def _heal_allocations(self, context, node, instances):
        try:
            on_provider = self.reportclient.get_provider_allocations(
                node.uuid)
            here = {i.uuid for i in instances}
            for instance in instances:
                # Only a server at rest is healed: one in a task (a build
                # that just failed and is being rescheduled, a delete) is
                # its operation's to claim or give back.
                if instance.uuid not in on_provider and \
                        instance.uuid not in self._claiming and \
                        instance.task_state is None:
                    self._heal_allocation(context, instance, node)
            stale = set(on_provider) - here - self._claiming
            if stale:
                self._remove_stale_consumers(context, stale, node)
        except (placement_client.PlacementUnavailable,
                placement_client.PlacementConflict) as e:
            LOG.warning('Allocation audit of %s incomplete (will retry): '
                        '%s', node.hypervisor_hostname, e)

    def _heal_allocation(self, context, instance, node):
        """Write the allocation of a server here that holds none. The
        list of instances is a snapshot: the server may have been deleted
        or moved (its allocation given back) since, so it is read again
        while no operation of this compute works on it."""
        with self.idle_instance(instance.uuid) as idle:
            if not idle:
                return
            try:
                current = objects.Instance.get_by_uuid(context,
                                                       instance.uuid)
            except exception.InstanceNotFound:
                return
            if current.host != self.host or current.task_state is not None \
                    or current.vm_state == states.DELETED:
                return
            if self.reportclient.get_allocations(instance.uuid).get(
                    'allocations'):
                return  # claimed meanwhile
            try:
                ports = self.port_allocations_of(current)
            except exception.NovaLiteException as e:
                LOG.warning('Not healing the allocation of %s now: its '
                            'ports cannot be read (%s)', instance.uuid, e)
                return
            LOG.info('Writing missing allocation of %s', instance.uuid)
            self._write_allocations(current, node, ports)

    def _remove_stale_consumers(self, context, consumers, node):
        """Allocations on this node whose consumers are not here.

        Their instances are read in one call: while builds queue up for
        this host, every one the scheduler has claimed it for and the
        conductor has sent, but this compute has not taken over yet, is
        such a consumer (hundreds, in a burst).
        """
        found = {i.uuid: i for i in objects.InstanceList.get_by_filters(
            context.elevated(read_deleted='yes'),
            {'uuid': sorted(consumers)})}
        for consumer in sorted(consumers):
            if consumer in found:
                self._remove_stale_consumer(consumer, found[consumer], node)
        unknown = set(consumers) - set(found)
        if unknown:
            self._remove_finished_moves(context, unknown, node)

    def _remove_stale_consumer(self, consumer, instance, node):
        """An allocation on this node whose consumer, ``instance``, is
        not here."""
        if instance.deleted:
            LOG.info('Deleting allocations of %s: the instance is gone '
                     '(deleted while this compute was away)', consumer)
            self.reportclient.delete_allocations(consumer)
            return
        if instance.host is None:
            if instance.task_state is None and instance.vm_state in (
                    states.ERROR, states.SHELVED_OFFLOADED):
                # A failed build or an offload whose give-back did not
                # reach placement: such a server holds nothing.
                LOG.info('Deleting allocations of %s: it is %s on no host',
                         consumer, instance.vm_state)
                self.reportclient.delete_allocations(consumer)
            # Else created by the conductor and on its way here (or to an
            # alternate): its build claims or gives back the allocation.
            return
        if instance.task_state is not None:
            # A move in progress (live migration, evacuation, unshelve)
            # holds this host's side for the server before the server is
            # here; the move gives it back if it does not come.
            return
        if instance.host != self.host:
            LOG.info('Removing %s\'s allocation on %s: it is on %s now',
                     consumer, node.hypervisor_hostname, instance.host)
            self.reportclient.remove_providers_from_consumer(
                consumer, self._tree_of(node))

    def _tree_of(self, node):
        """The node's provider and its children (bandwidth providers)."""
        try:
            return {p['uuid'] for p in
                    self.reportclient.provider_tree(node.uuid)} | {node.uuid}
        except (placement_client.PlacementUnavailable,
                placement_client.PlacementConflict):
            return {node.uuid}

    def _remove_finished_moves(self, context, consumers, node):
        """Consumers with no instance record, read in one call: a move's
        migration record whose move is over holds nothing any more;
        anything else is most likely a new instance the scheduler has just
        claimed this node for and the conductor has not created yet --
        left alone (an orphan is what `nova-lite-manage placement audit`
        is for)."""
        try:
            migrations = {m.uuid: m for m in
                          objects.MigrationList.get_by_uuids(
                              context, sorted(consumers))}
        except Exception as e:
            LOG.debug('Consumers %s not looked up as migrations: %s',
                      sorted(consumers), e)
            return
        for consumer in sorted(consumers):
            migration = migrations.get(consumer)
            if migration is None:
                LOG.debug('Allocation of %s on %s has no instance record '
                          '(yet); leaving it', consumer,
                          node.hypervisor_hostname)
            elif not migration.in_progress:
                LOG.info('Deleting the allocation of migration %s (%s of '
                         '%s, now %s) on %s', consumer,
                         migration.migration_type, migration.instance_uuid,
                         migration.status, node.hypervisor_hostname)
                self.reportclient.delete_allocations(consumer)

    # -- claims ---------------------------------------------------------------

    def _check(self, node, usage, limits):
        vcpus, memory_mb, disk_gb, pci = usage
        limits = limits.to_dict() if limits is not None else {}
        ceilings = {
            'memory_mb': limits.get('memory_mb',
                                    node.memory_mb *
                                    node.ram_allocation_ratio),
            'vcpu': limits.get('vcpu', node.vcpus *
                               node.cpu_allocation_ratio),
            'disk_gb': limits.get('disk_gb', node.local_gb *
                                  node.disk_allocation_ratio),
        }
        wanted = {'memory_mb': (node.memory_mb_used, memory_mb),
                  'vcpu': (node.vcpus_used, vcpus),
                  'disk_gb': (node.local_gb_used, disk_gb)}
        if pci:
            free_pci = CONF.compute.fake_pci_devices - sum(
                used[3] for used in self.tracked.values())
            wanted['pci_devices'] = (0, pci)
            ceilings['pci_devices'] = free_pci
        for name, (used, requested) in wanted.items():
            if used + requested > ceilings[name]:
                raise exception.ComputeResourcesUnavailable(
                    reason='%s: %s used + %s requested > limit %s on %s' %
                    (name, used, requested, int(ceilings[name]), self.host))

    def check_room(self, context, instance, nodename, limits=None):
        """Whether ``instance`` (at its flavor) would fit on ``nodename``
        now, without claiming anything: ComputeResourcesUnavailable if
        not. A move's destination answers with it before the move
        starts; its claim comes with the move."""
        usage = _usage_of(instance)
        resources = self.driver.get_available_resource(nodename)
        with self._lock:
            node = self._ensure_node(context, nodename, resources)
            self._check(node, usage, limits)

    def claim(self, context, instance, nodename, limits=None,
              port_allocations=None, claimed=None, write_soon=False):
        """Reserve ``instance``'s resources here, locally and in placement
        (``port_allocations`` is its ports' part: bandwidth providers);
        ComputeResourcesUnavailable if they do not fit or placement did
        not take them. ``claimed``: the allocations the scheduler (or the
        conductor, on an alternate) wrote for it; when they are what the
        claim here would write, placement is not asked again. Its undo is
        ``drop_instance``. Call it inside ``claiming``, which keeps the
        audit off the instance meanwhile. ``write_soon``: the node's record
        is written within WRITE_SOON_SECONDS rather than now, by the
        operation's last save if it comes first (``usage_with_save``)."""
        usage = _usage_of(instance)
        resources = self.driver.get_available_resource(nodename)
        with self._lock:
            node = self._ensure_node(context, nodename, resources)
            self._check(node, usage, limits)
            self._dropped.pop(instance.uuid, None)
            self.tracked[instance.uuid] = usage
            self.activity[instance.uuid] = stats.activity_of(instance)
            self._claiming.add(instance.uuid)
            self._apply(node, resources)
            self._unsaved.add(nodename)
        if write_soon:
            self._write_soon()
        else:
            self._write_nodes()

        def write():
            if node.uuid not in self._reported and \
                    not self._report_inventory(context, node, resources):
                raise placement_client.PlacementUnavailable(
                    reason='the provider of %s is not reported yet' %
                    nodename)
            # Safe to write again: it writes the whole allocation.
            self._write_allocations(instance, node, port_allocations,
                                    claimed)
        try:
            outage.ride_out(write, placement_client.PlacementUnavailable,
                            'The claim of %s on %s' % (instance.uuid,
                                                       nodename))
        except (placement_client.PlacementUnavailable,
                placement_client.PlacementConflict) as e:
            raise exception.ComputeResourcesUnavailable(
                reason='allocation not written to placement: %s' % e)

    @contextlib.contextmanager
    def claiming(self, instance_uuid):
        """While an instance claimed here is spawned: the audit counts it
        and leaves its allocation alone, although its record says it is
        not here, or not ACTIVE, yet."""
        try:
            yield
        finally:
            self._claiming.discard(instance_uuid)

    @contextlib.contextmanager
    def instance_claim(self, context, instance, nodename, limits=None,
                       port_allocations=None):
        """``claim`` for the duration of a spawn: kept on success, undone
        on failure."""
        with self.claiming(instance.uuid):
            try:
                self.claim(context, instance, nodename, limits,
                           port_allocations)
                yield
            except BaseException:
                self.drop_instance(context, instance, nodename)
                raise

    def _note_left(self, instance_uuid):
        if self._left_during_audit is not None:
            self._left_during_audit.add(instance_uuid)

    def _save_node(self, nodename):
        """Have what the tracker counts now written to ``nodename``'s
        record (call inside ``_changing``, which writes it once the lock
        is released)."""
        node = self.compute_nodes.get(nodename)
        if node is not None:
            self._apply(node, self.driver.get_available_resource(nodename))
            self._unsaved.add(nodename)

    @contextlib.contextmanager
    def _changing(self):
        """The lock; once it is released, the node records ``_save_node``
        asked for are written (``_write_nodes``)."""
        with self._lock:
            yield
        self._write_nodes()

    def _write_nodes(self):
        """Write the node records asked for, one save at a time: a caller
        that finds another one writing leaves its changes to that one's
        next save, so a burst of claims on a node costs a few conductor
        calls, not one each. The save is made outside the lock, of a copy
        (the record's fields keep changing meanwhile). One that fails is
        logged; its changes go with the next save (at the latest the
        audit's)."""
        with self._lock:
            if self._writing:
                return
            self._writing = True
        # The writer stops writing in the same hold of the lock in which
        # it finds nothing left: a change made just after is then not left
        # to a writer that is already on its way out.
        stopped = False
        try:
            while True:
                with self._lock:
                    if not self._unsaved:
                        self._writing, stopped = False, True
                        return
                    nodename = self._unsaved.pop()
                    taken = self._take_changes(nodename)
                    if taken is None:
                        continue
                sent, changed = taken
                try:
                    sent.save()
                except Exception as e:
                    LOG.warning('The record of node %s was not written now '
                                '(its next save will): %s', nodename, e)
                    with self._lock:
                        self._unsaved.add(nodename)
                        self._writing, stopped = False, True
                    return
                with self._lock:
                    self._written(nodename, sent, changed)
        finally:
            if not stopped:
                with self._lock:
                    self._writing = False

    def _write_soon(self):
        """``_write_nodes`` in WRITE_SOON_SECONDS, in a thread of its
        own (nothing then if a save took the changes meanwhile); one
        such thread at a time, which writes whatever waits by then."""
        with self._lock:
            if self._write_due:
                return
            self._write_due = True

        def write():
            with self._lock:
                self._write_due = False
            self._write_nodes()
        timer = threading.Timer(WRITE_SOON_SECONDS, write)
        timer.daemon = True
        timer.start()

    def _take_changes(self, nodename):
        """A copy of ``nodename``'s record to save and the fields it
        changes, or None when nothing changed (with the lock held)."""
        self._unsaved.discard(nodename)
        node = self.compute_nodes.get(nodename)
        if node is None or not node.obj_what_changed():
            return None
        sent = node.obj_clone()
        return sent, sent.obj_what_changed()

    def _written(self, nodename, sent, changed):
        """``sent`` was saved: its changes no longer wait; those made
        again meanwhile still do (with the lock held)."""
        node = self.compute_nodes.get(nodename)
        if node is None:
            return
        saved = [name for name in changed
                 if getattr(node, name) == getattr(sent, name)]
        if saved:  # (an empty list would reset every field)
            node.obj_reset_changes(saved)

    def _retrack(self, nodename, instance, usage):
        with self._changing():
            if usage is None:
                self._note_left(instance.uuid)
                self.tracked.pop(instance.uuid, None)
                self.activity.pop(instance.uuid, None)
            else:
                self._dropped.pop(instance.uuid, None)
                self.tracked[instance.uuid] = usage
                self.activity[instance.uuid] = stats.activity_of(instance)
            self._save_node(nodename)

    def track_instance(self, context, instance, nodename):
        """Count an instance that arrived here holding its allocation
        already (live migration): locally only."""
        self._retrack(nodename, instance, _usage_of(instance))

    def forget_instance(self, context, instance, nodename):
        """Stop counting an instance that left (live migration, a
        reverted resize's destination); its allocation here is its move's
        to give back."""
        with self._lock:
            self._departed.add(instance.uuid)
        self._retrack(nodename, instance, None)

    def update_usage(self, context, instance):
        """What an instance counted here is doing changed (its vm_state
        or task_state: an operation on it began or ended): the node's
        stats and workload follow at once. Nothing for an instance not
        counted here."""
        with self._changing():
            self._note_activity(instance)

    def _note_activity(self, instance):
        """``update_usage``'s change, to be written (with the lock held);
        what the instance was doing before, or None."""
        if instance.uuid not in self.tracked:
            return None
        activity = stats.activity_of(instance)
        before = self.activity.get(instance.uuid)
        if before != activity:
            self.activity[instance.uuid] = activity
            for nodename in self.compute_nodes:
                self._save_node(nodename)
        return before

    @contextlib.contextmanager
    def usage_with_save(self, context, instance):
        """``update_usage`` for an operation's last save of ``instance``
        (its states set as they are to be saved), whose conductor call
        carries the write of the node's record: yields that record's
        changes (a ComputeNode for ``Instance.save``'s ``node``), or None
        when it has none or another save is writing it (which then writes
        them). When the block ends well they count as written. When it
        fails the instance counts as doing what it did before, and the
        node's record is written as ``update_usage`` would. At 1,000
        hosts a build is mostly the only one on its node: one conductor
        call fewer each."""
        nodename = instance.node
        taken = None
        with self._lock:
            before = self._note_activity(instance)
            if not self._writing and nodename in self._unsaved:
                taken = self._take_changes(nodename)
                self._writing = taken is not None
        saved = False
        try:
            yield None if taken is None else taken[0].obj_for_call('save')
            saved = True
        finally:
            with self._lock:
                if taken is not None:
                    if saved:
                        self._written(nodename, *taken)
                    else:
                        self._unsaved.add(nodename)
                    self._writing = False
                if not saved and before is not None and \
                        instance.uuid in self.activity:
                    self.activity[instance.uuid] = before
                    self._save_node(nodename)
            self._write_nodes()

    # -- failed builds -------------------------------------------------------

    def build_failed(self, nodename):
        """One more consecutive failed build on ``nodename``, reported
        at once for the BuildFailureWeigher."""
        with self._changing():
            self.failed_builds[nodename] = \
                self.failed_builds.get(nodename, 0) + 1
            self._save_node(nodename)

    def build_succeeded(self, nodename):
        """A build succeeded on ``nodename``: its failures are forgiven."""
        with self._changing():
            if self.failed_builds.pop(nodename, 0):
                self._save_node(nodename)

    def drop_instance(self, context, instance, nodename, only_here=True):
        """Give back what ``instance`` used here (terminate, failed spawn):
        locally and in placement. An allocation that cannot be deleted now
        is left to the audit. With ``only_here`` the allocation is removed
        only while it holds this node (a build taken over and scheduled
        elsewhere keeps its new claim); a deleted server (``only_here``
        False) gives back all it holds -- the destination a live migration
        claimed for it too."""
        with self._changing():
            self._note_left(instance.uuid)
            if instance.obj_attr_is_set('task_state') and \
                    instance.task_state is not None:
                self._dropped[instance.uuid] = instance.task_state
            known = self.tracked.pop(instance.uuid, None) is not None
            self.activity.pop(instance.uuid, None)
            node = self.compute_nodes.get(nodename)
            if known:
                self._save_node(nodename)
        try:
            self.reportclient.delete_allocations(
                instance.uuid, if_on=node.uuid if (
                    only_here and node is not None) else None)
        except (placement_client.PlacementUnavailable,
                placement_client.PlacementConflict) as e:
            LOG.warning('Allocation of %s not deleted now (the audit will): '
                        '%s', instance.uuid, e)
