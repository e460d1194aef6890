"""Live migration of servers with minimum-bandwidth ports, with the
conductor's reschedule loop (seed 001), through the real daemons.

compute1 is every server's source (its transfers take two seconds and fail
for a server named "doomed-lm"); compute2 refuses every live migration at
its pre-check; compute3 takes them (its pre-check of a server named
"deleted-before-bind" takes eight seconds). A filler server on compute3
makes the scheduler prefer compute2 (more free RAM), so each migration is
first refused by compute2 and rescheduled.
"""

from tests.functional import base
from tests.functional import fixtures
from tests.functional import test_port_resources

LIVE = '2.30'


class LiveMigrationTest(test_port_resources.PortServiceMixin,
                        base.ControlPlaneTestCase):
    computes = 3
    compute_conf = {
        1: '[compute]\nfake_live_migration_seconds = 2\n'
           'fake_fail_live_migration_for = doomed-lm\n',
        2: '[compute]\nfake_refuse_live_migration = true\n',
        3: '[compute]\nfake_live_migration_check_seconds = '
           'deleted-before-bind:8\n',
    }

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.set_up_network()
        admin = cls.plane.client('admin')
        filler = admin.create_server('filler', image=cls.plane.image_id,
                                     networks='none',
                                     availability_zone='nova:compute3')
        admin.wait_for_status(filler['server']['id'], 'ACTIVE')

    def boot_on_compute1(self, name):
        port = self.qos_port(name)
        server = self.boot_with_port(name, port['id'],
                                     availability_zone='nova:compute1')
        self.addCleanup(self.admin.wait_for_gone, server['id'])
        self.addCleanup(self.admin.delete, '/servers/%s' % server['id'])
        return server, port

    def migrate(self, server_id, host=None, **arguments):
        response = self.admin.post(
            '/servers/%s/action' % server_id,
            {'os-migrateLive': dict(arguments, host=host,
                                    block_migration='auto')},
            microversion=LIVE)
        self.assertEqual(202, response.status_code, response.text)

    def migrations(self, server_id):
        return fixtures.query(
            self.plane.databases[1],
            'SELECT id, uuid, status, dest_compute FROM migrations WHERE '
            'instance_uuid = %s ORDER BY id', server_id)

    def wait_for_migration(self, server_id, statuses):
        def over():
            rows = self.migrations(server_id)
            server = self.admin.server(server_id)
            return (rows and rows[-1]['status'] in statuses and
                    server['OS-EXT-STS:task_state'] is None and
                    (rows[-1], server))
        return fixtures.wait_for(over, 60, what='live migration over')

    def bindings(self, port_id):
        return {b['host']: b for b in self.net_ok(
            'GET', '/ports/%s/bindings' % port_id)['bindings']}

    def test_refused_by_compute2_it_moves_to_compute3_with_its_port(self):
        server, port = self.boot_on_compute1('lm')
        before = self.allocations(server['id'])
        self.migrate(server['id'])
        migration, moved = self.wait_for_migration(server['id'],
                                                   ('completed', 'error'))
        self.assertEqual(('completed', 'compute3', 'ACTIVE'),
                         (migration['status'],
                          moved['OS-EXT-SRV-ATTR:host'], moved['status']))
        self.assert_bound_here(moved, port['id'])
        # Only the destination's binding is left, and it is ACTIVE.
        self.assertEqual({'compute3': 'ACTIVE'}, {
            host: b['status'] for host, b in
            self.bindings(port['id']).items()})
        self.assertEqual({}, self.allocations(migration['uuid']))
        self.assertNotEqual(before, self.allocations(server['id']))
        self.assertIn('compute2 refused', self.plane.daemons[
            'conductor'].log())

    def test_when_every_destination_refuses_the_server_stays_put(self):
        server, port = self.boot_on_compute1('stay')
        before = self.allocations(server['id'])
        self.set_agent_up('compute3', False)
        self.addCleanup(self.set_agent_up, 'compute3', True)
        self.migrate(server['id'])
        migration, stayed = self.wait_for_migration(server['id'],
                                                    ('error',))
        self.assertEqual(('ACTIVE', 'compute1'),
                         (stayed['status'], stayed['OS-EXT-SRV-ATTR:host']))
        self.assertEqual(before, self.allocations(server['id']))
        self.assertEqual({}, self.allocations(migration['uuid']))
        self.assertEqual({'compute1': 'ACTIVE'}, {
            host: b['status'] for host, b in
            self.bindings(port['id']).items()})
        self.assert_bound_here(stayed, port['id'])

    def test_a_failed_transfer_is_rolled_back(self):
        server, port = self.boot_on_compute1('doomed-lm')
        before = self.allocations(server['id'])
        self.migrate(server['id'])
        migration, stayed = self.wait_for_migration(server['id'],
                                                    ('error',))
        self.assertEqual(('ACTIVE', 'compute1'),
                         (stayed['status'], stayed['OS-EXT-SRV-ATTR:host']))
        self.assertEqual(before, self.allocations(server['id']))
        self.assertEqual({'compute1': 'ACTIVE'}, {
            host: b['status'] for host, b in
            self.bindings(port['id']).items()})
        self.assert_bound_here(stayed, port['id'])

    def test_abort_of_a_running_migration(self):
        server, port = self.boot_on_compute1('abort-me')
        before = self.allocations(server['id'])
        self.migrate(server['id'])

        def running():
            listed = self.admin.get('/servers/%s/migrations' % server['id'],
                                    microversion='2.24').json()[
                'migrations']
            return [m for m in listed if m['status'] == 'running']
        [migration] = fixtures.wait_for(running, 30, interval=0.05,
                                        what='migration running')
        response = self.admin.delete(
            '/servers/%s/migrations/%s' % (server['id'], migration['id']),
            microversion='2.24')
        self.assertEqual(202, response.status_code, response.text)
        row, stayed = self.wait_for_migration(server['id'], ('cancelled',))
        self.assertEqual('compute1', stayed['OS-EXT-SRV-ATTR:host'])
        self.assertEqual(before, self.allocations(server['id']))
        self.assertEqual({'compute1': 'ACTIVE'}, {
            host: b['status'] for host, b in
            self.bindings(port['id']).items()})

    def test_a_source_restart_mid_transfer_rolls_the_migration_back(self):
        server, port = self.boot_on_compute1('cut-off')
        before = self.allocations(server['id'])
        self.migrate(server['id'])
        fixtures.wait_for(
            lambda: self.migrations(server['id']) and self.migrations(
                server['id'])[-1]['status'] == 'running',
            30, interval=0.05, what='migration running')
        self.plane.daemons['compute1'].kill()
        self.plane.start_compute(1)
        self.plane.wait_for_compute_up('compute1')
        migration, stayed = self.wait_for_migration(server['id'],
                                                    ('error',))
        self.assertEqual(('ACTIVE', 'compute1'),
                         (stayed['status'], stayed['OS-EXT-SRV-ATTR:host']))
        self.assertEqual(before, self.allocations(server['id']))
        self.assertEqual({'compute1': 'ACTIVE'}, {
            host: b['status'] for host, b in
            self.bindings(port['id']).items()})

    def test_a_delete_during_the_transfer_removes_the_server_everywhere(self):
        # The delete reaches the source while the transfer runs, and waits
        # for it there; the destination's last step then finds the server
        # being deleted and drops the guest it received.
        server, port = self.boot_on_compute1('deleted-mid-lm')
        self.migrate(server['id'])
        fixtures.wait_for(
            lambda: self.migrations(server['id']) and self.migrations(
                server['id'])[-1]['status'] == 'running',
            30, interval=0.05, what='migration running')
        response = self.admin.delete('/servers/%s' % server['id'])
        self.assertEqual(204, response.status_code, response.text)
        self.admin.wait_for_gone(server['id'])
        [migration] = [m for m in self.migrations(server['id'])
                       if m['dest_compute'] == 'compute3']
        self.assertEqual('completed', migration['status'])
        self.assertEqual(({}, {}), (self.allocations(server['id']),
                                    self.allocations(migration['uuid'])))
        # The port is left unbound, on no host, and to no server.
        self.assertEqual([''], list(self.bindings(port['id'])))
        self.assertEqual(('', ''), (self.port(port['id'])['device_id'],
                                    self.port(port['id'])['binding:host_id']))
        # It was the race: the source saw its transfer end with the
        # server being deleted.
        self.assertIn('Instance %s was deleted as it finished its live '
                      'migration' % server['id'],
                      self.plane.daemons['compute1'].log())
        for host in ('compute1', 'compute3'):
            errors = [line for line in self.plane.daemons[host].log()
                      .splitlines() if ' ERROR ' in line and
                      server['id'] in line]
            self.assertEqual([], errors, host)
        # (The audit after the test finds no guest left on either host.)

    def test_a_delete_before_the_port_is_bound_leaves_it_bound_nowhere(
            self):
        # The soak's race: the delete releases the port while compute3
        # checks; the conductor's binding there, made on a port bound to
        # no host, becomes the port's own, and the undo unbinds it.
        server, port = self.boot_on_compute1('deleted-before-bind')
        self.migrate(server['id'])
        fixtures.wait_for(
            lambda: 'Live migration of %s: compute2 refused' % server['id']
            in self.plane.daemons['conductor'].log(),
            30, interval=0.05, what='compute2 refusing')
        response = self.admin.delete('/servers/%s' % server['id'])
        self.assertEqual(204, response.status_code, response.text)
        self.admin.wait_for_gone(server['id'])
        released = 'Port %s was released' % port['id']
        fixtures.wait_for(
            lambda: released in self.plane.daemons['conductor'].log(),
            30, what='the conductor finding the port released')
        fixtures.wait_for(
            lambda: self.migrations(server['id'])[-1]['status'] == 'error',
            30, what='the migration ended')
        self.assertEqual({'': 'ACTIVE'}, {
            host: b['status'] for host, b in
            self.bindings(port['id']).items()})
        left = self.port(port['id'])
        self.assertEqual(('', ''), (left['device_id'],
                                    left['binding:host_id']))
        self.assertNotIn('allocation', left['binding:profile'])
        [migration] = self.migrations(server['id'])
        self.assertEqual(({}, {}), (self.allocations(server['id']),
                                    self.allocations(migration['uuid'])))
        # (The audit after the test finds no port left naming an
        # allocation.)

    def anti_affinity_pair(self, name):
        """The ids of two members of a new anti-affinity group, the first
        on compute1, the second on compute3."""
        response = self.admin.post('/os-server-groups', {'server_group': {
            'name': name, 'policies': ['anti-affinity']}})
        group_id = response.json()['server_group']['id']
        ids = []
        for name, zone in ((name + '1', 'nova:compute1'),
                           (name + '3', 'nova:compute3')):
            created = self.admin.post('/servers', {
                'server': {'name': name, 'flavorRef': '2',
                           'imageRef': self.plane.image_id,
                           'networks': 'none', 'availability_zone': zone},
                'os:scheduler_hints': {'group': group_id}},
                microversion='2.37')
            self.assertEqual(202, created.status_code, created.text)
            ids.append(created.json()['server']['id'])
            self.admin.wait_for_status(ids[-1], 'ACTIVE')
            self.addCleanup(self.admin.wait_for_gone, ids[-1])
            self.addCleanup(self.admin.delete, '/servers/%s' % ids[-1])
        return ids

    def refusal(self, server_id):
        """The reason the conductor gave for the server's last live
        migration failing (its event's traceback, as an admin sees it)."""
        actions = self.admin.get('/servers/%s/os-instance-actions' %
                                 server_id).json()['instanceActions']
        request_id = [a['request_id'] for a in actions
                      if a['action'] == 'live-migration'][0]
        events = self.admin.get('/servers/%s/os-instance-actions/%s' % (
            server_id, request_id)).json()['instanceAction']['events']
        [event] = [e for e in events
                   if e['event'] == 'conductor_live_migrate']
        return event['result'], event['traceback']

    def test_an_anti_affinity_member_is_not_moved_next_to_another(self):
        ids = self.anti_affinity_pair('lm-aa')
        self.migrate(ids[0])
        migration, stayed = self.wait_for_migration(ids[0], ('error',))
        # compute3 holds the other member, compute2 refuses: no host.
        self.assertEqual('compute1', stayed['OS-EXT-SRV-ATTR:host'])

    def test_a_named_host_runs_the_filters_unless_forced(self):
        ids = self.anti_affinity_pair('lm-named')
        self.migrate(ids[0], host='compute3')
        migration, stayed = self.wait_for_migration(ids[0], ('error',))
        self.assertEqual(('ACTIVE', 'compute1', 'compute3'),
                         (stayed['status'], stayed['OS-EXT-SRV-ATTR:host'],
                          migration['dest_compute']))
        result, why = self.refusal(ids[0])
        self.assertEqual('Error', result)
        self.assertIn('1 not the requested host, 1 anti-affinity policy',
                      why)
        # Forced, as in Nova, the filters are skipped: it joins the other
        # member.
        self.migrate(ids[0], host='compute3', force=True)
        migration, moved = self.wait_for_migration(ids[0], ('completed',))
        self.assertEqual(('ACTIVE', 'compute3'),
                         (moved['status'], moved['OS-EXT-SRV-ATTR:host']))

    def test_os_migrations_lists_the_records(self):
        server, port = self.boot_on_compute1('listed')
        self.migrate(server['id'])
        self.wait_for_migration(server['id'], ('completed',))
        listed = self.admin.get('/os-migrations?instance_uuid=%s' %
                                server['id'], microversion='2.59').json()[
            'migrations']
        self.assertEqual([('live-migration', 'completed', 'compute1',
                           'compute3')],
                         [(m['migration_type'], m['status'],
                           m['source_compute'], m['dest_compute'])
                          for m in listed])
