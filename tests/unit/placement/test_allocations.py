"""/allocations: replace, read, delete, POST several consumers; capacity,
unit constraints, generations and all-or-nothing writes."""

from oslo_utils import uuidutils

from tests.unit.placement import base


class AllocationTestCase(base.PlacementTestCase):

    def setUp(self):
        super().setUp()
        self.cn1 = self.compute_node('cn1', vcpus=4, memory_mb=2048,
                                     disk_gb=100)
        self.cn2 = self.compute_node('cn2', vcpus=4, memory_mb=2048,
                                     disk_gb=100)
        self.consumer = uuidutils.generate_uuid()

    def allocations_of(self, consumer, version=base.LATEST):
        response = self.get('/allocations/%s' % consumer, version=version)
        self.assertStatus(200, response)
        return response.json

    def generation(self, rp):
        return self.get('/resource_providers/%s' % rp).json['generation']


class TestPutAndGet(AllocationTestCase):

    def test_put_then_get(self):
        response = self.allocate(self.consumer, {
            self.cn1: {'VCPU': 2, 'MEMORY_MB': 512}})
        self.assertStatus(204, response)
        body = self.allocations_of(self.consumer)
        self.assertEqual({'VCPU': 2, 'MEMORY_MB': 512},
                         body['allocations'][self.cn1]['resources'])
        self.assertEqual(('p1', 'u1', 1), (body['project_id'],
                                           body['user_id'],
                                           body['consumer_generation']))

    def test_put_bumps_the_provider_generation(self):
        before = self.generation(self.cn1)
        self.allocate(self.consumer, {self.cn1: {'VCPU': 1}})
        self.assertEqual(before + 1, self.generation(self.cn1))
        self.assertEqual(before + 1, self.allocations_of(self.consumer)[
            'allocations'][self.cn1]['generation'])

    def test_get_of_unknown_consumer_is_empty(self):
        self.assertEqual({'allocations': {}},
                         self.allocations_of(uuidutils.generate_uuid()))

    def test_malformed_consumer_uuid_is_400(self):
        self.assertError(self.get('/allocations/nope'), 400)
        self.assertError(self.allocate('nope', {self.cn1: {'VCPU': 1}}),
                         400)

    def test_replace_moves_the_allocation(self):
        self.allocate(self.consumer, {self.cn1: {'VCPU': 2}})
        self.assertStatus(204, self.allocate(
            self.consumer, {self.cn2: {'VCPU': 2}}, generation=1))
        self.assertEqual([self.cn2], list(self.allocations_of(
            self.consumer)['allocations']))
        usages = self.get('/resource_providers/%s/usages' % self.cn1).json
        self.assertEqual(0, usages['usages']['VCPU'])

    def test_spread_over_two_providers(self):
        self.allocate(self.consumer, {self.cn1: {'VCPU': 1},
                                      self.cn2: {'DISK_GB': 10}})
        self.assertEqual({self.cn1, self.cn2}, set(self.allocations_of(
            self.consumer)['allocations']))

    def test_list_format_before_1_12(self):
        body = {'allocations': [{'resource_provider': {'uuid': self.cn1},
                                 'resources': {'VCPU': 1}}],
                'project_id': 'p', 'user_id': 'u'}
        self.assertStatus(204, self.put('/allocations/%s' % self.consumer,
                                        body, version='1.8'))
        self.assertEqual({'VCPU': 1}, self.allocations_of(self.consumer)[
            'allocations'][self.cn1]['resources'])

    def test_list_format_without_owner_before_1_8(self):
        body = {'allocations': [{'resource_provider': {'uuid': self.cn1},
                                 'resources': {'VCPU': 1}}]}
        self.assertStatus(204, self.put('/allocations/%s' % self.consumer,
                                        body, version='1.0'))

    def test_missing_project_from_1_8_is_400(self):
        body = {'allocations': [{'resource_provider': {'uuid': self.cn1},
                                 'resources': {'VCPU': 1}}]}
        self.assertError(self.put('/allocations/%s' % self.consumer, body,
                                  version='1.8'), 400)

    def test_get_before_1_12_has_no_owner(self):
        self.allocate(self.consumer, {self.cn1: {'VCPU': 1}})
        body = self.allocations_of(self.consumer, version='1.11')
        self.assertNotIn('project_id', body)


