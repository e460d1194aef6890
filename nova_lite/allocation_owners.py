"""Whose allocations are these? The look that decides which allocations
in placement nobody of this deployment holds any more, for the
conductor's orphan cleanup (``conductor/tasks/recover.OrphanAllocations``)
and ``nova-lite-manage placement audit``.

Only this deployment's allocations are considered: those on the provider
trees of its compute nodes (a node and its children, such as bandwidth
providers). On a Placement shared with other services (another Nova,
Neutron's own providers, a storage service) everything else is theirs and
is never touched. Among them, an allocation is held when its consumer is
a server of a cell, a build request still being scheduled, or a migration
(a move in progress holds its source side as the migration's consumer).
"""

import collections

from nova_lite import cells
from nova_lite import objects
from nova_lite.objects import cell_mapping as cell_mapping_obj


class Owners(collections.namedtuple('Owners', [
        'allocations', 'held', 'buried', 'down'])):
    """``allocations``: {consumer: [(provider, {class: amount})]} on this
    deployment's providers; ``held``: the consumers among them that are a
    server in a cell, a build request or a migration; ``buried``: those
    that are a server in cell0 (which holds nothing); ``down``: {cell
    uuid: why} of the cells that did not answer -- while one does not,
    its servers' allocations look like nobody's, so nothing may be
    removed."""

    def nobodys(self):
        """The consumers no one holds (empty while a cell is down)."""
        if self.down:
            return set()
        return set(self.allocations) - self.held


def look(context, reportclient, known=None, most=None):
    """Read placement and every cell once; the ``Owners``. ``known``, a
    dict the caller keeps between looks ({provider: (generation,
    {consumer: resources})}), spares reading again the allocations of a
    provider whose generation did not change: placement changes a
    provider's generation with each write of an allocation on it, so
    a look at a deployment at rest reads the provider list and nothing
    more from placement.

    ``most`` (with ``known``) bounds how many providers' allocations one
    look reads: those never read first, then those changed, the one read
    longest ago first; the others are read by the next looks, and until
    then count with what was read of them last (a consumer is only ever
    judged by whether it has a holder, so an allocation gone since is
    at worst deleted again, and one not read yet waits). The first look
    of a conductor at a deployment of thousands of hosts is then spread
    over several, instead of one long storm of reads."""
    known = {} if known is None else known

    def nodes_in(cctxt, cell):
        return {node.uuid for node in
                objects.ComputeNodeList.get_all(cctxt)}

    nodes = cells.scatter(context, nodes_in, 'a list of compute nodes',
                          with_cell0=False)
    if nodes.down:
        return Owners({}, set(), set(), nodes.down_by_name())
    ours = set().union(*nodes.answers.values()) if nodes.answers else set()
    listed = {}
    for provider in reportclient.list_providers():
        if provider.get('root_provider_uuid', provider['uuid']) in ours:
            listed[provider['uuid']] = provider  # else not this deployment's
    for uuid in set(known) - set(listed):
        del known[uuid]
    # ``known`` is kept in the order its entries were read, oldest first.
    stale = [uuid for uuid in listed if uuid not in known] + [
        uuid for uuid, (generation, _) in known.items()
        if generation != listed[uuid].get('generation')]
    for uuid in stale[:most]:
        # Read after the list: at least as new as its generation.
        on_provider = reportclient.get_provider_allocations(uuid)
        known.pop(uuid, None)
        known[uuid] = (listed[uuid].get('generation'), on_provider)
    allocations = collections.defaultdict(list)
    for uuid, provider in listed.items():
        for consumer, resources in known.get(uuid, (None, {}))[1].items():
            allocations[consumer].append((provider, resources))
    if not allocations:
        return Owners({}, set(), set(), {})
    consumers = sorted(allocations)

    def holders_in(cctxt, cell):
        holders = objects.InstanceList.uuids_among(cctxt, consumers, {})
        if cell.uuid != cell_mapping_obj.CELL0_UUID:
            holders.update(m.uuid for m in objects.MigrationList
                           .get_by_filters(cctxt, {'uuids': consumers}))
        return holders

    found = cells.scatter(context, holders_in,
                          'a look for the holders of allocations')
    buried = found.answers.pop(cell_mapping_obj.CELL0_UUID, set())
    held = set().union(*found.answers.values()) if found.answers else set()
    held |= {r.instance_uuid for r in
             objects.BuildRequestList.get_all(context)} & set(consumers)
    return Owners(dict(allocations), held, buried & set(consumers),
                  dict(nodes.down_by_name(), **found.down_by_name()))
