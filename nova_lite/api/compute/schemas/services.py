"""Schemas of /os-services."""

update_v253 = {
    'type': 'object',
    'properties': {
        'status': {'type': 'string', 'enum': ['enabled', 'disabled']},
        'disabled_reason': {'type': ['string', 'null'], 'minLength': 1,
                            'maxLength': 255},
        'forced_down': {'type': 'boolean'},
    },
    'minProperties': 1,
    'additionalProperties': False,
}
