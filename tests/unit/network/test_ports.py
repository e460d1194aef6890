"""/v2.0/ports: create, list, show, update, delete, and which binding
attributes a project member may see and set."""

import re

from tests.unit.network import base

ADMIN, DEMO, OTHER = base.ADMIN, base.DEMO, base.OTHER
MISSING = '0f9a8d47-3c1e-4f44-8d1b-5a2e7c9b6d10'
ADMIN_ONLY = ('binding:host_id', 'binding:vif_type', 'binding:profile',
              'binding:vif_details', 'resource_request')


class TestCreate(base.NetworkTestCase):

    def setUp(self):
        super().setUp()
        self.network = self.make_network()

    def test_a_new_port_is_down_and_unbound(self):
        port = self.make_port(self.network['id'], name='p')
        for name, value in (('status', 'DOWN'), ('admin_state_up', True),
                            ('binding:host_id', ''),
                            ('binding:vif_type', 'unbound'),
                            ('binding:vnic_type', 'normal'),
                            ('binding:profile', {}),
                            ('binding:vif_details', {}),
                            ('resource_request', None), ('fixed_ips', []),
                            ('device_id', ''), ('device_owner', ''),
                            ('network_id', self.network['id']),
                            ('project_id', ADMIN), ('tenant_id', ADMIN),
                            ('revision_number', 0), ('name', 'p')):
            self.assertEqual(value, port[name], name)

    def test_a_new_port_gets_a_generated_mac_address(self):
        port = self.make_port(self.network['id'])
        self.assertTrue(re.match('^fa:16:3e(:[0-9a-f]{2}){3}$',
                                 port['mac_address']), port['mac_address'])

    def test_an_admin_chooses_the_mac_address(self):
        port = self.make_port(self.network['id'],
                              mac_address='FA:16:3E:00:00:01')
        self.assertEqual('fa:16:3e:00:00:01', port['mac_address'])

    def test_a_mac_address_in_use_on_the_network_is_a_conflict(self):
        self.make_port(self.network['id'], mac_address='fa:16:3e:00:00:01')
        response = self.post('/v2.0/ports', {'port': {
            'network_id': self.network['id'],
            'mac_address': 'fa:16:3e:00:00:01'}})
        self.assertError(response, 409, 'MacAddressInUse')

    def test_device_id_and_owner_are_kept(self):
        port = self.make_port(self.network['id'], device_id='vm-1',
                              device_owner='compute:nova')
        self.assertEqual(('vm-1', 'compute:nova'),
                         (port['device_id'], port['device_owner']))

    def test_a_port_on_an_unknown_network_is_404(self):
        response = self.post('/v2.0/ports', {'port': {
            'network_id': MISSING}})
        self.assertError(response, 404, 'NetworkNotFound', MISSING)

    def test_a_network_id_is_required(self):
        response = self.post('/v2.0/ports', {'port': {'name': 'p'}})
        self.assertError(response, 400, fragment='network_id')

    def test_fixed_ips_are_refused(self):
        response = self.post('/v2.0/ports', {'port': {
            'network_id': self.network['id'],
            'fixed_ips': [{'ip_address': '10.0.0.3'}]}})
        self.assertError(response, 400, fragment='fixed_ips')

    def test_a_bad_vnic_type_is_refused(self):
        response = self.post('/v2.0/ports', {'port': {
            'network_id': self.network['id'],
            'binding:vnic_type': 'warp'}})
        self.assertError(response, 400, fragment='binding:vnic_type')

    def test_members_create_ports_on_their_networks(self):
        network = self.make_network(token=DEMO)
        port = self.make_port(network['id'], token=DEMO)
        self.assertEqual(DEMO, port['project_id'])

    def test_members_create_ports_on_shared_networks(self):
        network = self.make_network(shared=True)
        port = self.make_port(network['id'], token=DEMO)
        self.assertEqual(DEMO, port['project_id'])

    def test_another_projects_private_network_is_not_found(self):
        response = self.post('/v2.0/ports', {'port': {
            'network_id': self.network['id']}}, token=DEMO)
        self.assertError(response, 404, 'NetworkNotFound')

    def test_members_cannot_bind_a_new_port(self):
        network = self.make_network(token=DEMO)
        response = self.post('/v2.0/ports', {'port': {
            'network_id': network['id'], 'binding:host_id': 'host1'}},
            token=DEMO)
        self.assertError(response, 403, 'PolicyNotAuthorized')

    def test_members_cannot_set_a_binding_profile(self):
        network = self.make_network(token=DEMO)
        response = self.post('/v2.0/ports', {'port': {
            'network_id': network['id'],
            'binding:profile': {'allocation': MISSING}}}, token=DEMO)
        self.assertError(response, 403)

    def test_members_may_choose_the_vnic_type(self):
        network = self.make_network(token=DEMO)
        port = self.make_port(network['id'], token=DEMO,
                              **{'binding:vnic_type': 'direct'})
        self.assertEqual('direct', port['binding:vnic_type'])


