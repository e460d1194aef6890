"""Version document, microversion negotiation, auth and the error body."""

from tests.unit.placement import base


class TestVersionDocument(base.PlacementTestCase):

    def test_root_lists_one_version_with_min_and_max(self):
        response = self.get('/', token=None, version=None)
        self.assertStatus(200, response)
        (version,) = response.json['versions']
        self.assertEqual('v1.0', version['id'])
        self.assertEqual('1.0', version['min_version'])
        self.assertEqual('1.39', version['max_version'])
        self.assertEqual('CURRENT', version['status'])

    def test_response_names_the_negotiated_microversion(self):
        response = self.get('/resource_providers', version='1.14')
        self.assertEqual('placement 1.14',
                         response.headers['OpenStack-API-Version'])
        self.assertIn('OpenStack-API-Version', response.headers['Vary'])

    def test_no_version_header_means_1_0(self):
        response = self.get('/resource_providers', version=None)
        self.assertEqual('placement 1.0',
                         response.headers['OpenStack-API-Version'])

    def test_latest_is_the_maximum(self):
        response = self.get('/resource_providers', version='latest')
        self.assertEqual('placement 1.39',
                         response.headers['OpenStack-API-Version'])

    def test_version_above_maximum_is_406(self):
        response = self.get('/resource_providers', version='1.99')
        self.assertError(response, 406)

    def test_malformed_version_is_400(self):
        response = self.get('/resource_providers', version='one')
        self.assertError(response, 400)

    def test_cache_headers_on_gets_from_1_15(self):
        response = self.get('/resource_providers', version='1.15')
        self.assertEqual('no-cache', response.headers['Cache-Control'])
        self.assertIn('Last-Modified', response.headers)
        response = self.get('/resource_providers', version='1.14')
        self.assertNotIn('Cache-Control', response.headers)


class TestAuthAndErrors(base.PlacementTestCase):

    def test_no_token_is_401(self):
        self.assertError(self.get('/resource_providers', token=None), 401)

    def test_non_admin_is_403(self):
        self.assertError(self.get('/resource_providers', token='demo'), 403)

    def test_unknown_path_is_404_in_placement_format(self):
        error = self.assertError(self.get('/nothing'), 404,
                                 'placement.undefined_code')
        self.assertEqual('Not Found', error['title'])
        self.assertTrue(error['request_id'].startswith('req-'))

    def test_wrong_method_is_405_with_allow(self):
        response = self.request('PATCH', '/resource_providers')
        self.assertError(response, 405)
        self.assertEqual('GET, POST', response.headers['Allow'])

    def test_error_code_only_from_1_23(self):
        error = self.assertError(self.get('/nothing', version='1.22'), 404)
        self.assertNotIn('code', error)

    def test_route_newer_than_the_version_is_404(self):
        self.assertError(self.get('/traits', version='1.5'), 404)
        self.assertStatus(200, self.get('/traits', version='1.6'))

    def test_body_that_is_not_json_is_415(self):
        response = self.post('/resource_providers', {'name': 'x'},
                             content_type='text/plain')
        self.assertError(response, 415)

    def test_malformed_json_is_400(self):
        response = self.request('POST', '/resource_providers',
                                raw_body=b'{"name": ')
        self.assertError(response, 400, 'placement.undefined_code')

    def test_json_nested_too_deeply_is_400_not_500(self):
        response = self.request('POST', '/resource_providers',
                                raw_body=b'[' * 20000 + b']' * 20000)
        self.assertError(response, 400, fragment='nested too deeply')

    def test_a_url_that_is_not_utf8_is_400_not_500(self):
        for path in ('/resource_providers/%ff', '/resource_providers?%ff=1'):
            self.assertError(self.get(path), 400, fragment='UTF-8')
            self.assertError(self.get(path, token=None), 400,
                             fragment='UTF-8')
