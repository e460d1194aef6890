"""Servers whose ports carry resource requests (minimum bandwidth, seed
001), through the real daemons: build, failed bindings, evacuation.

Every compute reports 10000 kbps each way on physnet0 (the fixture's
``[network] bandwidths``); the port service offers that to placement as a
child provider of the compute's node. A port on physnet0 with a QoS policy
asking 1000 kbps each way must be placed where the bandwidth is, bound
with ``binding:profile.allocation`` naming that provider, and keep that
true across moves. The audit after each test (base class) checks the same
for every server.
"""

import requests

from tests.functional import base
from tests.functional import fixtures

MIN_KBPS = 1000


class PortServiceMixin:

    # 'admin' is the plane's administrator in any auth mode
    # (plane.admin_headers); another token is sent as it is.
    @classmethod
    def net(cls, method, path, body=None, token='admin'):
        headers = (cls.plane.admin_headers if token == 'admin'
                   else {'X-Auth-Token': token})
        response = requests.request(
            method, cls.plane.network_url + '/v2.0' + path, json=body,
            headers=headers, timeout=30)
        return response

    @classmethod
    def net_ok(cls, method, path, body=None):
        response = cls.net(method, path, body)
        assert response.status_code < 300, (method, path, response.text)
        return response.json() if response.content else None

    @classmethod
    def set_up_network(cls):
        cls.network = cls.net_ok('POST', '/networks', {'network': {
            'name': 'physnet0-net', 'shared': True,
            'provider:network_type': 'flat',
            'provider:physical_network': 'physnet0'}})['network']
        cls.policy = cls.net_ok('POST', '/qos/policies', {'policy': {
            'name': 'min-bw', 'shared': True}})['policy']
        for direction in ('egress', 'ingress'):
            cls.net_ok('POST', '/qos/policies/%s/minimum_bandwidth_rules' %
                       cls.policy['id'], {'minimum_bandwidth_rule': {
                           'min_kbps': MIN_KBPS, 'direction': direction}})
        cls.bandwidth_providers = {
            p['parent_provider_uuid']: p['uuid'] for p in
            cls.plane.wait_for_bandwidth_providers(cls.computes)}

    def qos_port(self, name='p'):
        return self.net_ok('POST', '/ports', {'port': {
            'name': name, 'network_id': self.network['id'],
            'qos_policy_id': self.policy['id']}})['port']

    def port(self, port_id):
        return self.net_ok('GET', '/ports/%s' % port_id)['port']

    def placement(self, path):
        response = requests.get(
            self.plane.placement_url + path,
            headers={**self.plane.admin_headers,
                     'OpenStack-API-Version': 'placement 1.28'}, timeout=10)
        response.raise_for_status()
        return response.json()

    def allocations(self, consumer):
        return {rp: a['resources'] for rp, a in self.placement(
            '/allocations/%s' % consumer)['allocations'].items()}

    def node_uuid(self, host):
        [hypervisor] = [h for h in self.admin.get(
            '/os-hypervisors/detail', microversion='2.53').json()[
            'hypervisors'] if h['service']['host'] == host]
        return hypervisor['id']

    def boot_with_port(self, name, port_id, status='ACTIVE', **extra):
        created = self.admin.create_server(
            name, image=self.plane.image_id, networks=[{'port': port_id}],
            **extra)
        server_id = created['server']['id']
        return self.admin.wait_for_status(server_id, status)

    def assert_bound_here(self, server, port_id):
        host = server['OS-EXT-SRV-ATTR:host']
        node = self.node_uuid(host)
        bandwidth_rp = self.bandwidth_providers[node]
        allocations = self.allocations(server['id'])
        self.assertEqual({node, bandwidth_rp}, set(allocations))
        self.assertEqual({'NET_BW_EGR_KILOBIT_PER_SEC': MIN_KBPS,
                          'NET_BW_IGR_KILOBIT_PER_SEC': MIN_KBPS},
                         allocations[bandwidth_rp])
        port = self.port(port_id)
        self.assertEqual(server['id'], port['device_id'])
        self.assertEqual(host, port['binding:host_id'])
        self.assertEqual(bandwidth_rp, port['binding:profile']['allocation'])
        return port

    def wait_for_rest(self, server_id, what='task over'):
        """The server once no task is in progress on it."""
        def at_rest():
            server = self.admin.server(server_id)
            return server if server['OS-EXT-STS:task_state'] is None and \
                server['status'] != 'BUILD' else None
        return fixtures.wait_for(at_rest, what=what)

    def agent_of(self, host):
        [agent] = self.net_ok('GET', '/agents?host=%s' % host)['agents']
        return agent

    def set_agent_up(self, host, up):
        self.net_ok('PUT', '/agents/%s' % self.agent_of(host)['id'],
                    {'agent': {'admin_state_up': up}})


