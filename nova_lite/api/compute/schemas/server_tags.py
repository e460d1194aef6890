"""Schemas of /servers/{server_id}/tags (microversion 2.26).

How many tags a server may have is checked by the business layer
(``compute.server_tags``), which can say how many it would have.
"""

# 1 to 60 characters, neither "/" (it would split the tag's URL) nor ","
# (the server list's tag filters are comma-separated).
TAG = {'type': 'string', 'minLength': 1, 'maxLength': 60,
       'pattern': r'^[^,/]*$'}

update_all = {
    'type': 'object',
    'properties': {
        'tags': {'type': 'array', 'items': TAG},
    },
    'required': ['tags'],
    'additionalProperties': False,
}
