"""Real clients against the real daemons: openstacksdk and the openstack
CLI with no Keystone (admin_token auth and endpoint overrides), and hostile
input through the REST API."""

import functools
import os
import subprocess

import openstack

from tests.functional import base
from tests.functional import fixtures


class TestClients(base.ControlPlaneTestCase):

    computes = 1

    def _openstack(self, *args):
        result = self.plane.openstack(*args)
        self.assertEqual(0, result.returncode, result.stderr)
        return result.stdout

    def test_openstacksdk_boots_lists_and_deletes(self):
        conn = openstack.connect(
            auth_type='admin_token',
            auth={'token': 'admin', 'endpoint': self.plane.api_url + '/v3'},
            compute_endpoint_override=self.plane.api_url + '/v2.1')
        self.assertIn('m1.small', [f.name for f in conn.compute.flavors()])
        server = conn.compute.create_server(
            name='sdk-vm', flavor_id='2', image_id=self.plane.image_id,
            networks='none')
        server = conn.compute.wait_for_server(server, wait=60)
        self.assertEqual('ACTIVE', server.status)
        self.assertEqual('compute1', server.compute_host)
        self.assertEqual(['compute1'],
                         [h.name for h in conn.compute.hypervisors()])
        conn.compute.delete_server(server)
        conn.compute.wait_for_delete(server, wait=60)

    def test_openstack_cli_aggregates_and_zones(self):
        self._openstack('aggregate', 'create', '--zone', 'cli-az',
                        'cli-agg')
        self.addCleanup(self.admin.delete, '/os-aggregates/%s' %
                        self._openstack('aggregate', 'show', 'cli-agg',
                                        '-c', 'id', '-f', 'value').strip())
        self._openstack('aggregate', 'add', 'host', 'cli-agg', 'compute1')
        self.addCleanup(self.admin.post, '/os-aggregates/%s/action' %
                        self._openstack('aggregate', 'show', 'cli-agg',
                                        '-c', 'id', '-f', 'value').strip(),
                        {'remove_host': {'host': 'compute1'}})
        self._openstack('aggregate', 'set', '--property', 'ssd=true',
                        'cli-agg')
        self.assertEqual(
            "cli-az\n['compute1']\n{'ssd': 'true'}",
            self._openstack('aggregate', 'show', 'cli-agg', '-f', 'value',
                            '-c', 'availability_zone', '-c', 'hosts',
                            '-c', 'properties').strip())
        self.assertIn(
            'cli-az available',
            self._openstack('availability', 'zone', 'list', '--compute',
                            '-f', 'value').splitlines())
        self._openstack('server', 'create', '--flavor', 'm1.small',
                        '--image', 'cirros', '--availability-zone', 'cli-az',
                        '--wait', 'cli-az-vm')
        self.assertEqual('compute1', self._openstack(
            'server', 'show', 'cli-az-vm', '-f', 'value', '-c',
            'OS-EXT-SRV-ATTR:host').strip())
        self._openstack('server', 'delete', '--wait', 'cli-az-vm')

    def test_openstack_cli_server_lifecycle(self):
        self.assertIn('m1.small', self._openstack('flavor', 'list'))
        self.assertIn('compute1', self._openstack('hypervisor', 'list'))
        self._openstack('server', 'create', '--flavor', 'm1.small',
                        '--image', 'cirros', '--wait', 'cli-vm')
        shown = self._openstack('server', 'show', 'cli-vm', '-f', 'value',
                                '-c', 'status')
        self.assertEqual('ACTIVE', shown.strip())
        self.assertIn('cli-vm', self._openstack('server', 'list'))
        status = functools.partial(self._openstack, 'server', 'show',
                                   'cli-vm', '-f', 'value', '-c', 'status')
        self._openstack('server', 'stop', 'cli-vm')
        fixtures.wait_for(lambda: status().strip() == 'SHUTOFF', 60,
                          what='cli-vm SHUTOFF')
        self._openstack('server', 'start', 'cli-vm')
        fixtures.wait_for(lambda: status().strip() == 'ACTIVE', 60,
                          what='cli-vm ACTIVE')
        self._openstack('server', 'rebuild', '--image', 'cirros', '--wait',
                        'cli-vm')
        self.assertEqual('ACTIVE', status().strip())
        self.assertIn('rebuild', self._openstack(
            'server', 'event', 'list', 'cli-vm', '-f', 'value',
            '-c', 'Action'))
        self._everyday_actions('cli-vm')
        self._openstack('server', 'delete', '--wait', 'cli-vm-renamed')
        self.assertNotIn('cli-vm', self._openstack('server', 'list'))

    def _everyday_actions(self, name):
        """Reboot (soft, hard), pause and unpause, suspend and resume,
        lock and unlock, a new name, properties set and unset and the
        state reset: each CLI command once, its outcome read over REST
        (a CLI call costs seconds)."""
        server_id = self._openstack('server', 'show', name, '-f', 'value',
                                    '-c', 'id').strip()

        def shown():
            return self.admin.get('/servers/' + server_id,
                                  microversion='2.9').json()['server']
        self._openstack('server', 'reboot', '--wait', name)
        self._openstack('server', 'reboot', '--hard', '--wait', name)
        self.assertEqual(('ACTIVE', None), (shown()['status'], shown()[
            'OS-EXT-STS:task_state']))
        for action, undo, status in (('pause', 'unpause', 'PAUSED'),
                                     ('suspend', 'resume', 'SUSPENDED')):
            self._openstack('server', action, name)
            self.admin.wait_for_status(server_id, status)
            self._openstack('server', undo, name)
            self.admin.wait_for_status(server_id, 'ACTIVE')
        self._openstack('server', 'lock', name)
        self.assertTrue(shown()['locked'])
        self._openstack('server', 'unlock', name)
        self.assertFalse(shown()['locked'])
        self._openstack('server', 'set', '--name', name + '-renamed',
                        '--property', 'role=db', '--property', 'tier=1',
                        '--state', 'active', '--auto-approve', name)
        self._openstack('server', 'unset', '--property', 'tier',
                        name + '-renamed')
        self.assertEqual((name + '-renamed', {'role': 'db'}),
                         (shown()['name'], shown()['metadata']))
        actions = self.admin.get('/servers/%s/os-instance-actions' %
                                 server_id).json()['instanceActions']
        self.assertEqual(['resetState', 'unlock', 'lock', 'resume',
                          'suspend', 'unpause', 'pause', 'reboot', 'reboot'],
                         [a['action'] for a in actions][:9])

    def test_openstack_cli_rebuilds_a_server_from_cell0(self):
        self._openstack('server', 'create', '--flavor', 'm1.huge',
                        '--image', 'cirros', 'cli-buried')
        self.addCleanup(self._openstack, 'server', 'delete', '--wait',
                        'cli-buried')
        server_id = self._openstack('server', 'show', 'cli-buried', '-f',
                                    'value', '-c', 'id').strip()
        self.admin.wait_for_status(server_id, 'ERROR')
        self._openstack('--os-compute-api-version', '2.65', 'server',
                        'rebuild', '--image', 'cirros', 'cli-buried')
        # Still no host for it: back in cell0, same id, a fresh fault.
        self.admin.wait_for_status(server_id, 'ERROR')
        self.assertEqual(server_id, self._openstack(
            'server', 'show', 'cli-buried', '-f', 'value', '-c',
            'id').strip())

    def test_openstack_cli_server_groups(self):
        self._openstack('server', 'group', 'create', '--policy',
                        'soft-anti-affinity', 'cli-g1')
        group_id = self._openstack(
            '--os-compute-api-version', '2.64', 'server', 'group', 'create',
            '--policy', 'anti-affinity', '--rule', 'max_server_per_host=2',
            'cli-g2', '-f', 'value', '-c', 'id').strip()
        listed = self._openstack('server', 'group', 'list', '--long')
        self.assertIn('cli-g1', listed)
        self.assertIn('soft-anti-affinity', listed)
        self.assertIn("{'max_server_per_host': 2}", self._openstack(
            'server', 'group', 'show', 'cli-g2', '-f', 'value', '-c',
            'rules'))
        self._openstack('server', 'create', '--flavor', 'm1.small',
                        '--image', 'cirros', '--hint', 'group=' + group_id,
                        '--wait', 'cli-member')
        server_id = self._openstack('server', 'show', 'cli-member', '-f',
                                    'value', '-c', 'id').strip()
        self.assertIn(server_id, self._openstack(
            'server', 'group', 'show', group_id, '-f', 'value', '-c',
            'members'))
        self._openstack('server', 'delete', '--wait', 'cli-member')
        self.assertNotIn(server_id, self._openstack(
            'server', 'group', 'show', group_id, '-f', 'value', '-c',
            'members'))
        self._openstack('server', 'group', 'delete', 'cli-g1', 'cli-g2')
        self.assertNotIn('cli-g', self._openstack('server', 'group',
                                                  'list'))

    def test_openstack_cli_keypairs(self):
        key = os.path.join(self.plane.workdir, 'cli-key')
        subprocess.run(['ssh-keygen', '-q', '-t', 'ed25519', '-N', '',
                        '-C', 'cli', '-f', key], check=True, timeout=30)
        fingerprint = subprocess.run(
            ['ssh-keygen', '-l', '-E', 'md5', '-f', key + '.pub'],
            check=True, capture_output=True, text=True,
            timeout=30).stdout.split()[1][len('MD5:'):]
        self._openstack('keypair', 'create', '--public-key', key + '.pub',
                        'k1')
        self.assertIn('k1 %s ssh' % fingerprint, self._openstack(
            'keypair', 'list', '-f', 'value').splitlines())
        with open(key + '.pub') as f:
            public_key = f.read().strip()
        self.assertEqual(public_key, self._openstack(
            'keypair', 'show', '--public-key', 'k1').strip())
        self._openstack('server', 'create', '--flavor', 'm1.small',
                        '--image', 'cirros', '--key-name', 'k1', '--wait',
                        'cli-keyed')
        self.assertEqual('k1', self._openstack(
            'server', 'show', 'cli-keyed', '-f', 'value', '-c',
            'key_name').strip())
        self._openstack('server', 'delete', '--wait', 'cli-keyed')
        self._openstack('keypair', 'delete', 'k1')
        self.assertNotIn('k1', self._openstack('keypair', 'list', '-f',
                                               'value'))


