"""Migrations: a server's live migrations in progress
(``/servers/{id}/migrations``, 2.23; abort with DELETE, 2.24; abort of a
queued one, 2.65) and every cell's migration records (``/os-migrations``).
Admin only, as the default policy of the Compute API has it.
"""

from nova_lite import cells
from nova_lite import exception
from nova_lite import objects
from nova_lite.api import wsgi
from nova_lite.api.compute import microversion as mv
from nova_lite.api.compute import servers

POLICY = 'os_compute_api:'


def _time(value):
    return value.replace(tzinfo=None).strftime('%Y-%m-%dT%H:%M:%S.%f') \
        if value else None


def _server_migration(request, migration):
    body = {
        'id': migration.id,
        'server_uuid': migration.instance_uuid,
        'status': migration.status,
        'source_compute': migration.source_compute,
        'source_node': migration.source_node,
        'dest_compute': migration.dest_compute,
        'dest_host': migration.dest_host,
        'dest_node': migration.dest_node,
        'created_at': _time(migration.created_at),
        'updated_at': _time(migration.updated_at),
    }
    for kind in ('memory', 'disk'):
        for part in ('total', 'processed', 'remaining'):
            body['%s_%s_bytes' % (kind, part)] = getattr(
                migration, '%s_%s' % (kind, part))
    if request.is_version('2.59'):
        body['uuid'] = migration.uuid
    return body


def _require(request, version):
    # An older microversion has no such resource.
    if not request.is_version(version):
        raise exception.NotFound('The resource could not be found.')


def _server(request, server_id, rule):
    _require(request, mv.SERVER_MIGRATIONS)
    instance = servers._compute_api().get(request.context, server_id)
    request.context.can(POLICY + rule, {'project_id': instance.project_id})
    return instance


def index(request, server_id):
    instance = _server(request, server_id, 'servers:migrations:index')
    return wsgi.json_response({'migrations': [
        _server_migration(request, m) for m in
        servers._compute_api().server_migrations(request.context,
                                                 instance)]})


def _find(request, instance, migration_id):
    for migration in servers._compute_api().server_migrations(
            request.context, instance):
        if str(migration.id) == migration_id:
            return migration
    raise exception.NotFound(
        'In-progress live migration %s is not found for server %s.' % (
            migration_id, instance.uuid))


def show(request, server_id, migration_id):
    instance = _server(request, server_id, 'servers:migrations:show')
    return wsgi.json_response({'migration': _server_migration(
        request, _find(request, instance, migration_id))})


def delete(request, server_id, migration_id):
    _require(request, mv.ABORT_LIVE_MIGRATION)
    instance = _server(request, server_id, 'servers:migrations:delete')
    migration = _find(request, instance, migration_id)
    servers._compute_api().abort_live_migration(
        request.context, instance, migration.id,
        allow_queued=request.is_version(mv.ABORT_QUEUED_LIVE_MIGRATION))
    return wsgi.empty_response(202)


def os_migrations(request):
    """Every cell's migration records, newest first; filters
    ``instance_uuid``, ``migration_type``, ``status``, ``host``."""
    request.context.can(POLICY + 'os-migrations:index', {})
    filters = {name: request.GET.get(name) for name in (
        'instance_uuid', 'migration_type', 'status', 'host')
        if request.GET.get(name)}
    found = cells.list_from_every_cell(
        request.context, lambda cctxt, cell: (
            objects.MigrationList.get_by_filters(cctxt, filters)),
        'a migration list', with_cell0=False)
    found.sort(key=lambda m: (m.created_at, m.id), reverse=True)
    body = []
    for migration in found:
        item = {
            'id': migration.id,
            'instance_uuid': migration.instance_uuid,
            'status': migration.status,
            'source_compute': migration.source_compute,
            'source_node': migration.source_node,
            'dest_compute': migration.dest_compute,
            'dest_host': migration.dest_host,
            'dest_node': migration.dest_node,
            'old_instance_type_id': migration.old_instance_type_id,
            'new_instance_type_id': migration.new_instance_type_id,
            'source_region': None,
            'dest_region': None,
            'created_at': _time(migration.created_at),
            'updated_at': _time(migration.updated_at),
        }
        if request.is_version(mv.SERVER_MIGRATIONS):
            item['migration_type'] = migration.migration_type
            item['links'] = []
        if request.is_version('2.59'):
            item['uuid'] = migration.uuid
        body.append(item)
    return wsgi.json_response({'migrations': body})
