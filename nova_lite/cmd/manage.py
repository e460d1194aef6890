"""nova-lite-manage: set a deployment up and look after it.

    nova-lite-manage db sync | version            cell database schema
    nova-lite-manage db archive_deleted_rows      deleted rows to shadow tables
    nova-lite-manage db purge --before D | --all  shadow rows deleted
    nova-lite-manage api_db sync | version        API database schema
    nova-lite-manage cell_v2 simple_cell_setup    cell0 + cell1 mappings
    nova-lite-manage cell_v2 map_cell0 | create_cell | list_cells
    nova-lite-manage cell_v2 discover_hosts | list_hosts
    nova-lite-manage image create | list | delete  the minimal image catalog
    nova-lite-manage flavor create | list
    nova-lite-manage placement heal_allocations   missing allocations, ports
    nova-lite-manage placement audit [--delete]   orphaned allocations
    nova-lite-manage placement sync_aggregates    host aggregates -> placement
    nova-lite-manage audit                        servers vs placement, ports
    nova-lite-manage scheduler simulate CASE.json the scheduler, offline
"""

import sys

from oslo_config import cfg

from nova_lite.cmd import common

CONF = common.CONF


def _print_table(headers, rows):
    widths = [max(len(str(v)) for v in [h] + [r[i] for r in rows])
              for i, h in enumerate(headers)]
    line = '+' + '+'.join('-' * (w + 2) for w in widths) + '+'
    print(line)
    print('| ' + ' | '.join(h.ljust(w) for h, w in zip(headers, widths)) +
          ' |')
    print(line)
    for row in rows:
        print('| ' + ' | '.join(str(v).ljust(w) for v, w in
                                zip(row, widths)) + ' |')
    print(line)


def _admin():
    from nova_lite import context
    return context.get_admin_context()


# -- db / api_db --------------------------------------------------------------

def db_sync():
    """Upgrade [database] connection, then every other mapped cell's
    database; a cell whose database does not answer is reported (exit
    status 1) and the others are still upgraded."""
    from nova_lite.db import migration
    from nova_lite import exception
    migration.db_sync(CONF.database.connection, migration.MAIN,
                      CONF.command.version or 'head')
    from nova_lite import objects
    if not CONF.api_database.connection:
        return 0
    from nova_lite.db import api as db_api
    try:
        cells = objects.CellMappingList.get_all(_admin())
    except Exception:
        cells = []  # API database not synced yet
    down = {}
    # One cell after another, not cells.scatter: alembic runs a migration
    # through one module-global context, which two threads cannot share.
    for cell in cells:
        if cell.database_connection == CONF.database.connection:
            continue
        try:
            migration.db_sync(cell.database_connection, migration.MAIN,
                              CONF.command.version or 'head')
        except exception.DatabaseUnavailable as e:
            down[cell.name or cell.uuid] = e
            continue
        print('Synced cell %s (%s)' % (
            cell.name, db_api.safe_url(cell.database_connection)))
    _report_down(down, 'its database was not synced')
    return 1 if down else 0


def db_version():
    from nova_lite.db import migration
    print(migration.db_version(CONF.database.connection))


def api_db_sync():
    from nova_lite.db import migration
    migration.db_sync(CONF.api_database.connection, migration.API,
                      CONF.command.version or 'head')


def api_db_version():
    from nova_lite.db import migration
    print(migration.db_version(CONF.api_database.connection))


# -- db archive_deleted_rows / purge ------------------------------------------

# How a cell is named in messages when the command works on [database]
# connection only (no --all-cells).
_CONFIGURED_CELL = '[database]'


def _parse_before(text):
    """--before DATE as a naive UTC datetime, as deleted_at is stored;
    None if it is not an ISO 8601 date. A date without an offset is
    UTC."""
    import datetime
    try:
        when = datetime.datetime.fromisoformat(text.strip())
    except ValueError:
        return None
    if when.tzinfo is not None:
        when = when.astimezone(datetime.timezone.utc).replace(tzinfo=None)
    return when


def _before_or_complain(command):
    """(True, the --before date or None), or (False, None) after saying
    why the date is not one."""
    if command.before is None:
        return True, None
    before = _parse_before(command.before)
    if before is None:
        print('--before takes a date such as 2024-05-31 or "2024-05-31 '
              '12:00" (UTC unless an offset such as +02:00 is given), not '
              '%r.' % command.before, file=sys.stderr)
        return False, None
    return True, before


