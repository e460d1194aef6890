"""nova_lite's scheduler decides as Nova 34's does.

Real Nova 34.0.0, installed from the package registry into
``.peers/nova34`` on first use (``tools/nova_oracle/peer.py``), decides
seeded random cases with its own scheduler in-process
(``tools/nova_oracle/oracle.py``); ``tools/scheduler_conformance.py``
compares each decision with ``scheduler simulate``'s. Here at a small
size: 40 cases of up to 30 hosts. A difference must be one the README
lists ("The scheduler and Nova 34"), or the test fails with the case's
seed and both answers.
"""

import json
import os
import subprocess
import sys

import fixtures
import testtools
import testtools.content

from tests.functional import fixtures as nova_fixtures
from tools.nova_oracle import peer

ROOT = nova_fixtures.ROOT
CONFORMANCE = os.path.join(ROOT, 'tools', 'scheduler_conformance.py')


class Nova34(fixtures.Fixture):
    """Nova 34's virtualenv, made once (test workers take turns)."""

    def _setUp(self):
        self.python = peer.ensure_installed()

    def decide(self, case):
        """Nova's answer to one case."""
        result = subprocess.run(
            [self.python, peer.ORACLE, '-'], input=json.dumps(case),
            capture_output=True, text=True, timeout=600)
        if result.returncode != 0:
            raise AssertionError('the oracle failed:\n' + result.stderr)
        return json.loads(result.stdout)


def host(name, **fields):
    return dict({'host': name, 'vcpus': 16, 'memory_mb': 8704,
                 'local_gb': 200}, **fields)


class TestOracle(testtools.TestCase):
    """The oracle is Nova's scheduler with placement's part played as
    placement plays it: a check that the harness itself measures what it
    says."""

    def setUp(self):
        super().setUp()
        self.nova = self.useFixture(Nova34())

    def test_placement_refuses_a_second_claim_on_a_host_with_room_for_one(
            self):
        # 8704 MB less the 512 MB a compute reserves: room for one 6000 MB
        # instance on each. "a" has more free vCPUs and still has after
        # one instance, but placement refuses the second claim on it, and
        # "b" takes that instance.
        answer = self.nova.decide({
            'hosts': [host('a'), host('b', vcpus_used=8)],
            'config': {'filter_scheduler': {
                'weight_classes': ['CPUWeigher']}},
            'request': {'flavor': {'vcpus': 1, 'memory_mb': 6000},
                        'num_instances': 2}})
        self.assertEqual(['a', 'b'], answer['chosen_hosts'])
        self.assertEqual(['a', 'a'], [
            i['ranking'][0]['host'] for i in answer['instances']])

    def test_hosts_of_equal_weight_keep_the_case_order(self):
        answer = self.nova.decide({
            'hosts': [host('c'), host('a'), host('b')],
            'request': {'flavor': {'vcpus': 1, 'memory_mb': 512}}})
        self.assertEqual(['c'], answer['chosen_hosts'])
        self.assertEqual([{'host': 'a', 'nodename': 'a'},
                          {'host': 'b', 'nodename': 'b'}],
                         answer['selections'][0]['alternates'])

    def test_a_zone_is_asked_of_placement_as_its_aggregate(self):
        answer = self.nova.decide({
            'hosts': [host('a'), host('b', free_ram_mb=1024)],
            'aggregates': [{'name': 'z', 'hosts': ['b'],
                            'metadata': {'availability_zone': 'az1'}}],
            'request': {'flavor': {'vcpus': 1, 'memory_mb': 512},
                        'availability_zone': 'az1'}})
        self.assertEqual(['b'], answer['chosen_hosts'])
        self.assertIn('member_of=in%3A', answer['placement_queries'][0])


class TestConformance(testtools.TestCase):

    def test_seeded_cases_decide_as_nova_34_does(self):
        self.useFixture(Nova34())
        env = dict(os.environ, PYTHONPATH=ROOT)
        result = subprocess.run(
            [sys.executable, CONFORMANCE, '--seed', 'ci', '--cases', '40',
             '--hosts', '30'], capture_output=True, text=True, env=env,
            cwd=ROOT, timeout=1200)
        self.addDetail('report', testtools.content.text_content(
            result.stdout + result.stderr[-4000:]))
        summary = [line for line in result.stdout.splitlines()
                   if line.startswith('40 cases, ')]
        self.assertEqual(1, len(summary), result.stderr[-4000:])
        self.assertTrue(summary[0].endswith(', 0 differ'),
                        result.stdout[-8000:])
        self.assertEqual(0, result.returncode)
