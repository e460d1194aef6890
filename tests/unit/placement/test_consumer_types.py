"""Consumer types (1.38): every allocation write names its consumer's type,
GET /allocations/{consumer} shows it, GET /usages groups by it."""

from oslo_utils import uuidutils

from tests.unit.placement import base

TYPES = '1.38'


class TestConsumerTypes(base.PlacementTestCase):

    def setUp(self):
        super().setUp()
        self.rp = self.compute_node(vcpus=64, memory_mb=65536,
                                    disk_gb=10000)

    def write(self, consumer, consumer_type=None, generation=None,
              version=TYPES, project_id='p1', user_id='u1', disk=10):
        body = {'allocations': {self.rp: {'resources': {'DISK_GB': disk}}},
                'project_id': project_id, 'user_id': user_id,
                'consumer_generation': generation}
        if consumer_type is not None:
            body['consumer_type'] = consumer_type
        return self.request('PUT', '/allocations/%s' % consumer, body,
                            version=version)

    def type_of(self, consumer):
        return self.get('/allocations/%s' % consumer,
                        version=TYPES).json.get('consumer_type')

    def test_put_requires_a_type_from_1_38(self):
        self.assertError(self.write(uuidutils.generate_uuid()), 400,
                         fragment="'consumer_type' is a required property")

    def test_a_type_is_upper_case_letters_digits_and_underscores(self):
        self.assertError(self.write(uuidutils.generate_uuid(), 'instance'),
                         400, fragment="'instance' does not match "
                                       "'^[A-Z0-9_]+$'")

    def test_get_shows_the_type_written(self):
        consumer = uuidutils.generate_uuid()
        self.assertStatus(204, self.write(consumer, 'INSTANCE'))
        self.assertEqual('INSTANCE', self.type_of(consumer))
        self.assertNotIn('consumer_type', self.get(
            '/allocations/%s' % consumer, version='1.37').json)

    def test_a_consumer_written_before_1_38_is_unknown(self):
        consumer = uuidutils.generate_uuid()
        self.assertStatus(204, self.write(consumer, version='1.37'))
        self.assertEqual('unknown', self.type_of(consumer))

    def test_a_write_may_change_the_type(self):
        consumer = uuidutils.generate_uuid()
        self.write(consumer, version='1.37')
        self.assertStatus(204, self.write(consumer, 'MIGRATION', 1))
        self.assertEqual('MIGRATION', self.type_of(consumer))

    def test_a_write_before_1_38_keeps_the_type(self):
        consumer = uuidutils.generate_uuid()
        self.write(consumer, 'INSTANCE')
        self.assertStatus(204, self.write(consumer, generation=1,
                                          version='1.37', disk=20))
        self.assertEqual('INSTANCE', self.type_of(consumer))

    def test_post_requires_and_writes_types(self):
        first, second = (uuidutils.generate_uuid() for _ in range(2))
        part = {'allocations': {self.rp: {'resources': {'VCPU': 1}}},
                'project_id': 'p1', 'user_id': 'u1',
                'consumer_generation': None}
        response = self.post('/allocations', {first: part}, version=TYPES)
        self.assertError(response, 400, fragment="'consumer_type' is a "
                                                 "required property")
        response = self.post('/allocations', {
            first: dict(part, consumer_type='INSTANCE'),
            second: dict(part, consumer_type='PONY')}, version=TYPES)
        self.assertStatus(204, response)
        self.assertEqual(('INSTANCE', 'PONY'),
                         (self.type_of(first), self.type_of(second)))

    def test_a_refused_write_leaves_no_type_behind(self):
        consumer = uuidutils.generate_uuid()
        self.assertError(self.write(consumer, 'GHOST', disk=999999), 409)
        self.assertEqual({}, self.get('/usages?project_id=p1&consumer_type='
                                      'GHOST', version=TYPES).json['usages'])
        self.assertStatus(204, self.write(consumer, 'GHOST'))
        self.assertEqual('GHOST', self.type_of(consumer))


