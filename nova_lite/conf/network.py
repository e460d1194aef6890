"""[network]: the port service daemon, how the others reach it, and what
each compute reports as its host's Open vSwitch agent."""

from oslo_config import cfg

from nova_lite.conf import service_client

SERVICE_TYPE = 'network'
# Where the services find the port service under noauth2 without an
# endpoint_override: this host's network daemon.
DEFAULT_ENDPOINT = 'http://127.0.0.1:9696'

network_group = cfg.OptGroup(
    'network', title='Network',
    help='The nova-lite-network daemon (a subset of the Networking '
         'service\'s port API), how the other services call it, and the '
         'agent state each nova-lite-compute reports for its host. The '
         'calls use keystoneauth1\'s auth, session and adapter options '
         '(auth_type, auth_url, username, ..., valid_interfaces, '
         'region_name, endpoint_override), as for [placement]: the '
         'endpoint is the catalog\'s network service unless '
         'endpoint_override names it; under auth_type = noauth2 it is '
         'endpoint_override or http://127.0.0.1:9696.')

network_opts = [
    cfg.HostAddressOpt('bind_host', default='0.0.0.0',
                       help='Address the network daemon listens on.'),
    cfg.PortOpt('bind_port', default=9696,
                help='Port the network daemon listens on.'),
    # -- the network daemon ---------------------------------------------------
    cfg.IntOpt('agent_down_time', default=75, min=1,
               help='Read by nova-lite-network: seconds after its last '
                    'report that an agent counts as dead. No port binds '
                    'to a host whose agent is dead (its binding:vif_type '
                    'is binding_failed). Keep it above twice the interval '
                    'at which the computes report (the compute\'s '
                    'periodic task).'),
    cfg.IntOpt('default_mtu', default=1500, min=68,
               help='Read by nova-lite-network: MTU of a network created '
                    'without one.'),
    # -- each compute, as its host's agent ------------------------------------
    cfg.ListOpt('bridge_mappings', default=['physnet0:br-ex'],
                help='Read by nova-lite-compute: the physical networks '
                     'this host is wired to, each "physnet:bridge". Ports '
                     'of a flat or VLAN network on physical network P bind '
                     'only to hosts that list P here or in bandwidths. The '
                     'default lets the quick start\'s physnet0 networks '
                     'bind on every compute; set it to what each host is '
                     'really wired to (empty: none, only tunnelled '
                     'networks).'),
    cfg.ListOpt('bandwidths', default=[],
                help='Read by nova-lite-compute: guaranteed bandwidth this '
                     'host offers on each physical network, each '
                     '"physnet:egress_kbps:ingress_kbps" (0 for a '
                     'direction it does not guarantee), e.g. '
                     '"physnet0:1000000:1000000". The network service makes '
                     'a child resource provider of this host\'s compute '
                     'node in placement for each, with NET_BW_EGR_KILOBIT_'
                     'PER_SEC and NET_BW_IGR_KILOBIT_PER_SEC inventory, so '
                     'ports with a minimum bandwidth QoS rule are '
                     'scheduled to it. A physical network listed here is '
                     'served by this host even if bridge_mappings does not '
                     'name it. Empty: no bandwidth is guaranteed.'),
]


def register_opts(conf):
    conf.register_group(network_group)
    conf.register_opts(network_opts, group=network_group)
    service_client.register_opts(conf, network_group.name, SERVICE_TYPE)


def list_opts():
    return {network_group: network_opts + service_client.list_opts(
        network_group.name, SERVICE_TYPE)}
