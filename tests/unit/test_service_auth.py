"""How the services authenticate to placement and the port service
(``service_auth``): keystoneauth1 sessions and adapters from the config
groups, a token from the identity service and the endpoint from its
catalog, noauth2 only where it is chosen, and the request's global id on
every call."""

import json
import urllib.parse

import fixtures
from keystoneauth1 import fixture as ksa_fixture
from keystoneauth1 import loading as ks_loading
from oslo_context import context as oslo_context
import testtools
import webob
import webob.dec

from nova_lite import conf as nova_conf
from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite.network import api as network_api
from nova_lite import placement_client
from tests.unit import fixtures as nova_fixtures
from tests.unit.network import base as network_base

IDENTITY_URL = 'http://keystone.test/v3'
CATALOG_PLACEMENT = 'http://placement.internal.test'
CATALOG_NETWORK = 'http://network.internal.test'
SERVICE_TOKEN = 'a-service-token'


class _Recorder(network_base.WSGIAdapter):
    """A transport that records each request's base URL, path and
    headers and answers 200."""

    def __init__(self):
        super().__init__(webob.Response(json={
            'resource_providers': [], 'ports': [], 'generation': 1}))
        self.seen = []

    def send(self, request, **kwargs):
        url = urllib.parse.urlsplit(request.url)
        self.seen.append(('%s://%s' % (url.scheme, url.netloc), url.path,
                          request.headers))
        return super().send(request, **kwargs)


class _Identity:
    """The identity service's token issue: every password login of user
    ``nova-lite`` in project ``service`` gets SERVICE_TOKEN and a catalog
    with placement and the port service."""

    def __init__(self):
        self.logins = []

    @webob.dec.wsgify
    def __call__(self, request):
        if request.path != '/v3/auth/tokens' or request.method != 'POST':
            return webob.Response(status=404)
        login = json.loads(request.body)['auth']['identity']['password']
        self.logins.append(login['user'])
        if login['user'] != {'name': 'nova-lite', 'password': 'secret',
                             'domain': {'name': 'Default'}}:
            return webob.Response(status=401, json={'error': {
                'code': 401, 'message': 'The request you have made '
                'requires authentication.', 'title': 'Unauthorized'}})
        token = ksa_fixture.V3Token(project_name='service',
                                    project_domain_name='Default',
                                    user_name='nova-lite',
                                    user_domain_name='Default')
        token.add_role(name='service')
        for service_type, url in (('placement', CATALOG_PLACEMENT),
                                  ('network', CATALOG_NETWORK)):
            service = token.add_service(service_type)
            service.add_endpoint('internal', url, region='RegionOne')
            service.add_endpoint('public', url.replace('internal',
                                                       'public'),
                                 region='RegionOne')
        response = webob.Response(status=201, json=token)
        response.headers['X-Subject-Token'] = SERVICE_TOKEN
        return response


class ServiceAuthTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.config = self.useFixture(nova_fixtures.Config())
        self.peer = _Recorder()
        self.identity = _Identity()

    def wired(self, client):
        for url in (CATALOG_PLACEMENT, CATALOG_NETWORK,
                    network_base.PLACEMENT_URL, 'http://127.0.0.1:8778',
                    'http://127.0.0.1:9696'):
            client.session.mount(url, self.peer)
        client.session.mount('http://keystone.test',
                             network_base.WSGIAdapter(self.identity))
        return client

    def password_auth(self, group, **extra):
        # The plugin's options exist once auth_type names it; a config
        # file would say auth_type before they are read.
        self.config.conf.register_opts(
            ks_loading.get_auth_plugin_conf_options('password'), group=group)
        self.config.config(
            auth_type='password', auth_url=IDENTITY_URL,
            username='nova-lite', password='secret', project_name='service',
            user_domain_name='Default', project_domain_name='Default',
            region_name='RegionOne', group=group, **extra)

    def test_noauth2_claims_admin_at_the_local_default_endpoint(self):
        self.wired(placement_client.PlacementClient()).get_provider(
            'cc9b3c32-3c1b-4a0b-86b2-1b7c1e7a8b01')
        [(host, path, headers)] = self.peer.seen
        self.assertEqual(('http://127.0.0.1:8778', 'admin'),
                         (host, headers['X-Auth-Token']))

    def test_an_endpoint_override_is_read_under_its_old_name_too(self):
        path = self.useFixture(fixtures.TempDir()).join('old.conf')
        with open(path, 'w') as f:
            f.write('[api]\nauth_strategy = noauth2\n'
                    '[placement]\nendpoint = %s\n' %
                    network_base.PLACEMENT_URL)
        nova_conf.CONF(['--config-file', path], project='nova-lite',
                       default_config_files=[])
        self.wired(placement_client.PlacementClient()).get_provider(
            'cc9b3c32-3c1b-4a0b-86b2-1b7c1e7a8b01')
        self.assertEqual([network_base.PLACEMENT_URL],
                         [host for host, _p, _h in self.peer.seen])

    def test_the_defaults_outlive_parsing_the_command_line(self):
        nova_conf.CONF([], project='nova-lite', default_config_files=[])
        self.assertEqual(
            ('placement', 'network', ['internal', 'public'], 30),
            (nova_conf.CONF.placement.service_type,
             nova_conf.CONF.network.service_type,
             nova_conf.CONF.network.valid_interfaces,
             nova_conf.CONF.placement.timeout))

    def test_keystone_without_credentials_refuses_to_start(self):
        self.config.config(auth_strategy='keystone', group='api')
        error = self.assertRaises(exception.ConfigurationError,
                                  placement_client.PlacementClient)
        self.assertIn('[placement] auth_type is not set', str(error))
        error = self.assertRaises(exception.ConfigurationError,
                                  network_api.PortClient)
        self.assertIn('[network] auth_type is not set', str(error))

    def test_noauth2_may_be_chosen_under_a_keystone_api(self):
        self.config.config(auth_strategy='keystone', group='api')
        self.config.config(auth_type='noauth2', group='network')
        self.wired(network_api.PortClient()).list_ports()
        self.assertEqual('admin', self.peer.seen[0][2]['X-Auth-Token'])

    def test_password_auth_logs_in_and_finds_placement_in_the_catalog(self):
        self.config.config(auth_strategy='keystone', group='api')
        self.password_auth('placement')
        client = self.wired(placement_client.PlacementClient())
        client.get_provider('cc9b3c32-3c1b-4a0b-86b2-1b7c1e7a8b01')
        client.get_provider('cc9b3c32-3c1b-4a0b-86b2-1b7c1e7a8b02')
        # One login; the token is kept for the calls that follow.
        self.assertEqual(1, len(self.identity.logins))
        self.assertEqual(
            [(CATALOG_PLACEMENT, SERVICE_TOKEN)] * 2,
            [(host, headers['X-Auth-Token'])
             for host, _path, headers in self.peer.seen])

    def test_the_interface_is_chosen_by_valid_interfaces(self):
        self.config.config(auth_strategy='keystone', group='api')
        self.password_auth('network', valid_interfaces=['public'])
        client = self.wired(network_api.PortClient())
        client.session.mount('http://network.public.test', self.peer)
        client.list_ports()
        self.assertEqual([('http://network.public.test', '/v2.0/ports')],
                         [(host, path) for host, path, _h in self.peer.seen])

    def test_an_override_wins_over_the_catalog(self):
        self.config.config(auth_strategy='keystone', group='api')
        self.password_auth('placement',
                           endpoint_override=network_base.PLACEMENT_URL)
        self.wired(placement_client.PlacementClient()).get_provider(
            'cc9b3c32-3c1b-4a0b-86b2-1b7c1e7a8b01')
        self.assertEqual([(network_base.PLACEMENT_URL, SERVICE_TOKEN)],
                         [(host, headers['X-Auth-Token'])
                          for host, _path, headers in self.peer.seen])

    def test_refused_credentials_are_placement_unavailable(self):
        self.config.config(auth_strategy='keystone', group='api')
        self.password_auth('placement')
        self.config.config(password='wrong', group='placement')
        client = self.wired(placement_client.PlacementClient())
        self.assertRaises(placement_client.PlacementUnavailable,
                          client.get_provider,
                          'cc9b3c32-3c1b-4a0b-86b2-1b7c1e7a8b01')
        self.assertEqual([], self.peer.seen)

    def test_an_unknown_auth_type_is_a_configuration_error(self):
        self.config.config(auth_type='no-such-plugin', group='placement')
        error = self.assertRaises(exception.ConfigurationError,
                                  placement_client.PlacementClient)
        self.assertIn('[placement]', str(error))

    def test_each_call_carries_the_global_request_id(self):
        client = self.wired(network_api.PortClient())
        nova_context.RequestContext(
            user_id='u', project_id='p',
            global_request_id='req-5d5c3c0e-0c4c-4f33-9a3e-6d0e1f2a3b4c')
        self.addCleanup(setattr, oslo_context._request_store, 'context',
                        None)
        client.list_ports()
        self.assertEqual('req-5d5c3c0e-0c4c-4f33-9a3e-6d0e1f2a3b4c',
                         self.peer.seen[0][2]['X-OpenStack-Request-ID'])