def _cell_databases(all_cells):
    """[(cell name, database URL)] a db command works on: [database]
    connection, or (``all_cells``) every mapped cell's, cell0 included."""
    from nova_lite import objects
    if not all_cells:
        return [(_CONFIGURED_CELL, CONF.database.connection)]
    return [(cell.name or cell.uuid, cell.database_connection)
            for cell in objects.CellMappingList.get_all(_admin())]


def _each_cell(cells, work):
    """``work(url)`` for each (name, url) of ``cells``, one after the
    other; ([(name, what it returned)], {name: why} of the cells whose
    database did not answer). A database that did not answer but is not
    the cell's (the API database) is raised."""
    from nova_lite.db import api as db_api
    from nova_lite import exception
    done, down = [], {}
    for name, url in cells:
        try:
            done.append((name, work(url)))
        except exception.DatabaseUnavailable as e:
            if e.kwargs.get('url') != db_api.safe_url(url):
                raise
            down[name] = e
    return done, down


def _label(name, table):
    return table if name == _CONFIGURED_CELL else '%s.%s' % (name, table)


def db_archive_deleted_rows():
    """Move soft-deleted rows to the shadow tables and delete the API
    database rows of the servers archived (nova_lite.db.archive). Exit
    status as nova-manage's: 0 nothing was archived, 1 rows were archived
    (run it again until 0) or a cell did not answer, 2 bad --max_rows, 3
    the API database cannot be used, 4 bad --before, 255 a row is in its
    shadow table already."""
    import collections
    from nova_lite.db import api as db_api
    from nova_lite.db import archive
    from nova_lite.db import main_models
    from nova_lite import exception
    command = CONF.command
    if command.max_rows < 1:
        print('--max_rows must be 1 or more, not %d.' % command.max_rows,
              file=sys.stderr)
        return 2
    valid, before = _before_or_complain(command)
    if not valid:
        return 4
    try:
        db_api.check_connection(CONF.api_database.connection,
                                CONF.api_database)
        cells = _cell_databases(command.all_cells)
        archived, down = _each_cell(cells, lambda url: archive.archive(
            url, command.max_rows, before, command.until_complete))
    except (exception.ConfigurationError, exception.InvalidDatabaseURL,
            exception.DatabaseUnavailable) as e:
        print('ERROR: %s. Archiving deletes the API database rows of the '
              'servers it archives, so [api_database] connection must '
              'answer.' % str(e).rstrip('.'), file=sys.stderr)
        return 3
    except archive.ShadowRowExists as e:
        print('ERROR: %s' % e.format_message(), file=sys.stderr)
        return 255
    rows, api_rows = [], collections.Counter()
    for name, done in archived:
        rows += [(_label(name, table.name), done.rows[table.name])
                 for table in main_models.ARCHIVED_TABLES
                 if done.rows[table.name]]
        api_rows.update(done.api_rows)
    total = sum(count for _, count in rows)
    rows += [('API_DB.%s' % table, count)
             for table, count in sorted(api_rows.items())]
    if command.verbose and rows:
        _print_table(['Table', 'Number of Rows Archived'], rows)
    if not total:
        print('Nothing was archived.')
    elif all(done.complete for _, done in archived):
        print('Archived %d row(s).' % total)
    else:
        print('Archived %d row(s); more may remain: run the command again, '
              'or with --until-complete.' % total)
    _report_down(down, 'its deleted rows were not archived')
    if total and command.purge:
        _purge([(name, url) for name, url in cells if name not in down],
               None, command.verbose)
    return 1 if total or down else 0


def _purge(cells, before, verbose):
    """Purge the shadow tables of ``cells``, print what went; (rows
    deleted, {name: why} of the cells that did not answer)."""
    from nova_lite.db import archive
    purged, down = _each_cell(cells, lambda url: archive.purge(url, before))
    rows = [(_label(name, table), count)
            for name, deleted in purged for table, count in deleted.items()]
    total = sum(count for _, count in rows)
    if verbose and rows:
        _print_table(['Table', 'Number of Rows Deleted'], rows)
    print('Deleted %d row(s) from the shadow tables.' % total if total
          else 'Nothing was purged.')
    _report_down(down, 'its shadow tables were not purged')
    return total, down


