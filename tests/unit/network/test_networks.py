"""/v2.0/networks: create, list, show, update, delete; provider attributes
and who may see them."""

from tests.unit.network import base

ADMIN, DEMO, OTHER = base.ADMIN, base.DEMO, base.OTHER


class TestCreate(base.NetworkTestCase):

    def test_a_network_without_provider_attributes_is_vxlan(self):
        network = self.make_network(name='private')
        self.assertEqual('vxlan', network['provider:network_type'])
        self.assertIsNone(network['provider:physical_network'])
        self.assertEqual(1, network['provider:segmentation_id'])

    def test_a_new_network_has_the_standard_attributes(self):
        network = self.make_network(name='n', description='d')
        for name, value in (('status', 'ACTIVE'), ('admin_state_up', True),
                            ('shared', False), ('mtu', 1500),
                            ('subnets', []), ('tags', []),
                            ('revision_number', 0), ('project_id', ADMIN),
                            ('tenant_id', ADMIN), ('description', 'd'),
                            ('qos_policy_id', None)):
            self.assertEqual(value, network[name], name)
        self.assertTrue(network['created_at'].endswith('Z'))

    def test_the_mtu_default_is_configurable(self):
        self.conf.config(default_mtu=9000, group='network')
        self.assertEqual(9000, self.make_network()['mtu'])

    def test_vxlan_networks_get_the_lowest_free_vni(self):
        first = self.make_network()
        self.make_network()
        self.delete('/v2.0/networks/%s' % first['id'])
        self.assertEqual(1, self.make_network()['provider:segmentation_id'])

    def test_a_vlan_network_without_segmentation_id_gets_a_free_one(self):
        self.physnet_network(network_type='vlan',
                             **{'provider:segmentation_id': 1})
        network = self.physnet_network(network_type='vlan')
        self.assertEqual(2, network['provider:segmentation_id'])

    def test_a_flat_network_needs_a_physical_network(self):
        response = self.post('/v2.0/networks', {'network': {
            'provider:network_type': 'flat'}})
        self.assertError(response, 400, 'InvalidInput',
                         'provider:physical_network is required')

    def test_a_physical_network_needs_a_network_type(self):
        response = self.post('/v2.0/networks', {'network': {
            'provider:physical_network': 'physnet0'}})
        self.assertError(response, 400, 'InvalidInput',
                         'provider:network_type is required')

    def test_a_vxlan_network_has_no_physical_network(self):
        response = self.post('/v2.0/networks', {'network': {
            'provider:network_type': 'vxlan',
            'provider:physical_network': 'physnet0'}})
        self.assertError(response, 400, 'InvalidInput')

    def test_a_vlan_id_out_of_range_is_refused(self):
        response = self.post('/v2.0/networks', {'network': {
            'provider:network_type': 'vlan',
            'provider:physical_network': 'physnet0',
            'provider:segmentation_id': 4095}})
        self.assertError(response, 400, 'InvalidInput', '1-4094')

    def test_an_unknown_network_type_is_refused(self):
        response = self.post('/v2.0/networks', {'network': {
            'provider:network_type': 'gre'}})
        self.assertError(response, 400)

    def test_a_used_vlan_is_a_conflict(self):
        self.physnet_network(network_type='vlan',
                             **{'provider:segmentation_id': 7})
        response = self.post('/v2.0/networks', {'network': {
            'provider:network_type': 'vlan',
            'provider:physical_network': 'physnet0',
            'provider:segmentation_id': 7}})
        self.assertError(response, 409, 'SegmentInUse', 'vlan')

    def test_the_same_vlan_on_another_physical_network_is_fine(self):
        self.physnet_network(network_type='vlan',
                             **{'provider:segmentation_id': 7})
        network = self.physnet_network(
            physnet='physnet1', network_type='vlan',
            **{'provider:segmentation_id': 7})
        self.assertEqual(7, network['provider:segmentation_id'])

    def test_one_flat_network_per_physical_network(self):
        self.physnet_network()
        response = self.post('/v2.0/networks', {'network': {
            'provider:network_type': 'flat',
            'provider:physical_network': 'physnet0'}})
        self.assertError(response, 409, 'SegmentInUse', 'physnet0')

    def test_only_admins_set_provider_attributes(self):
        response = self.post('/v2.0/networks', {'network': {
            'provider:network_type': 'flat',
            'provider:physical_network': 'physnet0'}}, token=DEMO)
        self.assertError(response, 403, 'PolicyNotAuthorized')

    def test_only_admins_create_shared_networks(self):
        response = self.post('/v2.0/networks', {'network': {
            'shared': True}}, token=DEMO)
        self.assertError(response, 403)

    def test_shared_false_needs_no_permission(self):
        network = self.make_network(token=DEMO, shared=False)
        self.assertFalse(network['shared'])

    def test_an_admin_creates_a_network_for_another_project(self):
        network = self.make_network(project_id=DEMO)
        self.assertEqual(DEMO, network['project_id'])

    def test_a_member_cannot_create_for_another_project(self):
        response = self.post('/v2.0/networks', {'network': {
            'tenant_id': OTHER}}, token=DEMO)
        self.assertError(response, 400, fragment='requires admin')

    def test_an_unknown_attribute_is_refused(self):
        response = self.post('/v2.0/networks', {'network': {
            'router:external': True}})
        self.assertError(response, 400, 'InvalidInput', 'router:external')

    def test_a_qos_policy_that_does_not_exist_is_404(self):
        response = self.post('/v2.0/networks', {'network': {
            'qos_policy_id': '8a4a2f43-7f2b-4a4b-9a4a-0d1c3f1b8a11'}})
        self.assertError(response, 404, 'QosPolicyNotFound')


