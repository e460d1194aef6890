"""Allocations: what each consumer holds on which providers, and usages.

``replace()`` is the one writer. It makes the allocations of one or more
consumers exactly what the request says, in the caller's single
transaction: every provider involved (gaining or losing allocations) is
locked in id order, consumer generations are checked, every new amount is
checked against the provider's capacity (usage by everyone else plus the
new amounts) and the inventory's unit constraints, and only then are the
old rows replaced and the provider generations bumped. Any refusal raises
before a row is written, and the transaction rolls back what was, so a
request is applied whole or not at all. ``claim()`` writes the commonest
request (a new consumer on one provider) with the same checks in fewer
statements, and leaves any other, or any refusal, to replace().
"""

import collections
import functools

import sqlalchemy as sa

from nova_lite.placement import capacity
from nova_lite.placement import consumer_types
from nova_lite.placement import db
from nova_lite.placement import exception
from nova_lite.placement import providers
from nova_lite.placement import resource_classes

A = db.ALLOCATIONS
C = db.CONSUMERS
P = db.PROVIDERS
INV = db.INVENTORIES

# The consumer generation is not checked (requests older than 1.28).
SKIP_GENERATION_CHECK = object()
# Owner of allocations written before project/user were required (< 1.8).
INCOMPLETE_CONSUMER_ID = '00000000-0000-0000-0000-000000000000'


class ConsumerAllocations:
    """What one consumer should hold: {provider uuid: {class: amount}}.

    ``consumer_type`` (1.38) is the consumer's type from now on; None
    leaves an existing consumer's as it is (a new one has none).
    """

    def __init__(self, consumer_uuid, allocations, project_id, user_id,
                 consumer_generation=SKIP_GENERATION_CHECK,
                 consumer_type=None):
        self.consumer_uuid = consumer_uuid
        self.allocations = allocations
        self.project_id = project_id or INCOMPLETE_CONSUMER_ID
        self.user_id = user_id or INCOMPLETE_CONSUMER_ID
        self.consumer_generation = consumer_generation
        self.consumer_type = consumer_type
        self.consumer_type_id = None


def _check_consumer_generation(request, consumer):
    expected = request.consumer_generation
    if expected is SKIP_GENERATION_CHECK:
        return
    if consumer is None and expected is not None:
        raise exception.ConcurrentUpdate(
            reason='consumer generation conflict - expected null but got '
                   '%s: consumer %s has no allocations.' % (
                       expected, request.consumer_uuid))
    # Worded as OpenStack Placement: "expected" is the consumer's
    # generation, "got" the request's.
    if consumer is not None and consumer.generation != expected:
        raise exception.ConcurrentUpdate(
            reason='consumer generation conflict - expected %s but got %s '
                   'for consumer %s.' % (consumer.generation, expected,
                                         request.consumer_uuid))


class NotAQuickClaim(Exception):
    """claim() cannot write this request in its three statements: the
    caller rolls back and runs replace(), which says why if it is
    refused."""


@functools.lru_cache(maxsize=64)
def _quick_claim_statements(count):
    """MySQL: (the UPDATE that bumps one provider and adds amount a<k> to
    its inventory of class c<k> (k < ``count``) only where every amount
    fits, the INSERT of the allocations from those inventory rows), as
    text built once per count."""
    amount = 'CASE %(i)s.resource_class_id %(whens)s END' % {
        'i': INV.name,
        'whens': ' '.join('WHEN :c%d THEN :a%d' % (k, k)
                          for k in range(count))}
    names = {'p': P.name, 'i': INV.name, 'a': A.name, 'amount': amount,
             'classes': ', '.join(':c%d' % k for k in range(count)),
             'capacity': 'FLOOR((%(i)s.total - %(i)s.reserved) * '
                         '%(i)s.allocation_ratio)' % {'i': INV.name}}
    update = sa.text(
        'UPDATE %(p)s STRAIGHT_JOIN %(i)s ON %(i)s.resource_provider_id = '
        '%(p)s.id SET %(p)s.generation = %(p)s.generation + 1, '
        '%(p)s.updated_at = :stamp, %(i)s.used = %(i)s.used + %(amount)s '
        'WHERE %(p)s.uuid = :provider AND %(i)s.resource_class_id IN '
        '(%(classes)s) AND %(capacity)s - %(i)s.used >= %(amount)s AND '
        '%(i)s.min_unit <= %(amount)s AND %(i)s.max_unit >= %(amount)s AND '
        'MOD(%(amount)s, %(i)s.step_size) = 0' % names)
    insert = sa.text(
        'INSERT INTO %(a)s (resource_provider_id, consumer_id, '
        'resource_class_id, used, created_at) SELECT %(p)s.id, :consumer, '
        '%(i)s.resource_class_id, %(amount)s, :stamp FROM %(p)s JOIN %(i)s '
        'ON %(i)s.resource_provider_id = %(p)s.id WHERE %(p)s.uuid = '
        ':provider AND %(i)s.resource_class_id IN (%(classes)s)' % names)
    return update, insert


