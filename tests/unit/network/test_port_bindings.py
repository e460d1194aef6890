"""/v2.0/ports/{id}/bindings: several bindings per port, one ACTIVE."""

from tests.unit.network import base

MISSING = '0f9a8d47-3c1e-4f44-8d1b-5a2e7c9b6d10'


class TestPortBindings(base.NetworkTestCase):

    def setUp(self):
        super().setUp()
        for host in ('host1', 'host2', 'host3'):
            self.report_agent(host, bridge_mappings={'physnet0': 'br-ex'})
        self.network = self.physnet_network('physnet0')
        self.port = self.make_port(self.network['id'])
        self.path = '/v2.0/ports/%s/bindings' % self.port['id']

    def bound_to(self, host):
        self.update_port(self.port['id'], **{'binding:host_id': host})

    def create(self, host, **attributes):
        attributes['host'] = host
        return self.post(self.path, {'binding': attributes})

    def bindings(self):
        response = self.get(self.path)
        self.assertStatus(200, response)
        return {b['host']: b for b in response.json['bindings']}

    def test_an_unbound_port_lists_its_unbound_active_binding(self):
        self.assertEqual({'': {'host': '', 'vif_type': 'unbound',
                               'vnic_type': 'normal', 'profile': {},
                               'vif_details': {}, 'status': 'ACTIVE'}},
                         self.bindings())

    def test_binding_an_unbound_port_makes_the_binding_active(self):
        response = self.create('host1')
        self.assertStatus(201, response)
        self.assertEqual(('ACTIVE', 'ovs'),
                         (response.json['binding']['status'],
                          response.json['binding']['vif_type']))
        self.assertEqual(['host1'], list(self.bindings()))
        self.assertEqual('host1', self.show_port(self.port['id'])[
            'binding:host_id'])

    def test_a_binding_for_another_host_is_inactive(self):
        self.bound_to('host1')
        response = self.create('host2', profile={'migrating_to': 'host2'})
        self.assertStatus(201, response)
        binding = response.json['binding']
        self.assertEqual(('host2', 'INACTIVE', 'ovs'),
                         (binding['host'], binding['status'],
                          binding['vif_type']))
        self.assertEqual({'migrating_to': 'host2'}, binding['profile'])
        port = self.show_port(self.port['id'])
        self.assertEqual('host1', port['binding:host_id'])

    def test_an_inactive_binding_can_fail(self):
        self.bound_to('host1')
        binding = self.create('nowhere').json['binding']
        self.assertEqual('binding_failed', binding['vif_type'])

    def test_a_second_binding_for_a_host_is_a_conflict(self):
        self.bound_to('host1')
        self.create('host2')
        self.assertError(self.create('host2'), 409,
                         'PortBindingAlreadyExists', 'host2')

    def test_a_binding_for_the_active_host_is_a_conflict(self):
        self.bound_to('host1')
        self.assertError(self.create('host1'), 409,
                         'PortBindingAlreadyExists')

    def test_show_a_binding(self):
        self.bound_to('host1')
        self.create('host2')
        response = self.get(self.path + '/host2')
        self.assertStatus(200, response)
        self.assertEqual('INACTIVE', response.json['binding']['status'])

    def test_show_a_binding_that_does_not_exist(self):
        response = self.get(self.path + '/host9')
        self.assertError(response, 404, 'PortBindingNotFound', 'host9')

    def test_filter_bindings_by_status(self):
        self.bound_to('host1')
        self.create('host2')
        listed = self.get(self.path + '?status=INACTIVE').json['bindings']
        self.assertEqual(['host2'], [b['host'] for b in listed])

    def test_activate_swaps_the_active_binding(self):
        self.bound_to('host1')
        self.create('host2', profile={'k': 'v'})
        response = self.put(self.path + '/host2/activate')
        self.assertStatus(200, response)
        self.assertEqual('ACTIVE', response.json['binding']['status'])
        statuses = {host: b['status'] for host, b in self.bindings().items()}
        self.assertEqual({'host1': 'INACTIVE', 'host2': 'ACTIVE'}, statuses)

    def test_the_ports_binding_attributes_follow_the_activation(self):
        self.bound_to('host1')
        self.create('host2', profile={'k': 'v'})
        self.put(self.path + '/host2/activate')
        port = self.show_port(self.port['id'])
        self.assertEqual(('host2', {'k': 'v'}, 'ACTIVE'),
                         (port['binding:host_id'], port['binding:profile'],
                          port['status']))

    def test_activating_the_active_binding_is_a_conflict(self):
        self.bound_to('host1')
        response = self.put(self.path + '/host1/activate')
        self.assertError(response, 409, 'PortBindingAlreadyActive')

    def test_activating_a_missing_binding_is_404(self):
        self.bound_to('host1')
        response = self.put(self.path + '/host9/activate')
        self.assertError(response, 404, 'PortBindingNotFound')

    def test_activating_a_failed_binding_is_a_conflict(self):
        self.bound_to('host1')
        self.create('nowhere')
        response = self.put(self.path + '/nowhere/activate')
        self.assertError(response, 409, 'PortBindingError', 'nowhere')
        self.assertEqual('host1', self.show_port(self.port['id'])[
            'binding:host_id'])

    def test_one_active_binding_after_several_activations(self):
        self.bound_to('host1')
        self.create('host2')
        self.create('host3')
        for host in ('host2', 'host3', 'host1', 'host2'):
            self.assertStatus(200, self.put(self.path +
                                            '/%s/activate' % host))
            active = [h for h, b in self.bindings().items()
                      if b['status'] == 'ACTIVE']
            self.assertEqual([host], active)

    def test_delete_an_inactive_binding(self):
        self.bound_to('host1')
        self.create('host2')
        self.assertStatus(204, self.delete(self.path + '/host2'))
        self.assertEqual(['host1'], list(self.bindings()))

    def test_deleting_the_active_binding_is_a_conflict(self):
        self.bound_to('host1')
        self.create('host2')
        response = self.delete(self.path + '/host1')
        self.assertError(response, 409, 'ActivePortBindingDelete', 'host1')

    def test_deleting_a_missing_binding_is_404(self):
        response = self.delete(self.path + '/host9')
        self.assertError(response, 404, 'PortBindingNotFound')

    def test_the_source_binding_goes_after_a_move(self):
        self.bound_to('host1')
        self.create('host2')
        self.put(self.path + '/host2/activate')
        self.assertStatus(204, self.delete(self.path + '/host1'))
        self.assertEqual({'host2': 'ACTIVE'}, {
            h: b['status'] for h, b in self.bindings().items()})

    def test_changing_the_host_to_one_with_an_inactive_binding(self):
        self.bound_to('host1')
        self.create('host2')
        response = self.put('/v2.0/ports/%s' % self.port['id'], {
            'port': {'binding:host_id': 'host2'}})
        self.assertError(response, 409, fragment='activate it')

    def test_bindings_of_an_unknown_port_are_404(self):
        response = self.get('/v2.0/ports/%s/bindings' % MISSING)
        self.assertError(response, 404, 'PortNotFound')
        response = self.post('/v2.0/ports/%s/bindings' % MISSING,
                             {'binding': {'host': 'host1'}})
        self.assertError(response, 404, 'PortNotFound')

    def test_a_binding_needs_a_host(self):
        response = self.post(self.path, {'binding': {'profile': {}}})
        self.assertError(response, 400, fragment='host')

    def test_members_cannot_use_the_bindings_api(self):
        for method, path, body in (
                ('GET', self.path, None),
                ('POST', self.path, {'binding': {'host': 'host1'}}),
                ('PUT', self.path + '/host1/activate', None),
                ('DELETE', self.path + '/host1', None)):
            response = self.request(method, path, body, token=base.DEMO)
            self.assertError(response, 403, 'PolicyNotAuthorized')
