"""Host states: the scheduler's view of each compute node, cached between
requests and refreshed from the cell databases.

A node is skipped when its compute has no service record or is not mapped
to a cell yet; a cached state is replaced only when the compute node record
is newer than the one it was built from (so resources consumed by an
earlier request stay consumed until the compute reports again); nodes that
disappeared are dropped, and so are those of a cell whose database does not
answer (``cells.scatter``) until it answers again. Host aggregates are read
from the API database on every call, so a host's zone and aggregate
metadata follow the administrator's last change. What could not be read
on the last call is in ``unread``: a request that finds no host then
ends in HostsUnread, which its conductor asks again about, rather than a
plain NoValidHost. If the API database does not answer for the
aggregates, no host is offered (none would be filtered by its true zone
and aggregate metadata); if it has no aggregates to give (an older
schema), hosts are scheduled as if in no aggregate.
"""

import threading

from oslo_log import log as logging
from oslo_serialization import jsonutils

from nova_lite import cells
from nova_lite import conf as nova_conf
from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import service as service_obj
from nova_lite import servicegroup

CONF = nova_conf.CONF
LOG = logging.getLogger(__name__)


class Aggregate:
    """A host aggregate as the scheduler sees it: a name, metadata (such as
    ``availability_zone`` or ``ssd=true``), its hosts, and its uuid (that
    of its mirror among placement's aggregates)."""

    def __init__(self, name, metadata=None, hosts=(), uuid=None):
        self.name = name
        self.metadata = dict(metadata or {})
        self.hosts = set(hosts)
        self.uuid = uuid

    def __repr__(self):
        return 'Aggregate(%r, %r)' % (self.name, self.metadata)


