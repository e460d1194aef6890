"""[placement] randomize_allocation_candidates on the real placement daemon
and MariaDB (its ORDER BY is the database's own random function)."""

from tests.functional import placement_fixtures
from tests.functional import test_placement_api


class TestRandomizedCandidates(test_placement_api.PlacementTestCase):

    @classmethod
    def setUpClass(cls):
        # The base class's daemon, with the option on.
        cls.server = placement_fixtures.PlacementServer(extra_conf="""
            [placement]
            randomize_allocation_candidates = true
            """)
        try:
            cls.server.start()
        except Exception:
            log = cls.server.log()
            cls.server.stop()
            raise AssertionError('placement did not start:\n' + log)

    def answered(self, limit, times=20):
        found = set()
        for _ in range(times):
            response = self.client.get(
                '/allocation_candidates',
                params={'resources': 'VCPU:1', 'limit': str(limit)})
            self.assertEqual(200, response.status_code, response.text)
            requests = response.json()['allocation_requests']
            self.assertEqual(limit, len(requests))
            found |= {rp for request in requests
                      for rp in request['allocations']}
        return found

    def test_a_limited_answer_is_a_sample_of_every_provider_that_fits(self):
        providers = {self.compute_node() for _ in range(12)}
        # 20 draws of 3 out of 12 (or more, made by other tests) all the
        # same 3: about 1 in 10^46.
        answered = self.answered(3)
        self.assertGreater(len(answered), 3)
        self.assertTrue(answered & providers)

    def test_in_a_nested_world_too(self):
        root = self.compute_node()
        self.compute_node(parent=root)
        for _ in range(11):
            self.compute_node()
        self.assertGreater(len(self.answered(3)), 3)
