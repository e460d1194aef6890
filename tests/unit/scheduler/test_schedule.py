"""The pipeline: host states -> filters -> weighers -> choice, instance by
instance, and the FilterScheduler that runs it for select_destinations."""

from oslo_utils import uuidutils
import testtools

from nova_lite import conf as nova_conf
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import instance_group as group_obj
from nova_lite.scheduler import filter_scheduler
from nova_lite.scheduler import filters
from nova_lite.scheduler import weights
from tests.unit import fixtures as nova_fixtures
from tests.unit.scheduler import fakes
from tests.unit.scheduler.fakes import add_cases
from tests.unit.scheduler.fakes import CELL1
from tests.unit.scheduler.fakes import CELL2
from tests.unit.scheduler.fakes import hosts_of
from tests.unit.scheduler.fakes import make_host
from tests.unit.scheduler.fakes import make_spec

CONF = nova_conf.CONF

# No weigher at all: every host weighs 0 and the first that passes the
# filters is chosen, so only the filters decide.
NO_WEIGHERS = []


class ScheduleTestCase(testtools.TestCase):
    """Runs ``schedule()`` with the configured filters and weighers unless
    a test names others."""

    def setUp(self):
        super().setUp()
        self.config = self.useFixture(nova_fixtures.Config())
        self.config.config(group='filter_scheduler',
                           enabled_filters=fakes.PIPELINE_FILTERS)

    def schedule(self, hosts, spec=None, num=1, filter_names=None,
                 weigher_names=None, **kwargs):
        spec = spec or make_spec()
        uuids = [uuidutils.generate_uuid() for _ in range(num)]
        if filter_names is None:
            filter_names = CONF.filter_scheduler.enabled_filters
        if weigher_names is None:
            weigher_names = CONF.filter_scheduler.weight_classes
        return filter_scheduler.schedule(
            spec, uuids, hosts, filters.load(filter_names),
            weights.load(weigher_names), **kwargs)

    def chosen(self, *args, **kwargs):
        """The host chosen for each instance."""
        return [states[0].host
                for states in self.schedule(*args, **kwargs)]

    def no_valid_host(self, *args, **kwargs):
        """The explanation of the NoValidHost the request fails with."""
        error = self.assertRaises(exception.NoValidHost, self.schedule,
                                  *args, **kwargs)
        prefix = 'No valid host was found. '
        message = error.format_message()
        self.assertTrue(message.startswith(prefix), message)
        return message[len(prefix):]


# -- the filters, one after the other ----------------------------------------

class TestRunFilters(testtools.TestCase):

    def filters(self, *names):
        return filters.load(names or ['RamFilter', 'ComputeFilter'])

    def removed(self, result):
        return [(name, reason, hosts_of(states))
                for name, reason, states in result.removed]

    def test_hosts_passing_every_filter_remain_in_order(self):
        hosts = [make_host('b'), make_host('small', free_ram_mb=256),
                 make_host('a')]
        passed, _result = filter_scheduler.run_filters(
            self.filters(), hosts, make_spec(memory_mb=512))
        self.assertEqual(['b', 'a'], hosts_of(passed))

    def test_result_lists_the_hosts_each_filter_removed(self):
        hosts = [make_host('small', free_ram_mb=256), make_host('ok'),
                 make_host('down', up=False)]
        _passed, result = filter_scheduler.run_filters(
            self.filters(), hosts, make_spec(memory_mb=512))
        self.assertEqual(
            [('RamFilter', 'insufficient RAM', ['small']),
             ('ComputeFilter', 'compute service down or disabled',
              ['down'])],
            self.removed(result))

    def test_a_host_removed_by_one_filter_is_not_seen_by_the_next(self):
        hosts = [make_host('small_and_down', free_ram_mb=256, up=False)]
        _passed, result = filter_scheduler.run_filters(
            self.filters(), hosts, make_spec(memory_mb=512))
        self.assertEqual([('RamFilter', 'insufficient RAM',
                           ['small_and_down'])], self.removed(result))

    def test_filters_after_the_last_host_is_gone_do_not_run(self):
        hosts = [make_host('small', free_ram_mb=256)]
        _passed, result = filter_scheduler.run_filters(
            self.filters('RamFilter', 'ComputeFilter', 'DiskFilter'),
            hosts, make_spec(memory_mb=512))
        self.assertEqual(['RamFilter'],
                         [name for name, _r, _h in result.removed])

    def test_filters_that_do_not_apply_are_skipped(self):
        hosts = [make_host('h1')]
        _passed, result = filter_scheduler.run_filters(
            self.filters('AvailabilityZoneFilter', 'RamFilter',
                         'ServerGroupAffinityFilter'), hosts, make_spec())
        self.assertEqual([('RamFilter', 'insufficient RAM', [])],
                         self.removed(result))

    def test_explanation_counts_the_hosts_each_filter_removed(self):
        hosts = [make_host('small%d' % i, free_ram_mb=256) for i in range(3)]
        hosts.append(make_host('down', up=False))
        passed, result = filter_scheduler.run_filters(
            self.filters(), hosts, make_spec(memory_mb=512))
        self.assertEqual([], passed)
        self.assertEqual('0/4 hosts available: 3 insufficient RAM, 1 compute '
                         'service down or disabled', result.explain())

    def test_explanation_leaves_out_filters_that_removed_nothing(self):
        hosts = [make_host('down', up=False)]
        _passed, result = filter_scheduler.run_filters(
            self.filters(), hosts, make_spec(memory_mb=512))
        self.assertEqual('0/1 hosts available: 1 compute service down or '
                         'disabled', result.explain())

    def test_explanation_without_hosts(self):
        _passed, result = filter_scheduler.run_filters(self.filters(), [],
                                                       make_spec())
        self.assertEqual('0/0 hosts available', result.explain())


