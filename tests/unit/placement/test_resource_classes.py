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
