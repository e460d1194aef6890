"""Rebuild through the real daemons: of a server on its host, and of a
server buried in cell0 (seed 003), which keeps its UUID."""

import json
import time

import pymysql
import requests

from tests.functional import base
from tests.functional import fixtures

OWNER = 'alice:demo'


def _query(database, statement, *args):
    connection = pymysql.connect(host='127.0.0.1', user='root', password='',
                                 database=database)
    try:
        with connection.cursor() as cursor:
            cursor.execute(statement, args)
            return cursor.fetchall()
    finally:
        connection.close()


class RebuildTestCase(base.ControlPlaneTestCase):

    def setUp(self):
        super().setUp()
        self.owner = self.plane.client(OWNER)
        self.api_db, self.cell1_db, self.cell0_db = self.plane.databases

    def allocations(self, server_id):
        return requests.get(
            '%s/allocations/%s' % (self.plane.placement_url, server_id),
            headers={'X-Auth-Token': 'admin'}, timeout=10).json()[
                'allocations']

    def rebuild(self, server_id, version, **arguments):
        arguments.setdefault('imageRef', self.plane.image_id)
        client = self.plane.client(OWNER, microversion=version)
        return client.post('/servers/%s/action' % server_id,
                           {'rebuild': arguments})

    def wait_for_fault(self, server_id, fragment, timeout=60):
        def faulted():
            server = self.plane.client('admin').server(server_id)
            fault = (server or {}).get('fault') or {}
            if server and server['status'] == 'ERROR' and fragment in (
                    fault.get('message', '') + fault.get('details', '')):
                return server
            return None
        return fixtures.wait_for(faulted, timeout,
                                 what='%s in ERROR with "%s"' % (server_id,
                                                                 fragment))

    def actions(self, server_id):
        """Action names of the server's history, newest first, once the
        last one has finished its events."""
        client = self.plane.client('admin', microversion='2.62')

        def finished():
            actions = client.get('/servers/%s/os-instance-actions' %
                                 server_id).json()['instanceActions']
            latest = client.get('/servers/%s/os-instance-actions/%s' % (
                server_id, actions[0]['request_id'])).json()[
                    'instanceAction']
            if all(e['finish_time'] for e in latest['events']):
                return [a['action'] for a in actions]
            return None
        return fixtures.wait_for(finished, 30, what='actions recorded')

    def listed_ids(self):
        return [s['id'] for s in self.owner.get('/servers').json()
                ['servers']]

    def rows(self, database, server_id):
        return list(_query(database, 'SELECT vm_state FROM instances WHERE '
                           'uuid = %s AND deleted = 0', server_id))


