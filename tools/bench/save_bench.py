#!/usr/bin/env python3
"""Benchmark: what the conductor spends, in its own process, on the two
instance saves of every build, without the RPC around them.

Makes a cell database of its own on this machine's MariaDB (the real
schema, ``db_sync``), creates N servers waiting for a host, each with its
create action as the API records it, then for each runs the saves a
compute's build asks the conductor for: the take-over (host set, task
``spawning``, expecting ``scheduling``, with the start of the build's
action event) and the last one (ACTIVE, expecting ``spawning``, with the
event's finish). Prints this process's CPU and the wall time per build
(``save_cpu_ms_per_build: X``, ``save_wall_ms_per_build: Y``) and the
statements and commits per build (``nova_lite.counters``); asserts
nothing. The database is dropped at the
end.

    tools/bench/save_bench.py --builds 1000 --runs 3
"""

import argparse
import os
import resource
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

from oslo_utils import uuidutils  # noqa: E402

from nova_lite import context as nova_context  # noqa: E402
from nova_lite import counters  # noqa: E402
from nova_lite import objects  # noqa: E402
from nova_lite.objects import instance_action  # noqa: E402

EVENT = 'compute_build_and_run_instance'
import scratch_db  # noqa: E402  (tools/bench, beside this script)


def cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def waiting_servers(count):
    """``count`` servers as the conductor leaves them for a compute, each
    with its create action under a request id of its own; their
    contexts."""
    servers = []
    for index in range(count):
        context = nova_context.RequestContext(
            user_id='u', project_id='p', is_admin=True)
        instance = objects.Instance(
            context, uuid=uuidutils.generate_uuid(), project_id='p',
            user_id='u', display_name='vm-%d' % index,
            vm_state='building', task_state='scheduling', power_state=0,
            flavor=objects.Flavor(
                id=1, flavorid='1', name='small', memory_mb=512, vcpus=1,
                root_gb=1, ephemeral_gb=0, swap=0))
        instance.create()
        objects.InstanceAction.action_start(context, instance.uuid, 'create')
        servers.append(instance)
    return servers


def build(instance):
    instance.host = instance.node = 'compute1'
    instance.task_state = 'spawning'
    instance.save(expected_task_state=['scheduling'],
                  action_event=instance_action.event_start_record(
                      EVENT, host='compute1', action='create'))
    instance.vm_state = 'active'
    instance.task_state = None
    instance.power_state = 1
    instance.save(expected_task_state=['spawning'],
                  action_event=instance_action.event_finish_record(
                      EVENT, instance_action.RESULT_SUCCESS,
                      host='compute1'))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--builds', type=int, default=1000)
    parser.add_argument('--runs', type=int, default=3)
    parser.add_argument('--mysql', default='root@127.0.0.1:3306')
    args = parser.parse_args()

    with scratch_db.cell_database('nova_lite_save_bench', args.mysql):
        print('%d builds per run, %d runs' % (args.builds, args.runs))
        for run in range(args.runs):
            servers = waiting_servers(args.builds)
            counted = counters.snapshot()
            cpu, wall = cpu_seconds(), time.perf_counter()
            for instance in servers:
                build(instance)
            cpu = cpu_seconds() - cpu
            wall = time.perf_counter() - wall
            now = counters.snapshot()
            statements, commits = (
                now.get(name, 0) - counted.get(name, 0)
                for name in ('db.statements', 'db.commits'))
            print('run %d: save_cpu_ms_per_build: %.2f  '
                  'save_wall_ms_per_build: %.2f  statements_per_build: %.1f'
                  '  commits_per_build: %.1f'
                  % (run + 1, cpu * 1000 / args.builds,
                     wall * 1000 / args.builds, statements / args.builds,
                     commits / args.builds))


if __name__ == '__main__':
    main()