def claim(connection, request):
    """A new consumer's allocations on one provider (every instance's
    claim), written as replace() would write them in three statements
    instead of four: the consumer's INSERT, one UPDATE that locks the
    provider and its inventories, checks every amount and bumps both (the
    check replace() makes on rows it read first), and the allocations
    made from those rows. NotAQuickClaim for any other request, or when
    the UPDATE does not match every class (no such provider or
    inventory, or no room)."""
    if not db.is_mysql(connection) or len(request.allocations) != 1 or \
            request.consumer_generation is not None:
        raise NotAQuickClaim()
    (provider, resources), = request.allocations.items()
    try:
        wanted = sorted((resource_classes.id_of(connection, name), amount)
                        for name, amount in resources.items())
    except exception.ResourceClassNotFound:
        raise NotAQuickClaim() from None
    if not wanted:
        raise NotAQuickClaim()
    if request.consumer_type is not None:
        request.consumer_type_id = consumer_types.id_of(
            connection, request.consumer_type)
    stamp = db.now()
    _create_consumers(connection, [request], stamp)
    parameters = {'provider': provider, 'stamp': stamp,
                  'consumer': request.consumer_uuid}
    for k, (class_id, amount) in enumerate(wanted):
        parameters['c%d' % k] = class_id
        parameters['a%d' % k] = amount
    update, insert = _quick_claim_statements(len(wanted))
    # The provider's row and one row per class.
    if connection.execute(update, parameters).rowcount != 1 + len(wanted):
        raise NotAQuickClaim()
    connection.execute(insert, parameters)


def replace(connection, requests):
    """Replace the allocations of every consumer in ``requests``."""
    provider_uuids = sorted({rp for r in requests for rp in r.allocations})
    stamp = db.now()
    for request in requests:
        if request.consumer_type is not None:
            request.consumer_type_id = consumer_types.id_of(
                connection, request.consumer_type)

    # A consumer the caller says does not exist yet (generation null) is
    # created straight away: the INSERT locks it, and a duplicate is the
    # same conflict that reading it first would find, one statement
    # sooner (this is every new instance's claim).
    created = _create_consumers(connection, [
        r for r in requests
        if r.consumer_generation is None and r.allocations], stamp)
    # The other consumers and what they hold now (their providers lose
    # it).
    consumers, old_rows = _lock_consumers(
        connection, {r.consumer_uuid for r in requests} - created)
    generations, provider_ids, inventories = _lock_providers(
        connection, provider_uuids,
        {r.resource_provider_id for r in old_rows})
    missing = [u for u in provider_uuids if u not in provider_ids]
    if missing:
        raise exception.BadRequest(
            reason="Allocation for resource provider '%s' that does not "
                   "exist." % missing[0])

    for request in requests:
        _check_consumer_generation(request,
                                   consumers.get(request.consumer_uuid))

    new_rows = _new_rows(connection, requests, provider_ids)
    deltas = collections.Counter()
    for row in old_rows:
        deltas[(row.resource_provider_id, row.resource_class_id)] -= row.used
    for row in new_rows:
        deltas[(row['resource_provider_id'], row['resource_class_id'])] += \
            row['used']
    _check_capacity(connection, new_rows, deltas, inventories, provider_ids)

    if old_rows:
        connection.execute(_DELETE_ALLOCATIONS, {
            'uuids': sorted({row.consumer_id for row in old_rows})})
    if new_rows:
        connection.execute(_INSERT_ALLOCATIONS,
                           [dict(row, created_at=stamp) for row in new_rows])
    _write_consumers(connection, [r for r in requests
                                  if r.consumer_uuid not in created],
                     consumers, stamp)
    # As in OpenStack Placement, the generations bumped are those of the
    # providers the new allocations name (and, for a consumer whose
    # allocations are emptied, of those it held): a provider a consumer
    # moves away from keeps its generation.
    bumped = {provider_ids[u] for r in requests for u in r.allocations}
    emptied = {r.consumer_uuid for r in requests if not r.allocations}
    bumped.update(row.resource_provider_id for row in old_rows
                  if row.consumer_id in emptied)
    _apply_changes(connection,
                   {key: row.id for key, row in inventories.items()},
                   deltas, {p: g for p, g in generations.items()
                            if p in bumped}, stamp)


