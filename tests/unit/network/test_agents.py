"""/v2.0/agents: agent reports, liveness, admin changes, and the bandwidth
resource providers a report makes in placement."""

import fixtures

from nova_lite.network import placement_sync
from nova_lite import placement_client
from tests.unit.network import base

OVS = base.OVS
MISSING = '0f9a8d47-3c1e-4f44-8d1b-5a2e7c9b6d10'
BANDWIDTHS = {'physnet0': {'egress': 10000, 'ingress': 20000}}


class TestReports(base.NetworkTestCase):

    def test_the_first_report_creates_the_agent(self):
        response = self.post('/v2.0/agents', {'agent': {
            'host': 'host1', 'agent_type': OVS,
            'binary': 'nova-lite-compute',
            'configurations': {'bridge_mappings': {'physnet0': 'br-ex'}}}})
        self.assertStatus(201, response)
        agent = response.json['agent']
        for name, value in (('host', 'host1'), ('agent_type', OVS),
                            ('binary', 'nova-lite-compute'),
                            ('admin_state_up', True), ('alive', True),
                            ('resources_synced', None),
                            ('configurations',
                             {'bridge_mappings': {'physnet0': 'br-ex'}})):
            self.assertEqual(value, agent[name], name)
        for name in ('heartbeat_timestamp', 'created_at', 'started_at',
                     'topic', 'availability_zone', 'description', 'id'):
            self.assertIn(name, agent)

    def test_a_later_report_updates_the_same_agent(self):
        first = self.report_agent('host1', expect=201)
        second = self.report_agent('host1', {'physnet1': 'br-1'},
                                   expect=200)
        self.assertEqual(first['id'], second['id'])
        self.assertEqual({'physnet1': 'br-1'},
                         second['configurations']['bridge_mappings'])

    def test_a_report_renews_the_heartbeat(self):
        self.freeze_time()
        first = self.report_agent('host1')
        self.advance(30)
        second = self.report_agent('host1')
        self.assertNotEqual(first['heartbeat_timestamp'],
                            second['heartbeat_timestamp'])
        self.assertEqual(first['started_at'], second['started_at'])

    def test_a_start_flag_resets_started_at(self):
        self.freeze_time()
        first = self.report_agent('host1')
        self.advance(30)
        second = self.post('/v2.0/agents', {'agent': {
            'host': 'host1', 'agent_type': OVS, 'binary': 'b',
            'start_flag': True}}).json['agent']
        self.assertNotEqual(first['started_at'], second['started_at'])

    def test_agents_of_two_types_on_one_host_are_two_agents(self):
        self.report_agent('host1')
        self.report_agent('host1', agent_type='Metadata agent')
        self.assertEqual(2, len(self.get('/v2.0/agents?host=host1').json[
            'agents']))

    def test_an_agent_goes_dead_after_agent_down_time(self):
        self.freeze_time()
        agent = self.report_agent('host1')
        self.advance(76)
        shown = self.get('/v2.0/agents/%s' % agent['id']).json['agent']
        self.assertFalse(shown['alive'])

    def test_agent_down_time_is_configurable(self):
        self.conf.config(agent_down_time=10, group='network')
        self.freeze_time()
        agent = self.report_agent('host1')
        self.advance(11)
        self.assertFalse(self.get('/v2.0/agents/%s' % agent['id']).json[
            'agent']['alive'])

    def test_a_report_needs_a_host(self):
        response = self.post('/v2.0/agents', {'agent': {
            'agent_type': OVS, 'binary': 'b'}})
        self.assertError(response, 400, fragment='host')

    def test_malformed_bandwidths_are_refused(self):
        response = self.post('/v2.0/agents', {'agent': {
            'host': 'h', 'agent_type': OVS, 'binary': 'b',
            'configurations': {'resource_provider_bandwidths': {
                'physnet0': {'egress': -1}}}}})
        self.assertError(response, 400, fragment='egress')

    def test_members_cannot_report(self):
        response = self.post('/v2.0/agents', {'agent': {
            'host': 'h', 'agent_type': OVS, 'binary': 'b'}},
            token=base.DEMO)
        self.assertError(response, 403)


