"""auth_strategy = http_basic: HTTP basic authentication against an
htpasswd file of bcrypt digests, each user given a project and roles by
the roles file; and the services calling each other with it."""

import base64
import os

import bcrypt
import fixtures

from nova_lite.api import auth
from nova_lite.api import compute as compute_app
from nova_lite.api import placement as placement_app
from nova_lite import exception
from nova_lite import placement_client
from tests.unit.api import base
from tests.unit.network import base as network_base

ROLES = """
[root]
project_id = admin-project
roles = admin, member, reader

[alice]
project_id = proj-a
roles = member, reader
"""


def _htpasswd_line(user, password):
    # Cost 4: the lowest bcrypt allows; a deployment's digests cost more.
    digest = bcrypt.hashpw(password.encode(), bcrypt.gensalt(rounds=4))
    return '%s:%s\n' % (user, digest.decode())


def basic(user, password):
    return 'Basic ' + base64.b64encode(
        ('%s:%s' % (user, password)).encode()).decode()


class HTTPBasicTestCase(base.APITestCase):

    def setUp(self):
        super().setUp()
        self.dir = self.useFixture(fixtures.TempDir()).path
        self.user_file = os.path.join(self.dir, 'htpasswd')
        self.roles_file = os.path.join(self.dir, 'roles.conf')
        self.write_users(('root', 'rootpw'), ('alice', 'alicepw'),
                         ('mallory', 'mallorypw'))
        with open(self.roles_file, 'w') as f:
            f.write(ROLES)
        self.plane.config.config(
            auth_strategy='http_basic', http_basic_auth_user_file=(
                self.user_file), http_basic_auth_roles_file=self.roles_file,
            group='api')
        self.app = compute_app.make_app()

    def write_users(self, *users):
        with open(self.user_file, 'w') as f:
            f.writelines(_htpasswd_line(u, p) for u, p in users)
        # A new stamp even within the file system's time resolution.
        os.utime(self.user_file, ns=(1, os.stat(self.user_file).st_mtime_ns
                                     + 1000))

    def as_(self, method, path, authorization, **kwargs):
        headers = {'Authorization': authorization} if authorization else {}
        return self.request(method, path, token=None, headers=headers,
                            **kwargs)


class TestHTTPBasic(HTTPBasicTestCase):

    def test_an_administrator_by_the_roles_file(self):
        response = self.as_('GET', '/v2.1/os-hypervisors',
                            basic('root', 'rootpw'))
        self.assertEqual(200, response.status_int, response.body)

    def test_a_member_is_of_its_project_and_no_administrator(self):
        self.make_flavor()
        self.make_image()
        self.useFixture(base.nova_fixtures.ConductorRecorder())
        created = self.as_('POST', '/v2.1/servers', basic('alice',
                                                          'alicepw'),
                           body={'server': {'name': 'vm', 'flavorRef': '1',
                                            'imageRef': base.IMAGE_UUID}})
        self.assertEqual(202, created.status_int, created.body)
        server = self.as_('GET', '/v2.1/servers/%s' %
                          created.json['server']['id'],
                          basic('alice', 'alicepw')).json['server']
        self.assertEqual(('proj-a', 'alice'),
                         (server['tenant_id'], server['user_id']))
        self.assertError(self.as_('GET', '/v2.1/os-hypervisors',
                                  basic('alice', 'alicepw')),
                         403, 'forbidden')

    def test_a_wrong_password_is_401_with_a_challenge(self):
        response = self.as_('GET', '/v2.1/servers', basic('alice', 'nope'))
        self.assertError(response, 401, 'unauthorized', 'wrong')
        self.assertEqual('Basic realm="nova-lite"',
                         response.headers['WWW-Authenticate'])

    def test_an_unknown_user_is_401(self):
        self.assertError(self.as_('GET', '/v2.1/servers',
                                  basic('eve', 'alicepw')),
                         401, 'unauthorized')

    def test_no_header_is_401_and_the_versions_are_public(self):
        response = self.as_('GET', '/v2.1/servers', None)
        self.assertError(response, 401, 'unauthorized')
        self.assertIn('Basic', response.headers['WWW-Authenticate'])
        self.assertEqual(200, self.as_('GET', '/', None).status_int)

    def test_a_token_is_no_login_here(self):
        response = self.request('GET', '/v2.1/servers', token=base.ADMIN)
        self.assertError(response, 401, 'unauthorized')

    def test_a_malformed_header_is_401(self):
        for header in ('Basic !!!notbase64', 'Bearer abc', 'Basic',
                       'Basic ' + base64.b64encode(b'nocolon').decode()):
            self.assertError(self.as_('GET', '/v2.1/servers', header),
                             401, 'unauthorized')

    def test_a_user_with_no_project_is_403(self):
        self.assertError(self.as_('GET', '/v2.1/servers',
                                  basic('mallory', 'mallorypw')),
                         403, 'forbidden', 'No project')

    def test_a_user_taken_out_of_the_file_is_out_at_once(self):
        login = basic('alice', 'alicepw')
        self.assertEqual(200, self.as_('GET', '/v2.1/servers',
                                       login).status_int)
        self.write_users(('root', 'rootpw'))
        self.assertError(self.as_('GET', '/v2.1/servers', login),
                         401, 'unauthorized')

    def test_a_new_password_replaces_the_remembered_one(self):
        self.assertEqual(200, self.as_('GET', '/v2.1/servers',
                                       basic('alice', 'alicepw')).status_int)
        self.write_users(('alice', 'changed'))
        self.assertError(self.as_('GET', '/v2.1/servers',
                                  basic('alice', 'alicepw')),
                         401, 'unauthorized')
        self.assertEqual(200, self.as_('GET', '/v2.1/servers',
                                       basic('alice', 'changed')).status_int)

    def test_a_login_is_checked_once_not_on_every_request(self):
        checks = []
        real = auth.basic_auth.authenticate

        def counted(*args):
            checks.append(args[1])
            return real(*args)
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.api.auth.basic_auth.authenticate', counted))
        for _ in range(3):
            self.as_('GET', '/v2.1/servers', basic('alice', 'alicepw'))
        self.as_('GET', '/v2.1/servers', basic('alice', 'wrong'))
        self.as_('GET', '/v2.1/servers', basic('alice', 'wrong'))
        self.assertEqual(['alice'] * 3, checks)


