"""Who may call placement: OpenStack Placement 16's rules and defaults,
secure ([oslo_policy] enforce_new_defaults, the default) and legacy, and
placement's noauth2, whose X-Roles, X-Project-Id and
OpenStack-System-Scope headers say who the caller is."""

import fixtures
from oslo_config import cfg
from oslo_config import fixture as config_fixture

from nova_lite.api.placement import handler
from nova_lite import policy
from nova_lite.policies import placement as placement_policies
from tests.unit.placement import base

CONF = cfg.CONF

ADMIN = {'X-Roles': 'admin'}
SERVICE = {'X-Roles': 'service'}
MEMBER = {'X-Roles': 'member,reader'}
READER = {'X-Roles': 'reader'}
SYSTEM_ADMIN = {'X-Roles': 'admin,member,reader',
                'OpenStack-System-Scope': 'all'}
# A body that passes the policy but not the schema: a 400 shows the
# caller was let through, a 403 that it was not.
EMPTY_RESHAPE = {}


class PolicyTestCase(base.PlacementTestCase):

    def as_(self, headers, method, path, body=None, project='p1'):
        """``method path`` as user ``someone`` in ``project`` with the
        roles (and scope) of ``headers``."""
        return self.request(method, path, body, token='someone:' + project,
                            headers=headers)

    def legacy(self):
        """[oslo_policy] enforce_new_defaults = false."""
        policy.init()  # registers the [oslo_policy] options
        self.useFixture(config_fixture.Config(CONF)).config(
            enforce_new_defaults=False, group='oslo_policy')
        policy.reset()


class TestRuleNames(PolicyTestCase):

    def documented(self):
        return {(operation['method'], operation['path'])
                for rule in placement_policies.rules
                for operation in rule.operations}

    def test_every_rule_documents_routes_of_the_route_table(self):
        routes = {(method, path)
                  for path, methods in handler.ROUTE_DECLARATIONS.items()
                  for method in methods}
        self.assertEqual(set(), self.documented() - routes)

    def test_every_route_but_the_root_has_a_rule(self):
        for path, methods in handler.ROUTE_DECLARATIONS.items():
            for method in methods:
                if path != '/':
                    self.assertIn((method, path), self.documented())

    def test_rules_are_for_project_scoped_tokens(self):
        for rule in placement_policies.rules:
            self.assertEqual(['project'], rule.scope_types, rule.name)


class TestSecureDefaults(PolicyTestCase):
    """[oslo_policy] enforce_new_defaults = true, as nothing is set."""

    def test_new_defaults_are_enforced_unless_configured(self):
        policy.init()
        self.assertTrue(CONF.oslo_policy.enforce_new_defaults)

    def test_the_admin_role_may_manage_providers(self):
        self.assertStatus(200, self.as_(ADMIN, 'GET', '/resource_providers'))

    def test_the_service_role_may_manage_providers(self):
        self.assertStatus(200, self.as_(SERVICE, 'POST',
                                        '/resource_providers',
                                        {'name': 'by-a-service'}))

    def test_a_project_member_may_not(self):
        response = self.as_(MEMBER, 'GET', '/resource_providers')
        self.assertError(response, 403, 'placement.undefined_code',
                         'placement:resource_providers:list')

    def test_only_the_service_role_may_reshape(self):
        self.assertStatus(400, self.as_(SERVICE, 'POST', '/reshaper',
                                        EMPTY_RESHAPE))
        for roles in (ADMIN, MEMBER):
            self.assertError(self.as_(roles, 'POST', '/reshaper',
                                      EMPTY_RESHAPE), 403,
                             fragment='placement:reshaper:reshape')

    def test_noauth2_admin_may_not_reshape_without_the_service_role(self):
        self.assertStatus(403, self.post('/reshaper', EMPTY_RESHAPE))

    def test_a_project_reader_reads_its_own_usages(self):
        self.assertStatus(200, self.as_(READER, 'GET',
                                        '/usages?project_id=p1'))
        self.assertStatus(200, self.as_(MEMBER, 'GET',
                                        '/usages?project_id=p1'))

    def test_a_project_reader_may_not_read_another_projects_usages(self):
        self.assertError(self.as_(READER, 'GET', '/usages?project_id=p2'),
                         403, fragment='placement:usages')

    def test_admin_and_service_read_any_projects_usages(self):
        for roles in (ADMIN, SERVICE):
            self.assertStatus(200, self.as_(roles, 'GET',
                                            '/usages?project_id=p2'))

    def test_usages_without_a_project_are_refused_before_checked(self):
        self.assertStatus(403, self.as_(READER, 'GET', '/usages'))
        self.assertStatus(400, self.as_(ADMIN, 'GET', '/usages'))

    def test_a_system_scoped_token_is_refused(self):
        for path in ('/resource_providers', '/usages?project_id=p1'):
            self.assertStatus(403, self.as_(SYSTEM_ADMIN, 'GET', path))

    def test_a_remembered_decision_is_not_reused_in_another_scope(self):
        self.assertStatus(200, self.as_(ADMIN, 'GET', '/resource_providers',
                                        project='x'))
        self.assertStatus(403, self.request(
            'GET', '/resource_providers', token='someone:x',
            headers={'X-Roles': 'admin', 'X-Project-Id': 'x',
                     'OpenStack-System-Scope': 'all'}))


