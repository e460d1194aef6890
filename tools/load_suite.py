#!/usr/bin/env python3
"""Run the load scenarios at full size and print their figures.

    .venv/bin/python tools/load_suite.py                  # burst and soak
    .venv/bin/python tools/load_suite.py burst --hosts 50 --boots 200
    .venv/bin/python tools/load_suite.py soak --minutes 10

The burst: concurrent boots onto fake hosts (4 m1.small each, every fifth
host 5) with two schedulers and two conductors; it reports over-commit,
ERRORs beyond what capacity forces, placement conflicts and reschedules.
The soak: mixed operations with bounded loops and the audit every minute;
it reports the audits and each daemon's memory before and after, and, for
the daemons it traces with tracemalloc (``--trace``), the source lines
whose allocations grew most after the first minute. Every
daemon is a separate process; RabbitMQ and MariaDB are a node and a server
started for the run (``--shared-services``: the machine's own, whose
max_connections must then cover every daemon's pools).
Exit status 0 when nothing was over-committed, lost or left half-done.
"""

import argparse
import contextlib
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from tests.functional import faults  # noqa: E402
from tests.functional import load  # noqa: E402


@contextlib.contextmanager
def services(args):
    """The RabbitMQ and MariaDB the plane runs on: by default a node and
    a server of their own, the database with room for the connections two
    conductors, two schedulers, api, placement and network may pool
    (MariaDB's default of 151 is not); --shared-services: the machine's."""
    if args.shared_services:
        yield None
        return
    private = faults.PrivateServices(max_connections=args.max_connections)
    private.start()
    try:
        yield private
    finally:
        private.stop()


def run_burst(args):
    with services(args) as running:
        plane = load.plane_for_burst(args.hosts, services=running)
        try:
            figures = load.burst(plane, args.hosts, args.boots,
                                 threads=args.threads)
        finally:
            plane.stop()
    details = figures.pop('details')
    print(json.dumps(figures, indent=2))
    if details:
        print(details)
    return (figures['not final'] == 0 and
            figures['over-committed hosts'] == 0 and
            figures['audit violations'] == 0 and
            figures['listing problems'] == 0 and
            figures['ERROR beyond capacity'] == 0)


def run_soak(args):
    with services(args) as running:
        plane = load.plane_for_burst(args.soak_hosts, services=running)
        try:
            trace = None
            if args.trace:
                trace = load.MemoryTrace(plane, args.trace.split(','))
                trace.start()
            figures = load.soak(plane, seconds=int(args.minutes * 60),
                                audit_every=60, seed=args.seed,
                                trace=trace)
        finally:
            plane.stop()
    print(json.dumps(figures, indent=2))
    return not figures['violations'] and not figures['stuck servers']


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('which', nargs='?', choices=('burst', 'soak', 'all'),
                        default='all')
    parser.add_argument('--hosts', type=int, default=50)
    parser.add_argument('--boots', type=int, default=200)
    parser.add_argument('--threads', type=int, default=25,
                        help='client threads sending the boots')
    parser.add_argument('--minutes', type=float, default=10)
    parser.add_argument('--soak-hosts', type=int, default=3)
    parser.add_argument('--seed', type=int, default=None)
    parser.add_argument('--trace', default='conductor,compute1',
                        help='daemons of the soak that trace their memory '
                             'with tracemalloc (comma-separated; empty for '
                             'none): the soak prints where what they kept '
                             'after the first minute was allocated')
    parser.add_argument('--shared-services', action='store_true',
                        help="run on the machine's RabbitMQ (5672) and "
                             "MariaDB (3306) instead of a node and a server "
                             "started for the run")
    parser.add_argument('--max-connections', type=int, default=1000,
                        help="the private MariaDB's max_connections")
    args = parser.parse_args()
    ok = True
    if args.which in ('burst', 'all'):
        print('== burst: %d boots onto %d hosts (capacity %d) ==' % (
            args.boots, args.hosts, load.capacity(args.hosts)), flush=True)
        ok = run_burst(args) and ok
    if args.which in ('soak', 'all'):
        print('== soak: %.1f minutes ==' % args.minutes, flush=True)
        ok = run_soak(args) and ok
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
