"""The control plane's invariant, checked across cells, placement and the
port service (``nova-lite-manage audit``).

For every server:

* its placement allocations are only on the providers of the compute node
  that holds it (the node's provider tree, and sharing providers of its
  aggregates); a server without a host (in cell0, shelved offloaded)
  holds none;
* every port of it has exactly one ACTIVE binding, on the host that holds
  it (unbound when it has no host), and a port with a resource request is
  bound with ``binding:profile.allocation`` naming a provider the server's
  allocation really uses.

Besides: a move in progress (a migration record not finished) may hold
the source node's resources as its own consumer, and nothing else;
allocations of any other consumer on this deployment's compute nodes (or
their children), ports bound to servers that do not exist, and ports of
no server whose binding still names an allocation, are violations too.
No provider of this deployment (its compute nodes' trees and the sharing
providers) may have more of a resource in use than its inventory allows
(total - reserved, times the allocation ratio).

Placement may be shared with other services (another Nova, Neutron's own
providers, a storage service): providers outside this deployment's
compute node trees, and consumers holding nothing on them, are theirs and
are not looked at (a consumer holding only on a sharing provider cannot
be told from another deployment's).
Each server exists once: in one cell (or as one BuildRequest while it is
scheduled, not both), and its instance mapping points at that cell. Servers in
the middle of a task (task_state set) and servers still being scheduled
(BuildRequests) are skipped: their operation owns their resources for now.

The cells are read at once (``cells.scatter``). A cell whose database does
not answer is reported in ``down``: its servers are not checked, nor are
the allocations and ports of no known server (they may be its servers').
"""

import collections

from nova_lite import cells
from nova_lite import exception
from nova_lite import objects
from nova_lite.network import api as network_api
from nova_lite import placement_client

SHARING_TRAIT = 'MISC_SHARES_VIA_AGGREGATE'


def _read_cell(cctxt, cell):
    """({(host, node): node uuid}, instances, migrations in progress) of
    ``cell``."""
    nodes = {(n.host, n.hypervisor_hostname): n.uuid
             for n in objects.ComputeNodeList.get_all(cctxt)}
    instances = objects.InstanceList.get_by_filters(cctxt, {})
    migrations = ([] if cell.is_cell0 else
                  objects.MigrationList.get_in_progress(cctxt))
    return nodes, instances, migrations