class TestVisibility(base.NetworkTestCase):

    def test_members_do_not_see_provider_attributes(self):
        network = self.make_network(project_id=DEMO)
        shown = self.get('/v2.0/networks/%s' % network['id'],
                         token=DEMO).json['network']
        self.assertNotIn('provider:network_type', shown)
        self.assertNotIn('provider:segmentation_id', shown)

    def test_members_list_their_own_and_shared_networks(self):
        own = self.make_network(token=DEMO, name='own')
        shared = self.make_network(shared=True, name='shared')
        self.make_network(project_id=OTHER, name='theirs')
        listed = self.get('/v2.0/networks', token=DEMO).json['networks']
        self.assertEqual(sorted([own['id'], shared['id']]),
                         sorted(n['id'] for n in listed))

    def test_admins_list_every_network(self):
        self.make_network(token=DEMO)
        self.make_network(project_id=OTHER)
        self.assertEqual(2, len(self.get('/v2.0/networks').json[
            'networks']))

    def test_another_projects_network_is_not_found(self):
        network = self.make_network(project_id=OTHER)
        response = self.get('/v2.0/networks/%s' % network['id'],
                            token=DEMO)
        self.assertError(response, 404, 'NetworkNotFound', network['id'])

    def test_members_cannot_filter_on_provider_attributes(self):
        response = self.get('/v2.0/networks?provider:network_type=vlan',
                            token=DEMO)
        self.assertError(response, 403)


class TestList(base.NetworkTestCase):

    def test_filter_by_name(self):
        self.make_network(name='a')
        wanted = self.make_network(name='b')
        listed = self.get('/v2.0/networks?name=b').json['networks']
        self.assertEqual([wanted['id']], [n['id'] for n in listed])

    def test_a_repeated_filter_matches_any_value(self):
        a = self.make_network(name='a')
        b = self.make_network(name='b')
        self.make_network(name='c')
        listed = self.get('/v2.0/networks?id=%s&id=%s' % (
            a['id'], b['id'])).json['networks']
        self.assertEqual(sorted([a['id'], b['id']]),
                         sorted(n['id'] for n in listed))

    def test_filter_by_a_boolean(self):
        shared = self.make_network(shared=True)
        self.make_network()
        listed = self.get('/v2.0/networks?shared=True').json['networks']
        self.assertEqual([shared['id']], [n['id'] for n in listed])

    def test_filter_by_provider_attributes(self):
        flat = self.physnet_network()
        self.make_network()
        listed = self.get('/v2.0/networks?provider:physical_network='
                          'physnet0').json['networks']
        self.assertEqual([flat['id']], [n['id'] for n in listed])

    def test_fields_limit_the_attributes_shown(self):
        self.make_network(name='a')
        listed = self.get('/v2.0/networks?fields=id&fields=name').json[
            'networks']
        self.assertEqual([{'id', 'name'}], [set(n) for n in listed])

    def test_limit_and_marker_page_through_by_id(self):
        ids = sorted(self.make_network()['id'] for _ in range(3))
        page = self.get('/v2.0/networks?limit=2').json
        self.assertEqual(ids[:2], [n['id'] for n in page['networks']])
        self.assertEqual('next', page['networks_links'][0]['rel'])
        rest = self.get('/v2.0/networks?limit=2&marker=%s' % ids[1]).json
        self.assertEqual(ids[2:], [n['id'] for n in rest['networks']])
        self.assertNotIn('networks_links', rest)

    def test_an_unknown_filter_is_refused(self):
        response = self.get('/v2.0/networks?colour=blue')
        self.assertError(response, 400, fragment='colour')

    def test_a_malformed_boolean_filter_is_refused(self):
        response = self.get('/v2.0/networks?shared=maybe')
        self.assertError(response, 400, fragment='maybe')


class TestUpdateAndDelete(base.NetworkTestCase):

    def test_rename(self):
        network = self.make_network()
        response = self.put('/v2.0/networks/%s' % network['id'],
                            {'network': {'name': 'renamed'}})
        self.assertStatus(200, response)
        self.assertEqual('renamed', response.json['network']['name'])
        self.assertEqual(1, response.json['network']['revision_number'])

    def test_provider_attributes_cannot_change(self):
        network = self.make_network()
        response = self.put('/v2.0/networks/%s' % network['id'], {
            'network': {'provider:segmentation_id': 9}})
        self.assertError(response, 400)

    def test_members_cannot_share_their_network(self):
        network = self.make_network(token=DEMO)
        response = self.put('/v2.0/networks/%s' % network['id'],
                            {'network': {'shared': True}}, token=DEMO)
        self.assertError(response, 403)

    def test_members_cannot_update_a_shared_network_they_do_not_own(self):
        network = self.make_network(shared=True)
        response = self.put('/v2.0/networks/%s' % network['id'],
                            {'network': {'name': 'mine'}}, token=DEMO)
        self.assertError(response, 403)

    def test_delete(self):
        network = self.make_network()
        self.assertStatus(204, self.delete('/v2.0/networks/%s' %
                                           network['id']))
        self.assertError(self.get('/v2.0/networks/%s' % network['id']),
                         404, 'NetworkNotFound')

    def test_a_network_with_ports_is_in_use(self):
        network = self.make_network()
        port = self.make_port(network['id'])
        response = self.delete('/v2.0/networks/%s' % network['id'])
        self.assertError(response, 409, 'NetworkInUse', port['id'])

    def test_deleting_an_unknown_network_is_404(self):
        response = self.delete('/v2.0/networks/nope')
        self.assertError(response, 404, 'NetworkNotFound', 'nope')
