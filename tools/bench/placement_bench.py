#!/usr/bin/env python
"""Placement benchmark: allocation writes/s and allocation candidate latency.

Starts its own nova-lite-placement daemon on fresh MariaDB databases (or
measures the Placement API at ``--url``), then:

1. allocation PUT + DELETE cycles per second, with 1 and 4 client threads
   (each cycle: PUT /allocations/{new consumer} on a provider, then DELETE);
2. GET /allocation_candidates?resources=VCPU:1,MEMORY_MB:512,DISK_GB:10
   latency (median, p95) with 1,000 providers and then with 10,000, each
   provider having VCPU/MEMORY_MB/DISK_GB inventory and one allocation.

With ``--openstack-placement`` the same measurements are made in the same
run against OpenStack Placement 16 (``tools/placement_peer.py``) on the
same MariaDB, served by the same HTTP server as ours, at
``--compare-sizes`` providers; the write-rate
runs alternate between the two services (``--rounds`` each) and the ratio
of the medians is printed. ``--sizes ''`` measures the write rate only.

Usage (from the repository root):
    PYTHONPATH=. .venv/bin/python tools/bench/placement_bench.py
    PYTHONPATH=. .venv/bin/python tools/bench/placement_bench.py \\
        --openstack-placement --compare-sizes 1000
"""

import argparse
import concurrent.futures
import contextlib
import http.client
import json
import statistics
import sys
import threading
import time
import urllib.parse
import uuid

VERSION = '1.28'
CANDIDATES_QUERY = 'resources=VCPU:1,MEMORY_MB:512,DISK_GB:10'
# A server with one minimum-bandwidth port (as the scheduler asks for it).
PORT_QUERY = (CANDIDATES_QUERY + '&resources_port1=NET_BW_EGR_KILOBIT_PER_SEC'
              ':1000&required_port1=CUSTOM_PHYSNET_PHYSNET0'
              '&group_policy=none')
# --bandwidth-children: each compute node gets a bandwidth child provider,
# as nova-lite-network makes them.
BANDWIDTH_CHILDREN = False


class Response:

    def __init__(self, status, body):
        self.status_code = status
        self.text = body.decode('utf-8', 'replace')

    def json(self):
        return json.loads(self.text)


class Client:
    """One persistent HTTP/1.1 connection per thread, through the standard
    library's http.client: a lean client, so that what is measured is the
    server (requests costs about half a millisecond a request of its own,
    a sizeable share of a fast server's time). Both services get the same
    client."""

    def __init__(self, url, token='admin'):
        parsed = urllib.parse.urlsplit(url)
        self.host, self.port = parsed.hostname, parsed.port
        self.local = threading.local()
        self.headers = {'X-Auth-Token': token,
                        'OpenStack-API-Version': 'placement %s' % VERSION,
                        'Accept': 'application/json',
                        'Content-Type': 'application/json'}

    def _connection(self, fresh=False):
        connection = getattr(self.local, 'connection', None)
        if connection is None or fresh:
            if connection is not None:
                connection.close()
            connection = http.client.HTTPConnection(self.host, self.port,
                                                    timeout=120)
            self.local.connection = connection
        return connection

    def call(self, method, path, body=None, expect=(200, 201, 204),
             version=None):
        headers = dict(self.headers)
        if version:
            headers['OpenStack-API-Version'] = 'placement %s' % version
        payload = json.dumps(body).encode() if body is not None else None
        for attempt in (1, 2):
            connection = self._connection(fresh=attempt == 2)
            try:
                connection.request(method, path, body=payload,
                                   headers=headers)
                reply = connection.getresponse()
                response = Response(reply.status, reply.read())
                break
            except (http.client.RemoteDisconnected, ConnectionError):
                # The server closed an idle connection: once more on a
                # new one.
                if attempt == 2:
                    raise
        if response.status_code not in expect:
            raise RuntimeError('%s %s: %s %s' % (method, path,
                                                 response.status_code,
                                                 response.text[:300]))
        return response


