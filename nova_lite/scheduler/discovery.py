"""Map compute hosts that appeared in a cell to that cell (host mappings).

Used by ``nova-lite-manage cell_v2 discover_hosts`` and, when
``[scheduler] discover_hosts_in_cells_interval`` is set, by the scheduler.
The cells are searched at once (``cells.scatter``); a cell whose database
does not answer is reported and searched again by the next discovery.
"""

import collections

from oslo_log import log as logging

from nova_lite import cells
from nova_lite import exception
from nova_lite import objects

LOG = logging.getLogger(__name__)

Discovered = collections.namedtuple('Discovered', ['mapped', 'down'])
Discovered.__doc__ = """What ``discover_hosts`` did: ``mapped`` is the new
host mappings; ``down`` is {cell name: why its hosts were not looked for}
for each cell whose database did not answer."""


def _map_new_hosts(context, cctxt, cell):
    """Map the unmapped compute nodes of ``cell``; the new mappings."""
    created = []
    for node in objects.ComputeNodeList.get_unmapped(cctxt):
        try:
            objects.HostMapping.get_by_host(context, node.host)
        except exception.HostMappingNotFound:
            mapping = objects.HostMapping(context, host=node.host,
                                          cell_mapping=cell)
            try:
                mapping.create()
                created.append(mapping)
            except exception.Conflict:
                pass  # a concurrent discovery mapped it
        node._context = cctxt
        node.mapped = True
        node.save()
    return created


def discover_hosts(context, cell_uuid=None):
    """Create the missing host mappings of every cell (or of the cell
    ``cell_uuid``); a Discovered."""
    in_cells = [cell for cell in objects.CellMappingList.get_all(context)
                if not cell_uuid or cell.uuid == cell_uuid]
    searched = cells.scatter(
        context, lambda cctxt, cell: _map_new_hosts(context, cctxt, cell),
        'a discovery of compute hosts', cells=in_cells, with_cell0=False)
    return Discovered([mapping for created in searched.answers.values()
                       for mapping in created], searched.down_by_name())