def db_purge():
    """Delete rows of the shadow tables: all (--all) or those of rows
    deleted before --before. Exit status as nova-manage's: 0 rows were
    deleted, 1 neither --before nor --all (or both), 2 bad --before, 3
    nothing was deleted, 4 the cells could not be listed or one did not
    answer."""
    from nova_lite import exception
    command = CONF.command
    if command.purge_all == (command.before is not None):
        print('Say which shadow rows to delete: --before DATE (those of '
              'rows deleted before DATE) or --all (every one), not %s.' % (
                  'both' if command.purge_all else 'neither'),
              file=sys.stderr)
        return 1
    valid, before = _before_or_complain(command)
    if not valid:
        return 2
    try:
        cells = _cell_databases(command.all_cells)
    except (exception.ConfigurationError, exception.InvalidDatabaseURL,
            exception.DatabaseUnavailable) as e:
        print('ERROR: the cells cannot be listed: %s' % e, file=sys.stderr)
        return 4
    total, down = _purge(cells, before, command.verbose)
    if down:
        return 4
    return 0 if total else 3


# -- cell_v2 ------------------------------------------------------------------

def _cell0_url(url):
    from sqlalchemy.engine import make_url
    parsed = make_url(url)
    database = parsed.database or ''
    if parsed.get_backend_name() == 'sqlite':
        if database.endswith('.sqlite'):
            return parsed.set(database=database[:-len('.sqlite')] +
                              '_cell0.sqlite').render_as_string(False)
        return parsed.set(database=database + '_cell0').render_as_string(
            False)
    return parsed.set(database=database + '_cell0').render_as_string(False)


def _map_cell0(context, database_connection=None):
    from nova_lite.db import migration
    from nova_lite import exception
    from nova_lite import objects
    from nova_lite.objects import cell_mapping
    try:
        return objects.CellMapping.get_by_uuid(context,
                                               cell_mapping.CELL0_UUID), False
    except exception.CellMappingNotFound:
        pass
    url = database_connection or _cell0_url(CONF.database.connection)
    migration.db_sync(url, migration.MAIN)
    cell0 = objects.CellMapping(context, uuid=cell_mapping.CELL0_UUID,
                                name='cell0', transport_url='none:///',
                                database_connection=url)
    cell0.create()
    return cell0, True


def map_cell0():
    _cell0, created = _map_cell0(_admin(), CONF.command.database_connection)
    print('Cell0 is mapped.' if created else 'Cell0 is already mapped.')


def _create_cell(context, name, transport_url, database_connection):
    from nova_lite.db import migration
    from nova_lite import objects
    migration.db_sync(database_connection, migration.MAIN)
    cell = objects.CellMapping(context, name=name,
                               transport_url=transport_url,
                               database_connection=database_connection)
    cell.create()
    return cell


def create_cell():
    command = CONF.command
    cell = _create_cell(_admin(), command.cell_name,
                        command.cell_transport_url or CONF.transport_url,
                        command.database_connection or
                        CONF.database.connection)
    print(cell.uuid)


def _report_down(down, consequence):
    """Tell the operator, on standard error, which cells did not answer
    ({cell name: why}) and what that left undone."""
    for name, reason in sorted(down.items()):
        print('ERROR: cell %s did not answer (%s): %s. Run the command '
              'again when it is back.' % (name, reason, consequence),
              file=sys.stderr)


def simple_cell_setup():
    from nova_lite import objects
    from nova_lite.scheduler import discovery
    context = _admin()
    transport_url = CONF.command.cell_transport_url or CONF.transport_url
    if not transport_url:
        print('A transport URL is required: set [DEFAULT] transport_url or '
              'pass --transport-url.', file=sys.stderr)
        return 1
    _map_cell0(context)
    cells = [c for c in objects.CellMappingList.get_all(context)
             if not c.is_cell0]
    if cells:
        print('Cells are already set up.')
    else:
        _create_cell(context, 'cell1', transport_url,
                     CONF.database.connection)
        print('Cell0 and cell1 are mapped.')
    discovered = discovery.discover_hosts(context)
    if discovered.mapped:
        print('Mapped hosts: %s' % ', '.join(m.host
                                             for m in discovered.mapped))
    _report_down(discovered.down, 'its hosts were not discovered')
    return 1 if discovered.down else 0


