"""Inventories: how much of each resource class a provider offers.

Every change is made with the provider row locked and bumps its
generation. Removing a class that is still allocated is refused with
``InventoryInUse``. Shrinking a class below what is allocated is allowed,
with a warning, as OpenStack Placement allows it: a compute whose disk or
memory shrank must still be able to say so; the provider is then over
capacity and no new allocation of that class fits until usage falls.
The messages are worded as OpenStack Placement's, which clients and its
API tests look for.
"""

from oslo_log import log as logging
import sqlalchemy as sa

from nova_lite.placement import capacity
from nova_lite.placement import db
from nova_lite.placement import exception
from nova_lite.placement import providers
from nova_lite.placement import resource_classes

LOG = logging.getLogger(__name__)

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


def _existing(connection, provider):
    """{class id: inventory row} of a provider."""
    return {row.resource_class_id: row
            for row in _rows(connection, provider.id)}


def _class_id(connection, provider, class_name, action):
    """The id of ``class_name``; 400 in OpenStack Placement's words for
    ``action`` ('create': POST; 'update': PUT) if there is no such class."""
    try:
        return resource_classes.id_of(connection, class_name)
    except exception.ResourceClassNotFound as e:
        if action == 'create':
            reason = 'Unable to create inventory for resource provider %s: %s'
        else:
            reason = ('Unknown resource class in inventory for resource '
                      'provider %s: %s')
        raise exception.BadRequest(reason=reason % (provider.uuid, e))


def _rows(connection, provider_id):
    return connection.execute(sa.select(INV).where(
        INV.c.resource_provider_id == provider_id)).all()


def get_all(connection, provider_id):
    """{class name: inventory dict} of a provider."""
    return {resource_classes.name_of(connection, row.resource_class_id):
            _as_dict(row) for row in _rows(connection, provider_id)}


def get_one(connection, provider, class_name):
    try:
        class_id = resource_classes.id_of(connection, class_name)
    except exception.ResourceClassNotFound:
        row = None
    else:
        row = connection.execute(sa.select(INV).where(
            INV.c.resource_provider_id == provider.id,
            INV.c.resource_class_id == class_id)).first()
    if row is None:
        raise exception.NotFound(
            reason='No inventory of class %s for %s' % (class_name,
                                                        provider.uuid))
    return _as_dict(row)


def usage(connection, provider_id):
    """{class id: units allocated} of a provider."""
    alloc = db.ALLOCATIONS
    rows = connection.execute(
        sa.select(alloc.c.resource_class_id,
                  sa.func.sum(alloc.c.used).label('used'))
        .where(alloc.c.resource_provider_id == provider_id)
        .group_by(alloc.c.resource_class_id))
    return {row.resource_class_id: int(row.used) for row in rows}


def check_capacity(provider, class_name, values, reserved_may_equal_total,
                   action='update'):
    """Semantic checks the schema cannot express (BadRequest).

    The capacity, (total - reserved) * allocation_ratio, must be positive
    (from 1.26 it may be zero: everything reserved).
    """
    room = capacity.capacity(values['total'], values['reserved'],
                             values['allocation_ratio'])
    if room < 0 or (room == 0 and not reserved_may_equal_total):
        raise exception.BadRequest(
            reason="Unable to %s inventory for resource provider %s: "
                   "Invalid inventory for '%s' on resource provider '%s'. "
                   "The reserved value is greater than %stotal." % (
                       action, provider.uuid, class_name, provider.uuid,
                       '' if reserved_may_equal_total else 'or equal to '))
    if values['min_unit'] > values['max_unit']:
        raise exception.BadRequest(
            reason='Unable to %s inventory for resource provider %s: '
                   'invalid inventory for %s: min_unit (%d) is greater '
                   'than max_unit (%d).' % (action, provider.uuid,
                                            class_name, values['min_unit'],
                                            values['max_unit']))


