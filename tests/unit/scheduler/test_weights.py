"""Weighers and how their numbers add up into a ranking of hosts."""

import testtools

from nova_lite import conf as nova_conf
from nova_lite.objects import instance_group as group_obj
from nova_lite.scheduler import weights
from nova_lite.scheduler.weights import activity
from nova_lite.scheduler.weights import affinity
from nova_lite.scheduler.weights import resources
from tests.unit import fixtures as nova_fixtures
from tests.unit.scheduler import fakes
from tests.unit.scheduler.fakes import add_cases
from tests.unit.scheduler.fakes import make_host
from tests.unit.scheduler.fakes import make_spec


class WeigherTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.config = self.useFixture(nova_fixtures.Config())

    def multipliers(self, **values):
        self.config.config(group='filter_scheduler', **values)

    def ranking(self, weigher_names, hosts, spec=None):
        ranked = weights.weigh_hosts(weights.load(weigher_names), hosts,
                                     spec or make_spec())
        return [state.host for _weight, state in ranked]


# -- normalisation -----------------------------------------------------------

NORMALIZE_CASES = [
    # name, raw values, normalised
    ('min_to_zero_and_max_to_one', [0, 5, 10], [0.0, 0.5, 1.0]),
    ('negative_values', [-10, 0, 10], [0.0, 0.5, 1.0]),
    ('order_is_kept', [10, 0, 5], [1.0, 0.0, 0.5]),
    ('offset_does_not_matter', [1000, 1005, 1010], [0.0, 0.5, 1.0]),
    ('all_equal_is_all_zero', [3, 3, 3], [0.0, 0.0, 0.0]),
    ('single_value_is_zero', [42], [0.0]),
]


def check_normalize(self, raw, expected):
    self.assertEqual(expected, weights.normalize(raw))


@add_cases(NORMALIZE_CASES, check_normalize)
class TestNormalize(testtools.TestCase):
    pass


# -- adding the weighers up --------------------------------------------------

class RecordingWeigher(weights.BaseHostWeigher):
    """Weighs by free RAM and remembers which hosts it was asked about."""

    def __init__(self, multiplier=1.0, applies=True):
        self._multiplier = multiplier
        self._applies = applies
        self.weighed = []

    def multiplier(self):
        return self._multiplier

    def applies(self, spec):
        return self._applies

    def weigh(self, host_state, spec):
        self.weighed.append(host_state.host)
        return host_state.free_ram_mb