class TestRefusals(AllocationTestCase):

    def assertNothingWritten(self):
        self.assertEqual({}, self.allocations_of(self.consumer)[
            'allocations'])

    def test_over_capacity_is_409_and_writes_nothing(self):
        response = self.allocate(self.consumer, {self.cn1: {'VCPU': 5}})
        self.assertError(response, 409, 'placement.undefined_code',
                         'exceed the capacity')
        self.assertNothingWritten()

    def test_capacity_uses_reserved_and_allocation_ratio(self):
        self.set_inventory(self.cn1, VCPU={'total': 4, 'reserved': 1,
                                           'allocation_ratio': 2.0})
        self.assertStatus(204, self.allocate(self.consumer,
                                             {self.cn1: {'VCPU': 6}}))
        self.assertError(self.allocate(uuidutils.generate_uuid(),
                                       {self.cn1: {'VCPU': 1}}), 409)

    def test_capacity_counts_other_consumers(self):
        self.allocate(uuidutils.generate_uuid(), {self.cn1: {'VCPU': 3}})
        self.assertError(self.allocate(self.consumer,
                                       {self.cn1: {'VCPU': 2}}), 409)

    def test_replacing_own_allocation_does_not_count_it_twice(self):
        self.allocate(self.consumer, {self.cn1: {'VCPU': 3}})
        self.assertStatus(204, self.allocate(
            self.consumer, {self.cn1: {'VCPU': 4}}, generation=1))

    def test_one_bad_provider_writes_nothing_anywhere(self):
        response = self.allocate(self.consumer, {self.cn1: {'VCPU': 1},
                                                 self.cn2: {'VCPU': 99}})
        self.assertError(response, 409)
        self.assertNothingWritten()
        self.assertEqual(1, self.generation(self.cn1))

    def test_max_unit_violation_is_409(self):
        self.set_inventory(self.cn1, VCPU={'total': 8, 'max_unit': 2})
        self.assertError(self.allocate(self.consumer,
                                       {self.cn1: {'VCPU': 3}}), 409,
                         fragment='inventory constraints')

    def test_step_size_violation_is_409(self):
        self.set_inventory(self.cn1, VCPU={'total': 8, 'step_size': 2})
        self.assertError(self.allocate(self.consumer,
                                       {self.cn1: {'VCPU': 3}}), 409)

    def test_class_without_inventory_on_provider_is_409(self):
        self.assertError(self.allocate(self.consumer,
                                       {self.cn1: {'PCI_DEVICE': 1}}), 409)
        self.assertNothingWritten()

    def test_unknown_resource_class_is_400(self):
        self.assertError(self.allocate(self.consumer,
                                       {self.cn1: {'CUSTOM_NOPE': 1}}), 400)

    def test_unknown_provider_is_400(self):
        self.assertError(self.allocate(self.consumer, {
            uuidutils.generate_uuid(): {'VCPU': 1}}), 400,
            fragment='does not exist')

    def test_zero_amount_is_400(self):
        self.assertError(self.allocate(self.consumer,
                                       {self.cn1: {'VCPU': 0}}), 400)

    def test_negative_amount_is_400(self):
        self.assertError(self.allocate(self.consumer,
                                       {self.cn1: {'VCPU': -1}}), 400)

    def test_string_amount_is_400(self):
        self.assertError(self.allocate(self.consumer,
                                       {self.cn1: {'VCPU': '1'}}), 400)

    def test_provider_key_not_a_uuid_is_400(self):
        self.assertError(self.allocate(self.consumer,
                                       {'cn1': {'VCPU': 1}}), 400)

    def test_empty_resources_is_400(self):
        self.assertError(self.allocate(self.consumer, {self.cn1: {}}), 400)

    def test_malformed_body_is_400(self):
        self.assertError(self.put('/allocations/%s' % self.consumer,
                                  {'allocations': 'lots'}), 400)

    def test_new_consumer_with_a_generation_is_409(self):
        self.assertError(self.allocate(self.consumer,
                                       {self.cn1: {'VCPU': 1}},
                                       generation=3), 409,
                         'placement.concurrent_update')

    def test_stale_consumer_generation_is_409(self):
        self.allocate(self.consumer, {self.cn1: {'VCPU': 1}})
        self.assertError(self.allocate(self.consumer,
                                       {self.cn1: {'VCPU': 2}},
                                       generation=None), 409,
                         'placement.concurrent_update')
        self.assertError(self.allocate(self.consumer,
                                       {self.cn1: {'VCPU': 2}},
                                       generation=7), 409,
                         'placement.concurrent_update')

    def test_missing_consumer_generation_from_1_28_is_400(self):
        body = {'allocations': {self.cn1: {'resources': {'VCPU': 1}}},
                'project_id': 'p', 'user_id': 'u'}
        self.assertError(self.put('/allocations/%s' % self.consumer, body),
                         400)

    def test_empty_allocations_before_1_28_is_400(self):
        body = {'allocations': {}, 'project_id': 'p', 'user_id': 'u'}
        self.assertError(self.put('/allocations/%s' % self.consumer, body,
                                  version='1.27'), 400)


