"""Seeded random scheduling cases in ``scheduler simulate``'s format.

Each case is made from its own ``random.Random(seed)``, so a case is
reproduced from its seed alone. Standard library only: both nova_lite's
python and the Nova 34 virtualenv's can import it.

What varies: the number of hosts, their sizes and usage (often equal, so
that ties are exercised), allocation ratios and reserved amounts (given or
left to the defaults), I/O operations, instance counts, failed builds,
hypervisor versions, supported instances, traits, disabled / down /
forced-down services; availability zones (aggregates with
``availability_zone`` metadata) and other aggregates (extra-spec metadata,
per-aggregate weight multipliers, I/O and instance limits); server groups
of the four policies with members already on hosts; scheduler hints
(same_host, different_host); multi-instance requests; image properties
(hw_architecture, img_hv_type, hw_vm_mode, img_hv_requested_version; a
disk_format always); ignored and forced hosts, a requested destination;
and options (enabled_filters, weight multipliers, max_attempts,
max_placement_results, max_io_ops_per_host, max_instances_per_host, the
request pre-filters that are off by default: tenant aggregates, image
type support, image properties as traits).
``host_subset_size`` stays 1: the choice is the best host, not a random
one among the best.
"""

import random

# Nova 34's [filter_scheduler] enabled_filters default.
DEFAULT_FILTERS = ['ComputeFilter', 'ComputeCapabilitiesFilter',
                   'ImagePropertiesFilter', 'ServerGroupAntiAffinityFilter',
                   'ServerGroupAffinityFilter']
OPTIONAL_FILTERS = ['SameHostFilter', 'DifferentHostFilter',
                    'AggregateInstanceExtraSpecsFilter', 'IoOpsFilter',
                    'AggregateIoOpsFilter', 'NumInstancesFilter',
                    'AggregateNumInstancesFilter']
WEIGHERS = ['RAMWeigher', 'CPUWeigher', 'DiskWeigher', 'IoOpsWeigher',
            'NumInstancesWeigher', 'BuildFailureWeigher',
            'HypervisorVersionWeigher', 'ServerGroupSoftAffinityWeigher',
            'ServerGroupSoftAntiAffinityWeigher']
MULTIPLIERS = {
    'ram_weight_multiplier': [1.0, -1.0, 2.0, 0.0],
    'cpu_weight_multiplier': [1.0, -1.0, 0.5, 0.0],
    'disk_weight_multiplier': [1.0, -1.0, 3.0, 0.0],
    'io_ops_weight_multiplier': [-1.0, 1.0, -5.0, 0.0],
    'num_instances_weight_multiplier': [0.0, -1.0, 1.0],
    'build_failure_weight_multiplier': [1000000.0, 1.0, 0.0],
    'hypervisor_version_weight_multiplier': [1.0, -1.0, 0.0, 10.0],
    'soft_affinity_weight_multiplier': [1.0, 10.0, 0.5],
    'soft_anti_affinity_weight_multiplier': [1.0, 10.0, 0.5],
}
POLICIES = ['affinity', 'anti-affinity', 'soft-affinity',
            'soft-anti-affinity']
FLAVORS = [  # (vcpus, memory_mb, root_gb)
    (1, 512, 1), (2, 2048, 20), (4, 8192, 40), (8, 16384, 80),
    (16, 65536, 200)]
SUPPORTED = [
    [['x86_64', 'qemu', 'hvm'], ['i686', 'qemu', 'hvm']],
    [['x86_64', 'kvm', 'hvm']],
    [['aarch64', 'qemu', 'hvm']],
    [],
]
# [scheduler] switches of request pre-filters that are off by default.
PREFILTER_OPTIONS = ['limit_tenants_to_placement_aggregate',
                     'query_placement_for_image_type_support',
                     'image_metadata_prefilter']
TRAITS = ['HW_CPU_X86_AVX2', 'CUSTOM_GOLD', 'COMPUTE_IMAGE_TYPE_QCOW2',
          'COMPUTE_IMAGE_TYPE_RAW', 'HW_ARCH_X86_64']
HYPERVISOR_VERSIONS = [6002000, 7000000, 8002000, 9001000]


