"""The control plane in the auth modes a deployment runs, against the
real daemons, and the policy matrix (``test_policy_matrix``) in each.

keystone
    A real Keystone 30.0.0 (``tests/functional/keystone.py``). The
    daemons log in as the service user ``nova-lite`` and find placement
    and the port service in the catalog (their ``endpoint_override`` is
    emptied), keystonemiddleware validates every caller's token, and
    openstacksdk and the ``openstack`` CLI log in with passwords and find
    the Compute API, placement and the port service in the catalog.
http_basic
    An htpasswd file of bcrypt digests and a roles file; the services
    call each other with keystoneauth1's http_basic plugin.
"""

import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap

import bcrypt
import openstack
from openstack import exceptions as sdk_exceptions
import requests

from tests.functional import base
from tests.functional import keystone
from tests.functional import test_policy_matrix as matrix
from tools import placement_peer


SERVICE_USER, SERVICE_PASSWORD = 'nova-lite', 'service-secret'
# OpenStack Placement's own service user (placement_service =
# 'openstack'): it checks tokens with Keystone as that user.
PLACEMENT_USER, PLACEMENT_PASSWORD = 'placement', 'placement-secret'
PASSWORDS = {matrix.ADMIN: 'admin-secret', matrix.OWNER: 'alice-secret',
             matrix.OTHER: 'bob-secret'}
NAMES = {matrix.ADMIN: ('admin', 'admin'),
         matrix.OWNER: (matrix.OWNER_USER_NAME, matrix.OWNER_PROJECT_NAME),
         matrix.OTHER: (matrix.OTHER_USER_NAME, matrix.OTHER_PROJECT_NAME)}


class UnderKeystone:
    """Mixed into a ControlPlaneTestCase: the class's plane authenticates
    with a real Keystone, where the owner (alice, proj-a), the other
    project (bob, proj-b), the administrator (admin, admin) and the
    services' user (nova-lite, service) log in with passwords. On
    OpenStack Placement (``placement_service = 'openstack'``) that
    Placement runs ``auth_strategy = keystone`` too, checking tokens as
    its own user (placement, with the service role only), and is found
    in the catalog like the plane's own."""

    @classmethod
    def setUpClass(cls):
        cls.keystone = keystone.Keystone().start()
        try:
            cls._make_identities()
            super().setUpClass()
        except Exception:
            cls.keystone.stop()
            raise

    @classmethod
    def tearDownClass(cls):
        try:
            super().tearDownClass()
        finally:
            cls.keystone.stop()

    @classmethod
    def _make_identities(cls):
        ks = cls.keystone
        assert PASSWORDS[matrix.ADMIN] == keystone.ADMIN_PASSWORD
        ks.user(SERVICE_USER, SERVICE_PASSWORD, 'service',
                ['admin', 'service'])
        cls.owner_user, cls.owner_project = ks.user(
            matrix.OWNER_USER_NAME, PASSWORDS[matrix.OWNER],
            matrix.OWNER_PROJECT_NAME, ['member'])
        ks.user(matrix.OTHER_USER_NAME, PASSWORDS[matrix.OTHER],
                matrix.OTHER_PROJECT_NAME, ['member'])
        cls.tokens = {caller: ks.token(NAMES[caller][0], PASSWORDS[caller],
                                       NAMES[caller][1])
                      for caller in NAMES}
        services = ''.join(
            cls.client_conf(group, SERVICE_USER, SERVICE_PASSWORD)
            for group in ('placement', 'network'))
        cls.extra_conf = textwrap.dedent("""
            [api]
            auth_strategy = keystone
            """) + ks.service_conf(
            'keystone_authtoken', SERVICE_USER, SERVICE_PASSWORD) + \
            'www_authenticate_uri = %s\n' % ks.auth_url + services
        cls.compute_conf = {index: services
                            for index in range(1, cls.computes + 1)}

    @classmethod
    def client_conf(cls, group, user, password):
        """``[group]`` of a daemon calling that API as ``user``: a
        password login, and no override: the endpoint comes from the
        catalog, its internal interface as the README's example says."""
        return cls.keystone.service_conf(group, user, password) + \
            'endpoint_override =\nvalid_interfaces = internal\n'

    @classmethod
    def new_openstack_placement(cls):
        cls.keystone.user(PLACEMENT_USER, PLACEMENT_PASSWORD, 'service',
                          ['service'])
        return placement_peer.Server(
            auth_strategy='keystone',
            extra_conf=cls.keystone.service_conf(
                'keystone_authtoken', PLACEMENT_USER, PLACEMENT_PASSWORD) +
            'www_authenticate_uri = %s\n' % cls.keystone.auth_url)

    @classmethod
    def new_plane(cls):
        plane = super().new_plane()
        plane.admin_headers = {'X-Auth-Token': cls.tokens[matrix.ADMIN]}
        cls.keystone.catalog('compute', 'nova', plane.api_url + '/v2.1')
        cls.keystone.catalog('placement', 'placement', plane.placement_url)
        cls.keystone.catalog('network', 'neutron', plane.network_url)
        return plane

    @classmethod
    def auth_headers(cls, caller):
        if caller == matrix.ANONYMOUS:
            return {}
        return {'X-Auth-Token': cls.tokens[caller]}

    def connect(self, caller):
        user, project = NAMES[caller]
        return openstack.connect(
            auth_url=self.keystone.auth_url, username=user,
            password=PASSWORDS[caller], project_name=project,
            user_domain_name=keystone.DOMAIN,
            project_domain_name=keystone.DOMAIN,
            region_name=keystone.REGION)

    def run_openstack(self, caller, *args):
        user, project = NAMES[caller]
        path = os.path.join(self.plane.workdir, 'clouds-%s.yaml' % caller)
        with open(path, 'w') as f:
            f.write(textwrap.dedent("""
                clouds:
                  nova-lite:
                    auth_type: password
                    auth:
                      auth_url: %s
                      username: %s
                      password: %s
                      project_name: %s
                      user_domain_name: Default
                      project_domain_name: Default
                    region_name: RegionOne
                """) % (self.keystone.auth_url, user, PASSWORDS[caller],
                        project))
        env = dict(os.environ, OS_CLIENT_CONFIG_FILE=path,
                   OS_CLOUD='nova-lite')
        cli = os.path.join(os.path.dirname(sys.executable), 'openstack')
        return subprocess.run([cli] + list(args), capture_output=True,
                              text=True, env=env, timeout=180)

    def openstack(self, caller, *args):
        result = self.run_openstack(caller, *args)
        self.assertEqual(0, result.returncode, result.stderr[-3000:])
        return result.stdout

    def openstack_json(self, caller, *args):
        return json.loads(self.openstack(caller, *args, '-f', 'json'))


