"""QoS policies, minimum bandwidth rules, and the resource_request they
give ports."""

from tests.unit.network import base

allocation = base.allocation
MISSING = '0f9a8d47-3c1e-4f44-8d1b-5a2e7c9b6d10'
EGRESS = 'NET_BW_EGR_KILOBIT_PER_SEC'
INGRESS = 'NET_BW_IGR_KILOBIT_PER_SEC'


class TestPolicies(base.NetworkTestCase):

    def test_create_and_show(self):
        policy = self.make_policy(name='gold', description='fast')
        shown = self.get('/v2.0/qos/policies/%s' % policy['id'])
        self.assertStatus(200, shown)
        for name, value in (('name', 'gold'), ('description', 'fast'),
                            ('shared', False), ('rules', []),
                            ('project_id', base.ADMIN)):
            self.assertEqual(value, shown.json['policy'][name], name)

    def test_members_cannot_create_policies(self):
        response = self.post('/v2.0/qos/policies',
                             {'policy': {'name': 'x'}}, token=base.DEMO)
        self.assertError(response, 403, 'PolicyNotAuthorized')

    def test_members_see_shared_policies_only(self):
        shared = self.make_policy(shared=True)
        self.make_policy()
        listed = self.get('/v2.0/qos/policies', token=base.DEMO).json
        self.assertEqual([shared['id']], [p['id'] for p in
                                          listed['policies']])

    def test_filter_by_name(self):
        self.make_policy(name='a')
        gold = self.make_policy(name='gold')
        listed = self.get('/v2.0/qos/policies?name=gold').json['policies']
        self.assertEqual([gold['id']], [p['id'] for p in listed])

    def test_update(self):
        policy = self.make_policy()
        response = self.put('/v2.0/qos/policies/%s' % policy['id'],
                            {'policy': {'name': 'silver', 'shared': True}})
        self.assertStatus(200, response)
        self.assertEqual(('silver', True), (response.json['policy']['name'],
                                            response.json['policy']['shared']))

    def test_delete(self):
        policy = self.make_policy(egress=1000)
        self.assertStatus(204, self.delete('/v2.0/qos/policies/%s' %
                                           policy['id']))
        self.assertError(self.get('/v2.0/qos/policies/%s' % policy['id']),
                         404, 'QosPolicyNotFound')

    def test_a_policy_used_by_a_port_cannot_be_deleted(self):
        policy = self.make_policy()
        port = self.make_port(self.make_network()['id'],
                              qos_policy_id=policy['id'])
        response = self.delete('/v2.0/qos/policies/%s' % policy['id'])
        self.assertError(response, 409, 'QosPolicyInUse', port['id'])

    def test_a_policy_used_by_a_network_cannot_be_deleted(self):
        policy = self.make_policy()
        network = self.make_network(qos_policy_id=policy['id'])
        response = self.delete('/v2.0/qos/policies/%s' % policy['id'])
        self.assertError(response, 409, 'QosPolicyInUse', network['id'])

    def test_an_unknown_policy_is_404(self):
        response = self.get('/v2.0/qos/policies/%s' % MISSING)
        self.assertError(response, 404, 'QosPolicyNotFound', MISSING)

    def test_members_cannot_use_a_private_policy_of_another_project(self):
        policy = self.make_policy()
        network = self.make_network(token=base.DEMO)
        response = self.post('/v2.0/ports', {'port': {
            'network_id': network['id'], 'qos_policy_id': policy['id']}},
            token=base.DEMO)
        self.assertError(response, 404, 'QosPolicyNotFound')

    def test_rule_types(self):
        response = self.get('/v2.0/qos/rule-types', token=base.DEMO)
        self.assertEqual({'rule_types': [{'type': 'minimum_bandwidth'}]},
                         response.json)


