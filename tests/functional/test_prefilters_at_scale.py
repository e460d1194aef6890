"""The request pre-filters at scale, through the real daemons: a zone whose
host comes after 5,000 other providers gets its servers.

The real api, conductor, scheduler, placement and network daemons run with
one real compute (``compute1``, the fake driver). Before that compute
starts, 5,000 other compute nodes are written straight into the
databases, as many rows as a 5,000-host cloud has: a compute node row and
a service record in cell1, a host mapping, and a resource provider with
inventory in placement (room for every flavor used here). Their services
have never reported, so the scheduler's filters refuse them -- if
placement offers them. compute1's provider is made after them, so it is
not among the first ``[scheduler] max_placement_results`` (1,000)
providers placement answers.

compute1 is put in an availability-zone aggregate through the API, which
mirrors it into the placement aggregate of the same uuid. A boot into
that zone asks placement for ``member_of`` that aggregate before the
limit, and the servers become ACTIVE on compute1.

Without the pre-filter the same boot gets NoValidHost: placement's
unnarrowed first 1,000 candidates hold no compute1 (checked below on
placement itself, and shown by a boot that names no zone). A one-off run
of ``test_a_zone_past_the_first_thousand_providers_gets_its_servers``
with ``request_filter.placement_query`` made to return an empty
PlacementQuery (the scheduler as it was) ended with the first server in
ERROR, fault "No valid host was found." with the details "0/5001 hosts
available: 1 not enough free resources in placement, 5000 compute service
down or disabled" -- compute1, with room, never offered.
"""

import datetime
import uuid

import requests

from nova_lite.objects import service as service_obj
from tests.functional import base
from tests.functional import fixtures

GHOSTS = 5000
LIMIT = 1000  # [scheduler] max_placement_results, the default
# m1.small (flavor 2), as the scheduler asks placement for it.
SMALL = 'DISK_GB:10,MEMORY_MB:2048,VCPU:1'


def _write_many(plane, database, statement, rows=None):
    """``statement`` run on ``database`` for each of ``rows`` (one batched
    INSERT), or once."""
    import pymysql
    connection = pymysql.connect(host='127.0.0.1', port=plane.mysql_port,
                                 user='root', password='', database=database)
    try:
        with connection.cursor() as cursor:
            if rows is None:
                cursor.execute(statement)
            else:
                cursor.executemany(statement, rows)
        connection.commit()
    finally:
        connection.close()


def add_ghost_computes(plane, count):
    """``count`` compute hosts that exist as rows only (see the module
    docstring); their names are ``ghost00000``..."""
    api, cell1 = plane.databases[0], plane.databases[1]
    now = datetime.datetime.utcnow().replace(microsecond=0)
    ghosts = [('ghost%05d' % index, str(uuid.uuid4()))
              for index in range(count)]
    _write_many(plane, cell1, """
        INSERT INTO compute_nodes (uuid, host, hypervisor_hostname,
            hypervisor_type, hypervisor_version, vcpus, memory_mb, local_gb,
            vcpus_used, memory_mb_used, local_gb_used, free_ram_mb,
            free_disk_gb, running_vms, current_workload, cpu_allocation_ratio,
            ram_allocation_ratio, disk_allocation_ratio, mapped, created_at,
            deleted)
        VALUES (%s, %s, %s, 'fake', 1, 64, 262144, 4000, 0, 0, 0, 262144,
                4000, 0, 0, 4.0, 1.0, 1.0, 1, %s, 0)""",
                [(node, host, host, now) for host, node in ghosts])
    _write_many(plane, cell1, """
        INSERT INTO services (uuid, host, `binary`, topic, report_count,
            disabled, forced_down, version, created_at, deleted)
        VALUES (%s, %s, 'nova-lite-compute', 'compute', 0, 0, 0, %s, %s,
                0)""",
                [(str(uuid.uuid4()), host, service_obj.SERVICE_VERSION, now)
                 for host, _node in ghosts])
    [cell] = fixtures.query(api, "SELECT id FROM cell_mappings WHERE "
                                 "name = 'cell1'", port=plane.mysql_port)
    _write_many(plane, api, """
        INSERT INTO host_mappings (cell_id, host, created_at)
        VALUES (%s, %s, %s)""", [(cell['id'], host, now)
                                 for host, _node in ghosts])
    # Placement: a root provider per node (named as the compute names its
    # own), with the inventory its compute would report.
    _write_many(plane, api, """
        INSERT INTO resource_providers (uuid, name, generation, created_at)
        VALUES (%s, %s, 1, %s)""", [(node, host, now)
                                    for host, node in ghosts])
    _write_many(plane, api, """
        UPDATE resource_providers SET root_provider_id = id
        WHERE root_provider_id IS NULL AND name LIKE 'ghost%'""")
    for class_id, total, max_unit in ((0, 64, 64), (1, 262144, 262144),
                                      (2, 4000, 4000)):
        _write_many(plane, api, """
            INSERT INTO inventories (resource_provider_id, resource_class_id,
                total, reserved, min_unit, max_unit, step_size,
                allocation_ratio, used, created_at)
            SELECT id, %d, %d, 0, 1, %d, 1, 1.0, 0, NOW()
            FROM resource_providers WHERE name LIKE 'ghost%%'""" % (
                class_id, total, max_unit))
    return ghosts


