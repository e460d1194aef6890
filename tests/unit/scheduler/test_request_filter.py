"""The request pre-filters as pure functions: a request spec, host
aggregates and the configuration in, what to add to the placement query
out (or NoValidHost). No database, no placement."""

from oslo_utils import uuidutils
import testtools

from nova_lite import conf as nova_conf
from nova_lite import exception
from nova_lite import objects
from nova_lite.scheduler import host_manager
from nova_lite.scheduler import request_filter
from tests.unit import fixtures as nova_fixtures
from tests.unit.scheduler import fakes

CONF = nova_conf.CONF


def aggregate(metadata, name='agg'):
    return host_manager.Aggregate(name, metadata, (),
                                  uuidutils.generate_uuid())


class PreFilterTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.config = self.useFixture(nova_fixtures.Config())

    def process(self, spec, aggregates=()):
        return request_filter.process(spec, list(aggregates))


class TestAvailabilityZone(PreFilterTestCase):

    def test_a_zone_asks_for_the_aggregates_that_make_it(self):
        az1a, az1b = aggregate({'availability_zone': 'az1'}), aggregate(
            {'availability_zone': 'az1', 'ssd': 'true'})
        query = self.process(fakes.make_spec(availability_zone='az1'), [
            az1a, aggregate({'availability_zone': 'az2'}), az1b,
            aggregate({'ssd': 'true'})])
        self.assertEqual([sorted([az1a.uuid, az1b.uuid])], query.member_of)
        self.assertEqual([sorted([az1a.uuid, az1b.uuid])],
                         query.placement_arguments()['member_of'])

    def test_a_zone_no_aggregate_makes_does_not_narrow(self):
        # The default zone: its hosts are in no zone aggregate, so only
        # AvailabilityZoneFilter can tell them.
        query = self.process(fakes.make_spec(availability_zone='nova'), [
            aggregate({'availability_zone': 'az1'})])
        self.assertEqual([], query.member_of)

    def test_no_zone_does_not_narrow(self):
        query = self.process(fakes.make_spec(), [
            aggregate({'availability_zone': 'az1'})])
        self.assertEqual([], query.member_of)
        self.assertFalse(query.narrows_by_aggregate)

    def test_the_zone_is_in_the_description(self):
        query = self.process(fakes.make_spec(availability_zone='az1'), [
            aggregate({'availability_zone': 'az1'})])
        self.assertIn('availability zone az1', query.describe())


class TestComputeStatus(PreFilterTestCase):

    def test_disabled_computes_are_always_forbidden(self):
        query = self.process(fakes.make_spec())
        self.assertEqual({'COMPUTE_STATUS_DISABLED'}, query.root_forbidden)
        self.assertEqual(['COMPUTE_STATUS_DISABLED'],
                         query.placement_arguments()['root_forbidden'])


class TestTenantIsolation(PreFilterTestCase):

    def setUp(self):
        super().setUp()
        self.mine = aggregate({'filter_tenant_id': 'p1'})
        self.also_mine = aggregate({'filter_tenant_id:2': 'p1',
                                    'filter_tenant_id:1': 'p2'})
        self.theirs = aggregate({'filter_tenant_id': 'p2'})
        self.unrelated = aggregate({'owner': 'p1'})
        self.aggregates = [self.mine, self.also_mine, self.theirs,
                           self.unrelated]

    def test_off_by_default(self):
        query = self.process(fakes.make_spec(project_id='p1'),
                             self.aggregates)
        self.assertEqual([], query.member_of)

    def test_a_project_asks_for_its_aggregates(self):
        self.config.config(limit_tenants_to_placement_aggregate=True,
                           group='scheduler')
        query = self.process(fakes.make_spec(project_id='p1'),
                             self.aggregates)
        self.assertEqual([sorted([self.mine.uuid, self.also_mine.uuid])],
                         query.member_of)

    def test_a_project_without_aggregates_schedules_anywhere(self):
        self.config.config(limit_tenants_to_placement_aggregate=True,
                           group='scheduler')
        query = self.process(fakes.make_spec(project_id='p3'),
                             self.aggregates)
        self.assertEqual([], query.member_of)

    def test_required_a_project_without_aggregates_gets_no_host(self):
        self.config.config(limit_tenants_to_placement_aggregate=True,
                           placement_aggregate_required_for_tenants=True,
                           group='scheduler')
        error = self.assertRaises(
            exception.NoValidHost, self.process,
            fakes.make_spec(project_id='p3'), self.aggregates)
        self.assertIn('project p3 has no host aggregate of its own',
                      str(error))
        self.assertIn('placement_aggregate_required_for_tenants', str(error))

    def test_required_alone_does_nothing(self):
        self.config.config(placement_aggregate_required_for_tenants=True,
                           group='scheduler')
        query = self.process(fakes.make_spec(project_id='p3'),
                             self.aggregates)
        self.assertEqual([], query.member_of)

    def test_tenant_and_zone_must_both_hold(self):
        self.config.config(limit_tenants_to_placement_aggregate=True,
                           group='scheduler')
        zone = aggregate({'availability_zone': 'az1'})
        query = self.process(
            fakes.make_spec(project_id='p2', availability_zone='az1'),
            self.aggregates + [zone])
        self.assertEqual([sorted([self.also_mine.uuid, self.theirs.uuid]),
                          [zone.uuid]], query.member_of)


