"""Resource providers: create, read, list with filters, update, delete,
and their generation.

A provider's ``generation`` moves on with every change of what it offers
or what is allocated from it (inventory, traits, aggregates, allocations);
a writer that names a generation is refused with ``ConcurrentUpdate``
when it is stale. Providers form trees: ``root_provider_id`` is the root of
the tree (itself for a root), ``parent_provider_id`` the direct parent.
"""

import sqlalchemy as sa

from nova_lite.placement import aggregates
from nova_lite.placement import capacity
from nova_lite.placement import db
from nova_lite.placement import exception

P = db.PROVIDERS


def _select():
    parent = P.alias('parent_provider')
    root = P.alias('root_provider')
    return (sa.select(P.c.id, P.c.uuid, P.c.name, P.c.generation,
                      P.c.parent_provider_id, P.c.root_provider_id,
                      parent.c.uuid.label('parent_provider_uuid'),
                      root.c.uuid.label('root_provider_uuid'),
                      P.c.created_at, P.c.updated_at)
            .select_from(P.outerjoin(parent,
                                     parent.c.id == P.c.parent_provider_id)
                         .outerjoin(root, root.c.id == P.c.root_provider_id)))


def get(connection, uuid, lock=False):
    """The provider row; ResourceProviderNotFound if there is none.

    With ``lock`` the row is locked until the transaction ends (writers
    of the provider's inventory, traits, aggregates or allocations).
    """
    if lock:
        row = connection.execute(db.lock_for_update(
            sa.select(P.c.id).where(P.c.uuid == uuid), connection)).first()
        if row is None:
            raise exception.ResourceProviderNotFound(uuid=uuid)
    row = connection.execute(_select().where(P.c.uuid == uuid)).first()
    if row is None:
        raise exception.ResourceProviderNotFound(uuid=uuid)
    return row


def lock_many(connection, ids):
    """Lock provider rows in id order (two writers never deadlock) and
    return {id: generation}."""
    query = (sa.select(P.c.id, P.c.generation)
             .where(P.c.id.in_(sorted(ids))).order_by(P.c.id))
    return {row.id: row.generation for row in
            connection.execute(db.lock_for_update(query, connection))}


def check_generation(provider, generation):
    if provider.generation != generation:
        raise exception.ConcurrentUpdate(
            reason='resource provider generation conflict: the provider %s '
                   'is at generation %s, the request named %s. Read it '
                   'again and retry.' % (provider.uuid, provider.generation,
                                         generation))


def bump_generation(connection, provider):
    """generation += 1 if it is still what ``provider`` says; the new one."""
    result = connection.execute(
        P.update().where(P.c.id == provider.id,
                         P.c.generation == provider.generation)
        .values(generation=P.c.generation + 1, updated_at=db.now()))
    if result.rowcount != 1:
        raise exception.ConcurrentUpdate(
            reason='resource provider generation conflict: %s changed '
                   'while this request was being handled; retry.' %
                   provider.uuid)
    return provider.generation + 1


def bump_generations(connection, generations):
    """Bump every provider of {id: generation read under lock}.

    The rows are locked by the caller, so a mismatch means the lock was
    not effective (SQLite) and the whole write is retried.
    """
    stamp = db.now()
    for provider_id, generation in sorted(generations.items()):
        result = connection.execute(_BUMP_GENERATION, {
            'provider_id': provider_id, 'read_generation': generation,
            'new_generation': generation + 1, 'stamp': stamp})
        if result.rowcount != 1:
            raise exception.ProviderGenerationRace(provider_id)


# Built once: it runs on every allocation write.
_BUMP_GENERATION = (
    P.update().where(P.c.id == sa.bindparam('provider_id'),
                     P.c.generation == sa.bindparam('read_generation'))
    .values(generation=sa.bindparam('new_generation'),
            updated_at=sa.bindparam('stamp')))