class TestBadInput(base.ControlPlaneTestCase):
    """Hostile input gets a 4xx with a message in the Compute API's error
    format from the real daemon, never a 500."""

    computes = 1

    def _assert_error(self, response, status, key):
        self.assertEqual(status, response.status_code, response.text)
        body = response.json()
        self.assertIn(key, body)
        self.assertTrue(body[key]['message'])

    def test_malformed_json(self):
        response = self.admin.request(
            'POST', '/servers', data='{"server": ',
            headers={'Content-Type': 'application/json'})
        self._assert_error(response, 400, 'badRequest')

    def test_unknown_flavor(self):
        response = self.admin.post('/servers', {'server': {
            'name': 'x', 'flavorRef': 'no-such-flavor',
            'imageRef': self.plane.image_id}})
        self._assert_error(response, 400, 'badRequest')

    def test_bad_uuid_is_404(self):
        self._assert_error(self.admin.get('/servers/not-a-uuid'), 404,
                           'itemNotFound')

    def test_over_long_name(self):
        response = self.admin.post('/servers', {'server': {
            'name': 'x' * 256, 'flavorRef': '2',
            'imageRef': self.plane.image_id}})
        self._assert_error(response, 400, 'badRequest')

    def test_missing_fields(self):
        response = self.admin.post('/servers', {'server': {'name': 'x'}})
        self._assert_error(response, 400, 'badRequest')

    def test_wrong_microversion(self):
        response = self.plane.client(microversion='2.999').get('/servers')
        self.assertEqual(406, response.status_code, response.text)

    def test_no_token_is_401(self):
        response = self.plane.client(token='').get('/servers')
        self.assertEqual(401, response.status_code, response.text)


