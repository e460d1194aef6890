#!/usr/bin/env python3
"""Benchmark: live migration from the API call to the migration completed.

Starts a real control plane (every daemon its own process, on this
machine's RabbitMQ and MariaDB, with databases and a vhost of their own)
with two computes whose fake transfer takes no time, boots one server
with a minimum-bandwidth port, and live migrates it back and forth N
times, one at a time. For each migration it measures the time from the
POST of ``os-migrateLive`` to the migration record reading ``completed``
(polled every 10 ms straight from the cell database), and counts the RPC
messages sent for it, from the daemons' debug logs (oslo.messaging logs
one line per CALL and per CAST, with the request id of the API call the
whole flow carries). Prints a report; asserts nothing.

    tools/bench/live_migration_bench.py --migrations 20
"""

import argparse
import collections
import math
import os
import statistics
import sys
import time

import requests

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

from tests.functional import fixtures  # noqa: E402

# oslo.log keeps oslo.messaging at INFO unless told otherwise.
DEBUG = ('[DEFAULT]\ndebug = true\ndefault_log_levels = '
         'oslo.messaging=DEBUG,amqp=WARN,kombu=WARN,sqlalchemy=WARN,'
         'urllib3=WARN,requests=WARN,stevedore=WARN,oslo.policy=WARN\n')


def _net(plane, method, path, body=None):
    response = requests.request(method, plane.network_url + '/v2.0' + path,
                                json=body, headers={'X-Auth-Token': 'admin'},
                                timeout=30)
    response.raise_for_status()
    return response.json() if response.content else None


def _log_sizes(plane):
    return {name: os.path.getsize(daemon.log_path)
            for name, daemon in plane.daemons.items()}


def _messages_since(plane, sizes, request_id):
    """{'CALL': n, 'CAST': n} that every daemon sent for ``request_id``
    since ``sizes`` (oslo.messaging logs each message it sends at debug
    level, with the request's id in the line)."""
    counts = collections.Counter()
    for name, daemon in plane.daemons.items():
        with open(daemon.log_path, errors='replace') as log:
            log.seek(sizes.get(name, 0))
            for line in log:
                if request_id not in line:
                    continue
                if 'CALL msg_id' in line:
                    counts['CALL'] += 1
                elif 'CAST unique_id' in line:
                    counts['CAST'] += 1
    return counts


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--migrations', type=int, default=20)
    args = parser.parse_args()

    plane = fixtures.ControlPlane(computes=2, extra_conf=DEBUG,
                                  compute_conf={1: DEBUG, 2: DEBUG})
    try:
        plane.start()
        admin = plane.client('admin', microversion='2.30')
        plane.wait_for_bandwidth_providers(2)
        network = _net(plane, 'POST', '/networks', {'network': {
            'name': 'bench', 'provider:network_type': 'flat',
            'provider:physical_network': 'physnet0'}})['network']
        policy = _net(plane, 'POST', '/qos/policies',
                      {'policy': {'name': 'bw'}})['policy']
        _net(plane, 'POST', '/qos/policies/%s/minimum_bandwidth_rules' %
             policy['id'], {'minimum_bandwidth_rule': {
                 'min_kbps': 1000, 'direction': 'egress'}})
        port = _net(plane, 'POST', '/ports', {'port': {
            'network_id': network['id'],
            'qos_policy_id': policy['id']}})['port']
        created = admin.create_server('lm-bench', image=plane.image_id,
                                      networks=[{'port': port['id']}])
        server_id = created['server']['id']
        admin.wait_for_status(server_id, 'ACTIVE')
        seconds, calls, casts = [], [], []
        for index in range(args.migrations):
            before = fixtures.query(
                plane.databases[1], 'SELECT COUNT(*) AS n FROM migrations')
            sizes = _log_sizes(plane)
            began = time.perf_counter()
            response = admin.post('/servers/%s/action' % server_id, {
                'os-migrateLive': {'host': None,
                                   'block_migration': 'auto'}})
            assert response.status_code == 202, response.text

            def completed():
                rows = fixtures.query(
                    plane.databases[1],
                    'SELECT status FROM migrations ORDER BY id DESC '
                    'LIMIT 1')
                done = (rows and rows[0]['status'] in
                        ('completed', 'error', 'cancelled') and
                        fixtures.query(plane.databases[1],
                                       'SELECT COUNT(*) AS n FROM '
                                       'migrations')[0]['n'] >
                        before[0]['n'])
                return rows[0]['status'] if done else None
            status = fixtures.wait_for(completed, 60, interval=0.01,
                                       what='migration %d over' % index)
            elapsed = time.perf_counter() - began
            if status != 'completed':
                print('migration %d ended %s' % (index, status))
                continue
            seconds.append(elapsed)
            # Until the server is at rest (the last writes follow the
            # migration's status).
            admin.wait_for_status(server_id, 'ACTIVE')
            time.sleep(0.5)
            counts = _messages_since(
                plane, sizes, response.headers['X-OpenStack-Request-ID'])
            calls.append(counts['CALL'])
            casts.append(counts['CAST'])
        seconds.sort()
        print('%d live migrations of a server with a bandwidth port, '
              'fake transfer 0 s, 2 computes' % len(seconds))
        print('API call -> migration completed: median %.0f ms, p90 %.0f '
              'ms, min %.0f ms, max %.0f ms' % (
                  statistics.median(seconds) * 1000,
                  seconds[math.ceil(len(seconds) * 0.9) - 1] * 1000,
                  seconds[0] * 1000, seconds[-1] * 1000))
        print('RPC messages per migration (every daemon, the computes\' '
              'object indirection through the conductor included): median '
              '%d calls, %d casts' % (
                  statistics.median(calls), statistics.median(casts)))
    finally:
        plane.stop()


if __name__ == '__main__':
    main()