class TestAZoneFarDownThePlacementList(base.ControlPlaneTestCase):

    computes = 0
    # nova-lite-manage audit reads the allocations of every provider, the
    # 5,000 ghosts' included: minutes. Each test checks instead that what
    # its servers held on compute1 is given back.
    audit_after_each_test = False

    @classmethod
    def start_plane(cls):
        plane = super().start_plane()
        try:
            cls.ghosts = add_ghost_computes(plane, GHOSTS)
            # compute1's provider comes after every ghost's. (Not
            # plane.add_compute: its wait reads the first page of
            # os-hypervisors, a thousand ghosts.)
            plane._write_compute_conf(1)
            plane.num_computes = 1
            plane.start_compute(1)
            plane.wait_for_compute_up('compute1')
            plane.manage('cell_v2', 'discover_hosts')
            fixtures.wait_for(lambda: any(
                p['name'] == 'compute1'
                for p in plane.placement_providers_with_room()), 60,
                what='compute1 in placement')
        except Exception:
            logs = plane.logs()
            plane.stop()
            raise AssertionError('control plane did not start:\n' + logs)
        return plane

    def setUp(self):
        super().setUp()
        self.servers = []
        self.addCleanup(self._delete_servers)

    def _delete_servers(self):
        for server_id in self.servers:
            self.admin.delete('/servers/%s' % server_id)
        for server_id in self.servers:
            self.admin.wait_for_gone(server_id)
        compute1 = self.provider_of('compute1')
        fixtures.wait_for(lambda: not self.placement_get(
            '/resource_providers/%s/allocations' % compute1)['allocations'],
            30, what='the allocations on compute1 given back')

    def placement_get(self, path, version='1.35', **params):
        response = requests.get(
            self.plane.placement_url + path, params=params,
            headers={**self.plane.admin_headers,
                     'OpenStack-API-Version': 'placement ' + version},
            timeout=60)
        self.assertEqual(200, response.status_code, response.text)
        return response.json()

    def provider_of(self, host):
        [provider] = self.placement_get(
            '/resource_providers', name=host)['resource_providers']
        return provider['uuid']

    def candidates(self, **narrowing):
        body = self.placement_get('/allocation_candidates', resources=SMALL,
                                  limit=str(LIMIT), **narrowing)
        return {rp for request in body['allocation_requests']
                for rp in request['allocations']}

    def zone(self, name, hosts):
        response = self.admin.post('/os-aggregates', {'aggregate': {
            'name': name, 'availability_zone': name}},
            microversion='2.41')
        self.assertEqual(200, response.status_code, response.text)
        aggregate = response.json()['aggregate']
        self.addCleanup(self.admin.delete,
                        '/os-aggregates/%s' % aggregate['id'])
        for host in hosts:
            response = self.admin.post(
                '/os-aggregates/%s/action' % aggregate['id'],
                {'add_host': {'host': host}})
            self.assertEqual(200, response.status_code, response.text)
            self.addCleanup(self.admin.post,
                            '/os-aggregates/%s/action' % aggregate['id'],
                            {'remove_host': {'host': host}})
        return aggregate['uuid']

    def boot(self, name, **extra):
        server = self.admin.create_server(name, image=self.plane.image_id,
                                          **extra)['server']
        self.servers.append(server['id'])
        return server['id']

    def test_a_zone_past_the_first_thousand_providers_gets_its_servers(self):
        compute1 = self.provider_of('compute1')
        far = self.zone('far', ['compute1'])
        # What the scheduler asked before the pre-filters: the first
        # thousand providers, ghosts only.
        unnarrowed = self.candidates()
        self.assertEqual(LIMIT, len(unnarrowed))
        self.assertNotIn(compute1, unnarrowed)
        # The zone's aggregate is mirrored in placement: narrowed before
        # the limit, compute1 is the one candidate.
        self.assertEqual({compute1}, self.candidates(
            member_of='in:' + far, root_required='!COMPUTE_STATUS_DISABLED'))
        booted = [self.boot('far-%d' % index, availability_zone='far')
                  for index in range(2)]
        for server_id in booted:
            server = self.admin.wait_for_status(server_id, ('ACTIVE',
                                                            'ERROR'))
            self.assertEqual('ACTIVE', server['status'], server.get('fault'))
            self.assertEqual(('compute1', 'far'), (
                server['OS-EXT-SRV-ATTR:host'],
                server['OS-EXT-AZ:availability_zone']))

    def test_sync_aggregates_repairs_a_mirror_placement_missed(self):
        compute1 = self.provider_of('compute1')
        lost = self.zone('lost', ['compute1'])
        # As if compute1 had joined while placement was away.
        mirror = self.placement_get('/resource_providers/%s/aggregates' %
                                    compute1, version='1.19')
        response = requests.put(
            self.plane.placement_url +
            '/resource_providers/%s/aggregates' % compute1,
            json={'aggregates': [a for a in mirror['aggregates']
                                 if a != lost],
                  'resource_provider_generation':
                      mirror['resource_provider_generation']},
            headers={**self.plane.admin_headers,
                     'OpenStack-API-Version': 'placement 1.19'}, timeout=30)
        self.assertEqual(200, response.status_code, response.text)
        stray = self.boot('lost-before', availability_zone='lost')
        self.assertEqual('ERROR', self.admin.wait_for_status(
            stray, ('ACTIVE', 'ERROR'))['status'])
        result = self.plane.manage('placement', 'sync_aggregates',
                                   '--verbose')
        self.assertIn('%d compute node provider(s) checked, 1 updated.' %
                      (GHOSTS + 1), result.stdout)
        server = self.admin.wait_for_status(
            self.boot('lost-after', availability_zone='lost'),
            ('ACTIVE', 'ERROR'))
        self.assertEqual(('ACTIVE', 'compute1'), (
            server['status'], server['OS-EXT-SRV-ATTR:host']))

    def test_without_a_zone_only_the_first_thousand_are_offered(self):
        # The failure the zone pre-filter prevents: unnarrowed, placement
        # offers a thousand ghosts, and compute1 -- with room -- is
        # never weighed.
        server_id = self.boot('anywhere')
        server = self.admin.wait_for_status(server_id, ('ACTIVE', 'ERROR'))
        self.assertEqual('ERROR', server['status'])
        self.assertIn('0/%d hosts available' % (GHOSTS + 1),
                      server['fault']['details'])
        self.assertIn('1 not enough free resources in placement',
                      server['fault']['details'])


