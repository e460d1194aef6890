#!/usr/bin/env python3
"""Benchmark: the latency of a page of ``GET /servers/detail`` among many
servers, at the start of the list, in its middle and near its end.

Starts a real control plane (the daemons as separate processes on this
machine's RabbitMQ and MariaDB, databases and a vhost of their own, no
compute: nothing is booted), then writes N servers straight into the
cell databases with SQL, as the conductor would have left them: five
projects, one created_at each a few seconds apart, most ACTIVE on one of
50 hosts, some STOPPED, 2% in ERROR with a fault, and 1% in cell0 (ERROR,
"No valid host", with its fault). Then it asks the REST API for a page of
``--limit`` servers, as an administrator listing every project
(``all_tenants``) and as a project listing its own: the first page, the
page after the server in the middle of the list, and the page after the
server ``--limit`` + 1 from its end, each ``--repeat`` times. Each page is
checked (the servers the list's order puts there), and the run stops if
one is wrong.

Prints machine-readable lines, for each scope and position:

    list_page_p95_ms <scope> <position>: X
    list_page_median_ms <scope> <position>: Y

and asserts nothing about speed.

    tools/bench/list_bench.py --servers 100000 --limit 1000 --repeat 20
"""

import argparse
import datetime
import math
import os
import random
import statistics
import sys
import time
import uuid

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

import pymysql  # noqa: E402
from oslo_serialization import jsonutils  # noqa: E402

from nova_lite import objects  # noqa: E402
from tests.functional import fixtures  # noqa: E402

PROJECTS = ['project-%d' % n for n in range(5)]
HOSTS = ['compute-%02d' % n for n in range(50)]
# The project whose own list is measured.
LISTING_PROJECT = PROJECTS[0]
ROWS_AN_INSERT = 2000
T0 = datetime.datetime(2026, 1, 1)

_INSTANCE_COLUMNS = (
    'uuid', 'user_id', 'project_id', 'display_name', 'hostname', 'host',
    'node', 'launched_on', 'vm_state', 'task_state', 'power_state',
    'image_ref', 'flavor', 'memory_mb', 'vcpus', 'root_gb', 'ephemeral_gb',
    'availability_zone', 'metadata', 'system_metadata', 'tags', 'locked',
    'launch_index', 'reservation_id', 'launched_at', 'created_at',
    'updated_at', 'deleted', 'block_device_mapping')
_FAULT_COLUMNS = ('instance_uuid', 'code', 'message', 'details', 'host',
                  'created_at')


def flavor_json():
    """The m1.small the plane has, as an instance row holds it."""
    objects.register_all()
    flavor = objects.Flavor(
        id=2, flavorid='2', name='m1.small', memory_mb=2048, vcpus=1,
        root_gb=10, ephemeral_gb=0, swap=0, rxtx_factor=1.0,
        is_public=True, disabled=False, description=None, extra_specs={},
        projects=[])
    return jsonutils.dumps(flavor.obj_to_primitive())