class TestUsagesByType(base.PlacementTestCase):

    def setUp(self):
        super().setUp()
        rp = self.compute_node(vcpus=64, memory_mb=65536, disk_gb=10000)
        self.written = []

        def write(consumer_type, resources, user_id='u1'):
            body = {'allocations': {rp: {'resources': resources}},
                    'project_id': 'p1', 'user_id': user_id,
                    'consumer_generation': None}
            version = '1.37'
            if consumer_type:
                body['consumer_type'] = consumer_type
                version = TYPES
            self.assertStatus(204, self.put(
                '/allocations/%s' % uuidutils.generate_uuid(), body,
                version=version))
        write('INSTANCE', {'VCPU': 2, 'MEMORY_MB': 512})
        write('INSTANCE', {'VCPU': 1}, user_id='u2')
        write('MIGRATION', {'DISK_GB': 5})
        write(None, {'VCPU': 4})

    def usages(self, query='', version=TYPES):
        response = self.get('/usages?project_id=p1' + query, version=version)
        self.assertStatus(200, response)
        return response.json['usages']

    def test_grouped_by_type_with_the_consumers_counted_once(self):
        self.assertEqual({
            'INSTANCE': {'VCPU': 3, 'MEMORY_MB': 512, 'consumer_count': 2},
            'MIGRATION': {'DISK_GB': 5, 'consumer_count': 1},
            'unknown': {'VCPU': 4, 'consumer_count': 1},
        }, self.usages())

    def test_one_type(self):
        self.assertEqual({'MIGRATION': {'DISK_GB': 5, 'consumer_count': 1}},
                         self.usages('&consumer_type=MIGRATION'))
        self.assertEqual({}, self.usages('&consumer_type=COW'))

    def test_all_and_unknown(self):
        self.assertEqual({'all': {'VCPU': 7, 'MEMORY_MB': 512,
                                  'DISK_GB': 5, 'consumer_count': 4}},
                         self.usages('&consumer_type=all'))
        self.assertEqual({'unknown': {'VCPU': 4, 'consumer_count': 1}},
                         self.usages('&consumer_type=unknown'))
        self.assertEqual({}, self.usages('&consumer_type=ALL'))

    def test_narrowed_to_a_user(self):
        self.assertEqual({'INSTANCE': {'VCPU': 1, 'consumer_count': 1}},
                         self.usages('&user_id=u2'))

    def test_before_1_38_by_class_only(self):
        self.assertEqual({'VCPU': 7, 'MEMORY_MB': 512, 'DISK_GB': 5},
                         self.usages(version='1.37'))
        self.assertError(self.get('/usages?project_id=p1&consumer_type=all',
                                  version='1.37'), 400,
                         fragment='Additional properties are not allowed')

    def test_query_validation(self):
        for query, words in (
                ('', "'project_id' is a required property"),
                ('project_id=', "Failed validating 'minLength'"),
                ('project_id=p1&user_id=' + 'u' * 256,
                 "Failed validating 'maxLength'"),
                ('project_id=p1&consumer_type=x',
                 "'x' does not match")):
            error = self.assertError(
                self.get('/usages?' + query, version=TYPES), 400,
                fragment=words)
            self.assertTrue(error['detail'].startswith(
                'Invalid query string parameters: '))


class TestReshaperTypes(base.PlacementTestCase):

    def test_each_consumer_needs_a_type_from_1_38(self):
        rp = self.compute_node()
        consumer = uuidutils.generate_uuid()
        part = {'allocations': {rp: {'resources': {'VCPU': 1}}},
                'project_id': 'p1', 'user_id': 'u1',
                'consumer_generation': None}
        body = {'inventories': {rp: {
            'inventories': {'VCPU': {'total': 8}},
            'resource_provider_generation': 1}},
            'allocations': {consumer: part}}
        headers = {'X-Roles': 'service'}
        response = self.post('/reshaper', body, version=TYPES,
                             headers=headers)
        self.assertError(response, 400,
                         fragment="'consumer_type' is a required property")
        part['consumer_type'] = 'RESHAPED'
        response = self.post('/reshaper', body, version='1.37',
                             headers=headers)
        self.assertError(response, 400, fragment="'consumer_type' was "
                                                 "unexpected")
        self.assertStatus(204, self.post('/reshaper', body, version=TYPES,
                                         headers=headers))
        self.assertEqual('RESHAPED', self.get(
            '/allocations/%s' % consumer,
            version=TYPES).json['consumer_type'])
