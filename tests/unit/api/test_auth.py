"""noauth2 authentication, and where it may be served."""

import os
import subprocess
import sys

import fixtures
from oslo_config import cfg
import testtools
import webob

from nova_lite.api import auth
from nova_lite.api import wsgi
from nova_lite import exception
from tests.unit.api import base
from tests.unit import fixtures as nova_fixtures


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

    def test_identity_headers_are_placements_only(self):
        # As Nova's noauth2: X-Roles and the scope header say nothing
        # here (placement reads them, tests/unit/placement/test_policy).
        self.assertError(self.request(
            'GET', '/v2.1/os-hypervisors', token='notused',
            headers={'X-Roles': 'admin'}), 403, 'forbidden')
        self.assertEqual(200, self.request(
            'GET', '/v2.1/os-hypervisors', token=base.ADMIN,
            headers={'X-Roles': 'reader', 'OpenStack-System-Scope': 'all'},
        ).status_int)


class TestKeystoneContext(testtools.TestCase):
    """The context made of the headers keystonemiddleware leaves."""

    def context_of(self, headers):
        seen = {}

        def application(environ, start_response):
            seen['context'] = environ[wsgi.CONTEXT_KEY]
            start_response('204 No Content', [])
            return []

        request = webob.Request.blank('/', headers=dict(
            headers, **{'X-Identity-Status': 'Confirmed'}))
        request.get_response(auth.KeystoneContext(application))
        return seen['context']

    def test_roles_project_and_user(self):
        context = self.context_of({'X-User-Id': 'u1', 'X-Project-Id': 'p1',
                                   'X-Roles': 'Member, reader'})
        self.assertEqual(('u1', 'p1', ['member', 'reader'], False),
                         (context.user_id, context.project_id,
                          context.roles, context.is_admin))

    def test_a_system_scoped_token(self):
        context = self.context_of({'X-User-Id': 'u1', 'X-Roles': 'admin',
                                   'OpenStack-System-Scope': 'all'})
        self.assertEqual(('all', None, True), (
            context.system_scope, context.project_id, context.is_admin))


class TestNoAuth2ServesLoopbackOnly(base.APITestCase):

    def from_address(self, remote):
        return self.request('GET', '/v2.1/os-hypervisors', token=base.ADMIN,
                            headers={}, environ={'REMOTE_ADDR': remote})

    def test_a_loopback_client_is_served(self):
        for remote in ('127.0.0.1', '127.9.9.9', '::1'):
            self.assertEqual(200, self.from_address(remote).status_int,
                             remote)

    def test_any_other_client_is_401(self):
        for remote in ('10.0.0.5', '192.168.1.20', 'fe80::1', ''):
            response = self.from_address(remote)
            self.assertError(response, 401, 'unauthorized',
                             'serves loopback clients only')

    def test_insecure_noauth2_serves_anyone(self):
        self.plane.config.config(insecure_noauth2=True, group='api')
        self.assertEqual(200, self.from_address('10.0.0.5').status_int)


class TestBindAddress(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.config = self.useFixture(nova_fixtures.Config())

    def test_noauth2_is_refused_on_any_address_but_loopback(self):
        for host in ('0.0.0.0', '::', '10.0.0.5'):
            error = self.assertRaises(exception.ConfigurationError,
                                      auth.check_bind_address,
                                      'nova-lite-api', host)
            self.assertIn('loopback', str(error))

    def test_noauth2_on_loopback_is_fine(self):
        for host in ('127.0.0.1', '::1', 'localhost'):
            auth.check_bind_address('nova-lite-api', host)

    def test_keystone_listens_anywhere(self):
        self.config.config(auth_strategy='keystone', group='api')
        auth.check_bind_address('nova-lite-api', '0.0.0.0')

    def test_insecure_noauth2_listens_anywhere(self):
        self.config.config(insecure_noauth2=True, group='api')
        auth.check_bind_address('nova-lite-api', '0.0.0.0')


class TestADaemonRefusesNoAuth2OnAnyAddress(testtools.TestCase):

    def test_it_exits_2_with_one_clear_line(self):
        workdir = self.useFixture(fixtures.TempDir()).path
        conf = os.path.join(workdir, 'placement.conf')
        with open(conf, 'w') as f:
            f.write('[api]\nauth_strategy = noauth2\n'
                    '[placement]\nbind_host = 0.0.0.0\n')
        result = subprocess.run(
            [sys.executable, '-m', 'nova_lite.cmd.placement',
             '--config-file', conf], stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, timeout=60, cwd=workdir)
        self.assertEqual(2, result.returncode, result.stderr)
        self.assertIn('ERROR: Configuration error: nova-lite-placement: '
                      '[api] auth_strategy = noauth2', result.stderr)
        self.assertNotIn('Traceback', result.stderr)


class TestKeystoneReadsTheDaemonsConfig(testtools.TestCase):
    """keystonemiddleware gets the daemon's own configuration object. A
    configuration of its own here (not the global one): the auth plugin
    registers its options on it."""

    def daemon_config(self, text):
        workdir = self.useFixture(fixtures.TempDir()).path
        path = os.path.join(workdir, 'api.conf')
        with open(path, 'w') as f:
            f.write(text)
        conf = cfg.ConfigOpts()
        conf(['--config-file', path], project='nova-lite',
             default_config_files=[])
        self.useFixture(fixtures.MockPatchObject(auth, 'CONF', conf))
        return conf

    def test_auth_token_takes_its_options_from_the_daemons_files(self):
        self.daemon_config(
            '[keystone_authtoken]\n'
            'www_authenticate_uri = http://keystone.example:5000\n'
            'auth_type = password\n'
            'auth_url = http://keystone.example:5000/v3\n'
            'username = nova-lite\npassword = secret\n'
            'user_domain_name = Default\nproject_name = service\n'
            'project_domain_name = Default\n')
        protocol = auth.pipeline(lambda environ, start_response: [],
                                 strategy='keystone')
        self.assertEqual('http://keystone.example:5000',
                         protocol._conf.get('www_authenticate_uri'))

    def test_a_plugin_missing_its_options_is_a_configuration_error(self):
        self.daemon_config('[keystone_authtoken]\nauth_type = password\n')
        error = self.assertRaises(
            exception.ConfigurationError, auth.pipeline,
            lambda environ, start_response: [], strategy='keystone')
        self.assertIn('auth_url', str(error))