class TestHTTPBasicFiles(HTTPBasicTestCase):

    def make(self):
        return compute_app.make_app()

    def test_a_missing_user_file_stops_the_daemon(self):
        os.unlink(self.user_file)
        error = self.assertRaises(exception.ConfigurationError, self.make)
        self.assertIn('http_basic_auth_user_file', str(error))

    def test_a_digest_other_than_bcrypt_stops_the_daemon(self):
        with open(self.user_file, 'a') as f:
            f.write('bob:$apr1$abcdefgh$0123456789abcdefghijkl\n')
        error = self.assertRaises(exception.ConfigurationError, self.make)
        self.assertIn('bcrypt', str(error))

    def test_a_missing_roles_file_stops_the_daemon(self):
        os.unlink(self.roles_file)
        error = self.assertRaises(exception.ConfigurationError, self.make)
        self.assertIn('http_basic_auth_roles_file', str(error))

    def test_a_user_without_project_stops_the_daemon(self):
        with open(self.roles_file, 'a') as f:
            f.write('[bob]\nroles = member\n')
        error = self.assertRaises(exception.ConfigurationError, self.make)
        self.assertIn('bob has no project_id', str(error))


class TestServicesCallEachOtherWithHTTPBasic(HTTPBasicTestCase):
    """A service's keystoneauth1 http_basic plugin against placement
    under http_basic."""

    def client(self, password):
        from keystoneauth1 import loading as ks_loading
        config = self.plane.config
        config.conf.register_opts(
            ks_loading.get_auth_plugin_conf_options('http_basic'),
            group='placement')
        config.config(auth_type='http_basic', username='root',
                      password=password, group='placement')
        client = placement_client.PlacementClient()
        client.session.mount('http://127.0.0.1:8778',
                             network_base.WSGIAdapter(
                                 placement_app.make_app()))
        return client

    def test_the_service_user_is_let_in(self):
        self.assertIsNone(self.client('rootpw').get_provider(
            '7f0c1d2e-3b4a-4c5d-8e9f-0a1b2c3d4e5f'))

    def test_a_wrong_service_password_is_refused(self):
        error = self.assertRaises(
            placement_client.PlacementConflict,
            self.client('wrong').get_provider,
            '7f0c1d2e-3b4a-4c5d-8e9f-0a1b2c3d4e5f')
        self.assertIn('401', str(error))
