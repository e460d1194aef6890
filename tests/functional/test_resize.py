"""Resize and cold migration of servers with minimum-bandwidth ports in an
anti-affinity group, through the real daemons and the real CLI.

compute1 is every server's source; compute2 refuses every resize and
cold migration as a destination; compute3 takes them. A filler server on
compute3 makes the scheduler prefer compute2 (more free RAM), so each
move is first refused by compute2 and goes to its alternate, compute3.
"""

from tests.functional import base
from tests.functional import fixtures
from tests.functional import test_port_resources

# Servers boot as m1.small; the resizes go to m1.medium.
SMALL = '2'
MEDIUM = '3'


class ResizeTest(test_port_resources.PortServiceMixin,
                 base.ControlPlaneTestCase):
    computes = 3
    compute_conf = {2: '[compute]\nfake_refuse_resize = true\n'}

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.set_up_network()
        cls.plane.manage('flavor', 'create', 'm1.medium', '--id', MEDIUM,
                         '--ram', '4096', '--vcpus', '2', '--disk', '20')
        admin = cls.plane.client('admin')
        filler = admin.create_server('filler', image=cls.plane.image_id,
                                     networks='none',
                                     availability_zone='nova:compute3')
        admin.wait_for_status(filler['server']['id'], 'ACTIVE')
        response = admin.post('/os-server-groups', {'server_group': {
            'name': 'rz-aa', 'policies': ['anti-affinity']}})
        cls.group_id = response.json()['server_group']['id']

    def boot_on_compute1(self, name):
        """A server of the anti-affinity group on compute1, with a port
        that asks for bandwidth."""
        port = self.qos_port(name)
        created = self.admin.post('/servers', {
            'server': {'name': name, 'flavorRef': '2',
                       'imageRef': self.plane.image_id,
                       'networks': [{'port': port['id']}],
                       'availability_zone': 'nova:compute1'},
            'os:scheduler_hints': {'group': self.group_id}})
        self.assertEqual(202, created.status_code, created.text)
        server = self.admin.wait_for_status(created.json()['server']['id'],
                                            'ACTIVE')
        self.addCleanup(self.admin.wait_for_gone, server['id'])
        self.addCleanup(self.admin.delete, '/servers/%s' % server['id'])
        return server, port

    def action(self, server_id, body, status=202, microversion='2.56'):
        response = self.admin.post('/servers/%s/action' % server_id, body,
                                   microversion=microversion)
        self.assertEqual(status, response.status_code, response.text)

    def migration(self, server_id):
        [row] = fixtures.query(
            self.plane.databases[1],
            'SELECT uuid, migration_type, status, source_compute, '
            'dest_compute, old_instance_type_id, new_instance_type_id '
            'FROM migrations WHERE instance_uuid = %s', server_id)
        return row

    def wait_for_verify(self, server_id):
        return self.admin.wait_for_status(server_id, 'VERIFY_RESIZE')

    def openstack(self, *args):
        """The ``openstack`` CLI (admin token, no Keystone)."""
        result = self.plane.openstack(*args)
        self.assertEqual(0, result.returncode, result.stderr)
        return result.stdout

    def assert_verify_resize_on_compute3(self, server_id, flavor_id,
                                         port_id, source_allocation):
        moved = self.wait_for_verify(server_id)
        self.assertEqual(('compute3', flavor_id),
                         (moved['OS-EXT-SRV-ATTR:host'],
                          moved['flavor']['id']))
        # The server holds compute3 (flavor and bandwidth), its port is
        # bound there with compute3's provider; the migration's consumer
        # holds what the server had on compute1.
        self.assert_bound_here(moved, port_id)
        migration = self.migration(server_id)
        self.assertEqual(source_allocation,
                         self.allocations(migration['uuid']))
        self.assertIn('compute2 refused', self.plane.daemons[
            'conductor'].log())
        return moved, migration

    def test_resize_then_confirm(self):
        server, port = self.boot_on_compute1('rz-confirm')
        before = self.allocations(server['id'])
        self.action(server['id'], {'resize': {'flavorRef': MEDIUM}})
        moved, migration = self.assert_verify_resize_on_compute3(
            server['id'], MEDIUM, port['id'], before)
        self.assertEqual(
            ('resize', 'finished', 'compute1', 'compute3'),
            (migration['migration_type'], migration['status'],
             migration['source_compute'], migration['dest_compute']))
        compute3 = self.node_uuid('compute3')
        self.assertEqual(4096, self.allocations(server['id'])[compute3][
            'MEMORY_MB'])
        listed = self.admin.get('/os-migrations?instance_uuid=%s' %
                                server['id'], microversion='2.59').json()[
            'migrations']
        self.assertEqual([('resize', 'finished')],
                         [(m['migration_type'], m['status'])
                          for m in listed])
        self.assertNotEqual(listed[0]['old_instance_type_id'],
                            listed[0]['new_instance_type_id'])

        self.action(server['id'], {'confirmResize': None}, status=204)
        confirmed = self.admin.wait_for_status(server['id'], 'ACTIVE')
        fixtures.wait_for(lambda: self.migration(server['id'])[
            'status'] == 'confirmed', what='the resize confirmed')
        self.assertEqual('compute3', confirmed['OS-EXT-SRV-ATTR:host'])
        self.assertEqual({}, self.allocations(migration['uuid']))
        self.assert_bound_here(confirmed, port['id'])
        actions = [a['action'] for a in self.admin.get(
            '/servers/%s/os-instance-actions' % server['id']).json()[
            'instanceActions']]
        self.assertEqual(['confirmResize', 'resize', 'create'], actions)

    def test_resize_then_revert(self):
        server, port = self.boot_on_compute1('rz-revert')
        before = self.allocations(server['id'])
        profile = self.port(port['id'])['binding:profile']
        self.action(server['id'], {'resize': {'flavorRef': MEDIUM}})
        moved, migration = self.assert_verify_resize_on_compute3(
            server['id'], MEDIUM, port['id'], before)

        self.action(server['id'], {'revertResize': None})
        fixtures.wait_for(lambda: self.migration(server['id'])[
            'status'] == 'reverted', what='the resize reverted')
        reverted = self.admin.wait_for_status(server['id'], 'ACTIVE')
        self.assertEqual(('compute1', SMALL),
                         (reverted['OS-EXT-SRV-ATTR:host'],
                          reverted['flavor']['id']))
        # Exactly as before: its allocation, its binding and profile.
        self.assertEqual(before, self.allocations(server['id']))
        self.assertEqual({}, self.allocations(migration['uuid']))
        self.assertEqual(profile, self.port(port['id'])['binding:profile'])
        self.assert_bound_here(reverted, port['id'])

    def test_a_stopped_server_stays_stopped_after_revert_and_confirm(self):
        # The vm state to end in is kept in the server's system_metadata,
        # changed in place by the source compute, and read back from the
        # database by the revert and by the confirm.
        server, port = self.boot_on_compute1('rz-stopped')
        self.action(server['id'], {'os-stop': None})
        self.admin.wait_for_status(server['id'], 'SHUTOFF')
        self.action(server['id'], {'resize': {'flavorRef': MEDIUM}})
        self.wait_for_verify(server['id'])
        self.action(server['id'], {'revertResize': None})
        fixtures.wait_for(lambda: self.migration(server['id'])[
            'status'] == 'reverted', what='the resize reverted')
        reverted = self.admin.wait_for_status(server['id'], 'SHUTOFF')
        self.assertEqual('compute1', reverted['OS-EXT-SRV-ATTR:host'])

        self.action(server['id'], {'resize': {'flavorRef': MEDIUM}})
        self.wait_for_verify(server['id'])
        self.action(server['id'], {'confirmResize': None}, status=204)
        fixtures.wait_for(lambda: fixtures.query(
            self.plane.databases[1],
            'SELECT status FROM migrations WHERE instance_uuid = %s '
            'ORDER BY id DESC LIMIT 1', server['id'])[0][
                'status'] == 'confirmed', what='the resize confirmed')
        confirmed = self.admin.wait_for_status(server['id'], 'SHUTOFF')
        self.assertEqual(('compute3', MEDIUM),
                         (confirmed['OS-EXT-SRV-ATTR:host'],
                          confirmed['flavor']['id']))

    def test_migrate_with_a_host_through_the_cli(self):
        server, port = self.boot_on_compute1('rz-cli-host')
        before = self.allocations(server['id'])
        self.openstack('--os-compute-api-version', '2.56', 'server',
                       'migrate', '--host', 'compute3', server['id'])
        moved = self.wait_for_verify(server['id'])
        self.assertEqual(('compute3', SMALL),
                         (moved['OS-EXT-SRV-ATTR:host'],
                          moved['flavor']['id']))
        # The scheduler was asked for compute3 only: compute2, which it
        # prefers otherwise, was never tried.
        self.assertNotIn('%s: compute2 refused' % server['id'],
                         self.plane.daemons['conductor'].log())
        migration = self.migration(server['id'])
        self.assertEqual('migration', migration['migration_type'])
        self.assertEqual(before, self.allocations(migration['uuid']))
        self.assert_bound_here(moved, port['id'])
        self.openstack('server', 'resize', 'confirm', server['id'])
        confirmed = self.admin.wait_for_status(server['id'], 'ACTIVE')
        self.assertEqual('compute3', confirmed['OS-EXT-SRV-ATTR:host'])
        fixtures.wait_for(lambda: self.allocations(migration['uuid']) == {},
                          what='the source allocation given back')

    def test_migrate_and_resize_through_the_cli(self):
        server, port = self.boot_on_compute1('rz-cli')
        before = self.allocations(server['id'])
        # Cold migrate, no host: compute2 refuses, compute3 takes it.
        self.openstack('server', 'migrate', server['id'])
        self.assert_verify_resize_on_compute3(server['id'], SMALL,
                                              port['id'], before)
        self.openstack('server', 'resize', 'revert', server['id'])
        reverted = self.admin.wait_for_status(server['id'], 'ACTIVE')
        self.assertEqual('compute1', reverted['OS-EXT-SRV-ATTR:host'])
        fixtures.wait_for(lambda: self.allocations(server['id']) == before,
                          what='the source allocation back')
        # A resize by flavor name, then its confirmation.
        self.openstack('server', 'resize', '--flavor', 'm1.medium',
                       server['id'])
        self.wait_for_verify(server['id'])
        self.openstack('server', 'resize', 'confirm', server['id'])
        confirmed = self.admin.wait_for_status(server['id'], 'ACTIVE')
        self.assertEqual(('compute3', MEDIUM),
                         (confirmed['OS-EXT-SRV-ATTR:host'],
                          confirmed['flavor']['id']))

    def test_a_resize_to_the_same_flavor_is_refused(self):
        server, _port = self.boot_on_compute1('rz-same')
        self.action(server['id'], {'resize': {'flavorRef': '2'}},
                    status=400)
        self.action(server['id'], {'confirmResize': None}, status=409)
