#!/usr/bin/env python3
"""Benchmark: servers/s from POST to ACTIVE, and conductor RPC round trip.

Starts a real control plane (api, conductor, scheduler and K fake
computes as separate processes, on this machine's RabbitMQ and MariaDB,
with databases and a vhost of their own), boots N servers through the REST
API in one multi-create request per batch, waits until all are ACTIVE,
then measures a no-op ``ping`` call to the conductor. Prints a report;
asserts nothing.

    tools/bench/boot_bench.py --servers 100 --computes 4 --pings 200
"""

import argparse
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

from tests.functional import fixtures  # noqa: E402

PING_SCRIPT = r'''
import math, statistics, sys, time
from nova_lite import config, objects, context
config.parse_args(sys.argv[2:], configure_logging=False)
objects.register_all()
from nova_lite.conductor import rpcapi
api = rpcapi.ConductorAPI()
ctxt = context.get_admin_context()
api.ping(ctxt, 'warm-up')
samples = []
for i in range(int(sys.argv[1])):
    start = time.perf_counter()
    api.ping(ctxt, i)
    samples.append((time.perf_counter() - start) * 1000)
samples.sort()
print('%.3f %.3f' % (statistics.median(samples),
                     samples[math.ceil(len(samples) * 0.95) - 1]))
'''


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--servers', type=int, default=100)
    parser.add_argument('--computes', type=int, default=4)
    parser.add_argument('--batch', type=int, default=10,
                        help='servers per POST (max_count)')
    parser.add_argument('--pings', type=int, default=200)
    args = parser.parse_args()

    plane = fixtures.ControlPlane(
        computes=args.computes,
        # No quota: the default (10 instances) would refuse the boots.
        extra_conf='[compute]\nfake_memory_mb = 1048576\n'
                   'fake_vcpus = 1024\nfake_local_gb = 100000\n'
                   '[quota]\ninstances = -1\ncores = -1\nram = -1\n')
    # Computes read their own files; give them room for N servers too.
    plane.compute_conf = {i: '[compute]\nfake_memory_mb = 1048576\n'
                             'fake_vcpus = 1024\nfake_local_gb = 100000\n'
                          for i in range(1, args.computes + 1)}
    print('starting control plane with %d computes...' % args.computes)
    plane.start()
    try:
        admin = plane.client()
        start = time.perf_counter()
        remaining = args.servers
        while remaining:
            count = min(args.batch, remaining)
            response = admin.post('/servers', {'server': {
                'name': 'bench', 'flavorRef': '2',
                'imageRef': plane.image_id, 'min_count': count,
                'max_count': count}})
            response.raise_for_status()
            remaining -= count
        posted = time.perf_counter() - start

        def all_active():
            servers = admin.get('/servers/detail').json()['servers']
            states = [s['status'] for s in servers]
            if 'ERROR' in states:
                raise SystemExit('a server went to ERROR: %s' % [
                    s.get('fault') for s in servers
                    if s['status'] == 'ERROR'][:1])
            return states.count('ACTIVE') >= args.servers
        fixtures.wait_for(all_active, timeout=600, interval=0.25,
                          what='all servers ACTIVE')
        elapsed = time.perf_counter() - start

        ping = subprocess.run(
            [sys.executable, '-c', PING_SCRIPT, str(args.pings),
             '--config-file', plane.conf],
            capture_output=True, text=True, cwd=ROOT, env=plane.env)
        if ping.returncode:
            raise SystemExit(ping.stderr)
        median, p95 = ping.stdout.split()
        print('servers: %d on %d computes, batches of %d' % (
            args.servers, args.computes, args.batch))
        print('POST phase: %.2fs; POST to all ACTIVE: %.2fs -> %.1f '
              'servers/s' % (posted, elapsed, args.servers / elapsed))
        print('conductor ping round trip over RabbitMQ: median %s ms, '
              'p95 %s ms (%d calls)' % (median, p95, args.pings))
    finally:
        plane.stop()


if __name__ == '__main__':
    main()
