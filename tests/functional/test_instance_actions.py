"""Instance actions and server tags through the real daemons, RabbitMQ and
MariaDB: the computes record their events through the conductor, and the
openstack CLI reads them and sets tags."""

from tests.functional import base
from tests.functional import fixtures

BUILD_EVENT = 'compute_build_and_run_instance'
TERMINATE_EVENT = 'compute_terminate_instance'


class TestInstanceActions(base.ControlPlaneTestCase):

    computes = 1
    # A server named "doomed" fails to spawn; with one compute there is no
    # alternate host, so it ends in ERROR.
    compute_conf = {1: '[compute]\nfake_fail_spawn_for = doomed\n'}

    def setUp(self):
        super().setUp()
        self.owner = self.plane.client('alice:demo', microversion='2.62')
        self.admin_262 = self.plane.client('admin', microversion='2.62')

    def boot(self, name, client=None):
        """Boot ``name``; (server id, request id of the create)."""
        response = (client or self.owner).post(
            '/servers', {'server': {'name': name, 'flavorRef': '2',
                                    'imageRef': self.plane.image_id,
                                    'networks': 'none'}},
            headers={'OpenStack-API-Version': 'compute 2.37'})
        self.assertEqual(202, response.status_code, response.text)
        return (response.json()['server']['id'],
                response.headers['X-OpenStack-Request-Id'])

    def delete(self, server_id, client=None):
        response = (client or self.owner).delete('/servers/%s' % server_id)
        self.assertEqual(204, response.status_code, response.text)
        return response.headers['X-OpenStack-Request-Id']

    def action(self, client, server_id, request_id):
        response = client.get('/servers/%s/os-instance-actions/%s' %
                              (server_id, request_id))
        self.assertEqual(200, response.status_code, response.text)
        return response.json()['instanceAction']

    def finished_event(self, client, server_id, request_id, name):
        """The event ``name`` of an action, once it has a result."""
        def finished():
            try:
                events = self.action(client, server_id,
                                     request_id)['events']
            except AssertionError:
                return None  # the action is not recorded yet
            return next((e for e in events
                         if e['event'] == name and e['result']), None)
        return fixtures.wait_for(finished, 30,
                                 what='event %s finished' % name)

    def test_build_and_delete_are_recorded_with_their_compute_events(self):
        server_id, create_id = self.boot('recorded')
        self.owner.wait_for_status(server_id, 'ACTIVE')
        build = self.finished_event(self.admin_262, server_id, create_id,
                                    BUILD_EVENT)
        self.assertEqual(('Success', 'compute1', None),
                         (build['result'], build['host'],
                          build['traceback']))
        # The owner sees events from 2.51, without traceback or host.
        owners_view = self.finished_event(self.owner, server_id, create_id,
                                          BUILD_EVENT)
        self.assertNotIn('traceback', owners_view)
        self.assertNotIn('host', owners_view)
        self.assertEqual(build['hostId'], owners_view['hostId'])
        self.assertEqual(
            self.owner.get('/servers/%s' % server_id).json()['server']
            ['hostId'], owners_view['hostId'])

        delete_id = self.delete(server_id)
        self.owner.wait_for_gone(server_id)
        terminate = self.finished_event(self.admin_262, server_id,
                                        delete_id, TERMINATE_EVENT)
        self.assertEqual(('Success', 'compute1'),
                         (terminate['result'], terminate['host']))
        actions = self.owner.get('/servers/%s/os-instance-actions' %
                                 server_id).json()['instanceActions']
        self.assertEqual('delete', actions[0]['action'])
        self.assertEqual(delete_id, actions[0]['request_id'])
        self.assertEqual('alice', actions[0]['user_id'])
        self.assertIn(create_id, [a['request_id'] for a in actions])
        # A deleted server's history needs 2.21.
        old = self.plane.client('alice:demo', microversion='2.20')
        self.assertEqual(404, old.get('/servers/%s/os-instance-actions' %
                                      server_id).status_code)

    def test_a_failed_build_is_an_error_event(self):
        server_id, create_id = self.boot('doomed')
        self.owner.wait_for_status(server_id, 'ERROR')
        build = self.finished_event(self.admin_262, server_id, create_id,
                                    BUILD_EVENT)
        self.assertEqual(('Error', 'compute1'),
                         (build['result'], build['host']))
        self.assertEqual('Error', self.action(self.owner, server_id,
                                              create_id)['message'])
        self.delete(server_id)

    def test_another_project_cannot_read_the_actions(self):
        server_id, create_id = self.boot('private')
        mallory = self.plane.client('mallory', microversion='2.62')
        for path in ('/servers/%s/os-instance-actions' % server_id,
                     '/servers/%s/os-instance-actions/%s' % (server_id,
                                                             create_id)):
            self.assertEqual(404, mallory.get(path).status_code)
        response = self.owner.get('/servers/%s/os-instance-actions/req-no' %
                                  server_id)
        self.assertEqual(404, response.status_code)
        self.assertIn('req-no', response.json()['itemNotFound']['message'])
        self.owner.wait_for_status(server_id, 'ACTIVE')
        self.delete(server_id)

    # -- tags --------------------------------------------------------------

    def test_tags_through_the_rest_api(self):
        client = self.plane.client('alice:demo', microversion='2.26')
        server_id, _create_id = self.boot('tagged')
        client.wait_for_status(server_id, 'ACTIVE')
        path = '/servers/%s/tags' % server_id
        self.assertEqual(201, client.put(path + '/blue').status_code)
        self.assertEqual(204, client.put(path + '/blue').status_code)
        self.assertEqual(204, client.get(path + '/blue').status_code)
        self.assertEqual(404, client.get(path + '/red').status_code)
        response = client.put(path, {'tags': ['red', 'green']})
        self.assertEqual(200, response.status_code, response.text)
        self.assertEqual(['red', 'green'], client.get(path).json()['tags'])
        listed = client.get('/servers?tags=red,green').json()['servers']
        self.assertEqual([server_id], [s['id'] for s in listed])
        self.assertEqual([], client.get('/servers?tags=blue').json()
                         ['servers'])
        self.assertEqual(204, client.delete(path + '/red').status_code)
        self.assertEqual(['green'], client.server(server_id)['tags'])
        self.assertEqual(204, client.delete(path).status_code)
        self.assertEqual([], client.get(path).json()['tags'])
        self.assertEqual(400, client.put(path + '/a,b').status_code)
        self.delete(server_id)

    # -- the openstack CLI -------------------------------------------------

    def _openstack(self, *args):
        result = self.plane.openstack(*args)
        self.assertEqual(0, result.returncode, result.stderr)
        return result.stdout

    def test_openstack_cli_server_events(self):
        server_id, create_id = self.boot('cli-events', client=self.admin)
        self.admin.wait_for_status(server_id, 'ACTIVE')
        self.finished_event(self.admin_262, server_id, create_id,
                            BUILD_EVENT)
        listed = self._openstack('server', 'event', 'list', 'cli-events',
                                 '-f', 'value', '-c', 'Request ID',
                                 '-c', 'Action')
        self.assertIn('%s create' % create_id, listed.splitlines())
        shown = self._openstack('--os-compute-api-version', '2.62',
                                'server', 'event', 'show', 'cli-events',
                                create_id, '-f', 'json')
        self.assertIn(BUILD_EVENT, shown)
        self.assertIn('compute1', shown)
        delete_id = self.delete(server_id, client=self.admin)
        self.admin.wait_for_gone(server_id)
        listed = self._openstack('--os-compute-api-version', '2.21',
                                 'server', 'event', 'list', server_id,
                                 '-f', 'value', '-c', 'Request ID',
                                 '-c', 'Action')
        self.assertIn('%s delete' % delete_id, listed.splitlines())

    def test_openstack_cli_server_tags(self):
        server_id, _create_id = self.boot('cli-tags', client=self.admin)
        self.admin.wait_for_status(server_id, 'ACTIVE')
        self._openstack('--os-compute-api-version', '2.26', 'server', 'set',
                        '--tag', 'blue', '--tag', 'green', 'cli-tags')
        shown = self._openstack('--os-compute-api-version', '2.26',
                                'server', 'show', 'cli-tags', '-f', 'value',
                                '-c', 'tags')
        self.assertIn('blue', shown)
        self.assertIn('green', shown)
        listed = self._openstack('--os-compute-api-version', '2.26',
                                 'server', 'list', '--tags', 'blue',
                                 '-f', 'value', '-c', 'Name')
        self.assertEqual(['cli-tags'], listed.split())
        self._openstack('--os-compute-api-version', '2.26', 'server',
                        'unset', '--tag', 'blue', 'cli-tags')
        tags = self.admin.get('/servers/%s/tags' % server_id, headers={
            'OpenStack-API-Version': 'compute 2.26'}).json()['tags']
        self.assertEqual(['green'], tags)
        self.delete(server_id, client=self.admin)