class TestLegacyDefaults(PolicyTestCase):
    """[oslo_policy] enforce_new_defaults = false: the admin role may do
    everything as well."""

    def setUp(self):
        super().setUp()
        self.legacy()

    def test_the_admin_role_may_reshape(self):
        self.assertStatus(400, self.as_(ADMIN, 'POST', '/reshaper',
                                        EMPTY_RESHAPE))

    def test_the_new_defaults_still_apply(self):
        self.assertStatus(400, self.as_(SERVICE, 'POST', '/reshaper',
                                        EMPTY_RESHAPE))
        self.assertStatus(200, self.as_(READER, 'GET',
                                        '/usages?project_id=p1'))

    def test_a_project_member_still_may_not_manage_providers(self):
        self.assertStatus(403, self.as_(MEMBER, 'GET', '/resource_providers'))
        self.assertStatus(403, self.as_(MEMBER, 'POST', '/reshaper',
                                        EMPTY_RESHAPE))

    def test_a_system_scoped_token_is_still_refused(self):
        self.assertStatus(403, self.as_(SYSTEM_ADMIN, 'GET',
                                        '/resource_providers'))


class TestOperatorOverrides(PolicyTestCase):

    def _policy_file(self, text):
        path = self.useFixture(fixtures.TempDir()).join('policy.yaml')
        with open(path, 'w') as f:
            f.write(text)
        policy.init()
        self.useFixture(config_fixture.Config(CONF)).config(
            policy_file=path, group='oslo_policy')
        policy.reset()

    def test_a_helper_rule_changes_every_rule_made_of_it(self):
        self._policy_file('"admin_or_service_api": "role:placement_ops"\n')
        self.assertStatus(200, self.as_({'X-Roles': 'placement_ops'}, 'GET',
                                        '/traits'))
        self.assertStatus(403, self.as_(ADMIN, 'GET', '/traits'))

    def test_one_operation_opened_to_everyone(self):
        self._policy_file('"placement:resource_providers:list": "@"\n')
        self.assertStatus(200, self.as_({'X-Roles': ''}, 'GET',
                                        '/resource_providers'))
        self.assertStatus(403, self.as_({'X-Roles': ''}, 'GET',
                                        '/resource_classes'))

    def test_overriding_admin_api_does_not_reach_placement(self):
        # As in Placement 16: admin_api is no part of its rules.
        self._policy_file('"admin_api": "!"\n')
        self.assertStatus(200, self.as_(ADMIN, 'GET', '/resource_providers'))


class TestNoAuth2Headers(PolicyTestCase):

    def test_x_roles_replaces_the_roles_of_the_admin_user(self):
        self.assertStatus(403, self.request('GET', '/resource_providers',
                                            headers=READER))

    def test_x_roles_makes_any_user_an_administrator(self):
        self.assertStatus(200, self.request('GET', '/resource_providers',
                                            token='someone', headers=ADMIN))

    def test_an_empty_x_roles_is_no_role(self):
        self.assertStatus(403, self.request('GET', '/resource_providers',
                                            headers={'X-Roles': ''}))

    def test_roles_are_read_without_case_or_spaces(self):
        self.assertStatus(200, self.request(
            'GET', '/resource_providers', token='someone',
            headers={'X-Roles': 'reader, Admin'}))

    def test_without_x_roles_a_user_is_a_member_of_its_project(self):
        self.assertStatus(200, self.request(
            'GET', '/usages?project_id=p1', token='someone:p1'))
        self.assertStatus(403, self.request(
            'GET', '/resource_providers', token='someone:p1'))

    def test_x_project_id_names_the_project(self):
        headers = dict(READER, **{'X-Project-Id': 'p2'})
        self.assertStatus(200, self.request(
            'GET', '/usages?project_id=p2', token='someone:p1',
            headers=headers))
        self.assertStatus(403, self.request(
            'GET', '/usages?project_id=p1', token='someone:p1',
            headers=headers))

    def test_system_scope_leaves_no_project(self):
        # A reader of p1, but system-scoped: not a reader of p1 at all.
        headers = {'X-Roles': 'reader', 'OpenStack-System-Scope': 'all'}
        self.assertStatus(403, self.request(
            'GET', '/usages?project_id=p1', token='someone:p1',
            headers=headers))
