"""tools/placement_gabbi's bookkeeping: test ids, the known-differences
file, what a report counts as a failure. (The runs themselves are
tests/functional/test_placement_gabbi.py.)"""

import os
import tempfile

import testtools

from tools.placement_gabbi import harness


class _File:
    def __init__(self, stem, ids):
        self.stem, self.ids, self.fixture = stem, ids, 'APIFixture'


class HarnessTest(testtools.TestCase):

    def test_ids_like_gabbi_and_unique(self):
        self.assertEqual('usage_get_total_usages',
                         harness.test_id('usage', 'get total Usages'))
        self.assertEqual(['a_x', 'a_y', 'a_x@2', 'a_x@3'],
                         harness.unique_ids(['a_x', 'a_y', 'a_x', 'a_x']))

    def test_known_round_trip_and_prune(self):
        path = os.path.join(tempfile.mkdtemp(), 'known.txt')
        self.addCleanup(os.remove, path)
        known = {'f_one': 'not yet: one thing', 'f_two': 'not yet: other',
                 'g_three': 'not yet: one thing'}
        harness.write_known(known, path)
        self.assertEqual(known, harness.load_known(path))
        with open(path) as f:
            text = f.read()
        self.assertIn('# not yet: one thing (2)\n', text)
        harness.prune_known({'f_one'}, path)
        self.assertEqual({'f_two': 'not yet: other',
                          'g_three': 'not yet: one thing'},
                         harness.load_known(path))
        with open(path) as f:
            self.assertIn('# not yet: one thing (1)\n', f.read())

    def test_report_unexpected_and_fixed(self):
        files = [_File('f', ['f_one', 'f_two', 'f_three', 'f_four'])]
        results = {'f': [
            {'id': 'f_one', 'status': 'fail', 'reason': 'listed'},
            {'id': 'f_two', 'status': 'fail', 'reason': 'new'},
            {'id': 'f_three', 'status': 'pass', 'reason': ''},
            {'id': 'f_four', 'status': 'skip', 'reason': 'not over HTTP'}]}
        report = harness.Report('nova-lite', files, results, 1.0)
        report.known = {'f_one': 'not yet: a', 'f_three': 'not yet: b',
                        'f_gone': 'not yet: c'}
        self.assertEqual(['f_two'],
                         [t['id'] for _, t in report.unexpected()])
        self.assertEqual(['f_three'], report.fixed())
        self.assertEqual(['f_gone'], report.unknown_ids())
        self.assertFalse(report.ok)
        self.assertAlmostEqual(100.0 / 3, report.percent)
        self.assertIn('not yet: a (1)', report.failures_by_area())
        self.assertIn('NOT LISTED: f (1)', report.failures_by_area())

    def test_openstack_target_fails_on_any_failure(self):
        files = [_File('f', ['f_one'])]
        report = harness.Report('openstack', files, {'f': [
            {'id': 'f_one', 'status': 'fail', 'reason': 'x'}]}, 1.0)
        self.assertEqual({}, report.known)
        self.assertFalse(report.ok)

    def test_server_conf_per_fixture(self):
        self.assertIn('enforce_new_defaults = true',
                      harness.server_conf('SecureRBACPolicyFixture', 'p'))
        for fixture in ('APIFixture', 'LegacyRBACPolicyFixture',
                        'GranularFixture'):
            self.assertEqual(harness.LEGACY_RBAC,
                             harness.server_conf(fixture, 'p'))
        self.assertIn('policy_file = /x/open.yaml',
                      harness.server_conf('OpenPolicyFixture',
                                          '/x/open.yaml'))
        self.assertIn('allowed_origin = http://valid.example.com',
                      harness.server_conf('CORSFixture', 'p'))