class TestMinimumBandwidthRules(base.NetworkTestCase):

    def setUp(self):
        super().setUp()
        self.policy = self.make_policy()
        self.path = ('/v2.0/qos/policies/%s/minimum_bandwidth_rules' %
                     self.policy['id'])

    def test_create_and_list(self):
        rule = self.make_rule(self.policy['id'], 1000, 'egress')
        self.assertEqual((1000, 'egress'), (rule['min_kbps'],
                                            rule['direction']))
        listed = self.get(self.path).json['minimum_bandwidth_rules']
        self.assertEqual([rule['id']], [r['id'] for r in listed])

    def test_the_direction_defaults_to_egress(self):
        response = self.post(self.path, {'minimum_bandwidth_rule': {
            'min_kbps': 10}})
        self.assertEqual('egress',
                         response.json['minimum_bandwidth_rule']['direction'])

    def test_the_policy_shows_its_rules(self):
        rule = self.make_rule(self.policy['id'], 1000, 'ingress')
        policy = self.get('/v2.0/qos/policies/%s' %
                          self.policy['id']).json['policy']
        self.assertEqual([{'id': rule['id'], 'min_kbps': 1000,
                           'direction': 'ingress',
                           'type': 'minimum_bandwidth',
                           'qos_policy_id': self.policy['id']}],
                         policy['rules'])

    def test_one_rule_per_direction(self):
        self.make_rule(self.policy['id'], 1000, 'egress')
        response = self.post(self.path, {'minimum_bandwidth_rule': {
            'min_kbps': 2000, 'direction': 'egress'}})
        self.assertError(response, 409, 'QosRuleDirectionExists', 'egress')

    def test_both_directions(self):
        self.make_rule(self.policy['id'], 1000, 'egress')
        self.make_rule(self.policy['id'], 2000, 'ingress')
        self.assertEqual(2, len(self.get(self.path).json[
            'minimum_bandwidth_rules']))

    def test_min_kbps_must_be_positive(self):
        response = self.post(self.path, {'minimum_bandwidth_rule': {
            'min_kbps': 0}})
        self.assertError(response, 400, fragment='min_kbps')

    def test_min_kbps_must_be_an_integer(self):
        response = self.post(self.path, {'minimum_bandwidth_rule': {
            'min_kbps': 'lots'}})
        self.assertError(response, 400, fragment='min_kbps')

    def test_an_unknown_direction_is_refused(self):
        response = self.post(self.path, {'minimum_bandwidth_rule': {
            'min_kbps': 10, 'direction': 'sideways'}})
        self.assertError(response, 400, fragment='direction')

    def test_show_update_delete(self):
        rule = self.make_rule(self.policy['id'], 1000)
        rule_path = '%s/%s' % (self.path, rule['id'])
        self.assertEqual(1000, self.get(rule_path).json[
            'minimum_bandwidth_rule']['min_kbps'])
        response = self.put(rule_path, {'minimum_bandwidth_rule': {
            'min_kbps': 5000}})
        self.assertEqual(5000, response.json['minimum_bandwidth_rule'][
            'min_kbps'])
        self.assertStatus(204, self.delete(rule_path))
        self.assertError(self.get(rule_path), 404, 'QosRuleNotFound')

    def test_changing_the_direction_to_a_taken_one_is_a_conflict(self):
        self.make_rule(self.policy['id'], 1000, 'egress')
        ingress = self.make_rule(self.policy['id'], 1000, 'ingress')
        response = self.put('%s/%s' % (self.path, ingress['id']), {
            'minimum_bandwidth_rule': {'direction': 'egress'}})
        self.assertError(response, 409, 'QosRuleDirectionExists')

    def test_a_rule_of_an_unknown_policy_is_404(self):
        response = self.get('/v2.0/qos/policies/%s/minimum_bandwidth_rules'
                            % MISSING)
        self.assertError(response, 404, 'QosPolicyNotFound')

    def test_members_cannot_add_rules(self):
        shared = self.make_policy(shared=True)
        response = self.post(
            '/v2.0/qos/policies/%s/minimum_bandwidth_rules' % shared['id'],
            {'minimum_bandwidth_rule': {'min_kbps': 10}}, token=base.DEMO)
        self.assertError(response, 403)


class TestResourceRequest(base.NetworkTestCase):

    def setUp(self):
        super().setUp()
        self.network = self.physnet_network('physnet0')

    def test_a_port_without_qos_requests_nothing(self):
        self.assertIsNone(self.make_port(self.network['id'])[
            'resource_request'])

    def test_a_policy_without_rules_requests_nothing(self):
        policy = self.make_policy()
        port = self.make_port(self.network['id'],
                              qos_policy_id=policy['id'])
        self.assertIsNone(port['resource_request'])

    def test_an_egress_rule(self):
        policy = self.make_policy(egress=1000)
        port = self.make_port(self.network['id'],
                              qos_policy_id=policy['id'])
        self.assertEqual({'resources': {EGRESS: 1000},
                          'required': ['CUSTOM_PHYSNET_PHYSNET0',
                                       'CUSTOM_VNIC_TYPE_NORMAL']},
                         port['resource_request'])

    def test_both_directions(self):
        policy = self.make_policy(egress=1000, ingress=2000)
        port = self.make_port(self.network['id'],
                              qos_policy_id=policy['id'])
        self.assertEqual({EGRESS: 1000, INGRESS: 2000},
                         port['resource_request']['resources'])

    def test_the_networks_policy_applies_to_its_ports(self):
        policy = self.make_policy(ingress=500)
        network = self.physnet_network('physnet1',
                                       qos_policy_id=policy['id'])
        port = self.make_port(network['id'])
        self.assertEqual({INGRESS: 500},
                         port['resource_request']['resources'])
        self.assertEqual(policy['id'], port['qos_network_policy_id'])

    def test_the_ports_policy_wins_over_the_networks(self):
        network = self.physnet_network(
            'physnet1', qos_policy_id=self.make_policy(ingress=500)['id'])
        port = self.make_port(network['id'], qos_policy_id=self.make_policy(
            egress=100)['id'])
        self.assertEqual({EGRESS: 100},
                         port['resource_request']['resources'])

    def test_a_network_without_physnet_requests_nothing(self):
        policy = self.make_policy(egress=1000)
        port = self.make_port(self.make_network()['id'],
                              qos_policy_id=policy['id'])
        self.assertIsNone(port['resource_request'])

    def test_the_physnet_trait_is_upper_case_with_underscores(self):
        policy = self.make_policy(egress=1000)
        network = self.physnet_network('data-net.1')
        port = self.make_port(network['id'], qos_policy_id=policy['id'])
        self.assertEqual('CUSTOM_PHYSNET_DATA_NET_1',
                         port['resource_request']['required'][0])

    def test_the_vnic_type_trait_follows_the_port(self):
        policy = self.make_policy(egress=1000)
        port = self.make_port(self.network['id'], qos_policy_id=policy['id'],
                              **{'binding:vnic_type': 'direct'})
        self.assertEqual('CUSTOM_VNIC_TYPE_DIRECT',
                         port['resource_request']['required'][1])

    def test_members_do_not_see_the_resource_request(self):
        network = self.make_network(token=base.DEMO)
        port = self.make_port(network['id'], token=base.DEMO)
        self.assertNotIn('resource_request', port)

    def test_a_new_rule_shows_in_the_ports_request(self):
        policy = self.make_policy()
        port = self.make_port(self.network['id'],
                              qos_policy_id=policy['id'])
        self.make_rule(policy['id'], 300)
        self.assertEqual({EGRESS: 300}, self.show_port(port['id'])[
            'resource_request']['resources'])


