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
    cfg.IntOpt('max_placement_results',
               default=1000, min=1,
               help='Most allocation candidates the scheduler asks placement '
                    'for per request; only hosts among them are filtered and '
                    'weighed. Lower it on very large clouds to schedule '
                    'faster, at the price of a narrower choice.'),
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
                default=['ComputeFilter', 'RetryFilter',
                         'AvailabilityZoneFilter', 'RamFilter', 'CoreFilter',
                         'DiskFilter', 'ImagePropertiesFilter',
                         'ServerGroupAntiAffinityFilter',
                         'ServerGroupAffinityFilter'],
                help='Filters applied in this order; each removes the hosts '
                     'that cannot take the instance. Known: '
                     'AggregateInstanceExtraSpecsFilter, '
                     'AvailabilityZoneFilter, ComputeFilter, CoreFilter, '
                     'DifferentHostFilter, DiskFilter, '
                     'ImagePropertiesFilter, RamFilter, RetryFilter, '
                     'SameHostFilter, ServerGroupAffinityFilter, '
                     'ServerGroupAntiAffinityFilter. A group with a hard '
                     'policy is refused when its filter is not enabled. '
                     'An unknown name stops the scheduler at start.'),
    cfg.ListOpt('weight_classes',
                default=['RAMWeigher', 'CPUWeigher', 'DiskWeigher',
                         'IoOpsWeigher', 'NumInstancesWeigher',
                         'BuildFailureWeigher',
                         'ServerGroupSoftAffinityWeigher',
                         'ServerGroupSoftAntiAffinityWeigher'],
                help='Weighers that rank the hosts that passed the filters. '
                     'Each weigher\'s values are normalised to 0..1 and '
                     'multiplied by its multiplier. A group with a soft '
                     'policy is refused when its weigher is not enabled. '
                     'An unknown name stops the scheduler at start.'),
    cfg.IntOpt('host_subset_size',
               default=1, min=1,
               help='The host is chosen at random among the best '
                    'host_subset_size hosts. Values above 1 spread '
                    'concurrent requests of several schedulers.'),
    cfg.FloatOpt('ram_weight_multiplier', mutable=True,
                 default=1.0,
                 help='Multiplier of the RAM weigher. Positive spreads '
                      'instances on hosts with more free RAM, negative '
                      'stacks them.'),
    cfg.FloatOpt('cpu_weight_multiplier', mutable=True,
                 default=1.0,
                 help='Multiplier of the CPU weigher. Positive spreads '
                      'instances on hosts with more free vCPUs.'),
    cfg.FloatOpt('disk_weight_multiplier', mutable=True,
                 default=1.0,
                 help='Multiplier of the disk weigher. Positive spreads '
                      'instances on hosts with more free disk.'),
    cfg.FloatOpt('io_ops_weight_multiplier', mutable=True,
                 default=-1.0,
                 help='Multiplier of the I/O operations weigher (builds, '
                      'resizes, migrations in progress). Negative prefers '
                      'idle hosts.'),
    cfg.FloatOpt('num_instances_weight_multiplier', mutable=True,
                 default=0.0,
                 help='Multiplier of the instance count weigher. Negative '
                      'prefers hosts with fewer instances, positive packs; '
                      '0 ignores the count.'),
    cfg.FloatOpt('build_failure_weight_multiplier', mutable=True,
                 default=1000000.0,
                 help='Multiplier of the build failure weigher: how hard '
                      'hosts with recent failed builds are avoided. The '
                      'large default outweighs every other weigher; 0 '
                      'ignores failures.'),
    cfg.FloatOpt('soft_affinity_weight_multiplier', mutable=True,
                 default=10.0, min=0.0,
                 help='Multiplier of the soft-affinity weigher: how '
                      'strongly members of a soft-affinity group are '
                      'stacked on the hosts the group already uses. The '
                      'default outweighs the spreading resource weighers '
                      '(1.0 each), so the group stays together while its '
                      'hosts have room.'),
    cfg.FloatOpt('soft_anti_affinity_weight_multiplier', mutable=True,
                 default=10.0, min=0.0,
                 help='Multiplier of the soft-anti-affinity weigher: how '
                      'strongly members of a soft-anti-affinity group are '
                      'spread over hosts without members. The default '
                      'outweighs the resource weighers, which could '
                      'otherwise stack members on the emptiest host.'),
]


def register_opts(conf):
    conf.register_group(scheduler_group)
    conf.register_opts(scheduler_opts, group=scheduler_group)
    conf.register_group(filter_scheduler_group)
    conf.register_opts(filter_scheduler_opts, group=filter_scheduler_group)


def list_opts():
    return {scheduler_group: scheduler_opts,
            filter_scheduler_group: filter_scheduler_opts}