# -- choosing a host ---------------------------------------------------------

class TestChoice(ScheduleTestCase):

    def ram_hosts(self):
        return [make_host('h1024', free_ram_mb=1024),
                make_host('h4096', free_ram_mb=4096),
                make_host('h2048', free_ram_mb=2048)]

    def test_best_weighed_host_is_chosen(self):
        self.assertEqual(['h4096'], self.chosen(self.ram_hosts()))

    def test_equal_weights_choose_the_first_host(self):
        hosts = [make_host(name) for name in ('c', 'a', 'b')]
        self.assertEqual(['c'], self.chosen(hosts))

    def test_chooser_is_offered_the_best_subset_size_hosts_best_first(self):
        offered = []

        def chooser(choices):
            offered.append([(w, s.host) for w, s in choices])
            return choices[0]
        self.chosen(self.ram_hosts(), weigher_names=['RAMWeigher'],
                    subset_size=2, chooser=chooser)
        self.assertEqual([[(1.0, 'h4096'), (0.5, 'h2048')]], offered)

    def test_host_the_chooser_picks_is_chosen(self):
        self.assertEqual(['h2048'], self.chosen(
            self.ram_hosts(), subset_size=2, chooser=lambda c: c[-1]))

    def test_subset_larger_than_the_hosts_offers_them_all(self):
        offered = []

        def chooser(choices):
            offered.append(hosts_of(s for _w, s in choices))
            return choices[0]
        self.chosen(self.ram_hosts(), subset_size=10, chooser=chooser)
        self.assertEqual([['h4096', 'h2048', 'h1024']], offered)

    def test_subset_size_one_always_gives_the_best_host(self):
        # No chooser: the default one picks at random among one host.
        for _ in range(10):
            self.assertEqual(['h4096'], self.chosen(self.ram_hosts()))

    def test_shuffle_reorders_only_the_hosts_sharing_the_best_weight(self):
        self.config.config(group='filter_scheduler',
                           shuffle_best_same_weighed_hosts=True)
        seen = set()
        for _ in range(40):
            hosts = [make_host(name) for name in ('a', 'b', 'c')] + [
                make_host('small', free_ram_mb=512)]
            [[chosen, *alternates]] = self.schedule(
                hosts, weigher_names=['RAMWeigher'], max_alternates=3)
            seen.add(chosen.host)
            self.assertEqual('small', alternates[-1].host)
        self.assertEqual({'a', 'b', 'c'}, seen)

    def test_a_later_instance_prefers_the_last_host_among_equals(self):
        hosts = [make_host('a'), make_host('b'), make_host('c')]
        self.assertEqual(['a', 'a', 'a'], self.chosen(
            hosts, num=3, weigher_names=NO_WEIGHERS))

    def test_num_instances_counts_when_no_uuids_are_given(self):
        hosts = [make_host('h1'), make_host('h2')]
        chosen = filter_scheduler.schedule(
            make_spec(num_instances=3), [], hosts, filters.load([]),
            weights.load([]))
        self.assertEqual(3, len(chosen))


# -- one instance after the other --------------------------------------------

