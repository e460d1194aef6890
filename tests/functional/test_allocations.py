"""The resource tracker's allocations in placement (seed 000), through
the real daemons: what a claim writes, what a delete and the periodic
audit remove, how the compute behaves while placement is away, and what
``nova-lite-manage placement heal_allocations`` writes back."""

import time
import uuid

import requests

from tests.functional import base
from tests.functional import fixtures
from tests.functional import test_port_resources


class PlacementMixin:

    def placement(self, method, path, body=None, version='1.28'):
        return requests.request(
            method, self.plane.placement_url + path, json=body, timeout=10,
            headers={'X-Auth-Token': 'admin',
                     'OpenStack-API-Version': 'placement %s' % version})

    def allocations(self, consumer):
        response = self.placement('GET', '/allocations/%s' % consumer)
        self.assertEqual(200, response.status_code, response.text)
        return {rp: a['resources'] for rp, a in
                response.json()['allocations'].items()}

    def node_uuid(self, host):
        for hypervisor in self.admin.get('/os-hypervisors/detail').json()[
                'hypervisors']:
            if hypervisor['hypervisor_hostname'] == host:
                return hypervisor['id']
        self.fail('no hypervisor %s' % host)

    def boot(self, name, **extra):
        """An ACTIVE server, deleted again after the test (the computes'
        room is shared by the tests of a class)."""
        extra.setdefault('image', self.plane.image_id)
        created = self.admin.create_server(name, **extra)
        server_id = created['server']['id']
        self.addCleanup(self._delete_quietly, server_id)
        return self.admin.wait_for_status(server_id, 'ACTIVE')

    def _delete_quietly(self, server_id):
        if self.admin.delete('/servers/%s' % server_id).status_code == 204:
            self.admin.wait_for_gone(server_id)

    def wait_for_allocations(self, consumer, expected, timeout=30):
        fixtures.wait_for(lambda: self.allocations(consumer) == expected,
                          timeout, what='allocations of %s == %s' %
                          (consumer, expected))


class TestAllocations(PlacementMixin, base.ControlPlaneTestCase):

    computes = 1
    compute_conf = {1: '[compute]\nfake_pci_devices = 2\n'}

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.plane.manage('flavor', 'create', 'swapper', '--id', '10',
                         '--ram', '512', '--vcpus', '2', '--disk', '5',
                         '--ephemeral', '2', '--swap', '1')
        cls.plane.manage('flavor', 'create', 'pci', '--id', '11', '--ram',
                         '512', '--vcpus', '1', '--disk', '1',
                         '--property', 'pci_passthrough:alias=a1:2')

    def test_compute_node_inventory_has_ratios_and_reserved(self):
        node = self.node_uuid('compute1')
        inventories = self.placement(
            'GET', '/resource_providers/%s/inventories' % node).json()[
                'inventories']
        self.assertEqual(8, inventories['VCPU']['total'])
        self.assertEqual(4.0, inventories['VCPU']['allocation_ratio'])
        self.assertEqual(8192, inventories['MEMORY_MB']['total'])
        self.assertEqual(512, inventories['MEMORY_MB']['reserved'])
        self.assertEqual(100, inventories['DISK_GB']['total'])
        self.assertEqual(2, inventories['PCI_DEVICE']['total'])

    def test_manage_audit_lists_and_deletes_only_orphans(self):
        server = self.boot('alloc-audit')
        node = self.node_uuid('compute1')
        orphan = str(uuid.uuid4())
        response = self.placement('PUT', '/allocations/%s' % orphan, {
            'allocations': {node: {'resources': {'MEMORY_MB': 64}}},
            'project_id': 'gone', 'user_id': 'gone',
            'consumer_generation': None})
        self.assertEqual(204, response.status_code, response.text)
        listed = self.plane.manage('placement', 'audit', check=False)
        self.assertEqual(3, listed.returncode, listed.stdout + listed.stderr)
        self.assertIn('Orphaned allocation: consumer %s' % orphan,
                      listed.stdout)
        self.assertNotIn(server['id'], listed.stdout)
        deleted = self.plane.manage('placement', 'audit', '--delete')
        self.assertIn('Deleted allocations of %s' % orphan, deleted.stdout)
        self.assertEqual({}, self.allocations(orphan))
        self.assertEqual([node], list(self.allocations(server['id'])))

    def test_manage_heal_writes_a_missing_allocation(self):
        server = self.boot('alloc-heal')
        self.placement('DELETE', '/allocations/%s' % server['id'])
        self.plane.manage('placement', 'heal_allocations')
        self.assertEqual(
            {self.node_uuid('compute1'): {'VCPU': 1, 'MEMORY_MB': 2048,
                                          'DISK_GB': 10}},
            self.allocations(server['id']))

    def test_boot_writes_the_flavor_on_the_compute_node(self):
        server = self.boot('alloc-boot')
        self.assertEqual(
            {self.node_uuid('compute1'): {'VCPU': 1, 'MEMORY_MB': 2048,
                                          'DISK_GB': 10}},
            self.allocations(server['id']))

    def test_delete_removes_the_allocation(self):
        server = self.boot('alloc-delete')
        self.admin.delete('/servers/%s' % server['id'])
        self.admin.wait_for_gone(server['id'])
        self.wait_for_allocations(server['id'], {})

    def test_swap_in_mb_counts_as_whole_gb_with_ephemeral(self):
        server = self.boot('alloc-swap', flavor='10')
        self.assertEqual(
            {self.node_uuid('compute1'): {'VCPU': 2, 'MEMORY_MB': 512,
                                          'DISK_GB': 5 + 2 + 1}},
            self.allocations(server['id']))

    def test_boot_from_volume_allocates_no_root_disk(self):
        server = self.boot('alloc-bfv', image=None, block_device_mapping_v2=[
            {'boot_index': 0, 'uuid': '7a0b4a52-3b1c-4c2e-9d41-2b7d1a6f0c11',
             'source_type': 'volume', 'destination_type': 'volume'}])
        self.assertEqual(
            {self.node_uuid('compute1'): {'VCPU': 1, 'MEMORY_MB': 2048}},
            self.allocations(server['id']))

    def test_generic_pci_devices_are_allocated(self):
        server = self.boot('alloc-pci', flavor='11')
        self.assertEqual(
            {self.node_uuid('compute1'): {'VCPU': 1, 'MEMORY_MB': 512,
                                          'DISK_GB': 1, 'PCI_DEVICE': 2}},
            self.allocations(server['id']))
        self.admin.delete('/servers/%s' % server['id'])
        self.admin.wait_for_gone(server['id'])