# The statements of the write path are built once (per backend, as FOR
# UPDATE depends on it) with bound parameters: building and hashing a
# statement costs more than MariaDB takes to run it.

@functools.lru_cache(maxsize=None)
def _held_by_consumers(mysql):
    query = (sa.select(C.c.id, C.c.uuid, C.c.generation, A.c.consumer_id,
                       A.c.resource_provider_id, A.c.resource_class_id,
                       A.c.used)
             .select_from(C.outerjoin(A, A.c.consumer_id == C.c.uuid))
             .where(C.c.uuid.in_(sa.bindparam('uuids', expanding=True)))
             .order_by(C.c.id))
    return query.with_for_update() if mysql else query


@functools.lru_cache(maxsize=None)
def _providers_with_inventories(by_uuid, by_id, mysql):
    named = []
    if by_uuid:
        named.append(P.c.uuid.in_(sa.bindparam('uuids', expanding=True)))
    if by_id:
        named.append(P.c.id.in_(sa.bindparam('ids', expanding=True)))
    query = (sa.select(P.c.id.label('provider_id'), P.c.uuid,
                       P.c.generation, INV.c.id, INV.c.resource_class_id,
                       INV.c.total, INV.c.reserved, INV.c.min_unit,
                       INV.c.max_unit, INV.c.step_size,
                       INV.c.allocation_ratio, INV.c.used)
             .select_from(P.outerjoin(
                 INV, INV.c.resource_provider_id == P.c.id))
             .where(sa.or_(*named)).order_by(P.c.id))
    return query.with_for_update() if mysql else query


_DELETE_ALLOCATIONS = A.delete().where(
    A.c.consumer_id.in_(sa.bindparam('uuids', expanding=True)))
_INSERT_ALLOCATIONS = A.insert()
_INSERT_CONSUMER = C.insert()
_UPDATE_CONSUMER = (
    C.update().where(C.c.id == sa.bindparam('consumer_id'),
                     C.c.generation == sa.bindparam('read_generation'))
    .values(generation=sa.bindparam('new_generation'),
            project_id=sa.bindparam('new_project_id'),
            user_id=sa.bindparam('new_user_id'),
            # None keeps the type the consumer has.
            consumer_type_id=sa.func.coalesce(
                sa.bindparam('new_consumer_type_id', type_=sa.Integer),
                C.c.consumer_type_id),
            updated_at=sa.bindparam('stamp')))
_DELETE_CONSUMERS = C.delete().where(
    C.c.uuid.in_(sa.bindparam('uuids', expanding=True)))
# MySQL deletes from several tables in one statement.
_DELETE_CONSUMERS_AND_ALLOCATIONS = sa.text(
    'DELETE %(c)s, %(a)s FROM %(c)s LEFT JOIN %(a)s ON %(a)s.consumer_id = '
    '%(c)s.uuid WHERE %(c)s.uuid IN :uuids' % {'c': C.name, 'a': A.name}
).bindparams(sa.bindparam('uuids', expanding=True))


@functools.lru_cache(maxsize=64)
def _usage_update(count):
    """Add d<k> to the usage of inventory i<k> (k < ``count``), as text
    built once per count (any backend)."""
    cases = ' '.join('WHEN :i%d THEN :d%d' % (k, k) for k in range(count))
    ids = ', '.join(':i%d' % k for k in range(count))
    return sa.text(
        'UPDATE %(i)s SET used = used + CASE id %(cases)s END WHERE id IN '
        '(%(ids)s)' % {'i': INV.name, 'cases': cases, 'ids': ids})


