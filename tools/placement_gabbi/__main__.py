"""The command line: see the package's docstring."""

import argparse
import json
import sys

from tools.placement_gabbi import harness


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog='python -m tools.placement_gabbi',
        description="OpenStack Placement 16's gabbi tests against a "
                    "placement service over HTTP.")
    parser.add_argument('--target', choices=harness.TARGETS,
                        default='nova-lite',
                        help='nova-lite-placement (default) or OpenStack '
                             'Placement 16 itself')
    parser.add_argument('--file', action='append', dest='files',
                        metavar='NAME', help='a gabbi file (stem, e.g. '
                        'inventory, or inventory.yaml); repeat for more; '
                        'all by default')
    parser.add_argument('--workers', type=int, default=2,
                        help='files (servers) at a time (default 2)')
    parser.add_argument('--json', metavar='PATH',
                        help='write every test outcome here, as JSON')
    parser.add_argument('--failures', metavar='PATH',
                        help='write the failures grouped by area here')
    parser.add_argument('--logs', metavar='DIR',
                        help="keep each file's server log here, as "
                             "<file stem>.log")
    parser.add_argument('--prune-known', action='store_true',
                        help='take the listed tests that pass out of '
                             'known_differences.txt')
    parser.add_argument('--timings', action='store_true',
                        help="print each file's seconds by phase (server "
                             "start, database clone, server up, waiting "
                             "for the server, the gabbi run, stop)")
    parser.add_argument('-q', '--quiet', action='store_true',
                        help='no progress, no failure list: the table only')
    args = parser.parse_args(argv)

    def progress(stem, tests):
        failed = sum(t['status'] == 'fail' for t in tests)
        print('%-45s %3d tests %s' % (
            stem, len(tests), '%d failed' % failed if failed else 'ok'),
            file=sys.stderr, flush=True)

    report = harness.run(args.target, args.files, args.workers,
                         progress=None if args.quiet else progress,
                         logs=args.logs)
    print(report.summary(verbose=not args.quiet))
    if args.timings:
        print(report.timing_table())
    if args.json:
        with open(args.json, 'w') as f:
            json.dump(report.as_dict(), f, indent=1)
    if args.failures:
        with open(args.failures, 'w') as f:
            f.write(report.table() + '\n\n')
            f.write(report.failures_by_area() + '\n')
    if args.prune_known and report.fixed():
        harness.prune_known(set(report.fixed()))
        print('took %d tests out of %s' % (len(report.fixed()),
                                           harness.KNOWN))
    return 0 if report.ok else 1


if __name__ == '__main__':
    sys.exit(main())