def list_cells():
    from nova_lite.db import api as db_api
    from nova_lite import objects
    rows = []
    for cell in objects.CellMappingList.get_all(_admin()):
        url = (cell.database_connection if CONF.command.verbose
               else db_api.safe_url(cell.database_connection))
        rows.append((cell.name, cell.uuid, cell.transport_url if
                     CONF.command.verbose else _mask(cell.transport_url),
                     url, 'True' if cell.disabled else 'False'))
    _print_table(['Name', 'UUID', 'Transport URL', 'Database Connection',
                  'Disabled'], rows)


def _mask(url):
    import re
    return re.sub(r'(://[^:/@]*:)[^@]*@', r'\1****@', url or '')


def discover_hosts():
    """Map the new computes of every cell; exit status 1 if a cell did
    not answer (its hosts are mapped by a later run)."""
    from nova_lite.scheduler import discovery
    discovered = discovery.discover_hosts(_admin(), CONF.command.cell_uuid)
    for mapping in discovered.mapped:
        print('Mapped host %s to cell %s' % (
            mapping.host, mapping.cell_mapping.name))
    if not discovered.mapped:
        print('No new compute hosts to map.')
    _report_down(discovered.down, 'its hosts were not discovered')
    return 1 if discovered.down else 0


def list_hosts():
    from nova_lite import objects
    rows = [(m.cell_mapping.name, m.cell_mapping.uuid, m.host)
            for m in objects.HostMappingList.get_all(_admin())]
    _print_table(['Cell Name', 'Cell UUID', 'Hostname'], rows)


def _key_values(items):
    """--property KEY=VALUE options as a dict; None (after saying why) if
    one is malformed."""
    values = {}
    for item in items or []:
        key, sep, value = item.partition('=')
        if not sep:
            print('--property takes KEY=VALUE, got %r' % item,
                  file=sys.stderr)
            return None
        values[key] = value
    return values


# -- image --------------------------------------------------------------------

def image_create():
    from nova_lite import objects
    command = CONF.command
    properties = _key_values(command.property)
    if properties is None:
        return 1
    image = objects.Image(_admin(), name=command.image_name,
                          min_disk=command.min_disk, min_ram=command.min_ram,
                          properties=properties)
    if command.id:
        image.id = command.id
    image.create()
    print(image.id)
    return 0


def image_list():
    from nova_lite import objects
    _print_table(['ID', 'Name', 'Status', 'Min Disk', 'Min RAM'],
                 [(i.id, i.name, i.status, i.min_disk, i.min_ram)
                  for i in objects.ImageList.get_all(_admin())])


def image_delete():
    from nova_lite import objects
    context = _admin()
    matches = [i for i in objects.ImageList.get_all(context)
               if CONF.command.image in (i.id, i.name)]
    if not matches:
        print('No image %s' % CONF.command.image, file=sys.stderr)
        return 1
    matches[0].destroy()
    return 0


# -- flavor -------------------------------------------------------------------

def flavor_create():
    from oslo_utils import uuidutils
    from nova_lite import objects
    command = CONF.command
    specs = _key_values(command.property)
    if specs is None:
        return 1
    flavor = objects.Flavor(
        _admin(), name=command.flavor_name,
        flavorid=command.id or uuidutils.generate_uuid(),
        memory_mb=command.ram, vcpus=command.vcpus, root_gb=command.disk,
        ephemeral_gb=command.ephemeral, swap=command.swap, rxtx_factor=1.0,
        is_public=True, disabled=False, extra_specs=specs, projects=[])
    flavor.create()
    print(flavor.flavorid)


def flavor_list():
    from nova_lite import objects
    _print_table(['ID', 'Name', 'RAM', 'Disk', 'Ephemeral', 'VCPUs'],
                 [(f.flavorid, f.name, f.memory_mb, f.root_gb,
                   f.ephemeral_gb, f.vcpus)
                  for f in objects.FlavorList.get_all(_admin())])


# -- placement ----------------------------------------------------------------