class TestSharedStorage(PlacementMixin, base.ControlPlaneTestCase):

    computes = 1
    aggregate = 'a7f3b1a6-8a37-4c41-9a4e-6f1f0d3c2b10'

    def test_disk_is_allocated_from_the_sharing_provider(self):
        node = self.node_uuid('compute1')
        # The compute node record comes first; its provider follows when
        # the resource tracker first reports to placement.
        fixtures.wait_for(
            lambda: self.placement(
                'GET', '/resource_providers/%s' % node).status_code == 200,
            timeout=30, what='the compute node provider in placement')
        created = self.placement('POST', '/resource_providers',
                                 {'name': 'shared-disk'}, version='1.20')
        self.assertEqual(200, created.status_code, created.text)
        shared = created.json()['uuid']
        response = self.placement(
            'PUT', '/resource_providers/%s/inventories' % shared,
            {'resource_provider_generation': created.json()['generation'],
             'inventories': {'DISK_GB': {'total': 1000}}})
        self.assertEqual(200, response.status_code, response.text)
        generation = response.json()['resource_provider_generation']
        response = self.placement(
            'PUT', '/resource_providers/%s/traits' % shared,
            {'resource_provider_generation': generation,
             'traits': ['MISC_SHARES_VIA_AGGREGATE']})
        self.assertEqual(200, response.status_code, response.text)
        for provider in (shared, node):
            current = self.placement(
                'GET', '/resource_providers/%s' % provider).json()
            response = self.placement(
                'PUT', '/resource_providers/%s/aggregates' % provider,
                {'aggregates': [self.aggregate],
                 'resource_provider_generation': current['generation']},
                version='1.19')
            self.assertEqual(200, response.status_code, response.text)
        # The compute learns about the sharing provider in its audit.
        fixtures.wait_for(
            lambda: '%s (shared storage)' % shared in
            self.plane.daemons['compute1'].log(), timeout=30,
            what='compute sees the sharing provider')
        server = self.boot('shared')
        self.assertEqual({node: {'VCPU': 1, 'MEMORY_MB': 2048},
                          shared: {'DISK_GB': 10}},
                         self.allocations(server['id']))


class TestComputeAway(PlacementMixin, base.ControlPlaneTestCase):

    computes = 1

    def test_local_delete_gives_back_at_once(self):
        server = self.boot('local-delete')
        compute = self.plane.daemons['compute1']
        compute.stop()
        fixtures.wait_for(lambda: [
            s for s in self.admin.get('/os-services').json()['services']
            if s['host'] == 'compute1' and s['state'] == 'down'],
            timeout=30, what='compute1 down')
        self.admin.delete('/servers/%s' % server['id'])
        self.admin.wait_for_gone(server['id'])
        # Its compute is away: the API gave the allocation back (as
        # Nova's does), not the compute when it returns.
        self.assertEqual({}, self.allocations(server['id']))
        log_before = len(compute.log())
        self.plane.start_compute(1)
        self.plane.wait_for_compute_up('compute1')
        fixtures.wait_for(
            lambda: 'is serving' in compute.log()[log_before:],
            timeout=60, what='compute1 serving again')
        # Returning, it finds nothing of the server to give back, and
        # writes nothing back for it.
        self.assertNotIn('Deleting allocations of %s' % server['id'],
                         compute.log()[log_before:])
        self.assertEqual({}, self.allocations(server['id']))

    def test_placement_away_for_a_while(self):
        self.plane.wait_for_compute_up('compute1')
        kept = self.boot('before-outage')
        self.plane.daemons['placement'].stop()
        # A delete while placement is away cannot remove the allocation...
        self.admin.delete('/servers/%s' % kept['id'])
        self.admin.wait_for_gone(kept['id'])
        # ...and a build cannot write one: it waits for placement (an
        # outage is a delay, not a failure), never ACTIVE without it.
        created = self.admin.create_server('during-outage',
                                           image=self.plane.image_id)
        waiting = created['server']['id']
        time.sleep(5)
        self.assertEqual('BUILD', self.admin.get(
            '/servers/%s' % waiting).json()['server']['status'])
        self.plane.start_daemon('placement')
        fixtures.wait_for(lambda: self._placement_up(), timeout=30,
                          what='placement back')
        self.admin.wait_for_status(waiting, 'ACTIVE', timeout=120)
        self.assertEqual(1, len(self.allocations(waiting)))
        # The compute catches up on its next audit.
        self.wait_for_allocations(kept['id'], {}, timeout=90)
        self.plane.wait_for_compute_up('compute1')
        after = self.boot('after-outage')
        self.assertEqual(1, len(self.allocations(after['id'])))

    def _placement_up(self):
        try:
            return self.placement('GET', '/').ok
        except requests.RequestException:
            return False


