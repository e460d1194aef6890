"""Aggregates: named (by UUID) groups of resource providers.

An aggregate exists in placement only as long as it is useful: a row in
``placement_aggregates`` is made the first time a provider joins it.
"""

import sqlalchemy as sa

from nova_lite.placement import db


def of_provider(connection, provider_id):
    query = (sa.select(db.AGGREGATES.c.uuid)
             .select_from(db.PROVIDER_AGGREGATES.join(
                 db.AGGREGATES,
                 db.AGGREGATES.c.id == db.PROVIDER_AGGREGATES.c.aggregate_id))
             .where(db.PROVIDER_AGGREGATES.c.resource_provider_id ==
                    provider_id)
             .order_by(db.AGGREGATES.c.uuid))
    return [row.uuid for row in connection.execute(query)]


def ids_of(connection, uuids, create=False):
    """{uuid: id} of the aggregates named; missing ones made if ``create``."""
    uuids = set(uuids)
    if not uuids:
        return {}
    found = {row.uuid: row.id for row in connection.execute(
        sa.select(db.AGGREGATES.c.uuid, db.AGGREGATES.c.id).where(
            db.AGGREGATES.c.uuid.in_(sorted(uuids))))}
    if create:
        for uuid in sorted(uuids - set(found)):
            try:
                with connection.begin_nested():
                    result = connection.execute(db.AGGREGATES.insert().values(
                        uuid=uuid, created_at=db.now()))
                found[uuid] = result.inserted_primary_key[0]
            except db.DBDuplicateEntry:
                found[uuid] = connection.execute(
                    sa.select(db.AGGREGATES.c.id).where(
                        db.AGGREGATES.c.uuid == uuid)).scalar_one()
    return found


def set_for_provider(connection, provider_id, uuids):
    """Replace the aggregates of a provider (caller bumps its generation)."""
    wanted = ids_of(connection, uuids, create=True)
    connection.execute(db.PROVIDER_AGGREGATES.delete().where(
        db.PROVIDER_AGGREGATES.c.resource_provider_id == provider_id))
    if wanted:
        stamp = db.now()
        connection.execute(db.PROVIDER_AGGREGATES.insert(), [
            {'resource_provider_id': provider_id, 'aggregate_id': agg_id,
             'created_at': stamp} for agg_id in sorted(set(wanted.values()))])


def member_of_clause(connection, provider_id_column, member_of,
                     through_root=False):
    """WHERE clauses for ``member_of``: a list of (uuids, forbidden) pairs.
    Each pair is one query parameter: the provider is in any of ``uuids``
    (or, forbidden, in none of them); all pairs must hold.

    ``through_root`` (a group that may spread over a tree): a provider
    whose root is in an aggregate counts as in it, so an aggregate of a
    compute node covers its whole tree, as in OpenStack Placement.
    """
    clauses = []
    for uuids, forbidden in member_of:
        ids = sorted(set(ids_of(connection, uuids).values()))
        members = sa.select(db.PROVIDER_AGGREGATES.c.resource_provider_id)\
            .where(db.PROVIDER_AGGREGATES.c.aggregate_id.in_(ids))
        if through_root and ids:
            members = sa.union(members, sa.select(db.PROVIDERS.c.id).where(
                db.PROVIDERS.c.root_provider_id.in_(members)))
        if forbidden:
            if ids:
                clauses.append(provider_id_column.not_in(members))
        else:
            clauses.append(provider_id_column.in_(members) if ids
                           else sa.false())
    return clauses
