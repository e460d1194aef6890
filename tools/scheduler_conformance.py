#!/usr/bin/env python
"""Scheduler conformance: nova_lite's decisions against real Nova 34's.

Generates seeded random scheduling cases (``tools/nova_oracle/cases.py``),
decides each one with nova_lite's ``scheduler simulate`` in-process and
with Nova 34's own scheduler (``tools/nova_oracle/oracle.py``, one process
of the ``.peers/nova34`` virtualenv for all the cases, made on first use),
and compares the decisions instance by instance: the chosen host and node,
then the alternates in order. Both sides see the hosts in the case's order
and sort by weight stably, so a tie must be decided the same way too.

A difference is "listed" when ours differs from Nova on purpose: the
``LISTED`` table below (and the README's "The scheduler and Nova 34") says
which and why, and each entry claims a difference only when the case has
what the entry is about. Every other difference is printed with its case
seed, both answers and both rankings, and makes the exit status 1.

Usage (from the repository root):
    .venv/bin/python tools/scheduler_conformance.py --seed 1 --cases 200
    .venv/bin/python tools/scheduler_conformance.py --seed 1 --case 17 \\
        --dump /tmp/case17      # one case: its JSON and both answers
"""

import argparse
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from tools.nova_oracle import cases as case_maker  # noqa: E402
from tools.nova_oracle import peer  # noqa: E402


class Listed:
    """A difference ours has on purpose: why, and which differences it
    explains (``applies(case, ours, nova, index)`` for the first instance
    whose decision differs, ``index``, or None when only one side found
    no valid host)."""

    def __init__(self, key, reason, applies):
        self.key = key
        self.reason = reason
        self.applies = applies


# The differences nova_lite keeps on purpose. Empty: every difference found
# so far is to be fixed (see the README, "The scheduler and Nova 34").
LISTED = []


def case_seed(seed, index):
    return '%s:%d' % (seed, index)


# -- the two sides -----------------------------------------------------------

_started = False


def _start_ours():
    global _started
    if _started:
        return
    from oslo_config import cfg
    from nova_lite import objects
    cfg.CONF([], project='nova-lite', default_config_files=[])
    objects.register_all()
    _started = True


def ours(case):
    """nova_lite's answer: ``simulate.run``, in this process."""
    _start_ours()
    from nova_lite.scheduler import simulate
    try:
        return simulate.run(case)
    except Exception as e:  # a case ours refuses is a difference too
        return {'case_error': '%s: %s' % (type(e).__name__, e)}


def nova(cases):
    """Nova 34's answers, from one oracle process."""
    return peer.run_oracle(cases)


# -- comparing ---------------------------------------------------------------

def decisions(answer):
    """[(host, node, [(host, node) of the alternates])] per instance; None
    when no valid host was found; the refusal's text when the case itself
    was refused."""
    if 'case_error' in answer:
        return answer['case_error']
    if 'error' in answer:
        return None
    return [(s['host'], s['nodename'],
             [(a['host'], a['nodename']) for a in s['alternates']])
            for s in answer['selections']]


def first_difference(ours_answer, nova_answer):
    """None when the decisions agree, else (instance index or None, what
    differs)."""
    mine, theirs = decisions(ours_answer), decisions(nova_answer)
    if isinstance(mine, str) or isinstance(theirs, str):
        if mine == theirs:
            return None
        return None, 'a case refused: ours %r, nova %r' % (mine, theirs)
    if mine is None or theirs is None:
        if mine is theirs:
            return None
        return None, ('ours found no valid host' if mine is None
                      else 'nova found no valid host')
    for index, (a, b) in enumerate(zip(mine, theirs)):
        if a[:2] != b[:2]:
            return index, 'chosen host'
        if a[2] != b[2]:
            return index, 'alternates'
    if len(mine) != len(theirs):
        return len(min(mine, theirs, key=len)), 'number of instances'
    return None


def compare(case, ours_answer, nova_answer):
    """('agree' | 'listed' | 'differ', detail)."""
    found = first_difference(ours_answer, nova_answer)
    if found is None:
        return 'agree', None
    index, what = found
    for listed in LISTED:
        if listed.applies(case, ours_answer, nova_answer, index):
            return 'listed', listed.key
    return 'differ', (index, what)


# -- reporting ---------------------------------------------------------------

