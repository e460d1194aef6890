"""noauth2 authentication."""

from tests.unit.api import base


class TestNoAuth2(base.APITestCase):

    def test_missing_token_is_401(self):
        response = self.request('GET', '/v2.1/servers', token=None)
        self.assertError(response, 401, 'unauthorized')

    def test_empty_token_is_401(self):
        response = self.request('GET', '/v2.1/servers', token='')
        self.assertError(response, 401, 'unauthorized')

    def test_user_admin_is_an_administrator(self):
        response = self.request('GET', '/v2.1/os-hypervisors',
                                token=base.ADMIN)
        self.assertEqual(200, response.status_int)

    def test_any_other_user_is_not(self):
        response = self.request('GET', '/v2.1/os-hypervisors',
                                token='notused')
        self.assertError(response, 403, 'forbidden')

    def test_project_defaults_to_the_user(self):
        self.make_flavor()
        self.make_image()
        self.useFixture(base.nova_fixtures.ConductorRecorder())
        created = self._boot(token='alice')
        server = self.request('GET', '/v2.1/servers/' + created,
                              token='alice').json['server']
        self.assertEqual('alice', server['tenant_id'])
        self.assertEqual('alice', server['user_id'])

    def test_project_after_the_colon(self):
        self.make_flavor()
        self.make_image()
        self.useFixture(base.nova_fixtures.ConductorRecorder())
        created = self._boot(token='alice:research')
        server = self.request('GET', '/v2.1/servers/' + created,
                              token='bob:research').json['server']
        self.assertEqual('research', server['tenant_id'])
        self.assertEqual('alice', server['user_id'])

    def _boot(self, token):
        response = self.request('POST', '/v2.1/servers', token=token, body={
            'server': {'name': 'vm', 'flavorRef': '1',
                       'imageRef': base.IMAGE_UUID}})
        self.assertEqual(202, response.status_int, response.body)
        return response.json['server']['id']
