"""Two real cells, as an operator sets them up, with real daemons.

cell1 is the fixture's: its database and vhost are also the API's, and its
conductor is the superconductor the API casts builds to. cell2 has a
database and a RabbitMQ vhost of its own, mapped with ``nova-lite-manage
cell_v2 create_cell``; its computes talk only to cell2's conductor, which
holds only cell2's credentials. Servers are placed in the cell of their
host, read, listed, rescheduled and deleted there; the API and the
operator's views (os-hypervisors, os-services) cover both cells.

Each cell's hosts are in an availability zone of their own (az-cell1,
az-cell2), so that a test can say which cell a server must go to.
"""

import time

from tests.functional import base
from tests.functional import fixtures
from tests.functional import placement_fixtures

CELL1_HOSTS = ['compute1']
CELL2_HOSTS = ['compute2', 'compute3']
# compute2 is the biggest host, so the RAM weigher tries it first among
# cell2's; it fails the spawn of servers with this name.
FAILS_ON_COMPUTE2 = 'fails-on-compute2'
# A flavor whose disk no host has (every host has 100 GB), so its servers
# are buried in cell0 -- whatever the RAM and core quotas are.
TOO_BIG = 'too-big-for-any-host'


class TestTwoCells(base.ControlPlaneTestCase):

    computes = len(CELL1_HOSTS)

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        try:
            cls.cell2 = cls.plane.add_cell(
                'cell2', [2, 3], compute_conf={2: """
                    [compute]
                    fake_memory_mb = 16384
                    fake_fail_spawn_for = %s
                    """ % FAILS_ON_COMPUTE2})
            admin = cls.plane.client('admin')
            response = admin.post('/flavors', {'flavor': {
                'id': TOO_BIG, 'name': TOO_BIG, 'ram': 512, 'vcpus': 1,
                'disk': 1000}})
            assert response.status_code == 200, response.text
            for zone, hosts in (('az-cell1', CELL1_HOSTS),
                                ('az-cell2', CELL2_HOSTS)):
                response = admin.post('/os-aggregates', {'aggregate': {
                    'name': zone + '-hosts', 'availability_zone': zone}})
                assert response.status_code == 200, response.text
                aggregate_id = response.json()['aggregate']['id']
                for host in hosts:
                    response = admin.post(
                        '/os-aggregates/%s/action' % aggregate_id,
                        {'add_host': {'host': host}})
                    assert response.status_code == 200, response.text
        except Exception:
            logs = cls.plane.logs()
            cls.plane.stop()
            raise AssertionError('second cell did not start:\n' + logs)

    def setUp(self):
        super().setUp()
        self.placement = placement_fixtures.PlacementClient(
            self.plane.placement_url, '1.28')
        cells = {row['name']: row for row in self.plane.query(
            self.plane.databases[0],
            'SELECT id, uuid, name FROM cell_mappings')}
        self.cell_uuids = {name: row['uuid'] for name, row in cells.items()}
        self.cell_names_by_id = {row['id']: name
                                 for name, row in cells.items()}
        self.cell_databases = {'cell0': self.plane.databases[2],
                               'cell1': self.plane.databases[1],
                               'cell2': self.cell2.database}

    # -- helpers -----------------------------------------------------------

    def boot(self, client, name, zone=None, flavor='2', **extra):
        if zone:
            extra['availability_zone'] = zone
        server_id = client.create_server(name, flavor=flavor,
                                         image=self.plane.image_id,
                                         **extra)['server']['id']
        self.addCleanup(self.delete, server_id)
        return server_id

    def delete(self, server_id):
        self.admin.delete('/servers/%s' % server_id)
        self.admin.wait_for_gone(server_id)

    def cell_of_row(self, server_id):
        """The cells whose database holds a live row of ``server_id``."""
        return [name for name, database in sorted(self.cell_databases.items())
                if self.plane.query(
                    database, 'SELECT id FROM instances WHERE uuid = %s AND '
                              'deleted = 0', (server_id,))]

    def mapped_cell(self, server_id):
        rows = self.plane.query(
            self.plane.databases[0], 'SELECT cell_id FROM instance_mappings '
                                     'WHERE instance_uuid = %s', (server_id,))
        return self.cell_names_by_id.get(rows[0]['cell_id']) if rows else None

    def allocations(self, server_id):
        return self.placement.get('/allocations/%s' % server_id).json()[
            'allocations']

    @staticmethod
    def next_second():
        """Sleep into the next wall-clock second: servers created in
        different seconds have distinct created times in the API."""
        time.sleep(1.05 - time.time() % 1)

    # -- the tests ---------------------------------------------------------

    def test_servers_are_placed_in_the_cell_of_their_host(self):
        in_cell1 = self.boot(self.admin, 'placed-1', 'az-cell1')
        in_cell2 = [self.boot(self.admin, 'placed-2a', 'az-cell2'),
                    self.boot(self.admin, 'placed-2b', 'az-cell2')]
        anywhere = self.boot(self.admin, 'placed-anywhere')
        hosts = {}
        for server_id in [in_cell1, anywhere] + in_cell2:
            server = self.admin.wait_for_status(server_id, 'ACTIVE')
            hosts[server_id] = server['OS-EXT-SRV-ATTR:host']
        self.assertIn(hosts[in_cell1], CELL1_HOSTS)
        for server_id in in_cell2:
            self.assertIn(hosts[server_id], CELL2_HOSTS)
        providers = {p['name']: p['uuid'] for p in self.placement.get(
            '/resource_providers').json()['resource_providers']}
        for server_id, host in hosts.items():
            cell = 'cell1' if host in CELL1_HOSTS else 'cell2'
            # The row is in its host's cell database, and only there; the
            # mapping points the API at that cell.
            self.assertEqual([cell], self.cell_of_row(server_id), host)
            self.assertEqual(cell, self.mapped_cell(server_id), host)
            self.assertEqual([providers[host]],
                             list(self.allocations(server_id)))

    def test_a_failed_spawn_in_cell2_is_rescheduled_by_its_cell_conductor(
            self):
        server_id = self.boot(self.admin, FAILS_ON_COMPUTE2, 'az-cell2')
        server = self.admin.wait_for_status(server_id, 'ACTIVE')
        self.assertEqual('compute3', server['OS-EXT-SRV-ATTR:host'])
        # compute2 was tried first; the reschedule to its alternate in the
        # same cell can only have come from cell2's conductor, the one
        # compute2 reaches.
        self.assertIn('Build of %s failed on compute2' % server_id,
                      self.plane.daemons['compute2'].log())
        self.assertIn('Rescheduling %s to compute3' % server_id,
                      self.plane.daemons[self.cell2.conductor].log())
        self.assertNotIn('Rescheduling %s' % server_id,
                         self.plane.daemons['conductor'].log())
        self.assertEqual(['cell2'], self.cell_of_row(server_id))
        faults = self.plane.query(
            self.cell2.database, 'SELECT host FROM instance_faults WHERE '
                                 'instance_uuid = %s', (server_id,))
        self.assertEqual(['compute2'], [f['host'] for f in faults])
        # compute2 gave its share back; only compute3 holds the server.
        providers = {p['name']: p['uuid'] for p in self.placement.get(
            '/resource_providers').json()['resource_providers']}
        fixtures.wait_for(lambda: list(self.allocations(server_id)) == [
            providers['compute3']], 30, what='allocation on compute3 only')

    def test_the_server_list_merges_every_cell_newest_first_and_pages(self):
        # A project of its own, so that only this test's servers are
        # listed; created one second apart, alternating between the cells
        # and cell0, so the order shows the lists were merged.
        owner = self.plane.client('lister:cells-list')
        plan = [('list-1', 'az-cell1', '2', 'cell1'),
                ('list-2', 'az-cell2', '2', 'cell2'),
                ('list-3', None, TOO_BIG, 'cell0'),
                ('list-4', 'az-cell2', '2', 'cell2'),
                ('list-5', 'az-cell1', '2', 'cell1')]
        ids = {}
        for name, zone, flavor, _cell in plan:
            self.next_second()
            ids[name] = self.boot(owner, name, zone, flavor)
        for name, _zone, flavor, cell in plan:
            owner.wait_for_status(ids[name],
                                  'ERROR' if cell == 'cell0' else 'ACTIVE')
            self.assertEqual([cell], self.cell_of_row(ids[name]), name)
            self.assertEqual(cell, self.mapped_cell(ids[name]), name)

        listed = owner.get('/servers/detail').json()['servers']
        self.assertEqual(['list-5', 'list-4', 'list-3', 'list-2', 'list-1'],
                         [s['name'] for s in listed])
        self.assertEqual(sorted(ids.values()),
                         sorted(s['id'] for s in listed))
        created = [s['created'] for s in listed]
        self.assertEqual(sorted(created, reverse=True), created)

        for limit in (1, 2, 5):
            pages, path = [], '/servers/detail?limit=%d' % limit
            while path is not None:
                body = owner.get(path).json()
                pages.append([s['id'] for s in body['servers']])
                self.assertLessEqual(len(pages[-1]), limit)
                nexts = [link['href'] for link in body.get('servers_links',
                                                           [])
                         if link['rel'] == 'next']
                path = nexts[0].split('/v2.1', 1)[1] if nexts else None
                self.assertLess(len(pages), 10, 'paging does not end')
            walked = [server_id for page in pages for server_id in page]
            self.assertEqual([s['id'] for s in listed], walked, limit)

        # An administrator listing every project sees each once too.
        everyone = [s['id'] for s in self.admin.get(
            '/servers/detail?all_tenants=1').json()['servers']]
        for server_id in ids.values():
            self.assertEqual(1, everyone.count(server_id))
        # A marker that names no server is refused.
        self.assertEqual(400, owner.get(
            '/servers/detail?marker=%s' % self.cell_uuids['cell2'])
            .status_code)

    def test_deleting_a_cell2_server_goes_through_cell2(self):
        server_id = self.boot(self.admin, 'delete-in-cell2', 'az-cell2')
        server = self.admin.wait_for_status(server_id, 'ACTIVE')
        host = server['OS-EXT-SRV-ATTR:host']
        self.assertIn(host, CELL2_HOSTS)
        self.assertTrue(self.allocations(server_id))

        response = self.admin.delete('/servers/%s' % server_id)
        self.assertEqual(204, response.status_code, response.text)
        self.admin.wait_for_gone(server_id)
        # The compute got the terminate (it listens on cell2's vhost only)
        # and deleted the row through cell2's conductor.
        fixtures.wait_for(lambda: 'Instance %s deleted on %s' % (
            server_id, host) in self.plane.daemons[host].log(), 30,
            what='terminate on %s' % host)
        self.assertEqual([], self.cell_of_row(server_id))
        deleted = self.plane.query(
            self.cell2.database, 'SELECT deleted FROM instances WHERE '
                                 'uuid = %s', (server_id,))
        self.assertEqual(1, len(deleted))
        self.assertNotEqual(0, deleted[0]['deleted'])
        fixtures.wait_for(lambda: self.allocations(server_id) == {}, 30,
                          what='no allocation left')

    def test_hypervisors_and_services_of_both_cells_are_listed(self):
        hypervisors = self.admin.get('/os-hypervisors/detail').json()[
            'hypervisors']
        self.assertEqual(sorted(CELL1_HOSTS + CELL2_HOSTS),
                         sorted(h['hypervisor_hostname']
                                for h in hypervisors))
        self.assertEqual({'up'}, {h['state'] for h in hypervisors})
        self.assertEqual(len(hypervisors), len({h['id']
                                                for h in hypervisors}))

        services = self.admin.get('/os-services').json()['services']
        computes = sorted(s['host'] for s in services
                          if s['binary'] == 'nova-lite-compute')
        self.assertEqual(sorted(CELL1_HOSTS + CELL2_HOSTS), computes)
        conductors = {s['host'] for s in services
                      if s['binary'] == 'nova-lite-conductor'}
        self.assertIn('cell2-conductor', conductors)
        self.assertEqual(2, len(conductors))
        self.assertEqual({'up'}, {s['state'] for s in services})
        # Each record is in the database of its own cell.
        for cell, hosts in (('cell1', CELL1_HOSTS), ('cell2', CELL2_HOSTS)):
            rows = self.plane.query(
                self.cell_databases[cell],
                'SELECT host FROM services WHERE `binary` = '
                '\'nova-lite-compute\' AND deleted = 0')
            self.assertEqual(sorted(hosts), sorted(r['host'] for r in rows))

    def test_cell2_is_mapped_with_its_own_database_and_transport(self):
        listed = self.plane.manage('cell_v2', 'list_cells',
                                   '--verbose').stdout
        [row] = [line for line in listed.splitlines()
                 if line.startswith('| cell2 ')]
        self.assertIn(self.cell2.uuid, row)
        self.assertIn(self.cell2.database_url, row)
        self.assertIn(self.cell2.transport_url, row)
        mapped = self.plane.query(
            self.plane.databases[0],
            'SELECT h.host, c.name FROM host_mappings h JOIN cell_mappings '
            'c ON h.cell_id = c.id ORDER BY h.host')
        self.assertEqual(
            [(host, 'cell1') for host in CELL1_HOSTS] +
            [(host, 'cell2') for host in CELL2_HOSTS],
            [(m['host'], m['name']) for m in mapped])
        # Its computes hold no database credentials; its conductor holds
        # cell2's only, not the API database's.
        for index in (2, 3):
            with open(self.plane.compute_confs[index]) as f:
                self.assertNotIn('connection', f.read())
        with open(self.plane.daemons[self.cell2.conductor]
                  .config_files[0]) as f:
            conductor_conf = f.read()
        self.assertNotIn('api_database', conductor_conf)
        self.assertIn(self.cell2.database_url, conductor_conf)
        # create_cell synced cell2's schema to the same revision as cell1.
        revisions = [self.plane.query(
            database, 'SELECT version_num FROM alembic_version')
            for database in (self.plane.databases[1], self.cell2.database)]
        self.assertEqual(revisions[0], revisions[1])
        self.assertTrue(revisions[1])
