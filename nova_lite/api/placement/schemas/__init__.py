"""JSON schemas of Placement request bodies, one module per resource."""

UUID = {'type': 'string',
        'pattern': '^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?'
                   '[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$'}
NULLABLE_UUID = {'anyOf': [UUID, {'type': 'null'}]}
GENERATION = {'type': 'integer', 'minimum': 0}
