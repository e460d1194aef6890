"""/servers/{id}/metadata: list, show, add, replace, set and remove."""

from nova_lite.compute import states
from tests.unit.api import base
from tests.unit.api import test_servers


class MetadataTestCase(test_servers.ServersTestCase):

    def server(self, metadata=None, vm_state=states.ACTIVE, **fields):
        instance = self.instance_in_cell(self.cell1, vm_state=vm_state,
                                         host='host1')
        instance.metadata = dict(metadata or {})
        for name, value in fields.items():
            setattr(instance, name, value)
        instance.save()
        return instance

    def call(self, method, instance, key=None, body=None, token=base.DEMO):
        path = '/v2.1/servers/%s/metadata' % instance.uuid
        if key is not None:
            path += '/' + key
        return self.request(method, path, body, token=token)

    def metadata(self, instance):
        return self.call('GET', instance).json['metadata']


class TestReads(MetadataTestCase):

    def test_index_lists_the_items(self):
        instance = self.server({'role': 'db', 'tier': '1'})
        self.assertEqual({'role': 'db', 'tier': '1'},
                         self.metadata(instance))

    def test_show_one_item(self):
        instance = self.server({'role': 'db'})
        response = self.call('GET', instance, 'role')
        self.assertEqual({'meta': {'role': 'db'}}, response.json)

    def test_an_item_it_lacks_is_404(self):
        instance = self.server({'role': 'db'})
        self.assertError(self.call('GET', instance, 'tier'), 404,
                         'itemNotFound', 'tier')

    def test_another_projects_server_is_404(self):
        instance = self.server({'role': 'db'})
        self.assertError(self.call('GET', instance, token='mallory'), 404,
                         'itemNotFound')

    def test_a_server_being_scheduled_shows_what_it_was_created_with(self):
        uuid = self.boot(metadata={'role': 'db'}).json['server']['id']
        response = self.request('GET', '/v2.1/servers/%s/metadata' % uuid)
        self.assertEqual({'role': 'db'}, response.json['metadata'])


