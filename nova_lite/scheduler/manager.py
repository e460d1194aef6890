"""Server side of the scheduler RPC API."""

from oslo_log import log as logging
import oslo_messaging as messaging

from nova_lite import conf as nova_conf
from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite import manager
from nova_lite.scheduler import discovery
from nova_lite.scheduler import filter_scheduler

CONF = nova_conf.CONF
LOG = logging.getLogger(__name__)


class SchedulerManager(manager.Manager):
    target = messaging.Target(version='1.5')

    def __init__(self):
        # Unknown filter or weigher names fail here, at start.
        self.driver = filter_scheduler.FilterScheduler()

    @messaging.expected_exceptions(exception.NoValidHost)
    def select_destinations(self, context, spec_obj, instance_uuids,
                            return_alternates=False):
        # A 1.0 caller does not know alternates; it gets the chosen hosts.
        return self.driver.select_destinations(context, spec_obj,
                                               instance_uuids,
                                               return_alternates)

    @manager.periodic_task(
        lambda: CONF.scheduler.discover_hosts_in_cells_interval)
    def discover_hosts(self):
        # A cell that did not answer is logged by the discovery and
        # searched again next time.
        mapped = discovery.discover_hosts(
            nova_context.get_admin_context()).mapped
        if mapped:
            LOG.info('Mapped new compute hosts: %s',
                     ', '.join(m.host for m in mapped))
