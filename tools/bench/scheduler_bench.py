#!/usr/bin/env python
"""Scheduler benchmark: select_destinations' pipeline, in-process.

Runs ``filter_scheduler.schedule()`` -- the default filters and weighers
of ``[filter_scheduler]``, as the scheduler daemon runs them -- on
synthetic host states (varied free RAM, disk, vCPUs, I/O and instance
counts, three availability zones, a few hosts down or disabled), with 100,
1,000 and 10,000 hosts and 1 and 10 instances per request, and prints the
median and p95 milliseconds per request and how they grow with the number
of hosts. ``--group`` adds a request into an anti-affinity server group
(the group filter and its bookkeeping) to each size. No database, no
message bus: this is the scheduling decision alone.

Usage (from the repository root):
    PYTHONPATH=. .venv/bin/python tools/bench/scheduler_bench.py
    PYTHONPATH=. .venv/bin/python tools/bench/scheduler_bench.py \\
        --sizes 1000 --runs 200 --group
"""

import argparse
import random
import statistics
import sys
import time

from oslo_utils import uuidutils


def make_hosts(count, seed=42):
    from nova_lite.scheduler import host_manager
    rng = random.Random(seed)
    zones = [host_manager.Aggregate('az%d' % i,
                                    {'availability_zone': 'az%d' % i})
             for i in range(3)]
    states = []
    for index in range(count):
        name = 'compute-%05d' % index
        state = host_manager.HostState(name, name, 'cell1')
        state.uuid = uuidutils.generate_uuid()
        state.vcpus_total = 64
        state.vcpus_used = rng.randint(0, 48)
        state.total_usable_ram_mb = 262144
        state.free_ram_mb = rng.randint(8192, 262144)
        state.total_usable_disk_gb = 4000
        state.free_disk_mb = rng.randint(100, 4000) * 1024
        state.num_io_ops = rng.randint(0, 8)
        state.num_instances = rng.randint(0, 60)
        state.cpu_allocation_ratio = 4.0
        state.ram_allocation_ratio = 1.0
        state.disk_allocation_ratio = 1.0
        state.hypervisor_type = 'fake'
        state.hypervisor_version = 8002000
        state.supported_instances = [('x86_64', 'fake', 'hvm')]
        state.aggregates = [zones[index % 3]]
        state.instances = {uuidutils.generate_uuid()
                           for _ in range(rng.randint(0, 5))}
        down = rng.random() < 0.02
        state.service = {'up': not down, 'disabled': rng.random() < 0.01,
                         'forced_down': False, 'disabled_reason': None}
        states.append(state)
    return states


def make_spec(num_instances, group=False):
    from nova_lite import objects
    flavor = objects.Flavor(id=1, flavorid='1', name='m1.medium',
                            memory_mb=4096, vcpus=2, root_gb=40,
                            ephemeral_gb=0, swap=0, extra_specs={})
    spec = objects.RequestSpec(
        instance_uuid=uuidutils.generate_uuid(), project_id='bench',
        num_instances=num_instances, flavor=flavor,
        image=objects.ImageMeta(properties={}), scheduler_hints={},
        is_bfv=False)
    if group:
        spec.instance_group = objects.InstanceGroup(
            uuid=uuidutils.generate_uuid(), policy='anti-affinity',
            members=[], hosts=[])
    return spec


def measure(size, num_instances, runs, group=False):
    from nova_lite import conf as nova_conf
    from nova_lite.scheduler import filter_scheduler
    from nova_lite.scheduler import filters
    from nova_lite.scheduler import weights
    conf = nova_conf.CONF
    filter_objs = filters.load(conf.filter_scheduler.enabled_filters)
    weighers = weights.load(conf.filter_scheduler.weight_classes)
    states = make_hosts(size)
    timings = []
    for _ in range(runs):
        spec = make_spec(num_instances, group)
        uuids = [uuidutils.generate_uuid() for _ in range(num_instances)]
        began = time.perf_counter()
        filter_scheduler.schedule(
            spec, uuids, states, filter_objs, weighers,
            max_alternates=conf.scheduler.max_attempts - 1,
            subset_size=conf.filter_scheduler.host_subset_size)
        timings.append((time.perf_counter() - began) * 1000)
    timings.sort()
    p95 = timings[min(len(timings) - 1, int(round(0.95 * len(timings))) - 1)]
    return statistics.median(timings), p95


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--sizes', default='100,1000,10000',
                        help='host counts (comma-separated)')
    parser.add_argument('--instances', default='1,10',
                        help='instances per request (comma-separated)')
    parser.add_argument('--runs', type=int, default=50,
                        help='requests per measurement')
    parser.add_argument('--group', action='store_true',
                        help='also measure requests into an anti-affinity '
                             'group')
    args = parser.parse_args(argv)
    from oslo_config import cfg
    from nova_lite import objects
    cfg.CONF([], project='nova-lite')
    objects.register_all()
    sizes = [int(s) for s in args.sizes.split(',') if s]
    counts = [int(c) for c in args.instances.split(',') if c]
    variants = [False, True] if args.group else [False]
    from nova_lite import conf as nova_conf
    print('filters: %s' % ', '.join(
        nova_conf.CONF.filter_scheduler.enabled_filters))
    print('weighers: %s' % ', '.join(
        nova_conf.CONF.filter_scheduler.weight_classes))
    for group in variants:
        for count in counts:
            previous = None
            for size in sizes:
                median, p95 = measure(size, count, args.runs, group)
                growth = ('' if previous is None else
                          ', x%.1f for x%.0f hosts' % (
                              median / previous[1], size / previous[0]))
                print('%5d hosts, %2d instance(s)/request%s: median %.2f ms,'
                      ' p95 %.2f ms%s' % (
                          size, count, ' (anti-affinity group)' if group
                          else '', median, p95, growth), flush=True)
                previous = (size, median)
    return 0


if __name__ == '__main__':
    sys.exit(main())