class TestPolicyMatrixUnderKeystone(UnderKeystone,
                                    matrix.TestPolicyMatrix):
    """The matrix with Keystone's tokens and ids."""


class TestClientsUnderKeystone(UnderKeystone, base.ControlPlaneTestCase):
    """openstacksdk and the openstack CLI against a Keystone deployment:
    password logins, every service found in the catalog."""

    computes = 1

    def test_openstacksdk_boots_a_server_found_in_the_catalog(self):
        conn = self.connect(matrix.OWNER)
        server = conn.compute.create_server(
            name='sdk-under-keystone', image_id=self.plane.image_id,
            flavor_id='2', networks='none')
        self.addCleanup(self._delete, conn, server)
        server = conn.compute.wait_for_server(server, wait=120)
        self.assertEqual('ACTIVE', server.status)
        self.assertEqual(self.owner_project, server.project_id)
        self.assertIn(server.id, [s.id for s in conn.compute.servers()])
        # The port service, found in the catalog too.
        self.assertIsInstance(list(conn.network.ports()), list)
        # The other project does not see it.
        other = self.connect(matrix.OTHER)
        self.assertNotIn(server.id, [s.id for s in other.compute.servers()])
        self.assertRaises(sdk_exceptions.NotFoundException,
                          other.compute.get_server, server.id)

    @staticmethod
    def _delete(conn, server):
        conn.compute.delete_server(server, ignore_missing=True)
        conn.compute.wait_for_delete(server, wait=120)

    def test_placement_is_for_administrators(self):
        providers = [p.name for p in
                     self.connect(matrix.ADMIN).placement.resource_providers()]
        self.assertIn('compute1', providers)
        self.assertRaises(sdk_exceptions.ForbiddenException, list,
                          self.connect(matrix.OWNER).placement
                          .resource_providers())

    def test_the_openstack_cli_logs_in_with_a_password(self):
        flavors = self.openstack_json(matrix.OWNER, 'flavor', 'list')
        self.assertIn('m1.small', [f['Name'] for f in flavors])
        for resource in ('server', 'port'):
            self.assertIsInstance(
                self.openstack_json(matrix.OWNER, resource, 'list'), list)
        providers = self.openstack_json(matrix.ADMIN, 'resource',
                                        'provider', 'list')
        self.assertIn('compute1', [p['name'] for p in providers])

    def test_a_token_keystone_did_not_issue_is_401_everywhere(self):
        for url in (self.plane.api_url + '/v2.1/servers',
                    self.plane.placement_url + '/resource_providers',
                    self.plane.network_url + '/v2.0/ports'):
            for token in ('admin', 'admin:admin', 'gAAAAAforged'):
                response = requests.get(url, timeout=30,
                                        headers={'X-Auth-Token': token})
                self.assertEqual(401, response.status_code, (url, token))

    # -- quotas of Keystone's projects ---------------------------------------

    def new_project(self, name):
        """A Keystone project (its id), its quotas removed afterwards."""
        project_id = self.keystone.project('%s-%s' % (name, self.id()[-8:]))
        self.addCleanup(self.admin.delete, '/os-quota-sets/' + project_id)
        return project_id

    def cli_quota(self, project, *options):
        rows = self.openstack_json(matrix.ADMIN, 'quota', 'show',
                                   '--compute', *options, project)
        return {row['Resource']: row['Limit'] for row in rows}

    def test_openstack_quota_set_show_and_delete(self):
        project = self.new_project('qp-cli')
        self.openstack(matrix.ADMIN, 'quota', 'set', '--instances', '3',
                       '--cores', '7', project)
        shown = self.cli_quota(project)
        self.assertEqual((3, 7, 51200), (shown['instances'], shown['cores'],
                                         shown['ram']))
        self.assertEqual(3, self.admin.get(
            '/os-quota-sets/' + project).json()['quota_set']['instances'])
        self.assertEqual(10, self.cli_quota(project, '--default')[
            'instances'])
        self.openstack(matrix.ADMIN, 'quota', 'delete', '--compute',
                       project)
        self.assertEqual(10, self.cli_quota(project)['instances'])

    def test_openstack_quota_set_below_usage_needs_force(self):
        project = self.keystone_project_of(matrix.OTHER)
        self.addCleanup(self.admin.delete, '/os-quota-sets/' + project)
        conn = self.connect(matrix.OTHER)
        server = conn.compute.create_server(
            name='used', image_id=self.plane.image_id, flavor_id='2',
            networks='none')
        self.addCleanup(self._delete, conn, server)
        conn.compute.wait_for_server(server, wait=120)
        result = self.run_openstack(matrix.ADMIN, 'quota', 'set',
                                    '--instances', '0', project)
        self.assertNotEqual(0, result.returncode)
        self.assertIn('instances 0 < 1 in use', result.stderr)
        self.openstack(matrix.ADMIN, 'quota', 'set', '--force',
                       '--instances', '0', project)
        self.assertEqual(0, self.cli_quota(project)['instances'])

    def keystone_project_of(self, caller):
        return self.keystone.admin.get(
            self.keystone.auth_url + '/projects',
            params={'name': NAMES[caller][1]}).json()['projects'][0]['id']

    def test_openstack_limits_show_absolute(self):
        project = self.new_project('qp-lim')
        self.openstack(matrix.ADMIN, 'quota', 'set', '--instances', '4',
                       project)
        absolute = {row['Name']: row['Value'] for row in self.openstack_json(
            matrix.ADMIN, 'limits', 'show', '--absolute', '--project',
            project)}
        self.assertEqual((4, 20, 0), (absolute['max_total_instances'],
                                      absolute['max_total_cores'],
                                      absolute['total_instances_used']))
        # The caller's own project.
        own = {row['Name']: row['Value'] for row in self.openstack_json(
            matrix.OWNER, 'limits', 'show', '--absolute')}
        self.assertEqual(10, own['max_total_instances'])

    # -- the port service, found in the catalog --------------------------

    def test_openstack_cli_makes_a_port_with_minimum_bandwidth(self):
        suffix = self.id()[-8:]
        net, policy, port = ('cli-net-' + suffix, 'cli-bw-' + suffix,
                             'cli-port-' + suffix)

        def cli(*args):
            return self.openstack(matrix.ADMIN, *args)
        cli('network', 'create', '--provider-network-type', 'vlan',
            '--provider-physical-network', 'physnet-cli', net)
        cli('network', 'qos', 'policy', 'create', policy)
        cli('network', 'qos', 'rule', 'create', '--type',
            'minimum-bandwidth', '--min-kbps', '1000', '--egress', policy)
        cli('port', 'create', '--network', net, '--qos-policy', policy,
            '--tag', 'cli', port)
        self.assertEqual(
            "{'resources': {'NET_BW_EGR_KILOBIT_PER_SEC': 1000}, "
            "'required': ['CUSTOM_PHYSNET_PHYSNET_CLI', "
            "'CUSTOM_VNIC_TYPE_NORMAL']}",
            cli('port', 'show', port, '-f', 'value', '-c',
                'resource_request').strip())
        self.assertIn(port, cli('port', 'list', '--tags', 'cli', '-f',
                                'value', '-c', 'Name'))
        # No agent reports a host of that name.
        cli('port', 'set', '--host', 'nowhere-' + suffix, port)
        self.assertEqual('binding_failed', cli(
            'port', 'show', port, '-f', 'value', '-c',
            'binding_vif_type').strip())
        cli('port', 'delete', port)
        cli('network', 'qos', 'policy', 'delete', policy)
        cli('network', 'delete', net)
        self.assertNotIn(net, cli('network', 'list', '-f', 'value'))