class TestConsumption(ScheduleTestCase):

    def test_chosen_host_gives_up_what_the_instance_takes(self):
        state = make_host('h1', ram_mb=4096, disk_gb=100, vcpus=8)
        spec = make_spec(memory_mb=1024, vcpus=2, root_gb=10,
                         ephemeral_gb=5, swap=512)
        self.schedule([state], spec)
        # (Swap is left to placement, as in Nova.)
        self.assertEqual(
            (3072, 100 * 1024 - 15 * 1024, 2, 1, 1),
            (state.free_ram_mb, state.free_disk_mb, state.vcpus_used,
             state.num_instances, state.num_io_ops))

    def test_chosen_host_lists_the_instance(self):
        state = make_host('h1')
        spec = make_spec()
        filter_scheduler.schedule(spec, ['i1'], [state], [], [])
        self.assertEqual({'i1'}, state.instances)

    def test_later_instances_see_what_earlier_ones_took(self):
        hosts = [make_host('h1', free_ram_mb=512),
                 make_host('h2', free_ram_mb=512)]
        self.assertEqual(['h1', 'h2'], self.chosen(
            hosts, make_spec(memory_mb=512), num=2,
            weigher_names=NO_WEIGHERS))

    def test_consumption_shifts_the_weights_between_instances(self):
        hosts = [make_host('h1'), make_host('h2'), make_host('h3')]
        self.assertEqual(['h1', 'h2', 'h3'], self.chosen(
            hosts, num=3, weigher_names=['RAMWeigher']))

    def test_consumed_resources_can_leave_a_later_instance_without_host(self):
        hosts = [make_host('h1', free_ram_mb=512)]
        self.assertEqual('0/1 hosts available: 1 insufficient RAM',
                         self.no_valid_host(hosts, make_spec(memory_mb=512),
                                            num=2))

    def test_boot_from_volume_instances_count_the_flavor_root_disk(self):
        # As Nova's host state does: placement, not this count, is what
        # keeps a boot-from-volume instance off a host short of disk.
        state = make_host('h1', disk_gb=100)
        self.assertEqual(['h1', 'h1'], self.chosen(
            [state], make_spec(root_gb=20, is_bfv=True), num=2,
            filter_names=['ComputeFilter']))
        self.assertEqual(60 * 1024, state.free_disk_mb)


# -- server groups -----------------------------------------------------------