def describe_case(case):
    request = case['request']
    parts = ['%d host(s)' % len(case['hosts']),
             '%d instance(s)' % request.get('num_instances', 1),
             'flavor %(vcpus)s vCPU / %(memory_mb)s MB' % request['flavor']]
    group = request.get('server_group')
    if group:
        parts.append('group %s (%d member(s) placed)' % (
            group['policy'], sum(len(m) for m in (
                group.get('members_on_hosts') or {}).values())))
    if request.get('availability_zone'):
        parts.append('zone %s' % request['availability_zone'])
    for key in ('scheduler_hints', 'ignore_hosts', 'force_hosts',
                'requested_destination'):
        if request.get(key):
            parts.append('%s %s' % (key, json.dumps(request[key])))
    if request.get('image'):
        parts.append('image %s' % json.dumps(request['image']['properties']))
    if case.get('config'):
        parts.append('config %s' % json.dumps(case['config'],
                                              sort_keys=True))
    return ', '.join(parts)


def _format_decision(answer):
    found = decisions(answer)
    if isinstance(found, str):
        return 'refused the case: %s' % found
    if found is None:
        return 'no valid host (%s)' % answer['error']['message']
    return '; '.join('%s%s [%s]' % (host, '' if node == host else
                                    '/' + node,
                                    ', '.join(a for a, _n in alternates))
                     for host, node, alternates in found)


def _format_ranking(answer, index, top=6):
    instances = answer.get('instances') or []
    if index is None or index >= len(instances):
        index = 0
    if not instances:
        return '-'
    ranking = instances[index].get('ranking') or []
    shown = ', '.join('%s %.6g' % (r['host'], r['weight'])
                      for r in ranking[:top])
    more = len(ranking) - top
    return shown + (' (+%d more)' % more if more > 0 else '')


def report(seed, case, ours_answer, nova_answer, detail):
    index, what = detail
    lines = ['DIFFERENT: case %s (%s differs%s)' % (
        seed, what, '' if index is None else ' at instance-%d' % index),
        '  case:  ' + describe_case(case),
        '  ours:  ' + _format_decision(ours_answer),
        '  nova:  ' + _format_decision(nova_answer),
        '  ours ranking: ' + _format_ranking(ours_answer, index),
        '  nova ranking: ' + _format_ranking(nova_answer, index)]
    return '\n'.join(lines)


def run(seed, count, max_hosts, only=None, dump=None, out=sys.stdout):
    """Generate, decide on both sides, compare; the summary counts."""
    indexes = [only] if only is not None else list(range(count))
    seeds = [case_seed(seed, i) for i in indexes]
    generated = [case_maker.generate(s, max_hosts) for s in seeds]
    theirs = nova(generated)
    counts = {'agree': 0, 'listed': 0, 'differ': 0}
    by_reason = {}
    for case_id, case, nova_answer in zip(seeds, generated, theirs):
        ours_answer = ours(case)
        verdict, detail = compare(case, ours_answer, nova_answer)
        counts[verdict] += 1
        if verdict == 'listed':
            by_reason[detail] = by_reason.get(detail, 0) + 1
        elif verdict == 'differ':
            print(report(case_id, case, ours_answer, nova_answer, detail),
                  file=out)
        if dump:
            os.makedirs(dump, exist_ok=True)
            name = case_id.replace(':', '-')
            for suffix, document in (('case', case), ('ours', ours_answer),
                                     ('nova', nova_answer)):
                with open(os.path.join(dump, '%s.%s.json' % (
                        name, suffix)), 'w') as f:
                    json.dump(document, f, indent=1, sort_keys=True)
    print('%d cases, %d agree, %d differ by a listed reason, %d differ' % (
        len(seeds), counts['agree'], counts['listed'], counts['differ']),
        file=out)
    for key, number in sorted(by_reason.items()):
        print('  listed %s: %d' % (key, number), file=out)
    return counts


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--seed', default='1',
                        help='the run\'s seed; case N is made from '
                             '"SEED:N"')
    parser.add_argument('--cases', type=int, default=100)
    parser.add_argument('--hosts', type=int, default=30,
                        help='at most this many hosts per case')
    parser.add_argument('--case', type=int,
                        help='only case N of the run')
    parser.add_argument('--dump', metavar='DIR',
                        help='write each case and both answers as JSON '
                             'into DIR')
    args = parser.parse_args(argv)
    counts = run(args.seed, args.cases, args.hosts, only=args.case,
                 dump=args.dump)
    return 1 if counts['differ'] else 0


if __name__ == '__main__':
    sys.exit(main())
