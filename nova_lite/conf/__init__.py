"""Every configuration option nova_lite reads, registered on one global CONF.

Options live in one module per group; ``opts.list_opts`` feeds them to
oslo-config-generator, so the sample file is always generated, never edited.
"""

from oslo_config import cfg

from nova_lite.conf import api
from nova_lite.conf import compute
from nova_lite.conf import conductor
from nova_lite.conf import database
from nova_lite.conf import default
from nova_lite.conf import fake_computes
from nova_lite.conf import middleware
from nova_lite.conf import network
from nova_lite.conf import placement
from nova_lite.conf import quota
from nova_lite.conf import scheduler
from nova_lite.conf import upgrade_levels

CONF = cfg.CONF

for _module in (default, database, api, scheduler, compute, conductor,
                placement, network, quota, upgrade_levels, middleware,
                fake_computes):
    _module.register_opts(CONF)