class TestWeighHosts(WeigherTestCase):

    def test_total_is_the_sum_of_normalised_values_times_multipliers(self):
        self.multipliers(cpu_weight_multiplier=2.0)
        ram_rich = make_host('ram_rich', free_ram_mb=4096, vcpus_used=8)
        cpu_rich = make_host('cpu_rich', free_ram_mb=0, vcpus_used=0)
        ranked = weights.weigh_hosts(
            weights.load(['RAMWeigher', 'CPUWeigher']),
            [ram_rich, cpu_rich], make_spec())
        self.assertEqual([(2.0, 'cpu_rich'), (1.0, 'ram_rich')],
                         [(weight, state.host) for weight, state in ranked])

    def test_higher_total_ranks_first(self):
        hosts = [make_host('small', free_ram_mb=1024),
                 make_host('big', free_ram_mb=4096),
                 make_host('mid', free_ram_mb=2048)]
        self.assertEqual(['big', 'mid', 'small'],
                         self.ranking(['RAMWeigher'], hosts))

    def test_negative_multiplier_reverses_the_preference(self):
        self.multipliers(ram_weight_multiplier=-1.0)
        hosts = [make_host('small', free_ram_mb=1024),
                 make_host('big', free_ram_mb=4096),
                 make_host('mid', free_ram_mb=2048)]
        self.assertEqual(['small', 'mid', 'big'],
                         self.ranking(['RAMWeigher'], hosts))

    def test_negative_multiplier_gives_negative_weights(self):
        self.multipliers(ram_weight_multiplier=-3.0)
        hosts = [make_host('small', free_ram_mb=1024),
                 make_host('big', free_ram_mb=4096)]
        ranked = weights.weigh_hosts(weights.load(['RAMWeigher']), hosts,
                                     make_spec())
        # (Normalised from 0, not from the smallest value: 1024/4096.)
        self.assertEqual([(-0.75, 'small'), (-3.0, 'big')],
                         [(weight, state.host) for weight, state in ranked])

    def test_weigher_with_a_zero_multiplier_is_not_run(self):
        weigher = RecordingWeigher(multiplier=0.0)
        hosts = [make_host('small', free_ram_mb=1024),
                 make_host('big', free_ram_mb=4096)]
        ranked = weights.weigh_hosts([weigher], hosts, make_spec())
        self.assertEqual([], weigher.weighed)
        self.assertEqual([(0.0, 'small'), (0.0, 'big')],
                         [(weight, state.host) for weight, state in ranked])

    def test_weigher_that_does_not_apply_is_not_run(self):
        weigher = RecordingWeigher(applies=False)
        hosts = [make_host('small', free_ram_mb=1024),
                 make_host('big', free_ram_mb=4096)]
        ranked = weights.weigh_hosts([weigher], hosts, make_spec())
        self.assertEqual([], weigher.weighed)
        self.assertEqual(['small', 'big'], [s.host for _w, s in ranked])

    def test_weigher_that_applies_weighs_every_host_once(self):
        weigher = RecordingWeigher()
        hosts = [make_host('a'), make_host('b')]
        weights.weigh_hosts([weigher], hosts, make_spec())
        self.assertEqual(['a', 'b'], weigher.weighed)

    def test_weigher_seeing_all_hosts_equal_adds_the_same_to_each(self):
        hosts = [make_host('busy', vcpus_used=6),
                 make_host('idle', vcpus_used=0)]
        ranked = weights.weigh_hosts(
            weights.load(['RAMWeigher', 'CPUWeigher']), hosts, make_spec())
        # RAM: 1.0 each; CPU: 2/8 and 8/8 free.
        self.assertEqual([(2.0, 'idle'), (1.25, 'busy')],
                         [(weight, state.host) for weight, state in ranked])

    def test_ties_keep_the_input_order(self):
        hosts = [make_host(name) for name in ('c', 'a', 'b')]
        self.assertEqual(['c', 'a', 'b'],
                         self.ranking(['RAMWeigher', 'CPUWeigher'], hosts))

    def test_ranking_follows_the_weights_whatever_the_input_order(self):
        hosts = [make_host('c'), make_host('a', free_ram_mb=4095),
                 make_host('b', free_ram_mb=4000)]
        self.assertEqual(['c', 'a', 'b'],
                         self.ranking(['RAMWeigher'], hosts))
        hosts.reverse()
        self.assertEqual(['c', 'a', 'b'],
                         self.ranking(['RAMWeigher'], hosts))

    def test_resource_weighers_keep_their_values_at_zero_or_more(self):
        weigher = resources.RAMWeigher()
        self.assertEqual(0, weigher.bounded(-512))
        self.assertEqual(512, weigher.bounded(512))
        self.assertEqual(-5, activity.NumInstancesWeigher().bounded(-5))

    def test_overcommitted_host_weighs_as_one_with_nothing_free(self):
        hosts = [make_host('over', free_ram_mb=-1024),
                 make_host('empty', free_ram_mb=0),
                 make_host('free', free_ram_mb=1024)]
        ranked = weights.weigh_hosts(weights.load(['RAMWeigher']), hosts,
                                     make_spec())
        self.assertEqual([(1.0, 'free'), (0.0, 'over'), (0.0, 'empty')],
                         [(weight, state.host) for weight, state in ranked])

    def test_aggregate_multiplier_applies_to_its_hosts_only(self):
        hosts = [make_host('packed', free_ram_mb=1024,
                           aggregates=[{'ram_weight_multiplier': '-1.0'}]),
                 make_host('spread', free_ram_mb=2048)]
        ranked = weights.weigh_hosts(weights.load(['RAMWeigher']), hosts,
                                     make_spec())
        self.assertEqual([(1.0, 'spread'), (-0.5, 'packed')],
                         [(weight, state.host) for weight, state in ranked])

    def test_zero_multiplier_overridden_by_an_aggregate_is_run(self):
        self.multipliers(num_instances_weight_multiplier=0.0)
        hosts = [make_host('a', num_instances=4,
                           aggregates=[{'num_instances_weight_multiplier':
                                        '-1.0'}]),
                 make_host('b', num_instances=2)]
        ranked = weights.weigh_hosts(weights.load(['NumInstancesWeigher']),
                                     hosts, make_spec())
        self.assertEqual([(0.0, 'b'), (-1.0, 'a')],
                         [(weight, state.host) for weight, state in ranked])

    def test_build_failures_count_against_a_host(self):
        hosts = [make_host('failing', failed_builds=3),
                 make_host('fine', failed_builds=0)]
        ranked = weights.weigh_hosts(weights.load(['BuildFailureWeigher']),
                                     hosts, make_spec())
        self.assertEqual([(0.0, 'fine'), (-1000000.0, 'failing')],
                         [(weight, state.host) for weight, state in ranked])

    def test_single_host_weighs_nothing(self):
        ranked = weights.weigh_hosts(weights.load(['RAMWeigher']),
                                     [make_host('only')], make_spec())
        self.assertEqual([(0.0, 'only')],
                         [(weight, state.host) for weight, state in ranked])

    def test_no_hosts_no_ranking(self):
        self.assertEqual([], weights.weigh_hosts(
            [RecordingWeigher()], [], make_spec()))