class TestTwoComputesOneCandidate(base.ControlPlaneTestCase):
    """Two computes, and ``max_placement_results = 1``: placement offers
    one host only, so what the pre-filters leave out never reaches the
    filters.

    A disabled compute's provider carries COMPUTE_STATUS_DISABLED (the
    compute puts it there when its service is disabled), and the scheduler
    asks placement for roots without it: were the disabled compute offered,
    the ComputeFilter would refuse it and the boot would get NoValidHost
    though the other compute has room. A live migration is narrowed to its
    server's zone like a boot."""

    computes = 2
    extra_conf = """
        [scheduler]
        max_placement_results = 1
        """

    def placement_get(self, path, **params):
        response = requests.get(
            self.plane.placement_url + path, params=params,
            headers={**self.plane.admin_headers,
                     'OpenStack-API-Version': 'placement 1.35'},
            timeout=30)
        self.assertEqual(200, response.status_code, response.text)
        return response.json()

    def first_offered(self, **narrowing):
        body = self.placement_get('/allocation_candidates', resources=SMALL,
                                  limit='1', **narrowing)
        [request] = body['allocation_requests']
        [provider] = request['allocations']
        return provider

    def host_of(self, provider):
        return self.placement_get('/resource_providers/%s' %
                                  provider)['name']

    def set_status(self, host, status):
        [service] = self.admin.get(
            '/os-services?binary=nova-lite-compute&host=%s' % host,
            microversion='2.53').json()['services']
        response = self.admin.put('/os-services/%s' % service['id'],
                                  {'status': status}, microversion='2.53')
        self.assertEqual(200, response.status_code, response.text)

    def test_servers_go_to_the_enabled_compute_placement_offers(self):
        first = self.first_offered()
        disabled, enabled = sorted(
            ['compute1', 'compute2'], key=lambda h: h != self.host_of(first))
        self.set_status(disabled, 'disabled')
        self.addCleanup(self.set_status, disabled, 'enabled')
        fixtures.wait_for(lambda: 'COMPUTE_STATUS_DISABLED' in
                          self.placement_get(
                              '/resource_providers/%s/traits' % first)[
                                  'traits'], 30,
                          what='COMPUTE_STATUS_DISABLED on %s' % disabled)
        # Unnarrowed, placement's one candidate is still the disabled
        # compute; without its trait, the other one.
        self.assertEqual(first, self.first_offered())
        self.assertEqual(enabled, self.host_of(self.first_offered(
            root_required='!COMPUTE_STATUS_DISABLED')))
        servers = [self.admin.create_server(
            'pick-%d' % index, image=self.plane.image_id)['server']['id']
            for index in range(2)]
        for server_id in servers:
            self.addCleanup(self.admin.wait_for_gone, server_id)
            self.addCleanup(self.admin.delete, '/servers/%s' % server_id)
        for server_id in servers:
            server = self.admin.wait_for_status(server_id,
                                                ('ACTIVE', 'ERROR'))
            self.assertEqual('ACTIVE', server['status'], server.get('fault'))
            self.assertEqual(enabled, server['OS-EXT-SRV-ATTR:host'])

    def test_a_live_migration_stays_in_its_zone_unless_forced(self):
        # Moves go through the pre-filters as in Nova (whose default
        # filters have no AvailabilityZoneFilter): the server's zone
        # narrows the placement query. A forced move is not scheduled in
        # Nova at all, so nothing narrows it.
        response = self.admin.post('/os-aggregates', {'aggregate': {
            'name': 'left', 'availability_zone': 'left'}})
        self.assertEqual(200, response.status_code, response.text)
        aggregate_id = response.json()['aggregate']['id']
        self.addCleanup(self.admin.delete, '/os-aggregates/%s' % aggregate_id)
        self.admin.post('/os-aggregates/%s/action' % aggregate_id,
                        {'add_host': {'host': 'compute1'}})
        self.addCleanup(self.admin.post,
                        '/os-aggregates/%s/action' % aggregate_id,
                        {'remove_host': {'host': 'compute1'}})
        server_id = self.admin.create_server(
            'left-lm', image=self.plane.image_id,
            availability_zone='left')['server']['id']
        self.addCleanup(self.admin.wait_for_gone, server_id)
        self.addCleanup(self.admin.delete, '/servers/%s' % server_id)
        self.assertEqual('compute1', self.admin.wait_for_status(
            server_id, 'ACTIVE')['OS-EXT-SRV-ATTR:host'])

        def live_migrate(**arguments):
            response = self.admin.post(
                '/servers/%s/action' % server_id,
                {'os-migrateLive': dict(arguments, block_migration='auto')},
                microversion='2.30')
            self.assertEqual(202, response.status_code, response.text)
            return fixtures.wait_for(
                lambda: (lambda s: s['OS-EXT-STS:task_state'] is None and s)(
                    self.admin.server(server_id)), 60,
                what='live migration over')

        stayed = live_migrate(host=None)
        self.assertEqual(('ACTIVE', 'compute1'), (
            stayed['status'], stayed['OS-EXT-SRV-ATTR:host']))
        moved = live_migrate(host='compute2', force=True)
        self.assertEqual(('ACTIVE', 'compute2'), (
            moved['status'], moved['OS-EXT-SRV-ATTR:host']))