def _name_taken(connection, name, other_than=None):
    query = sa.select(P.c.id).where(P.c.name == name)
    if other_than is not None:
        query = query.where(P.c.id != other_than)
    return connection.execute(query).first() is not None


def create(connection, uuid, name, parent_uuid=None):
    if connection.execute(sa.select(P.c.id).where(P.c.uuid == uuid)).first():
        raise exception.Conflict(
            reason='Conflicting resource provider uuid: %s already '
                   'exists.' % uuid)
    if _name_taken(connection, name):
        raise exception.DuplicateName(
            reason='Conflicting resource provider name: %s already '
                   'exists.' % name)
    parent = None
    if parent_uuid is not None:
        refused = 'Unable to create resource provider "%s", %s: %%s' % (
            name, uuid)
        if parent_uuid == uuid:
            raise exception.BadRequest(reason=refused % (
                'parent provider UUID cannot be same as UUID (a root '
                'provider has parent_provider_uuid null).'))
        try:
            parent = get(connection, parent_uuid)
        except exception.ResourceProviderNotFound:
            raise exception.BadRequest(
                reason=refused % 'parent provider UUID does not exist.')
    stamp = db.now()
    try:
        result = connection.execute(P.insert().values(
            uuid=uuid, name=name, generation=0,
            parent_provider_id=parent.id if parent else None,
            root_provider_id=parent.root_provider_id if parent else None,
            created_at=stamp, updated_at=stamp))
    except db.DBDuplicateEntry:
        raise exception.DuplicateName(
            reason='Conflicting resource provider name or uuid: %s (%s) '
                   'already exists.' % (name, uuid))
    new_id = result.inserted_primary_key[0]
    if parent is None:
        connection.execute(P.update().where(P.c.id == new_id)
                           .values(root_provider_id=new_id))
    return get(connection, uuid)


def _descendant_ids(connection, provider):
    """Ids of every provider below ``provider`` (same tree, walked down)."""
    rows = connection.execute(
        sa.select(P.c.id, P.c.parent_provider_id)
        .where(P.c.root_provider_id == provider.root_provider_id)).all()
    children = {}
    for row in rows:
        children.setdefault(row.parent_provider_id, []).append(row.id)
    found, pending = set(), [provider.id]
    while pending:
        for child in children.get(pending.pop(), ()):
            if child not in found:
                found.add(child)
                pending.append(child)
    return found


def update(connection, uuid, name, parent_uuid=None, set_parent=False,
           allow_reparent=False):
    """Rename a provider and (``set_parent``) give it a parent, or none.

    A provider without a parent may be given one; one with a parent may
    be moved to another or made a root only with ``allow_reparent``
    (microversion 1.37). Its subtree moves with it; a parent below it
    (or itself) would make a loop and is refused.
    """
    provider = get(connection, uuid, lock=True)
    values = {'name': name, 'updated_at': db.now()}
    new_root = None
    refused = 'Unable to save resource provider %s: %%s' % uuid
    if set_parent and parent_uuid != provider.parent_provider_uuid:
        if parent_uuid is None:
            if not allow_reparent:
                raise exception.BadRequest(reason=refused % (
                    'un-parenting a provider is not currently allowed '
                    '(from microversion 1.37 it is).'))
            values['parent_provider_id'] = None
            new_root = provider.id
        else:
            try:
                parent = get(connection, parent_uuid)
            except exception.ResourceProviderNotFound:
                raise exception.BadRequest(
                    reason=refused % 'parent provider UUID does not exist.')
            if provider.parent_provider_uuid is not None and \
                    not allow_reparent:
                raise exception.BadRequest(reason=refused % (
                    're-parenting a provider is not currently allowed '
                    '(from microversion 1.37 it is).'))
            if parent.id == provider.id or parent.id in _descendant_ids(
                    connection, provider):
                raise exception.BadRequest(reason=refused % (
                    'creating loop in the provider tree is not allowed.'))
            values['parent_provider_id'] = parent.id
            new_root = parent.root_provider_id
    if name != provider.name and _name_taken(connection, name,
                                             other_than=provider.id):
        raise exception.DuplicateName(
            reason='Conflicting resource provider name: %s already '
                   'exists.' % name)
    if new_root is not None and new_root != provider.root_provider_id:
        subtree = _descendant_ids(connection, provider) | {provider.id}
        for chunk in db.chunks(sorted(subtree)):
            connection.execute(P.update().where(P.c.id.in_(chunk))
                               .values(root_provider_id=new_root))
    try:
        connection.execute(P.update().where(P.c.id == provider.id)
                           .values(**values))
    except db.DBDuplicateEntry:
        raise exception.DuplicateName(
            reason='Conflicting resource provider name: %s already '
                   'exists.' % name)
    return get(connection, uuid)


