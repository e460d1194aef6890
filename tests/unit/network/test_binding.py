"""Binding a port to a host through its binding:* attributes: the port
binds (vif_type ovs, status ACTIVE) only where an alive Open vSwitch agent
serves its network, and, for a port with a resource request, only with
that host's bandwidth provider as its allocation; otherwise its vif_type
is binding_failed, never an HTTP error."""

from tests.unit.network import base

allocation = base.allocation


class TestBinding(base.NetworkTestCase):

    def setUp(self):
        super().setUp()
        self.network = self.physnet_network('physnet0')
        self.port = self.make_port(self.network['id'])

    def bind(self, host, port=None, **attributes):
        attributes['binding:host_id'] = host
        return self.update_port((port or self.port)['id'], **attributes)

    def assertFailed(self, port, fragment):
        self.assertEqual('binding_failed', port['binding:vif_type'])
        self.assertEqual('DOWN', port['status'])
        self.assertIn(fragment,
                      port['binding:vif_details']['binding_failed_reason'])

    def test_a_host_whose_agent_serves_the_physnet_binds(self):
        self.report_agent('host1', bridge_mappings={'physnet0': 'br-ex'})
        port = self.bind('host1')
        self.assertEqual('host1', port['binding:host_id'])
        self.assertEqual('ovs', port['binding:vif_type'])
        self.assertEqual('ACTIVE', port['status'])
        self.assertEqual('br-int',
                         port['binding:vif_details']['bridge_name'])

    def test_a_host_without_agent_fails(self):
        self.assertFailed(self.bind('host1'), 'no Open vSwitch agent')

    def test_a_host_on_another_physnet_fails(self):
        self.report_agent('host1', bridge_mappings={'physnet1': 'br-ex'})
        self.assertFailed(self.bind('host1'),
                          'not connected to physical network physnet0')

    def test_a_physnet_with_bandwidth_only_is_served(self):
        self.report_agent('host1', bandwidths={
            'physnet0': {'egress': 1000, 'ingress': 0}})
        self.assertEqual('ovs', self.bind('host1')['binding:vif_type'])

    def test_a_dead_agent_does_not_bind(self):
        self.freeze_time()
        self.report_agent('host1', bridge_mappings={'physnet0': 'br-ex'})
        self.advance(76)
        self.assertFailed(self.bind('host1'), 'is down')

    def test_an_agent_reporting_within_agent_down_time_binds(self):
        self.freeze_time()
        self.report_agent('host1', bridge_mappings={'physnet0': 'br-ex'})
        self.advance(70)
        self.assertEqual('ovs', self.bind('host1')['binding:vif_type'])

    def test_an_administratively_down_agent_does_not_bind(self):
        agent = self.report_agent('host1',
                                  bridge_mappings={'physnet0': 'br-ex'})
        self.put('/v2.0/agents/%s' % agent['id'],
                 {'agent': {'admin_state_up': False}})
        self.assertFailed(self.bind('host1'), 'administratively down')

    def test_a_tunnelled_network_binds_on_any_alive_agent(self):
        port = self.make_port(self.make_network()['id'])
        self.report_agent('host1')
        self.assertEqual('ovs', self.bind('host1', port)['binding:vif_type'])

    def test_a_vnic_type_the_agent_cannot_plug_fails(self):
        self.report_agent('host1', bridge_mappings={'physnet0': 'br-ex'})
        port = self.bind('host1', **{'binding:vnic_type': 'direct'})
        self.assertFailed(port, 'vnic_type direct is not supported')

    def test_unbinding_with_an_empty_host(self):
        self.report_agent('host1', bridge_mappings={'physnet0': 'br-ex'})
        self.bind('host1')
        port = self.bind('')
        self.assertEqual(('', 'unbound', 'DOWN'),
                         (port['binding:host_id'], port['binding:vif_type'],
                          port['status']))

    def test_unbinding_with_a_null_host(self):
        self.report_agent('host1', bridge_mappings={'physnet0': 'br-ex'})
        self.bind('host1')
        self.assertEqual('unbound', self.bind(None)['binding:vif_type'])

    def test_binding_again_after_the_agent_came_up(self):
        self.assertFailed(self.bind('host1'), 'no Open vSwitch agent')
        self.report_agent('host1', bridge_mappings={'physnet0': 'br-ex'})
        self.assertEqual('ovs', self.bind('host1')['binding:vif_type'])

    def test_a_new_port_can_be_bound_at_creation(self):
        self.report_agent('host1', bridge_mappings={'physnet0': 'br-ex'})
        port = self.make_port(self.network['id'],
                              **{'binding:host_id': 'host1'})
        self.assertEqual(('ovs', 'ACTIVE'),
                         (port['binding:vif_type'], port['status']))

    def test_an_administratively_down_port_stays_down(self):
        self.report_agent('host1', bridge_mappings={'physnet0': 'br-ex'})
        self.bind('host1')
        port = self.update_port(self.port['id'], admin_state_up=False)
        self.assertEqual('DOWN', port['status'])
        port = self.update_port(self.port['id'], admin_state_up=True)
        self.assertEqual('ACTIVE', port['status'])

    def test_the_profile_is_kept(self):
        self.report_agent('host1', bridge_mappings={'physnet0': 'br-ex'})
        port = self.bind('host1', **{'binding:profile': {'key': 'value'}})
        self.assertEqual({'key': 'value'}, port['binding:profile'])

    def test_a_null_profile_is_empty(self):
        port = self.update_port(self.port['id'],
                                **{'binding:profile': None})
        self.assertEqual({}, port['binding:profile'])


