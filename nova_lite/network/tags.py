"""Tags of networks and ports (the standard-attr-tag extension): a set of
strings per resource, kept as a JSON list in the resource's row."""

import sqlalchemy as sa

from nova_lite.network import db
from nova_lite.network import exception

TABLES = {'networks': db.NETWORKS, 'ports': db.PORTS}
NOT_FOUND = {'networks': lambda i: exception.NetworkNotFound(net_id=i),
             'ports': lambda i: exception.PortNotFound(port_id=i)}
MAX_LENGTH = 255


def check(tag):
    if not tag or len(tag) > MAX_LENGTH or ',' in tag:
        raise exception.InvalidInput(
            reason="'%s' is not a valid tag: a tag is 1 to %d characters "
                   "without ','." % (tag, MAX_LENGTH))


def get(connection, resource, resource_id):
    table = TABLES[resource]
    row = connection.execute(sa.select(table.c.tags).where(
        table.c.id == resource_id)).first()
    if row is None:
        raise NOT_FOUND[resource](resource_id)
    return db.loads(row.tags, [])


def replace(connection, resource, resource_id, tags):
    get(connection, resource, resource_id)
    tags = sorted(set(tags))
    for tag in tags:
        check(tag)
    table = TABLES[resource]
    connection.execute(table.update().where(table.c.id == resource_id).values(
        tags=db.dumps(tags), revision_number=table.c.revision_number + 1,
        updated_at=db.now()))
    return tags


def add(connection, resource, resource_id, tag):
    check(tag)
    tags = get(connection, resource, resource_id)
    if tag not in tags:
        replace(connection, resource, resource_id, tags + [tag])


def remove(connection, resource, resource_id, tag):
    tags = get(connection, resource, resource_id)
    if tag not in tags:
        raise exception.NotFound(
            reason='Tag %s could not be found for %s %s.' % (
                tag, resource[:-1], resource_id))
    replace(connection, resource, resource_id,
            [t for t in tags if t != tag])


def _contains(column, tag):
    # Tags are stored as a JSON list; a tag is its JSON string in it.
    text = db.dumps(tag)
    for char in ('!', '%', '_'):
        text = text.replace(char, '!' + char)
    return column.like('%' + text + '%', escape='!')


def where(table, filters):
    """Clauses of the tag filters {'tags': [..], 'tags-any': [..],
    'not-tags': [..], 'not-tags-any': [..]} (each value a list of tags)."""
    clauses = []
    column = sa.func.coalesce(table.c.tags, '[]')
    for name, tags in filters.items():
        matches = [_contains(column, tag) for tag in tags]
        if not matches:
            continue
        if name == 'tags':
            clauses.append(sa.and_(*matches))
        elif name == 'tags-any':
            clauses.append(sa.or_(*matches))
        elif name == 'not-tags':
            clauses.append(sa.not_(sa.and_(*matches)))
        elif name == 'not-tags-any':
            clauses.append(sa.not_(sa.or_(*matches)))
    return clauses