@functools.lru_cache(maxsize=64)
def _usage_and_generations_update(count):
    """MySQL: add d<k> to the usage of inventory i<k> (k < ``count``) and
    bump the generation of each of their providers, in one statement. As
    text with numbered parameters, built once per count: an expression
    with the amounts inline would be built and compiled on every write."""
    cases = ' '.join('WHEN :i%d THEN :d%d' % (k, k) for k in range(count))
    ids = ', '.join(':i%d' % k for k in range(count))
    return sa.text(
        'UPDATE %(p)s, %(i)s SET %(p)s.generation = %(p)s.generation + 1, '
        '%(p)s.updated_at = :stamp, %(i)s.used = %(i)s.used + CASE %(i)s.id '
        '%(cases)s END WHERE %(p)s.id = %(i)s.resource_provider_id AND '
        '%(i)s.id IN (%(ids)s)' % {'p': P.name, 'i': INV.name,
                                   'cases': cases, 'ids': ids})


def _lock_consumers(connection, uuids):
    """Lock the consumers (rows and allocations): ({uuid: consumer row},
    [their allocation rows]). Consumers are locked before providers by
    every writer."""
    consumers, held = {}, []
    if not uuids:
        return consumers, held
    for row in connection.execute(
            _held_by_consumers(db.is_mysql(connection)),
            {'uuids': sorted(uuids)}):
        consumers[row.uuid] = row
        if row.consumer_id is not None:
            held.append(row)
    return consumers, held


def _lock_providers(connection, uuids, ids):
    """Lock the providers named by uuid or id, with their inventories.

    One statement: ({id: generation}, {uuid: id}, {(provider id, class
    id): inventory row}). Writers lock in the same (index) order, so they
    queue rather than deadlock; a deadlock all the same is retried.
    """
    if not uuids and not ids:
        return {}, {}, {}
    parameters = {}
    if uuids:
        parameters['uuids'] = sorted(uuids)
    if ids:
        parameters['ids'] = sorted(ids)
    query = _providers_with_inventories(bool(uuids), bool(ids),
                                        db.is_mysql(connection))
    generations, provider_ids, inventories = {}, {}, {}
    for row in connection.execute(query, parameters):
        generations[row.provider_id] = row.generation
        provider_ids[row.uuid] = row.provider_id
        if row.resource_class_id is not None:
            inventories[(row.provider_id, row.resource_class_id)] = row
    if len({i for i in ids if i not in generations}):
        # A provider went away while we were looking.
        raise exception.ProviderGenerationRace('provider deleted')
    return generations, provider_ids, inventories


def _apply_changes(connection, inventory_ids, deltas, generations, stamp):
    """``used`` += delta for every changed (provider, class) of
    ``inventory_ids`` ({(provider id, class id): inventory id}), and the
    generation of every provider in ``generations`` ({id: generation read
    under lock}) bumped.

    On MySQL the usage and the generations of the providers whose usage
    changed go in one multi-table UPDATE (a row matched several times is
    updated once); the rows are locked, so no compare-and-set is needed.
    """
    changes = {inventory_ids[key]: delta for key, delta in deltas.items()
               if delta and key in inventory_ids}
    changed_providers = {key[0] for key, delta in deltas.items()
                         if delta and key in inventory_ids}
    to_bump = dict(generations)
    parameters = {}
    for index, inventory_id in enumerate(sorted(changes)):
        parameters['i%d' % index] = inventory_id
        parameters['d%d' % index] = changes[inventory_id]
    if changes and db.is_mysql(connection) and \
            changed_providers <= set(generations):
        connection.execute(_usage_and_generations_update(len(changes)),
                           dict(parameters, stamp=stamp))
        for provider_id in changed_providers:
            del to_bump[provider_id]
    elif changes:
        # Usage only (a delete, or providers a consumer moved away from:
        # their generations stay, as in OpenStack Placement).
        connection.execute(_usage_update(len(changes)), parameters)
    providers.bump_generations(connection, to_bump)


def _new_rows(connection, requests, provider_ids):
    names = {name for r in requests for resources in r.allocations.values()
             for name in resources}
    try:
        class_ids = {name: resource_classes.id_of(connection, name)
                     for name in names}
    except exception.ResourceClassNotFound as e:
        consumer = next(r.consumer_uuid for r in requests
                        for resources in r.allocations.values()
                        if e.kwargs['name'] in resources)
        raise exception.BadRequest(
            reason='Unable to allocate inventory for consumer %s: %s' % (
                consumer, e))
    rows = []
    for request in requests:
        for rp_uuid, resources in sorted(request.allocations.items()):
            for name, amount in sorted(resources.items()):
                rows.append({'consumer_id': request.consumer_uuid,
                             'resource_provider_id': provider_ids[rp_uuid],
                             'resource_class_id': class_ids[name],
                             'used': amount})
    return rows


