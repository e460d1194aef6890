"""POST /reshaper: inventory and the allocations using it move together.

Reshaping is the service role's (a compute service reshapes its provider
tree), so these tests call as a service; who else may is in
tests/unit/placement/test_policy.py.
"""

from oslo_utils import uuidutils

from tests.unit.placement import base


SERVICE = {'X-Roles': 'service'}


class TestReshaper(base.PlacementTestCase):

    def reshape(self, body, **kwargs):
        return self.post('/reshaper', body, headers=SERVICE, **kwargs)

    def setUp(self):
        super().setUp()
        self.cn = self.make_provider('cn')['uuid']
        self.set_inventory(self.cn, VCPU=8, VGPU=4)
        self.gpu = self.make_provider('gpu', parent=self.cn)['uuid']
        self.consumer = uuidutils.generate_uuid()
        self.assertStatus(204, self.allocate(
            self.consumer, {self.cn: {'VCPU': 1, 'VGPU': 2}}))

    def reshape_body(self, cn_generation=2, gpu_total=4, consumer_gen=1):
        return {
            'inventories': {
                self.cn: {'inventories': {'VCPU': {'total': 8}},
                          'resource_provider_generation': cn_generation},
                self.gpu: {'inventories': {'VGPU': {'total': gpu_total}},
                           'resource_provider_generation': 0},
            },
            'allocations': {
                self.consumer: {
                    'allocations': {
                        self.cn: {'resources': {'VCPU': 1}},
                        self.gpu: {'resources': {'VGPU': 2}}},
                    'project_id': 'p1', 'user_id': 'u1',
                    'consumer_generation': consumer_gen},
            },
        }

    def test_vgpu_moves_to_the_child_with_its_allocation(self):
        self.assertStatus(204, self.reshape(self.reshape_body()))
        allocations = self.get('/allocations/%s' % self.consumer).json[
            'allocations']
        self.assertEqual({'VGPU': 2}, allocations[self.gpu]['resources'])
        self.assertEqual(['VCPU'], list(self.get(
            '/resource_providers/%s/inventories' % self.cn).json[
                'inventories']))

    def test_stale_generation_changes_nothing(self):
        response = self.reshape(self.reshape_body(cn_generation=0))
        self.assertError(response, 409, 'placement.concurrent_update')
        self.assertIn(self.cn, self.get('/allocations/%s' % self.consumer)
                      .json['allocations'])
        self.assertIn('VGPU', self.get('/resource_providers/%s/inventories'
                                       % self.cn).json['inventories'])

    def test_new_inventory_too_small_changes_nothing(self):
        response = self.reshape(self.reshape_body(gpu_total=1))
        self.assertError(response, 409)
        self.assertEqual({}, self.get('/resource_providers/%s/inventories' %
                                      self.gpu).json['inventories'])

    def test_a_reshape_without_inventories_is_400(self):
        response = self.reshape({'inventories': {}, 'allocations': {}})
        self.assertError(response, 400)

    def test_before_1_30_is_404(self):
        self.assertError(self.reshape(self.reshape_body(), version='1.29'),
                         404)

    def test_used_follows_the_moved_allocations(self):
        self.reshape(self.reshape_body())
        cn = self.get('/resource_providers/%s/usages' % self.cn).json
        gpu = self.get('/resource_providers/%s/usages' % self.gpu).json
        self.assertEqual({'VCPU': 1}, cn['usages'])
        self.assertEqual({'VGPU': 2}, gpu['usages'])
        # The child's inventory now holds the moved allocation: removing
        # its class is refused.
        self.assertError(self.put(
            '/resource_providers/%s/inventories' % self.gpu,
            {'inventories': {},
             'resource_provider_generation':
                 gpu['resource_provider_generation']}), 409,
            'placement.inventory.inuse')
