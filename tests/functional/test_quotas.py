"""Quotas through the real daemons: a project's own limit refuses the
next boot with a 403 that says why and creates nothing; a server buried
in cell0 counts; deleting the project's limits restores the defaults;
the openstack CLI's quota and limits commands (logged in through a
stand-in identity service, as they need one)."""

import json
import os
import subprocess
import sys

from tests.functional import base
from tests.functional import fake_identity


class TestQuotas(base.ControlPlaneTestCase):

    computes = 1

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.identity = fake_identity.FakeIdentity(cls.plane.api_url).start()
        cls.clouds_yaml = os.path.join(cls.plane.workdir,
                                       'clouds-identity.yaml')
        with open(cls.clouds_yaml, 'w') as f:
            f.write(cls.identity.clouds_yaml())

    @classmethod
    def tearDownClass(cls):
        cls.identity.stop()
        super().tearDownClass()

    def project_client(self, project):
        client = self.plane.client(project)
        self.addCleanup(self._delete_servers, client)
        return client

    @staticmethod
    def _delete_servers(client):
        servers = client.get('/servers').json()['servers']
        for server in servers:
            client.delete('/servers/%s' % server['id'])
        for server in servers:
            client.wait_for_gone(server['id'])

    def set_quota(self, project, **limits):
        response = self.admin.put('/os-quota-sets/%s' % project,
                                  {'quota_set': limits})
        self.assertEqual(200, response.status_code, response.text)
        self.addCleanup(self.admin.delete, '/os-quota-sets/%s' % project)

    def boot(self, client, name, flavor='2'):
        return client.post('/servers', {'server': {
            'name': name, 'flavorRef': flavor,
            'imageRef': self.plane.image_id}})

    def server_names(self, client):
        return sorted(s['name'] for s in
                      client.get('/servers').json()['servers'])

    def test_a_project_limit_refuses_the_next_boot_and_creates_nothing(self):
        client = self.project_client('qp-limit')
        self.set_quota('qp-limit', instances=1)
        response = self.boot(client, 'first')
        self.assertEqual(202, response.status_code, response.text)
        client.wait_for_status(response.json()['server']['id'], 'ACTIVE')

        response = self.boot(client, 'second')
        self.assertEqual(403, response.status_code, response.text)
        self.assertEqual(
            'Quota exceeded for instances: requested 1, but already used '
            '1 of 1 instances.', response.json()['forbidden']['message'])
        self.assertEqual(['first'], self.server_names(client))
        # Another project is not limited by it.
        other = self.project_client('qp-other')
        self.assertEqual(202, self.boot(other, 'free').status_code)

    def test_deleting_the_project_limits_restores_the_defaults(self):
        client = self.project_client('qp-reset')
        self.set_quota('qp-reset', instances=0, cores=1)
        self.assertEqual(403, self.boot(client, 'refused').status_code)

        response = self.admin.delete('/os-quota-sets/qp-reset')
        self.assertEqual(202, response.status_code, response.text)
        shown = self.admin.get('/os-quota-sets/qp-reset').json()[
            'quota_set']
        self.assertEqual((10, 20), (shown['instances'], shown['cores']))
        self.assertEqual(202, self.boot(client, 'accepted').status_code)

    def test_a_server_in_cell0_counts(self):
        client = self.project_client('qp-cell0')
        # m1.huge (16 GB) fits no host: the server ends in cell0, ERROR.
        self.set_quota('qp-cell0', instances=1, ram=-1)
        response = self.boot(client, 'buried', flavor='99')
        self.assertEqual(202, response.status_code, response.text)
        client.wait_for_status(response.json()['server']['id'], 'ERROR')

        response = self.boot(client, 'next')
        self.assertEqual(403, response.status_code, response.text)
        self.assertIn('already used 1 of 1 instances',
                      response.json()['forbidden']['message'])
        detail = client.get('/os-quota-sets/qp-cell0/detail').json()[
            'quota_set']
        self.assertEqual({'limit': 1, 'in_use': 1, 'reserved': 0},
                         detail['instances'])
        self.assertEqual(16384, detail['ram']['in_use'])

    # -- the openstack CLI --------------------------------------------

    def run_openstack(self, *args):
        env = dict(os.environ, OS_CLIENT_CONFIG_FILE=self.clouds_yaml,
                   OS_CLOUD='nova-lite')
        cli = os.path.join(os.path.dirname(sys.executable), 'openstack')
        return subprocess.run([cli] + list(args), capture_output=True,
                              text=True, env=env, timeout=120)

    def openstack(self, *args):
        result = self.run_openstack(*args)
        self.assertEqual(0, result.returncode, result.stderr)
        return result.stdout

    def cli_quota(self, project, *options):
        rows = json.loads(self.openstack('quota', 'show', '--compute',
                                         *options, project, '-f', 'json'))
        return {row['Resource']: row['Limit'] for row in rows}

    def test_openstack_quota_set_show_and_delete(self):
        self.addCleanup(self.admin.delete, '/os-quota-sets/qp-cli')
        self.openstack('quota', 'set', '--instances', '3', '--cores', '7',
                       'qp-cli')
        shown = self.cli_quota('qp-cli')
        self.assertEqual((3, 7, 51200), (shown['instances'], shown['cores'],
                                         shown['ram']))
        self.assertEqual(3, self.admin.get('/os-quota-sets/qp-cli').json()[
            'quota_set']['instances'])
        self.assertEqual(10, self.cli_quota('qp-cli', '--default')[
            'instances'])
        self.openstack('quota', 'delete', '--compute', 'qp-cli')
        self.assertEqual(10, self.cli_quota('qp-cli')['instances'])

    def test_openstack_quota_set_below_usage_needs_force(self):
        self.addCleanup(self.admin.delete, '/os-quota-sets/qp-cli-use')
        client = self.project_client('qp-cli-use')
        server_id = self.boot(client, 'used').json()['server']['id']
        client.wait_for_status(server_id, 'ACTIVE')
        result = self.run_openstack('quota', 'set', '--instances', '0',
                                    'qp-cli-use')
        self.assertNotEqual(0, result.returncode)
        self.assertIn('instances 0 < 1 in use', result.stderr)
        self.openstack('quota', 'set', '--force', '--instances', '0',
                       'qp-cli-use')
        self.assertEqual(0, self.cli_quota('qp-cli-use')['instances'])

    def test_openstack_limits_show_absolute(self):
        self.addCleanup(self.admin.delete, '/os-quota-sets/qp-lim')
        self.openstack('quota', 'set', '--instances', '4', 'qp-lim')
        rows = json.loads(self.openstack('limits', 'show', '--absolute',
                                         '--project', 'qp-lim', '-f',
                                         'json'))
        absolute = {row['Name']: row['Value'] for row in rows}
        self.assertEqual(4, absolute['max_total_instances'])
        self.assertEqual(20, absolute['max_total_cores'])
        self.assertEqual(0, absolute['total_instances_used'])
        # The caller's own project (the identity logs in as admin).
        rows = json.loads(self.openstack('limits', 'show', '--absolute',
                                         '-f', 'json'))
        self.assertEqual(10, {row['Name']: row['Value'] for row in rows}[
            'max_total_instances'])
