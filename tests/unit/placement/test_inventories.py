"""/resource_providers/{uuid}/inventories: defaults, validation,
generations, and refusing changes that strand allocations."""

from oslo_utils import uuidutils

from tests.unit.placement import base


class TestInventories(base.PlacementTestCase):

    def setUp(self):
        super().setUp()
        self.rp = self.make_provider('cn1')['uuid']
        self.path = '/resource_providers/%s/inventories' % self.rp

    def replace(self, inventories, generation):
        return self.put(self.path, {'inventories': inventories,
                                    'resource_provider_generation':
                                        generation})

    def test_new_provider_has_no_inventory(self):
        body = self.get(self.path).json
        self.assertEqual({'inventories': {},
                          'resource_provider_generation': 0}, body)

    def test_replace_applies_the_public_defaults(self):
        response = self.replace({'VCPU': {'total': 8}}, 0)
        self.assertStatus(200, response)
        self.assertEqual(1, response.json['resource_provider_generation'])
        self.assertEqual({'total': 8, 'reserved': 0, 'min_unit': 1,
                          'max_unit': 2147483647, 'step_size': 1,
                          'allocation_ratio': 1.0},
                         response.json['inventories']['VCPU'])

    def test_replace_with_stale_generation_is_409_concurrent_update(self):
        self.replace({'VCPU': {'total': 8}}, 0)
        response = self.replace({'VCPU': {'total': 4}}, 0)
        self.assertError(response, 409, 'placement.concurrent_update')
        self.assertEqual(8, self.get(self.path).json[
            'inventories']['VCPU']['total'])

    def test_replace_removes_classes_not_named(self):
        self.replace({'VCPU': {'total': 8}, 'DISK_GB': {'total': 10}}, 0)
        self.replace({'VCPU': {'total': 8}}, 1)
        self.assertEqual(['VCPU'], list(self.get(self.path).json[
            'inventories']))

    def test_unknown_resource_class_is_400(self):
        self.assertError(self.replace({'CUSTOM_NOPE': {'total': 1}}, 0),
                         400)

    def test_lowercase_resource_class_is_400(self):
        self.assertError(self.replace({'vcpu': {'total': 1}}, 0), 400)

    def test_zero_total_is_400(self):
        self.assertError(self.replace({'VCPU': {'total': 0}}, 0), 400)

    def test_negative_reserved_is_400(self):
        self.assertError(self.replace({'VCPU': {'total': 4,
                                                'reserved': -1}}, 0), 400)

    def test_zero_allocation_ratio_is_400(self):
        self.assertError(self.replace({'VCPU': {'total': 4,
                                                'allocation_ratio': 0}}, 0),
                         400)

    def test_total_above_int_max_is_400(self):
        self.assertError(self.replace({'VCPU': {'total': 2 ** 31}}, 0), 400)

    def test_reserved_above_total_is_400(self):
        self.assertError(self.replace({'VCPU': {'total': 4,
                                                'reserved': 5}}, 0), 400)

    def test_reserved_equal_total_allowed_from_1_26(self):
        body = {'inventories': {'VCPU': {'total': 4, 'reserved': 4}},
                'resource_provider_generation': 0}
        self.assertError(self.put(self.path, body, version='1.25'), 400)
        self.assertStatus(200, self.put(self.path, body, version='1.26'))

    def test_min_unit_above_max_unit_is_400(self):
        self.assertError(self.replace({'VCPU': {'total': 4, 'min_unit': 3,
                                                'max_unit': 2}}, 0), 400)

    def test_missing_generation_is_400(self):
        self.assertError(self.put(self.path,
                                  {'inventories': {'VCPU': {'total': 1}}}),
                         400)

    def test_unknown_provider_is_404(self):
        path = '/resource_providers/%s/inventories' % (
            uuidutils.generate_uuid())
        self.assertError(self.put(path, {
            'inventories': {}, 'resource_provider_generation': 0}), 404)

    def test_removing_an_allocated_class_is_409_inuse(self):
        self.replace({'VCPU': {'total': 8}, 'DISK_GB': {'total': 10}}, 0)
        self.allocate(uuidutils.generate_uuid(), {self.rp: {'VCPU': 2}})
        response = self.replace({'DISK_GB': {'total': 10}}, 2)
        self.assertError(response, 409, 'placement.inventory.inuse')

    def test_shrinking_below_usage_is_allowed_and_nothing_more_fits(self):
        # As OpenStack Placement: a host that lost capacity must be able
        # to say so; it is then over capacity until usage falls.
        self.replace({'VCPU': {'total': 8}}, 0)
        self.allocate(uuidutils.generate_uuid(), {self.rp: {'VCPU': 6}})
        self.assertStatus(200, self.replace({'VCPU': {'total': 4}}, 2))
        self.assertEqual(409, self.allocate(
            uuidutils.generate_uuid(), {self.rp: {'VCPU': 1}}).status_int)

    def test_show_one_class(self):
        self.replace({'VCPU': {'total': 8}}, 0)
        body = self.get(self.path + '/VCPU').json
        self.assertEqual(8, body['total'])
        self.assertEqual(1, body['resource_provider_generation'])

    def test_show_absent_class_is_404(self):
        self.assertError(self.get(self.path + '/VCPU'), 404)

    def test_update_one_class(self):
        self.replace({'VCPU': {'total': 8}}, 0)
        response = self.put(self.path + '/VCPU', {
            'total': 16, 'allocation_ratio': 4.0,
            'resource_provider_generation': 1})
        self.assertStatus(200, response)
        self.assertEqual((16, 4.0, 2), (
            response.json['total'], response.json['allocation_ratio'],
            response.json['resource_provider_generation']))

    def test_update_one_class_with_stale_generation_is_409(self):
        self.replace({'VCPU': {'total': 8}}, 0)
        response = self.put(self.path + '/VCPU', {
            'total': 16, 'resource_provider_generation': 0})
        self.assertError(response, 409, 'placement.concurrent_update')

    def test_create_one_class_with_post(self):
        response = self.post(self.path, {'resource_class': 'DISK_GB',
                                         'total': 100})
        self.assertStatus(201, response)
        self.assertEqual(100, self.get(self.path + '/DISK_GB').json['total'])

    def test_delete_one_class(self):
        self.replace({'VCPU': {'total': 8}, 'DISK_GB': {'total': 10}}, 0)
        self.assertStatus(204, self.delete(self.path + '/DISK_GB'))
        self.assertEqual(2, self.get(self.path).json[
            'resource_provider_generation'])
        self.assertError(self.delete(self.path + '/DISK_GB'), 404)

    def test_delete_allocated_class_is_409_inuse(self):
        self.replace({'VCPU': {'total': 8}}, 0)
        self.allocate(uuidutils.generate_uuid(), {self.rp: {'VCPU': 1}})
        self.assertError(self.delete(self.path + '/VCPU'), 409,
                         'placement.inventory.inuse')

    def test_delete_all_from_1_5(self):
        self.replace({'VCPU': {'total': 8}}, 0)
        self.assertError(self.delete(self.path, version='1.4'), 405)
        self.assertStatus(204, self.delete(self.path, version='1.5'))
        self.assertEqual({}, self.get(self.path).json['inventories'])

    def test_custom_class_inventory(self):
        self.assertStatus(201, self.put('/resource_classes/CUSTOM_GOLD'))
        self.assertStatus(200, self.replace({'CUSTOM_GOLD': {'total': 3}},
                                            0))
