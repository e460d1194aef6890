"""[placement]: the placement daemon and how the others reach it."""

from oslo_config import cfg

placement_group = cfg.OptGroup(
    'placement', title='Placement',
    help='The nova-lite-placement daemon (Placement API) and the endpoint '
         'computes and the scheduler use to reach it. Pointing endpoint at '
         'another Placement API service is enough to use that one.')

placement_opts = [
    cfg.HostAddressOpt('bind_host', default='0.0.0.0',
                       help='Address the placement daemon listens on.'),
    cfg.PortOpt('bind_port', default=8778,
                help='Port the placement daemon listens on.'),
    cfg.URIOpt('endpoint', default='http://127.0.0.1:8778',
               help='URL of the Placement API that clients use.'),
    cfg.StrOpt('auth_token', default='admin', secret=True,
               help='X-Auth-Token services send to the Placement API in '
                    'noauth2 mode.'),
    cfg.FloatOpt('timeout', default=30.0, min=0.1,
                 help='Seconds a request to the Placement API may take.'),
]


def register_opts(conf):
    conf.register_group(placement_group)
    conf.register_opts(placement_opts, group=placement_group)


def list_opts():
    return {placement_group: placement_opts}
