"""JSON schemas of Placement request bodies, one module per resource.

Placement sets no limit of its own on a body's lists and maps; ours is
``MAX_ITEMS`` for each (providers of a consumer, resource classes of an
inventory or allocation, consumers of a POST /allocations or reshape,
traits and aggregates of a provider): far above what a compute reports or
a scheduler claims, and each list or map a client may send has one
(``tests/unit/test_request_schema_bounds.py``).
"""

MAX_ITEMS = 1000

# A uuid as a value; as a key (consumers, providers) the pattern.
UUID = {'type': 'string', 'format': 'uuid'}
UUID_PATTERN = ('^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?'
                '[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$')
NULLABLE_UUID = {'anyOf': [UUID, {'type': 'null'}]}
GENERATION = {'type': 'integer', 'minimum': 0}
