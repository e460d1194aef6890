"""Inventories: how much of each resource class a provider offers.

Every change is made with the provider row locked and bumps its
generation. A change that would leave existing allocations without room
(removing a class still allocated, or shrinking capacity below usage) is
refused with ``InventoryInUse``; allocations are never silently over
capacity.
"""

import sqlalchemy as sa

from nova_lite.placement import capacity
from nova_lite.placement import db
from nova_lite.placement import exception
from nova_lite.placement import providers
from nova_lite.placement import resource_classes

INV = db.INVENTORIES
FIELDS = ('total', 'reserved', 'min_unit', 'max_unit', 'step_size',
          'allocation_ratio')
DEFAULTS = {'reserved': 0, 'min_unit': 1, 'max_unit': capacity.INT_MAX,
            'step_size': 1, 'allocation_ratio': 1.0}


def with_defaults(values):
    result = dict(DEFAULTS)
    result.update({k: v for k, v in values.items() if k in FIELDS})
    result['allocation_ratio'] = float(result['allocation_ratio'])
    return result


def _as_dict(row):
    return {'total': row.total, 'reserved': row.reserved,
            'min_unit': row.min_unit, 'max_unit': row.max_unit,
            'step_size': row.step_size,
            'allocation_ratio': row.allocation_ratio}


def _rows(connection, provider_id):
    return connection.execute(sa.select(INV).where(
        INV.c.resource_provider_id == provider_id)).all()


def get_all(connection, provider_id):
    """{class name: inventory dict} of a provider."""
    return {resource_classes.name_of(connection, row.resource_class_id):
            _as_dict(row) for row in _rows(connection, provider_id)}


def get_one(connection, provider, class_name):
    class_id = _class_id_or_404(connection, provider, class_name)
    row = connection.execute(sa.select(INV).where(
        INV.c.resource_provider_id == provider.id,
        INV.c.resource_class_id == class_id)).first()
    if row is None:
        raise _no_inventory(provider, class_name)
    return _as_dict(row)


def _no_inventory(provider, class_name):
    return exception.NotFound(
        reason='No inventory of class %s for resource provider %s.' % (
            class_name, provider.uuid))


def _class_id_or_404(connection, provider, class_name):
    try:
        return resource_classes.id_of(connection, class_name)
    except exception.ResourceClassNotFound:
        raise _no_inventory(provider, class_name)


def usage(connection, provider_id):
    """{class id: units allocated} of a provider."""
    alloc = db.ALLOCATIONS
    rows = connection.execute(
        sa.select(alloc.c.resource_class_id,
                  sa.func.sum(alloc.c.used).label('used'))
        .where(alloc.c.resource_provider_id == provider_id)
        .group_by(alloc.c.resource_class_id))
    return {row.resource_class_id: int(row.used) for row in rows}


def validate(provider, class_name, values, reserved_may_equal_total):
    """Semantic checks the schema cannot express (BadRequest)."""
    total, reserved = values['total'], values['reserved']
    if reserved > total or (reserved == total and
                            not reserved_may_equal_total):
        raise exception.BadRequest(
            reason='Unable to update inventory for resource provider %s: '
                   'invalid inventory for %s: the reserved value (%d) is '
                   'greater than %stotal (%d).' % (
                       provider.uuid, class_name, reserved,
                       '' if reserved_may_equal_total else 'or equal to ',
                       total))
    if values['min_unit'] > values['max_unit']:
        raise exception.BadRequest(
            reason='Unable to update inventory for resource provider %s: '
                   'invalid inventory for %s: min_unit (%d) is greater '
                   'than max_unit (%d).' % (provider.uuid, class_name,
                                            values['min_unit'],
                                            values['max_unit']))


