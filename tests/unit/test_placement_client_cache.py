"""The placement client's provider cache on its own, against the real
placement app in this process: a caching client trusts its record of a
provider until the refresh interval passes or a request about it fails;
any other client asks placement every time."""

from oslo_utils import uuidutils
import testtools

from nova_lite import placement_client
from tests.unit import fixtures as nova_fixtures

REFRESH = 300


def inventory(total):
    return {'VCPU': {'total': total, 'reserved': 0, 'min_unit': 1,
                     'max_unit': total, 'step_size': 1,
                     'allocation_ratio': 1.0}}


class ProviderCacheTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        config = self.useFixture(nova_fixtures.Config())
        config.config(resource_provider_association_refresh=REFRESH,
                      group='compute')
        self.useFixture(nova_fixtures.Databases())
        self.placement = self.useFixture(nova_fixtures.PlacementServer())
        self.uuid = uuidutils.generate_uuid()
        self.now = 0.0
        self.sent = []

    def client(self, cache_providers=True):
        client = placement_client.PlacementClient(
            self.placement.endpoint, cache_providers=cache_providers)
        client.clock = lambda: self.now
        real = client._request

        def request(method, path, *args, **kwargs):
            self.sent.append((method, path))
            return real(method, path, *args, **kwargs)
        client._request = request
        return client

    def sent_by(self, what, *args, **kwargs):
        del self.sent[:]
        what(*args, **kwargs)
        return list(self.sent)

    def reported(self, client):
        client.ensure_resource_provider(self.uuid, 'node1')
        client.set_inventory(self.uuid, inventory(8))
        client.update_provider_traits(self.uuid, ['COMPUTE_NODE'])
        return client


class TestACachingClient(ProviderCacheTestCase):

    def test_asks_nothing_about_a_provider_it_knows(self):
        client = self.reported(self.client())
        self.assertEqual([], self.sent_by(self.reported, client))

    def test_asks_again_once_the_refresh_interval_has_passed(self):
        client = self.reported(self.client())
        self.now += REFRESH
        self.assertIn(('GET', '/resource_providers/%s' % self.uuid),
                      self.sent_by(self.reported, client))

    def test_writes_an_inventory_that_differs_from_its_record(self):
        client = self.reported(self.client())
        self.assertTrue(client.set_inventory(self.uuid, inventory(4)))
        self.assertEqual([], self.sent_by(client.set_inventory, self.uuid,
                                          inventory(4)))

    def test_writes_a_trait_its_record_lacks(self):
        client = self.reported(self.client())
        self.assertEqual(({'HW_CPU_X86_AVX2'}, set()),
                         client.update_provider_traits(
                             self.uuid, ['HW_CPU_X86_AVX2']))

    def test_asks_whatever_its_record_says_when_told_not_to_trust_it(self):
        client = self.reported(self.client())
        self.assertTrue(self.sent_by(
            client.update_provider_traits, self.uuid, ['COMPUTE_NODE'],
            trust_cache=False))

    def test_a_provider_found_gone_is_forgotten(self):
        client = self.reported(self.client())
        self.client(cache_providers=False)._request(
            'DELETE', '/resource_providers/%s' % self.uuid)
        self.assertIsNone(client.get_provider(self.uuid))
        client.ensure_resource_provider(self.uuid, 'node1')
        self.assertEqual(
            'node1', self.client(cache_providers=False).get_provider(
                self.uuid)['name'])

    def test_a_failed_request_forgets_the_provider(self):
        client = self.reported(self.client())
        self.assertRaises(placement_client.PlacementConflict,
                          client.set_inventory, self.uuid,
                          {'NO_SUCH_CLASS': inventory(1)['VCPU']})
        self.assertIn(('GET', '/resource_providers/%s' % self.uuid),
                      self.sent_by(self.reported, client))

    def test_aggregates_it_writes_make_it_ask_for_sharing_providers_again(
            self):
        client = self.reported(self.client())
        self.assertEqual([], client.sharing_providers_of(self.uuid,
                                                         {'DISK_GB': 1}))
        client.update_provider_aggregates(
            self.uuid, add=[uuidutils.generate_uuid()])
        self.assertIn(('GET', '/resource_providers'), self.sent_by(
            client.sharing_providers_of, self.uuid, {'DISK_GB': 1}))


class TestAClientWithoutTheCache(ProviderCacheTestCase):

    def test_asks_placement_every_time(self):
        client = self.reported(self.client(cache_providers=False))
        self.assertEqual(
            [('GET', '/resource_providers/%s' % self.uuid),
             ('GET', '/resource_providers/%s/inventories' % self.uuid),
             ('GET', '/resource_providers/%s/traits' % self.uuid)],
            self.sent_by(self.reported, client))