def servers(count, image_id):
    """``count`` servers, newest last: (cell, instance row, fault row or
    None). Each one's created_at is its own, so the list's order is known
    here: newest first."""
    flavor = flavor_json()
    rng = random.Random(23)
    for n in range(count):
        created_at = T0 + datetime.timedelta(seconds=3 * n,
                                             microseconds=rng.randrange(
                                                 1000000))
        project_id = PROJECTS[n % len(PROJECTS)]
        host = HOSTS[rng.randrange(len(HOSTS))]
        cell, fault = 'cell', None
        draw = rng.random()
        if draw < 0.01:
            cell, host, vm_state, power_state = 'cell0', None, 'error', 0
            fault = (500, 'No valid host was found. 0/50 hosts available: '
                          '50 insufficient RAM.', None)
        elif draw < 0.03:
            vm_state, power_state = 'error', 0
            fault = (500, 'Build of instance failed on %s' % host,
                     'Traceback (most recent call last): ...')
        elif draw < 0.13:
            vm_state, power_state = 'stopped', 4
        else:
            vm_state, power_state = 'active', 1
        server_uuid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        instance = (
            server_uuid, 'user-%d' % (n % 17), project_id,
            'server-%d' % n, 'server-%d' % n, host, host, host, vm_state,
            None, power_state, image_id, flavor, 2048, 1, 10, 0, 'nova',
            '{}', '{"image_base_image_ref": "%s"}' % image_id, '[]', 0, 0,
            'r-%08d' % (n // 10), None if cell == 'cell0' else created_at,
            created_at, created_at, 0, '[]')
        fault_row = None if fault is None else (
            server_uuid, fault[0], fault[1], fault[2], host, created_at)
        yield cell, instance, fault_row


def insert(connection, database, table, columns, rows):
    if not rows:
        return
    with connection.cursor() as cursor:
        cursor.executemany(
            'INSERT INTO `%s`.`%s` (%s) VALUES (%s)' % (
                database, table, ', '.join('`%s`' % c for c in columns),
                ', '.join(['%s'] * len(columns))), rows)
    connection.commit()


def fill(plane, count):
    """Write ``count`` servers into the plane's cell and cell0; the list
    every project sees and the one LISTING_PROJECT does, newest first, as
    uuids."""
    databases = {'cell': plane.databases[1], 'cell0': plane.databases[2]}
    connection = pymysql.connect(host='127.0.0.1', port=plane.mysql_port,
                                 user='root', password='',
                                 max_allowed_packet=64 * 1024 * 1024)
    rows = {'cell': [], 'cell0': []}
    faults = {'cell': [], 'cell0': []}
    everyone = []

    def flush():
        for cell in databases:
            insert(connection, databases[cell], 'instances',
                   _INSTANCE_COLUMNS, rows[cell])
            insert(connection, databases[cell], 'instance_faults',
                   _FAULT_COLUMNS, faults[cell])
            rows[cell], faults[cell] = [], []
    try:
        for cell, instance, fault in servers(count, plane.image_id):
            rows[cell].append(instance)
            if fault is not None:
                faults[cell].append(fault)
            everyone.append((instance[0], instance[2]))
            if len(rows['cell']) + len(rows['cell0']) >= ROWS_AN_INSERT:
                flush()
        flush()
        with connection.cursor() as cursor:
            for database in databases.values():
                cursor.execute('ANALYZE TABLE `%s`.instances' % database)
                cursor.fetchall()
    finally:
        connection.close()
    everyone.reverse()
    return {'all': [u for u, _p in everyone],
            'project': [u for u, p in everyone if p == LISTING_PROJECT]}


def percentile(samples, fraction):
    ordered = sorted(samples)
    return ordered[max(0, math.ceil(len(ordered) * fraction) - 1)]


def measure(client, path, expected, repeat):
    """Milliseconds of each of ``repeat`` GETs of ``path``; the run stops
    if a page is not ``expected`` (uuids)."""
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        response = client.get(path)
        samples.append((time.perf_counter() - start) * 1000)
        if response.status_code != 200:
            raise SystemExit('GET %s: %d %s' % (path, response.status_code,
                                                response.text[:500]))
        listed = [s['id'] for s in response.json()['servers']]
        if listed != expected:
            raise SystemExit('GET %s listed %d servers, not the %d '
                             'expected (first %s, expected %s)' % (
                                 path, len(listed), len(expected),
                                 listed[:1], expected[:1]))
    return samples


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--servers', type=int, default=5000)
    parser.add_argument('--limit', type=int, default=1000)
    parser.add_argument('--repeat', type=int, default=20)
    args = parser.parse_args()

    plane = fixtures.ControlPlane(computes=0)
    print('starting control plane...')
    try:
        plane.start()
        started = time.perf_counter()
        lists = fill(plane, args.servers)
        in_cell0, = plane.query(plane.databases[2],
                                'SELECT COUNT(*) AS n FROM instances')
        print('servers: %d written in %.1fs (%d in cell0), %d of them '
              '%s\'s' % (args.servers, time.perf_counter() - started,
                         in_cell0['n'], len(lists['project']),
                         LISTING_PROJECT))
        clients = {'all': plane.client(),
                   'project': plane.client('lister:' + LISTING_PROJECT)}
        query = {'all': 'all_tenants=1&', 'project': ''}
        limit = args.limit
        for scope, listed in lists.items():
            positions = [('first', None)]
            if len(listed) > 2 * limit:
                positions += [('middle', len(listed) // 2),
                              ('end', len(listed) - limit - 1)]
            for position, index in positions:
                path = '/servers/detail?%slimit=%d' % (query[scope], limit)
                start = 0
                if index is not None:
                    path += '&marker=%s' % listed[index]
                    start = index + 1
                # A first request outside the figures: connections and
                # caches warm.
                measure(clients[scope], path, listed[start:start + limit],
                        1)
                samples = measure(clients[scope], path,
                                  listed[start:start + limit], args.repeat)
                print('list_page_p95_ms %s %s: %.1f' % (
                    scope, position, percentile(samples, 0.95)))
                print('list_page_median_ms %s %s: %.1f' % (
                    scope, position, statistics.median(samples)))
        print('pages of %d among %d servers (%s: %d), %d requests each' % (
            limit, args.servers, LISTING_PROJECT, len(lists['project']),
            args.repeat))
    finally:
        plane.stop()


if __name__ == '__main__':
    main()