def _check_capacity(connection, new_rows, deltas, inventories,
                    provider_ids):
    """Every new amount fits its inventory's unit constraints, and every
    (provider, class) whose usage grows stays within capacity."""
    uuid_of = {v: k for k, v in provider_ids.items()}
    wanted = collections.Counter()
    for row in new_rows:
        key = (row['resource_provider_id'], row['resource_class_id'])
        name = resource_classes.name_of(connection, key[1])
        inventory = inventories.get(key)
        if inventory is None:
            raise exception.CapacityExceeded(
                reason="Unable to allocate inventory: Inventory for '%s' on "
                       "resource provider '%s' invalid: the provider has no "
                       "inventory of that class." % (name, uuid_of[key[0]]))
        if not capacity.fits_unit_constraints(
                row['used'], inventory.min_unit, inventory.max_unit,
                inventory.step_size):
            raise exception.CapacityExceeded(
                reason="Unable to allocate inventory: Unable to create "
                       "allocation for '%s' on resource provider '%s'. The "
                       "requested amount %d would violate inventory "
                       "constraints (min_unit %d, max_unit %d, step_size "
                       "%d)." % (name, uuid_of[key[0]], row['used'],
                                 inventory.min_unit, inventory.max_unit,
                                 inventory.step_size))
        wanted[key] += row['used']
    for key, amount in sorted(wanted.items()):
        inventory = inventories[key]
        room = capacity.capacity(inventory.total, inventory.reserved,
                                 inventory.allocation_ratio)
        others = inventory.used + deltas[key] - amount
        # A provider over capacity (its inventory shrank) still takes a
        # write that does not add to its usage.
        if others + amount > room and deltas[key] > 0:
            raise exception.CapacityExceeded(
                reason="Unable to allocate inventory: Unable to create "
                       "allocation for '%s' on resource provider '%s'. The "
                       "requested amount would exceed the capacity (%d "
                       "used + %d requested > %d)." % (
                           resource_classes.name_of(connection, key[1]),
                           uuid_of[key[0]], others, amount, room))


def _insert_consumer(connection, request, stamp):
    """Create the consumer of ``request``; ConcurrentUpdate if it exists
    (or another request is creating it right now)."""
    try:
        connection.execute(_INSERT_CONSUMER, {
            'uuid': request.consumer_uuid,
            'project_id': request.project_id,
            'user_id': request.user_id, 'generation': 1,
            'consumer_type_id': request.consumer_type_id,
            'created_at': stamp, 'updated_at': stamp})
    except db.DBDuplicateEntry:
        # No savepoint needed: a failed INSERT leaves the transaction
        # usable, and this one is rolled back anyway.
        generation = connection.execute(
            sa.select(C.c.generation).where(
                C.c.uuid == request.consumer_uuid)).scalar()
        raise exception.ConcurrentUpdate(
            reason='consumer generation conflict - expected %s but got None '
                   'for consumer %s; retry.' % (
                       'a concurrent creation' if generation is None
                       else generation, request.consumer_uuid))


def _create_consumers(connection, requests, stamp):
    """Insert the consumers of ``requests`` (in uuid order, as locks are
    taken); ConcurrentUpdate if one exists. The set of their uuids."""
    created = set()
    for request in sorted(requests, key=lambda r: r.consumer_uuid):
        _insert_consumer(connection, request, stamp)
        created.add(request.consumer_uuid)
    return created


def _write_consumers(connection, requests, consumers, stamp):
    for request in requests:
        consumer = consumers.get(request.consumer_uuid)
        if not request.allocations:
            if consumer is not None:
                connection.execute(_DELETE_CONSUMERS,
                                   {'uuids': [request.consumer_uuid]})
            continue
        if consumer is None:
            _insert_consumer(connection, request, stamp)
        else:
            result = connection.execute(_UPDATE_CONSUMER, {
                'consumer_id': consumer.id,
                'read_generation': consumer.generation,
                'new_generation': consumer.generation + 1,
                'new_project_id': request.project_id,
                'new_user_id': request.user_id,
                'new_consumer_type_id': request.consumer_type_id,
                'stamp': stamp})
            if result.rowcount != 1:
                raise exception.ConcurrentUpdate(
                    reason='consumer generation conflict for consumer %s; '
                           'retry.' % request.consumer_uuid)