class TestImageType(PreFilterTestCase):

    def enable(self):
        self.config.config(query_placement_for_image_type_support=True,
                           group='scheduler')

    def test_off_by_default(self):
        query = self.process(fakes.make_spec(
            image_props={'disk_format': 'qcow2'}))
        self.assertEqual(set(), query.root_required)

    def test_the_disk_formats_trait_is_required(self):
        self.enable()
        query = self.process(fakes.make_spec(
            image_props={'disk_format': 'qcow2'}))
        self.assertEqual({'COMPUTE_IMAGE_TYPE_QCOW2'}, query.root_required)

    def test_boot_from_volume_is_not_narrowed(self):
        self.enable()
        query = self.process(fakes.make_spec(
            is_bfv=True, image_props={'disk_format': 'qcow2'}))
        self.assertEqual(set(), query.root_required)

    def test_an_image_without_a_disk_format_is_not_narrowed(self):
        self.enable()
        self.assertEqual(set(), self.process(
            fakes.make_spec(image_props={})).root_required)
        self.assertEqual(set(), self.process(
            fakes.make_spec()).root_required)

    def test_a_disk_format_no_trait_names_is_not_narrowed(self):
        self.enable()
        query = self.process(fakes.make_spec(
            image_props={'disk_format': 'floppy'}))
        self.assertEqual(set(), query.root_required)


class TestImageMetadata(PreFilterTestCase):

    def enable(self):
        self.config.config(image_metadata_prefilter=True, group='scheduler')

    def test_off_by_default(self):
        query = self.process(fakes.make_spec(
            image_props={'hw_disk_bus': 'virtio'}))
        self.assertEqual(set(), query.root_required)

    def test_hardware_properties_become_required_traits(self):
        self.enable()
        query = self.process(fakes.make_spec(image_props={
            'hw_disk_bus': 'virtio', 'hw_cdrom_bus': 'sata',
            'hw_vif_model': 'e1000', 'hw_architecture': 'x86_64',
            'hw_video_model': 'virtio', 'os_distro': 'debian'}))
        self.assertEqual(
            {'COMPUTE_STORAGE_BUS_VIRTIO', 'COMPUTE_STORAGE_BUS_SATA',
             'COMPUTE_NET_VIF_MODEL_E1000', 'HW_ARCH_X86_64',
             'COMPUTE_GRAPHICS_MODEL_VIRTIO'}, query.root_required)

    def test_dashes_become_underscores(self):
        self.enable()
        query = self.process(fakes.make_spec(
            image_props={'hw_vif_model': 'virtio-net'}))
        self.assertEqual(set(), query.root_required)  # no such trait
        query = self.process(fakes.make_spec(
            image_props={'hw_emulation_architecture': 'aarch64'}))
        self.assertEqual({'COMPUTE_ARCH_AARCH64'}, query.root_required)

    def test_a_value_no_trait_names_narrows_nothing_at_all(self):
        self.enable()
        query = self.process(fakes.make_spec(image_props={
            'hw_disk_bus': 'virtio', 'hw_video_model': 'no-such-model'}))
        self.assertEqual(set(), query.root_required)