class TestMoveClients(base.ControlPlaneTestCase):
    """openstacksdk's and the CLI's own flows for ports with minimum
    bandwidth, forcing a compute down, evacuation and shelve."""

    computes = 2
    # A shelved server is offloaded by the computes' periodic task, which
    # reads when it was shelved from its system_metadata.
    compute_conf = dict.fromkeys(
        (1, 2), '[compute]\nshelved_offload_time = 2\n')

    def _connect(self):
        return openstack.connect(
            auth_type='admin_token',
            auth={'token': 'admin', 'endpoint': self.plane.api_url + '/v3'},
            compute_endpoint_override=self.plane.api_url + '/v2.1',
            network_endpoint_override=self.plane.network_url)

    def _openstack(self, *args):
        result = self.plane.openstack(*args)
        self.assertEqual(0, result.returncode, result.stderr)
        return result.stdout

    def test_openstacksdk_forces_the_host_down_and_evacuates(self):
        self.plane.wait_for_bandwidth_providers(2)
        conn = self._connect()
        network = conn.network.create_network(
            name='sdk-net', provider_network_type='vlan',
            provider_physical_network='physnet0',
            provider_segmentation_id=101)
        policy = conn.network.create_qos_policy(name='sdk-bw')
        conn.network.create_qos_minimum_bandwidth_rule(
            policy, min_kbps=1000, direction='egress')
        port = conn.network.create_port(network_id=network.id,
                                        qos_policy_id=policy.id)
        server = conn.compute.create_server(
            name='sdk-evac', flavor_id='2', image_id=self.plane.image_id,
            networks=[{'port': port.id}],
            availability_zone='nova:compute1')
        server = conn.compute.wait_for_server(server, wait=60)
        self.assertEqual('compute1', server.compute_host)
        bound = conn.network.get_port(port.id)
        self.assertEqual('compute1', bound.binding_host_id)
        first_provider = bound.binding_profile['allocation']

        [service] = [s for s in conn.compute.services()
                     if s.host == 'compute1' and
                     s.binary == 'nova-lite-compute']
        conn.compute.update_service_forced_down(service, forced=True)
        # The operator fences the host; when it is back it cleans up.
        self.addCleanup(self.plane.wait_for_compute_up, 'compute1')
        self.addCleanup(self.plane.start_compute, 1)
        self.addCleanup(self.plane.daemons['compute1'].stop)
        self.addCleanup(conn.compute.update_service_forced_down, service,
                        forced=False)
        conn.compute.evacuate_server(server)
        moved = fixtures.wait_for(
            lambda: (lambda s: s if s.compute_host == 'compute2' and
                     s.task_state is None else None)(
                conn.compute.get_server(server.id)),
            what='server evacuated to compute2')
        self.assertEqual('ACTIVE', moved.status)
        rebound = conn.network.get_port(port.id)
        self.assertEqual('compute2', rebound.binding_host_id)
        self.assertNotEqual(first_provider,
                            rebound.binding_profile['allocation'])
        conn.compute.delete_server(server)
        conn.compute.wait_for_delete(server, wait=60)

    def test_openstack_cli_shelves_unshelves_and_evacuates(self):
        # The README's commands, as written there.
        self.plane.wait_for_bandwidth_providers(2)
        self._openstack('network', 'create', '--provider-network-type',
                        'flat', '--provider-physical-network', 'physnet0',
                        'net0')
        self._openstack('network', 'qos', 'policy', 'create', 'bw')
        self._openstack('network', 'qos', 'rule', 'create', '--type',
                        'minimum-bandwidth', '--min-kbps', '1000',
                        '--egress', 'bw')
        self._openstack('port', 'create', '--network', 'net0',
                        '--qos-policy', 'bw', 'p1')
        self._openstack('server', 'create', '--flavor', 'm1.small',
                        '--image', 'cirros', '--nic', 'port-id=p1', '--wait',
                        '--availability-zone', 'nova:compute2', 'cli-shelf')
        binding = functools.partial(self._openstack, 'port', 'show', 'p1',
                                    '-f', 'value', '-c', 'binding_host_id')
        self.assertEqual('compute2', binding().strip())
        status = functools.partial(self._openstack, 'server', 'show',
                                   'cli-shelf', '-f', 'value', '-c',
                                   'status')
        self._openstack('server', 'shelve', 'cli-shelf')
        fixtures.wait_for(lambda: status().strip() == 'SHELVED_OFFLOADED',
                          what='shelved offloaded')
        self._openstack('server', 'unshelve', 'cli-shelf')
        fixtures.wait_for(lambda: status().strip() == 'ACTIVE',
                          what='unshelved')
        host = self._openstack('server', 'show', 'cli-shelf', '-f', 'value',
                               '-c', 'OS-EXT-SRV-ATTR:host').strip()
        self.assertEqual(host, binding().strip())
        index = int(host[-1])
        self._openstack('compute', 'service', 'set', '--down', host,
                        'nova-lite-compute')
        self.addCleanup(self.plane.wait_for_compute_up, host)
        self.addCleanup(self.plane.start_compute, index)
        self.addCleanup(self.plane.daemons[host].stop)
        self.addCleanup(self._openstack, 'compute', 'service', 'set',
                        '--up', host, 'nova-lite-compute')
        # (Not --wait: OSC 10.5 compares the lower-cased status with
        # 'ACTIVE' and waits forever, against any cloud.)
        self._openstack('server', 'evacuate', 'cli-shelf')
        fixtures.wait_for(lambda: status().strip() == 'ACTIVE',
                          what='evacuated')
        moved = self._openstack('server', 'show', 'cli-shelf', '-f', 'value',
                                '-c', 'OS-EXT-SRV-ATTR:host').strip()
        self.assertNotEqual(host, moved)
        self.assertEqual(moved, binding().strip())
        self.assertIn('evacuate', self._openstack(
            'server', 'event', 'list', 'cli-shelf'))
        self._openstack('server', 'delete', '--wait', 'cli-shelf')
        self._openstack('port', 'delete', 'p1')

    def test_openstack_cli_live_migrates_and_lists_migrations(self):
        self._openstack('server', 'create', '--flavor', 'm1.small',
                        '--image', 'cirros', '--nic', 'none', '--wait',
                        '--availability-zone', 'nova:compute1', 'cli-lm')
        self._openstack('server', 'migrate', '--live-migration', '--wait',
                        'cli-lm')
        self.assertEqual('compute2', self._openstack(
            'server', 'show', 'cli-lm', '-f', 'value', '-c',
            'OS-EXT-SRV-ATTR:host').strip())
        listed = self._openstack('server', 'migration', 'list', '--server',
                                 'cli-lm', '-f', 'value', '-c', 'Status',
                                 '-c', 'Type')
        self.assertIn('completed live-migration', listed)
        self._openstack('server', 'delete', '--wait', 'cli-lm')