def delete(connection, uuid):
    try:
        provider = get(connection, uuid, lock=True)
    except exception.ResourceProviderNotFound:
        raise exception.NotFound(
            reason='No resource provider with uuid %s found for delete' %
            uuid)
    if connection.execute(sa.select(P.c.id).where(
            P.c.parent_provider_id == provider.id).limit(1)).first():
        raise exception.ProviderCannotDeleteParent(
            reason='Unable to delete parent resource provider %s: It has '
                   'child resource providers.' % uuid)
    if connection.execute(sa.select(db.ALLOCATIONS.c.id).where(
            db.ALLOCATIONS.c.resource_provider_id == provider.id)
            .limit(1)).first():
        raise exception.ProviderInUse(
            reason='Unable to delete resource provider %s: Resource '
                   'provider has allocations.' % uuid)
    for table in (db.INVENTORIES, db.PROVIDER_TRAITS,
                  db.PROVIDER_AGGREGATES):
        connection.execute(table.delete().where(
            table.c.resource_provider_id == provider.id))
    connection.execute(P.update().where(P.c.id == provider.id)
                       .values(root_provider_id=None))
    connection.execute(P.delete().where(P.c.id == provider.id))


def list_providers(connection, name=None, uuid=None, member_of=(),
                   in_tree=None, resources=None, required=(),
                   forbidden=(), any_of=()):
    """Providers matching every filter given.

    ``member_of``: [(aggregate uuids, forbidden)]; ``resources``:
    {class id: amount} the provider can take now; ``required`` and
    ``forbidden``: trait ids it must have / must not have; ``any_of``:
    sets of trait ids of which it must have one each.
    """
    query = _select()
    if name is not None:
        query = query.where(P.c.name == name)
    if uuid is not None:
        query = query.where(P.c.uuid == uuid)
    if in_tree is not None:
        tree = connection.execute(sa.select(P.c.root_provider_id).where(
            P.c.uuid == in_tree)).first()
        if tree is None:
            return []
        query = query.where(P.c.root_provider_id == tree.root_provider_id)
    for clause in aggregates.member_of_clause(connection, P.c.id,
                                              member_of):
        query = query.where(clause)
    for class_id, amount in sorted((resources or {}).items()):
        query = query.where(P.c.id.in_(
            capacity.providers_with_capacity(class_id, amount)))
    for trait_id in sorted(required):
        query = query.where(P.c.id.in_(
            sa.select(db.PROVIDER_TRAITS.c.resource_provider_id).where(
                db.PROVIDER_TRAITS.c.trait_id == trait_id)))
    for trait_ids in any_of:
        query = query.where(P.c.id.in_(
            sa.select(db.PROVIDER_TRAITS.c.resource_provider_id).where(
                db.PROVIDER_TRAITS.c.trait_id.in_(sorted(trait_ids)))))
    if forbidden:
        query = query.where(P.c.id.not_in(
            sa.select(db.PROVIDER_TRAITS.c.resource_provider_id).where(
                db.PROVIDER_TRAITS.c.trait_id.in_(sorted(forbidden)))))
    return connection.execute(query.order_by(P.c.id)).all()