class TestServerGroups(ScheduleTestCase):

    def hosts(self, count=3, **kwargs):
        return [make_host('h%d' % i, **kwargs) for i in range(1, count + 1)]

    def test_anti_affinity_multi_create_lands_on_distinct_hosts(self):
        group = fakes.make_group(group_obj.ANTI_AFFINITY)
        self.assertEqual(['h1', 'h2', 'h3'], self.chosen(
            self.hosts(), make_spec(group=group), num=3,
            weigher_names=NO_WEIGHERS))

    def test_anti_affinity_multi_create_lands_on_distinct_hosts_not_nodes(
            self):
        group = fakes.make_group(group_obj.ANTI_AFFINITY)
        hosts = [make_host('h1', nodename='n1'),
                 make_host('h1', nodename='n2'),
                 make_host('h2', nodename='n3')]
        self.assertEqual(['h1', 'h2'], self.chosen(
            hosts, make_spec(group=group), num=2,
            weigher_names=NO_WEIGHERS))

    def test_anti_affinity_with_more_instances_than_hosts_fails(self):
        group = fakes.make_group(group_obj.ANTI_AFFINITY)
        self.assertEqual(
            '0/2 hosts available: 2 anti-affinity policy',
            self.no_valid_host(self.hosts(2), make_spec(group=group),
                               num=3))

    def test_anti_affinity_avoids_hosts_with_existing_members(self):
        group = fakes.make_group(group_obj.ANTI_AFFINITY)
        hosts = self.hosts()
        fakes.add_members(group, hosts[0])
        self.assertEqual(['h2'], self.chosen(
            hosts, make_spec(group=group), weigher_names=NO_WEIGHERS))

    def test_anti_affinity_max_server_per_host_fills_each_host_to_it(self):
        group = fakes.make_group(group_obj.ANTI_AFFINITY,
                                 {'max_server_per_host': '2'})
        self.assertEqual(['h1', 'h1', 'h2', 'h2'], self.chosen(
            self.hosts(2), make_spec(group=group), num=4,
            weigher_names=NO_WEIGHERS))

    def test_anti_affinity_max_server_per_host_is_a_ceiling(self):
        group = fakes.make_group(group_obj.ANTI_AFFINITY,
                                 {'max_server_per_host': '2'})
        self.assertIn('2 anti-affinity policy', self.no_valid_host(
            self.hosts(2), make_spec(group=group), num=5))

    def test_affinity_multi_create_lands_on_one_host(self):
        # The weighers alone would spread the instances.
        group = fakes.make_group(group_obj.AFFINITY)
        chosen = self.chosen(self.hosts(), make_spec(group=group), num=3)
        self.assertEqual(1, len(set(chosen)), chosen)

    def test_affinity_follows_existing_members(self):
        group = fakes.make_group(group_obj.AFFINITY)
        hosts = [make_host('roomy'), make_host('member_host',
                                               free_ram_mb=1024)]
        fakes.add_members(group, hosts[1])
        self.assertEqual(['member_host', 'member_host'], self.chosen(
            hosts, make_spec(group=group), num=2))

    def test_affinity_host_without_room_is_no_valid_host(self):
        group = fakes.make_group(group_obj.AFFINITY)
        hosts = [make_host('member_host', free_ram_mb=0), make_host('roomy')]
        fakes.add_members(group, hosts[0])
        self.assertEqual(
            '0/2 hosts available: 1 insufficient RAM, 1 affinity policy: '
            'not a host of the group',
            self.no_valid_host(hosts, make_spec(group=group)))

    def test_soft_affinity_stacks_against_spreading_weighers(self):
        self.config.config(soft_affinity_weight_multiplier=2.0,
                           group='filter_scheduler')
        group = fakes.make_group(group_obj.SOFT_AFFINITY)
        self.assertEqual(['h1', 'h1', 'h1'], self.chosen(
            self.hosts(), make_spec(group=group), num=3,
            weigher_names=['RAMWeigher', 'ServerGroupSoftAffinityWeigher']))

    def test_soft_affinity_goes_elsewhere_when_its_host_is_full(self):
        self.config.config(soft_affinity_weight_multiplier=2.0,
                           group='filter_scheduler')
        group = fakes.make_group(group_obj.SOFT_AFFINITY)
        self.assertEqual(['h1', 'h1', 'h2'], self.chosen(
            self.hosts(ram_mb=1024), make_spec(memory_mb=512, group=group),
            num=3, weigher_names=['RAMWeigher',
                                  'ServerGroupSoftAffinityWeigher']))

    def test_soft_anti_affinity_spreads(self):
        group = fakes.make_group(group_obj.SOFT_ANTI_AFFINITY)
        # The fourth ties everywhere and, as in Nova, the host just chosen
        # comes first among equals.
        self.assertEqual(['h1', 'h2', 'h3', 'h3'], self.chosen(
            self.hosts(), make_spec(group=group), num=4,
            weigher_names=['ServerGroupSoftAntiAffinityWeigher']))

    def test_soft_anti_affinity_spreads_over_hosts_not_nodes(self):
        group = fakes.make_group(group_obj.SOFT_ANTI_AFFINITY)
        hosts = [make_host('h1', nodename='n1'),
                 make_host('h1', nodename='n2'),
                 make_host('h2', nodename='n3')]
        self.assertEqual(['h1', 'h2'], self.chosen(
            hosts, make_spec(group=group), num=2,
            weigher_names=['ServerGroupSoftAntiAffinityWeigher']))

    def test_soft_anti_affinity_with_one_host_stacks(self):
        group = fakes.make_group(group_obj.SOFT_ANTI_AFFINITY)
        self.assertEqual(['h1', 'h1', 'h1'], self.chosen(
            self.hosts(1), make_spec(group=group), num=3))

    def test_group_records_where_its_new_members_went(self):
        group = fakes.make_group(group_obj.ANTI_AFFINITY)
        filter_scheduler.schedule(
            make_spec(group=group), ['i1', 'i2'], self.hosts(),
            filters.load(['ServerGroupAntiAffinityFilter']), [])
        self.assertEqual((['i1', 'i2'], ['h1', 'h2']),
                         (group.members, group.hosts))


POLICY_CASES = [
    # name, policy, filters enabled, weighers enabled, what is missing
    ('affinity_needs_its_filter', group_obj.AFFINITY,
     ['ServerGroupAntiAffinityFilter'], [],
     'the filter ServerGroupAffinityFilter is not in [filter_scheduler] '
     'enabled_filters'),
    ('anti_affinity_needs_its_filter', group_obj.ANTI_AFFINITY,
     ['ServerGroupAffinityFilter'], [],
     'the filter ServerGroupAntiAffinityFilter is not in '
     '[filter_scheduler] enabled_filters'),
    ('soft_affinity_needs_its_weigher', group_obj.SOFT_AFFINITY,
     ['ServerGroupAffinityFilter'], ['ServerGroupSoftAntiAffinityWeigher'],
     'the weigher ServerGroupSoftAffinityWeigher is not in '
     '[filter_scheduler] weight_classes'),
    ('soft_anti_affinity_needs_its_weigher', group_obj.SOFT_ANTI_AFFINITY,
     [], ['ServerGroupSoftAffinityWeigher'],
     'the weigher ServerGroupSoftAntiAffinityWeigher is not in '
     '[filter_scheduler] weight_classes'),
    ('unknown_policy_is_refused', 'clustered',
     ['ServerGroupAffinityFilter', 'ServerGroupAntiAffinityFilter'],
     ['ServerGroupSoftAffinityWeigher',
      'ServerGroupSoftAntiAffinityWeigher'], 'unknown policy'),
]