class TestAgentsAPI(base.NetworkTestCase):

    def test_list_filters_by_host_and_type(self):
        wanted = self.report_agent('host1')
        self.report_agent('host2')
        self.report_agent('host1', agent_type='DHCP agent')
        listed = self.get('/v2.0/agents?host=host1&agent_type=%s' %
                          OVS.replace(' ', '+')).json['agents']
        self.assertEqual([wanted['id']], [a['id'] for a in listed])

    def test_list_filters_by_alive(self):
        self.freeze_time()
        dead = self.report_agent('host1')
        self.advance(100)
        alive = self.report_agent('host2')
        self.assertEqual([dead['id']], [a['id'] for a in self.get(
            '/v2.0/agents?alive=false').json['agents']])
        self.assertEqual([alive['id']], [a['id'] for a in self.get(
            '/v2.0/agents?alive=true').json['agents']])

    def test_update_admin_state_and_description(self):
        agent = self.report_agent('host1')
        response = self.put('/v2.0/agents/%s' % agent['id'], {'agent': {
            'admin_state_up': False, 'description': 'maintenance'}})
        self.assertStatus(200, response)
        self.assertEqual((False, 'maintenance'),
                         (response.json['agent']['admin_state_up'],
                          response.json['agent']['description']))

    def test_only_admin_state_and_description_change(self):
        agent = self.report_agent('host1')
        response = self.put('/v2.0/agents/%s' % agent['id'], {'agent': {
            'host': 'host9'}})
        self.assertError(response, 400, fragment='host')

    def test_delete(self):
        agent = self.report_agent('host1')
        self.assertStatus(204, self.delete('/v2.0/agents/%s' % agent['id']))
        self.assertError(self.get('/v2.0/agents/%s' % agent['id']), 404,
                         'AgentNotFound')

    def test_an_unknown_agent_is_404(self):
        self.assertError(self.get('/v2.0/agents/%s' % MISSING), 404,
                         'AgentNotFound', MISSING)
        self.assertError(self.get('/v2.0/agents/x'), 404, 'AgentNotFound')

    def test_members_cannot_list_agents(self):
        self.assertError(self.get('/v2.0/agents', token=base.DEMO), 403)


