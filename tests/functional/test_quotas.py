"""Quotas through the real daemons: a project's own limit refuses the
next boot with a 403 that says why and creates nothing; a server buried
in cell0 counts; deleting the project's limits restores the defaults.
The openstack CLI's quota and limits commands, which look projects up in
the identity service, run against a real Keystone in
test_auth_modes.TestClientsUnderKeystone."""

from tests.functional import base


class TestQuotas(base.ControlPlaneTestCase):

    computes = 1

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