class TestFlavorAndImageTraits(PreFilterTestCase):

    def test_required_and_forbidden_traits_of_flavor_and_image(self):
        query = self.process(fakes.make_spec(
            extra_specs={'trait:HW_CPU_X86_AVX2': 'required',
                         'trait:CUSTOM_SLOW': 'forbidden',
                         'trait:CUSTOM_IGNORED': 'maybe',
                         'hw:cpu_policy': 'dedicated'},
            image_props={'trait:CUSTOM_GPU': 'required'}))
        self.assertEqual(({'HW_CPU_X86_AVX2', 'CUSTOM_GPU'},
                          {'CUSTOM_SLOW'}),
                         (query.required, query.forbidden))

    def test_none_asked_none_sent(self):
        arguments = self.process(fakes.make_spec()).placement_arguments()
        self.assertEqual(([], []), (arguments['required'],
                                    arguments['forbidden']))


class TestIsolatedAggregates(PreFilterTestCase):

    def setUp(self):
        super().setUp()
        self.config.config(enable_isolated_aggregate_filtering=True,
                           group='scheduler')
        self.avx = aggregate({'trait:HW_CPU_X86_AVX2': 'required'})
        self.gpu = aggregate({'trait:CUSTOM_GPU': 'required'})
        self.both = aggregate({'trait:HW_CPU_X86_AVX2': 'required',
                               'trait:CUSTOM_GPU': 'required'})
        self.open = aggregate({'trait:CUSTOM_GPU': 'optional'})
        self.aggregates = [self.avx, self.gpu, self.both, self.open]

    def test_a_plain_request_stays_out_of_every_isolated_aggregate(self):
        query = self.process(fakes.make_spec(), self.aggregates)
        self.assertEqual({self.avx.uuid, self.gpu.uuid, self.both.uuid},
                         query.forbidden_aggregates)
        self.assertEqual(sorted([self.avx.uuid, self.gpu.uuid,
                                 self.both.uuid]),
                         query.placement_arguments()['forbidden_aggregates'])

    def test_requiring_a_trait_opens_the_aggregates_that_need_only_it(self):
        query = self.process(fakes.make_spec(
            extra_specs={'trait:HW_CPU_X86_AVX2': 'required'}),
            self.aggregates)
        self.assertEqual({self.gpu.uuid, self.both.uuid},
                         query.forbidden_aggregates)

    def test_a_trait_from_the_image_or_a_port_counts_too(self):
        spec = fakes.make_spec(
            extra_specs={'trait:HW_CPU_X86_AVX2': 'required'},
            image_props={})
        spec.requested_resources = [objects.RequestGroup(
            requester_id='port1', resources={'NET_BW_EGR_KILOBIT_PER_SEC': 1},
            required_traits=['CUSTOM_GPU'])]
        query = self.process(spec, self.aggregates)
        self.assertEqual(set(), query.forbidden_aggregates)

    def test_a_zone_made_only_of_isolated_aggregates_is_no_valid_host(self):
        self.avx.metadata['availability_zone'] = 'az1'
        error = self.assertRaises(
            exception.NoValidHost, self.process,
            fakes.make_spec(availability_zone='az1'), self.aggregates)
        self.assertIn('every one of them is isolated', str(error))

    def test_a_zone_with_an_open_aggregate_asks_for_all_of_them(self):
        self.avx.metadata['availability_zone'] = 'az1'
        self.open.metadata['availability_zone'] = 'az1'
        query = self.process(fakes.make_spec(availability_zone='az1'),
                             self.aggregates)
        self.assertEqual([sorted([self.avx.uuid, self.open.uuid])],
                         query.member_of)
        self.assertIn(self.avx.uuid, query.forbidden_aggregates)

    def test_off_nothing_is_isolated(self):
        self.config.config(enable_isolated_aggregate_filtering=False,
                           group='scheduler')
        query = self.process(fakes.make_spec(), self.aggregates)
        self.assertEqual(set(), query.forbidden_aggregates)


class TestNeedsAggregates(PreFilterTestCase):

    def test_only_a_zone_or_an_aggregate_option_reads_them(self):
        self.assertFalse(request_filter.needs_aggregates(fakes.make_spec()))
        self.assertTrue(request_filter.needs_aggregates(
            fakes.make_spec(availability_zone='az1')))
        self.config.config(enable_isolated_aggregate_filtering=True,
                           group='scheduler')
        self.assertTrue(request_filter.needs_aggregates(fakes.make_spec()))