def make_provider(client, index):
    rp = str(uuid.uuid4())
    client.call('POST', '/resource_providers',
                {'name': 'bench-%06d-%s' % (index, rp[:8]), 'uuid': rp})
    client.call('PUT', '/resource_providers/%s/inventories' % rp, {
        'resource_provider_generation': 0,
        'inventories': {
            'VCPU': {'total': 32, 'allocation_ratio': 4.0},
            'MEMORY_MB': {'total': 131072, 'reserved': 512,
                          'allocation_ratio': 1.5},
            'DISK_GB': {'total': 2000}}})
    client.call('PUT', '/allocations/%s' % uuid.uuid4(), {
        'allocations': {rp: {'resources': {'VCPU': 2, 'MEMORY_MB': 2048,
                                           'DISK_GB': 20}}},
        'project_id': 'bench', 'user_id': 'bench',
        'consumer_generation': None})
    if BANDWIDTH_CHILDREN:
        child = str(uuid.uuid4())
        client.call('POST', '/resource_providers',
                    {'name': 'bench-%06d-%s:physnet0' % (index, rp[:8]),
                     'uuid': child, 'parent_provider_uuid': rp},
                    version='1.20')
        client.call('PUT', '/resource_providers/%s/inventories' % child, {
            'resource_provider_generation': 0,
            'inventories': {'NET_BW_EGR_KILOBIT_PER_SEC': {
                'total': 10000000}}})
        client.call('PUT', '/traits/CUSTOM_PHYSNET_PHYSNET0',
                    version='1.6')
        client.call('PUT', '/resource_providers/%s/traits' % child, {
            'resource_provider_generation': 1,
            'traits': ['CUSTOM_PHYSNET_PHYSNET0']}, version='1.6')
    return rp


def grow(client, providers, target, threads=8):
    start = len(providers)
    if target <= start:
        return
    began = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        providers.extend(pool.map(lambda i: make_provider(client, i),
                                  range(start, target)))
    print(' populated %d providers in %.1fs' % (
        target - start, time.monotonic() - began), flush=True)


