"""Each host filter on its own, on host states built by hand.

Tables of cases become one named test each: a failing case names itself.
"""

import testtools

from nova_lite import objects
from nova_lite.objects import instance_group as group_obj
from nova_lite.scheduler import filters
from nova_lite.scheduler.filters import affinity_filter
from nova_lite.scheduler.filters import aggregate_filter
from nova_lite.scheduler.filters import availability_zone_filter
from nova_lite.scheduler.filters import compute_filter
from nova_lite.scheduler.filters import image_props_filter
from nova_lite.scheduler.filters import resource_filters
from nova_lite.scheduler.filters import retry_filter
from tests.unit import fixtures as nova_fixtures
from tests.unit.scheduler import fakes
from tests.unit.scheduler.fakes import add_cases
from tests.unit.scheduler.fakes import make_host
from tests.unit.scheduler.fakes import make_spec


class FilterTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.config = self.useFixture(nova_fixtures.Config())


# -- ComputeFilter -----------------------------------------------------------

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


@add_cases(COMPUTE_FILTER_CASES, check_compute_filter)
class TestComputeFilter(FilterTestCase):
    pass


# -- RamFilter, CoreFilter, DiskFilter ---------------------------------------

RAM_FILTER_CASES = [
    # name, host, request memory_mb, passes, recorded limit
    ('fits_exactly', dict(ram_mb=4096, free_ram_mb=1024), 1024, True, 4096),
    ('one_mb_short_fails', dict(ram_mb=4096, free_ram_mb=1023), 1024, False,
     4096),
    ('overcommit_lets_a_full_host_take_more',
     dict(ram_mb=4096, free_ram_mb=0, ram_allocation_ratio=1.5), 2048,
     True, 6144),
    ('overcommit_has_a_ceiling',
     dict(ram_mb=4096, free_ram_mb=0, ram_allocation_ratio=1.5), 2049,
     False, 6144),
    ('ratio_below_one_holds_back_ram',
     dict(ram_mb=4096, ram_allocation_ratio=0.5), 2049, False, 2048),
    ('limit_is_recorded_when_the_host_fails',
     dict(ram_mb=1000, free_ram_mb=0, ram_allocation_ratio=1.25), 512,
     False, 1250),
]


def check_ram_filter(self, host, memory_mb, passes, limit):
    state = make_host('h1', **host)
    self.assertEqual(passes, resource_filters.RamFilter().host_passes(
        state, make_spec(memory_mb=memory_mb)))
    self.assertEqual({'memory_mb': limit}, state.limits)


@add_cases(RAM_FILTER_CASES, check_ram_filter)
class TestRamFilter(FilterTestCase):
    pass


CORE_FILTER_CASES = [
    # name, host, request vcpus, passes, recorded limits
    ('fits', dict(vcpus=4, vcpus_used=3), 1, True, {'vcpu': 4}),
    ('too_many_fails', dict(vcpus=4, vcpus_used=3), 2, False, {'vcpu': 4}),
    ('overcommit', dict(vcpus=4, vcpus_used=7, cpu_allocation_ratio=2.0), 1,
     True, {'vcpu': 8}),
    ('overcommit_has_a_ceiling',
     dict(vcpus=4, vcpus_used=8, cpu_allocation_ratio=2.0), 1, False,
     {'vcpu': 8}),
    ('fractional_ratio_limit_is_rounded_down',
     dict(vcpus=3, cpu_allocation_ratio=1.5), 4, True, {'vcpu': 4}),
    ('host_reporting_no_cpus_is_not_filtered_nor_limited', dict(vcpus=0),
     64, True, {}),
]


def check_core_filter(self, host, vcpus, passes, limits):
    state = make_host('h1', **host)
    self.assertEqual(passes, resource_filters.CoreFilter().host_passes(
        state, make_spec(vcpus=vcpus)))
    self.assertEqual(limits, state.limits)


@add_cases(CORE_FILTER_CASES, check_core_filter)
class TestCoreFilter(FilterTestCase):
    pass