def check_unsupported_policy(self, policy, filter_names, weigher_names,
                             missing):
    group = fakes.make_group(policy)
    state = make_host('h1')
    error = self.assertRaises(
        exception.UnsupportedPolicy, self.schedule, [state],
        make_spec(group=group), filter_names=filter_names,
        weigher_names=weigher_names)
    self.assertEqual(
        'The scheduler cannot honour the %s policy of server group %s: %s'
        % (policy, group.uuid, missing), error.format_message())
    self.assertEqual(4096, state.free_ram_mb, 'nothing is consumed')


@add_cases(POLICY_CASES, check_unsupported_policy)
class TestCheckPolicy(ScheduleTestCase):

    def test_each_policy_is_honoured_with_the_default_configuration(self):
        for policy in group_obj.POLICIES:
            self.assertEqual(['h1'], self.chosen(
                [make_host('h1')], make_spec(group=fakes.make_group(policy))))

    def test_a_request_without_group_needs_no_group_filter(self):
        self.assertEqual(['h1'], self.chosen(
            [make_host('h1')], filter_names=[], weigher_names=[]))

    def test_unsupported_policy_is_a_no_valid_host(self):
        self.assertTrue(issubclass(exception.UnsupportedPolicy,
                                   exception.NoValidHost))


# -- alternates --------------------------------------------------------------

class TestAlternates(ScheduleTestCase):

    def alternates(self, hosts, **kwargs):
        [states] = self.schedule(hosts, weigher_names=['RAMWeigher'],
                                 **kwargs)
        return hosts_of(states[1:])

    def ram_hosts(self, count=6, cell_uuid=CELL1):
        return [make_host('h%d' % i, free_ram_mb=1000 + i,
                          cell_uuid=cell_uuid) for i in range(count)]

    def test_alternates_follow_the_ranking_and_are_capped(self):
        self.assertEqual(['h4', 'h3'],
                         self.alternates(self.ram_hosts(), max_alternates=2))

    def test_no_alternates_when_none_are_asked_for(self):
        self.assertEqual([], self.alternates(self.ram_hosts(),
                                             max_alternates=0))

    def test_fewer_alternates_when_fewer_hosts_passed(self):
        self.assertEqual(['h0'], self.alternates(self.ram_hosts(2),
                                                 max_alternates=5))

    def test_alternates_exclude_the_chosen_host(self):
        self.assertEqual(['h5', 'h3', 'h2'], self.alternates(
            self.ram_hosts(), max_alternates=3, subset_size=2,
            chooser=lambda choices: choices[1]))

    def test_alternates_come_from_the_chosen_hosts_cell_only(self):
        hosts = [make_host('best', free_ram_mb=4096),
                 make_host('other_cell', cell_uuid=CELL2, free_ram_mb=2048),
                 make_host('same_cell', free_ram_mb=1024)]
        self.assertEqual(['same_cell'],
                         self.alternates(hosts, max_alternates=2))

    def test_alternates_passed_the_filters(self):
        hosts = [make_host('h1'), make_host('down', up=False),
                 make_host('h2', free_ram_mb=1024)]
        self.assertEqual(['h2'], self.alternates(hosts, max_alternates=2))

    def test_a_multi_create_shares_alternates_none_of_its_hosts(self):
        # As Nova: ranked once more after every instance took its share,
        # and none of the hosts the request chose.
        hosts = [make_host(name) for name in ('a', 'b', 'c')]
        chosen = self.schedule(hosts, make_spec(memory_mb=2048), num=2,
                               weigher_names=['RAMWeigher'],
                               max_alternates=2)
        self.assertEqual([['a', 'c'], ['b', 'c']],
                         [hosts_of(states) for states in chosen])

    def test_multi_create_alternates_from_the_last_ranking(self):
        hosts = [make_host('a', free_ram_mb=4096),
                 make_host('b', free_ram_mb=3000),
                 make_host('c', free_ram_mb=2500),
                 make_host('d', free_ram_mb=2100)]
        chosen = self.schedule(hosts, make_spec(memory_mb=2048), num=2,
                               weigher_names=['RAMWeigher'],
                               max_alternates=2)
        # a, then b (a has 2048 MB left, b 3000); last, c (2500), d (2100)
        # and a (2048) rank and pass, b (952) does not.
        self.assertEqual([['a', 'c', 'd'], ['b', 'c', 'd']],
                         [hosts_of(states) for states in chosen])


# -- ignored and forced hosts ------------------------------------------------

