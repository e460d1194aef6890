"""Map compute hosts that appeared in a cell to that cell (host mappings).

Used by ``nova-lite-manage cell_v2 discover_hosts`` and, when
``[scheduler] discover_hosts_in_cells_interval`` is set, by the scheduler.
"""

from oslo_log import log as logging

from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite import objects

LOG = logging.getLogger(__name__)


def discover_hosts(context, cell_uuid=None):
    """Create missing host mappings; return the new ones."""
    created = []
    for cell in objects.CellMappingList.get_all(context):
        if cell.is_cell0 or (cell_uuid and cell.uuid != cell_uuid):
            continue
        with nova_context.target_cell(context, cell) as cctxt:
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