def write_rate(client, providers, threads, seconds):
    """PUT+DELETE cycles per second over ``seconds`` with ``threads``."""
    stop = time.monotonic() + seconds
    counts = [0] * threads
    errors = []

    def worker(index):
        rp = providers[index % len(providers)]
        while time.monotonic() < stop:
            consumer = str(uuid.uuid4())
            try:
                client.call('PUT', '/allocations/%s' % consumer, {
                    'allocations': {rp: {'resources': {
                        'VCPU': 1, 'MEMORY_MB': 256, 'DISK_GB': 1}}},
                    'project_id': 'bench', 'user_id': 'bench',
                    'consumer_generation': None}, expect=(204,))
                client.call('DELETE', '/allocations/%s' % consumer,
                            expect=(204,))
                counts[index] += 1
            except Exception as e:  # report, keep measuring
                errors.append(str(e))
    began = time.monotonic()
    workers = [threading.Thread(target=worker, args=(i,))
               for i in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    elapsed = time.monotonic() - began
    return sum(counts) / elapsed, errors


def candidates_latency(client, runs, query=CANDIDATES_QUERY, version='1.36'):
    timings, count = [], None
    client.call('GET', '/allocation_candidates?' + query, version=version)
    for _ in range(runs):
        began = time.perf_counter()
        response = client.call('GET', '/allocation_candidates?' + query,
                               version=version)
        timings.append((time.perf_counter() - began) * 1000)
        count = len(response.json()['allocation_requests'])
    timings.sort()
    p95 = timings[min(len(timings) - 1, int(round(0.95 * len(timings))) - 1)]
    return statistics.median(timings), p95, count


class Service:
    """One Placement API under test and the providers made on it."""

    def __init__(self, label, url):
        self.label = label
        self.url = url
        self.client = Client(url)
        self.providers = []
        self.rates = {1: [], 4: []}

    def grow(self, size):
        print('%s:' % self.label, end='', flush=True)
        grow(self.client, self.providers, size)


def write_rounds(services, rounds, seconds):
    """PUT+DELETE cycles/s with 1 and 4 client threads, every service in
    turn, ``rounds`` times: the machine's speed drifts over minutes, and
    alternating keeps the comparison fair."""
    for index in range(rounds):
        for service in services:
            for threads in (1, 4):
                rate, errors = write_rate(service.client, service.providers,
                                          threads, seconds)
                service.rates[threads].append(rate)
                print('  round %d, %s, %d client thread%s: %.1f cycles/s '
                      '(%.1f requests/s)%s' % (
                          index + 1, service.label, threads,
                          '' if threads == 1 else 's', rate, rate * 2,
                          ', %d errors, first: %s' % (len(errors), errors[0])
                          if errors else ''), flush=True)
    for service in services:
        for threads in (1, 4):
            print('%s, %d client thread%s: median %.1f allocation PUT+DELETE '
                  'cycles/s' % (service.label, threads,
                                '' if threads == 1 else 's',
                                statistics.median(service.rates[threads])))
    if len(services) == 2:
        ours, theirs = services
        for threads in (1, 4):
            print('write rate ratio, %d client thread%s: %.1fx (per round: '
                  '%s)' % (threads, '' if threads == 1 else 's',
                           statistics.median(ours.rates[threads]) /
                           statistics.median(theirs.rates[threads]),
                           ', '.join('%.1fx' % (a / b) for a, b in zip(
                               ours.rates[threads], theirs.rates[threads]))))


def candidate_latencies(service, sizes, args):
    for size in sizes:
        service.grow(size)
        queries = [CANDIDATES_QUERY, CANDIDATES_QUERY + '&limit=1000']
        if BANDWIDTH_CHILDREN:
            queries += [PORT_QUERY, PORT_QUERY + '&limit=1000']
        for query in queries:
            median, p95, count = candidates_latency(
                service.client, args.runs, query,
                version=args.candidates_version)
            print('%s: GET /allocation_candidates?%s with %d providers: '
                  'median %.1f ms, p95 %.1f ms (%d candidates)' % (
                      service.label, query, size, median, p95, count),
                  flush=True)


def _load():
    with open('/proc/loadavg') as f:
        return f.read().split()[0]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--url', help='measure this Placement API instead '
                        'of starting nova-lite-placement')
    parser.add_argument('--sizes', default='1000,10000',
                        help='provider counts for the candidate latency')
    parser.add_argument('--openstack-placement', action='store_true',
                        help='also measure OpenStack Placement 16 (from '
                             'tools/placement_peer.py: its pinned '
                             'virtualenv, made on first use)')
    parser.add_argument('--compare-sizes', default='1000',
                        help='provider counts for OpenStack Placement')
    parser.add_argument('--seconds', type=float, default=10.0,
                        help='duration of each write-rate run')
    parser.add_argument('--rounds', type=int, default=3,
                        help='write-rate runs per service, alternating '
                             'between the services')
    parser.add_argument('--runs', type=int, default=30,
                        help='candidate requests per size')
    parser.add_argument('--candidates-version', default='1.36')
    parser.add_argument('--bandwidth-children', action='store_true',
                        help='give each provider a bandwidth child (as '
                             'nova-lite-network does) and also measure a '
                             'request with a port\'s group')
    args = parser.parse_args(argv)
    global BANDWIDTH_CHILDREN
    BANDWIDTH_CHILDREN = args.bandwidth_children
    sizes = [int(s) for s in args.sizes.split(',') if s]

    compare_sizes = [int(s) for s in args.compare_sizes.split(',') if s]
    print('load average at start: %s' % _load(), flush=True)
    stack = contextlib.ExitStack()
    with stack:
        services = []
        url = args.url
        if url is None:
            from tests.functional import placement_fixtures
            server = placement_fixtures.PlacementServer()
            server.start()
            stack.callback(server.stop)
            url = server.url
        services.append(Service('nova-lite-placement', url))
        if args.openstack_placement:
            from tools import placement_peer
            other = placement_peer.Server().start()
            stack.callback(other.stop)
            services.append(Service('OpenStack Placement', other.url))
        first = (compare_sizes or sizes or [10])[0] if len(services) > 1 \
            else (sizes or [10])[0]
        for service in services:
            service.grow(first)
        write_rounds(services, args.rounds, args.seconds)
        if len(services) > 1:
            candidate_latencies(services[1], compare_sizes, args)
        candidate_latencies(services[0], sizes, args)
    print('load average at end: %s' % _load(), flush=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())