def placement_heal_allocations():
    """Write what servers on a host are missing in placement: a whole
    allocation, or a port's resource request with the binding profile
    naming its provider (``allocation_heal``). Exit status: 0 done (or
    nothing missing); 1 a cell did not answer (its servers were not
    checked); 2 a bad --instance; 3 a server could not be healed (each
    is named on standard error, and nothing of it was written)."""
    from oslo_utils import uuidutils
    from nova_lite import allocation_heal
    from nova_lite.network import api as network_api
    from nova_lite import placement_client
    command = CONF.command
    if command.instance and not uuidutils.is_uuid_like(command.instance):
        print('ERROR: --instance takes a server\'s UUID, got %r' %
              command.instance, file=sys.stderr)
        return 2
    report = allocation_heal.heal_all(
        _admin(), placement_client.PlacementClient(),
        network_api.PortClient(),
        with_ports=not command.skip_port_allocations,
        dry_run=command.dry_run, instance_uuid=command.instance)
    if command.instance and not report.checked and not report.cells_down:
        print('ERROR: no server %s on a host' % command.instance,
              file=sys.stderr)
        return 2
    if command.verbose or command.dry_run:
        for heal in report.healed:
            for line in heal.describe():
                print('%s %s' % ('Would write' if command.dry_run
                                 else 'Wrote', line))
    for _uuid, why in report.failed:
        print('ERROR: %s' % why, file=sys.stderr)
    written = len(report.healed)
    print('%d instance(s) checked: %d allocation(s) %s (%d written whole, '
          '%d port resource request(s) added), %d skipped (in a task), %d '
          'not healed.%s' % (
              report.checked, written,
              'to write' if command.dry_run else 'written',
              len([h for h in report.healed if h.whole]),
              report.ports_healed, report.in_task, len(report.failed),
              ' Dry run: nothing was written.' if command.dry_run else ''))
    _report_down(report.cells_down, 'its instances were not checked')
    if report.failed:
        return 3
    return 1 if report.cells_down else 0


def placement_audit():
    """List (and with --delete remove) the allocations on this
    deployment's providers whose consumer is no server, build request or
    migration (``allocation_owners``): instances still being built count
    as held (the scheduler claims before the instance reaches its cell),
    and so do moves in progress (the migration holds the source side).
    Other services' allocations on a shared Placement are never looked
    at. If a cell does not answer, nothing is audited (exit status 1):
    its instances' allocations would look orphaned."""
    from nova_lite import allocation_owners
    from nova_lite import placement_client
    client = placement_client.PlacementClient()
    context = _admin()
    owners = allocation_owners.look(context, client)
    if owners.down:
        _report_down(owners.down, 'its instances cannot be told from '
                     'orphans, so no allocation was audited')
        return 1
    orphans = sorted(owners.nobodys())
    for consumer in orphans:
        for provider, resources in owners.allocations[consumer]:
            print('Orphaned allocation: consumer %s on %s (%s): %s' % (
                consumer, provider['name'], provider['uuid'], ', '.join(
                    '%s=%s' % item for item in sorted(resources.items()))))
    deleted = 0
    if CONF.command.delete:
        for consumer in orphans:
            if client.delete_allocations(consumer):
                deleted += 1
                print('Deleted allocations of %s' % consumer)
            else:
                print('Kept the allocations of %s: written since they '
                      'were read' % consumer)
    print('%d orphaned consumer(s) found%s.' % (
        len(orphans), ', %d deleted' % deleted if CONF.command.delete
        else ''))
    return 3 if orphans and not CONF.command.delete else 0


