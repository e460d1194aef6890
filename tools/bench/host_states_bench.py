#!/usr/bin/env python3
"""Benchmark: what a scheduler spends reading its hosts for each request.

Makes a cell database of its own on this machine's MariaDB (the real
schema, ``db_sync``) with N compute services and their N compute nodes,
then times, in this process, the two reads a scheduler makes of every
host placement offers before each request (``HostManager.get_host_states``
with the offered uuids): the services' states (``service_states``: up,
disabled, forced down) and when each node was last written
(``ComputeNodeList.written_by_uuid``, which says which nodes to read
again); then the read of the nodes written since the last request
(``ComputeNodeList.get_by_uuids`` of ``--nodes-read`` of them: under a
stream of boots, each request finds about as many nodes written as
boots since the one before). Then the scheduler's pass over every node
offered, in memory (``HostState.update`` of each, its record unchanged
since the last request: its service's state and when it was written are
read): once with our field getters
(``host_state_updates_cpu_ms``) and once, side by side, with
oslo.versionedobjects' own (``host_state_updates_oslo_getters_cpu_ms``;
see ``objects.base._read_fields_directly``). Prints this process's CPU
and the wall time per read (``service_states_cpu_ms: X``,
``written_by_uuid_cpu_ms: Y``, ``nodes_by_uuid_cpu_ms: Z`` and
``..._wall_ms``), and the statements each ran; asserts nothing. The
database is dropped at the end.

    tools/bench/host_states_bench.py --hosts 1000 --reads 200
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
from oslo_versionedobjects import base as ovo_base  # noqa: E402
import sqlalchemy as sa  # noqa: E402

from nova_lite import context as nova_context  # noqa: E402
from nova_lite import counters  # noqa: E402
from nova_lite.db import api as db  # noqa: E402
from nova_lite.db import main_models as models  # noqa: E402
from nova_lite import objects  # noqa: E402
from nova_lite.objects import base as objects_base  # noqa: E402
from nova_lite.objects import service as service_obj  # noqa: E402
from nova_lite.scheduler import host_manager  # noqa: E402
from nova_lite import servicegroup  # noqa: E402
import scratch_db  # noqa: E402  (tools/bench, beside this script)


def cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def add_hosts(context, count):
    """``count`` compute services, up, each with its node; the nodes'
    uuids."""
    now = sa.func.utc_timestamp()
    uuids = [uuidutils.generate_uuid() for _ in range(count)]
    with db.cell_session(context) as session:
        session.execute(sa.insert(models.Service.__table__), [
            dict(uuid=uuidutils.generate_uuid(), host='host%d' % index,
                 binary=servicegroup.COMPUTE_BINARY, topic='compute',
                 report_count=1, disabled=False, forced_down=False,
                 version=1, deleted=0)
            for index in range(count)])
        session.execute(sa.update(models.Service.__table__).values(
            created_at=now, updated_at=now, last_seen_up=now))
        session.execute(sa.insert(models.ComputeNode.__table__), [
            dict(uuid=uuid, host='host%d' % index,
                 hypervisor_hostname='host%d' % index,
                 hypervisor_type='fake', hypervisor_version=1, vcpus=8,
                 memory_mb=8192, local_gb=100, cpu_allocation_ratio=16.0,
                 ram_allocation_ratio=1.5, disk_allocation_ratio=1.0,
                 mapped=True, deleted=0)
            for index, uuid in enumerate(uuids)])
        session.execute(sa.update(models.ComputeNode.__table__).values(
            created_at=now, updated_at=now))
    return uuids


def timed(name, reads, read):
    read()  # once before, to compile and connect
    counted = counters.snapshot().get('db.statements', 0)
    cpu, wall = cpu_seconds(), time.perf_counter()
    for _ in range(reads):
        answer = read()
    cpu = cpu_seconds() - cpu
    wall = time.perf_counter() - wall
    statements = counters.snapshot().get('db.statements', 0) - counted
    print('%s_cpu_ms: %.2f  %s_wall_ms: %.2f  statements: %.1f  hosts '
          'answered: %d' % (name, cpu * 1000 / reads, name,
                            wall * 1000 / reads, statements / reads,
                            len(answer)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--hosts', type=int, default=1000)
    parser.add_argument('--reads', type=int, default=200)
    parser.add_argument('--nodes-read', type=int, default=30)
    parser.add_argument('--mysql', default='root@127.0.0.1:3306')
    args = parser.parse_args()

    with scratch_db.cell_database('nova_lite_host_states_bench', args.mysql):
        context = nova_context.get_admin_context()
        uuids = add_hosts(context, args.hosts)
        print('%d hosts, %d reads of each kind' % (args.hosts, args.reads))
        timed('service_states', args.reads,
              lambda: service_obj.service_states(
                  context, servicegroup.COMPUTE_BINARY))
        timed('written_by_uuid', args.reads,
              lambda: objects.ComputeNodeList.written_by_uuid(context,
                                                              uuids))
        timed('nodes_by_uuid', args.reads,
              lambda: objects.ComputeNodeList.get_by_uuids(
                  context, uuids[:args.nodes_read]))
        nodes = objects.ComputeNodeList.get_by_uuids(context, uuids)
        services = service_obj.service_states(context,
                                              servicegroup.COMPUTE_BINARY)

        # The scheduler's states of the nodes, as its first request left
        # them; each request then updates every offered node's state,
        # the record unchanged for all but the few written since.
        states = [host_manager.HostState(node.host,
                                         node.hypervisor_hostname, None)
                  for node in nodes]

        def pass_over_nodes():
            for state, node in zip(states, nodes):
                state.update(node, services[node.host])
            return states
        pass_over_nodes()
        timed('host_state_updates', args.reads, pass_over_nodes)
        # oslo.versionedobjects' getters, as a class registered without
        # ours has them.
        ovo_base._make_class_properties(objects.ComputeNode)
        timed('host_state_updates_oslo_getters', args.reads,
              pass_over_nodes)
        objects_base._read_fields_directly(objects.ComputeNode)


if __name__ == '__main__':
    main()
