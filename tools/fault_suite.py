#!/usr/bin/env python3
"""Run the fault-injection scenarios at full size and print the table.

Each scenario runs on a fresh control plane (every daemon a separate
process) on the machine's RabbitMQ and MariaDB -- or, for the broker and
database restarts, on a RabbitMQ node and a MariaDB server started for it
alone, and for the cluster rows on a three-node RabbitMQ cluster of its
own (tests/functional/rabbit_cluster.py) or a three-node MariaDB Galera
cluster behind HAProxy (tests/functional/galera_cluster.py). See
tests/functional/faults.py for what each scenario does and what is
checked afterwards.

    .venv/bin/python tools/fault_suite.py                 # every scenario
    .venv/bin/python tools/fault_suite.py --list
    .venv/bin/python tools/fault_suite.py -s conductor -s rabbitmq --burst 40

Exit status 0 when every row is clean, 1 otherwise.
"""

import argparse
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from tests.functional import faults  # noqa: E402
from tests.functional import fixtures  # noqa: E402
from tests.functional import galera_cluster  # noqa: E402
from tests.functional import rabbit_cluster  # noqa: E402

DAEMONS = ('api', 'conductor', 'scheduler', 'compute2', 'placement',
           'network')


def scenarios(burst):
    """name -> (scenario, plane kind, settle timeout)."""
    found = {}
    for daemon in DAEMONS:
        found[daemon] = ('%s killed during a build burst' % daemon,
                         faults.kill_during_build_burst(daemon, count=burst),
                         'plain', 180)
    found['live-migration-source'] = (
        'source compute killed mid-live-migration',
        faults.compute_killed_mid_live_migration('source', count=4),
        'migrations', 180)
    found['live-migration-destination'] = (
        'destination compute killed mid-live-migration',
        faults.compute_killed_mid_live_migration('destination', count=4),
        'migrations', 180)
    found['resize-source'] = (
        'source compute killed mid-resize',
        faults.compute_killed_mid_resize('source', count=4), 'resizes', 180)
    found['resize-destination'] = (
        'destination compute killed mid-resize',
        faults.compute_killed_mid_resize('destination', count=4),
        'resizes', 180)
    found['evacuation'] = (
        'source compute restarted after evacuation',
        faults.source_restarted_after_evacuation(count=6), 'plain', 180)
    found['rabbitmq'] = ('RabbitMQ restarted under load',
                         faults.service_restarted_under_load(
                             'rabbitmq', count=burst), 'private', 240)
    for number in (1, 2, 3):
        found['rabbitmq-cluster-node%d' % number] = (
            'RabbitMQ cluster: node %d of 3 restarted under load' % number,
            faults.cluster_node_stopped_under_load(number, count=burst),
            'cluster', 240)
    found['mariadb'] = ('MariaDB restarted under load',
                        faults.service_restarted_under_load(
                            'mariadb', count=burst), 'private', 240)
    for number in (1, 2):
        found['galera-node%d' % number] = (
            'MariaDB Galera: node %d of 3 (%s) restarted under load' % (
                number, 'the writer' if number == 1 else 'a backup'),
            faults.cluster_node_stopped_under_load(number, count=burst),
            'galera', 240)
    return found


def make_plane(kind, computes, services=None):
    # Room for every server: the failures counted are the faults', not
    # the capacity's.
    compute_extra = faults.COMPUTE_RECOVERY_CONF + (
        '\n[compute]\nfake_vcpus = 64\nfake_memory_mb = 65536\n'
        'fake_local_gb = 1000\n')
    compute_conf = {}
    for index in range(1, computes + 1):
        if kind == 'migrations':
            compute_conf[index] = (compute_extra +
                                   'fake_live_migration_seconds = 8\n')
        elif kind == 'resizes':
            compute_conf[index] = compute_extra + faults.RESIZE_CONF.get(
                index, '').replace('\n[compute]\n', '')
        else:
            compute_conf[index] = compute_extra + 'fake_spawn_seconds = 1\n'

    return fixtures.ControlPlane(
        computes=computes,
        compute_conf=compute_conf,
        extra_conf=faults.RECOVERY_CONF, services=services)


def run_one(name, scenario, kind, settle_timeout, computes):
    services = None
    if kind == 'private':
        services = faults.PrivateServices()
        services.start()
    elif kind == 'cluster':
        services = rabbit_cluster.RabbitCluster()
        services.start()
    elif kind == 'galera':
        services = galera_cluster.GaleraCluster()
        services.start()
    if kind == 'resizes':
        # compute1 the source and compute2 the only destination: the
        # compute killed is the one the resizes are on.
        computes = 2
    plane = make_plane(kind, computes, services)
    try:
        plane.start()
        return faults.run_scenario(plane, name, scenario,
                                   settle_timeout=settle_timeout)
    except Exception as error:
        row = faults.Row(name)
        row.notes.append('the run itself failed: %s' % error)
        return row
    finally:
        plane.stop()
        if services is not None:
            services.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('-s', '--scenario', action='append',
                        help='run only this scenario (repeatable); see '
                             '--list')
    parser.add_argument('--burst', type=int, default=30,
                        help='boots in each burst (default 30)')
    parser.add_argument('--computes', type=int, default=3,
                        help='fake computes per plane (default 3; each '
                             'holds 31 m1.small servers)')
    parser.add_argument('--list', action='store_true',
                        help='list the scenarios and exit')
    parser.add_argument('--details', action='store_true',
                        help='print each row\'s violations and notes')
    args = parser.parse_args()
    known = scenarios(args.burst)
    if args.list:
        for key, (name, _, _, _) in known.items():
            print('%-28s %s' % (key, name))
        return 0
    chosen = args.scenario or list(known)
    unknown = [key for key in chosen if key not in known]
    if unknown:
        parser.error('unknown scenario(s): %s (see --list)' %
                     ', '.join(unknown))
    rows = []
    for key in chosen:
        name, scenario, kind, settle_timeout = known[key]
        started = time.monotonic()
        print('running: %s ...' % name, flush=True)
        row = run_one(name, scenario, kind, settle_timeout, args.computes)
        rows.append(row)
        print('  %s in %.0f s' % ('clean' if row.ok else 'NOT CLEAN',
                                  time.monotonic() - started), flush=True)
        if args.details or not row.ok:
            details = row.details()
            if details:
                print('  ' + details.replace('\n', '\n  '), flush=True)
    print()
    print(faults.table(rows))
    return 0 if all(row.ok for row in rows) else 1


if __name__ == '__main__':
    sys.exit(main())
