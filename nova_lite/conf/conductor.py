"""[conductor]: the conductor daemon."""

from oslo_config import cfg

conductor_group = cfg.OptGroup(
    'conductor', title='Conductor',
    help='The nova-lite-conductor daemon, which orchestrates builds and '
         'moves and persists objects for computes.')

conductor_opts = [
    cfg.IntOpt('workers', default=16, min=1,
               help='RPC requests one conductor handles at once.'),
    cfg.IntOpt('scheduler_call_timeout', default=60, min=1,
               help='Seconds the conductor waits for select_destinations '
                    'before the build fails with a fault.'),
]


def register_opts(conf):
    conf.register_group(conductor_group)
    conf.register_opts(conductor_opts, group=conductor_group)


def list_opts():
    return {conductor_group: conductor_opts}