class Audit:

    def __init__(self, context, reportclient=None, port_client=None):
        self.context = context
        self.placement = reportclient or placement_client.PlacementClient()
        self.ports = port_client or network_api.PortClient()
        self.violations = []
        self.checked = 0
        self.skipped = 0
        # {cell name: why} of the cells that did not answer: their
        # servers are not checked.
        self.down = {}

    def violation(self, text):
        self.violations.append(text)

    def run(self):
        providers = {p['uuid']: p for p in self.placement.list_providers()}
        self.names = {uuid: p['name'] for uuid, p in providers.items()}
        trees = collections.defaultdict(set)
        for uuid, provider in providers.items():
            trees[provider.get('root_provider_uuid') or uuid].add(uuid)
        sharing = {uuid for uuid, p in providers.items()
                   if p.get('root_provider_uuid', uuid) == uuid and
                   SHARING_TRAIT in self.placement.provider_traits(uuid)}
        consumers = collections.defaultdict(dict)  # consumer -> {rp: res}
        for uuid in providers:
            for consumer, resources in \
                    self.placement.get_provider_allocations(uuid).items():
                consumers[consumer][uuid] = resources
        ports_by_server = collections.defaultdict(list)
        for port in self.ports.list_ports():
            if port.get('device_id'):
                ports_by_server[port['device_id']].append(port)
            else:
                self._check_released_port(port)

        building = {r.instance_uuid for r in
                    objects.BuildRequestList.get_all(self.context)}
        cell_of = collections.defaultdict(list)  # server -> [cell]
        in_task = set()
        read = cells.scatter(self.context, _read_cell, 'an audit')
        self.down = read.down_by_name()
        for uuid, (nodes, instances, migrations) in read.answers.items():
            cell = read.asked[uuid]
            for instance in instances:
                cell_of[instance.uuid].append(cell)
                if instance.task_state is not None:
                    in_task.add(instance.uuid)
                # Another project's port naming the server is not one of
                # its ports (network.api.PortClient.ports_of): its owner
                # wrote the device_id, nothing of the server's is wrong.
                ports = [p for p in ports_by_server.pop(instance.uuid, [])
                         if p.get('project_id') == instance.project_id]
                self._check_server(instance, nodes, trees, sharing,
                                   consumers.pop(instance.uuid, {}), ports)
            for migration in migrations:
                held = consumers.pop(migration.uuid, {})
                node = nodes.get((migration.source_compute,
                                  migration.source_node))
                allowed = trees.get(node, set()) | sharing
                for rp in sorted(set(held) - allowed):
                    self.violation(
                        'migration %s (%s of server %s from %s): holds '
                        'resources on %s, which is not its source' % (
                            migration.uuid, migration.migration_type,
                            migration.instance_uuid,
                            migration.source_compute, self._rp(rp)))
        self._check_records(cell_of, building, in_task)
        # This deployment's part of placement: the trees of the compute
        # nodes the cells list. (Those of a cell that did not answer are
        # not known.)
        our_trees = set()
        for nodes, _instances, _migrations in read.answers.values():
            for node in nodes.values():
                our_trees |= trees.get(node, set())
        for uuid in sorted(our_trees | sharing):
            self._check_capacity(uuid)
        if self.down:
            # What is left may belong to the servers of a cell not read.
            return self.violations
        for consumer, held in sorted(consumers.items()):
            if consumer in building or not set(held) & our_trees:
                continue
            self.violation('consumer %s holds %s but is neither a server '
                           'nor a move in progress' % (
                               consumer, ', '.join(self._rp(rp)
                                                   for rp in sorted(held))))
        for server, ports in sorted(ports_by_server.items()):
            if server in building:
                continue
            for port in ports:
                # Unbound, its device_id is only what its owner wrote
                # (any project may name any device); bound to a host, it
                # is what a compute failed to release.
                if port.get('binding:host_id'):
                    self.violation('port %s is bound to %s, which is not '
                                   'a server' % (port['id'], server))
        return self.violations

    def _check_released_port(self, port):
        """A port of no server names an allocation only where a move's
        binding outlived the server (or the port's detach) it was made
        for: the allocation key is the compute's, written with the
        server's device_id and cleared with it."""
        provider = (port.get('binding:profile') or {}).get('allocation')
        if provider:
            self.violation('port %s belongs to no server but is bound to '
                           '%s with an allocation on %s' % (
                               port['id'], port.get('binding:host_id') or
                               'no host', self._rp(provider)))

    def _check_capacity(self, uuid):
        for resource_class, (usable, used) in sorted(
                self.placement.provider_capacity(uuid).items()):
            if used > usable:
                self.violation('provider %s: %d %s in use, more than the %d '
                               'its inventory allows' % (
                                   self._rp(uuid), used, resource_class,
                                   usable))

    def _check_records(self, cell_of, building, in_task):
        """Each server once: in one cell or being built, never both, and
        mapped to the cell that holds it. A server the conductor is placing
        in its cell right now (in a task) may still have its BuildRequest
        and a mapping to no cell for a moment."""
        mappings = {m.instance_uuid: m for m in
                    objects.InstanceMappingList.get_by_instance_uuids(
                        self.context, list(cell_of))} if cell_of else {}
        for server, in_cells in sorted(cell_of.items()):
            names = ', '.join(c.name or c.uuid for c in in_cells)
            if len(in_cells) > 1:
                self.violation('server %s exists in more than one cell: %s'
                               % (server, names))
            placing = server in in_task
            if server in building and not placing:
                self.violation('server %s exists in cell %s and is still a '
                               'BuildRequest' % (server, names))
            mapping = mappings.get(server)
            if mapping is not None and mapping.cell_mapping is None and \
                    placing:
                continue
            if mapping is None:
                self.violation('server %s in cell %s has no instance '
                               'mapping' % (server, names))
            elif mapping.cell_mapping is None or mapping.cell_mapping.uuid \
                    not in {c.uuid for c in in_cells}:
                self.violation('server %s is in cell %s but its mapping '
                               'points at %s' % (
                                   server, names,
                                   mapping.cell_mapping.name
                                   if mapping.cell_mapping else 'no cell'))

    def _rp(self, uuid):
        return '%s (%s)' % (self.names.get(uuid, '?'), uuid)

    def _check_server(self, instance, nodes, trees, sharing, held, ports):
        if instance.task_state is not None:
            self.skipped += 1
            return
        self.checked += 1
        where = 'server %s' % instance.uuid
        if not instance.host:
            for rp in sorted(held):
                self.violation('%s has no host but holds resources on %s' %
                               (where, self._rp(rp)))
            for port in ports:
                if port.get('binding:host_id'):
                    self.violation('%s has no host but its port %s is bound '
                                   'to %s' % (where, port['id'],
                                              port['binding:host_id']))
            return
        node = nodes.get((instance.host, instance.node))
        allowed = trees.get(node, set()) | sharing
        if node is None:
            self.violation('%s is on %s/%s, which has no compute node '
                           'record' % (where, instance.host, instance.node))
        if not held:
            self.violation('%s on %s holds no allocation in placement' %
                           (where, instance.host))
        for rp in sorted(set(held) - allowed):
            self.violation('%s is on %s but holds resources on %s' % (
                where, instance.host, self._rp(rp)))
        for port in ports:
            self._check_port(where, instance, port, held)

    def _check_port(self, where, instance, port, held):
        try:
            bindings = self.ports.bindings(port['id'])
        except exception.NovaLiteException as e:
            self.violation('%s: bindings of port %s cannot be read: %s' % (
                where, port['id'], e))
            return
        active = [b for b in bindings if b.get('status') == 'ACTIVE']
        if len(active) != 1:
            self.violation('%s: port %s has %d ACTIVE bindings (%s)' % (
                where, port['id'], len(active),
                ', '.join(b.get('host') or '-' for b in active)))
            return
        binding = active[0]
        if binding.get('host') != instance.host:
            self.violation('%s is on %s but its port %s is bound to %s' % (
                where, instance.host, port['id'],
                binding.get('host') or 'no host'))
        provider = (binding.get('profile') or {}).get('allocation')
        if port.get('resource_request'):
            if provider not in held:
                self.violation(
                    '%s: port %s has a resource request and its binding\'s '
                    'allocation is %s, not a provider of the server\'s '
                    'allocation (%s)' % (
                        where, port['id'], provider,
                        ', '.join(sorted(held)) or 'none'))
        elif provider is not None:
            self.violation('%s: port %s has no resource request but its '
                           'binding names allocation %s' % (
                               where, port['id'], provider))
