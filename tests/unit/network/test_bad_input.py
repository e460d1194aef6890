"""Hostile input gets a 4xx with a message in the Networking API's error
format, never a 500."""

from tests.unit.network import base


class TestBadInput(base.NetworkTestCase):

    def setUp(self):
        super().setUp()
        self.network = self.make_network()
        self.port = self.make_port(self.network['id'])
        self.policy = self.make_policy(egress=10)

    def _collections(self):
        return ['/v2.0/networks', '/v2.0/ports', '/v2.0/qos/policies',
                '/v2.0/qos/policies/%s/minimum_bandwidth_rules' %
                self.policy['id'],
                '/v2.0/ports/%s/bindings' % self.port['id'],
                '/v2.0/agents']

    def test_malformed_json_is_400(self):
        for path in self._collections():
            response = self.request('POST', path, raw_body=b'{"port": ')
            self.assertError(response, 400, fragment='JSON')

    def test_a_body_that_is_not_an_object_is_400(self):
        for path in self._collections():
            response = self.request('POST', path, raw_body=b'[1, 2]')
            self.assertError(response, 400)

    def test_a_missing_envelope_is_400(self):
        response = self.post('/v2.0/ports', {'network_id':
                                             self.network['id']})
        self.assertError(response, 400, fragment='{"port": {...}}')

    def test_an_envelope_that_is_not_an_object_is_400(self):
        for path, key in (('/v2.0/ports', 'port'),
                          ('/v2.0/networks', 'network'),
                          ('/v2.0/qos/policies', 'policy'),
                          ('/v2.0/agents', 'agent')):
            response = self.post(path, {key: 'x'})
            self.assertError(response, 400)

    def test_wrong_types_are_400(self):
        port_path = '/v2.0/ports/%s' % self.port['id']
        for method, path, body in (
                ('POST', '/v2.0/networks',
                 {'network': {'admin_state_up': 'yes please'}}),
                ('POST', '/v2.0/networks', {'network': {'mtu': 'big'}}),
                ('POST', '/v2.0/networks', {'network': {
                    'provider:segmentation_id': 'seven'}}),
                ('POST', '/v2.0/ports', {'port': {'network_id': 42}}),
                ('POST', '/v2.0/ports', {'port': {'network_id': 'nope'}}),
                ('PUT', port_path, {'port': {'binding:profile': 'x'}}),
                ('PUT', port_path, {'port': {'binding:host_id': 7}}),
                ('PUT', port_path, {'port': {'mac_address': 'zz'}}),
                ('PUT', port_path, {'port': {'qos_policy_id': 'gold'}}),
                ('PUT', port_path, {'port': {'name': 'x' * 300}}),
                ('PUT', port_path, {'port': {'tags': 'a'}})):
            response = self.request(method, path, body)
            self.assertError(response, 400)

    def test_a_huge_binding_profile_is_400(self):
        profile = {'key': 'x' * 5000}
        response = self.put('/v2.0/ports/%s' % self.port['id'],
                            {'port': {'binding:profile': profile}})
        self.assertError(response, 400, fragment='too large')
        response = self.post('/v2.0/ports/%s/bindings' % self.port['id'],
                             {'binding': {'host': 'h', 'profile': profile}})
        self.assertError(response, 400, fragment='too large')

    def test_huge_agent_configurations_are_400(self):
        response = self.post('/v2.0/agents', {'agent': {
            'host': 'h', 'agent_type': 'Open vSwitch agent', 'binary': 'b',
            'configurations': {'bridge_mappings': {
                'p%d' % i: 'b' * 255 for i in range(90)}}}})
        self.assertError(response, 400, fragment='too large')

    def test_agent_configurations_with_too_many_keys_are_400(self):
        response = self.post('/v2.0/agents', {'agent': {
            'host': 'h', 'agent_type': 'Open vSwitch agent', 'binary': 'b',
            'configurations': {'bridge_mappings': {
                'p%d' % i: 'br-%d' % i for i in range(2000)}}}})
        self.assertError(response, 400,
                         fragment='It has 2000 keys; at most 100')

    def test_a_long_list_of_distinct_objects_as_tags_is_400_at_once(self):
        # A body's worth of distinct objects where 50 tags go: refused
        # for its length alone (jsonschema's uniqueItems would compare
        # every pair, minutes of one worker's time).
        tags = [{'t': i} for i in range(8000)]
        for method, path, body in (
                ('PUT', '/v2.0/ports/%s/tags' % self.port['id'],
                 {'tags': tags}),
                ('PUT', '/v2.0/ports/%s' % self.port['id'],
                 {'port': {'tags': tags}})):
            response = self.request(method, path, body)
            self.assertError(response, 400,
                             fragment='It has 8000 items; at most 50')

    def test_a_binding_profile_with_too_many_keys_is_400(self):
        response = self.put('/v2.0/ports/%s' % self.port['id'], {'port': {
            'binding:profile': {'k%d' % i: 1 for i in range(101)}}})
        self.assertError(response, 400, fragment='at most 100')

    def test_unknown_ids_in_paths_are_404(self):
        for path in ('/v2.0/networks/x', '/v2.0/ports/x',
                     '/v2.0/qos/policies/x',
                     '/v2.0/qos/policies/%s/minimum_bandwidth_rules/x' %
                     self.policy['id'], '/v2.0/agents/x',
                     '/v2.0/ports/x/bindings'):
            response = self.get(path)
            self.assertError(response, 404)

    def test_an_unknown_path_is_404(self):
        self.assertError(self.get('/v2.0/routers'), 404)

    def test_a_wrong_method_is_405_with_allow(self):
        response = self.request('PATCH', '/v2.0/ports/%s' % self.port['id'])
        self.assertError(response, 405)
        self.assertEqual('DELETE, GET, PUT', response.headers['Allow'])

    def test_an_empty_update_is_fine(self):
        response = self.put('/v2.0/ports/%s' % self.port['id'],
                            {'port': {}})
        self.assertStatus(200, response)

    def test_a_body_on_a_get_is_ignored(self):
        response = self.request('GET', '/v2.0/ports', raw_body=b'garbage')
        self.assertStatus(200, response)

    def test_json_nested_too_deeply_is_400(self):
        response = self.request('POST', '/v2.0/ports',
                                raw_body=b'{"port": ' + b'[' * 100000)
        self.assertError(response, 400, fragment='nested too deeply')

    def test_a_url_that_is_not_utf8_is_400(self):
        for path in ('/v2.0/ports/%ff', '/v2.0/ports?name=%ff'):
            self.assertError(self.get(path), 400, fragment='UTF-8')
            self.assertError(self.get(path, token=None), 400,
                             fragment='UTF-8')
