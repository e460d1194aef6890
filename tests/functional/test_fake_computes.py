"""nova-lite-fake-computes through the real daemons, RabbitMQ and MariaDB:
one process's simulated hosts are computes like any to the rest of the
control plane."""

import signal

import requests

from nova_lite import counters
from tests.functional import base
from tests.functional import fixtures

HOSTS = ['fake%d' % index for index in range(1, 6)]


class TestFakeComputes(base.ControlPlaneTestCase):

    computes = 0

    @classmethod
    def start_plane(cls):
        plane = super().start_plane()
        try:
            plane.start_fake_computes('fake-computes', len(HOSTS))
            plane.wait_for_hypervisors(len(HOSTS), host_prefix='fake')
        except Exception:
            logs = plane.logs()
            plane.stop()
            raise AssertionError('fake computes did not start:\n' + logs)
        return plane

    def test_each_host_is_a_hypervisor_up_with_its_own_provider(self):
        hypervisors = self.admin.get(
            '/os-hypervisors/detail').json()['hypervisors']
        self.assertEqual(HOSTS, sorted(
            (h['hypervisor_hostname'] for h in hypervisors
             if h['state'] == 'up'), key=lambda name: int(name[4:])))
        services = [s for s in self.admin.get('/os-services').json()[
            'services'] if s['binary'] == 'nova-lite-compute']
        self.assertEqual(set(HOSTS), {s['host'] for s in services})
        self.assertEqual({'up'}, {s['state'] for s in services})
        providers = requests.get(
            self.plane.placement_url + '/resource_providers',
            headers={**self.plane.admin_headers,
                     'OpenStack-API-Version': 'placement 1.14'},
            timeout=10).json()[
                'resource_providers']
        self.assertEqual(set(HOSTS), {p['name'] for p in providers
                                      if not p['parent_provider_uuid']})

    def test_a_server_boots_on_a_simulated_host_and_is_deleted(self):
        created = self.admin.create_server('on-a-fake',
                                           image=self.plane.image_id)
        server_id = created['server']['id']
        server = self.admin.wait_for_status(server_id, 'ACTIVE')
        self.assertIn(server['OS-EXT-SRV-ATTR:host'], HOSTS)
        self.assertEqual(server['OS-EXT-SRV-ATTR:host'],
                         server['OS-EXT-SRV-ATTR:hypervisor_hostname'])
        response = self.admin.delete('/servers/%s' % server_id)
        self.assertEqual(204, response.status_code, response.text)
        self.admin.wait_for_gone(server_id)
        fixtures.wait_for(lambda: requests.get(
            '%s/allocations/%s' % (self.plane.placement_url, server_id),
            headers=self.plane.admin_headers, timeout=10).json()[
                'allocations'] == {}, 30, what='no allocation left')

    def test_heartbeats_are_one_conductor_call_for_every_host(self):
        def conductor_counts():
            daemon = self.plane.daemons['conductor']
            seen = len(daemon.log().splitlines())
            daemon.process.send_signal(signal.SIGUSR2)
            return fixtures.wait_for(lambda: [
                counts for counts in map(
                    counters.parse, daemon.log().splitlines()[seen:])
                if counts is not None], 30, 0.1, what='counters')[-1]
        name = 'rpc.call.object_class_action_versions.Service.heartbeat_many'
        before = conductor_counts().get(name, 0)
        reports = {row['host']: row['report_count'] for row in
                   self.plane.query(self.plane.databases[1],
                                    'SELECT host, report_count FROM services')}
        # report_interval is 1 s: a few of them (the first may have been
        # counted already when the records were read).
        fixtures.wait_for(lambda: conductor_counts().get(name, 0) >=
                          before + 4, 30, 0.5, what='four heartbeats')
        after = conductor_counts()
        self.assertNotIn('rpc.call.object_action.Service.heartbeat', after)
        now = {row['host']: row['report_count'] for row in
               self.plane.query(self.plane.databases[1],
                                'SELECT host, report_count FROM services')}
        for host in HOSTS:
            self.assertGreaterEqual(now[host], reports[host] + 3, host)