class BuildWithPortResourcesTest(PortServiceMixin,
                                 base.ControlPlaneTestCase):
    computes = 3

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.set_up_network()

    def test_port_bandwidth_is_allocated_and_named_in_the_binding(self):
        port = self.qos_port()
        server = self.boot_with_port('bw', port['id'])
        self.assert_bound_here(server, port['id'])

        self.admin.delete('/servers/%s' % server['id'])
        self.admin.wait_for_gone(server['id'])
        fixtures.wait_for(lambda: not self.allocations(server['id']),
                          what='allocation deleted')
        released = self.port(port['id'])
        # The user's port survives its server, unbound.
        self.assertEqual('', released['device_id'])
        self.assertFalse(released['binding:host_id'])
        self.assertNotIn('allocation', released['binding:profile'])

    def test_a_port_made_for_a_requested_network_goes_with_its_server(self):
        created = self.admin.create_server(
            'on-net', image=self.plane.image_id,
            networks=[{'uuid': self.network['id']}])
        server = self.admin.wait_for_status(created['server']['id'],
                                            'ACTIVE')
        [port] = self.net_ok('GET', '/ports?device_id=%s' %
                             server['id'])['ports']
        self.assertEqual(server['OS-EXT-SRV-ATTR:host'],
                         port['binding:host_id'])
        self.admin.delete('/servers/%s' % server['id'])
        self.admin.wait_for_gone(server['id'])
        self.assertEqual(404, self.net('GET', '/ports/%s' %
                                       port['id']).status_code)

    def test_a_port_in_use_is_refused_with_409(self):
        port = self.qos_port()
        server = self.boot_with_port('owner', port['id'])
        response = self.admin.post('/servers', {'server': {
            'name': 'thief', 'flavorRef': '2',
            'imageRef': self.plane.image_id,
            'networks': [{'port': port['id']}]}})
        self.assertEqual(409, response.status_code, response.text)
        self.assertIn(port['id'], response.json()['conflictingRequest'][
            'message'])
        self.admin.delete('/servers/%s' % server['id'])
        self.admin.wait_for_gone(server['id'])

    def test_another_projects_port_naming_a_server_is_never_the_servers(
            self):
        # Project b's server, with a port the compute made for it.
        owner = self.plane.client('bob:b')
        created = owner.create_server(
            'victim', image=self.plane.image_id,
            networks=[{'uuid': self.network['id']}])
        server = owner.wait_for_status(created['server']['id'], 'ACTIVE')
        # Project a writes that server's uuid into a port of its own with
        # a bandwidth request (Neutron lets a port's owner do so).
        response = self.net('POST', '/ports', {'port': {
            'name': 'intruder', 'network_id': self.network['id'],
            'qos_policy_id': self.policy['id'], 'device_id': server['id'],
            'device_owner': 'compute:nova'}}, token='alice:a')
        self.assertEqual(201, response.status_code, response.text)
        intruder = response.json()['port']
        self.addCleanup(self.net, 'DELETE', '/ports/%s' % intruder['id'])

        # It does not show on the server.
        shown = owner.server(server['id'])
        self.assertNotIn(intruder['id'], str(shown))
        self.assertNotIn(intruder['mac_address'], str(shown))
        # Shelved and unshelved, the server is scheduled and bound again
        # with its own port only: the intruder is neither bound nor asks
        # placement for bandwidth on the server's behalf.
        for action, status in (('shelve', 'SHELVED_OFFLOADED'),
                               ('unshelve', 'ACTIVE')):
            response = owner.post('/servers/%s/action' % server['id'],
                                  {action: None})
            self.assertEqual(202, response.status_code, response.text)
            server = owner.wait_for_status(server['id'], status)
        self.wait_for_rest(server['id'])
        untouched = self.port(intruder['id'])
        self.assertEqual((server['id'], None),
                         (untouched['device_id'],
                          untouched['binding:host_id'] or None))
        self.assertNotIn('allocation', untouched['binding:profile'])
        self.assertEqual(
            set(), {rc for resources in self.allocations(
                server['id']).values() for rc in resources
                if rc.startswith('NET_BW')})

        # Deleted, the server takes its own port along and leaves the
        # intruder as its owner wrote it.
        [own] = self.net_ok('GET', '/ports?device_id=%s&project_id=b' %
                            server['id'])['ports']
        self.assertEqual(204, owner.delete('/servers/%s' %
                                           server['id']).status_code)
        owner.wait_for_gone(server['id'])
        self.assertEqual(404, self.net('GET', '/ports/%s' %
                                       own['id']).status_code)
        left = self.port(intruder['id'])
        self.assertEqual((server['id'], 'compute:nova'),
                         (left['device_id'], left['device_owner']))

    def test_an_unknown_port_is_refused_with_400(self):
        response = self.admin.post('/servers', {'server': {
            'name': 'ghost', 'flavorRef': '2',
            'imageRef': self.plane.image_id,
            'networks': [{'port': '9a1f3c0e-3e0b-4c55-9a35-5a2a0b6f4e11'}]}})
        self.assertEqual(400, response.status_code, response.text)
        self.assertIn('could not be found', response.text)

    def test_a_binding_that_fails_reschedules_to_a_host_that_binds(self):
        # Two agents down: whichever of them the scheduler picks first
        # fails to bind, and the build moves on to the one that binds.
        self.set_agent_up('compute1', False)
        self.set_agent_up('compute2', False)
        self.addCleanup(self.set_agent_up, 'compute1', True)
        self.addCleanup(self.set_agent_up, 'compute2', True)
        port = self.qos_port()
        server = self.boot_with_port('resched', port['id'])
        self.assertEqual('compute3', server['OS-EXT-SRV-ATTR:host'])
        self.assert_bound_here(server, port['id'])
        self.admin.delete('/servers/%s' % server['id'])
        self.admin.wait_for_gone(server['id'])

    def test_no_host_binds_the_port_so_the_server_fails_holding_nothing(self):
        for host in ('compute1', 'compute2', 'compute3'):
            self.set_agent_up(host, False)
            self.addCleanup(self.set_agent_up, host, True)
        port = self.qos_port()
        server = self.boot_with_port('unbindable', port['id'],
                                     status='ERROR')
        self.assertIn('fault', server)
        self.assertEqual({}, self.allocations(server['id']))
        unbound = self.port(port['id'])
        self.assertEqual('', unbound['device_id'])
        self.assertFalse(unbound['binding:host_id'])
        self.admin.delete('/servers/%s' % server['id'])
        self.admin.wait_for_gone(server['id'])


