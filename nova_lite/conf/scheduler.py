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
    # The request pre-filters (nova_lite.scheduler.request_filter): they
    # narrow the placement query before max_placement_results applies.
    cfg.BoolOpt('limit_tenants_to_placement_aggregate',
                default=False,
                help='Confine a project to the host aggregates dedicated '
                     'to it: an aggregate whose metadata has a key '
                     'starting with filter_tenant_id (filter_tenant_id, '
                     'filter_tenant_id2, ...) whose value is the '
                     'project\'s id. When such aggregates exist, placement '
                     'is asked only for hosts in one of them (the host '
                     'aggregates are mirrored into placement aggregates of '
                     'the same uuid; run nova-lite-manage placement '
                     'sync_aggregates for aggregates older than the '
                     'mirroring). A project with no such aggregate '
                     'schedules anywhere, unless '
                     'placement_aggregate_required_for_tenants is set. '
                     'Other projects are not kept out of these '
                     'aggregates.'),
    cfg.BoolOpt('placement_aggregate_required_for_tenants',
                default=False,
                help='With limit_tenants_to_placement_aggregate: a project '
                     'that has no aggregate of its own (filter_tenant_id* '
                     'metadata) gets no host at all (NoValidHost) instead '
                     'of any host. Set it when every project is meant to '
                     'be confined to its aggregates.'),
    cfg.BoolOpt('query_placement_for_image_type_support',
                default=False,
                help='Ask placement only for hosts whose compute reports '
                     'the trait COMPUTE_IMAGE_TYPE_<FORMAT> of the image\'s '
                     'disk format (the image property disk_format; an '
                     'image without one, and a boot from volume, are not '
                     'narrowed). Enable it once every compute reports its '
                     'image types, or hosts that do not report them get '
                     'nothing.'),
    cfg.BoolOpt('enable_isolated_aggregate_filtering',
                default=False,
                help='Keep out of an aggregate every request that does not '
                     'ask for the traits the aggregate requires: an '
                     'aggregate with metadata trait:<TRAIT>=required '
                     'takes only servers whose flavor extra specs or image '
                     'properties have trait:<TRAIT>=required too. Placement '
                     'is asked for hosts outside the other aggregates '
                     '(member_of=!in:...).'),
    cfg.BoolOpt('image_metadata_prefilter',
                default=False,
                help='Ask placement only for hosts whose compute reports '
                     'the traits the image\'s hardware properties name: '
                     'hw_cdrom_bus and hw_disk_bus (COMPUTE_STORAGE_BUS_*), '
                     'hw_video_model (COMPUTE_GRAPHICS_MODEL_*), '
                     'hw_vif_model (COMPUTE_NET_VIF_MODEL_*), '
                     'hw_architecture (HW_ARCH_*), '
                     'hw_emulation_architecture (COMPUTE_ARCH_*) and '
                     'hw_viommu_model (COMPUTE_VIOMMU_*). A value no '
                     'standard trait names narrows nothing (and is '
                     'logged).'),
]

filter_scheduler_group = cfg.OptGroup(
    'filter_scheduler', title='Filter scheduler',
    help='Filters and weighers of select_destinations.')

