"""The port API over HTTP: the real nova-lite-network daemon (with
nova-lite-placement) on MariaDB, driven by the openstack CLI, openstacksdk
and plain HTTP like the computes and the conductor drive it; and what
holds when requests race (one active binding per port, always)."""

import concurrent.futures
import os
import textwrap
import uuid

import openstack
import requests
import testtools

from tests.functional import fixtures
from tests.functional import placement_fixtures

OVS = 'Open vSwitch agent'


class NetworkServer(placement_fixtures.PlacementServer):
    """nova-lite-placement and nova-lite-network on their own databases;
    the network daemon syncs bandwidth providers into that placement."""

    def __init__(self):
        super().__init__()
        self.network_port = fixtures.free_port()
        self.network = None

    @property
    def network_url(self):
        return 'http://127.0.0.1:%d' % self.network_port

    def _write_config(self):
        super()._write_config()
        with open(self.conf, 'a') as f:
            f.write(textwrap.dedent("""
                [network]
                bind_host = 127.0.0.1
                bind_port = %(port)d
                auth_type = noauth2
                endpoint_override = %(url)s
                """) % {'port': self.network_port, 'url': self.network_url})
        # The port service reaches placement through [placement]
        # endpoint_override.
        with open(self.conf) as f:
            text = f.read()
        with open(self.conf, 'w') as f:
            f.write(text.replace('[placement]\n', '[placement]\nauth_type = '
                                 'noauth2\nendpoint_override = %s\n' %
                                 self.url, 1))

    def start(self):
        super().start()
        self.network = fixtures.Daemon(
            'network', 'network', [self.conf],
            os.path.join(self.workdir, 'network.log'), self.env)
        self.network.start()

        def answers():
            if not self.network.running:
                raise AssertionError('network exited:\n' +
                                     self.network.log()[-4000:])
            try:
                return requests.get(self.network_url + '/', timeout=2).ok
            except requests.RequestException:
                return False
        fixtures.wait_for(answers, 60, what='network answering')

    def stop(self):
        if self.network is not None:
            self.network.stop()
        super().stop()

    def log(self):
        return super().log() + (self.network.log() if self.network else '')


