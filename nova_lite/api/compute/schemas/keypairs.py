"""Schemas of /os-keypairs.

Whether a public key is a well-formed OpenSSH key (or PEM certificate) is
checked by the business layer (``compute.keypairs``), which can say why.
"""

import copy

# Printable, and no leading or trailing whitespace.
_NAME = {'type': 'string', 'minLength': 1, 'maxLength': 255,
         'pattern': r'^(?!\s)[^\x00-\x1f\x7f]*(?<!\s)$'}
_PUBLIC_KEY = {'type': 'string', 'minLength': 1}

create = {
    'type': 'object',
    'properties': {
        'keypair': {
            'type': 'object',
            'properties': {'name': _NAME, 'public_key': _PUBLIC_KEY},
            'required': ['name'],
            'additionalProperties': False,
        },
    },
    'required': ['keypair'],
    'additionalProperties': False,
}

# 2.2: the key pair's type.
create_v22 = copy.deepcopy(create)
create_v22['properties']['keypair']['properties']['type'] = {
    'type': 'string', 'enum': ['ssh', 'x509']}

# 2.10: an administrator may create a key pair for another user.
create_v210 = copy.deepcopy(create_v22)
create_v210['properties']['keypair']['properties']['user_id'] = {
    'type': 'string', 'minLength': 1, 'maxLength': 255}