class TestIgnoredAndForcedHosts(ScheduleTestCase):

    def test_ignored_hosts_are_not_chosen(self):
        hosts = [make_host('best', free_ram_mb=4096),
                 make_host('h2', free_ram_mb=1024)]
        [states] = self.schedule(hosts, make_spec(ignore_hosts=['best']),
                                 max_alternates=2)
        self.assertEqual(['h2'], hosts_of(states))

    def test_ignored_hosts_are_counted_in_the_explanation(self):
        hosts = [make_host('ignored'), make_host('off', disabled=True)]
        self.assertEqual(
            '0/2 hosts available: 1 ignored host, 1 compute service down '
            'or disabled',
            self.no_valid_host(hosts, make_spec(ignore_hosts=['ignored'])))

    def test_forced_host_is_chosen_without_filters(self):
        hosts = [make_host('roomy'),
                 make_host('full', free_ram_mb=0, up=False)]
        self.assertEqual(['full'], self.chosen(
            hosts, make_spec(memory_mb=512, force_hosts=['full'])))

    def test_forced_host_takes_every_instance_of_the_request(self):
        group = fakes.make_group(group_obj.ANTI_AFFINITY)
        self.assertEqual(['h1', 'h1'], self.chosen(
            [make_host('h1'), make_host('h2')],
            make_spec(force_hosts=['h1'], group=group), num=2))

    def test_forced_hosts_are_weighed(self):
        hosts = [make_host('small', free_ram_mb=1024), make_host('other'),
                 make_host('big', free_ram_mb=2048)]
        self.assertEqual(['big'], self.chosen(
            hosts, make_spec(force_hosts=['small', 'big'])))

    def test_forced_host_that_is_not_there_is_no_valid_host(self):
        self.assertEqual(
            '0/1 hosts available: 1 not the forced host',
            self.no_valid_host([make_host('h1')],
                               make_spec(force_hosts=['elsewhere'])))

    def test_forced_node_picks_one_node_of_a_host(self):
        hosts = [make_host('h1', nodename='n1'),
                 make_host('h1', nodename='n2', free_ram_mb=0)]
        [states] = self.schedule(hosts, make_spec(force_nodes=['n2']))
        self.assertEqual('n2', states[0].nodename)

    def test_forced_host_and_node_must_both_match(self):
        hosts = [make_host('h1', nodename='n1'),
                 make_host('h2', nodename='n2')]
        self.assertIn('2 not the forced host', self.no_valid_host(
            hosts, make_spec(force_hosts=['h1'], force_nodes=['n2'])))

    def test_an_ignored_host_cannot_be_forced(self):
        self.assertRaises(
            exception.NoValidHost, self.schedule, [make_host('h1')],
            make_spec(force_hosts=['h1'], ignore_hosts=['h1']))


# -- a move's requested destination ------------------------------------------

class TestRequestedDestination(ScheduleTestCase):
    """A move to a named host that was not forced: that host is the only
    candidate, and every filter still runs on it."""

    def move_to(self, host, node=None, **kwargs):
        return make_spec(ignore_hosts=['source'],
                         requested_destination=objects.Destination(
                             host=host, node=node), **kwargs)

    def test_the_requested_host_is_chosen_over_a_roomier_one(self):
        hosts = [make_host('roomy', free_ram_mb=4096),
                 make_host('named', free_ram_mb=1024)]
        self.assertEqual(['named'], self.chosen(hosts, self.move_to('named')))

    def test_a_requested_host_with_an_anti_affinity_member_is_refused(self):
        group = fakes.make_group(group_obj.ANTI_AFFINITY)
        hosts = [make_host('source'), make_host('named'), make_host('free')]
        fakes.add_members(group, hosts[0])
        fakes.add_members(group, hosts[1])
        self.assertEqual(
            '0/3 hosts available: 1 ignored host, 1 not the requested '
            'host, 1 anti-affinity policy',
            self.no_valid_host(hosts, self.move_to('named', group=group)))

    def test_a_disabled_requested_host_is_refused(self):
        hosts = [make_host('named', disabled=True), make_host('free')]
        self.assertEqual(
            '0/2 hosts available: 1 not the requested host, 1 compute '
            'service down or disabled',
            self.no_valid_host(hosts, self.move_to('named')))

    def test_a_requested_host_whose_compute_is_down_is_refused(self):
        hosts = [make_host('named', up=False), make_host('free')]
        self.assertIn('1 compute service down or disabled',
                      self.no_valid_host(hosts, self.move_to('named')))

    def test_a_requested_host_in_another_zone_is_refused(self):
        hosts = [make_host('named', aggregates=[{'availability_zone': 'az2'}]),
                 make_host('free', aggregates=[{'availability_zone': 'az1'}])]
        self.assertEqual(
            '0/2 hosts available: 1 not the requested host, 1 not in the '
            'requested availability zone',
            self.no_valid_host(hosts, self.move_to(
                'named', availability_zone='az1')))

    def test_a_requested_host_without_room_is_refused(self):
        hosts = [make_host('named', free_ram_mb=256), make_host('free')]
        self.assertIn('1 insufficient RAM', self.no_valid_host(
            hosts, self.move_to('named', memory_mb=512)))

    def test_a_requested_host_that_is_not_there_is_no_valid_host(self):
        self.assertEqual(
            '0/2 hosts available: 1 ignored host, 1 not the requested host',
            self.no_valid_host([make_host('source'), make_host('h1')],
                               self.move_to('elsewhere')))

    def test_a_requested_node_is_the_only_node_of_its_host_considered(self):
        hosts = [make_host('h1', nodename='n1', free_ram_mb=4096),
                 make_host('h1', nodename='n2', free_ram_mb=1024)]
        [states] = self.schedule(hosts, self.move_to('h1', node='n2'))
        self.assertEqual('n2', states[0].nodename)

    def test_a_forced_host_skips_the_filters_a_requested_one_runs(self):
        group = fakes.make_group(group_obj.ANTI_AFFINITY)
        hosts = [make_host('named'), make_host('free')]
        fakes.add_members(group, hosts[0])
        self.assertEqual(['named'], self.chosen(
            hosts, make_spec(force_hosts=['named'], group=group)))
        self.assertIn('1 anti-affinity policy', self.no_valid_host(
            hosts, self.move_to('named', group=group)))


