"""Two schedulers at once (active-active on one topic) on a burst of
boots: each claims its choice in placement before answering, so neither
can give away room the other took. Every boot ends ACTIVE or in ERROR with
NoValidHost -- none left in BUILD -- exactly as many are ACTIVE as the
hosts hold, and no host holds more than its capacity.
"""

import concurrent.futures

from tests.functional import base
from tests.functional import fixtures
from tests.functional import placement_fixtures

SMALL = {'VCPU': 1, 'MEMORY_MB': 2048, 'DISK_GB': 10}  # flavor 2


class TestTwoSchedulersOnABurst(base.ControlPlaneTestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.plane.start_daemon('scheduler2', 'scheduler',
                               '[DEFAULT]\nhost = scheduler2\n')
        # Up once its service record reports (the API lists it).
        admin = cls.plane.client('admin')
        fixtures.wait_for(lambda: len([
            s for s in admin.get('/os-services').json()['services']
            if s['binary'] == 'nova-lite-scheduler' and s['state'] == 'up'])
            >= 2, 60, what='two schedulers up')

    def setUp(self):
        super().setUp()
        self.placement = placement_fixtures.PlacementClient(
            self.plane.placement_url, '1.28')

    def capacity(self, provider):
        """How many m1.small instances ``provider``'s inventory holds."""
        inventories = self.placement.get(
            '/resource_providers/%s/inventories' % provider).json()[
                'inventories']
        return min(int((inventories[rc]['total'] - inventories[rc][
            'reserved']) * inventories[rc]['allocation_ratio']) // amount
            for rc, amount in SMALL.items())

    def test_a_burst_fills_the_hosts_exactly_and_never_past_capacity(self):
        # The compute nodes (their bandwidth providers are children).
        providers = {p['name']: p['uuid'] for p in self.placement.get(
            '/resource_providers').json()['resource_providers']
            if not p['parent_provider_uuid']}
        capacity = {name: self.capacity(uuid)
                    for name, uuid in providers.items()}
        room = sum(capacity.values())
        burst = room + 3

        def boot(index):
            return self.admin.create_server(
                'burst-%02d' % index, image=self.plane.image_id)['server'][
                    'id']
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            ids = list(pool.map(boot, range(burst)))
        self.addCleanup(self._delete, ids)
        servers = [self.admin.wait_for_status(i, ('ACTIVE', 'ERROR'), 120)
                   for i in ids]

        active = [s for s in servers if s['status'] == 'ACTIVE']
        failed = [s for s in servers if s['status'] == 'ERROR']
        self.assertEqual((room, 3), (len(active), len(failed)),
                         [s['fault'] for s in failed])
        for server in failed:
            self.assertIn('No valid host', server['fault']['message'])
            self.assertEqual({}, self.placement.get(
                '/allocations/%s' % server['id']).json()['allocations'])
        for server in active:
            host = server['OS-EXT-SRV-ATTR:hypervisor_hostname']
            held = self.placement.get(
                '/allocations/%s' % server['id']).json()['allocations']
            self.assertEqual({providers[host]: SMALL},
                             {rp: a['resources'] for rp, a in held.items()})
        for name, uuid in providers.items():
            usages = self.placement.get(
                '/resource_providers/%s/usages' % uuid).json()['usages']
            self.assertEqual(capacity[name] * SMALL['MEMORY_MB'],
                             usages['MEMORY_MB'], name)
        # Both schedulers took part.
        for name in ('scheduler', 'scheduler2'):
            self.assertIn('placed and claimed on',
                          self.plane.daemons[name].log(), name)

    def _delete(self, ids):
        for server_id in ids:
            self.admin.delete('/servers/%s' % server_id)
        for server_id in ids:
            self.admin.wait_for_gone(server_id)