# -- each weigher ------------------------------------------------------------

RAW_VALUE_CASES = [
    # name, weigher, host attributes, raw value (more is preferred by a
    # positive multiplier)
    ('ram_is_the_free_ram', resources.RAMWeigher,
     dict(ram_mb=4096, free_ram_mb=1000), 1000),
    ('ram_goes_negative_when_overcommitted', resources.RAMWeigher,
     dict(ram_mb=4096, free_ram_mb=-512), -512),
    ('cpu_is_the_free_vcpus', resources.CPUWeigher,
     dict(vcpus=8, vcpus_used=3), 5),
    ('cpu_counts_the_allocation_ratio', resources.CPUWeigher,
     dict(vcpus=4, vcpus_used=6, cpu_allocation_ratio=2.0), 2),
    ('disk_is_the_free_disk_in_mb', resources.DiskWeigher,
     dict(disk_gb=10, free_disk_mb=2048), 2048),
    ('io_ops_is_the_operations_in_progress', activity.IoOpsWeigher,
     dict(num_io_ops=3), 3),
    ('num_instances_is_the_instance_count', activity.NumInstancesWeigher,
     dict(num_instances=7), 7),
    ('build_failure_is_the_failures', activity.BuildFailureWeigher,
     dict(failed_builds=2), 2),
    ('hypervisor_version_is_the_version',
     activity.HypervisorVersionWeigher, dict(hypervisor_version=8002000),
     8002000),
    ('unknown_hypervisor_version_is_zero',
     activity.HypervisorVersionWeigher, dict(hypervisor_version=None), 0),
]


def check_raw_value(self, weigher_cls, host, raw):
    self.assertEqual(raw, weigher_cls().weigh(make_host('h1', **host),
                                              make_spec()))


@add_cases(RAW_VALUE_CASES, check_raw_value)
class TestWeigherRawValues(WeigherTestCase):
    pass


MULTIPLIER_CASES = [
    # name, weigher, its [filter_scheduler] option, sign applied to it
    ('ram', resources.RAMWeigher, 'ram_weight_multiplier', 1),
    ('cpu', resources.CPUWeigher, 'cpu_weight_multiplier', 1),
    ('disk', resources.DiskWeigher, 'disk_weight_multiplier', 1),
    ('io_ops', activity.IoOpsWeigher, 'io_ops_weight_multiplier', 1),
    ('num_instances', activity.NumInstancesWeigher,
     'num_instances_weight_multiplier', 1),
    ('build_failure', activity.BuildFailureWeigher,
     'build_failure_weight_multiplier', -1),
    ('hypervisor_version', activity.HypervisorVersionWeigher,
     'hypervisor_version_weight_multiplier', 1),
    ('soft_affinity', affinity.ServerGroupSoftAffinityWeigher,
     'soft_affinity_weight_multiplier', 1),
    ('soft_anti_affinity', affinity.ServerGroupSoftAntiAffinityWeigher,
     'soft_anti_affinity_weight_multiplier', 1),
]