class TestPlacementSync(base.NetworkTestCase):

    def setUp(self):
        super().setUp()
        self.compute_node = self.placement.make_provider('host1')
        self.rp_uuid = placement_sync.bandwidth_provider_uuid('host1',
                                                              'physnet0')

    def inventories(self, uuid):
        return self.placement.request(
            'GET', '/resource_providers/%s/inventories' % uuid).json[
            'inventories']

    def traits(self, uuid):
        return self.placement.request(
            'GET', '/resource_providers/%s/traits' % uuid).json['traits']

    def test_the_uuid_is_derived_from_host_and_physnet(self):
        self.assertEqual(self.rp_uuid, placement_sync.bandwidth_provider_uuid(
            'host1', 'physnet0'))
        self.assertNotEqual(self.rp_uuid,
                            placement_sync.bandwidth_provider_uuid(
                                'host2', 'physnet0'))
        self.assertNotEqual(self.rp_uuid,
                            placement_sync.bandwidth_provider_uuid(
                                'host1', 'physnet1'))

    def test_a_report_makes_a_child_of_the_compute_node(self):
        agent = self.report_agent('host1', bandwidths=BANDWIDTHS)
        self.assertTrue(agent['resources_synced'])
        provider = self.placement.provider(self.rp_uuid)
        self.assertEqual('host1:Open vSwitch agent:physnet0',
                         provider['name'])
        self.assertEqual(self.compute_node['uuid'],
                         provider['parent_provider_uuid'])

    def test_the_provider_has_bandwidth_inventory(self):
        self.report_agent('host1', bandwidths=BANDWIDTHS)
        self.assertEqual({
            'NET_BW_EGR_KILOBIT_PER_SEC': {
                'total': 10000, 'reserved': 0, 'min_unit': 1,
                'max_unit': 10000, 'step_size': 1,
                'allocation_ratio': 1.0},
            'NET_BW_IGR_KILOBIT_PER_SEC': {
                'total': 20000, 'reserved': 0, 'min_unit': 1,
                'max_unit': 20000, 'step_size': 1,
                'allocation_ratio': 1.0}},
            self.inventories(self.rp_uuid))

    def test_a_direction_of_zero_has_no_inventory(self):
        self.report_agent('host1', bandwidths={
            'physnet0': {'egress': 1000, 'ingress': 0}})
        self.assertEqual(['NET_BW_EGR_KILOBIT_PER_SEC'],
                         list(self.inventories(self.rp_uuid)))

    def test_the_provider_has_the_physnet_and_vnic_type_traits(self):
        self.report_agent('host1', bandwidths={
            'data-net': {'egress': 1000, 'ingress': 1000}})
        uuid = placement_sync.bandwidth_provider_uuid('host1', 'data-net')
        self.assertEqual(['CUSTOM_PHYSNET_DATA_NET',
                          'CUSTOM_VNIC_TYPE_NORMAL'],
                         sorted(self.traits(uuid)))

    def test_the_hypervisor_mapping_names_the_parent(self):
        node = self.placement.make_provider('node-a')
        self.report_agent('host1', bandwidths=BANDWIDTHS,
                          hypervisors={'physnet0': 'node-a'})
        self.assertEqual(node['uuid'], self.placement.provider(
            self.rp_uuid)['parent_provider_uuid'])

    def test_a_report_that_changes_nothing_writes_nothing(self):
        self.report_agent('host1', bandwidths=BANDWIDTHS)
        generation = self.placement.provider(self.rp_uuid)['generation']
        self.report_agent('host1', bandwidths=BANDWIDTHS)
        self.assertEqual(generation,
                         self.placement.provider(self.rp_uuid)['generation'])

    def test_a_changed_bandwidth_updates_the_inventory(self):
        self.report_agent('host1', bandwidths=BANDWIDTHS)
        self.report_agent('host1', bandwidths={
            'physnet0': {'egress': 500, 'ingress': 20000}})
        self.assertEqual(500, self.inventories(self.rp_uuid)[
            'NET_BW_EGR_KILOBIT_PER_SEC']['total'])

    def test_no_compute_node_yet_is_not_synced_until_it_exists(self):
        self.report_agent('host2', bandwidths=BANDWIDTHS)
        agent = self.report_agent('host2', bandwidths=BANDWIDTHS)
        self.assertFalse(agent['resources_synced'])
        uuid = placement_sync.bandwidth_provider_uuid('host2', 'physnet0')
        self.assertIsNone(self.placement.provider(uuid))
        self.placement.make_provider('host2')
        agent = self.report_agent('host2', bandwidths=BANDWIDTHS)
        self.assertTrue(agent['resources_synced'])
        self.assertIsNotNone(self.placement.provider(uuid))

    def test_placement_down_still_takes_the_report(self):
        self.placement.down = True
        agent = self.report_agent('host1', bandwidths=BANDWIDTHS,
                                  expect=201)
        self.assertFalse(agent['resources_synced'])
        self.assertIn('not synced with placement', self.logs.output)
        self.placement.down = False
        self.assertTrue(self.report_agent(
            'host1', bandwidths=BANDWIDTHS)['resources_synced'])

    def test_the_synced_provider_binds_ports_that_allocate_from_it(self):
        self.report_agent('host1', bandwidths=BANDWIDTHS)
        policy = self.make_policy(egress=1000)
        port = self.make_port(self.physnet_network('physnet0')['id'],
                              qos_policy_id=policy['id'])
        candidates = self.placement.request(
            'GET', '/allocation_candidates?resources=%s:%d&required=%s' % (
                'NET_BW_EGR_KILOBIT_PER_SEC', 1000,
                ','.join(port['resource_request']['required']))).json
        [request] = candidates['allocation_requests']
        [rp_uuid] = request['allocations']
        port = self.update_port(port['id'], **{
            'binding:host_id': 'host1',
            'binding:profile': {'allocation': rp_uuid}})
        self.assertEqual('ovs', port['binding:vif_type'])