class TestHealPortAllocations(test_port_resources.PortServiceMixin,
                              base.ControlPlaneTestCase):
    """A server with a minimum-bandwidth port whose allocation lost the
    port's part behind nova_lite's back (the flavor's part kept, so the
    compute's own audit, which writes only missing allocations, leaves
    it), and whose port lost its binding profile's ``allocation``:
    ``heal_allocations`` writes both back."""

    computes = 1

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.set_up_network()

    def boot_and_strip(self, name):
        """A server with a bandwidth port; then its allocation without
        the port's part and the port's profile without ``allocation``,
        written through placement and the port API. (server, port)."""
        port = self.qos_port(name)
        server = self.boot_with_port(name, port['id'])
        self.addCleanup(self._delete_server, server['id'])
        self.assert_bound_here(server, port['id'])
        node = self.node_uuid(server['OS-EXT-SRV-ATTR:host'])
        held = self.placement('/allocations/%s' % server['id'])
        response = requests.put(
            self.plane.placement_url + '/allocations/%s' % server['id'],
            json={'allocations': {node: held['allocations'][node]},
                  'consumer_generation': held['consumer_generation'],
                  'project_id': held['project_id'],
                  'user_id': held['user_id']},
            headers={**self.plane.admin_headers,
                     'OpenStack-API-Version': 'placement 1.28'},
            timeout=10)
        self.assertEqual(204, response.status_code, response.text)
        self.net_ok('PUT', '/ports/%s' % port['id'],
                    {'port': {'binding:profile': {}}})
        self.assertEqual([node], list(self.allocations(server['id'])))
        stripped = self.port(port['id'])
        self.assertEqual({}, stripped['binding:profile'])
        # The port service no longer binds it: no provider is named.
        self.assertEqual('binding_failed', stripped['binding:vif_type'])
        return server, port

    def _delete_server(self, server_id):
        if self.admin.delete('/servers/%s' % server_id).status_code == 204:
            self.admin.wait_for_gone(server_id)

    def test_the_ports_allocation_and_binding_profile_are_written_back(
            self):
        server, port = self.boot_and_strip('heal-port')
        broken = self.plane.manage('audit', check=False)
        self.assertEqual(3, broken.returncode, broken.stdout)
        self.assertIn('port %s has a resource request' % port['id'],
                      broken.stdout)

        dry = self.plane.manage('placement', 'heal_allocations',
                                '--dry-run')
        self.assertIn('Would write port %s\'s' % port['id'], dry.stdout)
        self.assertEqual(1, len(self.allocations(server['id'])))

        healed = self.plane.manage('placement', 'heal_allocations',
                                   '--verbose')
        self.assertIn('1 allocation(s) written (0 written whole, 1 port '
                      'resource request(s) added)', healed.stdout)
        self.assertEqual('ACTIVE', self.port(port['id'])['status'])
        self.assert_bound_here(server, port['id'])
        self.assertEqual(0, self.plane.audit().returncode)
        again = self.plane.manage('placement', 'heal_allocations')
        self.assertIn('0 allocation(s) written', again.stdout)

    def test_skip_port_allocations_leaves_the_port_as_it_is(self):
        server, port = self.boot_and_strip('heal-skip')
        skipped = self.plane.manage('placement', 'heal_allocations',
                                    '--skip-port-allocations')
        self.assertIn('0 allocation(s) written', skipped.stdout)
        self.assertEqual(1, len(self.allocations(server['id'])))
        self.assertEqual({}, self.port(port['id'])['binding:profile'])
        # Healed for the audit after the test.
        self.plane.manage('placement', 'heal_allocations')
        self.assert_bound_here(server, port['id'])


class TestHealPortAllocationsOnOpenStackPlacement(TestHealPortAllocations):
    """The same on OpenStack Placement 16 (``tools/placement_peer.py``):
    the heal reads trees, capacities and traits and writes allocations
    through the public API only."""

    placement_service = 'openstack'