class TestNoValidHost(ScheduleTestCase):

    def test_explanation_counts_each_reason_in_filter_order(self):
        hosts = [make_host('small', free_ram_mb=256),
                 make_host('down', up=False),
                 make_host('tiny_disk', disk_gb=0)]
        self.assertEqual(
            '0/3 hosts available: 1 compute service down or disabled, '
            '1 insufficient RAM, 1 insufficient disk',
            self.no_valid_host(hosts, make_spec(memory_mb=512)))

    def test_a_failed_request_says_which_filter_refused_its_last_hosts(self):
        hosts = [make_host('h1'), make_host('h2')]
        spec = make_spec(availability_zone='az1')
        self.assertEqual(
            '0/2 hosts available: 2 not in the requested availability zone',
            self.no_valid_host(hosts, spec))


class TestClaims(ScheduleTestCase):
    """``claim`` takes the chosen host's resources; a refusal (another
    scheduler filled the host first) moves on to the next best host."""

    def refusing(self, *hosts):
        claims = []

        def claim(state, instance_uuid):
            claims.append(state.host)
            return state.host not in hosts
        return claims, claim

    def test_each_instance_is_claimed_on_its_chosen_host(self):
        claims, claim = self.refusing()
        chosen = self.chosen([make_host('h1'), make_host('h2')], num=2,
                             claim=claim)
        self.assertEqual(chosen, claims)

    def test_a_refused_claim_moves_on_to_the_next_best_host(self):
        claims, claim = self.refusing('big')
        hosts = [make_host('big', free_ram_mb=4096),
                 make_host('small', free_ram_mb=2048)]
        self.assertEqual(['small'], self.chosen(hosts, claim=claim))
        self.assertEqual(['big', 'small'], claims)

    def test_a_refused_host_is_not_tried_again_for_later_instances(self):
        claims, claim = self.refusing('big')
        hosts = [make_host('big', free_ram_mb=4096),
                 make_host('small', free_ram_mb=2048)]
        self.assertEqual(['small', 'small'],
                         self.chosen(hosts, num=2, claim=claim))
        self.assertEqual(['big', 'small', 'small'], claims)

    def test_a_refused_host_stays_an_alternate_as_in_nova(self):
        # (Its claim, should a reschedule come to it, is refused again
        # and the next alternate tried.)
        _claims, claim = self.refusing('big')
        hosts = [make_host('big', free_ram_mb=4096),
                 make_host('small', free_ram_mb=2048),
                 make_host('tiny', free_ram_mb=1024)]
        [states] = self.schedule(hosts, claim=claim, max_alternates=2)
        self.assertEqual(['small', 'big', 'tiny'], hosts_of(states))

    def test_a_refused_claim_does_not_weigh_the_hosts_again(self):
        # Without 'big', 'tiny' would weigh 0 and 'small' 1; the next host
        # is simply the next in the ranking already made.
        _claims, claim = self.refusing('big')
        hosts = [make_host('big', free_ram_mb=4096),
                 make_host('small', free_ram_mb=2048),
                 make_host('tiny', free_ram_mb=1024)]
        [[chosen, *_alternates]] = self.schedule(
            hosts, claim=claim, max_alternates=2,
            weigher_names=['RAMWeigher'])
        self.assertEqual('small', chosen.host)

    def test_every_claim_refused_says_the_hosts_were_taken(self):
        _claims, claim = self.refusing('h1', 'h2')
        hosts = [make_host('h1'), make_host('h2'),
                 make_host('small', free_ram_mb=256)]
        self.assertEqual(
            '0/3 hosts available: 1 insufficient RAM, '
            '2 taken by a concurrent request',
            self.no_valid_host(hosts, make_spec(memory_mb=512),
                               claim=claim))

    def test_hosts_set_aside_before_the_filters_are_counted(self):
        hosts = [make_host('small', free_ram_mb=256)]
        full = [make_host('full1'), make_host('full2')]
        self.assertEqual(
            '0/3 hosts available: 2 no room in placement, '
            '1 insufficient RAM',
            self.no_valid_host(hosts, make_spec(memory_mb=512),
                               set_aside=[('no room in placement', full)]))

    def test_a_host_set_aside_that_a_filter_refuses_counts_there(self):
        hosts = [make_host('small', free_ram_mb=256)]
        aside = [make_host('tiny', free_ram_mb=128), make_host('full')]
        self.assertEqual(
            '0/3 hosts available: 1 no room in placement, '
            '2 insufficient RAM',
            self.no_valid_host(hosts, make_spec(memory_mb=512),
                               set_aside=[('no room in placement', aside)]))


