"""[scheduler] and [filter_scheduler]: how destinations are selected."""

from oslo_config import cfg

scheduler_group = cfg.OptGroup(
    'scheduler', title='Scheduler',
    help='The nova-lite-scheduler daemon and scheduling retries.')

scheduler_opts = [
    cfg.IntOpt('max_attempts',
               default=3, min=1,
               help='Hosts tried for one instance build: the selected host '
                    'plus max_attempts - 1 alternates. A failed spawn is '
                    'rescheduled to the next alternate until none is left.'),
    cfg.IntOpt('discover_hosts_in_cells_interval',
               default=-1, min=-1,
               help='Seconds between two automatic runs of cell_v2 '
                    'discover_hosts by the scheduler (maps new computes to '
                    'their cell). -1 disables it; then run nova-lite-manage '
                    'cell_v2 discover_hosts after adding computes.'),
    cfg.IntOpt('periodic_task_interval',
               default=60, min=1,
               help='Seconds between two runs of the scheduler periodic '
                    'tasks.'),
]

filter_scheduler_group = cfg.OptGroup(
    'filter_scheduler', title='Filter scheduler',
    help='Filters and weighers of select_destinations.')

filter_scheduler_opts = [
    cfg.ListOpt('enabled_filters',
                default=['ComputeFilter', 'RamFilter', 'CoreFilter',
                         'DiskFilter'],
                help='Filters applied in this order; each removes the hosts '
                     'that cannot take the instance. An unknown name stops '
                     'the scheduler at start.'),
    cfg.ListOpt('weight_classes',
                default=['RAMWeigher', 'CPUWeigher', 'DiskWeigher'],
                help='Weighers that rank the hosts that passed the filters. '
                     'Each weigher\'s values are normalised to 0..1 and '
                     'multiplied by its multiplier; an unknown name stops '
                     'the scheduler at start.'),
    cfg.IntOpt('host_subset_size',
               default=1, min=1,
               help='The host is chosen at random among the best '
                    'host_subset_size hosts. Values above 1 spread '
                    'concurrent requests of several schedulers.'),
    cfg.FloatOpt('ram_weight_multiplier',
                 default=1.0,
                 help='Multiplier of the RAM weigher. Positive spreads '
                      'instances on hosts with more free RAM, negative '
                      'stacks them.'),
    cfg.FloatOpt('cpu_weight_multiplier',
                 default=1.0,
                 help='Multiplier of the CPU weigher. Positive spreads '
                      'instances on hosts with more free vCPUs.'),
    cfg.FloatOpt('disk_weight_multiplier',
                 default=1.0,
                 help='Multiplier of the disk weigher. Positive spreads '
                      'instances on hosts with more free disk.'),
]


def register_opts(conf):
    conf.register_group(scheduler_group)
    conf.register_opts(scheduler_opts, group=scheduler_group)
    conf.register_group(filter_scheduler_group)
    conf.register_opts(filter_scheduler_opts, group=filter_scheduler_group)


def list_opts():
    return {scheduler_group: scheduler_opts,
            filter_scheduler_group: filter_scheduler_opts}
