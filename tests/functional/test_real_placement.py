"""nova_lite on OpenStack Placement 16 instead of nova-lite-placement.

The control plane runs no placement daemon of its own (``placement_service =
'openstack'``): ``[placement]`` of every daemon and of nova-lite-manage
names a real OpenStack Placement (``tools/placement_peer.py``, started for
the class on its own database, ``auth_strategy = noauth2`` like the
plane, so the services' ``auth_type = noauth2`` admin token is its
administrator too). Nothing else differs from the other
functional tests: the computes report their nodes, the port service its
bandwidth providers and traits, the scheduler claims, the conductor moves
and gives back allocations, the audit reads providers and allocations,
all through the Placement API.

``RealPlacementUnderKeystoneTest`` runs both sides as operators do: a
real Keystone (``test_auth_modes.UnderKeystone``), OpenStack Placement
with ``[api] auth_strategy = keystone`` checking tokens as its own
service user, and every daemon's and nova-lite-manage's ``[placement]``
as the README's "Running with an existing Placement" says: a password
login as a service user (with the service role only) and the endpoint
from the catalog, no override.

Each behaviour is checked twice: by the audit (after each step and after
each test) and by reading the allocations and usages in real placement
and comparing them with what the servers should hold: a flavor's
resources on the compute node of the host holding the server, the port's
minimum bandwidth on that node's bandwidth provider, nothing anywhere
else.
"""

import uuid

import requests

from tests.functional import base
from tests.functional import fixtures
from tests.functional import test_auth_modes
from tests.functional import test_port_resources

LIVE = '2.30'
EVACUATE = '2.29'


class RealPlacementMixin(test_port_resources.PortServiceMixin):
    """Mixed into a ControlPlaneTestCase: the plane on OpenStack
    Placement, a network with a minimum-bandwidth policy, and what a
    server should hold there."""

    placement_service = 'openstack'

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        try:
            cls.set_up_network()
        except Exception:
            cls.tearDownClass()
            raise
        flavor = cls.plane.client('admin').get('/flavors/2').json()['flavor']
        cls.flavor_resources = {'VCPU': flavor['vcpus'],
                                'MEMORY_MB': flavor['ram'],
                                'DISK_GB': flavor['disk']}

    # -- what real placement holds -------------------------------------------

    def usages(self, rp_uuid):
        return {rc: used for rc, used in self.placement(
            '/resource_providers/%s/usages' % rp_uuid)['usages'].items()
            if used}

    def expected(self, host):
        """What a server with one bandwidth port on ``host`` holds."""
        node = self.node_uuid(host)
        return {node: self.flavor_resources,
                self.bandwidth_providers[node]: {
                    'NET_BW_EGR_KILOBIT_PER_SEC': test_port_resources.MIN_KBPS,
                    'NET_BW_IGR_KILOBIT_PER_SEC':
                        test_port_resources.MIN_KBPS}}

    def assert_placement_holds(self, servers):
        """Real placement holds exactly what the servers ({server id:
        host}) should: each server's allocations, and on every provider
        the sum of theirs and nothing more."""
        wanted_usages = {}
        for server_id, host in servers.items():
            wanted = self.expected(host)
            self.assertEqual(wanted, self.allocations(server_id))
            for rp, resources in wanted.items():
                usage = wanted_usages.setdefault(rp, {})
                for rc, amount in resources.items():
                    usage[rc] = usage.get(rc, 0) + amount
        providers = self.placement('/resource_providers')[
            'resource_providers']
        self.assertEqual(
            {rp: wanted_usages.get(rp, {}) for rp in
             (p['uuid'] for p in providers)},
            {p['uuid']: self.usages(p['uuid']) for p in providers})

    def real(self, method, path, body=None, version='1.28'):
        """``method path`` on real placement as its administrator."""
        return requests.request(
            method, self.plane.placement_url + path, json=body,
            headers={**self.plane.admin_headers,
                     'OpenStack-API-Version': 'placement ' + version},
            timeout=10)

    def assert_audit_clean(self):
        result = self.plane.audit()
        self.assertEqual(0, result.returncode, result.stdout + result.stderr)

    # -- actions --------------------------------------------------------------

    def boot(self, name, host):
        port = self.qos_port(name)
        server = self.boot_with_port(name, port['id'],
                                     availability_zone='nova:' + host)
        self.assertEqual(host, server['OS-EXT-SRV-ATTR:host'])
        return server, port

    def delete(self, server_id):
        self.assertEqual(204, self.admin.delete(
            '/servers/%s' % server_id).status_code)
        self.admin.wait_for_gone(server_id)