class TestBindingWithResourceRequest(base.NetworkTestCase):

    def setUp(self):
        super().setUp()
        policy = self.make_policy(egress=1000)
        self.network = self.physnet_network('physnet0')
        self.port = self.make_port(self.network['id'],
                                   qos_policy_id=policy['id'])
        self.report_agent('host1', bandwidths={
            'physnet0': {'egress': 10000, 'ingress': 10000}})

    def bind(self, host, profile=None):
        attributes = {'binding:host_id': host}
        if profile is not None:
            attributes['binding:profile'] = profile
        return self.update_port(self.port['id'], **attributes)

    def test_the_hosts_bandwidth_provider_as_allocation_binds(self):
        port = self.bind('host1', allocation('host1'))
        self.assertEqual('ovs', port['binding:vif_type'])

    def test_no_allocation_fails(self):
        port = self.bind('host1')
        self.assertEqual('binding_failed', port['binding:vif_type'])
        self.assertIn('no allocation', port['binding:vif_details'][
            'binding_failed_reason'])

    def test_another_hosts_provider_fails(self):
        self.report_agent('host2', bandwidths={
            'physnet0': {'egress': 10000, 'ingress': 10000}})
        port = self.bind('host1', allocation('host2'))
        self.assertEqual('binding_failed', port['binding:vif_type'])
        self.assertIn('is not the bandwidth provider', port[
            'binding:vif_details']['binding_failed_reason'])

    def test_an_allocation_per_request_group_binds(self):
        port = self.bind('host1', {'allocation': {
            'group-1': allocation('host1')['allocation']}})
        self.assertEqual('ovs', port['binding:vif_type'])

    def test_a_host_without_bandwidth_on_the_physnet_fails(self):
        self.report_agent('host2', bridge_mappings={'physnet0': 'br-ex'})
        port = self.bind('host2', allocation('host2'))
        self.assertIn('guarantees no bandwidth', port[
            'binding:vif_details']['binding_failed_reason'])

    def test_moving_the_allocation_to_the_new_host_binds_there(self):
        self.report_agent('host2', bandwidths={
            'physnet0': {'egress': 10000, 'ingress': 10000}})
        self.bind('host1', allocation('host1'))
        port = self.bind('host2', allocation('host2'))
        self.assertEqual(('host2', 'ovs'), (port['binding:host_id'],
                                            port['binding:vif_type']))