@functools.lru_cache(maxsize=None)
def _held_with_providers(mysql):
    """The consumers' allocations with their providers' generations and
    inventory ids, locking consumer, allocation, provider and inventory
    rows in that order (the order every writer takes them in)."""
    query = (sa.select(A.c.resource_provider_id, A.c.resource_class_id,
                       A.c.used, P.c.generation,
                       INV.c.id.label('inventory_id'))
             .select_from(
                 C.join(A, A.c.consumer_id == C.c.uuid)
                 .join(P, P.c.id == A.c.resource_provider_id)
                 .outerjoin(INV, sa.and_(
                     INV.c.resource_provider_id == A.c.resource_provider_id,
                     INV.c.resource_class_id == A.c.resource_class_id)))
             .where(C.c.uuid.in_(sa.bindparam('uuids', expanding=True))))
    return query.with_for_update() if mysql else query


def _remove(connection, consumer_uuids, bump=True, with_consumers=False):
    """Delete the consumers' allocations (and the consumers themselves if
    ``with_consumers``) and give their usage back, bumping the providers'
    generations if ``bump``; {provider id: generation read} of the
    providers that lost allocations."""
    generations, inventory_ids = {}, {}
    deltas = collections.Counter()
    mysql = db.is_mysql(connection)
    for row in connection.execute(_held_with_providers(mysql),
                                  {'uuids': sorted(consumer_uuids)}):
        key = (row.resource_provider_id, row.resource_class_id)
        generations[row.resource_provider_id] = row.generation
        deltas[key] -= row.used
        if row.inventory_id is not None:
            inventory_ids[key] = row.inventory_id
    if not generations:
        return {}
    parameters = {'uuids': sorted(consumer_uuids)}
    if with_consumers and mysql:
        connection.execute(_DELETE_CONSUMERS_AND_ALLOCATIONS, parameters)
    else:
        connection.execute(_DELETE_ALLOCATIONS, parameters)
        if with_consumers:
            connection.execute(_DELETE_CONSUMERS, parameters)
    _apply_changes(connection, inventory_ids, deltas,
                   generations if bump else {}, db.now())
    return generations


# MySQL: a consumer's usage given back in one statement, which locks the
# consumer's row first (as every writer does), then its allocations and
# their inventories; it matches no row when the consumer holds nothing.
_GIVE_BACK = sa.text(
    'UPDATE %(c)s STRAIGHT_JOIN %(a)s ON %(a)s.consumer_id = %(c)s.uuid '
    'LEFT JOIN %(i)s ON %(i)s.resource_provider_id = '
    '%(a)s.resource_provider_id AND %(i)s.resource_class_id = '
    '%(a)s.resource_class_id SET %(c)s.updated_at = :stamp, '
    '%(i)s.used = %(i)s.used - %(a)s.used WHERE %(c)s.uuid = :uuid' % {
        'c': C.name, 'a': A.name, 'i': INV.name})


def delete(connection, consumer_uuid):
    """Remove every allocation of a consumer; NotFound if it has none."""
    # No provider generation is bumped, as in OpenStack Placement.
    if db.is_mysql(connection):
        # Two statements where reading what is held first took three
        # (this is every deleted instance's allocation).
        held = connection.execute(_GIVE_BACK, {
            'uuid': consumer_uuid, 'stamp': db.now()}).rowcount
        if held:
            connection.execute(_DELETE_CONSUMERS_AND_ALLOCATIONS,
                               {'uuids': [consumer_uuid]})
    else:
        held = _remove(connection, [consumer_uuid], bump=False,
                       with_consumers=True)
    if not held:
        raise exception.NotFound(
            reason="No allocations for consumer '%s'" % consumer_uuid)


