"""The build flow through the real daemons, RabbitMQ and MariaDB."""

import time

import requests

from tests.functional import base
from tests.functional import fixtures


class TestBuild(base.ControlPlaneTestCase):

    def test_boot_goes_active(self):
        created = self.admin.create_server('boot-one',
                                           image=self.plane.image_id)
        server = self.admin.wait_for_status(created['server']['id'],
                                            'ACTIVE')
        self.assertIn(server['OS-EXT-SRV-ATTR:host'],
                      ('compute1', 'compute2'))
        self.assertEqual('active', server['OS-EXT-STS:vm_state'])
        self.assertIsNone(server['OS-EXT-STS:task_state'])

    def test_boot_many_with_max_count(self):
        response = self.admin.post('/servers', {'server': {
            'name': 'many', 'flavorRef': '2', 'imageRef': self.plane.image_id,
            'min_count': 3, 'max_count': 3,
            'return_reservation_id': True}})
        self.assertEqual(202, response.status_code, response.text)
        reservation = response.json()['reservation_id']
        servers = fixtures.wait_for(
            lambda: [s for s in self.admin.get(
                '/servers/detail').json()['servers']
                if s.get('OS-EXT-SRV-ATTR:reservation_id') == reservation
                or s['name'].startswith('many-')],
            what='three servers listed')
        ids = {s['id'] for s in servers}
        self.assertEqual(3, len(ids))
        for server_id in ids:
            self.admin.wait_for_status(server_id, 'ACTIVE')

    def test_delete_frees_the_server(self):
        created = self.admin.create_server('to-delete',
                                           image=self.plane.image_id)
        server_id = created['server']['id']
        self.admin.wait_for_status(server_id, 'ACTIVE')
        response = self.admin.delete('/servers/%s' % server_id)
        self.assertEqual(204, response.status_code, response.text)
        self.admin.wait_for_gone(server_id)
        # Whichever step noticed the delete gave back the scheduler's
        # claim.
        fixtures.wait_for(lambda: requests.get(
            '%s/allocations/%s' % (self.plane.placement_url, server_id),
            headers={'X-Auth-Token': 'admin'}, timeout=10).json()[
                'allocations'] == {}, 30, what='no allocation left')
        listed = [s['id'] for s in self.admin.get('/servers').json()
                  ['servers']]
        self.assertNotIn(server_id, listed)

    def test_no_valid_host_buries_in_cell0_with_fault(self):
        created = self.admin.create_server('too-big', flavor='99',
                                           image=self.plane.image_id)
        server = self.admin.wait_for_status(created['server']['id'], 'ERROR')
        # The owner reads why in short; an administrator also gets the
        # scheduler's count of what removed each host (here placement,
        # which Nova's default filters leave the resources to).
        self.assertEqual('No valid host was found.',
                         server['fault']['message'])
        self.assertIn('0/2 hosts available: 2 not enough free resources in '
                      'placement', server['fault']['details'])
        self.assertEqual(500, server['fault']['code'])
        self.assertIsNone(server['OS-EXT-SRV-ATTR:host'])

    def test_the_owner_sees_the_short_fault_without_the_details(self):
        owner = self.plane.client('alice:demo')
        created = owner.create_server('too-big-for-alice', flavor='99',
                                      image=self.plane.image_id)
        server = owner.wait_for_status(created['server']['id'], 'ERROR')
        self.assertEqual({'code': 500,
                          'message': 'No valid host was found.'},
                         {k: server['fault'][k] for k in ('code',
                                                          'message')})
        self.assertNotIn('details', server['fault'])
        owner.delete('/servers/%s' % server['id'])

    def test_delete_while_scheduling_leaves_nothing(self):
        created = self.admin.create_server('quick-delete',
                                           image=self.plane.image_id)
        server_id = created['server']['id']
        response = self.admin.delete('/servers/%s' % server_id)
        self.assertEqual(204, response.status_code, response.text)
        self.admin.wait_for_gone(server_id)
        # Whichever step noticed the delete gave back the scheduler's
        # claim.
        fixtures.wait_for(lambda: requests.get(
            '%s/allocations/%s' % (self.plane.placement_url, server_id),
            headers={'X-Auth-Token': 'admin'}, timeout=10).json()[
                'allocations'] == {}, 30, what='no allocation left')


class TestReschedule(base.ControlPlaneTestCase):

    # compute1 is much bigger, so the RAM weigher always tries it first; it
    # fails the spawn of servers named "fails-on-1".
    compute_conf = {1: """
        [compute]
        fake_memory_mb = 65536
        fake_fail_spawn_for = fails-on-1
        """}

    def test_failed_spawn_is_rescheduled_to_another_host(self):
        created = self.admin.create_server('fails-on-1',
                                           image=self.plane.image_id)
        server = self.admin.wait_for_status(created['server']['id'],
                                            'ACTIVE')
        self.assertEqual('compute2', server['OS-EXT-SRV-ATTR:host'])
        # compute1 was tried first and gave the build back.
        self.assertIn('Build of %s failed on compute1' % server['id'],
                      self.plane.daemons['compute1'].log())


class TestAllHostsFail(base.ControlPlaneTestCase):

    compute_conf = {1: '[compute]\nfake_fail_spawn_for = *\n',
                    2: '[compute]\nfake_fail_spawn_for = *\n'}

    def test_exhausted_alternates_end_in_error_with_fault(self):
        created = self.admin.create_server('never',
                                           image=self.plane.image_id)
        server = self.admin.wait_for_status(created['server']['id'], 'ERROR')
        self.assertIn('no alternate host is left',
                      server['fault']['message'])
        # It holds nothing anywhere, and the computes' audits (every 2 s)
        # do not give it an allocation back.
        self.assertIsNone(server['OS-EXT-SRV-ATTR:host'])
        time.sleep(5)
        self.assertEqual({}, requests.get(
            '%s/allocations/%s' % (self.plane.placement_url, server['id']),
            headers={'X-Auth-Token': 'admin'}, timeout=10).json()[
                'allocations'])
