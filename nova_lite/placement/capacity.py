"""Capacity arithmetic, in Python and as SQL, kept identical.

A provider's capacity for a class is ``int((total - reserved) *
allocation_ratio)``; a request of ``amount`` fits when ``used + amount``
is within it, ``min_unit <= amount <= max_unit`` and ``amount`` is a
multiple of ``step_size``. ``used`` is the inventory row's running sum of
its allocations (see ``allocations``), so a provider's room for a class
is read from one row; the ``inventories_class_capacity_idx`` index covers
the scan of one class over every provider.
"""

import sqlalchemy as sa

from nova_lite.placement import db

INT_MAX = 2147483647


def capacity(total, reserved, allocation_ratio):
    return int((total - reserved) * allocation_ratio)


def fits_unit_constraints(amount, min_unit, max_unit, step_size):
    return min_unit <= amount <= max_unit and amount % step_size == 0


def capacity_sql(inventories=db.INVENTORIES):
    return sa.func.floor((inventories.c.total - inventories.c.reserved) *
                         inventories.c.allocation_ratio)


def fits_sql(amount, inventories=db.INVENTORIES):
    """WHERE clauses: ``amount`` of the class fits this inventory now."""
    inv = inventories
    return (capacity_sql(inv) - inv.c.used >= amount,
            inv.c.min_unit <= amount,
            inv.c.max_unit >= amount,
            sa.literal(amount) % inv.c.step_size == 0)


def providers_with_capacity(resource_class_id, amount):
    """SELECT of the ids of providers that can take ``amount`` of the class
    now."""
    inv = db.INVENTORIES
    return (sa.select(inv.c.resource_provider_id)
            .where(inv.c.resource_class_id == resource_class_id,
                   *fits_sql(amount)))