class EvacuateWithPortResourcesTest(PortServiceMixin,
                                    base.ControlPlaneTestCase):
    computes = 3
    # A server named "doomed" cannot be spawned on compute2 or compute3.
    compute_conf = {index: '[compute]\nfake_fail_spawn_for = doomed\n'
                    for index in (2, 3)}

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.set_up_network()

    def service(self, host):
        [service] = [s for s in self.admin.get(
            '/os-services?binary=nova-lite-compute',
            microversion='2.53').json()['services'] if s['host'] == host]
        return service

    def set_forced_down(self, host, forced):
        response = self.admin.put(
            '/os-services/%s' % self.service(host)['id'],
            {'forced_down': forced}, microversion='2.53')
        self.assertEqual(200, response.status_code, response.text)

    def evacuate(self, server_id, microversion='2.29', **arguments):
        return self.admin.post('/servers/%s/action' % server_id,
                               {'evacuate': arguments},
                               microversion=microversion)

    def migrations(self, server_id):
        return fixtures.query(
            self.plane.databases[1],
            'SELECT uuid, status, source_compute, dest_compute FROM '
            'migrations WHERE instance_uuid = %s ORDER BY id', server_id)

    def test_evacuation_moves_allocation_and_binding_and_source_cleans(self):
        port = self.qos_port()
        server = self.boot_with_port('evac', port['id'])
        source = server['OS-EXT-SRV-ATTR:host']
        source_node = self.node_uuid(source)
        index = int(source[len('compute'):])

        # Refused while the source compute is up.
        response = self.evacuate(server['id'])
        self.assertEqual(400, response.status_code, response.text)
        self.assertIn('still in use', response.text)

        self.plane.daemons[source].stop()
        fixtures.wait_for(lambda: self.service(source)['state'] == 'down',
                          what='%s down' % source)
        response = self.evacuate(server['id'])
        self.assertEqual(200, response.status_code, response.text)
        evacuated = self.wait_for_rest(server['id'])
        self.assertEqual('ACTIVE', evacuated['status'])
        dest = evacuated['OS-EXT-SRV-ATTR:host']
        self.assertNotEqual(source, dest)
        moved = self.assert_bound_here(evacuated, port['id'])
        [migration] = self.migrations(server['id'])
        self.assertEqual(('done', source, dest),
                         (migration['status'], migration['source_compute'],
                          migration['dest_compute']))
        # The source side is the migration's until the source is back.
        self.assertEqual(
            {source_node, self.bandwidth_providers[source_node]},
            set(self.allocations(migration['uuid'])))

        self.plane.start_compute(index)
        self.plane.wait_for_compute_up(source)
        fixtures.wait_for(
            lambda: self.migrations(server['id'])[0]['status'] ==
            'completed', what='evacuation cleaned up on %s' % source)
        self.assertEqual({}, self.allocations(migration['uuid']))
        # The cleanup left the port alone: it points at the destination.
        self.assertEqual(moved, self.port(port['id']))
        self.assert_bound_here(self.admin.server(server['id']), port['id'])

        self.admin.delete('/servers/%s' % server['id'])
        self.admin.wait_for_gone(server['id'])

    def test_evacuation_with_no_valid_host_leaves_the_server_on_source(self):
        port = self.qos_port()
        server = self.boot_with_port('stuck', port['id'])
        source = server['OS-EXT-SRV-ATTR:host']
        before = self.allocations(server['id'])
        others = [h for h in ('compute1', 'compute2', 'compute3')
                  if h != source]
        for host in others:
            self.admin.put('/os-services/%s' % self.service(host)['id'],
                           {'status': 'disabled'}, microversion='2.53')
        self.set_forced_down(source, True)
        try:
            response = self.evacuate(server['id'])
            self.assertEqual(200, response.status_code, response.text)
            failed = self.wait_for_rest(server['id'])
        finally:
            self.set_forced_down(source, False)
            for host in others:
                self.admin.put('/os-services/%s' % self.service(host)['id'],
                               {'status': 'enabled'}, microversion='2.53')
        self.assertEqual(source, failed['OS-EXT-SRV-ATTR:host'])
        self.assertIn('No valid host', failed['fault']['message'])
        self.assertEqual(before, self.allocations(server['id']))
        [migration] = self.migrations(server['id'])
        self.assertEqual('error', migration['status'])
        self.assertEqual({}, self.allocations(migration['uuid']))
        self.assert_bound_here(failed, port['id'])
        self.admin.delete('/servers/%s' % server['id'])
        self.admin.wait_for_gone(server['id'])

    def assert_back_on_source(self, server_id, port_id, before, source):
        failed = self.wait_for_rest(server_id)
        self.assertEqual('ERROR', failed['status'])
        self.assertEqual(source, failed['OS-EXT-SRV-ATTR:host'])
        self.assertEqual(before, self.allocations(server_id))
        [migration] = self.migrations(server_id)
        self.assertEqual('failed', migration['status'])
        self.assertEqual({}, self.allocations(migration['uuid']))
        self.assert_bound_here(failed, port_id)
        return failed

    def test_a_failed_spawn_on_the_destination_undoes_the_evacuation(self):
        port = self.qos_port()
        server = self.boot_with_port('doomed', port['id'],
                                     availability_zone='nova:compute1')
        before = self.allocations(server['id'])
        self.set_forced_down('compute1', True)
        self.addCleanup(self.set_forced_down, 'compute1', False)
        response = self.evacuate(server['id'])
        self.assertEqual(200, response.status_code, response.text)
        failed = self.assert_back_on_source(server['id'], port['id'],
                                            before, 'compute1')
        self.assertIn('fake_fail_spawn_for', failed['fault']['details'])
        self.admin.delete('/servers/%s' % server['id'])
        self.admin.wait_for_gone(server['id'])

    def test_a_binding_that_fails_on_the_destination_undoes_it_too(self):
        port = self.qos_port()
        server = self.boot_with_port('unplugged', port['id'],
                                     availability_zone='nova:compute1')
        before = self.allocations(server['id'])
        for host in ('compute2', 'compute3'):
            self.set_agent_up(host, False)
            self.addCleanup(self.set_agent_up, host, True)
        self.set_forced_down('compute1', True)
        self.addCleanup(self.set_forced_down, 'compute1', False)
        response = self.evacuate(server['id'])
        self.assertEqual(200, response.status_code, response.text)
        failed = self.assert_back_on_source(server['id'], port['id'],
                                            before, 'compute1')
        self.assertIn('binding', failed['fault']['message'].lower())
        self.admin.delete('/servers/%s' % server['id'])
        self.admin.wait_for_gone(server['id'])

    def _evacuate_a_group_member(self, policy):
        """Two members of a ``policy`` group on two of the three hosts;
        the first one's host is forced down and it is evacuated: the
        policy leaves it the third host only (hard) or prefers it
        (soft)."""
        response = self.admin.post('/os-server-groups', {'server_group': {
            'name': 'g-' + policy, 'policies': [policy]}},
            microversion='2.15')
        self.assertEqual(200, response.status_code, response.text)
        group_id = response.json()['server_group']['id']
        members = []
        for name in ('m1', 'm2'):
            created = self.admin.post('/servers', {
                'server': {'name': name + policy, 'flavorRef': '2',
                           'imageRef': self.plane.image_id,
                           'networks': [{'port': self.qos_port()['id']}]},
                'os:scheduler_hints': {'group': group_id}})
            self.assertEqual(202, created.status_code, created.text)
            members.append(self.admin.wait_for_status(
                created.json()['server']['id'], 'ACTIVE'))
        hosts = [m['OS-EXT-SRV-ATTR:host'] for m in members]
        [third] = {'compute1', 'compute2', 'compute3'} - set(hosts)
        self.set_forced_down(hosts[0], True)
        self.addCleanup(self.set_forced_down, hosts[0], False)
        response = self.evacuate(members[0]['id'])
        self.assertEqual(200, response.status_code, response.text)
        moved = self.wait_for_rest(members[0]['id'])
        self.assertEqual(('ACTIVE', third),
                         (moved['status'], moved['OS-EXT-SRV-ATTR:host']))
        for member in members:
            self.admin.delete('/servers/%s' % member['id'])
        for member in members:
            self.admin.wait_for_gone(member['id'])

    def test_evacuation_honours_anti_affinity(self):
        self._evacuate_a_group_member('anti-affinity')

    def test_evacuation_honours_soft_anti_affinity(self):
        self._evacuate_a_group_member('soft-anti-affinity')

    def test_evacuate_is_admin_only(self):
        port = self.qos_port()
        server = self.boot_with_port('mine', port['id'])
        user = self.plane.client('user:demo')
        response = user.post('/servers/%s/action' % server['id'],
                             {'evacuate': {}}, microversion='2.29')
        self.assertIn(response.status_code, (403, 404), response.text)
        self.admin.delete('/servers/%s' % server['id'])
        self.admin.wait_for_gone(server['id'])


