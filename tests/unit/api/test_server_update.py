"""PUT /servers/{id}: the name, and from 2.19 the description."""

from nova_lite.compute import states
from tests.unit.api import base
from tests.unit.api import test_servers


class TestUpdate(test_servers.ServersTestCase):

    def update(self, uuid, server, version=None, token=base.DEMO):
        return self.request('PUT', '/v2.1/servers/' + uuid,
                            {'server': server}, version=version,
                            token=token)

    def stored(self, instance):
        return self.request('GET', '/v2.1/servers/' + instance.uuid,
                            version='2.19').json['server']

    def test_the_name_is_changed_and_the_server_answered(self):
        instance = self.instance_in_cell(self.cell1, host='host1')
        response = self.update(instance.uuid, {'name': 'renamed'})
        self.assertEqual(200, response.status_int, response.body)
        server = response.json['server']
        self.assertEqual((instance.uuid, 'renamed', 'ACTIVE'),
                         (server['id'], server['name'], server['status']))
        self.assertEqual('renamed', self.stored(instance)['name'])

    def test_the_answer_leaves_out_the_extensions_attributes(self):
        # As Nova before 2.75.
        instance = self.instance_in_cell(self.cell1, host='host1')
        server = self.update(instance.uuid, {'name': 'renamed'},
                             token=base.ADMIN).json['server']
        self.assertEqual([], [key for key in server if key.startswith((
            'OS-EXT-', 'OS-SRV-USG:', 'os-extended-volumes:'))] +
            [key for key in ('key_name', 'config_drive', 'security_groups',
                             'host_status') if key in server])
        for key in ('hostId', 'image', 'flavor', 'metadata', 'links',
                    'OS-DCF:diskConfig', 'accessIPv4', 'addresses'):
            self.assertIn(key, server)

    def test_the_description_from_219(self):
        instance = self.instance_in_cell(self.cell1, host='host1')
        response = self.update(instance.uuid, {'description': 'db'},
                               version='2.19')
        self.assertEqual('db', response.json['server']['description'])
        response = self.update(instance.uuid, {'description': None},
                               version='2.19')
        self.assertIsNone(self.stored(instance)['description'])

    def test_a_description_before_219_is_400(self):
        instance = self.instance_in_cell(self.cell1, host='host1')
        self.assertError(self.update(instance.uuid, {'description': 'db'},
                                     version='2.18'), 400, 'badRequest',
                         'description')

    def test_bad_names_are_400(self):
        instance = self.instance_in_cell(self.cell1, host='host1')
        for name in ('', ' padded ', 'x' * 256, None):
            self.assertError(self.update(instance.uuid, {'name': name}),
                             400, 'badRequest')
        self.assertEqual('in-a-cell', self.stored(instance)['name'])

    def test_other_fields_are_400(self):
        instance = self.instance_in_cell(self.cell1, host='host1')
        self.assertError(self.update(instance.uuid, {'flavorRef': '1'}),
                         400, 'badRequest')

    def test_access_addresses_and_disk_config_are_taken(self):
        instance = self.instance_in_cell(self.cell1, host='host1')
        response = self.update(instance.uuid, {
            'accessIPv4': '192.0.2.1', 'OS-DCF:diskConfig': 'AUTO'})
        self.assertEqual(200, response.status_int, response.body)

    def test_another_projects_server_is_404(self):
        instance = self.instance_in_cell(self.cell1, host='host1')
        self.assertError(self.update(instance.uuid, {'name': 'x'},
                                     token='mallory'), 404, 'itemNotFound')

    def test_a_server_that_never_got_a_host_is_renamed_in_cell0(self):
        instance = self.instance_in_cell(self.cell0, vm_state=states.ERROR)
        response = self.update(instance.uuid, {'name': 'renamed'})
        self.assertEqual('renamed', response.json['server']['name'])
        self.assertEqual('renamed', self.stored(instance)['name'])

    def test_a_server_being_scheduled_is_409(self):
        uuid = self.boot().json['server']['id']
        self.assertError(self.update(uuid, {'name': 'renamed'}), 409,
                         'conflictingRequest', 'being scheduled')

    def test_a_locked_server_is_renamed_by_its_owner(self):
        # Nova does not check the lock for an update.
        instance = self.instance_in_cell(self.cell1, host='host1')
        instance.locked = True
        instance.save()
        response = self.update(instance.uuid, {'name': 'renamed'})
        self.assertEqual(200, response.status_int, response.body)
