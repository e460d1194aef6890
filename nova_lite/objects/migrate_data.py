"""LiveMigrateData: what the computes of a live migration hand each other.

The conductor fills it once the destination passed its pre-checks and the
ports have inactive bindings there; the source compute carries it through
``pre_live_migration``, the transfer and the post or rollback steps.
"""

from oslo_versionedobjects import fields

from nova_lite.objects import base


@base.NovaLiteObjectRegistry.register
class LiveMigrateData(base.NovaLiteObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'block_migration': fields.BooleanField(default=False),
        'source_host': fields.StringField(),
        'source_node': fields.StringField(nullable=True),
        'dest_host': fields.StringField(),
        'dest_node': fields.StringField(nullable=True),
        # Ports with an INACTIVE binding on the destination, made by the
        # conductor; activated after the transfer, deleted on rollback.
        'bound_ports': fields.ListOfStringsField(default=[]),
        # Port id -> the destination provider its binding's ``allocation``
        # names (ports with a resource request only).
        'port_providers': fields.DictOfStringsField(default={}),
    }

    lazy_defaults = {'block_migration': False, 'source_node': None,
                     'dest_node': None, 'bound_ports': [],
                     'port_providers': {}}
