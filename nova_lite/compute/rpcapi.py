"""Client side of the compute RPC API (topic ``compute.<host>``).

API version history:

    1.0 - Initial version: build_and_run_instance, terminate_instance.
"""

import oslo_messaging as messaging

from nova_lite import conf as nova_conf
from nova_lite import rpc

CONF = nova_conf.CONF

RPC_TOPIC = 'compute'
LATEST_VERSION = '1.0'
# Reconnection attempts of a cast before it fails (None would be forever).
CAST_RETRIES = 3


def topic_for(host):
    return '%s.%s' % (RPC_TOPIC, host)


class ComputeAPI:

    def __init__(self):
        self.version_cap = rpc.version_cap('compute', 'compute',
                                           LATEST_VERSION)

    def _client(self, context, host):
        # The cast goes over the transport of the cell the context is aimed
        # at, which is where that host's compute listens.
        target = messaging.Target(topic=topic_for(host), server=host,
                                  version='1.0')
        transport = rpc.get_transport(getattr(context, 'mq_url', None))
        return rpc.get_client(target, version_cap=self.version_cap,
                              transport=transport)

    def build_and_run_instance(self, context, instance, host, request_spec,
                               host_list, limits=None, image=None):
        """``host`` is the chosen Selection; ``host_list`` its alternates."""
        self._client(context, host.service_host).prepare(
            retry=CAST_RETRIES).cast(
            context, 'build_and_run_instance', instance=instance,
            selection=host, request_spec=request_spec, host_list=host_list,
            limits=limits, image=image)

    def terminate_instance(self, context, instance):
        self._client(context, instance.host).prepare(
            retry=CAST_RETRIES).cast(
            context, 'terminate_instance', instance=instance)