DISK_FILTER_CASES = [
    # name, host, request, passes, recorded limit
    ('root_and_ephemeral_fit', dict(disk_gb=10),
     dict(root_gb=8, ephemeral_gb=2), True, 10),
    ('ephemeral_counts', dict(disk_gb=10), dict(root_gb=8, ephemeral_gb=3),
     False, 10),
    ('swap_counts_in_mb', dict(disk_gb=10), dict(root_gb=10, swap=1), False,
     10),
    ('boot_from_volume_needs_no_root_disk', dict(disk_gb=10),
     dict(root_gb=20, is_bfv=True), True, 10),
    ('boot_from_volume_still_needs_ephemeral_and_swap', dict(disk_gb=10),
     dict(root_gb=1, ephemeral_gb=10, swap=1, is_bfv=True), False, 10),
    ('used_disk_counts', dict(disk_gb=10, free_disk_mb=1023),
     dict(root_gb=1), False, 10),
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


@add_cases(DISK_FILTER_CASES, check_disk_filter)
class TestDiskFilter(FilterTestCase):
    pass


# -- AvailabilityZoneFilter --------------------------------------------------

AZ_FILTER_CASES = [
    # name, [DEFAULT] default_availability_zone (None: default), metadata
    # of the host's aggregates, requested zone, passes
    ('host_in_the_requested_zone_passes', None,
     [{'availability_zone': 'az1'}], 'az1', True),
    ('host_in_another_zone_fails', None,
     [{'availability_zone': 'az2'}], 'az1', False),
    ('host_without_zone_aggregate_is_in_the_default_zone', None, [],
     'nova', True),
    ('host_without_zone_aggregate_is_not_in_a_named_zone', None, [],
     'az1', False),
    ('aggregate_without_zone_metadata_leaves_the_default_zone', None,
     [{'ssd': 'true'}], 'nova', True),
    ('default_zone_comes_from_the_configuration', 'az-default', [],
     'az-default', True),
    ('configured_default_zone_replaces_nova', 'az-default', [], 'nova',
     False),
    ('aggregate_zone_wins_over_the_default_zone', 'az-default',
     [{'availability_zone': 'az1'}], 'az-default', False),
]


def check_az_filter(self, default_zone, aggregates, zone, passes):
    if default_zone is not None:
        self.config.config(default_availability_zone=default_zone)
    state = make_host('h1', aggregates=aggregates)
    self.assertEqual(
        passes,
        availability_zone_filter.AvailabilityZoneFilter().host_passes(
            state, make_spec(availability_zone=zone)))


@add_cases(AZ_FILTER_CASES, check_az_filter)
class TestAvailabilityZoneFilter(FilterTestCase):
    pass


# -- AggregateInstanceExtraSpecsFilter ---------------------------------------

SCOPED = 'aggregate_instance_extra_specs:'

AGGREGATE_FILTER_CASES = [
    # name, metadata of the host's aggregates, flavor extra specs, passes
    ('unscoped_key_matching_the_metadata_passes', [{'ssd': 'true'}],
     {'ssd': 'true'}, True),
    ('unscoped_key_with_another_value_fails', [{'ssd': 'false'}],
     {'ssd': 'true'}, False),
    ('host_in_no_aggregate_fails', [], {'ssd': 'true'}, False),
    ('aggregate_without_the_key_fails', [{'gpu': 'true'}],
     {'ssd': 'true'}, False),
    ('scoped_key_matching_the_metadata_passes', [{'ssd': 'true'}],
     {SCOPED + 'ssd': 'true'}, True),
    ('scoped_key_with_another_value_fails', [{'ssd': 'false'}],
     {SCOPED + 'ssd': 'true'}, False),
    ('hw_scoped_key_is_ignored', [{'ssd': 'true'}],
     {'ssd': 'true', 'hw:cpu_policy': 'dedicated'}, True),
    ('resources_scoped_key_is_ignored', [],
     {'resources:VGPU': '1'}, True),
    ('every_wanted_key_must_match', [{'ssd': 'true'}],
     {'ssd': 'true', 'gpu': 'true'}, False),
    ('keys_may_come_from_different_aggregates',
     [{'ssd': 'true'}, {'gpu': 'true'}], {'ssd': 'true', 'gpu': 'true'},
     True),
    ('any_aggregate_value_may_match', [{'ssd': 'false'}, {'ssd': 'true'}],
     {'ssd': 'true'}, True),
    ('numeric_operator_at_least_passes', [{'cpu_gen': '5'}],
     {'cpu_gen': '>= 4'}, True),
    ('numeric_operator_at_least_fails', [{'cpu_gen': '3'}],
     {SCOPED + 'cpu_gen': '>= 4'}, False),
    ('or_operator_passes_on_an_alternative', [{'tier': 'silver'}],
     {'tier': '<or> gold <or> silver'}, True),
    ('or_operator_fails_on_no_alternative', [{'tier': 'bronze'}],
     {'tier': '<or> gold <or> silver'}, False),
    ('in_operator_on_a_scoped_key', [{'cpu_model': 'Intel Xeon Gold'}],
     {SCOPED + 'cpu_model': '<in> Xeon'}, True),
]


def check_aggregate_filter(self, aggregates, extra_specs, passes):
    state = make_host('h1', aggregates=aggregates)
    self.assertEqual(
        passes,
        aggregate_filter.AggregateInstanceExtraSpecsFilter().host_passes(
            state, make_spec(extra_specs=extra_specs)))


@add_cases(AGGREGATE_FILTER_CASES, check_aggregate_filter)
class TestAggregateInstanceExtraSpecsFilter(FilterTestCase):
    pass


# -- ImagePropertiesFilter ---------------------------------------------------

X86_KVM = [('x86_64', 'kvm', 'hvm')]

IMAGE_FILTER_CASES = [
    # name, host attributes, image properties, passes
    ('image_asking_nothing_passes_a_host_reporting_nothing', {}, {}, True),
    ('architecture_matches', dict(supported_instances=X86_KVM),
     {'hw_architecture': 'x86_64'}, True),
    ('architecture_mismatch_fails', dict(supported_instances=X86_KVM),
     {'hw_architecture': 'aarch64'}, False),
    ('architecture_alias_is_normalised', dict(supported_instances=X86_KVM),
     {'hw_architecture': 'amd64'}, True),
    ('legacy_architecture_property_is_honoured',
     dict(supported_instances=X86_KVM), {'architecture': 'aarch64'},
     False),
    ('hypervisor_type_matches_whatever_the_case',
     dict(supported_instances=X86_KVM), {'img_hv_type': 'KVM'}, True),
    ('hypervisor_type_mismatch_fails', dict(supported_instances=X86_KVM),
     {'img_hv_type': 'xen'}, False),
    ('vm_mode_matches', dict(supported_instances=X86_KVM),
     {'hw_vm_mode': 'hvm'}, True),
    ('vm_mode_mismatch_fails', dict(supported_instances=X86_KVM),
     {'hw_vm_mode': 'exe'}, False),
    ('one_supported_type_must_match_all_properties_together',
     dict(supported_instances=[('x86_64', 'kvm', 'hvm'),
                               ('aarch64', 'qemu', 'hvm')]),
     {'hw_architecture': 'aarch64', 'img_hv_type': 'kvm'}, False),
    ('any_supported_type_may_match',
     dict(supported_instances=[('x86_64', 'kvm', 'hvm'),
                               ('aarch64', 'qemu', 'hvm')]),
     {'hw_architecture': 'aarch64', 'img_hv_type': 'qemu'}, True),
    ('host_reporting_no_supported_types_fails_a_demanding_image', {},
     {'hw_architecture': 'x86_64'}, False),
    ('version_at_least_passes',
     dict(supported_instances=X86_KVM, hypervisor_version=8002000),
     {'hw_architecture': 'x86_64', 'img_hv_requested_version': '>=8.0'},
     True),
    ('version_at_least_fails',
     dict(supported_instances=X86_KVM, hypervisor_version=8002000),
     {'hw_architecture': 'x86_64', 'img_hv_requested_version': '>=8.3'},
     False),
    ('version_equality_pads_missing_parts',
     dict(supported_instances=X86_KVM, hypervisor_version=8002000),
     {'img_hv_type': 'kvm', 'img_hv_requested_version': '==8.2'}, True),
    ('version_equality_compares_the_patch_level',
     dict(supported_instances=X86_KVM, hypervisor_version=8002001),
     {'img_hv_type': 'kvm', 'img_hv_requested_version': '==8.2.0'},
     False),
    ('version_less_than_fails',
     dict(supported_instances=X86_KVM, hypervisor_version=8002000),
     {'img_hv_type': 'kvm', 'img_hv_requested_version': '< 8'}, False),
    ('version_compares_numbers_not_text',
     dict(supported_instances=X86_KVM, hypervisor_version=10000000),
     {'img_hv_type': 'kvm', 'img_hv_requested_version': '>= 9'}, True),
    # As Nova: a version alone, with no architecture, type or mode asked
    # for, is not checked.
    ('version_alone_is_not_checked', dict(hypervisor_version=8002000),
     {'img_hv_requested_version': '>=9.0'}, True),
    ('version_of_a_host_reporting_none_is_not_checked',
     dict(supported_instances=X86_KVM),
     {'hw_architecture': 'x86_64', 'img_hv_requested_version': '>=1.0'},
     True),
    ('unparseable_version_requirement_fails',
     dict(supported_instances=X86_KVM, hypervisor_version=8002000),
     {'img_hv_type': 'kvm', 'img_hv_requested_version': 'latest'}, False),
    ('version_and_type_must_both_match',
     dict(supported_instances=X86_KVM, hypervisor_version=8002000),
     {'hw_architecture': 'x86_64', 'img_hv_requested_version': '>=9'},
     False),
    ('i386_is_i686', dict(supported_instances=[('i686', 'kvm', 'hvm')]),
     {'hw_architecture': 'i386'}, True),
    ('legacy_hv_mode_names', dict(supported_instances=[('x86_64', 'xen',
                                                        'xen')]),
     {'img_hv_type': 'xapi', 'hw_vm_mode': 'pv'}, True),
]


def check_image_filter(self, host, properties, passes):
    state = make_host('h1', **host)
    self.assertEqual(
        passes, image_props_filter.ImagePropertiesFilter().host_passes(
            state, make_spec(image_props=properties)))


@add_cases(IMAGE_FILTER_CASES, check_image_filter)
class TestImagePropertiesFilter(FilterTestCase):

    def test_default_architecture_applies_to_an_image_without_one(self):
        self.config.config(group='filter_scheduler',
                           image_properties_default_architecture='aarch64')
        host_filter = image_props_filter.ImagePropertiesFilter()
        spec = make_spec(image_props={})
        self.assertTrue(host_filter.applies(spec))
        self.assertFalse(host_filter.host_passes(
            make_host('h1', supported_instances=X86_KVM), spec))
        self.assertTrue(host_filter.host_passes(
            make_host('h2', supported_instances=[('aarch64', 'kvm', 'hvm')]),
            spec))

    def test_hypervisor_version_integer_reads_as_major_minor_patch(self):
        self.assertEqual((8, 2, 10),
                         image_props_filter.version_tuple(8002010))


# -- IoOpsFilter, NumInstancesFilter and their Aggregate variants -----------

BUSY_FILTER_CASES = [
    # name, filter, host attributes, aggregates' metadata, options, passes
    ('io_ops_below_the_ceiling', 'IoOpsFilter', dict(num_io_ops=7), [],
     {}, True),
    ('io_ops_at_the_ceiling', 'IoOpsFilter', dict(num_io_ops=8), [], {},
     False),
    ('io_ops_ceiling_from_the_option', 'IoOpsFilter', dict(num_io_ops=2),
     [], {'max_io_ops_per_host': 2}, False),
    ('io_ops_ignores_aggregates_without_aggregate_variant', 'IoOpsFilter',
     dict(num_io_ops=2), [{'max_io_ops_per_host': '1'}], {}, True),
    ('aggregate_io_ops_ceiling', 'AggregateIoOpsFilter', dict(num_io_ops=2),
     [{'max_io_ops_per_host': '3'}, {'max_io_ops_per_host': '2'}], {},
     False),
    ('aggregate_io_ops_falls_back_on_the_option', 'AggregateIoOpsFilter',
     dict(num_io_ops=7), [{'max_io_ops_per_host': 'many'}], {}, True),
    ('instances_below_the_ceiling', 'NumInstancesFilter',
     dict(num_instances=49), [], {}, True),
    ('instances_at_the_ceiling', 'NumInstancesFilter',
     dict(num_instances=50), [], {}, False),
    ('aggregate_instances_ceiling', 'AggregateNumInstancesFilter',
     dict(num_instances=5), [{'max_instances_per_host': '5'}], {}, False),
    ('aggregate_instances_without_metadata', 'AggregateNumInstancesFilter',
     dict(num_instances=5), [{'other': '1'}], {}, True),
]


def check_busy_filter(self, filter_name, host, aggregates, options,
                      passes):
    if options:
        self.config.config(group='filter_scheduler', **options)
    [host_filter] = filters.load([filter_name])
    self.assertEqual(passes, host_filter.host_passes(
        make_host('h1', aggregates=aggregates, **host), make_spec()))


@add_cases(BUSY_FILTER_CASES, check_busy_filter)
class TestBusyHostFilters(FilterTestCase):
    pass


# -- ComputeCapabilitiesFilter -----------------------------------------------

CAPABILITY_CASES = [
    # name, host attributes, flavor extra specs, passes
    ('no_specs', {}, {}, True),
    ('scoped_attribute_matches', dict(hypervisor_type='fake'),
     {'capabilities:hypervisor_type': 's== fake'}, True),
    ('scoped_attribute_mismatch', dict(hypervisor_type='fake'),
     {'capabilities:hypervisor_type': 'kvm'}, False),
    ('scoped_numeric_comparison', dict(hypervisor_version=2000),
     {'capabilities:hypervisor_version': '>= 1000'}, True),
    ('scoped_path_into_stats', dict(stats={'gpu': 'a100'}),
     {'capabilities:gpu': 'a100'}, True),
    ('scoped_path_into_json', dict(stats={'cpu': '{"model": "epyc"}'}),
     {'capabilities:cpu:model': 'epyc'}, True),
    ('scoped_unreported_refuses', {}, {'capabilities:gpu': 'a100'}, False),
    ('unscoped_known_attribute_is_checked', dict(hypervisor_type='fake'),
     {'hypervisor_type': 'kvm'}, False),
    ('unscoped_unknown_key_is_ignored', {}, {'ssd': 'true'}, True),
    ('other_scopes_are_ignored', {}, {'hw:cpu_policy': 'dedicated',
                                      'aggregate_instance_extra_specs:ssd':
                                      'true'}, True),
]


def check_capabilities(self, host, extra_specs, passes):
    [host_filter] = filters.load(['ComputeCapabilitiesFilter'])
    self.assertEqual(passes, host_filter.host_passes(
        make_host('h1', **host), make_spec(extra_specs=extra_specs)))


@add_cases(CAPABILITY_CASES, check_capabilities)
class TestComputeCapabilitiesFilter(FilterTestCase):
    pass


# -- ServerGroupAffinityFilter, ServerGroupAntiAffinityFilter ----------------

AFFINITY = affinity_filter.ServerGroupAffinityFilter
ANTI_AFFINITY = affinity_filter.ServerGroupAntiAffinityFilter

GROUP_FILTER_CASES = [
    # name, filter, policy, rules, members on the host, members on another
    # host, passes
    ('affinity_empty_group_passes_any_host', AFFINITY,
     group_obj.AFFINITY, {}, 0, 0, True),
    ('affinity_host_of_the_group_passes', AFFINITY,
     group_obj.AFFINITY, {}, 1, 0, True),
    ('affinity_host_of_the_group_passes_with_members_elsewhere', AFFINITY,
     group_obj.AFFINITY, {}, 1, 1, True),
    ('affinity_other_host_fails', AFFINITY, group_obj.AFFINITY, {}, 0, 1,
     False),
    ('anti_affinity_empty_group_passes', ANTI_AFFINITY,
     group_obj.ANTI_AFFINITY, {}, 0, 0, True),
    ('anti_affinity_host_without_member_passes', ANTI_AFFINITY,
     group_obj.ANTI_AFFINITY, {}, 0, 2, True),
    ('anti_affinity_host_with_a_member_fails', ANTI_AFFINITY,
     group_obj.ANTI_AFFINITY, {}, 1, 0, False),
    ('anti_affinity_max_two_per_host_lets_a_second_member_in',
     ANTI_AFFINITY, group_obj.ANTI_AFFINITY, {'max_server_per_host': '2'},
     1, 0, True),
    ('anti_affinity_max_two_per_host_refuses_a_third_member',
     ANTI_AFFINITY, group_obj.ANTI_AFFINITY, {'max_server_per_host': '2'},
     2, 0, False),
    ('anti_affinity_max_zero_per_host_means_one', ANTI_AFFINITY,
     group_obj.ANTI_AFFINITY, {'max_server_per_host': '0'}, 1, 0, False),
    ('anti_affinity_unparseable_max_per_host_means_one', ANTI_AFFINITY,
     group_obj.ANTI_AFFINITY, {'max_server_per_host': 'many'}, 1, 0, False),
]


def check_group_filter(self, filter_cls, policy, rules, here, elsewhere,
                       passes):
    group = fakes.make_group(policy, rules)
    state = make_host('h1')
    fakes.add_members(group, state, here)
    fakes.add_members(group, make_host('h2'), elsewhere)
    self.assertEqual(passes, filter_cls().host_passes(
        state, make_spec(group=group)))


@add_cases(GROUP_FILTER_CASES, check_group_filter)
class TestServerGroupFilters(FilterTestCase):

    def test_anti_affinity_counts_a_group_host_as_one_member(self):
        # The group says a member runs here although the host state does
        # not list the instance.
        group = fakes.make_group(group_obj.ANTI_AFFINITY)
        group.hosts = ['h1']
        self.assertFalse(ANTI_AFFINITY().host_passes(
            make_host('h1'), make_spec(group=group)))

    def test_anti_affinity_refuses_another_node_of_a_member_host(self):
        group = fakes.make_group(group_obj.ANTI_AFFINITY)
        fakes.add_members(group, make_host('h1', nodename='n1'))
        self.assertFalse(ANTI_AFFINITY().host_passes(
            make_host('h1', nodename='n2'), make_spec(group=group)))

    def test_anti_affinity_counts_only_members_of_the_group(self):
        group = fakes.make_group(group_obj.ANTI_AFFINITY)
        stranger = make_host('h1', instances=['not-a-member'])
        self.assertTrue(ANTI_AFFINITY().host_passes(
            stranger, make_spec(group=group)))


# -- SameHostFilter, DifferentHostFilter -------------------------------------

SAME_HOST = affinity_filter.SameHostFilter
DIFFERENT_HOST = affinity_filter.DifferentHostFilter

HOST_HINT_CASES = [
    # name, filter, hint name, hint value, instances on the host, passes
    ('same_host_holding_the_instance_passes', SAME_HOST, 'same_host',
     ['i1'], ['i1', 'i2'], True),
    ('same_host_without_the_instance_fails', SAME_HOST, 'same_host',
     ['i1'], ['i2'], False),
    ('same_host_holding_one_of_several_passes', SAME_HOST, 'same_host',
     ['i1', 'i3'], ['i3'], True),
    ('different_host_holding_the_instance_fails', DIFFERENT_HOST,
     'different_host', ['i1'], ['i1'], False),
    ('different_host_holding_one_of_several_fails', DIFFERENT_HOST,
     'different_host', ['i1', 'i3'], ['i3'], False),
    ('different_host_without_the_instances_passes', DIFFERENT_HOST,
     'different_host', ['i1'], ['i2'], True),
]


def check_host_hint(self, filter_cls, hint, value, instances, passes):
    state = make_host('h1', instances=instances)
    self.assertEqual(passes, filter_cls().host_passes(
        state, make_spec(hints={hint: value})))


@add_cases(HOST_HINT_CASES, check_host_hint)
class TestHostHintFilters(FilterTestCase):
    pass


# -- RetryFilter -------------------------------------------------------------

RETRY_FILTER_CASES = [
    # name, [host, node] pairs tried, host, node, passes
    ('host_already_tried_fails', [['h1', 'n1']], 'h1', 'n1', False),
    ('host_not_tried_passes', [['h1', 'n1']], 'h2', 'n2', True),
    ('other_node_of_a_tried_host_passes', [['h1', 'n1']], 'h1', 'n2', True),
    ('any_tried_host_fails', [['h2', 'n2'], ['h1', 'n1']], 'h1', 'n1',
     False),
]


def check_retry_filter(self, tried, host, node, passes):
    retry = objects.SchedulerRetries(num_attempts=len(tried), hosts=tried)
    state = make_host(host, nodename=node)
    self.assertEqual(passes, retry_filter.RetryFilter().host_passes(
        state, make_spec(retry=retry)))


@add_cases(RETRY_FILTER_CASES, check_retry_filter)
class TestRetryFilter(FilterTestCase):
    pass


# -- which filters apply to a request ----------------------------------------

APPLIES_CASES = [
    # name, filter, request (group: its policy), applies
    ('compute_filter_always', 'ComputeFilter', {}, True),
    ('ram_filter_always', 'RamFilter', {}, True),
    ('core_filter_always', 'CoreFilter', {}, True),
    ('disk_filter_always', 'DiskFilter', {}, True),
    ('az_filter_when_a_zone_is_requested', 'AvailabilityZoneFilter',
     {'availability_zone': 'az1'}, True),
    ('az_filter_not_without_a_zone', 'AvailabilityZoneFilter', {}, False),
    ('aggregate_filter_for_unscoped_specs',
     'AggregateInstanceExtraSpecsFilter',
     {'extra_specs': {'ssd': 'true'}}, True),
    ('aggregate_filter_for_its_scope', 'AggregateInstanceExtraSpecsFilter',
     {'extra_specs': {SCOPED + 'ssd': 'true'}}, True),
    ('aggregate_filter_not_for_other_scopes_only',
     'AggregateInstanceExtraSpecsFilter',
     {'extra_specs': {'hw:cpu_policy': 'dedicated'}}, False),
    ('aggregate_filter_not_without_extra_specs',
     'AggregateInstanceExtraSpecsFilter', {}, False),
    ('image_filter_when_the_image_asks', 'ImagePropertiesFilter',
     {'image_props': {'hw_architecture': 'x86_64'}}, True),
    # (A version alone is not checked, as in Nova.)
    ('image_filter_not_when_the_image_asks_a_version_only',
     'ImagePropertiesFilter',
     {'image_props': {'img_hv_requested_version': '>=1'}}, False),
    ('image_filter_not_for_other_properties', 'ImagePropertiesFilter',
     {'image_props': {'os_distro': 'debian'}}, False),
    ('image_filter_not_without_image', 'ImagePropertiesFilter', {}, False),
    ('affinity_filter_for_an_affinity_group', 'ServerGroupAffinityFilter',
     {'group': group_obj.AFFINITY}, True),
    ('affinity_filter_not_for_a_soft_affinity_group',
     'ServerGroupAffinityFilter', {'group': group_obj.SOFT_AFFINITY}, False),
    ('affinity_filter_not_without_group', 'ServerGroupAffinityFilter', {},
     False),
    ('anti_affinity_filter_for_an_anti_affinity_group',
     'ServerGroupAntiAffinityFilter', {'group': group_obj.ANTI_AFFINITY},
     True),
    ('anti_affinity_filter_not_for_an_affinity_group',
     'ServerGroupAntiAffinityFilter', {'group': group_obj.AFFINITY}, False),
    ('same_host_filter_with_the_hint', 'SameHostFilter',
     {'hints': {'same_host': ['i1']}}, True),
    ('same_host_filter_not_with_an_empty_hint', 'SameHostFilter',
     {'hints': {'same_host': []}}, False),
    ('same_host_filter_not_with_the_other_hint', 'SameHostFilter',
     {'hints': {'different_host': ['i1']}}, False),
    ('different_host_filter_with_the_hint', 'DifferentHostFilter',
     {'hints': {'different_host': ['i1']}}, True),
    ('different_host_filter_not_without_hints', 'DifferentHostFilter', {},
     False),
    ('retry_filter_on_a_reschedule', 'RetryFilter',
     {'retry': [['h1', 'h1']]}, True),
    ('retry_filter_not_on_the_first_attempt', 'RetryFilter',
     {'retry': []}, False),
    ('retry_filter_not_without_retry', 'RetryFilter', {}, False),
]


def check_applies(self, filter_name, request, applies):
    request = dict(request)
    if 'group' in request:
        request['group'] = fakes.make_group(request['group'])
    if 'retry' in request:
        request['retry'] = objects.SchedulerRetries(
            num_attempts=len(request['retry']), hosts=request['retry'])
    [host_filter] = filters.load([filter_name])
    self.assertEqual(applies, host_filter.applies(make_spec(**request)))


@add_cases(APPLIES_CASES, check_applies)
class TestFilterApplies(FilterTestCase):
    pass


# -- what a filter says about one refused host -------------------------------

REFUSAL_CASES = [
    # name, filter, host, request, refusal
    ('compute_filter_gives_its_reason', 'ComputeFilter', dict(up=False),
     {}, 'compute service down or disabled'),
    ('ram_filter_gives_the_figures', 'RamFilter',
     dict(ram_mb=4096, free_ram_mb=1023), dict(memory_mb=1024),
     'needs 1024 MB RAM, 1023 MB usable'),
    ('core_filter_gives_the_figures', 'CoreFilter',
     dict(vcpus=4, vcpus_used=3, cpu_allocation_ratio=1.5),
     dict(vcpus=4), 'needs 4 vCPUs, 3 usable'),
    ('disk_filter_gives_the_figures', 'DiskFilter', dict(disk_gb=10),
     dict(root_gb=10, swap=1), 'needs 10241 MB disk, 10240 MB usable'),
    ('az_filter_gives_both_zones', 'AvailabilityZoneFilter', {},
     dict(availability_zone='az1'), 'in zone nova, not az1'),
    ('aggregate_filter_names_the_missing_key',
     'AggregateInstanceExtraSpecsFilter', {},
     dict(extra_specs={'ssd': 'true'}),
     'no aggregate sets ssd (flavor wants true)'),
    ('aggregate_filter_names_the_values_found',
     'AggregateInstanceExtraSpecsFilter',
     dict(aggregates=[{'ssd': 'false'}, {'ssd': 'no'}]),
     dict(extra_specs={'ssd': 'true'}),
     'ssd is false or no, flavor wants true'),
    ('image_filter_names_what_the_host_runs', 'ImagePropertiesFilter',
     dict(supported_instances=X86_KVM),
     dict(image_props={'hw_architecture': 'aarch64'}),
     'image wants aarch64; host runs x86_64/kvm/hvm'),
    ('image_filter_names_both_versions', 'ImagePropertiesFilter',
     dict(supported_instances=X86_KVM, hypervisor_version=8002000),
     dict(image_props={'img_hv_type': 'kvm',
                       'img_hv_requested_version': '>=9'}),
     'image wants kvm; host runs x86_64/kvm/hvm; hypervisor version 8.2.0, '
     'image wants >=9'),
    ('image_filter_on_a_host_reporting_nothing', 'ImagePropertiesFilter', {},
     dict(image_props={'img_hv_type': 'kvm'}),
     'image wants kvm; host runs none'),
]


def check_refusal(self, filter_name, host, request, refusal):
    [host_filter] = filters.load([filter_name])
    state = make_host('h1', **host)
    spec = make_spec(**request)
    self.assertFalse(host_filter.host_passes(state, spec))
    self.assertEqual(refusal, host_filter.refusal(state, spec))


@add_cases(REFUSAL_CASES, check_refusal)
class TestFilterRefusal(FilterTestCase):

    def test_affinity_filter_names_the_hosts_of_the_group(self):
        group = fakes.make_group(group_obj.AFFINITY)
        fakes.add_members(group, make_host('h3'))
        fakes.add_members(group, make_host('h2'))
        self.assertEqual('the group runs on h2, h3', AFFINITY().refusal(
            make_host('h1'), make_spec(group=group)))

    def test_anti_affinity_filter_counts_the_members_here(self):
        group = fakes.make_group(group_obj.ANTI_AFFINITY,
                                 {'max_server_per_host': '2'})
        state = make_host('h1')
        fakes.add_members(group, state, 2)
        self.assertEqual(
            '2 member(s) of the group already here (at most 2)',
            ANTI_AFFINITY().refusal(state, make_spec(group=group)))


class TestFilterRegistry(testtools.TestCase):

    def test_every_filter_has_its_own_reason(self):
        reasons = {name: filters.load([name])[0].reason
                   for name in filters.names()}
        self.assertNotIn(filters.BaseHostFilter.reason, reasons.values())
        self.assertEqual(len(reasons), len(set(reasons.values())))
