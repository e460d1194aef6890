"""What the audit asks placement once it knows its provider: the placement
client's provider cache and the service status the tracker keeps, against
the real (in-process) placement app, with a clock the tests turn.
"""

from oslo_serialization import jsonutils
from oslo_utils import uuidutils
import requests

from nova_lite import placement_client
from nova_lite import servicegroup
from tests.unit.compute import test_resource_tracker_reports as reports

STATUS_DISABLED = reports.STATUS_DISABLED
REFRESH = 300


class ProviderCacheTestCase(reports.ReportsTestCase):

    def setUp(self):
        super().setUp()
        self.config.config(resource_provider_association_refresh=REFRESH,
                           group='compute')
        self.now = 1000.0
        self.tracker.clock = self.tracker.reportclient.clock = \
            lambda: self.now
        self.service_reads = 0
        real_read = servicegroup.compute_service

        def read(context, host):
            self.service_reads += 1
            return real_read(context, host)
        self.patch(servicegroup, 'compute_service', read)

    def recorded(self, what):
        """The placement requests (method, path) of ``what()``."""
        sent = []
        client = self.tracker.reportclient
        real = client._request

        def request(method, path, *args, **kwargs):
            sent.append((method, path))
            return real(method, path, *args, **kwargs)
        client._request = request
        try:
            what()
        finally:
            client._request = real
        return sent

    def audit_requests(self):
        return self.recorded(self.audit)

    def later(self, seconds=REFRESH):
        self.now += seconds

    def inventory(self, uuid):
        return self.client()._request(
            'GET', '/resource_providers/%s/inventories' % uuid).json()[
                'inventories']

    def provider_path(self, uuid, what=''):
        return '/resource_providers/%s%s' % (uuid, what)


class TestAnIdleAudit(ProviderCacheTestCase):

    def test_asks_placement_only_for_the_allocations_on_its_node(self):
        self.register_service()
        node = self.audit()
        self.assertEqual(
            [('GET', self.provider_path(node.uuid, '/allocations'))],
            self.audit_requests())

    def everything_read(self, node):
        """What an audit asks placement when it trusts nothing."""
        return [('GET', self.provider_path(node.uuid)),
                ('GET', self.provider_path(node.uuid, '/inventories')),
                ('GET', self.provider_path(node.uuid, '/aggregates')),
                ('GET', self.provider_path(node.uuid, '/traits')),
                ('GET', self.provider_path(node.uuid, '/allocations'))]

    def test_without_the_cache_it_reads_the_provider_and_its_associations(
            self):
        self.register_service()
        self.tracker.reportclient = placement_client.PlacementClient()
        node = self.audit()
        self.assertEqual(
            self.everything_read(node), self.audit_requests())

    def test_reads_it_all_again_once_the_refresh_interval_has_passed(self):
        self.register_service()
        node = self.audit()
        self.later(REFRESH - 1)
        self.assertEqual(1, len(self.audit_requests()))
        self.later(1)
        self.assertEqual(
            self.everything_read(node), self.audit_requests())

    def test_a_refresh_of_zero_never_reads_it_again(self):
        self.config.config(resource_provider_association_refresh=0,
                           group='compute')
        self.register_service()
        self.audit()
        self.later(100 * REFRESH)
        self.assertEqual(1, len(self.audit_requests()))
        self.assertEqual(1, self.service_reads)

    def test_reads_the_service_record_once_per_refresh_interval(self):
        self.register_service()
        self.audit()
        self.audit()
        self.assertEqual(1, self.service_reads)
        self.later()
        self.audit()
        self.assertEqual(2, self.service_reads)


class TestInventory(ProviderCacheTestCase):

    def test_a_reserved_amount_changed_here_is_written_at_the_next_audit(
            self):
        node = self.audit()
        self.config.config(reserved_host_memory_mb=1024)
        self.audit()
        self.assertEqual(1024, self.inventory(node.uuid)['MEMORY_MB'][
            'reserved'])

    def test_the_drivers_resources_changing_are_written_at_the_next_audit(
            self):
        node = self.audit()
        self.config.config(fake_vcpus=8, group='compute')
        self.audit()
        self.assertEqual(8, self.inventory(node.uuid)['VCPU']['total'])

    def test_an_inventory_changed_in_placement_is_put_back_after_refresh(
            self):
        node = self.audit()
        wanted = self.inventory(node.uuid)
        changed = dict(wanted, VCPU=dict(wanted['VCPU'], reserved=2))
        self.client().set_inventory(node.uuid, changed)
        self.audit()  # trusted until the refresh
        self.later()
        self.audit()
        self.assertEqual(wanted, self.inventory(node.uuid))

    def test_a_refused_inventory_makes_the_next_audit_read_it_all(self):
        node = self.audit()
        self.config.config(fake_vcpus=2, group='compute')
        client = self.tracker.reportclient
        real = client._request

        def refuse(method, path, *args, **kwargs):
            if method == 'PUT' and path.endswith('/inventories'):
                return refusal(409, 'placement.inventory.inuse')
            return real(method, path, *args, **kwargs)
        client._request = refuse
        self.audit()
        client._request = real
        self.assertEqual(('GET', self.provider_path(node.uuid)),
                         self.audit_requests()[0])
        self.assertEqual(2, self.inventory(node.uuid)['VCPU']['total'])


def refusal(status, code):
    response = requests.Response()
    response.status_code = status
    response._content = jsonutils.dump_as_bytes(
        {'errors': [{'status': status, 'code': code, 'detail': code}]})
    return response