class TestChanges(MetadataTestCase):

    def test_post_merges_and_answers_the_whole_map(self):
        instance = self.server({'role': 'db', 'tier': '1'})
        response = self.call('POST', instance,
                             body={'metadata': {'tier': '2', 'az': 'x'}})
        self.assertEqual(200, response.status_int, response.body)
        expected = {'role': 'db', 'tier': '2', 'az': 'x'}
        self.assertEqual(expected, response.json['metadata'])
        self.assertEqual(expected, self.metadata(instance))

    def test_put_replaces_the_whole_map(self):
        instance = self.server({'role': 'db', 'tier': '1'})
        response = self.call('PUT', instance, body={'metadata': {'az': 'x'}})
        self.assertEqual({'az': 'x'}, response.json['metadata'])
        self.assertEqual({'az': 'x'}, self.metadata(instance))
        self.call('PUT', instance, body={'metadata': {}})
        self.assertEqual({}, self.metadata(instance))

    def test_put_of_an_item_sets_it(self):
        instance = self.server({'role': 'db'})
        response = self.call('PUT', instance, 'role',
                             body={'meta': {'role': 'web'}})
        self.assertEqual(200, response.status_int, response.body)
        self.assertEqual({'meta': {'role': 'web'}}, response.json)
        self.assertEqual({'role': 'web'}, self.metadata(instance))

    def test_put_of_an_item_must_name_the_uri_key(self):
        instance = self.server({'role': 'db'})
        self.assertError(self.call('PUT', instance, 'role',
                                   body={'meta': {'tier': '1'}}), 400,
                         'badRequest', 'URI mismatch')
        self.assertEqual({'role': 'db'}, self.metadata(instance))

    def test_put_of_an_item_takes_exactly_one_item(self):
        instance = self.server({'role': 'db'})
        for meta in ({}, {'role': 'web', 'tier': '1'}):
            self.assertError(self.call('PUT', instance, 'role',
                                       body={'meta': meta}), 400,
                             'badRequest')

    def test_delete_of_an_item_removes_it(self):
        instance = self.server({'role': 'db', 'tier': '1'})
        response = self.call('DELETE', instance, 'role')
        self.assertEqual(204, response.status_int, response.body)
        self.assertEqual({'tier': '1'}, self.metadata(instance))

    def test_delete_of_an_item_it_lacks_is_404(self):
        instance = self.server({'role': 'db'})
        self.assertError(self.call('DELETE', instance, 'tier'), 404,
                         'itemNotFound', 'tier')

    def test_keys_and_values_are_bounded_as_nova_bounds_them(self):
        instance = self.server()
        for metadata in ({'': 'v'}, {'k' * 256: 'v'}, {'k': 'v' * 256},
                         {'bad/key': 'v'}, {'k': 1}, {'k': None}):
            self.assertError(self.call('POST', instance,
                                       body={'metadata': metadata}), 400,
                             'badRequest')
        self.call('POST', instance, body={'metadata': {
            'k' * 255: 'v' * 255, 'a-b_c:d. e': ''}})
        self.assertEqual(2, len(self.metadata(instance)))

    def test_past_the_quota_is_403_counting_what_the_server_has(self):
        self.plane.config.config(metadata_items=2, group='quota')
        instance = self.server({'role': 'db', 'tier': '1'})
        self.assertError(self.call('POST', instance,
                                   body={'metadata': {'az': 'x'}}), 403,
                         'forbidden', 'metadata_items')
        self.assertError(self.call('PUT', instance, 'az',
                                   body={'meta': {'az': 'x'}}), 403,
                         'forbidden', 'metadata_items')
        self.assertEqual({'role': 'db', 'tier': '1'},
                         self.metadata(instance))
        # Replacing is counted on what replaces.
        response = self.call('PUT', instance,
                             body={'metadata': {'a': '1', 'b': '2'}})
        self.assertEqual(200, response.status_int, response.body)

    def test_a_locked_server_refuses_its_owner_not_an_administrator(self):
        instance = self.server({'role': 'db'}, locked=True)
        for method, key, body in (
                ('POST', None, {'metadata': {'az': 'x'}}),
                ('PUT', None, {'metadata': {}}),
                ('PUT', 'role', {'meta': {'role': 'web'}}),
                ('DELETE', 'role', None)):
            self.assertError(self.call(method, instance, key, body), 409,
                             'conflictingRequest', 'is locked')
        self.assertEqual({'role': 'db'}, self.metadata(instance))
        response = self.call('DELETE', instance, 'role', token=base.ADMIN)
        self.assertEqual(204, response.status_int, response.body)

    def test_a_server_in_a_task_or_in_error_is_409(self):
        for fields in ({'task_state': states.REBOOTING},
                       {'vm_state': states.ERROR},
                       {'vm_state': states.SHELVED_OFFLOADED}):
            instance = self.server({'role': 'db'}, **fields)
            self.assertError(self.call('POST', instance,
                                       body={'metadata': {'az': 'x'}}),
                             409, 'conflictingRequest')
            self.assertEqual({'role': 'db'}, self.metadata(instance))

    def test_paused_suspended_and_stopped_servers_change(self):
        for vm_state in (states.PAUSED, states.SUSPENDED, states.STOPPED):
            instance = self.server(vm_state=vm_state)
            response = self.call('POST', instance,
                                 body={'metadata': {'az': 'x'}})
            self.assertEqual(200, response.status_int, response.body)

    def test_a_server_being_scheduled_is_409(self):
        uuid = self.boot().json['server']['id']
        response = self.request('POST', '/v2.1/servers/%s/metadata' % uuid,
                                {'metadata': {'az': 'x'}})
        self.assertError(response, 409, 'conflictingRequest',
                         'being scheduled')

    def test_another_projects_server_is_404(self):
        instance = self.server({'role': 'db'})
        self.assertError(self.call('DELETE', instance, 'role',
                                   token='mallory'), 404, 'itemNotFound')
        self.assertEqual({'role': 'db'}, self.metadata(instance))

    def test_the_server_shows_its_new_metadata(self):
        instance = self.server()
        self.call('PUT', instance, 'role', body={'meta': {'role': 'web'}})
        shown = self.request('GET', '/v2.1/servers/' + instance.uuid)
        self.assertEqual({'role': 'web'}, shown.json['server']['metadata'])
