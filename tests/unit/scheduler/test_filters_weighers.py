"""Filters, weighers and the choice of hosts, on host states built by hand.

Tables of cases become one named test each: a failing case names itself.
"""

from oslo_utils import uuidutils
import testtools

from nova_lite import exception
from nova_lite import objects
from nova_lite.scheduler import filter_scheduler
from nova_lite.scheduler import filters
from nova_lite.scheduler.filters import compute_filter
from nova_lite.scheduler.filters import resource_filters
from nova_lite.scheduler import host_manager
from nova_lite.scheduler import weights
from nova_lite.scheduler.weights import resources
from tests.unit import fixtures as nova_fixtures

objects.register_all()

CELL1 = uuidutils.generate_uuid()
CELL2 = uuidutils.generate_uuid()


def make_spec(memory_mb=512, vcpus=1, root_gb=1, ephemeral_gb=0, swap=0,
              is_bfv=False, **kwargs):
    flavor = objects.Flavor(id=1, flavorid='1', name='f', memory_mb=memory_mb,
                            vcpus=vcpus, root_gb=root_gb,
                            ephemeral_gb=ephemeral_gb, swap=swap)
    return objects.RequestSpec(instance_uuid=uuidutils.generate_uuid(),
                               flavor=flavor, is_bfv=is_bfv, **kwargs)


def make_host(host, cell_uuid=CELL1, ram_mb=4096, free_ram_mb=None,
              disk_gb=100, free_disk_mb=None, vcpus=8, vcpus_used=0,
              up=True, disabled=False, forced_down=False, **ratios):
    state = host_manager.HostState(host, host, cell_uuid)
    state.uuid = uuidutils.generate_uuid()
    state.total_usable_ram_mb = ram_mb
    state.free_ram_mb = ram_mb if free_ram_mb is None else free_ram_mb
    state.total_usable_disk_gb = disk_gb
    state.free_disk_mb = (disk_gb * 1024 if free_disk_mb is None
                          else free_disk_mb)
    state.vcpus_total = vcpus
    state.vcpus_used = vcpus_used
    state.service = {'up': up, 'disabled': disabled,
                     'forced_down': forced_down, 'disabled_reason': None}
    for name, value in ratios.items():
        setattr(state, name, value)
    return state


def add_cases(table, check):
    """Class decorator: one test_<name> per row, calling check(self, row)."""
    def decorate(cls):
        for name, *row in table:
            def test(self, row=row):
                check(self, *row)
            test.__name__ = 'test_' + name
            setattr(cls, test.__name__, test)
        return cls
    return decorate


# -- filters -----------------------------------------------------------------

COMPUTE_FILTER_CASES = [
    # name, service state, passes
    ('up_and_enabled_passes', {}, True),
    ('down_fails', {'up': False}, False),
    ('disabled_fails', {'disabled': True}, False),
    ('forced_down_fails', {'forced_down': True}, False),
]


def check_compute_filter(self, service, passes):
    state = make_host('h1', **service)
    self.assertEqual(passes, compute_filter.ComputeFilter().host_passes(
        state, make_spec()))


RAM_FILTER_CASES = [
    # name, host, request memory_mb, passes, recorded limit
    ('fits_exactly', dict(ram_mb=4096, free_ram_mb=1024), 1024, True, 4096),
    ('one_mb_short', dict(ram_mb=4096, free_ram_mb=1023), 1024, False, 4096),
    ('overcommit_lets_a_full_host_take_more',
     dict(ram_mb=4096, free_ram_mb=0, ram_allocation_ratio=1.5), 2048,
     True, 6144),
    ('overcommit_has_a_ceiling',
     dict(ram_mb=4096, free_ram_mb=0, ram_allocation_ratio=1.5), 2049,
     False, 6144),
    ('ratio_below_one_holds_back_ram',
     dict(ram_mb=4096, ram_allocation_ratio=0.5), 2049, False, 2048),
]


