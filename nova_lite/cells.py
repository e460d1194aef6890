"""Ask every cell the same question at once: ``scatter`` runs a query in
each cell's database, each in its own thread aimed at that cell with
``context.target_cell``, and gathers the answers by cell. A cell whose
database does not answer (DatabaseUnavailable) or does not answer in time
is reported and logged, never raised: a listing is made of the cells that
answered, the way Nova leaves a down cell out of its lists. ``find`` looks
for one thing in every cell, and says so (503) when it is in none of the
cells that answered but one did not.
"""

import collections
import threading
import time

from oslo_log import log as logging

from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite import objects

LOG = logging.getLogger(__name__)

# How long (seconds) a listing waits for the slowest cell: as long as a
# database connection may take to fail, so that a cell that is merely slow
# still counts.
CELL_TIMEOUT = 60


class Scattered(collections.namedtuple('Scattered',
                                       ['answers', 'down', 'asked'])):
    """What ``scatter`` gathered: ``answers`` is {cell uuid: what the query
    returned}; ``down`` is {cell uuid: why that cell gave no answer} for
    the cells whose database is unavailable or that did not answer within
    the timeout; ``asked`` is {cell uuid: CellMapping} of every cell
    asked."""

    def down_by_name(self):
        """``down`` keyed by the cells' names, for an operator to read."""
        return {self.asked[uuid].name or uuid: why
                for uuid, why in self.down.items()}


class CellTimeout(Exception):
    """The cell's query was still running when the timeout passed."""

    def __init__(self, timeout):
        super().__init__('no answer within %ss' % timeout)


def scatter(context, query, purpose, cells=None, with_cell0=True,
            timeout=CELL_TIMEOUT):
    """Run ``query(cell_context, cell)`` in every cell at once.

    ``cells`` (default: every mapped cell, cell0 too unless
    ``with_cell0`` is False) are asked concurrently, each in a thread of
    its own with ``context`` aimed at that cell. ``purpose`` says what the
    answers are for ("a server list"), for the warning logged about each
    cell that gives none. Any error of a query but DatabaseUnavailable is
    raised as it would be by a loop over the cells.
    """
    if cells is None:
        cells = objects.CellMappingList.get_all(context)
    cells = [cell for cell in cells if with_cell0 or not cell.is_cell0]
    outcomes = {}

    def ask(cell):
        try:
            with nova_context.target_cell(context, cell) as cctxt:
                outcomes[cell.uuid] = (True, query(cctxt, cell))
        except exception.DatabaseUnavailable as e:
            outcomes[cell.uuid] = (False, e)
        except Exception as e:
            outcomes[cell.uuid] = (None, e)

    threads = []
    for cell in cells:
        thread = threading.Thread(target=ask, args=(cell,), daemon=True,
                                  name='scatter-%s' % cell.uuid)
        thread.start()
        threads.append(thread)
    deadline = time.monotonic() + timeout
    for thread in threads:
        thread.join(max(0, deadline - time.monotonic()))
    answers, down = {}, {}
    for cell in cells:
        # A thread still running may yet write its outcome: read it once.
        answered, result = outcomes.get(cell.uuid, (False,
                                                    CellTimeout(timeout)))
        if answered is None:
            raise result
        if answered:
            answers[cell.uuid] = result
        else:
            LOG.warning('Skipping cell %s in %s: %s',
                        cell.name or cell.uuid, purpose, result)
            down[cell.uuid] = result
    return Scattered(answers, down, {cell.uuid: cell for cell in cells})


def find(context, query, what, cells=None, with_cell0=True,
         timeout=CELL_TIMEOUT):
    """What ``query(cell_context, cell)`` finds in the cell that has it,
    every cell asked at once; None if no cell has it.

    A cell where the query answers None or raises NotFound does not have
    it. ``what`` names the thing sought ("service <uuid>"). When no cell
    that answered has it but a cell did not answer, it may be there: that
    is CellUnavailable (503), not a NotFound.
    """
    def look(cctxt, cell):
        try:
            return query(cctxt, cell)
        except exception.NotFound:
            return None

    scattered = scatter(context, look, 'a search for ' + what, cells=cells,
                        with_cell0=with_cell0, timeout=timeout)
    for found in scattered.answers.values():
        if found is not None:
            return found
    if scattered.down:
        names = list(scattered.down_by_name())
        raise exception.CellUnavailable(what=what, cells='%s %s' % (
            'cell' if len(names) == 1 else 'cells', ', '.join(names)))
    return None


def list_from_every_cell(context, query, purpose, with_cell0=True):
    """What ``query(cell_context, cell)`` lists in each cell, as one list
    in the order of the cells; the cells that do not answer are left
    out (and logged, see ``scatter``)."""
    scattered = scatter(context, query, purpose, with_cell0=with_cell0)
    return [item for found in scattered.answers.values() for item in found]