class RealPlacementTest(RealPlacementMixin, base.ControlPlaneTestCase):
    computes = 2

    def migration_records(self, server_id):
        return fixtures.query(
            self.plane.databases[1],
            'SELECT uuid, migration_type, status, source_compute, '
            'dest_compute FROM migrations WHERE instance_uuid = %s '
            'ORDER BY id', server_id)

    def service(self, host):
        [service] = [s for s in self.admin.get(
            '/os-services?binary=nova-lite-compute',
            microversion='2.53').json()['services'] if s['host'] == host]
        return service

    def bring_back(self, host):
        if not self.plane.daemons[host].running:
            self.plane.start_compute(int(host[len('compute'):]))
        self.plane.wait_for_compute_up(host)

    # -- tests ----------------------------------------------------------------

    def test_no_placement_daemon_runs_and_real_placement_has_the_trees(self):
        self.assertNotIn('placement', self.plane.daemons)
        providers = {p['uuid']: p for p in self.placement(
            '/resource_providers')['resource_providers']}
        for host in ('compute1', 'compute2'):
            node = self.node_uuid(host)
            bandwidth = self.bandwidth_providers[node]
            self.assertEqual(node, providers[bandwidth]['root_provider_uuid'])
            self.assertEqual(
                {'CUSTOM_PHYSNET_PHYSNET0', 'CUSTOM_VNIC_TYPE_NORMAL'},
                set(self.placement('/resource_providers/%s/traits' %
                                   bandwidth)['traits']))
            inventories = self.placement(
                '/resource_providers/%s/inventories' % bandwidth)[
                'inventories']
            self.assertEqual(
                {'NET_BW_EGR_KILOBIT_PER_SEC', 'NET_BW_IGR_KILOBIT_PER_SEC'},
                set(inventories))
            self.assertEqual(
                self.plane.BANDWIDTH_KBPS,
                inventories['NET_BW_EGR_KILOBIT_PER_SEC']['total'])
            self.assertLessEqual(
                set(self.flavor_resources),
                set(self.placement('/resource_providers/%s/inventories' %
                                   node)['inventories']))

    def test_boot_and_delete_with_bandwidth_ports(self):
        first, first_port = self.boot('first', 'compute1')
        second, second_port = self.boot('second', 'compute2')
        self.assert_bound_here(first, first_port['id'])
        self.assert_bound_here(second, second_port['id'])
        self.assert_placement_holds({first['id']: 'compute1',
                                     second['id']: 'compute2'})
        self.assert_audit_clean()

        self.delete(first['id'])
        self.assert_placement_holds({second['id']: 'compute2'})
        self.assert_audit_clean()
        self.delete(second['id'])
        self.assert_placement_holds({})
        self.assertFalse(self.port(first_port['id'])['binding:host_id'])

    def test_live_migration_moves_the_allocation_and_the_binding(self):
        server, port = self.boot('moving', 'compute1')
        self.assert_placement_holds({server['id']: 'compute1'})
        response = self.admin.post(
            '/servers/%s/action' % server['id'],
            {'os-migrateLive': {'host': None, 'block_migration': 'auto'}},
            microversion=LIVE)
        self.assertEqual(202, response.status_code, response.text)
        moved = self.wait_for_rest(server['id'], 'live migration over')
        [migration] = self.migration_records(server['id'])
        self.assertEqual(('completed', 'compute2', 'ACTIVE'),
                         (migration['status'], moved['OS-EXT-SRV-ATTR:host'],
                          moved['status']))
        self.assert_bound_here(moved, port['id'])
        self.assertEqual({}, self.allocations(migration['uuid']))
        self.assert_placement_holds({server['id']: 'compute2'})
        self.assert_audit_clean()

        self.delete(server['id'])
        self.assert_placement_holds({})

    def test_evacuation_moves_the_allocation_and_the_source_cleans_up(self):
        server, port = self.boot('evacuee', 'compute1')
        self.plane.daemons['compute1'].stop()
        self.addCleanup(self.bring_back, 'compute1')
        fixtures.wait_for(lambda: self.service('compute1')['state'] ==
                          'down', what='compute1 down')
        response = self.admin.post('/servers/%s/action' % server['id'],
                                   {'evacuate': {}}, microversion=EVACUATE)
        self.assertEqual(200, response.status_code, response.text)
        evacuated = self.wait_for_rest(server['id'], 'evacuation over')
        self.assertEqual(('ACTIVE', 'compute2'),
                         (evacuated['status'],
                          evacuated['OS-EXT-SRV-ATTR:host']))
        self.assert_bound_here(evacuated, port['id'])
        [migration] = self.migration_records(server['id'])
        self.assertEqual(('evacuation', 'done'),
                         (migration['migration_type'], migration['status']))
        # The source side is the migration's until compute1 is back.
        self.assertEqual(self.expected('compute1'),
                         self.allocations(migration['uuid']))
        self.assertEqual(self.expected('compute2'),
                         self.allocations(server['id']))
        self.assert_audit_clean()

        self.bring_back('compute1')
        fixtures.wait_for(
            lambda: self.migration_records(server['id'])[0]['status'] ==
            'completed', what='evacuation cleaned up on compute1')
        self.assertEqual({}, self.allocations(migration['uuid']))
        self.assert_placement_holds({server['id']: 'compute2'})
        self.assert_audit_clean()

        self.delete(server['id'])
        self.assert_placement_holds({})

    def test_another_services_provider_and_consumer_are_left_alone(self):
        # Placement shared with another service: a provider of its own
        # with a consumer of its own are neither audited nor removed.
        provider, consumer = str(uuid.uuid4()), str(uuid.uuid4())
        response = self.real('POST', '/resource_providers', {
            'uuid': provider, 'name': 'another-service'}, version='1.20')
        self.assertEqual(200, response.status_code, response.text)
        self.addCleanup(self.real, 'DELETE',
                        '/resource_providers/' + provider)
        response = self.real(
            'PUT', '/resource_providers/%s/inventories' % provider, {
                'resource_provider_generation': 0,
                'inventories': {'VCPU': {'total': 4}}})
        self.assertEqual(200, response.status_code, response.text)
        response = self.real('PUT', '/allocations/' + consumer, {
            'allocations': {provider: {'resources': {'VCPU': 1}}},
            'project_id': 'other', 'user_id': 'other',
            'consumer_generation': None})
        self.assertEqual(204, response.status_code, response.text)
        self.addCleanup(self.real, 'DELETE', '/allocations/' + consumer)

        self.assert_audit_clean()
        result = self.plane.manage('placement', 'audit', '--delete')
        self.assertIn('0 orphaned consumer(s) found', result.stdout)
        self.assertEqual({provider: {'VCPU': 1}},
                         self.allocations(consumer))

    def test_the_audit_finds_an_allocation_no_server_explains(self):
        # Written in real placement behind nova_lite's back, on one of its
        # compute nodes: both audits, reading real placement, see it.
        stray = str(uuid.uuid4())
        node = self.node_uuid('compute1')
        response = self.real('PUT', '/allocations/' + stray, {
            'allocations': {node: {'resources': {'VCPU': 1}}},
            'project_id': 'someone', 'user_id': 'someone',
            'consumer_generation': None})
        self.assertEqual(204, response.status_code, response.text)
        self.addCleanup(self.real, 'DELETE', '/allocations/' + stray)
        result = self.plane.manage('audit', check=False)
        self.assertEqual(3, result.returncode, result.stderr)
        self.assertIn('consumer %s holds' % stray, result.stdout)

        result = self.plane.manage('placement', 'audit', '--delete')
        self.assertIn('Deleted allocations of %s' % stray, result.stdout)
        self.assertEqual({}, self.allocations(stray))