class TestVisibility(base.NetworkTestCase):

    def setUp(self):
        super().setUp()
        self.network = self.make_network(shared=True)

    def test_members_do_not_see_binding_attributes(self):
        port = self.make_port(self.network['id'], token=DEMO)
        for name in ADMIN_ONLY:
            self.assertNotIn(name, port)
        self.assertEqual('normal', port['binding:vnic_type'])

    def test_admins_see_binding_attributes_of_any_port(self):
        port = self.make_port(self.network['id'], token=DEMO)
        shown = self.show_port(port['id'])
        for name in ADMIN_ONLY:
            self.assertIn(name, shown)

    def test_members_see_only_their_own_ports(self):
        mine = self.make_port(self.network['id'], token=DEMO)
        self.make_port(self.network['id'], token=OTHER)
        listed = self.get('/v2.0/ports', token=DEMO).json['ports']
        self.assertEqual([mine['id']], [p['id'] for p in listed])

    def test_another_projects_port_is_not_found(self):
        port = self.make_port(self.network['id'], token=OTHER)
        response = self.get('/v2.0/ports/%s' % port['id'], token=DEMO)
        self.assertError(response, 404, 'PortNotFound', port['id'])

    def test_network_owners_see_the_ports_on_their_network(self):
        network = self.make_network(token=DEMO)
        port = self.make_port(network['id'], project_id=OTHER)
        self.assertEqual(port['id'],
                         self.show_port(port['id'], token=DEMO)['id'])

    def test_network_owners_delete_but_do_not_change_others_ports(self):
        network = self.make_network(project_id=DEMO, shared=True)
        port = self.make_port(network['id'], token=OTHER)
        for path, body in (('/v2.0/ports/%s', {'port': {'name': 'x'}}),
                           ('/v2.0/ports/%s/tags', {'tags': ['x']})):
            response = self.put(path % port['id'], body, token=DEMO)
            self.assertError(response, 403)
        self.assertStatus(204, self.delete('/v2.0/ports/%s' % port['id'],
                                           token=DEMO))

    def test_members_cannot_filter_on_the_binding_host(self):
        response = self.get('/v2.0/ports?binding:host_id=host1', token=DEMO)
        self.assertError(response, 403)


class TestList(base.NetworkTestCase):

    def setUp(self):
        super().setUp()
        self.network = self.make_network()

    def test_filter_by_device_id(self):
        wanted = self.make_port(self.network['id'], device_id='vm-1')
        self.make_port(self.network['id'], device_id='vm-2')
        listed = self.get('/v2.0/ports?device_id=vm-1').json['ports']
        self.assertEqual([wanted['id']], [p['id'] for p in listed])

    def test_filter_by_device_owner_and_network(self):
        other = self.make_network()
        wanted = self.make_port(self.network['id'],
                                device_owner='compute:nova')
        self.make_port(other['id'], device_owner='compute:nova')
        self.make_port(self.network['id'])
        listed = self.get('/v2.0/ports?device_owner=compute:nova&'
                          'network_id=%s' % self.network['id']).json['ports']
        self.assertEqual([wanted['id']], [p['id'] for p in listed])

    def test_repeated_ids_match_any(self):
        a = self.make_port(self.network['id'])
        b = self.make_port(self.network['id'])
        self.make_port(self.network['id'])
        listed = self.get('/v2.0/ports?id=%s&id=%s' % (a['id'], b['id']))
        self.assertEqual(sorted([a['id'], b['id']]),
                         sorted(p['id'] for p in listed.json['ports']))

    def test_filter_by_binding_host(self):
        self.report_agent('host1')
        network = self.make_network()
        bound = self.make_port(network['id'])
        self.update_port(bound['id'], **{'binding:host_id': 'host1'})
        self.make_port(network['id'])
        listed = self.get('/v2.0/ports?binding:host_id=host1').json['ports']
        self.assertEqual([bound['id']], [p['id'] for p in listed])

    def test_filter_by_status(self):
        self.make_port(self.network['id'])
        self.assertEqual([], self.get('/v2.0/ports?status=ACTIVE').json[
            'ports'])
        self.assertEqual(1, len(self.get('/v2.0/ports?status=DOWN').json[
            'ports']))

    def test_fields(self):
        self.make_port(self.network['id'])
        listed = self.get('/v2.0/ports?fields=id&fields=binding:host_id')
        self.assertEqual([{'id', 'binding:host_id'}],
                         [set(p) for p in listed.json['ports']])

    def test_pagination(self):
        ids = sorted(self.make_port(self.network['id'])['id']
                     for _ in range(3))
        first = self.get('/v2.0/ports?limit=1').json
        self.assertEqual(ids[:1], [p['id'] for p in first['ports']])
        self.assertIn('marker=%s' % ids[0],
                      first['ports_links'][0]['href'])

    def test_an_unknown_filter_is_refused(self):
        response = self.get('/v2.0/ports?ip_address=10.0.0.1')
        self.assertError(response, 400, fragment='ip_address')

    def test_a_bad_limit_is_refused(self):
        response = self.get('/v2.0/ports?limit=many')
        self.assertError(response, 400, fragment='many')

    def test_a_bad_marker_is_refused(self):
        response = self.get('/v2.0/ports?marker=nope')
        self.assertError(response, 400, fragment='nope')