class EvacuateWithOldComputeTest(PortServiceMixin,
                                 base.ControlPlaneTestCase):
    """Seed 001's upgrade rule: a compute that speaks compute RPC 1.2
    can rebuild an evacuated server but cannot point its ports' bindings
    at its own bandwidth provider, so such a server is refused, with a
    clear message; one without resource-request ports is not."""
    computes = 2
    extra_conf = '[upgrade_levels]\ncompute = 1.2\n'

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.set_up_network()

    def test_live_migration_is_refused_up_front_by_computes_below_1_4(self):
        port = self.qos_port()
        server = self.boot_with_port('lm-old', port['id'])
        before = self.allocations(server['id'])
        response = self.admin.post(
            '/servers/%s/action' % server['id'],
            {'os-migrateLive': {'host': None, 'block_migration': 'auto'}},
            microversion='2.30')
        self.assertEqual(409, response.status_code, response.text)
        self.assertIn('resource requests', response.text)
        self.assertIn('compute RPC API 1.2', response.text)
        # Nothing changed: no task, no migration, the same allocation.
        after = self.admin.server(server['id'])
        self.assertEqual(('ACTIVE', None),
                         (after['status'], after['OS-EXT-STS:task_state']))
        self.assertEqual((), fixtures.query(
            self.plane.databases[1], 'SELECT id FROM migrations WHERE '
            'instance_uuid = %s', server['id']))
        self.assertEqual(before, self.allocations(server['id']))
        self.admin.delete('/servers/%s' % server['id'])
        self.admin.wait_for_gone(server['id'])

    def test_server_with_bandwidth_port_is_refused_plain_one_evacuated(self):
        port = self.qos_port()
        host = 'compute1'
        with_port = self.boot_with_port('qos', port['id'],
                                        availability_zone='nova:' + host)
        plain = self.admin.create_server(
            'plain', image=self.plane.image_id, networks='none',
            availability_zone='nova:' + host)['server']
        plain = self.admin.wait_for_status(plain['id'], 'ACTIVE')
        self.plane.daemons[host].stop()
        self.addCleanup(self.plane.wait_for_compute_up, host)
        self.addCleanup(self.plane.start_compute, int(host[-1]))
        fixtures.wait_for(lambda: [s for s in self.admin.get(
            '/os-services').json()['services']
            if s['host'] == host][0]['state'] == 'down', what='down')

        response = self.admin.post('/servers/%s/action' % with_port['id'],
                                   {'evacuate': {}}, microversion='2.29')
        self.assertEqual(409, response.status_code, response.text)
        self.assertIn('compute RPC API 1.2', response.text)
        self.assertIn('resource requests', response.text)
        self.assertEqual('ACTIVE', self.admin.server(with_port['id'])[
            'status'])

        response = self.admin.post('/servers/%s/action' % plain['id'],
                                   {'evacuate': {}}, microversion='2.29')
        self.assertEqual(200, response.status_code, response.text)
        moved = self.wait_for_rest(plain['id'])
        self.assertEqual('ACTIVE', moved['status'])
        self.assertEqual('compute2', moved['OS-EXT-SRV-ATTR:host'])
        for server in (with_port, plain):
            self.admin.delete('/servers/%s' % server['id'])