class RealPlacementUnderKeystoneTest(test_auth_modes.UnderKeystone,
                                     RealPlacementMixin,
                                     base.ControlPlaneTestCase):
    """OpenStack Placement behind Keystone; one compute keeps it short."""

    computes = 1

    @classmethod
    def _make_identities(cls):
        super()._make_identities()
        # [placement] as a user with the service role only (the README's
        # "admin or service": the service role is enough for Placement;
        # the nova-lite user also calls the port service, which wants
        # admin).
        cls.keystone.user('nova-lite-placement', 'placement-client-secret',
                          'service', ['service'])
        placement = cls.client_conf('placement', 'nova-lite-placement',
                                    'placement-client-secret')
        cls.extra_conf += placement
        cls.compute_conf = {index: conf + placement
                            for index, conf in cls.compute_conf.items()}

    def test_placement_refuses_a_request_without_a_keystone_token(self):
        url = self.plane.placement_url + '/resource_providers'
        self.assertEqual(401, requests.get(url, timeout=10).status_code)
        # noauth2's token is no token here.
        self.assertEqual(401, requests.get(
            url, headers={'X-Auth-Token': 'admin'}, timeout=10).status_code)
        self.assertEqual(200, requests.get(
            url, headers=self.plane.admin_headers, timeout=10).status_code)
        # The version document, which the daemons read when they start,
        # needs none.
        self.assertEqual(200, requests.get(self.plane.placement_url + '/',
                                           timeout=10).status_code)

    def test_a_server_with_a_bandwidth_port_boots_and_is_deleted(self):
        server, port = self.boot('under-keystone', 'compute1')
        self.assert_bound_here(server, port['id'])
        self.assert_placement_holds({server['id']: 'compute1'})
        self.assert_audit_clean()

        self.delete(server['id'])
        self.assert_placement_holds({})
        self.assert_audit_clean()