class TestShowUpdateDelete(base.NetworkTestCase):

    def setUp(self):
        super().setUp()
        self.network = self.make_network()
        self.port = self.make_port(self.network['id'])

    def test_an_unknown_port_is_404_with_its_id(self):
        response = self.get('/v2.0/ports/%s' % MISSING)
        self.assertError(response, 404, 'PortNotFound',
                         'Port %s could not be found' % MISSING)

    def test_a_malformed_port_id_is_404(self):
        response = self.get('/v2.0/ports/not-a-uuid')
        self.assertError(response, 404, 'PortNotFound', 'not-a-uuid')

    def test_show_with_fields(self):
        response = self.get('/v2.0/ports/%s?fields=status' %
                            self.port['id'])
        self.assertEqual({'port': {'status': 'DOWN'}}, response.json)

    def test_update_device_and_name(self):
        port = self.update_port(self.port['id'], name='eth0',
                                device_id='vm-1',
                                device_owner='compute:nova')
        self.assertEqual(('eth0', 'vm-1', 'compute:nova'),
                         (port['name'], port['device_id'],
                          port['device_owner']))
        self.assertEqual(1, port['revision_number'])

    def test_members_cannot_bind_their_port(self):
        network = self.make_network(token=DEMO)
        port = self.make_port(network['id'], token=DEMO)
        response = self.put('/v2.0/ports/%s' % port['id'], {'port': {
            'binding:host_id': 'host1'}}, token=DEMO)
        self.assertError(response, 403, 'PolicyNotAuthorized')

    def test_members_update_their_port(self):
        network = self.make_network(token=DEMO)
        port = self.make_port(network['id'], token=DEMO)
        updated = self.update_port(port['id'], token=DEMO, name='mine')
        self.assertEqual('mine', updated['name'])
        self.assertNotIn('binding:host_id', updated)

    def test_members_cannot_update_others_ports(self):
        response = self.put('/v2.0/ports/%s' % self.port['id'],
                            {'port': {'name': 'x'}}, token=DEMO)
        self.assertError(response, 404, 'PortNotFound')

    def test_the_network_cannot_change(self):
        other = self.make_network()
        response = self.put('/v2.0/ports/%s' % self.port['id'], {'port': {
            'network_id': other['id']}})
        self.assertError(response, 400, fragment='network_id')

    def test_updating_an_unknown_port_is_404(self):
        response = self.put('/v2.0/ports/%s' % MISSING,
                            {'port': {'name': 'x'}})
        self.assertError(response, 404, 'PortNotFound')

    def test_delete(self):
        self.assertStatus(204, self.delete('/v2.0/ports/%s' %
                                           self.port['id']))
        self.assertError(self.get('/v2.0/ports/%s' % self.port['id']), 404,
                         'PortNotFound')

    def test_delete_removes_every_binding(self):
        self.report_agent('host1')
        self.update_port(self.port['id'], **{'binding:host_id': 'host1'})
        self.post('/v2.0/ports/%s/bindings' % self.port['id'],
                  {'binding': {'host': 'host2'}})
        self.assertStatus(204, self.delete('/v2.0/ports/%s' %
                                           self.port['id']))
        self.assertStatus(204, self.delete('/v2.0/networks/%s' %
                                           self.network['id']))

    def test_deleting_an_unknown_port_is_404(self):
        response = self.delete('/v2.0/ports/%s' % MISSING)
        self.assertError(response, 404, 'PortNotFound')
