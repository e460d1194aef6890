"""oslo.middleware in front of the three REST services
(``nova_lite.api.middleware``): the health check, request ids, the body
size limit."""

import os

import fixtures
from oslo_serialization import jsonutils
import testtools
import webob

from nova_lite.api import compute
from nova_lite.api import middleware
from nova_lite.api import network
from nova_lite.api import placement
from tests.unit import fixtures as nova_fixtures

GOOD_ID = 'req-11111111-2222-3333-4444-555555555555'


class MiddlewareTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(fixtures.FakeLogger())
        self.plane = self.useFixture(nova_fixtures.ControlPlane())
        self.state = self.useFixture(fixtures.TempDir()).path
        self.plane.config.config(state_path=self.state)
        self.apps = {'compute': compute.make_app(),
                     'placement': placement.make_app(),
                     'network': network.make_app()}

    def request(self, app, path, method='GET', **kwargs):
        return webob.Request.blank(path, method=method,
                                   **kwargs).get_response(self.apps[app])


class TestHealthcheck(MiddlewareTestCase):

    def test_every_service_answers_without_a_token(self):
        for app in self.apps:
            response = self.request(app, '/healthcheck')
            self.assertEqual((200, b'OK'), (response.status_int,
                                            response.body), app)

    def test_the_disable_file_takes_them_out_of_the_pool(self):
        with open(os.path.join(self.state, 'healthcheck_disable'), 'w'):
            pass
        for app in self.apps:
            self.assertEqual(503, self.request(app, '/healthcheck')
                             .status_int, app)


class TestRequestIds(MiddlewareTestCase):

    def seen_by_the_application(self, headers):
        seen = {}

        def application(environ, start_response):
            seen.update(environ)
            start_response('200 OK', [('Content-Type', 'text/plain')])
            return [b'']
        response = webob.Request.blank('/', headers=headers).get_response(
            middleware.wrap(application, lambda *a, **k: {}))
        return seen, response

    def test_a_well_formed_global_request_id_is_kept(self):
        seen, response = self.seen_by_the_application(
            {'X-OpenStack-Request-ID': GOOD_ID})
        self.assertEqual(GOOD_ID, seen.get('openstack.global_request_id'))
        # The request's own id is fresh, whatever the caller sent.
        self.assertNotEqual(GOOD_ID,
                            response.headers['X-OpenStack-Request-ID'])

    def test_a_forged_one_is_dropped(self):
        for forged in ('req-1 admin logged in', GOOD_ID + 'x', 'anything',
                       GOOD_ID.upper()):
            seen, _ = self.seen_by_the_application(
                {'X-OpenStack-Request-ID': forged})
            self.assertNotIn('openstack.global_request_id', seen, forged)

    def test_the_answer_carries_the_id_the_logs_carry(self):
        response = self.request('compute', '/v2.1/flavors',
                                headers={'X-Auth-Token': 'demo'})
        self.assertEqual(200, response.status_int)
        self.assertRegex(response.headers['X-OpenStack-Request-ID'],
                         middleware.request_id.ID_FORMAT)
        self.assertEqual(
            1, len(response.headers.getall('X-OpenStack-Request-ID')))


class TestBodySizeLimit(MiddlewareTestCase):

    def post(self, app, path, size):
        return self.request(app, path, method='POST',
                            headers={'X-Auth-Token': 'admin',
                                     'Content-Type': 'application/json'},
                            body=b' ' * size)

    def test_a_body_over_the_limit_is_413_in_the_services_format(self):
        self.plane.config.config(max_request_body_size=1000,
                                 group='oslo_middleware')
        for app, path, kind in (('compute', '/v2.1/servers', 'overLimit'),
                                ('placement', '/resource_providers',
                                 'errors'),
                                ('network', '/v2.0/ports', 'NeutronError')):
            response = self.post(app, path, 1001)
            self.assertEqual(413, response.status_int, app)
            body = jsonutils.loads(response.body)
            self.assertIn('more than the 1000', jsonutils.dumps(body), app)
            self.assertIn(kind, jsonutils.dumps(body), app)

    def test_a_body_at_the_limit_reaches_the_service(self):
        self.plane.config.config(max_request_body_size=1000,
                                 group='oslo_middleware')
        # Blank JSON: the service itself refuses it, as malformed.
        self.assertEqual(400, self.post('compute', '/v2.1/servers',
                                        1000).status_int)


class TestCORS(MiddlewareTestCase):
    """[cors] as OpenStack Placement and Nova have it (their cors.yaml and
    non-cors.yaml API tests ask the same of placement's root)."""

    ORIGIN = 'http://valid.example.com'

    def allow(self, **options):
        self.plane.config.config(group='cors', allowed_origin=[self.ORIGIN],
                                 **options)
        self.apps = {'compute': compute.make_app(),
                     'placement': placement.make_app(),
                     'network': network.make_app()}

    def preflight(self, app, origin, path='/', **headers):
        headers = dict({'Origin': origin, 'X-Auth-Token': 'user',
                        'Access-Control-Request-Method': 'GET'}, **headers)
        return self.request(app, path, method='OPTIONS', headers=headers)

    def test_without_allowed_origins_options_is_405(self):
        for app in self.apps:
            response = self.preflight(app, self.ORIGIN)
            self.assertEqual(405, response.status_int, app)
            self.assertNotIn('Access-Control-Allow-Origin', response.headers)
        response = self.request('placement', '/', headers={
            'Origin': self.ORIGIN, 'X-Auth-Token': 'user'})
        self.assertNotIn('Access-Control-Allow-Origin', response.headers)

    def test_an_allowed_origins_preflight_is_answered(self):
        self.allow(allow_headers=['openstack-api-version'])
        for app in self.apps:
            response = self.preflight(
                app, self.ORIGIN,
                **{'Access-Control-Request-Headers': 'openstack-api-version'})
            self.assertEqual(200, response.status_int, app)
            self.assertEqual(self.ORIGIN, response.headers[
                'Access-Control-Allow-Origin'], app)
            self.assertEqual('openstack-api-version', response.headers[
                'Access-Control-Allow-Headers'], app)

    def test_another_origin_gets_no_cors_headers(self):
        self.allow()
        response = self.preflight('placement', 'http://invalid.example.com')
        self.assertEqual(200, response.status_int)
        self.assertNotIn('Access-Control-Allow-Origin', response.headers)
        response = self.request('placement', '/', headers={
            'Origin': 'http://invalid.example.com'})
        self.assertNotIn('Access-Control-Allow-Origin', response.headers)

    def test_an_allowed_origins_request_may_read_the_answer(self):
        self.allow()
        response = self.request('placement', '/resource_providers', headers={
            'Origin': self.ORIGIN, 'X-Auth-Token': 'admin'})
        self.assertEqual(200, response.status_int)
        self.assertEqual(self.ORIGIN,
                         response.headers['Access-Control-Allow-Origin'])
        self.assertIn('OpenStack-API-Version',
                      response.headers['Access-Control-Expose-Headers'])

    def test_the_openstack_headers_are_allowed_by_default(self):
        self.allow()
        response = self.preflight(
            'compute', self.ORIGIN, path='/v2.1/servers',
            **{'Access-Control-Request-Headers':
               'x-auth-token,openstack-api-version'})
        self.assertEqual(200, response.status_int)
        self.assertIn('OpenStack-API-Version'.lower(), response.headers[
            'Access-Control-Allow-Headers'].lower())
