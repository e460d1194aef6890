"""The Placement service's data layer: resource providers, their
inventories, traits and aggregates, and the allocations consumers hold
against them, in the API database.

Everything here is SQLAlchemy Core over the tables of
``nova_lite.db.api_models``; the REST handlers in
``nova_lite.api.placement`` call these functions and never touch SQL.
"""
