"""[compute]: the compute daemon, its resource tracker and the fake driver."""

from oslo_config import cfg
from oslo_config import types

# Disk formats a driver may support (each has a COMPUTE_IMAGE_TYPE_ trait).
IMAGE_TYPES = ('aki', 'ami', 'ari', 'iso', 'qcow2', 'raw', 'vdi', 'vhd',
               'vhdx', 'vmdk', 'ploop')

compute_group = cfg.OptGroup(
    'compute', title='Compute',
    help='The nova-lite-compute daemon. Its virt driver is the fake driver, '
         'whose capacity is set here so that one machine can run many '
         'computes, each with its own [DEFAULT] host.')

compute_opts = [
    cfg.IntOpt('fake_vcpus', default=16, min=1,
               help='Physical CPUs the fake driver reports.'),
    cfg.IntOpt('fake_memory_mb', default=32768, min=1,
               help='Memory in MB the fake driver reports.'),
    cfg.IntOpt('fake_local_gb', default=1000, min=1,
               help='Local disk in GB the fake driver reports.'),
    cfg.StrOpt('fake_hypervisor_hostname',
               help='Hypervisor (node) name the fake driver reports. '
                    'Default: the [DEFAULT] host.'),
    cfg.IntOpt('fake_pci_devices', default=0, min=0,
               help='Generic (type-PCI) passthrough devices the fake driver '
                    'reports; reported to placement as PCI_DEVICE '
                    'inventory. A flavor asks for them with the extra spec '
                    'pci_passthrough:alias = "NAME:COUNT[,NAME:COUNT]".'),
    cfg.FloatOpt('fake_spawn_seconds', default=0.0, min=0.0,
                 help='Seconds a fake spawn takes.'),
    cfg.ListOpt('fake_fail_spawn_for', default=[],
                help='Failure injection: instance names (or "*") whose '
                     'spawn fails on this compute, so operators and tests '
                     'can watch a reschedule.'),
    cfg.FloatOpt('fake_live_migration_seconds', default=0.0, min=0.0,
                 help='Seconds the fake driver takes to transfer a live '
                      'migrating server (progress is reported on the way; '
                      '0 is instant).'),
    cfg.ListOpt('fake_fail_live_migration_for', default=[],
                help='Failure injection: instance names (or "*") whose live '
                     'migration transfer fails when this compute is the '
                     'source.'),
    cfg.Opt('fake_live_migration_check_seconds', default={},
            type=types.Dict(value_type=types.Float(min=0)),
            help='Failure injection: {instance name: seconds} the '
                 'pre-check of a live migration of that server to this '
                 'compute takes, so a test can act on the server (delete '
                 'it) while the conductor prepares the move.'),
    cfg.BoolOpt('fake_refuse_live_migration', default=False,
                help='Failure injection: this compute answers every live '
                     'migration pre-check as a destination with a refusal, '
                     'so the conductor\'s reschedule loop can be watched.'),
    cfg.FloatOpt('fake_resize_seconds', default=0.0, min=0.0,
                 help='How long the fake driver takes to send a resized or '
                      'cold migrated guest\'s disks to the destination, so '
                      'a resize can be watched, or cut off, on its way.'),
    cfg.BoolOpt('fake_refuse_resize', default=False,
                help='Failure injection: this compute refuses every resize '
                     'and cold migration it is asked to take as a '
                     'destination, so the conductor\'s reschedule to the '
                     'alternates can be watched.'),
    cfg.ListOpt('fake_supported_instances', default=['x86_64/fake/hvm'],
                item_type=types.String(regex=r'^[^/]+/[^/]+/[^/]+$'),
                help='The kinds of guest the fake driver runs, each '
                     'ARCHITECTURE/HYPERVISOR_TYPE/VM_MODE (as Nova\'s fake '
                     'driver: x86_64/fake/hvm). Reported in the compute '
                     'node\'s stats; the ImagePropertiesFilter matches an '
                     'image\'s hw_architecture, img_hv_type and hw_vm_mode '
                     'against them.'),
    cfg.ListOpt('fake_image_types', default=['raw', 'qcow2'],
                item_type=types.String(choices=IMAGE_TYPES),
                help='Disk formats the fake driver can boot. Each is '
                     'reported as the trait COMPUTE_IMAGE_TYPE_<FORMAT> on '
                     'the compute node\'s resource provider (and the other '
                     'formats\' traits are removed), which the scheduler\'s '
                     'image type pre-filter asks placement for. The default '
                     'is the usual libvirt set; Nova\'s fake driver has raw '
                     'only.'),
    cfg.IntOpt('consecutive_build_service_disable_threshold', default=10,
               min=0,
               help='Any nonzero value makes this compute count its '
                    'consecutive failed builds (a success starts again '
                    'from 0) and report them to the scheduler, whose '
                    'BuildFailureWeigher ([filter_scheduler] '
                    'build_failure_weight_multiplier) then prefers other '
                    'hosts. 0 stops the counting. As in Nova 34, the '
                    'service is not disabled whatever the count.'),
    cfg.IntOpt('max_concurrent_builds', default=10, min=1,
               help='Builds this compute runs at once; more wait.'),
    cfg.IntOpt('update_resources_interval', default=60, min=1,
               help='Seconds between two runs of the resource tracker '
                    'audit (update_available_resource).'),
    cfg.IntOpt('resource_provider_association_refresh', default=300,
               min=0, mutable=True,
               help='Seconds this compute trusts what it last read from, or '
                    'wrote to, placement about its node\'s resource '
                    'provider -- that it exists, its inventory, its traits, '
                    'its aggregates and the sharing providers in them -- '
                    'before its audit reads them all again. Meanwhile an '
                    'idle audit asks placement nothing about the provider '
                    'and writes only what changed here (the driver\'s '
                    'resources, the reserved amounts, the disk formats, the '
                    'service being disabled). So a change made in placement '
                    'by someone else (an aggregate, a sharing provider, a '
                    'trait removed, the provider deleted) is seen within '
                    'this many seconds; any request about the provider that '
                    'fails makes the next audit read it all at once. The '
                    'compute service\'s disabled status is read again as '
                    'often (at once when the API tells the compute of a '
                    'change). 0 turns the periodic refresh off (as in '
                    'Nova): only a failure or a restart reads them again.'),
    cfg.IntOpt('shelved_offload_time', default=0, min=-1,
               help='Seconds a shelved server keeps its host (and its '
                    'resources there) before it is offloaded; 0 offloads '
                    'at once, -1 never (only shelveOffload does). '
                    'Offloading frees the host\'s allocation and unbinds '
                    'the ports.'),
    cfg.IntOpt('conductor_wait_seconds', default=60, min=0,
               help='At start, seconds the compute waits for a conductor to '
                    'answer before giving up (0: forever).'),
    cfg.IntOpt('interrupted_task_timeout', default=300, min=0,
               help='Seconds after which this compute finishes or undoes '
                    'the task of a server on this host that nothing here '
                    'is working on: a delete, stop, start, shelve or '
                    'rebuild whose message was lost, or a live migration '
                    'whose conductor died before sending it here. (Work '
                    'that a restart of this compute cut off is resolved '
                    'when it starts, without waiting.) Must exceed how '
                    'long a message may wait in the queue while this '
                    'compute is busy. 0 turns it off.'),
    cfg.IntOpt('recovery_interval', default=60, min=0,
               help='Seconds between two looks for interrupted tasks (see '
                    'interrupted_task_timeout): a task is resolved between '
                    'the timeout and the timeout plus this. Each look is '
                    'two conductor calls per compute. 0 turns it off.'),
]


def register_opts(conf):
    conf.register_group(compute_group)
    conf.register_opts(compute_opts, group=compute_group)


def list_opts():
    return {compute_group: compute_opts}