class TestDelete(AllocationTestCase):

    def test_delete_frees_the_resources(self):
        self.allocate(self.consumer, {self.cn1: {'VCPU': 4}})
        self.assertStatus(204, self.delete('/allocations/%s' %
                                           self.consumer))
        self.assertStatus(204, self.allocate(uuidutils.generate_uuid(),
                                             {self.cn1: {'VCPU': 4}}))

    def test_delete_absent_is_404(self):
        self.assertError(self.delete('/allocations/%s' % self.consumer),
                         404)

    def test_delete_keeps_the_provider_generation(self):
        # As OpenStack Placement: only writes naming a provider bump it.
        self.allocate(self.consumer, {self.cn1: {'VCPU': 1}})
        before = self.generation(self.cn1)
        self.delete('/allocations/%s' % self.consumer)
        self.assertEqual(before, self.generation(self.cn1))

    def test_a_move_bumps_only_the_provider_named(self):
        self.allocate(self.consumer, {self.cn1: {'VCPU': 1}})
        before = self.generation(self.cn1), self.generation(self.cn2)
        self.assertStatus(204, self.allocate(
            self.consumer, {self.cn2: {'VCPU': 1}}, generation=1))
        after = self.generation(self.cn1), self.generation(self.cn2)
        self.assertEqual((before[0], before[1] + 1), after)

    def test_emptying_allocations_bumps_the_providers_they_were_on(self):
        self.allocate(self.consumer, {self.cn1: {'VCPU': 1}})
        before = self.generation(self.cn1)
        self.assertStatus(204, self.allocate(self.consumer, {},
                                             generation=1))
        self.assertEqual(before + 1, self.generation(self.cn1))

    def test_an_over_capacity_provider_keeps_an_unchanged_allocation(self):
        self.allocate(self.consumer, {self.cn1: {'VCPU': 4}})
        inventories = self.get('/resource_providers/%s/inventories'
                               % self.cn1).json
        self.assertStatus(200, self.put(
            '/resource_providers/%s/inventories' % self.cn1,
            {'inventories': {'VCPU': {'total': 2}},
             'resource_provider_generation':
                 inventories['resource_provider_generation']}))
        self.assertStatus(204, self.allocate(
            self.consumer, {self.cn1: {'VCPU': 4}}, generation=1))
        self.assertEqual(409, self.allocate(
            self.consumer, {self.cn1: {'VCPU': 5}}, generation=2).status_int)

    def test_put_empty_allocations_removes_them_from_1_28(self):
        self.allocate(self.consumer, {self.cn1: {'VCPU': 1}})
        self.assertStatus(204, self.allocate(self.consumer, {},
                                             generation=1))
        self.assertEqual({'allocations': {}},
                         self.allocations_of(self.consumer))


class TestPostAllocations(AllocationTestCase):

    def body(self, consumers):
        return {consumer: {
            'allocations': {rp: {'resources': resources}
                            for rp, resources in allocations.items()},
            'project_id': 'p1', 'user_id': 'u1',
            'consumer_generation': generation}
            for consumer, (allocations, generation) in consumers.items()}

    def test_post_writes_several_consumers(self):
        other = uuidutils.generate_uuid()
        response = self.post('/allocations', self.body({
            self.consumer: ({self.cn1: {'VCPU': 1}}, None),
            other: ({self.cn2: {'VCPU': 1}}, None)}))
        self.assertStatus(204, response)
        self.assertIn(self.cn2, self.allocations_of(other)['allocations'])

    def test_post_swaps_allocations_between_consumers(self):
        migration = uuidutils.generate_uuid()
        self.allocate(self.consumer, {self.cn1: {'VCPU': 4}})
        response = self.post('/allocations', self.body({
            self.consumer: ({self.cn2: {'VCPU': 4}}, 1),
            migration: ({self.cn1: {'VCPU': 4}}, None)}))
        self.assertStatus(204, response)
        self.assertEqual([self.cn2], list(self.allocations_of(
            self.consumer)['allocations']))
        self.assertEqual([self.cn1], list(self.allocations_of(
            migration)['allocations']))

    def test_post_is_all_or_nothing(self):
        other = uuidutils.generate_uuid()
        response = self.post('/allocations', self.body({
            self.consumer: ({self.cn1: {'VCPU': 1}}, None),
            other: ({self.cn2: {'VCPU': 99}}, None)}))
        self.assertError(response, 409)
        self.assertEqual({}, self.allocations_of(self.consumer)[
            'allocations'])

    def test_post_counts_both_consumers_against_capacity(self):
        other = uuidutils.generate_uuid()
        response = self.post('/allocations', self.body({
            self.consumer: ({self.cn1: {'VCPU': 3}}, None),
            other: ({self.cn1: {'VCPU': 3}}, None)}))
        self.assertError(response, 409)

    def test_post_empty_allocations_clears_a_consumer(self):
        self.allocate(self.consumer, {self.cn1: {'VCPU': 1}})
        response = self.post('/allocations', self.body({
            self.consumer: ({}, 1)}))
        self.assertStatus(204, response)
        self.assertEqual({}, self.allocations_of(self.consumer)[
            'allocations'])

    def test_post_before_1_13_is_404(self):
        self.assertError(self.post('/allocations', {}, version='1.12'), 404)

    def test_post_with_bad_consumer_key_is_400(self):
        self.assertError(self.post('/allocations', {'nope': {}}), 400)