def _htpasswd_line(user, password):
    # Cost 4, the least bcrypt takes, keeps the test quick; a deployment
    # uses htpasswd -B's default.
    digest = bcrypt.hashpw(password.encode(), bcrypt.gensalt(rounds=4))
    return '%s:%s\n' % (user, digest.decode())


class TestPolicyMatrixUnderHTTPBasic(matrix.TestPolicyMatrix):
    """The matrix with HTTP basic logins."""

    @classmethod
    def setUpClass(cls):
        cls.auth_dir = tempfile.mkdtemp(prefix='nova-lite-basic-')
        users = dict(PASSWORDS, service=SERVICE_PASSWORD)
        names = dict(NAMES, service=(SERVICE_USER, 'service'))
        roles = {matrix.ADMIN: 'admin, member, reader',
                 matrix.OWNER: 'member, reader',
                 matrix.OTHER: 'member, reader', 'service': 'admin, service'}
        user_file = os.path.join(cls.auth_dir, 'htpasswd')
        roles_file = os.path.join(cls.auth_dir, 'roles.conf')
        with open(user_file, 'w') as f:
            f.writelines(_htpasswd_line(names[who][0], users[who])
                         for who in users)
        with open(roles_file, 'w') as f:
            for who in users:
                f.write('[%s]\nproject_id = %s\nroles = %s\n\n' % (
                    names[who][0], names[who][1], roles[who]))
        services = ''.join(textwrap.dedent("""
            [%s]
            auth_type = http_basic
            username = %s
            password = %s
            """) % (group, SERVICE_USER, SERVICE_PASSWORD)
            for group in ('placement', 'network'))
        cls.extra_conf = textwrap.dedent("""
            [api]
            auth_strategy = http_basic
            http_basic_auth_user_file = %s
            http_basic_auth_roles_file = %s
            """) % (user_file, roles_file) + services
        cls.compute_conf = {index: services
                            for index in range(1, cls.computes + 1)}
        try:
            super().setUpClass()
        except Exception:
            shutil.rmtree(cls.auth_dir, ignore_errors=True)
            raise

    @classmethod
    def tearDownClass(cls):
        try:
            super().tearDownClass()
        finally:
            shutil.rmtree(cls.auth_dir, ignore_errors=True)

    @classmethod
    def new_plane(cls):
        plane = super().new_plane()
        plane.admin_headers = cls.auth_headers(matrix.ADMIN)
        return plane

    @classmethod
    def auth_headers(cls, caller):
        if caller == matrix.ANONYMOUS:
            return {}
        login = '%s:%s' % (NAMES[caller][0], PASSWORDS[caller])
        return {'Authorization': 'Basic ' +
                base64.b64encode(login.encode()).decode()}

    def test_a_wrong_password_or_a_token_is_401_everywhere(self):
        wrong = 'Basic ' + base64.b64encode(b'alice:wrong').decode()
        for url in (self.plane.api_url + '/v2.1/servers',
                    self.plane.placement_url + '/resource_providers',
                    self.plane.network_url + '/v2.0/ports'):
            for headers in ({'Authorization': wrong},
                            {'X-Auth-Token': 'admin'}):
                response = requests.get(url, timeout=30, headers=headers)
                self.assertEqual(401, response.status_code, (url, headers))