class ShelveWithPortResourcesTest(PortServiceMixin,
                                  base.ControlPlaneTestCase):
    computes = 2

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.set_up_network()

    def action(self, server_id, name, body=None):
        response = self.admin.post('/servers/%s/action' % server_id,
                                   {name: body})
        self.assertEqual(202, response.status_code, response.text)

    def test_offload_frees_the_host_and_unshelve_binds_where_it_lands(self):
        port = self.qos_port()
        server = self.boot_with_port('shelf', port['id'])
        self.action(server['id'], 'shelve')
        offloaded = self.admin.wait_for_status(server['id'],
                                               'SHELVED_OFFLOADED')
        self.assertIsNone(offloaded['OS-EXT-SRV-ATTR:host'])
        self.assertEqual({}, self.allocations(server['id']))
        parked = self.port(port['id'])
        # Still the server's port, bound to no host, no allocation.
        self.assertEqual(server['id'], parked['device_id'])
        self.assertFalse(parked['binding:host_id'])
        self.assertNotIn('allocation', parked['binding:profile'])

        self.action(server['id'], 'unshelve')
        unshelved = self.admin.wait_for_status(server['id'], 'ACTIVE')
        self.assert_bound_here(unshelved, port['id'])
        events = [e['event'] for action in self.admin.get(
            '/servers/%s/os-instance-actions' % server['id']).json()[
            'instanceActions'] for e in self.admin.get(
            '/servers/%s/os-instance-actions/%s' % (
                server['id'], action['request_id'])).json()[
            'instanceAction'].get('events', [])]
        self.assertIn('compute_unshelve_instance', events)

        self.admin.delete('/servers/%s' % server['id'])
        self.admin.wait_for_gone(server['id'])

    def test_unshelve_without_room_stays_offloaded_holding_nothing(self):
        port = self.qos_port()
        server = self.boot_with_port('cramped', port['id'])
        self.action(server['id'], 'shelve')
        self.admin.wait_for_status(server['id'], 'SHELVED_OFFLOADED')
        services = [s for s in self.admin.get(
            '/os-services?binary=nova-lite-compute',
            microversion='2.53').json()['services']]
        for service in services:
            self.admin.put('/os-services/%s' % service['id'],
                           {'status': 'disabled'}, microversion='2.53')
        try:
            self.action(server['id'], 'unshelve')
            fixtures.wait_for(
                lambda: self.admin.server(server['id'])[
                    'OS-EXT-STS:task_state'] is None,
                what='unshelve over')
        finally:
            for service in services:
                self.admin.put('/os-services/%s' % service['id'],
                               {'status': 'enabled'}, microversion='2.53')
        stuck = self.admin.server(server['id'])
        self.assertEqual('SHELVED_OFFLOADED', stuck['status'])
        self.assertEqual({}, self.allocations(server['id']))
        self.assertFalse(self.port(port['id'])['binding:host_id'])
        # With room again it unshelves.
        self.action(server['id'], 'unshelve')
        self.assert_bound_here(
            self.admin.wait_for_status(server['id'], 'ACTIVE'), port['id'])
        self.admin.delete('/servers/%s' % server['id'])
        self.admin.wait_for_gone(server['id'])

    def test_deleting_an_offloaded_server_gives_its_port_back(self):
        port = self.qos_port()
        server = self.boot_with_port('gone', port['id'])
        self.action(server['id'], 'shelve')
        self.admin.wait_for_status(server['id'], 'SHELVED_OFFLOADED')
        self.admin.delete('/servers/%s' % server['id'])
        self.admin.wait_for_gone(server['id'])
        self.assertEqual('', self.port(port['id'])['device_id'])
