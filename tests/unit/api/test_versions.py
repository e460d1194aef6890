"""Version discovery and microversion negotiation."""

from tests.unit.api import base


class TestVersionDocuments(base.APITestCase):

    def test_root_lists_v21_without_a_token(self):
        response = self.request('GET', '/', token=None)
        self.assertEqual(200, response.status_int)
        [version] = response.json['versions']
        self.assertEqual('v2.1', version['id'])
        self.assertEqual('2.65', version['version'])

    def test_v21_without_slash_is_one_version_object(self):
        response = self.request('GET', '/v2.1', token=None)
        self.assertEqual(200, response.status_int)
        version = response.json['version']
        self.assertEqual('CURRENT', version['status'])
        self.assertEqual('2.1', version['min_version'])
        self.assertEqual('2.65', version['version'])
        self.assertIn('links', version)
        self.assertIn('media-types', version)

    def test_v21_with_slash_is_the_same_document(self):
        without = self.request('GET', '/v2.1', token=None).json
        with_slash = self.request('GET', '/v2.1/', token=None).json
        self.assertEqual(without, with_slash)


class TestMicroversionHeaders(base.APITestCase):

    def _versions(self, response):
        return (response.headers.get('OpenStack-API-Version'),
                response.headers.get('X-OpenStack-Nova-API-Version'))

    def test_no_header_means_the_minimum_echoed_both_ways(self):
        response = self.request('GET', '/v2.1/flavors')
        self.assertEqual(('compute 2.1', '2.1'), self._versions(response))
        self.assertIn('OpenStack-API-Version', response.headers['Vary'])
        self.assertIn('X-OpenStack-Nova-API-Version',
                      response.headers['Vary'])

    def test_standard_header_is_honoured(self):
        response = self.request('GET', '/v2.1/flavors', version='2.47')
        self.assertEqual(('compute 2.47', '2.47'), self._versions(response))

    def test_legacy_header_is_the_fallback(self):
        response = self.request(
            'GET', '/v2.1/flavors',
            headers={'X-OpenStack-Nova-API-Version': '2.19'})
        self.assertEqual(('compute 2.19', '2.19'), self._versions(response))

    def test_standard_header_wins_over_legacy(self):
        response = self.request(
            'GET', '/v2.1/flavors', version='2.26',
            headers={'X-OpenStack-Nova-API-Version': '2.19'})
        self.assertEqual(('compute 2.26', '2.26'), self._versions(response))

    def test_standard_header_for_another_service_is_ignored(self):
        response = self.request(
            'GET', '/v2.1/flavors',
            headers={'OpenStack-API-Version': 'placement 1.30'})
        self.assertEqual(('compute 2.1', '2.1'), self._versions(response))

    def test_latest_means_the_maximum(self):
        response = self.request('GET', '/v2.1/flavors', version='latest')
        self.assertEqual(('compute 2.65', '2.65'), self._versions(response))

    def test_version_above_the_maximum_is_406(self):
        response = self.request('GET', '/v2.1/flavors', version='2.66')
        self.assertError(response, 406, 'notAcceptable', '2.66')

    def test_version_below_the_minimum_is_406(self):
        response = self.request('GET', '/v2.1/flavors', version='2.0')
        self.assertError(response, 406, 'notAcceptable')

    def test_malformed_version_is_400(self):
        response = self.request('GET', '/v2.1/flavors', version='two')
        self.assertError(response, 400, 'badRequest', 'two')

    def test_headers_are_on_an_unauthenticated_refusal_too(self):
        response = self.request('GET', '/v2.1/flavors', token=None)
        self.assertEqual(401, response.status_int)
        self.assertIn('Vary', response.headers)
        self.assertEqual('compute 2.1',
                         response.headers['OpenStack-API-Version'])