class TestRebuildOnHost(RebuildTestCase):

    computes = 1

    def test_rebuild_of_an_active_server_keeps_host_and_allocation(self):
        created = self.owner.create_server('to-rebuild',
                                           image=self.plane.image_id,
                                           networks='none')
        server_id = created['server']['id']
        self.addCleanup(self.owner.delete, '/servers/%s' % server_id)
        before = self.owner.wait_for_status(server_id, 'ACTIVE')
        allocation = self.allocations(server_id)
        new_image = self.plane.manage(
            'image', 'create', 'fedora').stdout.strip().splitlines()[-1]
        response = self.rebuild(server_id, '2.57', imageRef=new_image,
                                name='rebuilt', metadata={'k': 'v'})
        self.assertEqual(202, response.status_code, response.text)
        fixtures.wait_for(
            lambda: self.owner.server(server_id)['image']['id'] ==
            new_image and self.owner.server(server_id)['status'] ==
            'ACTIVE' and self.owner.server(server_id)[
                'OS-EXT-STS:task_state'] is None,
            60, what='rebuilt and ACTIVE')
        after = self.owner.server(server_id)
        self.assertEqual(('rebuilt', {'k': 'v'}, before['hostId']),
                         (after['name'], after['metadata'],
                          after['hostId']))
        self.assertEqual(allocation, self.allocations(server_id))
        self.assertEqual(['rebuild', 'create'], self.actions(server_id))
        self.assertGreaterEqual(after['OS-SRV-USG:launched_at'],
                                before['OS-SRV-USG:launched_at'])

    def test_stopped_server_is_rebuilt_stopped(self):
        created = self.owner.create_server('stopped', networks='none',
                                           image=self.plane.image_id)
        server_id = created['server']['id']
        self.addCleanup(self.owner.delete, '/servers/%s' % server_id)
        self.owner.wait_for_status(server_id, 'ACTIVE')
        response = self.owner.post('/servers/%s/action' % server_id,
                                   {'os-stop': None})
        self.assertEqual(202, response.status_code, response.text)
        self.owner.wait_for_status(server_id, 'SHUTOFF')
        response = self.rebuild(server_id, '2.1')
        self.assertEqual(202, response.status_code, response.text)
        fixtures.wait_for(
            lambda: self.owner.server(server_id)[
                'OS-EXT-STS:task_state'] is None, 60, what='rebuilt')
        self.assertEqual('SHUTOFF', self.owner.server(server_id)['status'])
        response = self.owner.post('/servers/%s/action' % server_id,
                                   {'os-start': None})
        self.assertEqual(202, response.status_code, response.text)
        self.owner.wait_for_status(server_id, 'ACTIVE')

    def test_rebuild_during_a_task_is_409_and_bad_image_400(self):
        created = self.owner.create_server('busy', networks='none',
                                           image=self.plane.image_id)
        server_id = created['server']['id']
        self.addCleanup(self.owner.delete, '/servers/%s' % server_id)
        self.owner.wait_for_status(server_id, 'ACTIVE')
        response = self.rebuild(server_id, '2.1', imageRef='no-such-image')
        self.assertEqual(400, response.status_code, response.text)
        self.assertEqual(202, self.rebuild(server_id, '2.1').status_code)
        # The first rebuild holds the task state until the compute is done.
        second = self.rebuild(server_id, '2.1')
        if second.status_code != 202:
            self.assertEqual(409, second.status_code, second.text)
            self.assertIn('task_state', second.json()[
                'conflictingRequest']['message'])
        stranger = self.plane.client('mallory:other', microversion='2.1')
        response = stranger.post('/servers/%s/action' % server_id,
                                 {'rebuild': {
                                     'imageRef': self.plane.image_id}})
        self.assertEqual(404, response.status_code, response.text)


