"""A page of the server list, from the build requests and every cell,
reading no more from any cell than the page needs.

The order is newest first: ``created_at`` descending; at the same
``created_at`` a server that has a build request before one that has
none; then ``uuid`` descending. A page starts after its marker's place in
that order and holds ``limit`` servers.

1. The marker's place: its created_at, from the one cell that has it
   (the unique index on uuid, every cell asked at once) or from its build
   request. A marker in none is MarkerNotFound (400).
2. Each cell's database filters, orders and pages its own instances
   (``InstanceList.get_newest_first``): it seeks to the marker's place in
   an index and answers at most ``limit`` rows; what it cannot judge (the
   name's regular expression, the tags) is checked here, and the cell is
   read on until ``limit`` instances pass or it has no more. Only what
   orders and checks an instance is read so far. A cell that does not
   answer is left out of the list (``cells.scatter``).
3. The build requests -- only the servers being scheduled, so few -- are
   all read, filtered and ordered here: the created_at a build request
   sorts by is inside its serialized instance when the server is built
   again from cell0, where SQL cannot order by it. A build request whose
   instance a cell already has is left out: the cell's instance stands
   for the server.
4. The sorted answers are merged and the first ``limit`` kept; then the
   page's instances are read whole with their faults, from each cell that
   has some (the rows and the faults: two queries). One deleted in
   between is shown deleted; one whose cell stops answering in between
   is left out.

A page's cost grows with ``limit`` and the number of cells, not with the
number of servers.
"""

import collections
import datetime
import heapq
import itertools

from oslo_utils import uuidutils

from nova_lite import cells
from nova_lite import exception
from nova_lite import objects

# A cell is read the page and one more row at a time (the row after
# shows whether the page's last created_at was read whole); read on
# because rows failed the checks made here, in steps that grow from
# _FEWEST_ROWS_A_READ to _MOST_ROWS_A_READ. With no limit, in steps of
# _MOST_ROWS_A_READ.
_FEWEST_ROWS_A_READ = 50
_MOST_ROWS_A_READ = 1000


def servers_page(context, search_opts, limit, marker, matches):
    """The servers matching ``search_opts`` after ``marker``, at most
    ``limit`` (None: all), newest first. ``matches(instance,
    search_opts)`` is the whole check of a server against the options;
    whatever of it a database can do is done there too."""
    project_id = search_opts.get('project_id')
    building = _build_request_copies(context, project_id)
    after = None
    if marker is not None:
        after = _place_of_marker(context, marker, project_id, building)
    if limit == 0:
        return []
    filters = {'project_id': project_id,
               'host': search_opts.get('host'),
               'vm_state': search_opts.get('vm_state'),
               'deleted': context.read_deleted == 'yes'}
    narrowed = dict(filters, **_narrowing(search_opts))

    def read_cell(cctxt, cell):
        found = _cell_page(cctxt, narrowed, after, limit,
                           lambda i: matches(i, search_opts), building)
        # The build requests whose server this cell already has (as the
        # whole list would show it: matching the database's filters).
        return found, objects.InstanceList.uuids_among(cctxt, building,
                                                       filters)

    in_cells = cells.scatter(context, read_cell, 'a server list')
    in_a_cell = set().union(*[has for _found, has
                              in in_cells.answers.values()])
    pending = [instance for uuid, instance in building.items()
               if uuid not in in_a_cell and matches(instance, search_opts)
               and (after is None or _place(instance, building) < after)]
    pending.sort(key=lambda i: _place(i, building), reverse=True)
    streams = [pending[:limit]] + [found for found, _has
                                   in in_cells.answers.values()]
    page = list(itertools.islice(
        heapq.merge(*streams, key=lambda i: _place(i, building),
                    reverse=True), limit))
    cell_of = {listed.uuid: cell_uuid
               for cell_uuid, (found, _has) in in_cells.answers.items()
               for listed in found}
    return _whole(context, page, cell_of, in_cells.asked)


def _place(instance, building):
    """Where ``instance`` goes: the larger, the nearer the top."""
    created_at = instance.created_at
    created_at = (datetime.datetime.min if created_at is None
                  else created_at.replace(tzinfo=None))
    return created_at, instance.uuid in building, instance.uuid


