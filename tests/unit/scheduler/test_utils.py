"""The scheduler's helpers on what an instance needs from placement."""

import testtools

from nova_lite import exception
from nova_lite.scheduler import utils as scheduler_utils
from tests.unit.network.test_client_helpers import EGRESS
from tests.unit.network.test_client_helpers import group
from tests.unit.network.test_client_helpers import PHYSNET_TRAIT


class TestMappingsFromAllocations(testtools.TestCase):
    """Which provider of an adopted claim serves each port's request
    group, found again from what the claim holds."""

    allocations = {
        'node': {'resources': {'VCPU': 1, 'MEMORY_MB': 512}},
        'rp-physnet1': {'resources': {EGRESS: 1000}},
        'rp-physnet0': {'resources': {EGRESS: 1000}},
    }
    traits = {'rp-physnet0': {PHYSNET_TRAIT},
              'rp-physnet1': {'CUSTOM_PHYSNET_PHYSNET1'}}

    def test_a_group_goes_to_the_provider_with_its_classes_and_traits(self):
        self.assertEqual({'p1': 'rp-physnet0'},
                         scheduler_utils.mappings_from_allocations(
                             [group('p1', traits=[PHYSNET_TRAIT])],
                             self.allocations, self.traits))

    def test_without_required_traits_the_first_provider_that_fits_wins(
            self):
        self.assertEqual({'p1': 'rp-physnet0'},
                         scheduler_utils.mappings_from_allocations(
                             [group('p1')], self.allocations, self.traits))

    def test_allocations_without_a_resources_key_are_read_as_amounts(self):
        self.assertEqual({'p1': 'rp-a'},
                         scheduler_utils.mappings_from_allocations(
                             [group('p1', egress=10)], {'rp-a': {EGRESS: 10}},
                             {}))

    def test_two_groups_do_not_share_what_only_one_of_them_fits_in(self):
        self.assertEqual(
            {'p1': 'rp-a', 'p2': 'rp-b'},
            scheduler_utils.mappings_from_allocations(
                [group('p1', egress=1000), group('p2', egress=1000)],
                {'rp-a': {EGRESS: 1000}, 'rp-b': {EGRESS: 1000}}, {}))

    def test_a_group_no_provider_can_hold_fails_naming_its_port(self):
        error = self.assertRaises(
            exception.PortUpdateFailed,
            scheduler_utils.mappings_from_allocations,
            [group('p1', egress=5000)], self.allocations, self.traits)
        self.assertIn('p1', error.format_message())


# -- binding -----------------------------------------------------------------
