"""Entry point for oslo-config-generator: every group nova_lite defines."""

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


def list_opts():
    merged = {}
    for module in (default, database, api, scheduler, compute, conductor,
                   placement, network, quota, upgrade_levels, middleware,
                   fake_computes):
        merged.update(module.list_opts())
    return list(merged.items())
