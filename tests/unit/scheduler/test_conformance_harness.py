"""The scheduler conformance harness's own parts: cases come from their
seed alone, and the comparison says what differs (the functional test
runs it against Nova 34)."""

import testtools

from tools.nova_oracle import cases
from tools import scheduler_conformance as conformance


def answer(*instances):
    """A simulate-shaped answer: per instance (host, [alternate hosts])."""
    return {'chosen_hosts': [h for h, _a in instances],
            'selections': [{'instance': 'instance-%d' % i, 'host': h,
                            'nodename': h,
                            'alternates': [{'host': a, 'nodename': a}
                                           for a in alternates]}
                           for i, (h, alternates) in enumerate(instances)]}


NO_VALID_HOST = {'chosen_hosts': [], 'selections': [],
                 'error': {'type': 'NoValidHost', 'message': 'none'}}


class TestCases(testtools.TestCase):

    def test_a_case_is_made_from_its_seed_alone(self):
        self.assertEqual(cases.generate('7:3', 30),
                         cases.generate('7:3', 30))
        self.assertNotEqual(cases.generate('7:3', 30),
                            cases.generate('7:4', 30))

    def test_cases_stay_within_the_host_bound_and_vary(self):
        made = [cases.generate('s:%d' % i, 12) for i in range(200)]
        self.assertTrue(all(1 <= len(c['hosts']) <= 12 for c in made))
        requests = [c['request'] for c in made]
        self.assertTrue(any(r.get('num_instances', 1) > 1
                            for r in requests))
        policies = {r['server_group']['policy'] for r in requests
                    if 'server_group' in r}
        self.assertEqual(set(cases.POLICIES), policies)
        self.assertTrue(any(r.get('availability_zone') for r in requests))
        self.assertTrue(any('config' in c for c in made))

    def test_the_benchmark_host_set_spreads_hosts_over_zones(self):
        hosts, aggregates = cases.host_set(30, zones=3)
        self.assertEqual(30, len(hosts))
        self.assertEqual([10, 10, 10],
                         [len(a['hosts']) for a in aggregates])


class TestCompare(testtools.TestCase):

    def verdict(self, ours, nova, case=None):
        return conformance.compare(case or {}, ours, nova)

    def test_the_same_hosts_and_alternates_agree(self):
        self.assertEqual(('agree', None), self.verdict(
            answer(('a', ['b', 'c'])), answer(('a', ['b', 'c']))))

    def test_both_without_a_valid_host_agree(self):
        self.assertEqual(('agree', None),
                         self.verdict(NO_VALID_HOST, NO_VALID_HOST))

    def test_another_chosen_host_differs_at_its_instance(self):
        self.assertEqual(('differ', (1, 'chosen host')), self.verdict(
            answer(('a', []), ('b', [])), answer(('a', []), ('c', []))))

    def test_alternates_in_another_order_differ(self):
        # Ties must be broken the same way: the order counts.
        self.assertEqual(('differ', (0, 'alternates')), self.verdict(
            answer(('a', ['b', 'c'])), answer(('a', ['c', 'b']))))

    def test_a_valid_host_on_one_side_only_differs(self):
        self.assertEqual(('differ', (None, 'nova found no valid host')),
                         self.verdict(answer(('a', [])), NO_VALID_HOST))

    def test_a_case_one_side_refuses_differs(self):
        verdict, (index, what) = self.verdict(
            {'case_error': 'unknown option'}, answer(('a', [])))
        self.assertEqual(('differ', None), (verdict, index))
        self.assertIn('unknown option', what)

    def test_a_listed_reason_explains_only_what_it_applies_to(self):
        listed = conformance.Listed(
            'multi', 'only for several instances',
            lambda case, ours, nova, index: index is not None and
            index > 0)
        self.patch(conformance, 'LISTED', [listed])
        self.assertEqual(('listed', 'multi'), self.verdict(
            answer(('a', []), ('b', [])), answer(('a', []), ('c', []))))
        self.assertEqual(('differ', (0, 'chosen host')), self.verdict(
            answer(('b', [])), answer(('c', []))))