def check_ram_filter(self, host, memory_mb, passes, limit):
    state = make_host('h1', **host)
    self.assertEqual(passes, resource_filters.RamFilter().host_passes(
        state, make_spec(memory_mb=memory_mb)))
    self.assertEqual({'memory_mb': limit}, state.limits)


CORE_FILTER_CASES = [
    # name, host, request vcpus, passes, recorded limits
    ('fits', dict(vcpus=4, vcpus_used=3), 1, True, {'vcpu': 4}),
    ('too_many', dict(vcpus=4, vcpus_used=3), 2, False, {'vcpu': 4}),
    ('overcommit', dict(vcpus=4, vcpus_used=7, cpu_allocation_ratio=2.0), 1,
     True, {'vcpu': 8}),
    ('overcommit_has_a_ceiling',
     dict(vcpus=4, vcpus_used=8, cpu_allocation_ratio=2.0), 1, False,
     {'vcpu': 8}),
    ('host_reporting_no_cpus_is_not_filtered', dict(vcpus=0), 64, True, {}),
]


def check_core_filter(self, host, vcpus, passes, limits):
    state = make_host('h1', **host)
    self.assertEqual(passes, resource_filters.CoreFilter().host_passes(
        state, make_spec(vcpus=vcpus)))
    self.assertEqual(limits, state.limits)


DISK_FILTER_CASES = [
    # name, host, request, passes, recorded limit
    ('root_and_ephemeral_fit', dict(disk_gb=10), dict(root_gb=8,
                                                     ephemeral_gb=2),
     True, 10),
    ('swap_counts_in_mb', dict(disk_gb=10), dict(root_gb=10, swap=1), False,
     10),
    ('boot_from_volume_needs_no_root_disk', dict(disk_gb=10),
     dict(root_gb=20, is_bfv=True), True, 10),
    ('overcommit', dict(disk_gb=10, free_disk_mb=0,
                        disk_allocation_ratio=2.0), dict(root_gb=10),
     True, 20),
    ('overcommit_has_a_ceiling', dict(disk_gb=10, free_disk_mb=0,
                                      disk_allocation_ratio=2.0),
     dict(root_gb=11), False, 20),
]


def check_disk_filter(self, host, request, passes, limit):
    state = make_host('h1', **host)
    self.assertEqual(passes, resource_filters.DiskFilter().host_passes(
        state, make_spec(**request)))
    self.assertEqual({'disk_gb': limit}, state.limits)


@add_cases(COMPUTE_FILTER_CASES, check_compute_filter)
class TestComputeFilter(testtools.TestCase):
    pass


@add_cases(RAM_FILTER_CASES, check_ram_filter)
class TestRamFilter(testtools.TestCase):
    pass


@add_cases(CORE_FILTER_CASES, check_core_filter)
class TestCoreFilter(testtools.TestCase):
    pass


@add_cases(DISK_FILTER_CASES, check_disk_filter)
class TestDiskFilter(testtools.TestCase):
    pass


class TestLoading(testtools.TestCase):

    def test_known_filters_load_in_the_configured_order(self):
        loaded = filters.load(['RamFilter', 'ComputeFilter'])
        self.assertEqual(['RamFilter', 'ComputeFilter'],
                         [type(f).__name__ for f in loaded])

    def test_unknown_filter_is_a_configuration_error_naming_it(self):
        error = self.assertRaises(exception.ConfigurationError, filters.load,
                                  ['RamFilter', 'NoSuchFilter'])
        self.assertIn('NoSuchFilter', str(error))

    def test_unknown_weigher_is_a_configuration_error_naming_it(self):
        error = self.assertRaises(exception.ConfigurationError, weights.load,
                                  ['RAMWeigher', 'NoSuchWeigher'])
        self.assertIn('NoSuchWeigher', str(error))

    def test_scheduler_with_an_unknown_filter_does_not_start(self):
        config = self.useFixture(nova_fixtures.Config())
        config.config(enabled_filters=['NoSuchFilter'],
                      group='filter_scheduler')
        self.assertRaises(exception.ConfigurationError,
                          filter_scheduler.FilterScheduler,
                          host_manager.HostManager())