def _build_request_copies(context, project_id):
    """{uuid: the instance its build request holds} of the project's
    build requests (every project's if None)."""
    copies = {}
    for build_request in objects.BuildRequestList.get_all(
            context, project_id=project_id):
        instance = build_request.instance
        # The serialized instance keeps created_at to the second only;
        # the BuildRequest row has the precise time (unless the server
        # is built again from cell0: then it was created long before).
        if build_request.created_at is not None and (
                instance.created_at is None or abs(
                    (build_request.created_at.replace(tzinfo=None) -
                     instance.created_at.replace(tzinfo=None))
                    .total_seconds()) < 2):
            instance.created_at = build_request.created_at
        copies[build_request.instance_uuid] = instance
    return copies


def _place_of_marker(context, marker, project_id, building):
    """The place in the list of server ``marker`` (of ``project_id`` if
    given), whatever its state now: the page after it goes on from there
    even if the marker was deleted or changed since the page that ended
    with it. MarkerNotFound if it is in no cell and no build request."""
    if not uuidutils.is_uuid_like(marker):
        raise exception.MarkerNotFound(marker=marker)
    try:
        position = cells.find(
            context, lambda cctxt, cell: objects.InstanceList.position_of(
                cctxt, marker, project_id), 'server %s' % marker)
    except exception.CellUnavailable:
        if marker not in building:
            raise
        position = None
    if position is not None:
        created_at = position[0]
        created_at = (datetime.datetime.min if created_at is None
                      else created_at.replace(tzinfo=None))
        return created_at, marker in building, marker
    if marker in building:
        return _place(building[marker], building)
    raise exception.MarkerNotFound(marker=marker)


def _narrowing(search_opts):
    """What a cell's database can be told of the checks that are made
    here anyway, to hand over fewer rows: a superset of the matches."""
    narrowed = {}
    name = search_opts.get('name')
    contained = name.contained() if name else None
    if contained:
        narrowed['name_contains'] = contained
    if search_opts.get('tags'):
        narrowed['tags_all'] = search_opts['tags']
    if search_opts.get('tags-any'):
        narrowed['tags_any'] = search_opts['tags-any']
    return narrowed


def _cell_page(cctxt, filters, after, limit, matches, building):
    """Up to ``limit`` instances of the context's cell that match, after
    the place ``after``, in the list's order."""
    rows_a_read = _MOST_ROWS_A_READ if limit is None else limit + 1
    # At the same created_at the list puts a server with a build request
    # first, which the database does not know: the rows it gives after
    # the marker are checked here. When the marker has a build request,
    # the servers at its created_at that have none all come after it,
    # whatever their uuid: that created_at is read whole.
    start = None
    if after is not None:
        start = after[0], None if after[1] else after[2]
    found = []
    while True:
        rows = objects.InstanceList.get_newest_first(
            cctxt, filters, after=start, limit=rows_a_read)
        found.extend(i for i in rows
                     if (after is None or _place(i, building) < after)
                     and matches(i))
        if len(rows) < rows_a_read:
            break
        last = _place(rows[-1], building)
        # Enough once the limit-th has a created_at before which nothing
        # is left unread: the rest of its created_at may sort before it.
        if (limit is not None and len(found) >= limit and
                last[0] < _place(found[limit - 1], building)[0]):
            break
        start = last[0], last[2]
        rows_a_read = max(_FEWEST_ROWS_A_READ, rows_a_read,
                          min(rows_a_read * 2, _MOST_ROWS_A_READ))
    found.sort(key=lambda i: _place(i, building), reverse=True)
    return found[:limit]


def _whole(context, page, cell_of, asked):
    """``page`` with each server a cell listed (``cell_of``: {uuid: cell
    uuid}) read whole, with its fault: one read in each cell that has
    some of them, the cells ``asked`` (by uuid) at once."""
    uuids_of = collections.defaultdict(list)
    for listed in page:
        if listed.uuid in cell_of:
            uuids_of[cell_of[listed.uuid]].append(listed.uuid)
    if not uuids_of:
        return page
    read = cells.scatter(
        context, lambda cctxt, cell: objects.InstanceList.get_by_filters(
            cctxt, {'uuid': uuids_of[cell.uuid], 'deleted': True},
            expected_attrs=['fault']),
        'a server list', cells=[asked[uuid] for uuid in uuids_of])
    whole = {instance.uuid: instance
             for found in read.answers.values() for instance in found}
    return [whole[listed.uuid] if listed.uuid in cell_of else listed
            for listed in page
            if listed.uuid not in cell_of or listed.uuid in whole]
