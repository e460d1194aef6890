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

``--versus-nova`` measures side by side with real Nova 34 instead, on the
same generated host sets (default 1,000 and 10,000 hosts in three zones):
the whole decision, from the host rows to the selection, for (a) a plain
one-instance request and (b) a request for an availability zone into an
anti-affinity group with members already placed. Nova's figure is the
conformance oracle's ``--repeat`` (``tools/nova_oracle``, in the
``.peers/nova34`` virtualenv, made on first use), ours ``scheduler
simulate``'s; each is the median of ``--runs`` decisions, each side with
its default filters and weighers. It prints both, their ratio and whether
the two chose the same host.

Usage (from the repository root):
    PYTHONPATH=. .venv/bin/python tools/bench/scheduler_bench.py
    PYTHONPATH=. .venv/bin/python tools/bench/scheduler_bench.py \\
        --sizes 1000 --runs 200 --group
    PYTHONPATH=. .venv/bin/python tools/bench/scheduler_bench.py \\
        --versus-nova --sizes 1000,10000 --runs 5
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


# The two requests of --versus-nova.
VERSUS_FLAVOR = {'name': 'm1.medium', 'vcpus': 2, 'memory_mb': 4096,
                 'root_gb': 40}


def versus_cases(size):
    """(name, case) of the plain and the zone plus anti-affinity requests
    on one generated host set of ``size`` hosts."""
    from tools.nova_oracle import cases
    hosts, aggregates = cases.host_set(size, seed=size)
    plain = {'hosts': hosts, 'aggregates': aggregates,
             'request': {'flavor': dict(VERSUS_FLAVOR),
                         'project_id': 'bench'}}
    # Five members already on hosts of the zone asked for.
    in_zone = [name for name in aggregates[1]['hosts']][:5]
    grouped = {'hosts': hosts, 'aggregates': aggregates,
               'request': {'flavor': dict(VERSUS_FLAVOR),
                           'project_id': 'bench',
                           'availability_zone': 'az1',
                           'server_group': {
                               'policy': 'anti-affinity',
                               'members_on_hosts': {
                                   name: ['member-%d' % i]
                                   for i, name in enumerate(in_zone)}}}}
    return [('plain request', plain),
            ('zone + anti-affinity request', grouped)]


def _ours_timing(case, runs):
    """Our median milliseconds for ``case``, and our answer."""
    from nova_lite.scheduler import simulate
    answer = simulate.run(case, repeat=runs)
    return answer['timing_ms'], answer


def versus_nova(sizes, runs):
    from tools.nova_oracle import peer
    print('side by side with Nova 34 (%s): the whole decision, from the '
          'host rows to the selection, median of %d' % (
              peer.VERSION, runs))
    for size in sizes:
        named = versus_cases(size)
        theirs = peer.run_oracle([case for _name, case in named],
                                 repeat=runs)
        for (name, case), nova_answer in zip(named, theirs):
            ours_ms, ours_answer = _ours_timing(case, runs)
            nova_ms = nova_answer['timing_ms']
            same = (ours_answer['chosen_hosts'] ==
                    nova_answer['chosen_hosts'])
            print('%5d hosts, %s: Nova 34 %.1f ms (of which its emulated '
                  'placement %.1f ms), nova_lite %.1f ms, %.1fx faster; %s'
                  % (size, name, nova_ms, nova_answer['placement_ms'],
                     ours_ms, nova_ms / ours_ms,
                      'same host chosen (%s)' % ', '.join(
                          ours_answer['chosen_hosts'])
                      if same else 'DIFFERENT hosts chosen: ours %s, '
                      'nova %s' % (ours_answer['chosen_hosts'] or
                                   ours_answer.get('error'),
                                   nova_answer['chosen_hosts'] or
                                   nova_answer.get('error'))),
                  flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--sizes',
                        help='host counts (comma-separated; default '
                             '100,1000,10000, with --versus-nova '
                             '1000,10000)')
    parser.add_argument('--instances', default='1,10',
                        help='instances per request (comma-separated)')
    parser.add_argument('--runs', type=int,
                        help='requests per measurement (default 50, with '
                             '--versus-nova 5)')
    parser.add_argument('--group', action='store_true',
                        help='also measure requests into an anti-affinity '
                             'group')
    parser.add_argument('--versus-nova', action='store_true',
                        help='side by side with real Nova 34 on the same '
                             'hosts (default sizes 1000,10000; runs 5)')
    args = parser.parse_args(argv)
    from oslo_config import cfg
    from nova_lite import objects
    cfg.CONF([], project='nova-lite')
    objects.register_all()
    if args.versus_nova:
        sizes = [int(s) for s in (args.sizes or '1000,10000').split(',')
                 if s]
        versus_nova(sizes, args.runs or 5)
        return 0
    args.runs = args.runs or 50
    sizes = [int(s) for s in (args.sizes or '100,1000,10000').split(',')
             if s]
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
