"""/resource_providers: create, list filters, show, update, delete."""

from oslo_utils import uuidutils

from tests.unit.placement import base


class TestCreateAndShow(base.PlacementTestCase):

    def test_create_returns_provider_with_generation_zero(self):
        uuid = uuidutils.generate_uuid()
        response = self.post('/resource_providers',
                             {'name': 'cn1', 'uuid': uuid})
        self.assertStatus(200, response)
        self.assertTrue(response.headers['Location'].endswith(
            '/resource_providers/%s' % uuid))
        body = response.json
        self.assertEqual((uuid, 'cn1', 0, None, uuid),
                         (body['uuid'], body['name'], body['generation'],
                          body['parent_provider_uuid'],
                          body['root_provider_uuid']))
        rels = {link['rel'] for link in body['links']}
        self.assertEqual({'self', 'inventories', 'usages', 'aggregates',
                          'traits', 'allocations'}, rels)

    def test_create_before_1_20_is_201_without_body(self):
        response = self.post('/resource_providers', {'name': 'cn1'},
                             version='1.19')
        self.assertStatus(201, response)
        self.assertEqual(b'', response.body)

    def test_create_generates_a_uuid_when_none_is_given(self):
        body = self.post('/resource_providers', {'name': 'cn1'}).json
        self.assertTrue(uuidutils.is_uuid_like(body['uuid']))

    def test_duplicate_name_is_409_duplicate_name(self):
        self.make_provider('cn1')
        response = self.post('/resource_providers', {'name': 'cn1'})
        self.assertError(response, 409, 'placement.duplicate_name')

    def test_duplicate_uuid_is_409(self):
        uuid = self.make_provider('cn1')['uuid']
        response = self.post('/resource_providers',
                             {'name': 'cn2', 'uuid': uuid})
        self.assertError(response, 409, fragment=uuid)

    def test_missing_name_is_400(self):
        self.assertError(self.post('/resource_providers', {}), 400)

    def test_name_longer_than_200_is_400(self):
        self.assertError(self.post('/resource_providers',
                                   {'name': 'x' * 201}), 400)

    def test_malformed_uuid_in_body_is_400(self):
        self.assertError(self.post('/resource_providers',
                                   {'name': 'a', 'uuid': 'nope'}), 400)

    def test_unknown_field_is_400(self):
        self.assertError(self.post('/resource_providers',
                                   {'name': 'a', 'colour': 'red'}), 400)

    def test_parent_before_1_14_is_400(self):
        parent = self.make_provider('root')['uuid']
        response = self.post('/resource_providers',
                             {'name': 'child',
                              'parent_provider_uuid': parent},
                             version='1.13')
        self.assertError(response, 400)

    def test_child_has_parent_and_root(self):
        root = self.make_provider('root')['uuid']
        child = self.make_provider('child', parent=root)
        grandchild = self.make_provider('grandchild', parent=child['uuid'])
        self.assertEqual(root, child['parent_provider_uuid'])
        self.assertEqual(root, grandchild['root_provider_uuid'])
        self.assertEqual(child['uuid'], grandchild['parent_provider_uuid'])

    def test_unknown_parent_is_400(self):
        response = self.post('/resource_providers', {
            'name': 'child',
            'parent_provider_uuid': uuidutils.generate_uuid()})
        self.assertError(response, 400, fragment='parent provider')

    def test_show_unknown_is_404_not_found_code(self):
        response = self.get('/resource_providers/%s' %
                            uuidutils.generate_uuid())
        self.assertError(response, 404,
                         'placement.resource_provider.not_found')

    def test_show_malformed_uuid_is_404(self):
        self.assertError(self.get('/resource_providers/not-a-uuid'), 404)

    def test_show_before_1_14_has_no_tree_fields(self):
        uuid = self.make_provider('cn1')['uuid']
        body = self.get('/resource_providers/%s' % uuid,
                        version='1.13').json
        self.assertNotIn('root_provider_uuid', body)