def placement_sync_aggregates():
    """Mirror the host aggregates into placement aggregates of the same
    uuid (``compute.aggregates.sync_placement_aggregates``): for
    aggregates older than the mirroring, or a mirror that missed a change.
    Exit status: 0 done; 1 a cell did not answer (its hosts were not
    mirrored); 2 placement could not be reached; 3 placement refused an
    update; 5 a host of an aggregate has no compute node; 6 a compute
    node has no resource provider yet. (Placement is written as far as it
    got; run it again once the cause is fixed.)"""
    from nova_lite.compute import aggregates
    from nova_lite import placement_client
    report = aggregates.sync_placement_aggregates(
        _admin(), placement_client.PlacementClient())
    for uuid, host, added, removed in report.changed:
        if CONF.command.verbose:
            print('Provider %s (host %s): %s' % (uuid, host, '; '.join(
                part for part in (
                    'into ' + ', '.join(added) if added else '',
                    'out of ' + ', '.join(removed) if removed else '')
                if part)))
    print('%d compute node provider(s) checked, %d updated.' % (
        report.checked, len(report.changed)))
    if report.error is not None:
        status, message = report.error
        print('ERROR: %s' % message, file=sys.stderr)
        return status
    status = 0
    _report_down(report.cells_down, 'the hosts of its compute nodes were '
                                    'not mirrored')
    if report.cells_down:
        status = 1
    if report.hosts_without_nodes:
        print('No compute node %sfor host(s) %s: start their compute '
              'service (and nova-lite-manage cell_v2 discover_hosts), then '
              'run this again.' % (
                  'in the cells that answered ' if report.cells_down
                  else '', ', '.join(sorted(report.hosts_without_nodes))),
              file=sys.stderr)
        status = status or 5
    if report.providers_missing:
        print('No resource provider in placement yet for %s: their '
              'computes have not reported; run this again once they '
              'have.' % ', '.join(
                  '%s (host %s)' % item
                  for item in sorted(report.providers_missing.items())),
              file=sys.stderr)
        status = status or 6
    return status


def audit():
    """Check the invariant across cells, placement and the port service
    (see nova_lite.audit); print each violation, exit status 3 if any,
    else 1 if a cell did not answer (the audit is not complete)."""
    from nova_lite import audit as audit_mod
    checker = audit_mod.Audit(_admin())
    violations = checker.run()
    for violation in violations:
        print('VIOLATION: %s' % violation)
    print('%d server(s) checked, %d skipped (in a task), %d violation(s).'
          % (checker.checked, checker.skipped, len(violations)))
    _report_down(checker.down, 'its servers were not checked, nor were '
                               'the allocations and ports of no server')
    if violations:
        return 3
    return 1 if checker.down else 0


# -- command line -------------------------------------------------------------

def scheduler_simulate():
    """Run the scheduling pipeline on a JSON case; print the answer."""
    import json
    from nova_lite.scheduler import simulate
    path = CONF.command.case
    try:
        if path == '-':
            case = json.load(sys.stdin)
        else:
            with open(path) as f:
                case = json.load(f)
    except OSError as e:
        raise simulate.CaseError(reason='cannot read %s: %s' % (
            path, e.strerror))
    except ValueError as e:
        raise simulate.CaseError(reason='%s is not JSON: %s' % (path, e))
    if CONF.command.repeat < 0:
        raise simulate.CaseError(reason='--repeat must be 0 or more')
    answer = simulate.run(case, repeat=CONF.command.repeat)
    print(json.dumps(answer, indent=2 if CONF.command.pretty else None,
                     sort_keys=True))
    return 4 if 'error' in answer else 0