class TestRebuildFromCell0(RebuildTestCase):
    """One compute (room for three m1.small): a fourth server is buried in
    cell0, then rebuilt once capacity is added."""

    computes = 1

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        # A network the buried servers ask for: kept in their spec, and
        # given to them again when they are rebuilt from cell0.
        response = requests.post(
            cls.plane.network_url + '/v2.0/networks',
            json={'network': {'name': 'private', 'shared': True}},
            headers={'X-Auth-Token': 'admin'}, timeout=10)
        response.raise_for_status()
        cls.network_id = response.json()['network']['id']

    def setUp(self):
        super().setUp()
        # Flavor 99 (64 GiB, never fits) must pass the API's RAM quota.
        self.set_quota(ram=-1)

    def set_quota(self, **quota_set):
        response = self.admin.put('/os-quota-sets/demo',
                                  {'quota_set': quota_set})
        self.assertEqual(200, response.status_code, response.text)

    def _bury(self, name, flavor='2', **extra):
        self.owner.post('/os-keypairs', {'keypair': {'name': 'k-' + name}})
        body = {'server': dict({
            'name': name, 'flavorRef': flavor,
            'imageRef': self.plane.image_id, 'key_name': 'k-' + name,
            'tags': ['pre-emptible', name],
            'networks': [{'uuid': self.network_id}]},
            **extra)}
        client = self.plane.client(OWNER, microversion='2.52')
        response = client.post('/servers', body)
        self.assertEqual(202, response.status_code, response.text)
        server_id = response.json()['server']['id']
        self.wait_for_fault(server_id, 'No valid host')
        return server_id

    def _spec(self, server_id):
        [(spec,)] = _query(self.api_db, 'SELECT spec FROM request_specs '
                                        'WHERE instance_uuid = %s',
                           server_id)
        primitive = json.loads(spec)
        return next(value for key, value in primitive.items()
                    if key.endswith('_object.data'))

    def test_buried_server_is_rebuilt_from_cell0_with_the_same_uuid(self):
        for index in range(3):
            created = self.owner.create_server(
                'fill-%d' % index, image=self.plane.image_id,
                networks='none')
            self.owner.wait_for_status(created['server']['id'], 'ACTIVE')
        server_id = self._bury('buried')
        self.assertEqual(['error'], [r[0] for r in self.rows(self.cell0_db,
                                                             server_id)])
        networks = self._spec(server_id)['requested_networks']
        self.assertIn(self.network_id,
                      json.dumps(networks))

        # Older microversions keep refusing it.
        response = self.rebuild(server_id, '2.64')
        self.assertEqual(409, response.status_code, response.text)
        self.assertIn("Cannot 'rebuild' instance %s while it is in "
                      "vm_state error" % server_id, response.text)

        # Quota lowered since the burial: the conductor refuses and the
        # server is back in cell0, intact and listed once.
        self.set_quota(instances=3, force=True)
        response = self.rebuild(server_id, '2.65')
        self.assertEqual(202, response.status_code, response.text)
        self.wait_for_fault(server_id, 'Quota exceeded')
        self.assertEqual(1, self.listed_ids().count(server_id))
        self.assertEqual(1, len(self.rows(self.cell0_db, server_id)))
        self.assertIn('requested_networks', self._spec(server_id))
        self.assertEqual({}, self.allocations(server_id))
        self.set_quota(instances=-1)

        # Still no room: scheduled again, buried again.
        response = self.rebuild(server_id, '2.65')
        self.assertEqual(202, response.status_code, response.text)
        self.wait_for_fault(server_id, 'No valid host')
        self.assertEqual(1, self.listed_ids().count(server_id))

        # Capacity added: rebuilt to ACTIVE, same UUID, on the new host.
        self.plane.add_compute(2)
        response = self.rebuild(server_id, '2.65')
        self.assertEqual(202, response.status_code, response.text)
        self.assertEqual(server_id, response.json()['server']['id'])
        server = self.plane.client('admin', microversion='2.65'
                                   ).wait_for_status(server_id, 'ACTIVE')
        self.assertEqual(('compute2', 'k-buried',
                          ['buried', 'pre-emptible']),
                         (server['OS-EXT-SRV-ATTR:host'], server['key_name'],
                          sorted(server['tags'])))
        self.assertEqual([], self.rows(self.cell0_db, server_id))
        self.assertEqual(['active'], [r[0] for r in self.rows(
            self.cell1_db, server_id)])
        [(key_data,)] = _query(self.cell1_db, 'SELECT key_data FROM '
                                              'instances WHERE uuid = %s',
                               server_id)
        self.assertTrue(key_data.startswith('ssh-'))
        self.assertIsNone(self._spec(server_id).get('requested_networks'))
        self.assertEqual(1, len(self.allocations(server_id)))
        self.assertEqual(1, self.listed_ids().count(server_id))
        # Its history came along from cell0: the create that found no
        # host, each rebuild (refused over quota, buried again, built).
        self.assertEqual(['rebuild', 'rebuild', 'rebuild', 'create'],
                         self.actions(server_id))
        self.assertEqual(
            (), _query(self.cell0_db, 'SELECT id FROM instance_actions WHERE '
                                      'instance_uuid = %s', server_id))

    def test_personality_server_is_refused_and_stays_buried(self):
        server_id = self._bury('with-files', flavor='99', personality=[
            {'path': '/etc/motd', 'contents': 'aGk='}])
        response = self.rebuild(server_id, '2.65')
        self.assertEqual(409, response.status_code, response.text)
        self.assertIn('personality', response.text)
        self.assertEqual(1, len(self.rows(self.cell0_db, server_id)))

    def test_delete_racing_a_rebuild_from_cell0_leaves_nothing(self):
        server_id = self._bury('raced', flavor='99')
        response = self.rebuild(server_id, '2.65')
        self.assertEqual(202, response.status_code, response.text)
        response = self.owner.delete('/servers/%s' % server_id)
        self.assertEqual(204, response.status_code, response.text)
        self.owner.wait_for_gone(server_id)

        def nothing_left():
            return (not self.rows(self.cell0_db, server_id) and
                    not self.rows(self.cell1_db, server_id) and
                    not _query(self.api_db, 'SELECT id FROM build_requests '
                                            'WHERE instance_uuid = %s',
                               server_id) and
                    server_id not in self.listed_ids())
        # The conductor may still be scheduling the rebuild when the
        # delete lands: whatever it does then (bury the server in cell0
        # again, noticing the BuildRequest is gone) must end with nothing
        # left, and stay so.
        fixtures.wait_for(nothing_left, 30, what='no record left')
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            if not nothing_left():
                # Back for a moment (the conductor burying it again):
                # it must go again.
                fixtures.wait_for(nothing_left, 30, what='gone again')
            time.sleep(0.2)
        self.assertEqual({}, self.allocations(server_id))