class TestList(base.PlacementTestCase):

    def setUp(self):
        super().setUp()
        self.big = self.compute_node('big', vcpus=16, memory_mb=32768)
        self.small = self.compute_node('small', vcpus=2, memory_mb=1024)

    def names(self, query, version=base.LATEST):
        response = self.get('/resource_providers' + query, version=version)
        self.assertStatus(200, response)
        return sorted(rp['name'] for rp in
                      response.json['resource_providers'])

    def test_list_all(self):
        self.assertEqual(['big', 'small'], self.names(''))

    def test_filter_by_name_and_uuid(self):
        self.assertEqual(['small'], self.names('?name=small'))
        self.assertEqual(['big'], self.names('?uuid=%s' % self.big))

    def test_filter_by_resources_counts_usage(self):
        self.assertEqual(['big', 'small'], self.names('?resources=VCPU:2'))
        self.assertEqual(['big'],
                         self.names('?resources=VCPU:2,MEMORY_MB:2048'))
        self.assertStatus(204, self.allocate(uuidutils.generate_uuid(),
                                             {self.small: {'VCPU': 1}}))
        self.assertEqual(['big'], self.names('?resources=VCPU:2'))

    def test_resources_with_unknown_class_is_400(self):
        response = self.get('/resource_providers?resources=FOO:1')
        self.assertError(response, 400)

    def test_resources_badly_formed_is_400_bad_value(self):
        response = self.get('/resource_providers?resources=VCPU')
        self.assertError(response, 400, 'placement.query.bad_value')

    def test_resources_zero_amount_is_400(self):
        self.assertError(self.get('/resource_providers?resources=VCPU:0'),
                         400)

    def test_member_of_any_of_several(self):
        agg1, agg2 = uuidutils.generate_uuid(), uuidutils.generate_uuid()
        self.put('/resource_providers/%s/aggregates' % self.big,
                 {'aggregates': [agg1], 'resource_provider_generation': 1})
        self.assertEqual(['big'], self.names('?member_of=%s' % agg1))
        self.assertEqual(['big'],
                         self.names('?member_of=in:%s,%s' % (agg1, agg2)))
        self.assertEqual([], self.names('?member_of=%s' % agg2))

    def test_forbidden_member_of(self):
        agg = uuidutils.generate_uuid()
        self.put('/resource_providers/%s/aggregates' % self.big,
                 {'aggregates': [agg], 'resource_provider_generation': 1})
        self.assertEqual(['small'], self.names('?member_of=!%s' % agg))

    def test_member_of_malformed_is_400(self):
        self.assertError(self.get('/resource_providers?member_of=nope'), 400)

    def test_required_traits(self):
        self.put('/resource_providers/%s/traits' % self.big,
                 {'traits': ['HW_CPU_X86_AVX2'],
                  'resource_provider_generation': 1})
        self.assertEqual(['big'], self.names('?required=HW_CPU_X86_AVX2'))
        self.assertEqual(['small'],
                         self.names('?required=!HW_CPU_X86_AVX2'))

    def test_any_of_traits_from_1_39(self):
        self.put('/resource_providers/%s/traits' % self.big,
                 {'traits': ['HW_CPU_X86_AVX2'],
                  'resource_provider_generation': 1})
        self.put('/resource_providers/%s/traits' % self.small,
                 {'traits': ['HW_CPU_X86_SSE'],
                  'resource_provider_generation': 1})
        self.assertEqual(['big', 'small'], sorted(self.names(
            '?required=in:HW_CPU_X86_AVX2,HW_CPU_X86_SSE', version='1.39')))
        # Repeated, every value holds.
        self.assertEqual(['small'], self.names(
            '?required=in:HW_CPU_X86_AVX2,HW_CPU_X86_SSE'
            '&required=!HW_CPU_X86_AVX2', version='1.39'))

    def test_any_of_traits_before_1_39_is_400(self):
        self.assertError(self.get(
            '/resource_providers?required=in:HW_CPU_X86_AVX2,HW_CPU_X86_SSE',
            version='1.38'), 400, fragment='only supported since '
            'microversion 1.39')

    def test_repeated_required_before_1_39_the_last_counts(self):
        self.put('/resource_providers/%s/traits' % self.big,
                 {'traits': ['HW_CPU_X86_AVX2'],
                  'resource_provider_generation': 1})
        self.assertEqual(['big'], self.names(
            '?required=HW_CPU_X86_SSE&required=HW_CPU_X86_AVX2',
            version='1.38'))

    def test_forbidden_in_an_any_of_is_400(self):
        self.assertError(self.get(
            '/resource_providers?required=in:HW_CPU_X86_AVX2,!HW_CPU_X86_SSE',
            version='1.39'), 400, fragment='does not support forbidden')

    def test_required_unknown_trait_is_400(self):
        self.assertError(self.get('/resource_providers?required=CUSTOM_NO'),
                         400)

    def test_in_tree(self):
        child = self.make_provider('child', parent=self.big)['uuid']
        self.assertEqual(['big', 'child'], self.names('?in_tree=%s' % child))

    def test_filter_unknown_for_the_version_is_400(self):
        self.assertError(self.get('/resource_providers?in_tree=%s' %
                                  self.big, version='1.13'), 400)