def _check_in_use(connection, provider, removed, used):
    """Refuse removing a class that is allocated."""
    in_use = [class_id for class_id in removed if used.get(class_id)]
    if in_use:
        raise exception.InventoryInUse(
            reason="Inventory for '%s' on resource provider '%s' in use." %
            (', '.join(resource_classes.name_of(connection, i)
                       for i in sorted(in_use)), provider.uuid))


def _warn_over_capacity(connection, provider, wanted, used):
    for class_id, values in sorted(wanted.items()):
        room = capacity.capacity(values['total'], values['reserved'],
                                 values['allocation_ratio'])
        if used.get(class_id, 0) > room:
            LOG.warning('Resource provider %s is now over capacity for %s: '
                        '%d allocated, capacity %d.', provider.uuid,
                        resource_classes.name_of(connection, class_id),
                        used[class_id], room)


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
    for name, values in inventories.items():
        check_capacity(provider, name, values, reserved_may_equal_total)
    ids = {name: _class_id(connection, provider, name, 'update')
           for name in inventories}
    wanted = {ids[name]: values for name, values in inventories.items()}
    existing = _existing(connection, provider)
    removed = set(existing) - set(wanted)
    used = usage(connection, provider.id)
    _check_in_use(connection, provider, removed, used)
    _warn_over_capacity(connection, provider, wanted, used)
    _write(connection, provider, wanted, removed, existing)
    new_generation = providers.bump_generation(connection, provider)
    return new_generation, get_all(connection, provider.id)


def add_one(connection, provider_uuid, class_name, values,
            reserved_may_equal_total=True):
    """Add a class the provider has no inventory of (POST; as in
    OpenStack Placement, no generation is named)."""
    provider = providers.get(connection, provider_uuid, lock=True)
    check_capacity(provider, class_name, values, reserved_may_equal_total,
                   action='create')
    class_id = _class_id(connection, provider, class_name, 'create')
    existing = _existing(connection, provider)
    if class_id in existing:
        raise exception.Conflict(
            reason='Update conflict: inventory for %s on resource provider '
                   '%s already exists.' % (class_name, provider.uuid))
    _write(connection, provider, {class_id: values}, set(), existing)
    return providers.bump_generation(connection, provider), values


def update_one(connection, provider_uuid, generation, class_name, values,
               reserved_may_equal_total=True):
    """Change one class the provider already has inventory of."""
    provider = providers.get(connection, provider_uuid, lock=True)
    providers.check_generation(provider, generation)
    check_capacity(provider, class_name, values, reserved_may_equal_total)
    class_id = _class_id(connection, provider, class_name, 'update')
    existing = _existing(connection, provider)
    if class_id not in existing:
        raise exception.BadRequest(
            reason='No inventory record with resource class for resource '
                   'provider %s: No inventory of class %s found.' % (
                       provider.uuid, class_name))
    _warn_over_capacity(connection, provider, {class_id: values},
                        usage(connection, provider.id))
    _write(connection, provider, {class_id: values}, set(), existing)
    return providers.bump_generation(connection, provider), values


def delete_one(connection, provider_uuid, class_name):
    provider = providers.get(connection, provider_uuid, lock=True)
    missing = 'No inventory of class %s found for delete: %s' % (
        class_name, '%s')
    try:
        class_id = resource_classes.id_of(connection, class_name)
    except exception.ResourceClassNotFound as e:
        raise exception.NotFound(reason=missing % e)
    existing = _existing(connection, provider)
    if class_id not in existing:
        raise exception.NotFound(
            reason=missing % ('No inventory of class %s found for delete'
                              % class_name))
    _check_in_use(connection, provider, {class_id},
                  usage(connection, provider.id))
    _write(connection, provider, {}, {class_id}, existing)
    providers.bump_generation(connection, provider)


def delete_all(connection, provider_uuid):
    provider = providers.get(connection, provider_uuid, lock=True)
    existing = _existing(connection, provider)
    _check_in_use(connection, provider, set(existing),
                  usage(connection, provider.id))
    _write(connection, provider, {}, set(existing), existing)
    providers.bump_generation(connection, provider)