# -- weighers ----------------------------------------------------------------

NORMALIZE_CASES = [
    # name, raw values, normalised
    ('min_to_zero_and_max_to_one', [0, 5, 10], [0.0, 0.5, 1.0]),
    ('negative_values', [-10, 0, 10], [0.0, 0.5, 1.0]),
    ('order_is_kept', [10, 0, 5], [1.0, 0.0, 0.5]),
    ('all_equal_is_all_zero', [3, 3, 3], [0.0, 0.0, 0.0]),
    ('single_value_is_zero', [42], [0.0]),
]


def check_normalize(self, raw, expected):
    self.assertEqual(expected, weights.normalize(raw))


@add_cases(NORMALIZE_CASES, check_normalize)
class TestNormalize(testtools.TestCase):
    pass


class TestWeighHosts(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.config = self.useFixture(nova_fixtures.Config())

    def ranked_hosts(self, weigher_names, hosts):
        ranked = weights.weigh_hosts(weights.load(weigher_names), hosts,
                                     make_spec())
        return [state.host for _weight, state in ranked]

    def test_more_free_ram_weighs_more(self):
        hosts = [make_host('small', free_ram_mb=1024),
                 make_host('big', free_ram_mb=4096),
                 make_host('mid', free_ram_mb=2048)]
        self.assertEqual(['big', 'mid', 'small'],
                         self.ranked_hosts(['RAMWeigher'], hosts))

    def test_negative_multiplier_stacks(self):
        self.config.config(ram_weight_multiplier=-1.0,
                           group='filter_scheduler')
        hosts = [make_host('small', free_ram_mb=1024),
                 make_host('big', free_ram_mb=4096),
                 make_host('mid', free_ram_mb=2048)]
        self.assertEqual(['small', 'mid', 'big'],
                         self.ranked_hosts(['RAMWeigher'], hosts))

    def test_ties_keep_the_input_order(self):
        hosts = [make_host(name) for name in ('c', 'a', 'b')]
        self.assertEqual(['c', 'a', 'b'],
                         self.ranked_hosts(['RAMWeigher', 'CPUWeigher'],
                                           hosts))

    def test_weights_are_normalised_sums_times_multipliers(self):
        self.config.config(cpu_weight_multiplier=2.0,
                           group='filter_scheduler')
        ram_rich = make_host('ram_rich', free_ram_mb=4096, vcpus_used=8)
        cpu_rich = make_host('cpu_rich', free_ram_mb=0, vcpus_used=0)
        ranked = weights.weigh_hosts(
            weights.load(['RAMWeigher', 'CPUWeigher']),
            [ram_rich, cpu_rich], make_spec())
        self.assertEqual([(2.0, 'cpu_rich'), (1.0, 'ram_rich')],
                         [(weight, state.host) for weight, state in ranked])

    def test_zero_multiplier_ignores_the_weigher(self):
        self.config.config(ram_weight_multiplier=0.0,
                           group='filter_scheduler')
        hosts = [make_host('small', free_ram_mb=1024),
                 make_host('big', free_ram_mb=4096)]
        self.assertEqual(['small', 'big'],
                         self.ranked_hosts(['RAMWeigher'], hosts))

    def test_cpu_weigher_counts_the_allocation_ratio(self):
        host = make_host('h1', vcpus=4, vcpus_used=6,
                         cpu_allocation_ratio=2.0)
        self.assertEqual(2.0, resources.CPUWeigher().weigh(host,
                                                           make_spec()))


# -- the filter pipeline -----------------------------------------------------

class TestRunFilters(testtools.TestCase):

    def filters(self):
        return [resource_filters.RamFilter(), compute_filter.ComputeFilter()]

    def test_no_host_left_explains_what_each_filter_removed(self):
        hosts = [make_host('small%d' % i, free_ram_mb=256) for i in range(3)]
        hosts.append(make_host('down', up=False))
        passed, result = filter_scheduler.run_filters(
            self.filters(), hosts, make_spec(memory_mb=512))
        self.assertEqual([], passed)
        self.assertEqual('0/4 hosts available: 3 insufficient RAM, 1 compute '
                         'service down or disabled', result.explain())

    def test_counts_per_filter(self):
        hosts = [make_host('small', free_ram_mb=256), make_host('ok'),
                 make_host('down', up=False)]
        passed, result = filter_scheduler.run_filters(
            self.filters(), hosts, make_spec(memory_mb=512))
        self.assertEqual(['ok'], [s.host for s in passed])
        self.assertEqual(
            [('RamFilter', 'insufficient RAM', 1),
             ('ComputeFilter', 'compute service down or disabled', 1)],
            result.removed)

    def test_filters_after_the_last_host_is_gone_do_not_run(self):
        hosts = [make_host('small', free_ram_mb=256)]
        _passed, result = filter_scheduler.run_filters(
            self.filters(), hosts, make_spec(memory_mb=512))
        self.assertEqual([('RamFilter', 'insufficient RAM', 1)],
                         result.removed)

    def test_filters_that_removed_nothing_are_not_mentioned(self):
        hosts = [make_host('down', up=False)]
        _passed, result = filter_scheduler.run_filters(
            self.filters(), hosts, make_spec(memory_mb=512))
        self.assertEqual('0/1 hosts available: 1 compute service down or '
                         'disabled', result.explain())

    def test_no_hosts_at_all(self):
        _passed, result = filter_scheduler.run_filters(self.filters(), [],
                                                       make_spec())
        self.assertEqual('0/0 hosts available', result.explain())


# -- choosing hosts ----------------------------------------------------------

class TestSchedule(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.config = self.useFixture(nova_fixtures.Config())
        self.scheduler = filter_scheduler.FilterScheduler(
            host_manager.HostManager())

    def schedule(self, hosts, spec=None, num=1):
        spec = spec or make_spec()
        uuids = [uuidutils.generate_uuid() for _ in range(num)]
        return self.scheduler._schedule(spec, uuids, hosts)

    def chosen(self, host_lists):
        return [hosts[0].service_host for hosts in host_lists]

    def alternates(self, host_list):
        return [s.service_host for s in host_list[1:]]

    def test_picks_the_best_weighed_host(self):
        hosts = [make_host('mid', free_ram_mb=2048),
                 make_host('best', free_ram_mb=4096)]
        self.assertEqual(['best'], self.chosen(self.schedule(hosts)))

    def test_instances_of_one_request_consume_resources_between_them(self):
        hosts = [make_host('h1', free_ram_mb=512),
                 make_host('h2', free_ram_mb=512)]
        host_lists = self.schedule(hosts, make_spec(memory_mb=512), num=2)
        self.assertEqual({'h1', 'h2'}, set(self.chosen(host_lists)))

    def test_consumed_resources_can_leave_a_later_instance_without_host(self):
        hosts = [make_host('h1', free_ram_mb=512)]
        error = self.assertRaises(exception.NoValidHost, self.schedule,
                                  hosts, make_spec(memory_mb=512), num=2)
        self.assertIn('0/1 hosts available: 1 insufficient RAM', str(error))

    def test_boot_from_volume_instances_do_not_consume_root_disk(self):
        hosts = [make_host('h1', disk_gb=10)]
        host_lists = self.schedule(hosts, make_spec(root_gb=20, is_bfv=True),
                                   num=2)
        self.assertEqual(['h1', 'h1'], self.chosen(host_lists))

    def test_a_forced_host_is_chosen_without_filters(self):
        hosts = [make_host('roomy', free_ram_mb=4096),
                 make_host('full', free_ram_mb=0)]
        spec = make_spec(memory_mb=512)
        spec.force_hosts = ['full']
        self.assertEqual(['full'], self.chosen(self.schedule(hosts, spec)))

    def test_a_forced_host_that_is_not_there_is_no_valid_host(self):
        spec = make_spec()
        spec.force_hosts = ['elsewhere']
        error = self.assertRaises(exception.NoValidHost, self.schedule,
                                  [make_host('h1')], spec)
        self.assertIn('1 not the forced host', str(error))

    def test_num_instances_counts_when_no_uuids_are_given(self):
        hosts = [make_host('h1'), make_host('h2')]
        host_lists = self.scheduler._schedule(make_spec(num_instances=3), [],
                                              hosts)
        self.assertEqual(3, len(host_lists))

    def test_selection_carries_the_host_and_the_filters_limits(self):
        state = make_host('h1', ram_mb=4096, ram_allocation_ratio=1.5)
        [[selection]] = self.schedule([state])
        self.assertEqual((state.uuid, 'h1', 'h1', CELL1),
                         (selection.compute_node_uuid, selection.service_host,
                          selection.nodename, selection.cell_uuid))
        self.assertEqual(6144, selection.limits.memory_mb)

    def test_host_subset_size_one_always_takes_the_best(self):
        for _ in range(20):
            hosts = [make_host('h%d' % ram, free_ram_mb=ram)
                     for ram in (1024, 2048, 4096)]
            self.assertEqual(['h4096'], self.chosen(self.schedule(hosts)))

    def test_host_subset_size_picks_among_that_many_best(self):
        self.config.config(host_subset_size=2, group='filter_scheduler')
        seen = set()
        for _ in range(60):
            hosts = [make_host('h%d' % ram, free_ram_mb=ram)
                     for ram in (1024, 2048, 4096)]
            seen.update(self.chosen(self.schedule(hosts)))
        self.assertEqual({'h2048', 'h4096'}, seen)

    def test_alternates_exclude_the_chosen_host(self):
        hosts = [make_host('h%d' % i) for i in range(3)]
        [host_list] = self.schedule(hosts)
        self.assertNotIn(host_list[0].service_host,
                         self.alternates(host_list))
        self.assertEqual(2, len(self.alternates(host_list)))

    def test_alternates_are_capped_at_max_attempts_minus_one(self):
        self.config.config(max_attempts=3, group='scheduler')
        hosts = [make_host('h%d' % i, free_ram_mb=1000 + i)
                 for i in range(6)]
        [host_list] = self.schedule(hosts)
        self.assertEqual(['h4', 'h3'], self.alternates(host_list))

    def test_max_attempts_one_gives_no_alternates(self):
        self.config.config(max_attempts=1, group='scheduler')
        [host_list] = self.schedule([make_host('h1'), make_host('h2')])
        self.assertEqual([], self.alternates(host_list))

    def test_alternates_come_from_the_chosen_hosts_cell(self):
        hosts = [make_host('best', free_ram_mb=4096),
                 make_host('other_cell', cell_uuid=CELL2, free_ram_mb=2048),
                 make_host('same_cell', free_ram_mb=1024)]
        [host_list] = self.schedule(hosts)
        self.assertEqual(['same_cell'], self.alternates(host_list))

    def test_alternates_passed_the_filters(self):
        hosts = [make_host('h1'), make_host('down', up=False),
                 make_host('h2')]
        [host_list] = self.schedule(hosts)
        self.assertNotIn('down', self.alternates(host_list))

    def test_hosts_already_tried_are_excluded(self):
        retry = objects.SchedulerRetries(num_attempts=1,
                                         hosts=[['best', 'best']])
        hosts = [make_host('best', free_ram_mb=4096), make_host('h2'),
                 make_host('h3')]
        [host_list] = self.schedule(hosts, make_spec(retry=retry))
        self.assertNotIn('best', [s.service_host for s in host_list])

    def test_ignored_hosts_are_excluded(self):
        hosts = [make_host('best', free_ram_mb=4096), make_host('h2'),
                 make_host('h3')]
        [host_list] = self.schedule(hosts, make_spec(ignore_hosts=['best']))
        self.assertNotIn('best', [s.service_host for s in host_list])

    def test_excluded_hosts_do_not_count_in_the_explanation(self):
        hosts = [make_host('only')]
        error = self.assertRaises(exception.NoValidHost, self.schedule,
                                  hosts, make_spec(ignore_hosts=['only']))
        self.assertIn('0/0 hosts available', str(error))
