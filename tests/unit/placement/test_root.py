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
        # Lower case, as OpenStack Placement writes it: clients match it.
        self.assertEqual('openstack-api-version', response.headers['Vary'])

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


class TestNegotiation(base.PlacementTestCase):
    """What OpenStack Placement answers about versions and media types."""

    def test_unavailable_version_is_406_naming_the_served_ones(self):
        error = self.assertError(self.get('/', version='0.5'), 406,
                                 fragment='Unacceptable version header: 0.5')
        self.assertEqual(('1.0', '1.39'),
                         (error['min_version'], error['max_version']))

    def test_malformed_version_says_invalid_version_string(self):
        for text in ('pony.horse', '1.2.3'):
            self.assertError(self.get('/', version=text), 400,
                             fragment='invalid version string: ' + text)

    def test_version_is_checked_before_the_path(self):
        self.assertError(self.get('/nothing', version='0.9'), 406)

    def test_405_names_the_method(self):
        response = self.request('DELETE', '/resource_providers')
        self.assertError(response, 405, fragment='The method DELETE is not '
                         'allowed for this resource.')

    def test_error_carries_the_microversion_header(self):
        response = self.request('POST', '/', version=None, raw_body=b'<x/>',
                                content_type='application/xml')
        self.assertStatus(405, response)
        self.assertEqual('placement 1.0',
                         response.headers['OpenStack-API-Version'])

    def test_get_refuses_an_accept_without_json(self):
        for accept in ('text/plain',
                       'text/html,application/xhtml+xml,application/xml;'
                       'q=0.9'):
            response = self.get('/resource_providers',
                                headers={'Accept': accept})
            self.assertStatus(406, response)
            self.assertIn(b'Only application/json is provided',
                          response.body)

    def test_get_takes_an_accept_with_a_wildcard(self):
        response = self.get('/resource_providers', headers={
            'Accept': 'text/html,application/xml;q=0.9,*/*;q=0.8'})
        self.assertStatus(200, response)
        self.assertEqual([], response.json['resource_providers'])

    def test_a_route_newer_than_the_version_is_404_before_the_accept(self):
        response = self.get('/traits', version='1.5',
                            headers={'Accept': 'text/plain'})
        self.assertStatus(404, response)

    def test_version_document_and_trait_show_take_any_accept(self):
        headers = {'Accept': 'text/plain'}
        self.assertStatus(200, self.get('/', headers=headers))
        self.assertStatus(204, self.get('/traits/HW_CPU_X86_AVX',
                                        headers=headers))

    def test_a_body_needs_a_content_type(self):
        response = self.request('POST', '/resource_providers',
                                raw_body=b'I want one', content_type='')
        self.assertError(response, 400, fragment='content-type header '
                         'required when content-length > 0')

    def test_content_length_must_be_a_number(self):
        response = self.request('POST', '/resource_providers',
                                headers={'Content-Length': 'hi mom',
                                         'Content-Type': 'application/json'})
        self.assertError(response, 400, fragment='content-length header '
                         'must be an integer')

    def test_no_body_and_no_content_type_is_415_naming_none(self):
        response = self.request('PUT', '/resource_providers/%s' %
                                'd3a64825-8228-4ccb-8a6c-1c6d3eb6a3e8')
        self.assertError(response, 415, fragment='The media type None is '
                         'not supported, use application/json')

    def test_errors_in_html_to_a_browser(self):
        response = self.get('/nothing', headers={'Accept': 'text/html'})
        self.assertStatus(404, response)
        self.assertEqual('text/html', response.content_type)
        self.assertIn(b'<h1>404 Not Found</h1>', response.body)
        self.assertIn(b'The resource could not be found', response.body)

    def test_errors_in_json_without_accept_or_to_any(self):
        for accept in (None, '*/*'):
            headers = {'Accept': accept} if accept else {}
            response = self.get('/nothing', headers=headers)
            self.assertEqual('application/json', response.content_type)
            self.assertEqual(404, response.json['errors'][0]['status'])

    def test_errors_in_plain_text_when_neither_is_taken(self):
        response = self.get('/resource_providers',
                            headers={'Accept': 'text/plain'})
        self.assertEqual('text/plain', response.content_type)
        self.assertTrue(response.body.startswith(b'406 Not Acceptable'))


class TestCacheHeaders(base.PlacementTestCase):
    """From 1.15: successful GETs and the writes that answer what they
    wrote carry Cache-Control: no-cache and Last-Modified."""

    def assertCacheHeaders(self, response):
        self.assertEqual('no-cache', response.headers['Cache-Control'])
        self.assertRegex(response.headers['Last-Modified'],
                         r'^\w+, \d+ \w+ \d{4} [\d:]+ GMT$')

    def test_a_get_without_a_body_has_them(self):
        self.put('/traits/CUSTOM_X')
        self.assertCacheHeaders(self.get('/traits/CUSTOM_X', version='1.15'))

    def test_a_trait_put_has_them(self):
        self.assertCacheHeaders(self.put('/traits/CUSTOM_X', version='1.15'))
        self.assertCacheHeaders(self.put('/traits/CUSTOM_X', version='1.15'))

    def test_a_provider_traits_put_has_them(self):
        rp = self.make_provider()['uuid']
        self.assertCacheHeaders(self.put(
            '/resource_providers/%s/traits' % rp,
            {'traits': [], 'resource_provider_generation': 0},
            version='1.15'))

    def test_a_provider_made_has_them_once_it_is_answered(self):
        self.assertCacheHeaders(self.post('/resource_providers',
                                          {'name': 'a'}, version='1.20'))
        response = self.post('/resource_providers', {'name': 'b'},
                             version='1.19')
        self.assertStatus(201, response)
        self.assertNotIn('Cache-Control', response.headers)

    def test_other_writes_and_errors_do_not(self):
        response = self.put('/resource_classes/CUSTOM_X', version='1.15')
        self.assertStatus(201, response)
        self.assertNotIn('Cache-Control', response.headers)
        response = self.get('/resource_providers/%s' % ('0' * 32),
                            version='1.15')
        self.assertStatus(404, response)
        self.assertNotIn('Last-Modified', response.headers)

    def test_none_before_1_15(self):
        self.assertNotIn('Cache-Control',
                         self.put('/traits/CUSTOM_X', version='1.14').headers)