class _Recording(base.WSGIAdapter):
    """The placement app, with the (method, path) of each request."""

    def __init__(self, app):
        super().__init__(app)
        self.requests = []

    def send(self, request, **kwargs):
        self.requests.append((request.method,
                              request.path_url.split('?')[0]))
        return super().send(request, **kwargs)


class TestPlacementSyncCache(base.NetworkTestCase):
    """The port service's one client caches the bandwidth providers it
    keeps: a report that changes nothing asks placement nothing, until
    ``[compute] resource_provider_association_refresh`` has passed."""

    def setUp(self):
        super().setUp()
        self.compute_node = self.placement.make_provider('host1')
        self.rp_uuid = placement_sync.bandwidth_provider_uuid('host1',
                                                              'physnet0')
        self.transport = _Recording(self.placement.app)
        self.client = placement_client.PlacementClient(
            endpoint=base.PLACEMENT_URL, cache_providers=True)
        self.client.session.mount(base.PLACEMENT_URL, self.transport)
        self.now = 1000.0
        self.client.clock = lambda: self.now
        self.conf.config(resource_provider_association_refresh=300,
                         group='compute')
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.network.placement_sync.report_client',
            lambda: self.client))

    def report(self, bandwidths=BANDWIDTHS):
        del self.transport.requests[:]
        agent = self.report_agent('host1', bandwidths=bandwidths)
        self.assertTrue(agent['resources_synced'])
        return list(self.transport.requests)

    def test_a_report_that_changes_nothing_asks_nothing(self):
        first = self.report()
        self.assertIn(('POST', '/resource_providers'),
                      first)
        self.assertEqual([], self.report())

    def test_a_changed_bandwidth_is_written_at_once(self):
        self.report()
        asked = self.report({'physnet0': {'egress': 500, 'ingress': 20000}})
        self.assertIn(('PUT', '/resource_providers/%s/inventories' %
                       self.rp_uuid), asked)
        self.assertEqual(500, self.placement.request(
            'GET', '/resource_providers/%s/inventories' % self.rp_uuid).json[
            'inventories']['NET_BW_EGR_KILOBIT_PER_SEC']['total'])
        self.assertEqual([], self.report(
            {'physnet0': {'egress': 500, 'ingress': 20000}}))

    def test_a_provider_deleted_behind_its_back_is_made_after_the_refresh(
            self):
        self.report()
        self.assertEqual(204, self.placement.request(
            'DELETE', '/resource_providers/%s' % self.rp_uuid).status_int)
        self.assertEqual([], self.report())
        self.now += 300
        self.assertIn(('POST', '/resource_providers'),
                      self.report())
        provider = self.placement.provider(self.rp_uuid)
        self.assertEqual(self.compute_node['uuid'],
                         provider['parent_provider_uuid'])
        self.assertEqual(['CUSTOM_PHYSNET_PHYSNET0',
                          'CUSTOM_VNIC_TYPE_NORMAL'], sorted(
            self.placement.request(
                'GET', '/resource_providers/%s/traits' % self.rp_uuid).json[
                'traits']))

    def test_a_failed_sync_forgets_the_provider(self):
        self.report()
        self.client.session.mount(base.PLACEMENT_URL, base.DownAdapter())
        # A changed bandwidth must be written, and placement is down.
        self.assertTrue(self.report_agent(
            'host1', bandwidths={'physnet0': {'egress': 1, 'ingress': 1}})[
            'resources_synced'] is False)
        self.client.session.mount(base.PLACEMENT_URL, self.transport)
        asked = self.report()
        self.assertIn(('GET', '/resource_providers/%s' % self.rp_uuid), asked)
