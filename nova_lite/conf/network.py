"""[network]: the port service daemon and how the others reach it."""

from oslo_config import cfg

network_group = cfg.OptGroup(
    'network', title='Network',
    help='The nova-lite-network daemon (a subset of the Networking '
         'service\'s port API) and the endpoint the other services use.')

network_opts = [
    cfg.HostAddressOpt('bind_host', default='0.0.0.0',
                       help='Address the network daemon listens on.'),
    cfg.PortOpt('bind_port', default=9696,
                help='Port the network daemon listens on.'),
    cfg.URIOpt('endpoint', default='http://127.0.0.1:9696',
               help='URL of the port API that clients use.'),
    cfg.StrOpt('auth_token', default='admin', secret=True,
               help='X-Auth-Token services send to the port API in noauth2 '
                    'mode.'),
    cfg.FloatOpt('timeout', default=30.0, min=0.1,
                 help='Seconds a request to the port API may take.'),
]


def register_opts(conf):
    conf.register_group(network_group)
    conf.register_opts(network_opts, group=network_group)


def list_opts():
    return {network_group: network_opts}