# -- tracing -----------------------------------------------------------------

def two_node_hosts():
    return [make_host('h1', nodename='n1'), make_host('h1', nodename='n2'),
            make_host('h2', nodename='n3', free_ram_mb=2048),
            make_host('h3', nodename='n4', free_ram_mb=1024)]


TRACE_CASES = [
    # name, group policy (or None), instances, weighers
    ('resources_only', None, 4, None),
    ('anti_affinity', group_obj.ANTI_AFFINITY, 3, None),
    ('affinity', group_obj.AFFINITY, 3, None),
    ('soft_affinity', group_obj.SOFT_AFFINITY, 3,
     ['RAMWeigher', 'ServerGroupSoftAffinityWeigher']),
    ('soft_anti_affinity', group_obj.SOFT_ANTI_AFFINITY, 4,
     ['ServerGroupSoftAntiAffinityWeigher']),
]


def check_trace_keeps_the_choice(self, policy, num, weigher_names):
    def run(trace):
        group = fakes.make_group(policy) if policy else None
        chosen = self.schedule(two_node_hosts(), make_spec(group=group),
                               num=num, weigher_names=weigher_names,
                               max_alternates=2, trace=trace)
        return [[(s.host, s.nodename) for s in states] for states in chosen]
    trace = filter_scheduler.Trace()
    self.assertEqual(run(None), run(trace))
    self.assertEqual(num, len(trace.instances))


@add_cases(TRACE_CASES, check_trace_keeps_the_choice)
class TestTracingKeepsTheChoice(ScheduleTestCase):
    """A traced run (``simulate``) places instances and picks alternates
    exactly as the daemon's untraced run does."""


class TestLoading(ScheduleTestCase):

    def test_filters_load_in_the_configured_order(self):
        loaded = filters.load(['RamFilter', 'ComputeFilter'])
        self.assertEqual(['RamFilter', 'ComputeFilter'],
                         [f.name for f in loaded])

    def test_weighers_load_in_the_configured_order(self):
        loaded = weights.load(['DiskWeigher', 'RAMWeigher'])
        self.assertEqual(['DiskWeigher', 'RAMWeigher'],
                         [w.name for w in loaded])

    def test_unknown_filter_is_a_configuration_error_naming_it(self):
        error = self.assertRaises(exception.ConfigurationError, filters.load,
                                  ['RamFilter', 'NoSuchFilter'])
        self.assertIn('unknown filter(s) NoSuchFilter in [filter_scheduler] '
                      'enabled_filters; known: AggregateInstanceExtraSpecs'
                      'Filter, ', str(error))

    def test_unknown_weigher_is_a_configuration_error_naming_it(self):
        error = self.assertRaises(exception.ConfigurationError, weights.load,
                                  ['RAMWeigher', 'NoSuchWeigher'])
        self.assertIn('unknown weigher(s) NoSuchWeigher in '
                      '[filter_scheduler] weight_classes; known: '
                      'BuildFailureWeigher, ', str(error))

    def test_default_filters_and_weighers_all_load(self):
        self.assertEqual(
            (CONF.filter_scheduler.enabled_filters, weights.names()),
            ([f.name for f in filters.load(
                CONF.filter_scheduler.enabled_filters)],
             sorted(w.name for w in weights.load(
                 CONF.filter_scheduler.weight_classes))))

    def test_nova_class_paths_and_all_weighers_are_understood(self):
        self.assertEqual(
            ['RAMWeigher', 'ComputeFilter'],
            [weights.load(['nova.scheduler.weights.ram.RAMWeigher'])[0].name,
             filters.load(['nova.scheduler.filters.compute_filter.'
                           'ComputeFilter'])[0].name])
        self.assertEqual(
            list(weights._registry()),
            [w.name for w in weights.load(
                ['nova.scheduler.weights.all_weighers'])])