def _check_in_use(connection, provider, wanted, removed, used):
    """Refuse removing an allocated class or shrinking below usage."""
    names = lambda ids: ', '.join(sorted(  # noqa: E731
        resource_classes.name_of(connection, i) for i in ids))
    in_use = [class_id for class_id in removed if used.get(class_id)]
    if in_use:
        raise exception.InventoryInUse(
            reason="Inventory for '%s' on resource provider '%s' in use." %
            (names(in_use), provider.uuid))
    for class_id, values in sorted(wanted.items()):
        allocated = used.get(class_id, 0)
        room = capacity.capacity(values['total'], values['reserved'],
                                 values['allocation_ratio'])
        if allocated > room:
            raise exception.InventoryInUse(
                reason="Inventory for '%s' on resource provider '%s' in "
                       "use: %d units are allocated, more than the new "
                       "capacity %d." % (names([class_id]), provider.uuid,
                                         allocated, room))


def _write(connection, provider, wanted, removed, existing):
    stamp = db.now()
    if removed:
        connection.execute(INV.delete().where(
            INV.c.resource_provider_id == provider.id,
            INV.c.resource_class_id.in_(sorted(removed))))
    inserts = []
    for class_id, values in sorted(wanted.items()):
        if class_id in existing:
            if _as_dict(existing[class_id]) != values:
                connection.execute(INV.update().where(
                    INV.c.id == existing[class_id].id).values(
                        updated_at=stamp, **values))
        else:
            inserts.append(dict(values, resource_provider_id=provider.id,
                                resource_class_id=class_id,
                                created_at=stamp))
    if inserts:
        connection.execute(INV.insert(), inserts)


def replace_all(connection, provider_uuid, generation, inventories,
                reserved_may_equal_total=True):
    """Make a provider's inventory exactly ``inventories`` ({class name:
    values with defaults}); returns (new generation, inventories)."""
    provider = providers.get(connection, provider_uuid, lock=True)
    providers.check_generation(provider, generation)
    ids = resource_classes.ids_of(connection, inventories)
    for name, values in inventories.items():
        validate(provider, name, values, reserved_may_equal_total)
    wanted = {ids[name]: values for name, values in inventories.items()}
    existing = {row.resource_class_id: row
                for row in _rows(connection, provider.id)}
    removed = set(existing) - set(wanted)
    _check_in_use(connection, provider, wanted, removed,
                  usage(connection, provider.id))
    _write(connection, provider, wanted, removed, existing)
    new_generation = providers.bump_generation(connection, provider)
    return new_generation, get_all(connection, provider.id)


def set_one(connection, provider_uuid, generation, class_name, values,
            reserved_may_equal_total=True, create_only=False):
    """Create or update one class of a provider's inventory."""
    provider = providers.get(connection, provider_uuid, lock=True)
    if generation is not None:
        providers.check_generation(provider, generation)
    try:
        class_id = resource_classes.id_of(connection, class_name)
    except exception.ResourceClassNotFound:
        raise exception.BadRequest(
            reason='Unknown resource class in inventory for resource '
                   'provider %s: %s' % (provider.uuid, class_name))
    validate(provider, class_name, values, reserved_may_equal_total)
    existing = {row.resource_class_id: row
                for row in _rows(connection, provider.id)}
    if create_only and class_id in existing:
        raise exception.Conflict(
            reason='Update conflict: inventory for %s on resource provider '
                   '%s already exists.' % (class_name, provider.uuid))
    _check_in_use(connection, provider, {class_id: values}, set(),
                  usage(connection, provider.id))
    _write(connection, provider, {class_id: values}, set(), existing)
    return providers.bump_generation(connection, provider), values


def delete_one(connection, provider_uuid, class_name):
    provider = providers.get(connection, provider_uuid, lock=True)
    class_id = _class_id_or_404(connection, provider, class_name)
    existing = {row.resource_class_id: row
                for row in _rows(connection, provider.id)}
    if class_id not in existing:
        raise _no_inventory(provider, class_name)
    _check_in_use(connection, provider, {}, {class_id},
                  usage(connection, provider.id))
    _write(connection, provider, {}, {class_id}, existing)
    providers.bump_generation(connection, provider)


def delete_all(connection, provider_uuid):
    provider = providers.get(connection, provider_uuid, lock=True)
    existing = {row.resource_class_id: row
                for row in _rows(connection, provider.id)}
    _check_in_use(connection, provider, {}, set(existing),
                  usage(connection, provider.id))
    _write(connection, provider, {}, set(existing), existing)
    providers.bump_generation(connection, provider)
