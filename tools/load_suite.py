#!/usr/bin/env python3
"""Run the load scenarios at full size and print their figures.

    .venv/bin/python tools/load_suite.py                  # burst and soak
    .venv/bin/python tools/load_suite.py burst --hosts 50 --boots 200
    .venv/bin/python tools/load_suite.py soak --minutes 10

The burst: concurrent boots onto fake hosts (4 m1.small each, every fifth
host 5) with two schedulers and two conductors; it reports over-commit,
ERRORs beyond what capacity forces, placement conflicts and reschedules.
The soak: mixed operations with bounded loops and the audit every minute;
it reports the audits and each daemon's memory before and after. Every
daemon is a separate process on the machine's RabbitMQ and MariaDB.
Exit status 0 when nothing was over-committed, lost or left half-done.
"""

import argparse
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from tests.functional import load  # noqa: E402


def run_burst(args):
    plane = load.plane_for_burst(args.hosts)
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
    plane = load.plane_for_burst(args.soak_hosts)
    try:
        figures = load.soak(plane, seconds=int(args.minutes * 60),
                            audit_every=60, seed=args.seed)
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