def host_row(rng, name, size=None, busy=True):
    """One host: its size from ``size`` (vcpus, memory_mb, local_gb) or
    drawn, its usage drawn when ``busy``."""
    vcpus, memory, disk = size or (
        rng.choice([8, 16, 32, 64]),
        rng.choice([8192, 16384, 32768, 65536, 131072]),
        rng.choice([100, 200, 500, 1000]))
    row = {'host': name, 'vcpus': vcpus, 'memory_mb': memory,
           'local_gb': disk}
    reserved_mb, reserved_cpus, reserved_disk_mb = 512, 0, 0
    if rng.random() < 0.2:
        reserved_mb = rng.choice([0, 512, 2048])
        reserved_cpus = rng.choice([0, 1, 2])
        reserved_disk_mb = rng.choice([0, 1024, 10240])
        row.update(reserved_host_memory_mb=reserved_mb,
                   reserved_host_cpus=reserved_cpus,
                   reserved_host_disk_mb=reserved_disk_mb)
    if rng.random() < 0.6:
        row.update(cpu_allocation_ratio=rng.choice([1.0, 2.0, 4.0, 16.0]),
                   ram_allocation_ratio=rng.choice([1.0, 1.5]),
                   disk_allocation_ratio=rng.choice([1.0, 2.0]))
    if busy:
        # Round figures, so that hosts often weigh the same.
        row['vcpus_used'] = reserved_cpus + rng.randint(0, vcpus * 2)
        row['free_ram_mb'] = memory - reserved_mb - 1024 * rng.randint(
            0, (memory - reserved_mb) // 1024)
        reserved_gb = -(-reserved_disk_mb // 1024)
        row['free_disk_gb'] = disk - reserved_gb - 10 * rng.randint(
            0, (disk - reserved_gb) // 10)
        row['num_io_ops'] = rng.randint(0, 10)
        row['num_instances'] = rng.randint(0, 40)
        row['failed_builds'] = (0 if rng.random() < 0.85
                                else rng.randint(1, 3))
    row['hypervisor_type'] = 'QEMU'
    row['hypervisor_version'] = rng.choice(HYPERVISOR_VERSIONS)
    row['supported_instances'] = rng.choice(SUPPORTED)
    if rng.random() < 0.3:
        row['traits'] = sorted(rng.sample(TRAITS, rng.randint(1, 2)))
    service = {}
    if rng.random() < 0.05:
        service['disabled'] = True
        service['disabled_reason'] = 'maintenance'
    if rng.random() < 0.05:
        service['up'] = False
    if rng.random() < 0.02:
        service['forced_down'] = True
    if service:
        row['service'] = service
    instances = ['vm-%s-%d' % (name, k) for k in range(rng.randint(0, 3))]
    if instances:
        row['instances'] = instances
    return row


def _aggregates(rng, names):
    """(zone aggregates, other aggregates) over the host ``names``."""
    zones = []
    for k in range(rng.choice([0, 0, 1, 2, 3])):
        zones.append({'name': 'zone%d' % k,
                      'metadata': {'availability_zone': 'az%d' % k},
                      'hosts': []})
    if zones:
        for name in names:
            if rng.random() < 0.8:
                rng.choice(zones)['hosts'].append(name)
    others = []
    for k in range(rng.choice([0, 0, 1, 2])):
        metadata = rng.choice([
            {'ssd': 'true'},
            {'ram_weight_multiplier': rng.choice(['-1.0', '2.0', '0'])},
            {'cpu_weight_multiplier': rng.choice(['-1.0', '3.0'])},
            {'io_ops_weight_multiplier': '2.0', 'ssd': 'false'},
            {'soft_anti_affinity_weight_multiplier': '5.0'},
            {'max_io_ops_per_host': rng.choice(['2', '5'])},
            {'max_instances_per_host': rng.choice(['10', '30'])},
            {'filter_tenant_id': rng.choice(['demo', 'other'])},
        ])
        others.append({'name': 'agg%d' % k, 'metadata': metadata,
                       'hosts': [n for n in names if rng.random() < 0.3]})
    return zones, others


def _config(rng):
    config = {}
    fs = {}
    if rng.random() < 0.5:
        extra = [f for f in OPTIONAL_FILTERS if rng.random() < 0.35]
        fs['enabled_filters'] = DEFAULT_FILTERS + extra
    for option, values in sorted(MULTIPLIERS.items()):
        if rng.random() < 0.25:
            fs[option] = rng.choice(values)
    if rng.random() < 0.1:
        fs['weight_classes'] = sorted(rng.sample(WEIGHERS, rng.randint(
            1, len(WEIGHERS))))
    if rng.random() < 0.2:
        fs['max_io_ops_per_host'] = rng.choice([2, 5])
    if rng.random() < 0.2:
        fs['max_instances_per_host'] = rng.choice([10, 30])
    scheduler = {}
    if rng.random() < 0.2:
        scheduler['max_attempts'] = rng.choice([1, 2, 5])
    if rng.random() < 0.15:
        scheduler['max_placement_results'] = rng.choice([1, 3, 5])
    for option in PREFILTER_OPTIONS:
        if rng.random() < 0.05:
            scheduler[option] = True
    if fs:
        config['filter_scheduler'] = fs
    if scheduler:
        config['scheduler'] = scheduler
    return config


def _request(rng, rows, zones):
    names = [row['host'] for row in rows]
    vcpus, memory, root = rng.choice(FLAVORS)
    flavor = {'name': 'f%d' % vcpus, 'vcpus': vcpus, 'memory_mb': memory,
              'root_gb': root}
    if rng.random() < 0.1:
        flavor['ephemeral_gb'] = rng.choice([0, 10])
        flavor['swap'] = rng.choice([0, 512, 1536])
    extra_specs = {}
    if rng.random() < 0.1:
        extra_specs['trait:CUSTOM_GOLD'] = 'required'
    if rng.random() < 0.1:
        extra_specs['ssd'] = 'true'
    if extra_specs:
        flavor['extra_specs'] = extra_specs
    request = {'flavor': flavor, 'project_id': 'demo',
               'num_instances': 1 if rng.random() < 0.6 else rng.randint(
                   2, 4)}
    roll = rng.random()
    if zones and roll < 0.4:
        request['availability_zone'] = rng.choice(
            zones)['metadata']['availability_zone']
    elif zones and roll < 0.45:
        # The default zone: the hosts in no zone aggregate.
        request['availability_zone'] = 'nova'
    existing = [i for row in rows for i in row.get('instances', [])]
    hints = {}
    for hint in ('same_host', 'different_host'):
        if existing and rng.random() < 0.1:
            hints[hint] = rng.sample(existing, min(len(existing),
                                                   rng.randint(1, 2)))
    if hints:
        request['scheduler_hints'] = hints
    if rng.random() < 0.3:
        properties = {}
        if rng.random() < 0.6:
            properties['hw_architecture'] = rng.choice(['x86_64',
                                                        'aarch64'])
        if rng.random() < 0.4:
            properties['img_hv_type'] = rng.choice(['qemu', 'kvm'])
        if rng.random() < 0.3:
            properties['hw_vm_mode'] = 'hvm'
        if rng.random() < 0.3:
            properties['img_hv_requested_version'] = rng.choice(
                ['>=7.0', '<8.0'])
        request['image'] = {'properties': properties}
    # Every image has a disk format (the image type pre-filter asks
    # placement for hosts that boot it).
    request.setdefault('image', {'properties': {}})['properties'][
        'disk_format'] = 'qcow2' if rng.random() < 0.75 else 'raw'
    if rng.random() < 0.4:
        group = {'policy': rng.choice(POLICIES)}
        if group['policy'] == 'anti-affinity' and rng.random() < 0.3:
            group['rules'] = {'max_server_per_host': 2}
        members = {}
        for k in range(rng.randint(0, 3)):
            members.setdefault(rng.choice(names), []).append('member-%d' % k)
        if members:
            group['members_on_hosts'] = members
        request['server_group'] = group
    roll = rng.random()
    if roll < 0.05:
        request['ignore_hosts'] = rng.sample(names, min(len(names), 2))
    elif roll < 0.08:
        request['force_hosts'] = [rng.choice(names)]
    elif roll < 0.11:
        request['requested_destination'] = {'host': rng.choice(names),
                                            'node': None}
    return request


def generate(seed, max_hosts):
    """One case, from ``seed`` alone, of 1 to ``max_hosts`` hosts."""
    rng = random.Random(seed)
    count = rng.randint(1, max_hosts)
    names = ['host%03d' % i for i in range(count)]
    if rng.random() < 0.25:
        # An empty cloud of identical computes: every weight ties.
        size = (32, 65536, 500)
        rows = [host_row(rng, name, size=size, busy=False) for name in names]
    else:
        rows = [host_row(rng, name) for name in names]
    zones, others = _aggregates(rng, names)
    case = {'hosts': rows, 'aggregates': zones + others,
            'request': _request(rng, rows, zones)}
    config = _config(rng)
    if config:
        case['config'] = config
    return case


def host_set(count, seed=0, zones=3):
    """``count`` hosts for a benchmark: varied sizes and usage, each in
    one of ``zones`` availability zones (aggregates), a few disabled or
    down; (hosts, aggregates)."""
    rng = random.Random(seed)
    names = ['compute%05d' % i for i in range(count)]
    rows = [host_row(rng, name) for name in names]
    for row in rows:
        # The benchmark's hosts all run the usual images.
        row['supported_instances'] = [['x86_64', 'qemu', 'hvm']]
    aggregates = [{'name': 'zone%d' % k,
                   'metadata': {'availability_zone': 'az%d' % k},
                   'hosts': names[k::zones]} for k in range(zones)]
    return rows, aggregates
