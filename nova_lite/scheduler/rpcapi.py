"""Client side of the scheduler RPC API (topic ``scheduler``).

API version history:

    1.0 - Initial version: select_destinations returning, per instance, the
          chosen Selection followed by its alternates.
"""

import oslo_messaging as messaging

from nova_lite import conf as nova_conf
from nova_lite import rpc

CONF = nova_conf.CONF

RPC_TOPIC = 'scheduler'
LATEST_VERSION = '1.0'


class SchedulerAPI:

    def __init__(self):
        target = messaging.Target(topic=RPC_TOPIC, version='1.0')
        self.version_cap = rpc.version_cap('scheduler', 'scheduler',
                                           LATEST_VERSION)
        self.client = rpc.get_client(target, version_cap=self.version_cap)

    def select_destinations(self, context, spec_obj, instance_uuids,
                            timeout=None):
        """Per instance a list [chosen, alternate, ...] of Selections.

        Raises NoValidHost (with the reason per filter) when an instance
        cannot be placed, and MessagingTimeout when no scheduler answers.
        """
        cctxt = self.client.prepare(
            timeout=timeout or CONF.conductor.scheduler_call_timeout)
        return cctxt.call(context, 'select_destinations',
                          spec_obj=spec_obj, instance_uuids=instance_uuids)
