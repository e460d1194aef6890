"""Schemas of /servers/{server_id}/tags (microversion 2.26).

The business layer (``compute.server_tags``) checks how many tags a
server would have after adding one; a list replacing them all is checked
here against the same limit (Nova's 50).
"""

from nova_lite.api.compute import schemas

# 1 to 60 characters, neither "/" (it would split the tag's URL) nor ","
# (the server list's tag filters are comma-separated).
TAG = {'type': 'string', 'minLength': 1, 'maxLength': 60,
       'pattern': r'^[^,/]*$'}

update_all = {
    'type': 'object',
    'properties': {
        'tags': {'type': 'array', 'items': TAG,
                 'maxItems': schemas.MAX_TAGS},
    },
    'required': ['tags'],
    'additionalProperties': False,
}
