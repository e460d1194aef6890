"""JSON schemas of Compute API request bodies, one module per resource.

Every list and every map with keys of the client's choosing has a bound
(``tests/unit/test_request_schema_bounds.py`` fails on one without): the
body size limit caps the bytes, these caps the work a request makes per
item. Where Nova has a limit we keep it; elsewhere the bound is generous
and named here.
"""

# Not 'server_tags': that is the name of this package's module.
from nova_lite.compute import server_tags as tags_rules

# What a server is made of: each network, block device, security group
# or personality file costs a call to another service or a record per
# server, for every server of the request.
MAX_SERVER_PARTS = 100
# Metadata keys (server, rebuild, aggregate). A server's are refused
# beyond ``[quota] metadata_items`` (128, a 403) first; this is the
# ceiling whatever that option says.
MAX_METADATA_ITEMS = 1000
# Scheduler hints: names, and the values one hint lists (same_host
# names up to as many servers as one create makes).
MAX_HINTS = 100
MAX_HINT_VALUES = 1000
# Nova's limits: tags per server, certificate ids per server.
MAX_TAGS = tags_rules.MAX_TAGS
MAX_TRUSTED_CERTS = 50