class TestQosOfBoundPorts(base.NetworkTestCase):
    """Placement allocations are not moved: a change that would change the
    resource request of a port bound to a host is refused."""

    def setUp(self):
        super().setUp()
        self.report_agent('host1', bandwidths={
            'physnet0': {'egress': 10000, 'ingress': 10000}})
        self.network = self.physnet_network('physnet0')
        self.policy = self.make_policy(egress=1000)
        self.port = self.make_port(self.network['id'],
                                   qos_policy_id=self.policy['id'])
        self.update_port(self.port['id'], **{
            'binding:host_id': 'host1',
            'binding:profile': allocation('host1')})

    def test_changing_the_policy_of_a_bound_port_is_a_conflict(self):
        other = self.make_policy(egress=2000)
        response = self.put('/v2.0/ports/%s' % self.port['id'], {
            'port': {'qos_policy_id': other['id']}})
        self.assertError(response, 409, 'QosPlacementAllocationConflict',
                         'host1')
        self.assertEqual(self.policy['id'], self.show_port(
            self.port['id'])['qos_policy_id'])

    def test_removing_the_policy_of_a_bound_port_is_a_conflict(self):
        response = self.put('/v2.0/ports/%s' % self.port['id'], {
            'port': {'qos_policy_id': None}})
        self.assertError(response, 409, 'QosPlacementAllocationConflict')

    def test_a_policy_with_the_same_request_is_fine(self):
        same = self.make_policy(egress=1000)
        port = self.update_port(self.port['id'], qos_policy_id=same['id'])
        self.assertEqual(('ovs', same['id']), (port['binding:vif_type'],
                                               port['qos_policy_id']))

    def test_an_unbound_port_changes_its_policy(self):
        self.update_port(self.port['id'], **{'binding:host_id': ''})
        port = self.update_port(self.port['id'], qos_policy_id=None)
        self.assertIsNone(port['resource_request'])

    def test_unbinding_and_changing_the_policy_at_once_is_fine(self):
        port = self.update_port(self.port['id'], qos_policy_id=None,
                                **{'binding:host_id': ''})
        self.assertIsNone(port['resource_request'])

    def test_changing_a_rule_a_bound_port_uses_is_a_conflict(self):
        rule = self.policy['rules'] or self.get(
            '/v2.0/qos/policies/%s' % self.policy['id']).json['policy'][
            'rules']
        response = self.put(
            '/v2.0/qos/policies/%s/minimum_bandwidth_rules/%s' % (
                self.policy['id'], rule[0]['id']),
            {'minimum_bandwidth_rule': {'min_kbps': 5}})
        self.assertError(response, 409, 'QosPlacementAllocationConflict')

    def test_adding_a_rule_a_bound_port_uses_is_a_conflict(self):
        response = self.post(
            '/v2.0/qos/policies/%s/minimum_bandwidth_rules' %
            self.policy['id'],
            {'minimum_bandwidth_rule': {'min_kbps': 5,
                                        'direction': 'ingress'}})
        self.assertError(response, 409, 'QosPlacementAllocationConflict')

    def test_changing_the_networks_policy_under_a_bound_port(self):
        network = self.physnet_network('physnet1')
        port = self.make_port(network['id'])
        self.report_agent('host1', bridge_mappings={'physnet1': 'br-1'},
                          bandwidths={'physnet0': {'egress': 10000}})
        self.update_port(port['id'], **{'binding:host_id': 'host1'})
        response = self.put('/v2.0/networks/%s' % network['id'], {
            'network': {'qos_policy_id': self.make_policy(
                egress=10)['id']}})
        self.assertError(response, 409, 'QosPlacementAllocationConflict',
                         port['id'])

    def test_a_rule_of_a_policy_no_bound_port_uses_changes(self):
        policy = self.make_policy(egress=1000)
        self.make_port(self.network['id'], qos_policy_id=policy['id'])
        self.make_rule(policy['id'], 10, 'ingress')