class TestProviderAllocationsAndUsages(AllocationTestCase):

    def test_provider_allocations_by_consumer(self):
        self.allocate(self.consumer, {self.cn1: {'VCPU': 2}})
        body = self.get('/resource_providers/%s/allocations' %
                        self.cn1).json
        self.assertEqual({self.consumer: {'resources': {'VCPU': 2}}},
                         body['allocations'])
        self.assertEqual(self.generation(self.cn1),
                         body['resource_provider_generation'])

    def test_provider_usages_list_every_inventory_class(self):
        self.allocate(self.consumer, {self.cn1: {'VCPU': 2}})
        body = self.get('/resource_providers/%s/usages' % self.cn1).json
        self.assertEqual({'VCPU': 2, 'MEMORY_MB': 0, 'DISK_GB': 0},
                         body['usages'])

    def test_project_usages(self):
        self.allocate(self.consumer, {self.cn1: {'VCPU': 2}},
                      project_id='pa', user_id='ua')
        self.allocate(uuidutils.generate_uuid(), {self.cn2: {'VCPU': 1}},
                      project_id='pa', user_id='ub')
        self.allocate(uuidutils.generate_uuid(), {self.cn2: {'VCPU': 1}},
                      project_id='pb', user_id='ub')
        self.assertEqual({'VCPU': 3},
                         self.get('/usages?project_id=pa').json['usages'])
        self.assertEqual({'VCPU': 1}, self.get(
            '/usages?project_id=pa&user_id=ub').json['usages'])

    def test_project_usages_without_project_is_400(self):
        # A query string that fails its schema has no code of its own in
        # OpenStack Placement.
        self.assertError(self.get('/usages'), 400,
                         'placement.undefined_code',
                         "'project_id' is a required property")


class TestUsageBookkeeping(AllocationTestCase):
    """Every inventory's ``used`` is the sum of its allocations, whatever
    sequence of writes led there."""

    def assertUsedMatchesAllocations(self):
        import sqlalchemy as sa
        from nova_lite.placement import db
        with db.transaction() as connection:
            sums = {(r[0], r[1]): int(r[2]) for r in connection.execute(
                sa.select(db.ALLOCATIONS.c.resource_provider_id,
                          db.ALLOCATIONS.c.resource_class_id,
                          sa.func.sum(db.ALLOCATIONS.c.used))
                .group_by(db.ALLOCATIONS.c.resource_provider_id,
                          db.ALLOCATIONS.c.resource_class_id))}
            used = {(r[0], r[1]): r[2] for r in connection.execute(
                sa.select(db.INVENTORIES.c.resource_provider_id,
                          db.INVENTORIES.c.resource_class_id,
                          db.INVENTORIES.c.used))}
        self.assertEqual({k: v for k, v in used.items() if v}, sums)

    def test_used_follows_puts_replaces_posts_and_deletes(self):
        other = uuidutils.generate_uuid()
        self.allocate(self.consumer, {self.cn1: {'VCPU': 2,
                                                 'MEMORY_MB': 256}})
        self.allocate(other, {self.cn1: {'VCPU': 1}, self.cn2: {'VCPU': 1}})
        self.assertUsedMatchesAllocations()
        self.allocate(self.consumer, {self.cn2: {'VCPU': 2}}, generation=1)
        self.assertUsedMatchesAllocations()
        self.post('/allocations', {
            self.consumer: {'allocations': {}, 'project_id': 'p',
                            'user_id': 'u', 'consumer_generation': 2},
            other: {'allocations': {self.cn1: {'resources': {'VCPU': 4}}},
                    'project_id': 'p', 'user_id': 'u',
                    'consumer_generation': 1}})
        self.assertUsedMatchesAllocations()
        self.delete('/allocations/%s' % other)
        self.assertUsedMatchesAllocations()

    def test_refused_write_leaves_used_alone(self):
        self.allocate(self.consumer, {self.cn1: {'VCPU': 2}})
        self.allocate(uuidutils.generate_uuid(), {self.cn1: {'VCPU': 1},
                                                  self.cn2: {'VCPU': 9}})
        self.assertUsedMatchesAllocations()