def check_multiplier(self, weigher_cls, option, sign):
    self.multipliers(**{option: 7.5})
    weigher = weigher_cls()
    self.assertEqual(sign * 7.5, weigher.multiplier())
    self.assertEqual(option, weigher.option)
    # An aggregate's metadata of the same name overrides it for its hosts
    # (several: the lowest); a value that is no number is ignored.
    self.assertEqual(sign * 2.0, weigher.host_multiplier(make_host(
        'h1', aggregates=[{option: '3.0'}, {option: '2.0'}])))
    self.assertEqual(sign * 7.5, weigher.host_multiplier(make_host(
        'h2', aggregates=[{option: 'lots'}])))
    self.assertEqual(sign * 7.5, weigher.host_multiplier(make_host('h3')))


@add_cases(MULTIPLIER_CASES, check_multiplier)
class TestWeigherMultiplierOptions(WeigherTestCase):

    def test_soft_policy_multipliers_cannot_be_negative(self):
        self.assertRaises(ValueError, self.multipliers,
                          soft_affinity_weight_multiplier=-1.0)


DEFAULT_PREFERENCE_CASES = [
    # name, weigher, host preferred with the default multiplier, the other
    ('more_free_ram_wins', 'RAMWeigher', dict(free_ram_mb=4096),
     dict(free_ram_mb=1024)),
    ('more_free_vcpus_win', 'CPUWeigher', dict(vcpus_used=0),
     dict(vcpus_used=4)),
    ('more_free_disk_wins', 'DiskWeigher', dict(free_disk_mb=4096),
     dict(free_disk_mb=1024)),
    ('fewer_io_ops_win', 'IoOpsWeigher', dict(num_io_ops=0),
     dict(num_io_ops=5)),
    ('fewer_build_failures_win', 'BuildFailureWeigher',
     dict(failed_builds=0), dict(failed_builds=3)),
]


def check_default_preference(self, weigher_name, preferred, other):
    # The preferred host comes last: a tie would keep it last.
    hosts = [make_host('other', **other), make_host('preferred', **preferred)]
    self.assertEqual(['preferred', 'other'],
                     self.ranking([weigher_name], hosts))


@add_cases(DEFAULT_PREFERENCE_CASES, check_default_preference)
class TestDefaultPreferences(WeigherTestCase):

    def test_instance_count_is_ignored_by_default(self):
        hosts = [make_host('crowded', num_instances=10),
                 make_host('empty', num_instances=0)]
        self.assertEqual(['crowded', 'empty'],
                         self.ranking(['NumInstancesWeigher'], hosts))

    def test_negative_instance_count_multiplier_spreads(self):
        self.multipliers(num_instances_weight_multiplier=-1.0)
        hosts = [make_host('crowded', num_instances=10),
                 make_host('empty', num_instances=0)]
        self.assertEqual(['empty', 'crowded'],
                         self.ranking(['NumInstancesWeigher'], hosts))

    def test_positive_instance_count_multiplier_packs(self):
        self.multipliers(num_instances_weight_multiplier=1.0)
        hosts = [make_host('empty', num_instances=0),
                 make_host('crowded', num_instances=10)]
        self.assertEqual(['crowded', 'empty'],
                         self.ranking(['NumInstancesWeigher'], hosts))

    def test_build_failures_outweigh_every_other_default_weigher(self):
        names = nova_conf.CONF.filter_scheduler.weight_classes
        failing = make_host('failing', failed_builds=1)
        busy = make_host('busy', free_ram_mb=0, free_disk_mb=0,
                         vcpus_used=8, num_io_ops=20)
        self.assertEqual(['busy', 'failing'],
                         self.ranking(names, [failing, busy]))


# -- the soft server group policies ------------------------------------------

