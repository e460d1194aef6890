"""The Placement API over HTTP: the real nova-lite-placement daemon on
MariaDB, driven like a client (and like osc-placement) would."""

import concurrent.futures
import json
import os
import subprocess
import uuid

import testtools

from tests.functional import fixtures
from tests.functional import placement_fixtures


def new_uuid():
    return str(uuid.uuid4())


class PlacementTestCase(testtools.TestCase):
    """One placement daemon per class; tests make their own providers."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.server = placement_fixtures.PlacementServer()
        try:
            cls.server.start()
        except Exception:
            log = cls.server.log()
            cls.server.stop()
            raise AssertionError('placement did not start:\n' + log)

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        super().tearDownClass()

    def setUp(self):
        super().setUp()
        self.client = self.server.client()
        self.addOnException(lambda exc_info: self.addDetail(
            'placement-log', testtools.content.text_content(
                self.server.log()[-8000:])))

    def compute_node(self, vcpus=8, memory_mb=4096, disk_gb=100,
                     parent=None):
        name = 'cn-' + new_uuid()[:8]
        rp = self.client.create_provider(name, parent=parent)['uuid']
        self.client.set_inventory(rp, {'VCPU': vcpus, 'MEMORY_MB': memory_mb,
                                       'DISK_GB': disk_gb})
        return rp

    def assertError(self, response, status, code=None):
        self.assertEqual(status, response.status_code, response.text)
        error = response.json()['errors'][0]
        if code:
            self.assertEqual(code, error['code'])

    def generation(self, rp):
        return self.client.get('/resource_providers/%s' % rp).json()[
            'generation']


class TestBasics(PlacementTestCase):

    def test_version_document_without_token(self):
        response = self.client.session.get(self.server.url + '/',
                                           headers={'X-Auth-Token': ''})
        self.assertEqual(200, response.status_code)
        self.assertEqual('1.39', response.json()['versions'][0][
            'max_version'])

    def test_no_token_is_401(self):
        response = placement_fixtures.PlacementClient(
            self.server.url, token='').get('/resource_providers')
        self.assertError(response, 401)

    def test_stale_inventory_generation_is_409(self):
        rp = self.compute_node()
        response = self.client.put(
            '/resource_providers/%s/inventories' % rp,
            {'inventories': {'VCPU': {'total': 2}},
             'resource_provider_generation': 0})
        self.assertError(response, 409, 'placement.concurrent_update')

    def test_shrinking_inventory_below_usage_leaves_no_room(self):
        # As OpenStack Placement: allowed (a host that lost capacity says
        # so), and nothing more fits until usage falls.
        rp = self.compute_node(vcpus=4)
        self.client.allocate(new_uuid(), {rp: {'VCPU': 3}})
        response = self.client.put(
            '/resource_providers/%s/inventories' % rp,
            {'inventories': {'VCPU': {'total': 2}},
             'resource_provider_generation': self.generation(rp)})
        self.assertEqual(200, response.status_code, response.text)
        self.assertEqual(409, self.client.allocate(
            new_uuid(), {rp: {'VCPU': 1}}).status_code)

    def test_removing_an_allocated_class_is_409_inuse(self):
        rp = self.compute_node(vcpus=4)
        self.client.allocate(new_uuid(), {rp: {'VCPU': 3}})
        response = self.client.put(
            '/resource_providers/%s/inventories' % rp,
            {'inventories': {'MEMORY_MB': {'total': 2048}},
             'resource_provider_generation': self.generation(rp)})
        self.assertError(response, 409, 'placement.inventory.inuse')


class TestDatabaseConnections(PlacementTestCase):

    def kill_connections(self):
        import pymysql
        database = self.server.databases[0]
        connection = pymysql.connect(host='127.0.0.1', user='root',
                                     password='')
        try:
            with connection.cursor() as cursor:
                cursor.execute('SELECT ID FROM information_schema.PROCESSLIST'
                               ' WHERE DB = %s', (database,))
                for (thread_id,) in cursor.fetchall():
                    cursor.execute('KILL CONNECTION %d' % thread_id)
        finally:
            connection.close()

    def test_pooled_connections_killed_by_the_server_are_replaced(self):
        rp = self.compute_node()
        self.kill_connections()
        self.assertEqual(200, self.client.get(
            '/resource_providers/%s' % rp).status_code)
        self.kill_connections()
        self.assertEqual(204, self.client.allocate(
            new_uuid(), {rp: {'VCPU': 1}}).status_code)


class TestAllocations(PlacementTestCase):

    def test_capacity_with_reserved_and_ratio(self):
        rp = self.client.create_provider('cap-' + new_uuid()[:8])['uuid']
        self.client.set_inventory(rp, {'VCPU': {
            'total': 4, 'reserved': 2, 'allocation_ratio': 1.5}})
        self.assertEqual(204, self.client.allocate(
            new_uuid(), {rp: {'VCPU': 3}}).status_code)
        self.assertError(self.client.allocate(new_uuid(), {rp: {'VCPU': 1}}),
                         409)

    def test_one_bad_provider_writes_nothing(self):
        good, small = self.compute_node(), self.compute_node(vcpus=1)
        consumer = new_uuid()
        response = self.client.allocate(consumer, {good: {'VCPU': 1},
                                                   small: {'VCPU': 2}})
        self.assertError(response, 409)
        self.assertEqual({'allocations': {}}, self.client.get(
            '/allocations/%s' % consumer).json())
        self.assertEqual({'VCPU': 0, 'MEMORY_MB': 0, 'DISK_GB': 0},
                         self.client.get('/resource_providers/%s/usages' %
                                         good).json()['usages'])

    def test_consumer_generation_guards_a_replace(self):
        rp = self.compute_node()
        consumer = new_uuid()
        self.client.allocate(consumer, {rp: {'VCPU': 1}})
        self.assertError(self.client.allocate(consumer, {rp: {'VCPU': 2}},
                                              generation=None), 409,
                         'placement.concurrent_update')
        self.assertEqual(204, self.client.allocate(
            consumer, {rp: {'VCPU': 2}}, generation=1).status_code)
        self.assertEqual(2, self.client.get('/allocations/%s' % consumer)
                         .json()['consumer_generation'])

    def test_post_allocations_swaps_atomically(self):
        source, dest = self.compute_node(vcpus=2), self.compute_node(vcpus=2)
        instance, migration = new_uuid(), new_uuid()
        self.client.allocate(instance, {source: {'VCPU': 2}})

        def part(allocations, generation):
            return {'allocations': {rp: {'resources': r}
                                    for rp, r in allocations.items()},
                    'project_id': 'p1', 'user_id': 'u1',
                    'consumer_generation': generation}
        response = self.client.post('/allocations', {
            migration: part({source: {'VCPU': 2}}, None),
            instance: part({dest: {'VCPU': 2}}, 1)})
        self.assertEqual(204, response.status_code, response.text)
        self.assertEqual([dest], list(self.client.get(
            '/allocations/%s' % instance).json()['allocations']))
        # An impossible swap changes nothing.
        response = self.client.post('/allocations', {
            migration: part({}, 1),
            instance: part({dest: {'VCPU': 3}}, 2)})
        self.assertError(response, 409)
        self.assertEqual([source], list(self.client.get(
            '/allocations/%s' % migration).json()['allocations']))

    def test_delete_twice_is_404(self):
        rp = self.compute_node()
        consumer = new_uuid()
        self.client.allocate(consumer, {rp: {'VCPU': 1}})
        self.assertEqual(204, self.client.delete(
            '/allocations/%s' % consumer).status_code)
        self.assertError(self.client.delete('/allocations/%s' % consumer),
                         404)

    def test_concurrent_writers_never_exceed_capacity(self):
        rp = self.compute_node(vcpus=10)
        before = self.generation(rp)

        def claim(_):
            client = self.server.client()
            return client.allocate(new_uuid(), {rp: {'VCPU': 1}}).status_code
        with concurrent.futures.ThreadPoolExecutor(20) as pool:
            statuses = list(pool.map(claim, range(30)))
        self.assertEqual(10, statuses.count(204), statuses)
        self.assertEqual(20, statuses.count(409), statuses)
        self.assertEqual(10, self.client.get(
            '/resource_providers/%s/usages' % rp).json()['usages']['VCPU'])
        self.assertEqual(before + 10, self.generation(rp))

    def test_concurrent_claims_and_deletes_keep_usage_and_generation(self):
        rp = self.compute_node(vcpus=64)
        held = [new_uuid() for _ in range(12)]
        for consumer in held:
            self.client.allocate(consumer, {rp: {'VCPU': 2}})
        before = self.generation(rp)
        fresh = [new_uuid() for _ in range(12)]

        def write(job):
            client = self.server.client()
            kind, consumer = job
            if kind == 'delete':
                return client.delete('/allocations/%s' % consumer).status_code
            return client.allocate(consumer, {rp: {'VCPU': 3}}).status_code
        jobs = [('delete', c) for c in held[:8]] + [('claim', c)
                                                    for c in fresh]
        with concurrent.futures.ThreadPoolExecutor(12) as pool:
            statuses = list(pool.map(write, jobs))
        self.assertEqual([204] * len(jobs), statuses)
        usages = self.client.get('/resource_providers/%s/usages' % rp).json()
        self.assertEqual(4 * 2 + 12 * 3, usages['usages']['VCPU'])
        # Each claim bumps the provider once; a delete does not (as in
        # OpenStack Placement).
        self.assertEqual(before + len(fresh), self.generation(rp))

    def test_a_refused_new_claim_leaves_nothing_and_says_why(self):
        # A new consumer's claim on one provider is written in three
        # statements that check every amount in SQL; when one does not
        # fit, the claim is made again the long way, which says why.
        rp = self.compute_node(vcpus=4, memory_mb=1024)
        self.client.set_inventory(rp, {
            'VCPU': {'total': 4, 'max_unit': 2},
            'MEMORY_MB': {'total': 1024, 'step_size': 256}})
        before = self.generation(rp)
        cases = [({'VCPU': 3}, 409, 'max_unit 2'),
                 ({'VCPU': 1, 'MEMORY_MB': 100}, 409, 'step_size 256'),
                 ({'VCPU': 1, 'DISK_GB': 1}, 409, "'DISK_GB'"),
                 ({'VCPU': 1, 'CUSTOM_NONE_SUCH': 1}, 400,
                  'CUSTOM_NONE_SUCH')]
        for resources, status, words in cases:
            consumer = new_uuid()
            response = self.client.allocate(consumer, {rp: resources})
            self.assertError(response, status)
            self.assertIn(words, response.json()['errors'][0]['detail'])
            self.assertEqual({}, self.client.get(
                '/allocations/%s' % consumer).json()['allocations'])
        for _ in range(2):
            self.assertEqual(204, self.client.allocate(
                new_uuid(), {rp: {'VCPU': 2, 'MEMORY_MB': 512}}).status_code)
        response = self.client.allocate(new_uuid(), {rp: {'VCPU': 1}})
        self.assertError(response, 409)
        self.assertIn('exceed the capacity',
                      response.json()['errors'][0]['detail'])
        self.assertEqual({'VCPU': 4, 'MEMORY_MB': 1024}, self.client.get(
            '/resource_providers/%s/usages' % rp).json()['usages'])
        # Two claims written, two bumps; the refused ones wrote nothing.
        self.assertEqual(before + 2, self.generation(rp))
        self.assertError(self.client.allocate(
            new_uuid(), {new_uuid(): {'VCPU': 1}}), 400)

    def test_a_delete_racing_a_move_of_the_same_consumer(self):
        # A delete gives the usage back in one statement that locks the
        # consumer first, as a replace does: whichever comes second sees
        # what the first did, and every provider's usage is what its
        # allocations add up to.
        source, target = self.compute_node(vcpus=64), self.compute_node(
            vcpus=64)
        consumers = [new_uuid() for _ in range(16)]
        for consumer in consumers:
            self.client.allocate(consumer, {source: {'VCPU': 2}})

        def write(job):
            client = self.server.client()
            kind, consumer = job
            if kind == 'delete':
                return kind, client.delete(
                    '/allocations/%s' % consumer).status_code
            return kind, client.allocate(
                consumer, {target: {'VCPU': 3}}, generation=1).status_code
        jobs = [(kind, c) for c in consumers for kind in ('move', 'delete')]
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            outcomes = list(pool.map(write, jobs))
        # A delete always finds something (the consumer's first or moved
        # allocations); a move after the delete finds no consumer.
        self.assertEqual({204}, {s for k, s in outcomes if k == 'delete'})
        self.assertLessEqual({s for k, s in outcomes if k == 'move'},
                             {204, 409})
        for rp in (source, target):
            self.assertEqual({}, self.client.get(
                '/resource_providers/%s/allocations' % rp).json()[
                    'allocations'])
            self.assertEqual(0, self.client.get(
                '/resource_providers/%s/usages' % rp).json()['usages'][
                    'VCPU'])
        moved = [s for k, s in outcomes if k == 'move' and s == 204]
        # A moved consumer was deleted from its new provider: the target
        # took allocations (its generation moved) only for those.
        self.assertEqual(len(moved), self.generation(target) - 1)

    def test_project_usages(self):
        rp = self.compute_node()
        project = 'proj-' + new_uuid()[:8]
        self.client.allocate(new_uuid(), {rp: {'VCPU': 2, 'MEMORY_MB': 64}},
                             project_id=project)
        self.assertEqual({'VCPU': 2, 'MEMORY_MB': 64}, self.client.get(
            '/usages?project_id=%s' % project).json()['usages'])


class TestNestedProviders(PlacementTestCase):

    def test_tree_and_deletion_order(self):
        root = self.compute_node()
        child = self.client.create_provider('nic-' + new_uuid()[:8],
                                            parent=root)['uuid']
        tree = self.client.get('/resource_providers?in_tree=%s' %
                               child).json()['resource_providers']
        self.assertEqual({root, child}, {rp['uuid'] for rp in tree})
        self.assertError(self.client.delete('/resource_providers/%s' % root),
                         409,
                         'placement.resource_provider.cannot_delete_parent')
        self.assertEqual(204, self.client.delete(
            '/resource_providers/%s' % child).status_code)
        self.assertEqual(204, self.client.delete(
            '/resource_providers/%s' % root).status_code)


class TestAllocationCandidates(PlacementTestCase):

    def put_traits(self, rp, *names):
        for name in names:
            if name.startswith('CUSTOM_'):
                self.client.put('/traits/%s' % name)
        response = self.client.put('/resource_providers/%s/traits' % rp, {
            'traits': list(names),
            'resource_provider_generation': self.generation(rp)})
        self.assertEqual(200, response.status_code, response.text)

    def test_bandwidth_group_lands_on_the_nic_of_the_right_physnet(self):
        cn = self.compute_node()
        nics = {}
        for physnet in ('CUSTOM_PHYSNET_A', 'CUSTOM_PHYSNET_B'):
            nic = self.client.create_provider('nic-' + new_uuid()[:8],
                                              parent=cn)['uuid']
            self.client.set_inventory(nic, {
                'NET_BW_EGR_KILOBIT_PER_SEC': 10000,
                'NET_BW_IGR_KILOBIT_PER_SEC': 10000})
            self.put_traits(nic, physnet)
            nics[physnet] = nic
        query = ('resources=VCPU:1,MEMORY_MB:256'
                 '&resources_PORT1=NET_BW_EGR_KILOBIT_PER_SEC:1000,'
                 'NET_BW_IGR_KILOBIT_PER_SEC:1000'
                 '&required_PORT1=CUSTOM_PHYSNET_B&in_tree=%s' % cn)
        body = self.client.get('/allocation_candidates?' + query).json()
        (request,) = body['allocation_requests']
        self.assertEqual({'': [cn], '_PORT1': [nics['CUSTOM_PHYSNET_B']]},
                         request['mappings'])
        self.assertEqual(cn, body['provider_summaries'][
            nics['CUSTOM_PHYSNET_A']]['root_provider_uuid'])
        # The candidate is what a client writes back as is.
        response = self.client.allocate(new_uuid(), {
            rp: value['resources']
            for rp, value in request['allocations'].items()})
        self.assertEqual(204, response.status_code, response.text)

    def test_shared_disk_from_an_aggregate(self):
        agg = new_uuid()
        cn = self.client.create_provider('cn-' + new_uuid()[:8])['uuid']
        self.client.set_inventory(cn, {'VCPU': 4, 'MEMORY_MB': 1024})
        storage = self.client.create_provider('nfs-' + new_uuid()[:8])[
            'uuid']
        self.client.set_inventory(storage, {'DISK_GB': 500})
        self.put_traits(storage, 'MISC_SHARES_VIA_AGGREGATE')
        for rp in (cn, storage):
            self.client.put('/resource_providers/%s/aggregates' % rp, {
                'aggregates': [agg],
                'resource_provider_generation': self.generation(rp)})
        body = self.client.get(
            '/allocation_candidates?resources=VCPU:1,DISK_GB:50'
            '&member_of=%s' % agg).json()
        (request,) = body['allocation_requests']
        self.assertEqual({'DISK_GB': 50},
                         request['allocations'][storage]['resources'])
        self.assertEqual({'VCPU': 1}, request['allocations'][cn]['resources'])

    def test_isolated_groups_on_two_numa_children(self):
        cn = self.client.create_provider('cn-' + new_uuid()[:8])['uuid']
        numas = [self.client.create_provider('numa-' + new_uuid()[:8],
                                             parent=cn)['uuid']
                 for _ in range(2)]
        for numa in numas:
            self.client.set_inventory(numa, {'PCPU': 4})
        query = ('resources1=PCPU:2&in_tree1=%s&resources2=PCPU:2'
                 '&in_tree2=%s' % (cn, cn))
        isolated = self.client.get('/allocation_candidates?' + query +
                                   '&group_policy=isolate').json()
        self.assertEqual(2, len(isolated['allocation_requests']))
        for request in isolated['allocation_requests']:
            self.assertNotEqual(request['mappings']['1'],
                                request['mappings']['2'])
        together = self.client.get('/allocation_candidates?' + query +
                                   '&group_policy=none').json()
        self.assertEqual(4, len(together['allocation_requests']))

    def test_full_providers_are_not_candidates(self):
        full = self.compute_node(vcpus=1)
        self.client.allocate(new_uuid(), {full: {'VCPU': 1}})
        body = self.client.get('/allocation_candidates?resources=VCPU:1'
                               '&in_tree=%s' % full).json()
        self.assertEqual([], body['allocation_requests'])


class TestOpenStackClient(PlacementTestCase):
    """osc-placement against the daemon, without Keystone."""

    def openstack(self, version, *args):
        command = [os.path.join(fixtures.ROOT, '.venv', 'bin', 'openstack'),
                   '--os-auth-type', 'admin_token', '--os-token', 'admin',
                   '--os-endpoint', self.server.url,
                   '--os-placement-api-version', version] + list(args)
        result = subprocess.run(command, capture_output=True, text=True,
                                timeout=120)
        self.assertEqual(0, result.returncode, '%s\n%s%s' % (
            ' '.join(args), result.stdout, result.stderr))
        return result.stdout

    def test_provider_inventory_allocation_and_candidates(self):
        name = 'osc-' + new_uuid()[:8]
        rp = json.loads(self.openstack('1.20', 'resource', 'provider',
                                       'create', name, '-f', 'json'))['uuid']
        self.assertIn(name, self.openstack('1.20', 'resource', 'provider',
                                           'list'))
        self.assertIn(rp, self.openstack('1.20', 'resource', 'provider',
                                         'show', rp))
        self.openstack('1.20', 'resource', 'provider', 'inventory', 'set',
                       rp, '--resource', 'VCPU=8', '--resource',
                       'MEMORY_MB=4096')
        inventory = json.loads(self.openstack(
            '1.20', 'resource', 'provider', 'inventory', 'list', rp,
            '-f', 'json'))
        self.assertEqual({'VCPU': 8, 'MEMORY_MB': 4096},
                         {i['resource_class']: i['total'] for i in inventory})
        consumer = new_uuid()
        self.openstack('1.12', 'resource', 'provider', 'allocation', 'set',
                       consumer, '--allocation', 'rp=%s,VCPU=2' % rp,
                       '--project-id', 'p1', '--user-id', 'u1')
        self.assertIn(rp, self.openstack('1.12', 'resource', 'provider',
                                         'allocation', 'show', consumer))
        candidates = self.openstack('1.29', 'allocation', 'candidate',
                                    'list', '--resource', 'VCPU=1')
        self.assertIn(rp, candidates)
        self.assertIn('VCPU=2/8', candidates)
        self.openstack('1.12', 'resource', 'provider', 'allocation',
                       'delete', consumer)
        self.openstack('1.20', 'resource', 'provider', 'delete', rp)
