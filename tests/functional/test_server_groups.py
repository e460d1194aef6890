"""Server group policies through the real daemons (seed 002 and the hard
policies): the API records the group and its members, the conductor hands
the group to the scheduler, the filters and weighers place the members.

Computes have 8192 MB of RAM; m1.small takes 2048 MB, m1.large 5000 MB
(one per host).
"""

from tests.functional import base


class ServerGroupMixin:
    microversion = '2.15'

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.plane.manage('flavor', 'create', 'm1.large', '--id', '5',
                         '--ram', '5000', '--vcpus', '1', '--disk', '10')

    def setUp(self):
        super().setUp()
        self.client = self.plane.client('admin', self.microversion)
        self.addCleanup(self._delete_servers)
        self.created = []

    def _delete_servers(self):
        for server_id in self.created:
            self.client.delete('/servers/%s' % server_id)
        for server_id in self.created:
            self.client.wait_for_gone(server_id)

    def group(self, policy):
        response = self.client.post('/os-server-groups', {
            'server_group': {'name': 'g-%s' % policy,
                             'policies': [policy]}})
        self.assertEqual(200, response.status_code, response.text)
        return response.json()['server_group']['id']

    def boot(self, name, group_id, flavor='2', status='ACTIVE'):
        response = self.client.post('/servers', {
            'server': {'name': name, 'flavorRef': flavor,
                       'imageRef': self.plane.image_id},
            'os:scheduler_hints': {'group': group_id}})
        self.assertEqual(202, response.status_code, response.text)
        server_id = response.json()['server']['id']
        self.created.append(server_id)
        return self.client.wait_for_status(server_id, status)

    def boot_many(self, name, group_id, count, flavor='2'):
        response = self.client.post('/servers', {
            'server': {'name': name, 'flavorRef': flavor,
                       'imageRef': self.plane.image_id,
                       'min_count': count, 'max_count': count},
            'os:scheduler_hints': {'group': group_id}})
        self.assertEqual(202, response.status_code, response.text)
        servers = [s for s in self.client.get('/servers/detail').json()[
            'servers'] if s['name'].startswith(name)]
        self.assertEqual(count, len(servers))
        self.created.extend(s['id'] for s in servers)
        return [self.client.wait_for_status(s['id'], 'ACTIVE')
                for s in servers]

    @staticmethod
    def host_of(server):
        return server['OS-EXT-SRV-ATTR:host']

    def members(self, group_id):
        return self.client.get('/os-server-groups/%s' % group_id).json()[
            'server_group']['members']


class TestTwoHosts(ServerGroupMixin, base.ControlPlaneTestCase):
    computes = 2

    def test_soft_affinity_with_room_stacks_on_one_host(self):
        group_id = self.group('soft-affinity')
        first = self.boot('sa-1', group_id)
        second = self.boot('sa-2', group_id)
        self.assertEqual(self.host_of(first), self.host_of(second))
        self.assertEqual(sorted([first['id'], second['id']]),
                         sorted(self.members(group_id)))

    def test_soft_affinity_without_room_uses_another_host(self):
        group_id = self.group('soft-affinity')
        first = self.boot('sa-big-1', group_id, flavor='5')
        second = self.boot('sa-big-2', group_id, flavor='5')
        self.assertNotEqual(self.host_of(first), self.host_of(second))

    def test_soft_anti_affinity_spreads_over_two_hosts(self):
        group_id = self.group('soft-anti-affinity')
        first = self.boot('saa-1', group_id)
        second = self.boot('saa-2', group_id)
        self.assertNotEqual(self.host_of(first), self.host_of(second))

    def test_affinity_keeps_every_member_on_the_first_host(self):
        group_id = self.group('affinity')
        hosts = {self.host_of(s) for s in self.boot_many('aff', group_id, 3)}
        self.assertEqual(1, len(hosts))

    def test_multi_create_into_anti_affinity_lands_on_distinct_hosts(self):
        group_id = self.group('anti-affinity')
        servers = self.boot_many('anti', group_id, 2)
        self.assertEqual(2, len({self.host_of(s) for s in servers}))

    def test_anti_affinity_with_every_host_taken_is_no_valid_host(self):
        group_id = self.group('anti-affinity')
        self.boot_many('full', group_id, 2)
        third = self.boot('full-3', group_id, status='ERROR')
        self.assertEqual('No valid host was found.',
                         third['fault']['message'])
        self.assertIn('2 anti-affinity policy', third['fault']['details'])
        self.assertIsNone(self.host_of(third))


class TestOneHostWithoutSoftAffinityWeigher(ServerGroupMixin,
                                            base.ControlPlaneTestCase):
    computes = 1
    extra_conf = """
        [filter_scheduler]
        weight_classes = RAMWeigher,ServerGroupSoftAntiAffinityWeigher
        """

    def test_soft_anti_affinity_with_one_host_stacks_there(self):
        group_id = self.group('soft-anti-affinity')
        first = self.boot('one-1', group_id)
        second = self.boot('one-2', group_id)
        self.assertEqual(self.host_of(first), self.host_of(second))

    def test_soft_affinity_without_its_weigher_is_refused_clearly(self):
        group_id = self.group('soft-affinity')
        refused = self.boot('refused', group_id, status='ERROR')
        self.assertIn('cannot honour the policy',
                      refused['fault']['message'])
        self.assertIn('ServerGroupSoftAffinityWeigher',
                      refused['fault']['details'])