class HostState:
    """What one compute node can still take, as the filters see it.

    (Slotted: a scheduler holds one per compute node, ten thousand of
    them on a large cloud, and every filter and weigher reads them.)
    """

    __slots__ = ('host', 'nodename', 'cell_uuid', 'uuid',
                 'total_usable_ram_mb', 'free_ram_mb', 'total_usable_disk_gb',
                 'free_disk_mb', 'vcpus_total', 'vcpus_used', 'num_instances',
                 'num_io_ops', 'failed_builds', 'cpu_allocation_ratio',
                 'ram_allocation_ratio', 'disk_allocation_ratio',
                 'hypervisor_type', 'hypervisor_version',
                 'supported_instances', 'stats', 'traits', 'aggregates',
                 'instances', 'placed', 'service', 'updated', 'limits')

    def __init__(self, host, nodename, cell_uuid):
        self.host = host
        self.nodename = nodename
        self.cell_uuid = cell_uuid
        self.uuid = None
        self.total_usable_ram_mb = 0
        self.free_ram_mb = 0
        self.total_usable_disk_gb = 0
        self.free_disk_mb = 0
        self.vcpus_total = 0
        self.vcpus_used = 0
        self.num_instances = 0
        self.num_io_ops = 0
        self.failed_builds = 0
        self.cpu_allocation_ratio = 1.0
        self.ram_allocation_ratio = 1.0
        self.disk_allocation_ratio = 1.0
        self.hypervisor_type = None
        self.hypervisor_version = None
        # [(architecture, hypervisor type, vm mode)] the host can run.
        self.supported_instances = []
        # The compute node's stats (ComputeCapabilitiesFilter looks there).
        self.stats = {}
        self.traits = set()
        self.aggregates = []
        # Uuids of the instances on the host (the group filters and
        # weighers count a group's members among them), and those placed
        # here by this scheduler since the compute last reported.
        self.instances = set()
        self.placed = set()
        self.service = {'up': False, 'disabled': True, 'forced_down': False,
                        'disabled_reason': None}
        self.updated = None
        # Filters that bound a resource record its ceiling here; the
        # compute enforces them in its claim.
        self.limits = {}

    @property
    def availability_zone(self):
        """The zone of the host's aggregates, else the default zone."""
        zones = sorted(a.metadata['availability_zone']
                       for a in self.aggregates
                       if a.metadata.get('availability_zone'))
        return zones[0] if zones else CONF.default_availability_zone

    def aggregate_metadata(self):
        """{key: set of values} over the host's aggregates."""
        found = {}
        for aggregate in self.aggregates:
            for key, value in aggregate.metadata.items():
                found.setdefault(key, set()).add(value)
        return found

    def update(self, compute_node, service):
        """The node's state from its record and its service's
        (``objects.service.ServiceState``)."""
        self.service = {'up': service.up,
                        'disabled': service.disabled,
                        'forced_down': service.forced_down,
                        'disabled_reason': service.disabled_reason}
        if self.updated is not None and compute_node.updated_at is not None \
                and compute_node.updated_at <= self.updated:
            return
        self.uuid = compute_node.uuid
        self.total_usable_ram_mb = compute_node.memory_mb
        self.free_ram_mb = compute_node.free_ram_mb
        self.total_usable_disk_gb = compute_node.local_gb
        self.free_disk_mb = compute_node.free_disk_gb * 1024
        self.vcpus_total = compute_node.vcpus
        self.vcpus_used = compute_node.vcpus_used
        self.num_instances = compute_node.running_vms
        self.cpu_allocation_ratio = compute_node.cpu_allocation_ratio
        self.ram_allocation_ratio = compute_node.ram_allocation_ratio
        self.disk_allocation_ratio = compute_node.disk_allocation_ratio
        self.hypervisor_type = compute_node.hypervisor_type
        self.hypervisor_version = compute_node.hypervisor_version
        stats = compute_node.stats or {}
        self.stats = dict(stats)
        # I/O-heavy operations in progress (builds, resizes, rebuilds,
        # unshelves...), as Nova reads them; current_workload counts every
        # task in progress.
        self.num_io_ops = int(stats.get('io_workload') or 0)
        self.failed_builds = int(stats.get('failed_builds') or 0)
        self.supported_instances = [
            tuple(item) for item in
            jsonutils.loads(stats.get('supported_instances') or '[]')]
        self.updated = compute_node.updated_at
        self.placed = set()
        self.limits = {}

    def set_instances(self, uuids):
        """The instances the cell database places here, plus those this
        scheduler sent here that the database may not show yet."""
        self.instances = set(uuids) | self.placed

    def consume_from_instance(self, spec, instance_uuid=None):
        """Take one instance of ``spec`` off this host before the next
        instance is placed -- its RAM, vCPUs, root and ephemeral disk (as
        Nova counts them: a boot-from-volume flavor's root disk and swap
        are left to placement) -- and count one more instance and one
        more I/O operation in progress."""
        flavor = spec.flavor
        self.free_ram_mb -= flavor.memory_mb
        self.free_disk_mb -= (flavor.root_gb + flavor.ephemeral_gb) * 1024
        self.vcpus_used += flavor.vcpus
        self.num_instances += 1
        self.num_io_ops += 1
        if instance_uuid:
            self.instances.add(instance_uuid)
            self.placed.add(instance_uuid)

    def give_back_instance(self, spec, instance_uuid):
        """Undo ``consume_from_instance``: a multi-create placed the
        instance here, and placement refused the claims of its
        instances together."""
        flavor = spec.flavor
        self.free_ram_mb += flavor.memory_mb
        self.free_disk_mb += (flavor.root_gb + flavor.ephemeral_gb) * 1024
        self.vcpus_used -= flavor.vcpus
        self.num_instances -= 1
        self.num_io_ops -= 1
        self.instances.discard(instance_uuid)
        self.placed.discard(instance_uuid)

    def __repr__(self):
        return ('(%s, %s) ram: %sMB disk: %sMB io_ops: %s instances: %s' %
                (self.host, self.nodename, self.free_ram_mb,
                 self.free_disk_mb, self.num_io_ops, self.num_instances))