class TestUpdateAndDelete(base.PlacementTestCase):

    def test_rename(self):
        uuid = self.make_provider('old')['uuid']
        response = self.put('/resource_providers/%s' % uuid,
                            {'name': 'new'})
        self.assertStatus(200, response)
        self.assertEqual('new', self.get('/resource_providers/%s' %
                                         uuid).json['name'])

    def test_rename_to_taken_name_is_409(self):
        self.make_provider('taken')
        uuid = self.make_provider('mine')['uuid']
        response = self.put('/resource_providers/%s' % uuid,
                            {'name': 'taken'})
        self.assertError(response, 409, 'placement.duplicate_name')

    def test_give_a_root_a_parent_moves_its_subtree(self):
        root = self.make_provider('root')['uuid']
        other = self.make_provider('other')['uuid']
        child = self.make_provider('child', parent=other)['uuid']
        response = self.put('/resource_providers/%s' % other,
                            {'name': 'other', 'parent_provider_uuid': root})
        self.assertStatus(200, response)
        self.assertEqual(root, self.get('/resource_providers/%s' %
                                        child).json['root_provider_uuid'])

    def test_reparenting_before_1_37_is_400(self):
        a = self.make_provider('a')['uuid']
        b = self.make_provider('b')['uuid']
        child = self.make_provider('child', parent=a)['uuid']
        response = self.put('/resource_providers/%s' % child,
                            {'name': 'child', 'parent_provider_uuid': b})
        self.assertError(response, 400)

    def test_parent_loop_is_400(self):
        root = self.make_provider('root')['uuid']
        response = self.put('/resource_providers/%s' % root,
                            {'name': 'root', 'parent_provider_uuid': root})
        self.assertError(response, 400)

    def test_delete(self):
        uuid = self.compute_node('cn1')
        self.assertStatus(204, self.delete('/resource_providers/%s' % uuid))
        self.assertError(self.get('/resource_providers/%s' % uuid), 404)

    def test_delete_unknown_is_404(self):
        self.assertError(self.delete('/resource_providers/%s' %
                                     uuidutils.generate_uuid()), 404)

    def test_delete_with_allocations_is_409_inuse(self):
        uuid = self.compute_node('cn1')
        self.allocate(uuidutils.generate_uuid(), {uuid: {'VCPU': 1}})
        self.assertError(self.delete('/resource_providers/%s' % uuid), 409,
                         'placement.resource_provider.inuse')

    def test_delete_parent_is_409_cannot_delete_parent(self):
        root = self.make_provider('root')['uuid']
        self.make_provider('child', parent=root)
        self.assertError(self.delete('/resource_providers/%s' % root), 409,
                         'placement.resource_provider.cannot_delete_parent')