def of_consumer(connection, consumer_uuid):
    """(consumer row or None, {rp uuid: {'generation', 'resources'}})."""
    rows = connection.execute(
        sa.select(P.c.uuid, P.c.generation, A.c.resource_class_id, A.c.used)
        .select_from(A.join(P, P.c.id == A.c.resource_provider_id))
        .where(A.c.consumer_id == consumer_uuid)).all()
    result = {}
    for row in rows:
        entry = result.setdefault(row.uuid, {'generation': row.generation,
                                             'resources': {}})
        entry['resources'][resource_classes.name_of(
            connection, row.resource_class_id)] = row.used
    consumer = None
    if rows:
        consumer = connection.execute(sa.select(C).where(
            C.c.uuid == consumer_uuid)).first()
    return consumer, result


def of_provider(connection, provider_id):
    """{consumer uuid: {'resources': {class: amount}}} on one provider."""
    rows = connection.execute(
        sa.select(A.c.consumer_id, A.c.resource_class_id, A.c.used)
        .where(A.c.resource_provider_id == provider_id))
    result = {}
    for row in rows:
        resources = result.setdefault(row.consumer_id,
                                      {'resources': {}})['resources']
        name = resource_classes.name_of(connection, row.resource_class_id)
        resources[name] = resources.get(name, 0) + row.used
    return result


def provider_usages(connection, provider_id):
    """{class: used} for every class the provider has inventory of."""
    inv = db.INVENTORIES
    usage = (sa.select(A.c.resource_class_id,
                       sa.func.sum(A.c.used).label('used'))
             .where(A.c.resource_provider_id == provider_id)
             .group_by(A.c.resource_class_id).subquery())
    rows = connection.execute(
        sa.select(inv.c.resource_class_id,
                  sa.func.coalesce(usage.c.used, 0).label('used'))
        .select_from(inv.outerjoin(
            usage, usage.c.resource_class_id == inv.c.resource_class_id))
        .where(inv.c.resource_provider_id == provider_id))
    return {resource_classes.name_of(connection, row.resource_class_id):
            int(row.used) for row in rows}


def project_usages(connection, project_id, user_id=None):
    """{class: used} over every consumer of a project (and user)."""
    query = (sa.select(A.c.resource_class_id,
                       sa.func.sum(A.c.used).label('used'))
             .select_from(A.join(C, C.c.uuid == A.c.consumer_id))
             .where(C.c.project_id == project_id))
    if user_id is not None:
        query = query.where(C.c.user_id == user_id)
    rows = connection.execute(query.group_by(A.c.resource_class_id))
    return {resource_classes.name_of(connection, row.resource_class_id):
            int(row.used) for row in rows}


def reshape(connection, inventories, requests, reserved_may_equal_total=True):
    """Move inventory and allocations between providers in one go.

    ``inventories`` is {provider uuid: (generation, {class: values})}:
    each named provider's whole inventory; ``requests`` the allocations
    of every consumer affected. In OpenStack Placement's steps, so that
    its errors and generations come out the same: every provider named
    is checked (exists, generation); each gets an interim inventory (what
    it has plus what it is given, so that nothing still allocated goes
    away); the allocations are replaced; then each provider's inventory
    becomes exactly what it is given. All in the caller's transaction.
    """
    from nova_lite.placement import inventories as inventories_db
    for rp_uuid, (generation, _wanted) in sorted(inventories.items()):
        try:
            provider = providers.get(connection, rp_uuid, lock=True)
        except exception.ResourceProviderNotFound as e:
            error = exception.BadRequest(
                reason='Resource provider %s in inventories not found: %s' %
                (rp_uuid, e))
            error.error_code = exception.RESOURCE_PROVIDER_NOT_FOUND
            raise error
        if provider.generation != generation:
            raise exception.ConcurrentUpdate(
                reason='resource provider generation conflict for provider '
                       '%s: actual: %s, given: %s' % (
                           rp_uuid, provider.generation, generation))

    def set_inventory(rp_uuid, wanted):
        current = providers.get(connection, rp_uuid).generation
        inventories_db.replace_all(connection, rp_uuid, current, wanted,
                                   reserved_may_equal_total)

    for rp_uuid, (_generation, wanted) in sorted(inventories.items()):
        if wanted:
            interim = inventories_db.get_all(
                connection, providers.get(connection, rp_uuid).id)
            interim.update(wanted)
            set_inventory(rp_uuid, interim)
    replace(connection, requests)
    for rp_uuid, (_generation, wanted) in sorted(inventories.items()):
        set_inventory(rp_uuid, wanted)
