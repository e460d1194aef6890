"""[placement]: the placement daemon and how the others reach it."""

from oslo_config import cfg

from nova_lite.conf import service_client

SERVICE_TYPE = 'placement'
# Where the services find placement under noauth2 without an
# endpoint_override: this host's placement daemon.
DEFAULT_ENDPOINT = 'http://127.0.0.1:8778'

placement_group = cfg.OptGroup(
    'placement', title='Placement',
    help='The nova-lite-placement daemon (Placement API), and how the '
         'other services call it: keystoneauth1\'s auth, session and adapter '
         'options (auth_type, auth_url, username, ..., valid_interfaces, '
         'region_name, endpoint_override). The endpoint is found in the '
         'service catalog (service type placement) unless endpoint_override '
         'names it, so another Placement API service is used by '
         'cataloguing or naming it. With auth_type = noauth2 (the quick '
         'start) the services claim the user admin, and the endpoint is '
         'endpoint_override or http://127.0.0.1:8778.')

placement_opts = [
    cfg.HostAddressOpt('bind_host', default='0.0.0.0',
                       help='Address the placement daemon listens on.'),
    cfg.PortOpt('bind_port', default=8778,
                help='Port the placement daemon listens on.'),
    cfg.BoolOpt('randomize_allocation_candidates', default=False,
                help='How the placement daemon picks the allocation '
                     'candidates it answers when a request\'s limit is '
                     'smaller than the number that fit: False takes them '
                     'in a fixed order (by provider), so the same request '
                     'gets the same candidates; True takes a random '
                     'sample, so that several schedulers asking for few '
                     'candidates (a low [scheduler] max_placement_results) '
                     'do not all crowd onto the same providers. Without a '
                     'limit every candidate is answered either way.'),
    cfg.IntOpt('max_allocation_candidates', default=100000, min=-1,
               help='The most allocation candidates the placement daemon '
                    'makes for one request, whatever its limit (-1: no '
                    'cap). A request whose groups can be met in many ways '
                    'on wide provider trees (several children with the '
                    'same class, such as GPUs or PCI devices) multiplies '
                    'into millions of combinations; the cap bounds the '
                    'memory and time one request may take. Lower it when '
                    'clients time out on such requests, and consider '
                    'allocation_candidates_generation_strategy = '
                    'breadth-first so that the candidates still come from '
                    'many trees.'),
    cfg.StrOpt('allocation_candidates_generation_strategy',
               default='depth-first',
               choices=[('depth-first', 'Every candidate of one provider '
                         'tree before the next tree.'),
                        ('breadth-first', 'One candidate of each tree in '
                         'turn, so that a cap or a limit leaves candidates '
                         'from as many trees as possible.')],
               help='The order in which the placement daemon makes the '
                    'candidates of a request from the provider trees that '
                    'fit. Either way the order is fixed: the same request '
                    'gets the same candidates.'),
]


def register_opts(conf):
    conf.register_group(placement_group)
    conf.register_opts(placement_opts, group=placement_group)
    service_client.register_opts(conf, placement_group.name, SERVICE_TYPE)


def list_opts():
    return {placement_group: placement_opts + service_client.list_opts(
        placement_group.name, SERVICE_TYPE)}