class NetworkAPITestCase(testtools.TestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.server = NetworkServer()
        try:
            cls.server.start()
        except Exception:
            log = cls.server.log()
            cls.server.stop()
            raise AssertionError('the port service did not start:\n' + log)

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        super().tearDownClass()

    def setUp(self):
        super().setUp()
        self.suffix = uuid.uuid4().hex[:8]
        self.session = requests.Session()
        self.session.headers['X-Auth-Token'] = 'admin'

    def net(self, method, path, body=None, token=None, headers=None,
            **kwargs):
        headers = dict(headers or {})
        if token:
            headers['X-Auth-Token'] = token
        return self.session.request(
            method, self.server.network_url + '/v2.0' + path, json=body,
            headers=headers, timeout=30, **kwargs)

    def ok(self, method, path, body=None):
        response = self.net(method, path, body)
        self.assertLess(response.status_code, 300, response.text)
        return response.json() if response.content else None

    def placement(self, method, path, body=None):
        return requests.request(
            method, self.server.url + path, json=body, timeout=30,
            headers={'X-Auth-Token': 'admin',
                     'OpenStack-API-Version': 'placement 1.36'})

    def host(self, name):
        return '%s-%s' % (name, self.suffix)

    def report(self, host, bandwidth=None):
        configurations = {'bridge_mappings': {'physnet0': 'br-ex'}}
        if bandwidth:
            configurations['resource_provider_bandwidths'] = {
                'physnet0': {'egress': bandwidth, 'ingress': bandwidth}}
            configurations['resource_provider_hypervisors'] = {
                'physnet0': host}
        return self.ok('POST', '/agents', {'agent': {
            'host': host, 'agent_type': OVS, 'binary': 'nova-lite-compute',
            'configurations': configurations}})['agent']

    def port_on_flat_network(self, **attributes):
        network = self.ok('POST', '/networks', {'network': {
            'name': 'flat-' + self.suffix,
            'provider:network_type': 'vlan',
            'provider:physical_network': 'physnet0'}})['network']
        attributes['network_id'] = network['id']
        return self.ok('POST', '/ports', {'port': attributes})['port']


class TestClients(NetworkAPITestCase):

    def test_openstacksdk_binds_a_port_to_its_bandwidth_provider(self):
        host = self.host('sdk')
        node = self.placement('POST', '/resource_providers',
                              {'name': host}).json()
        agent = self.report(host, bandwidth=5000)
        self.assertTrue(agent['resources_synced'])
        children = self.placement(
            'GET', '/resource_providers?in_tree=%s' % node['uuid']).json()[
            'resource_providers']
        [provider] = [p for p in children
                      if p['parent_provider_uuid'] == node['uuid']]
        conn = openstack.connect(
            auth_type='admin_token',
            auth={'token': 'admin',
                  'endpoint': self.server.network_url + '/v3'},
            network_endpoint_override=self.server.network_url)
        network = conn.network.create_network(
            name='sdk-' + self.suffix, provider_network_type='vlan',
            provider_physical_network='physnet0')
        policy = conn.network.create_qos_policy(name='sdk-' + self.suffix)
        conn.network.create_qos_minimum_bandwidth_rule(
            policy, min_kbps=1000, direction='ingress')
        port = conn.network.create_port(network_id=network.id,
                                        qos_policy_id=policy.id,
                                        device_id='vm-' + self.suffix)
        self.assertEqual({'NET_BW_IGR_KILOBIT_PER_SEC': 1000},
                         port.resource_request['resources'])
        port = conn.network.update_port(
            port, binding_host_id=host,
            binding_profile={'allocation': provider['uuid']})
        self.assertEqual(('ovs', 'ACTIVE'), (port.binding_vif_type,
                                             port.status))
        self.assertEqual([port.id], [p.id for p in conn.network.ports(
            device_id='vm-' + self.suffix)])
        conn.network.delete_port(port)
        conn.network.delete_qos_policy(policy)
        conn.network.delete_network(network)


class TestBindingsUnderConcurrency(NetworkAPITestCase):

    def setUp(self):
        super().setUp()
        self.hosts = [self.host('h%d' % i) for i in range(3)]
        for host in self.hosts:
            self.report(host)
        self.port = self.port_on_flat_network()
        self.ok('PUT', '/ports/%s' % self.port['id'], {'port': {
            'binding:host_id': self.hosts[0]}})
        self.path = '/ports/%s/bindings' % self.port['id']

    def active(self):
        return [b['host'] for b in self.ok('GET', self.path)['bindings']
                if b['status'] == 'ACTIVE']

    def test_racing_activations_leave_one_active_binding(self):
        for host in self.hosts[1:]:
            self.ok('POST', self.path, {'binding': {'host': host}})
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            answers = list(pool.map(
                lambda i: self.net('PUT', '%s/%s/activate' % (
                    self.path, self.hosts[i % 3])).status_code, range(24)))
        self.assertEqual(set(), set(answers) - {200, 409}, answers)
        self.assertEqual(1, len(self.active()))

    def test_racing_creations_of_one_binding_make_one(self):
        host = self.hosts[1]
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            answers = list(pool.map(
                lambda i: self.net('POST', self.path, {'binding': {
                    'host': host}}).status_code, range(8)))
        self.assertEqual(sorted([201] + [409] * 7), sorted(answers))
        self.assertEqual([self.hosts[0]], self.active())

    def test_a_move_through_the_bindings_api(self):
        source, dest = self.hosts[0], self.hosts[1]
        created = self.ok('POST', self.path, {'binding': {
            'host': dest, 'profile': {'migrating_to': dest}}})['binding']
        self.assertEqual(('INACTIVE', 'ovs'), (created['status'],
                                               created['vif_type']))
        self.ok('PUT', '%s/%s/activate' % (self.path, dest))
        self.assertEqual(204, self.net('DELETE', '%s/%s' % (
            self.path, source)).status_code)
        port = self.ok('GET', '/ports/%s' % self.port['id'])['port']
        self.assertEqual((dest, 'ovs', 'ACTIVE'),
                         (port['binding:host_id'], port['binding:vif_type'],
                          port['status']))


class TestBadInput(NetworkAPITestCase):
    """The real daemon answers hostile input with a 4xx and a
    NeutronError body, never a 500."""

    def assertNeutronError(self, response, status):
        self.assertEqual(status, response.status_code, response.text)
        self.assertTrue(response.json()['NeutronError']['message'])

    def test_malformed_bodies(self):
        port = self.port_on_flat_network()
        for method, path, data in (
                ('POST', '/ports', '{"port": '),
                ('POST', '/networks', '[]'),
                ('PUT', '/ports/%s' % port['id'], '{"port": "x"}'),
                ('POST', '/agents', '{"agent": {"host": 1}}')):
            response = self.net(method, path, data=data,
                                headers={'Content-Type': 'application/json'})
            self.assertNeutronError(response, 400)

    def test_values_the_database_could_not_hold(self):
        port = self.port_on_flat_network()
        for body in ({'port': {'name': 'x' * 256}},
                     {'port': {'binding:profile': {'k': 'é' * 5000}}},
                     {'port': {'binding:host_id': 'h' * 256}},
                     {'port': {'device_id': 'd' * 256}},
                     {'port': {'tags': ['t' * 256]}}):
            self.assertNeutronError(self.net(
                'PUT', '/ports/%s' % port['id'], body), 400)
        self.assertNeutronError(self.net('POST', '/networks', {'network': {
            'provider:network_type': 'vlan',
            'provider:physical_network': 'physnet0',
            'provider:segmentation_id': 2 ** 40}}), 400)

    def test_bad_queries(self):
        for query in ('?limit=x', '?marker=nope', '?admin_state_up=perhaps',
                      '?colour=red', '?revision_number=' + '9' * 30):
            response = self.net('GET', '/ports' + query)
            self.assertIn(response.status_code, (200, 400), response.text)

    def test_unknown_things_are_404(self):
        for path in ('/ports/%s' % uuid.uuid4(), '/networks/x',
                     '/ports/x/bindings/h', '/qos/policies/x',
                     '/agents/%s' % uuid.uuid4(), '/routers'):
            self.assertNeutronError(self.net('GET', path), 404)

    def test_members_get_403_or_404_not_500(self):
        port = self.port_on_flat_network()
        self.assertNeutronError(self.net(
            'PUT', '/ports/%s' % port['id'],
            {'port': {'binding:host_id': 'h'}}, token='demo'), 404)
        self.assertNeutronError(self.net(
            'POST', '/agents', {'agent': {'host': 'h', 'agent_type': OVS,
                                          'binary': 'b'}}, token='demo'), 403)