class HostManager:

    def __init__(self):
        self.host_states = {}  # (host, nodename) -> HostState
        self.instances_by_host = {}  # host -> instance uuids (last read)
        self.unread = []  # what the last get_host_states could not read
        self._lock = threading.Lock()
        # uuid -> (when it had been written as of the last read, the
        # ComputeNode then read) (_nodes_read).
        self._nodes = {}

    def _cells(self, context):
        return [cell for cell in objects.CellMappingList.get_all(context)
                if not cell.is_cell0 and not cell.disabled]

    @staticmethod
    def _aggregates_by_host(context):
        """{host: [Aggregate, ...]} from the API database; None (after a
        warning) if it does not answer."""
        try:
            found = objects.AggregateList.get_all(context)
        except exception.DatabaseUnavailable as e:
            LOG.warning('Cannot read the host aggregates; no host is '
                        'offered until they can be: %s', e)
            return None
        except Exception as e:
            # Not a blink: no aggregates table yet (a scheduler upgraded
            # before the API database), say.
            LOG.warning('Cannot read the host aggregates; hosts are '
                        'scheduled as if in no aggregate (default zone, no '
                        'aggregate metadata): %s', e)
            return {}
        by_host = {}
        for aggregate in found:
            seen_by_scheduler = Aggregate(aggregate.name, aggregate.metadata,
                                          aggregate.hosts, aggregate.uuid)
            for host in aggregate.hosts:
                by_host.setdefault(host, []).append(seen_by_scheduler)
        return by_host

    def get_host_states(self, context, with_instances=True, uuids=None):
        """Refresh and return the states of every schedulable node -- or,
        with ``uuids``, of those compute nodes only (the ones placement
        offered): the others are neither read nor dropped from the cache.

        With ``with_instances``, also which instances run where (one more
        query per cell, only worth it when a filter or weigher looks);
        ``instances_by_host`` then holds that map for every host, read or
        not.
        """
        def read_cell(cctxt, cell):
            nodes = (objects.ComputeNodeList.get_all(cctxt)
                     if uuids is None else self._nodes_read(cctxt, uuids))
            services = service_obj.service_states(
                cctxt, servicegroup.COMPUTE_BINARY)
            instances = (objects.InstanceList.uuids_by_host(cctxt)
                         if with_instances else None)
            return nodes, services, instances

        seen = set()
        aggregates = self._aggregates_by_host(context)
        self.instances_by_host = {}
        if aggregates is None:
            self.unread = ['the host aggregates (the API database does not '
                           'answer)']
            return []
        read = cells.scatter(context, read_cell, 'the scheduler\'s host '
                             'states', cells=self._cells(context))
        self.unread = ['the hosts of cell %s (%s)' % (name, error)
                       for name, error in read.down_by_name().items()]
        for cell_uuid, (nodes, services, instances) in read.answers.items():
            if instances is not None:
                self.instances_by_host.update(instances)
            for node in nodes:
                service = services.get(node.host)
                if service is None:
                    LOG.debug('No service record for %s; skipping',
                              node.host)
                    continue
                if not node.mapped:
                    LOG.debug('Host %s is not mapped to a cell yet (run '
                              'nova-lite-manage cell_v2 discover_hosts)',
                              node.host)
                    continue
                key = (node.host, node.hypervisor_hostname)
                seen.add(key)
                state = self.host_states.get(key)
                if state is None:
                    state = HostState(node.host, node.hypervisor_hostname,
                                      cell_uuid)
                    self.host_states[key] = state
                state.update(node, service)
                state.aggregates = aggregates.get(node.host, [])
                if instances is not None:
                    state.set_instances(instances.get(node.host, ()))
        if uuids is not None:
            # The nodes kept as read are those of the cached states (a
            # node that is gone is read no more).
            kept = {state.uuid for state in self.host_states.values()}
            for uuid in set(self._nodes) - kept:
                del self._nodes[uuid]
            return [self.host_states[key] for key in sorted(seen)]
        for key in set(self.host_states) - seen:
            if self.host_states[key].cell_uuid in read.down:
                LOG.info('Leaving compute node %s/%s out of the scheduler '
                         'cache while its cell does not answer', *key)
            else:
                LOG.info('Removing dead compute node %s/%s from the '
                         'scheduler cache', *key)
            del self.host_states[key]
        return list(self.host_states.values())

    def _nodes_read(self, cctxt, uuids):
        """The live compute nodes among ``uuids``: those written since
        this scheduler last read them read again, the others as it read
        them (when each was last written, read first, says which)."""
        written = objects.ComputeNodeList.written_by_uuid(cctxt, uuids)
        again = [uuid for uuid, when in written.items()
                 if when is None or
                 self._nodes.get(uuid, (None,))[0] != when]
        if again:
            for node in objects.ComputeNodeList.get_by_uuids(cctxt, again):
                # Kept with when it had been written as of the first read:
                # the node read since is as new or newer, so a write in
                # between only makes the next question read it once more.
                self._nodes[node.uuid] = (written[node.uuid], node)
        # (A node deleted between the two reads is left out.)
        return [self._nodes[uuid][1] for uuid in sorted(written)
                if uuid in self._nodes]

    def node_uuids(self, context, host, nodename=None):
        """The uuids of ``host``'s compute nodes (only ``nodename``'s, if
        given), read from the cell it is mapped to; [] if it is mapped to
        none."""
        try:
            mapping = objects.HostMapping.get_by_host(context, host)
        except exception.HostMappingNotFound:
            return []
        with nova_context.target_cell(context,
                                      mapping.cell_mapping) as cctxt:
            nodes = objects.ComputeNodeList.get_by_host(cctxt, host)
        return [node.uuid for node in nodes
                if nodename is None or node.hypervisor_hostname == nodename]

    def hosts_of(self, instance_uuids):
        """The hosts running any of ``instance_uuids``: as the last
        ``get_host_states(with_instances=True)`` read them, plus where
        this scheduler has sent some since (not recorded yet)."""
        wanted = set(instance_uuids)
        hosts = {host for host, uuids in self.instances_by_host.items()
                 if uuids & wanted}
        hosts.update(state.host for state in self.host_states.values()
                     if state.placed & wanted)
        return hosts