class TestSoftPolicyWeighers(WeigherTestCase):

    def hosts_with_members(self, group, counts):
        hosts = []
        for name, count in counts:
            state = make_host(name)
            fakes.add_members(group, state, count)
            hosts.append(state)
        return hosts

    def test_soft_affinity_prefers_hosts_with_more_members(self):
        group = fakes.make_group(group_obj.SOFT_AFFINITY)
        hosts = self.hosts_with_members(group, [('none', 0), ('two', 2),
                                                ('one', 1)])
        self.assertEqual(['two', 'one', 'none'],
                         self.ranking(['ServerGroupSoftAffinityWeigher'],
                                      hosts, make_spec(group=group)))

    def test_soft_anti_affinity_prefers_hosts_with_fewer_members(self):
        group = fakes.make_group(group_obj.SOFT_ANTI_AFFINITY)
        hosts = self.hosts_with_members(group, [('two', 2), ('one', 1),
                                                ('none', 0)])
        self.assertEqual(['none', 'one', 'two'],
                         self.ranking(['ServerGroupSoftAntiAffinityWeigher'],
                                      hosts, make_spec(group=group)))

    def test_soft_affinity_counts_a_group_host_as_one_member(self):
        group = fakes.make_group(group_obj.SOFT_AFFINITY)
        group.hosts = ['used']
        hosts = [make_host('unused'), make_host('used')]
        self.assertEqual(['used', 'unused'],
                         self.ranking(['ServerGroupSoftAffinityWeigher'],
                                      hosts, make_spec(group=group)))

    def test_soft_affinity_multiplier_can_outweigh_free_ram(self):
        self.multipliers(soft_affinity_weight_multiplier=2.0)
        group = fakes.make_group(group_obj.SOFT_AFFINITY)
        [member_host, roomy] = self.hosts_with_members(
            group, [('member_host', 1), ('roomy', 0)])
        member_host.free_ram_mb = 1024
        self.assertEqual(
            ['member_host', 'roomy'],
            self.ranking(['RAMWeigher', 'ServerGroupSoftAffinityWeigher'],
                         [roomy, member_host], make_spec(group=group)))

    def test_zero_soft_affinity_multiplier_leaves_the_ranking_alone(self):
        self.multipliers(soft_affinity_weight_multiplier=0.0)
        group = fakes.make_group(group_obj.SOFT_AFFINITY)
        hosts = self.hosts_with_members(group, [('none', 0), ('one', 1)])
        self.assertEqual(['none', 'one'],
                         self.ranking(['ServerGroupSoftAffinityWeigher'],
                                      hosts, make_spec(group=group)))


SOFT_APPLIES_CASES = [
    # name, weigher, group policy (None: no group), applies
    ('soft_affinity_for_its_policy', affinity.ServerGroupSoftAffinityWeigher,
     group_obj.SOFT_AFFINITY, True),
    ('soft_affinity_not_for_hard_affinity',
     affinity.ServerGroupSoftAffinityWeigher, group_obj.AFFINITY, False),
    ('soft_affinity_not_for_soft_anti_affinity',
     affinity.ServerGroupSoftAffinityWeigher, group_obj.SOFT_ANTI_AFFINITY,
     False),
    ('soft_affinity_not_without_group',
     affinity.ServerGroupSoftAffinityWeigher, None, False),
    ('soft_anti_affinity_for_its_policy',
     affinity.ServerGroupSoftAntiAffinityWeigher,
     group_obj.SOFT_ANTI_AFFINITY, True),
    ('soft_anti_affinity_not_for_hard_anti_affinity',
     affinity.ServerGroupSoftAntiAffinityWeigher, group_obj.ANTI_AFFINITY,
     False),
    ('soft_anti_affinity_not_without_group',
     affinity.ServerGroupSoftAntiAffinityWeigher, None, False),
    ('resource_weighers_always', resources.RAMWeigher, None, True),
]


def check_soft_applies(self, weigher_cls, policy, applies):
    group = fakes.make_group(policy) if policy else None
    self.assertEqual(applies, weigher_cls().applies(make_spec(group=group)))


@add_cases(SOFT_APPLIES_CASES, check_soft_applies)
class TestWeigherApplies(WeigherTestCase):
    pass