def _add_commands(subparsers):
    def group(name, help_text):
        parser = subparsers.add_parser(name, help=help_text)
        return parser.add_subparsers(dest='action', metavar='ACTION',
                                     required=True)

    db = group('db', 'cell database schema')
    p = db.add_parser('sync', help='upgrade the cell database schema '
                      '([database] connection, and every mapped cell)')
    p.add_argument('--version', help='target revision (default: head)')
    p.set_defaults(func=db_sync)
    db.add_parser('version', help='current revision').set_defaults(
        func=db_version)
    p = db.add_parser(
        'archive_deleted_rows',
        help='move the rows of deleted servers (with their actions, '
             'events, faults and migrations), services and compute nodes '
             'to the shadow tables, children first, and delete the API '
             'database rows of the servers archived (exit status 1 if rows '
             'were archived: run it again until 0)')
    p.add_argument('--max_rows', type=int, default=1000, metavar='N',
                   help='rows moved per batch, one transaction each '
                        '(default 1000; API database rows not counted)')
    p.add_argument('--before', metavar='DATE',
                   help='only what was deleted before DATE (ISO 8601, UTC '
                        'unless an offset is given)')
    p.add_argument('--until-complete', dest='until_complete',
                   action='store_true',
                   help='run batches until nothing is left to archive')
    p.add_argument('--all-cells', dest='all_cells', action='store_true',
                   help='every mapped cell, cell0 included (default: '
                        '[database] connection)')
    p.add_argument('--purge', action='store_true',
                   help='then delete every shadow row of those cells '
                        '(db purge --all)')
    p.add_argument('--verbose', action='store_true',
                   help='print the rows archived per table')
    p.set_defaults(func=db_archive_deleted_rows)
    p = db.add_parser(
        'purge', help='delete rows of the shadow tables: --all, or those '
                      'of rows deleted --before DATE (one is required)')
    p.add_argument('--before', metavar='DATE',
                   help='the shadow rows of what was deleted before DATE '
                        '(a server\'s history by the server\'s deletion)')
    p.add_argument('--all', dest='purge_all', action='store_true',
                   help='every shadow row')
    p.add_argument('--all-cells', dest='all_cells', action='store_true',
                   help='every mapped cell, cell0 included (default: '
                        '[database] connection)')
    p.add_argument('--verbose', action='store_true',
                   help='print the rows deleted per table')
    p.set_defaults(func=db_purge)

    api_db = group('api_db', 'API database schema')
    p = api_db.add_parser('sync', help='upgrade the API database schema '
                          '([api_database] connection)')
    p.add_argument('--version', help='target revision (default: head)')
    p.set_defaults(func=api_db_sync)
    api_db.add_parser('version', help='current revision').set_defaults(
        func=api_db_version)

    cells = group('cell_v2', 'cells, and which hosts are in which cell')
    p = cells.add_parser('simple_cell_setup',
                         help='map cell0 (derived from [database] '
                              'connection) and cell1 ([database] '
                              'connection), then discover hosts')
    p.add_argument('--transport-url', dest='cell_transport_url',
                   help='transport URL of cell1 (default: '
                        '[DEFAULT] transport_url)')
    p.set_defaults(func=simple_cell_setup)
    p = cells.add_parser('map_cell0', help='create the cell0 mapping and '
                                           'database schema')
    p.add_argument('--database_connection',
                   help='cell0 database URL (default: [database] '
                        'connection with "_cell0" added to the name)')
    p.set_defaults(func=map_cell0)
    p = cells.add_parser('create_cell', help='map another cell')
    # Not dest "name": oslo.config keeps the chosen command's name there.
    p.add_argument('--name', dest='cell_name', required=True)
    p.add_argument('--transport-url', dest='cell_transport_url')
    p.add_argument('--database_connection')
    p.set_defaults(func=create_cell)
    p = cells.add_parser('list_cells', help='list cell mappings')
    p.add_argument('--verbose', action='store_true',
                   help='show credentials in URLs')
    p.set_defaults(func=list_cells)
    p = cells.add_parser('discover_hosts',
                         help='map new compute hosts to their cell')
    p.add_argument('--cell_uuid')
    p.add_argument('--verbose', action='store_true')
    p.set_defaults(func=discover_hosts)
    cells.add_parser('list_hosts', help='list host mappings').set_defaults(
        func=list_hosts)

    images = group('image', 'the image catalog served by the Compute API')
    p = images.add_parser('create', help='register an image')
    p.add_argument('image_name', metavar='NAME')
    p.add_argument('--id', help='UUID (default: generated)')
    p.add_argument('--min-disk', dest='min_disk', type=int, default=0)
    p.add_argument('--min-ram', dest='min_ram', type=int, default=0)
    p.add_argument('--property', action='append', metavar='KEY=VALUE')
    p.set_defaults(func=image_create)
    images.add_parser('list', help='list images').set_defaults(
        func=image_list)
    p = images.add_parser('delete', help='remove an image')
    p.add_argument('image', metavar='ID_OR_NAME')
    p.set_defaults(func=image_delete)

    placement = group('placement', 'allocations in placement')
    p = placement.add_parser(
        'heal_allocations',
        help='write what servers on a host are missing in placement: an '
             'allocation they do not have at all, and the resource '
             'requests (minimum bandwidth) of their ports, each port '
             'bound with the provider as its binding:profile allocation '
             '(exit status 1 a cell did not answer, 2 a bad --instance, '
             '3 a server could not be healed)')
    p.add_argument('--verbose', action='store_true',
                   help='print each allocation and port written')
    p.add_argument('--dry-run', dest='dry_run', action='store_true',
                   help='print what would be written, write nothing')
    p.add_argument('--skip-port-allocations',
                   dest='skip_port_allocations', action='store_true',
                   help='do not look at ports: write only the allocations '
                        'servers do not have at all, with their flavor\'s '
                        'resources')
    p.add_argument('--instance', metavar='UUID',
                   help='heal this server only')
    p.set_defaults(func=placement_heal_allocations)
    p = placement.add_parser('audit',
                             help='list allocations whose consumer is not a '
                                  'live instance (exit status 3 if any)')
    p.add_argument('--delete', action='store_true',
                   help='delete the orphaned allocations found')
    p.set_defaults(func=placement_audit)
    p = placement.add_parser(
        'sync_aggregates',
        help='put each compute node provider in the placement aggregates '
             'of its host\'s host aggregates (same uuid) and out of those '
             'of the others, as adding and removing hosts does: for '
             'aggregates that predate the mirroring or a change placement '
             'missed (exit status 1 a cell did not answer, 2 placement '
             'unreachable, 3 an update refused, 5 a host without compute '
             'node, 6 a node without provider)')
    p.add_argument('--verbose', action='store_true',
                   help='print each provider updated')
    p.set_defaults(func=placement_sync_aggregates)

    p = subparsers.add_parser(
        'audit', help='check that every server\'s allocations and port '
                      'bindings are on the host that holds it (exit status '
                      '3 if anything is not, 1 if a cell did not answer)')
    p.set_defaults(func=audit)

    scheduler = group('scheduler', 'the scheduling pipeline, offline')
    p = scheduler.add_parser(
        'simulate', help='run filters and weighers on hosts described in a '
                         'JSON case and print, as JSON, where each instance '
                         'goes and why (exit status 4 if no valid host); '
                         'the format is in the README')
    p.add_argument('case', metavar='CASE.json', help='the case file, or - '
                                                     'for standard input')
    p.add_argument('--pretty', action='store_true',
                   help='indent the JSON answer')
    p.add_argument('--repeat', type=int, default=0, metavar='N',
                   help='decide N more times and add timing_ms, the median '
                        'milliseconds of the whole decision (from the host '
                        'rows to the selection)')
    p.set_defaults(func=scheduler_simulate)

    flavors = group('flavor', 'flavors (also available through the API)')
    p = flavors.add_parser('create', help='create a public flavor')
    p.add_argument('flavor_name', metavar='NAME')
    p.add_argument('--id')
    p.add_argument('--ram', type=int, required=True, help='MB')
    p.add_argument('--vcpus', type=int, required=True)
    p.add_argument('--disk', type=int, default=0, help='GB')
    p.add_argument('--ephemeral', type=int, default=0, help='GB')
    p.add_argument('--swap', type=int, default=0, help='MB')
    p.add_argument('--property', action='append', metavar='KEY=VALUE',
                   help='extra spec, e.g. pci_passthrough:alias=a1:2')
    p.set_defaults(func=flavor_create)
    flavors.add_parser('list', help='list flavors').set_defaults(
        func=flavor_list)


def main(argv=None):
    # Standard output carries the commands' answers (tables, JSON); the
    # log goes to standard error unless a log file is configured.
    from oslo_log import log as oslo_logging
    oslo_logging.register_options(CONF)
    CONF.set_default('use_stderr', True)
    CONF.register_cli_opt(cfg.SubCommandOpt(
        'command', title='Commands', handler=_add_commands,
        help='run "nova-lite-manage COMMAND --help" for details'))
    from nova_lite import config
    from nova_lite import exception

    def body():
        common.setup(argv)
        result = CONF.command.func()
        sys.exit(result or 0)
    try:
        body()
    except exception.ConfigurationError as e:
        print('ERROR: %s\n%s' % (e, config.files_read()), file=sys.stderr)
        sys.exit(1)
    except (exception.InvalidDatabaseURL,
            exception.DatabaseUnavailable) as e:
        print('ERROR: %s' % e, file=sys.stderr)
        sys.exit(1)
    except exception.NovaLiteException as e:
        print('ERROR: %s' % e.format_message(), file=sys.stderr)
        sys.exit(1)


if __name__ == '__main__':
    main()