class TestReparenting(base.PlacementTestCase):
    """1.37: a provider may be moved to another parent or made a root; its
    subtree goes with it."""

    def setUp(self):
        super().setUp()
        self.a = self.make_provider('a')['uuid']
        self.b = self.make_provider('b')['uuid']
        self.child = self.make_provider('child', parent=self.a)['uuid']
        self.grandchild = self.make_provider('gc',
                                             parent=self.child)['uuid']

    def move(self, uuid, parent, version='1.37'):
        name = self.get('/resource_providers/%s' % uuid).json['name']
        return self.put('/resource_providers/%s' % uuid,
                        {'name': name, 'parent_provider_uuid': parent},
                        version=version)

    def tree_of(self, uuid):
        shown = self.get('/resource_providers/%s' % uuid).json
        return shown['parent_provider_uuid'], shown['root_provider_uuid']

    def test_moved_to_another_tree_with_its_subtree(self):
        self.assertStatus(200, self.move(self.child, self.b))
        self.assertEqual((self.b, self.b), self.tree_of(self.child))
        self.assertEqual((self.child, self.b), self.tree_of(self.grandchild))

    def test_unparented_it_is_the_root_of_its_subtree(self):
        response = self.move(self.child, None)
        self.assertStatus(200, response)
        self.assertIsNone(response.json['parent_provider_uuid'])
        self.assertEqual((None, self.child), self.tree_of(self.child))
        self.assertEqual((self.child, self.child),
                         self.tree_of(self.grandchild))

    def test_under_its_own_descendant_or_itself_is_a_loop(self):
        for parent in (self.grandchild, self.a):
            self.assertError(self.move(self.a, parent), 400,
                             fragment='creating loop in the provider tree '
                                      'is not allowed')
        self.assertEqual((None, self.a), self.tree_of(self.a))

    def test_before_1_37_neither_move_nor_unparent(self):
        self.assertError(self.move(self.child, self.b, '1.36'), 400,
                         fragment='re-parenting a provider is not '
                                  'currently allowed')
        self.assertError(self.move(self.child, None, '1.36'), 400,
                         fragment='un-parenting a provider is not '
                                  'currently allowed')
        self.assertEqual((self.a, self.a), self.tree_of(self.child))

    def test_a_parent_that_does_not_exist_is_said_first(self):
        response = self.move(self.child, uuidutils.generate_uuid(), '1.36')
        self.assertError(response, 400, fragment='parent provider UUID '
                                                 'does not exist')

    def test_a_provider_made_its_own_parent_is_refused(self):
        uuid = uuidutils.generate_uuid()
        response = self.post('/resource_providers', {
            'name': 'self', 'uuid': uuid, 'parent_provider_uuid': uuid})
        self.assertError(response, 400, fragment='parent provider UUID '
                                                 'cannot be same as UUID')

    def test_deleting_a_parent_says_it_has_children(self):
        self.assertError(self.delete('/resource_providers/%s' % self.a),
                         409, fragment='It has child resource providers.')

    def test_deleting_one_that_does_not_exist_says_for_delete(self):
        missing = uuidutils.generate_uuid()
        self.assertError(self.delete('/resource_providers/%s' % missing),
                         404, fragment='found for delete')


class TestResourcesFilterIsReadAsPlacementReadsIt(base.PlacementTestCase):

    def refusal(self, value):
        response = self.get('/resource_providers?resources=%s' % value,
                            version='1.4')
        return self.assertError(response, 400)['detail']

    def test_badly_formed(self):
        self.assertIn('Got: empty string.', self.refusal(''))
        self.assertIn('Got: .', self.refusal('DISK_GB:500,'))
        self.assertIn('Got: VCPU:1:2.', self.refusal('VCPU:1:2'))

    def test_amounts(self):
        self.assertIn('Requested resource VCPU expected positive integer '
                      'amount. Got: fred.', self.refusal('VCPU:fred'))
        self.assertIn('Requested resource VCPU requires amount >= 1. '
                      'Got: -2.', self.refusal('VCPU:-2'))

    def test_a_class_named_twice_counts_with_its_last_amount(self):
        cn = self.compute_node(vcpus=4)
        found = self.get('/resource_providers?resources=VCPU:8,VCPU:2',
                         version='1.4').json['resource_providers']
        self.assertEqual([cn], [rp['uuid'] for rp in found])
