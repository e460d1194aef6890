"""Resource classes (1.2): the standard ones are os-resource-classes',
custom ones CUSTOM_*."""

import os_resource_classes as orc

from tests.unit.placement import base


class TestStandardClasses(base.PlacementTestCase):

    def test_the_standard_classes_are_os_resource_classes_in_order(self):
        listed = [c['name'] for c in
                  self.get('/resource_classes').json['resource_classes']]
        self.assertEqual(orc.STANDARDS, listed)

    def test_every_standard_class_can_be_inventoried(self):
        rp = self.make_provider()['uuid']
        self.set_inventory(rp, **{name: 8 for name in orc.STANDARDS})
        self.assertEqual(set(orc.STANDARDS), set(self.get(
            '/resource_providers/%s/inventories' % rp).json['inventories']))


class TestPutBefore1_7RenamesACustomClass(base.PlacementTestCase):

    def setUp(self):
        super().setUp()
        self.assertStatus(201, self.post('/resource_classes',
                                         {'name': 'CUSTOM_OLD'}))

    def rename(self, name, body, version='1.6'):
        return self.put('/resource_classes/%s' % name, body, version=version)

    def test_the_class_keeps_its_inventories_under_the_new_name(self):
        rp = self.make_provider()['uuid']
        self.set_inventory(rp, CUSTOM_OLD=4)
        response = self.rename('CUSTOM_OLD', {'name': 'CUSTOM_NEW'})
        self.assertStatus(200, response)
        self.assertEqual('CUSTOM_NEW', response.json['name'])
        self.assertEqual(['CUSTOM_NEW'], list(self.get(
            '/resource_providers/%s/inventories' % rp).json['inventories']))
        self.assertError(self.get('/resource_classes/CUSTOM_OLD'), 404)

    def test_a_standard_class_is_not_renamed(self):
        self.assertError(self.rename('VCPU', {'name': 'CUSTOM_VCPU'}), 400,
                         fragment='Cannot update standard resource class '
                                  'VCPU')

    def test_to_a_name_taken_is_409(self):
        self.post('/resource_classes', {'name': 'CUSTOM_TAKEN'})
        self.assertError(self.rename('CUSTOM_OLD', {'name': 'CUSTOM_TAKEN'}),
                         409, fragment='Resource class already exists: '
                                       'CUSTOM_TAKEN')

    def test_to_a_name_that_is_not_custom_is_400(self):
        self.assertError(self.rename('CUSTOM_OLD', {'name': 'VCPU'}), 400,
                         fragment='JSON does not validate')

    def test_an_unknown_class_is_404(self):
        self.assertError(self.rename('CUSTOM_NONE', {'name': 'CUSTOM_X'}),
                         404)


class TestPutFrom1_7(base.PlacementTestCase):

    def test_made_is_201_there_already_204_both_with_location(self):
        for status in (201, 204):
            response = self.put('/resource_classes/CUSTOM_MADE')
            self.assertStatus(status, response)
            self.assertTrue(response.headers['Location'].endswith(
                '/resource_classes/CUSTOM_MADE'))

    def test_a_name_that_is_not_custom_fails_the_pattern(self):
        for name in ('COW', 'VCPU'):
            self.assertError(self.put('/resource_classes/%s' % name), 400,
                             fragment="Failed validating 'pattern'")


class TestDelete(base.PlacementTestCase):

    def test_a_class_in_inventory_is_409(self):
        self.put('/resource_classes/CUSTOM_GOLD')
        self.set_inventory(self.make_provider()['uuid'], CUSTOM_GOLD=1)
        self.assertError(self.delete('/resource_classes/CUSTOM_GOLD'), 409,
                         fragment='Error in delete resource class')

    def test_a_standard_class_is_400(self):
        self.assertError(self.delete('/resource_classes/VCPU'), 400,
                         fragment='Cannot delete standard resource class')