class TestTheProviderGone(ProviderCacheTestCase):

    def delete_provider(self, uuid):
        response = self.client()._request(
            'DELETE', self.provider_path(uuid))
        self.assertEqual(204, response.status_code, response.text)

    def test_it_is_recreated_at_the_latest_after_the_refresh_interval(self):
        node = self.audit()
        self.delete_provider(node.uuid)
        self.later()
        self.audit()
        self.assertEqual(self.node, self.client().get_provider(
            node.uuid)['name'])
        self.assertEqual(4, self.inventory(node.uuid)['VCPU']['total'])
        self.assertIn('COMPUTE_NODE', self.traits())

    def test_the_404_of_its_allocations_has_the_next_audit_recreate_it(
            self):
        node = self.audit()
        self.delete_provider(node.uuid)
        self.audit()
        self.audit()
        self.assertEqual(4, self.inventory(node.uuid)['VCPU']['total'])
        self.assertIn('COMPUTE_NODE', self.traits())

    def test_a_failed_audit_makes_the_next_one_read_it_all(self):
        node = self.audit()
        client = self.tracker.reportclient
        real = client._request

        def unreachable(method, path, *args, **kwargs):
            raise placement_client.PlacementUnavailable(reason='away')
        client._request = unreachable
        self.audit()
        client._request = real
        self.assertEqual(('GET', self.provider_path(node.uuid)),
                         self.audit_requests()[0])


class TestSharedDisk(ProviderCacheTestCase):

    def share_disk_with(self, node):
        """A sharing provider of DISK_GB in an aggregate with ``node``."""
        client = self.client()
        aggregate = uuidutils.generate_uuid()
        storage = uuidutils.generate_uuid()
        client.ensure_resource_provider(storage, 'nfs')
        client.set_inventory(storage, {'DISK_GB': {
            'total': 1000, 'reserved': 0, 'min_unit': 1, 'max_unit': 1000,
            'step_size': 1, 'allocation_ratio': 1.0}})
        client.update_provider_traits(storage,
                                      ['MISC_SHARES_VIA_AGGREGATE'])
        client.update_provider_aggregates(storage, add=[aggregate])
        client.update_provider_aggregates(node.uuid, add=[aggregate])
        return storage

    def disk_provider(self, node):
        return self.tracker.allocations_for(
            self.make_instance(root_gb=1), node)

    def test_a_new_sharing_provider_is_found_after_the_refresh_interval(
            self):
        node = self.audit()
        storage = self.share_disk_with(node)
        self.audit()
        self.later()
        self.audit()
        self.assertEqual({'DISK_GB': 1},
                         self.disk_provider(node)[storage]['resources'])

    def test_one_known_is_not_asked_for_again(self):
        node = self.audit()
        storage = self.share_disk_with(node)
        self.later()
        self.audit()
        self.assertNotIn(('GET', self.provider_path(node.uuid,
                                                    '/aggregates')),
                         self.audit_requests())
        self.assertIn(storage, self.disk_provider(node))


class TestTraits(ProviderCacheTestCase):

    def test_a_trait_taken_off_in_placement_is_put_back_after_refresh(self):
        node = self.audit()
        self.client().update_provider_traits(node.uuid,
                                             remove=['COMPUTE_NODE'])
        self.later()
        self.audit()
        self.assertIn('COMPUTE_NODE', self.traits())

    def test_an_operators_traits_are_kept_when_ours_change(self):
        node = self.audit()
        client = self.client()
        client._request('PUT', '/traits/CUSTOM_GOLD', version='1.6')
        client.update_provider_traits(node.uuid, ['CUSTOM_GOLD'])
        self.config.config(group='compute', fake_image_types=['raw'])
        self.audit()
        traits = self.traits()
        self.assertIn('CUSTOM_GOLD', traits)
        self.assertNotIn('COMPUTE_IMAGE_TYPE_QCOW2', traits)

    def test_set_service_status_writes_whatever_the_cache_says(self):
        self.register_service()
        node = self.audit()
        # Someone else puts the trait on, unknown to the cache.
        self.client().update_provider_traits(node.uuid, [STATUS_DISABLED])
        self.tracker.set_service_status(disabled=False)
        self.assertNotIn(STATUS_DISABLED, self.traits())

    def test_set_service_status_has_the_next_audit_read_the_record(self):
        service = self.register_service()
        self.audit()
        service.disabled = True
        service.save()
        self.tracker.set_service_status(disabled=True)
        self.audit()
        self.assertEqual(2, self.service_reads)
        self.assertIn(STATUS_DISABLED, self.traits())

    def test_the_record_has_the_last_word_over_the_api_s_message(self):
        # Two changes in quick succession reached this compute in the
        # wrong order: the record says enabled.
        self.register_service()
        self.audit()
        self.tracker.set_service_status(disabled=True)
        self.audit()
        self.assertNotIn(STATUS_DISABLED, self.traits())

    def test_a_status_not_told_to_the_compute_is_seen_after_refresh(self):
        service = self.register_service()
        self.audit()
        service.disabled = True
        service.save()
        self.later()
        self.audit()
        self.assertIn(STATUS_DISABLED, self.traits())

    def test_an_unreadable_record_is_read_again_at_the_next_audit(self):
        self.audit()  # no service record yet
        self.register_service(disabled=True)
        self.audit()
        self.assertIn(STATUS_DISABLED, self.traits())