filter_scheduler_opts = [
    cfg.ListOpt('enabled_filters',
                default=['ComputeFilter', 'ComputeCapabilitiesFilter',
                         'ImagePropertiesFilter',
                         'ServerGroupAntiAffinityFilter',
                         'ServerGroupAffinityFilter'],
                help='Filters applied in this order; each removes the hosts '
                     'that cannot take the instance. The default is Nova '
                     '34\'s: placement has already narrowed the hosts to '
                     'those with room, in the requested zone, enabled '
                     '(the request pre-filters), so RamFilter, CoreFilter, '
                     'DiskFilter and AvailabilityZoneFilter are only '
                     'needed to be stricter than placement (the last one '
                     'keeps a request for the default zone off the hosts '
                     'of other zones, which placement does not). Known: '
                     'AggregateInstanceExtraSpecsFilter, '
                     'AggregateIoOpsFilter, AggregateNumInstancesFilter, '
                     'AllHostsFilter, AvailabilityZoneFilter, '
                     'ComputeCapabilitiesFilter, ComputeFilter, CoreFilter, '
                     'DifferentHostFilter, DiskFilter, '
                     'ImagePropertiesFilter, IoOpsFilter, '
                     'NumInstancesFilter, RamFilter, RetryFilter, '
                     'SameHostFilter, ServerGroupAffinityFilter, '
                     'ServerGroupAntiAffinityFilter. A group with a hard '
                     'policy is refused when its filter is not enabled. '
                     'An unknown name stops the scheduler at start.'),
    cfg.ListOpt('weight_classes',
                default=['all_weighers'],
                help='Weighers that rank the hosts that passed the filters, '
                     'by name (Nova\'s class paths are accepted), or '
                     'all_weighers for every one: BuildFailureWeigher, '
                     'CPUWeigher, DiskWeigher, HypervisorVersionWeigher, '
                     'IoOpsWeigher, NumInstancesWeigher, RAMWeigher, '
                     'ServerGroupSoftAffinityWeigher, '
                     'ServerGroupSoftAntiAffinityWeigher. Each weigher\'s '
                     'values are normalised to 0..1 and multiplied by its '
                     'multiplier, which an aggregate\'s metadata of the '
                     'option\'s name overrides for its hosts. A group with '
                     'a soft policy is refused when its weigher is not '
                     'enabled. An unknown name stops the scheduler at '
                     'start.'),
    cfg.IntOpt('host_subset_size',
               default=1, min=1,
               help='The host is chosen at random among the best '
                    'host_subset_size hosts. Values above 1 spread '
                    'concurrent requests of several schedulers.'),
    cfg.BoolOpt('shuffle_best_same_weighed_hosts',
                default=False,
                help='Shuffle the hosts that share the best weight before '
                     'one is chosen, so that equal hosts (an empty cloud of '
                     'identical computes) are not always taken in the same '
                     'order. Mostly useful when host_subset_size is 1.'),
    cfg.IntOpt('max_io_ops_per_host',
               default=8, min=0,
               help='IoOpsFilter: a host with this many I/O-heavy '
                    'operations in progress (builds, resizes, rebuilds, '
                    'snapshots, unshelves, rescues) takes no more. '
                    'AggregateIoOpsFilter lets an aggregate\'s '
                    'max_io_ops_per_host metadata override it.'),
    cfg.IntOpt('max_instances_per_host',
               default=50, min=1,
               help='NumInstancesFilter: a host with this many instances '
                    'takes no more. AggregateNumInstancesFilter lets an '
                    'aggregate\'s max_instances_per_host metadata override '
                    'it.'),
    cfg.StrOpt('image_properties_default_architecture',
               help='ImagePropertiesFilter: the architecture assumed for an '
                    'image that sets no hw_architecture (x86_64, aarch64, '
                    '...). Unset: such an image runs anywhere unless it asks '
                    'for a hypervisor type or VM mode.'),
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
    cfg.FloatOpt('hypervisor_version_weight_multiplier', mutable=True,
                 default=1.0,
                 help='Multiplier of the hypervisor version weigher. '
                      'Positive prefers hosts running a newer hypervisor, '
                      'negative an older one.'),
    cfg.FloatOpt('soft_affinity_weight_multiplier', mutable=True,
                 default=1.0, min=0.0,
                 help='Multiplier of the soft-affinity weigher: how '
                      'strongly members of a soft-affinity group are '
                      'stacked on the hosts the group already uses. At the '
                      'default it counts as much as one resource weigher; '
                      'raise it to keep the group together against the '
                      'spreading resource weighers.'),
    cfg.FloatOpt('soft_anti_affinity_weight_multiplier', mutable=True,
                 default=1.0, min=0.0,
                 help='Multiplier of the soft-anti-affinity weigher: how '
                      'strongly members of a soft-anti-affinity group are '
                      'spread over hosts without members. At the default it '
                      'counts as much as one resource weigher; raise it to '
                      'spread the group against the resource weighers.'),
]


def register_opts(conf):
    conf.register_group(scheduler_group)
    conf.register_opts(scheduler_opts, group=scheduler_group)
    conf.register_group(filter_scheduler_group)
    conf.register_opts(filter_scheduler_opts, group=filter_scheduler_group)


def list_opts():
    return {scheduler_group: scheduler_opts,
            filter_scheduler_group: filter_scheduler_opts}
