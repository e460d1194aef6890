"""/os-quota-sets and /os-quota-class-sets: show, detail and defaults of
a project's limits; set and reset them (admins); the defaults through
the ``default`` quota class; microversion differences."""

from tests.unit.api import base
from tests.unit.api import test_servers

PATH = '/v2.1/os-quota-sets/'
CLASS_PATH = '/v2.1/os-quota-class-sets/'
DEFAULTS = {'instances': 10, 'cores': 20, 'ram': 51200,
            'server_groups': 10, 'server_group_members': 10,
            'key_pairs': 100, 'metadata_items': 128}
INJECTED = {'injected_files': 5, 'injected_file_content_bytes': 10240,
            'injected_file_path_bytes': 255}


class QuotaSetsTestCase(test_servers.ServersTestCase):

    def quota_set(self, project=base.DEMO, suffix='', token=base.DEMO,
                  version=None):
        response = self.request('GET', PATH + project + suffix,
                                token=token, version=version)
        self.assertEqual(200, response.status_int, response.body)
        return response.json['quota_set']

    def update(self, limits, project=base.DEMO, token=base.ADMIN,
               version=None):
        return self.request('PUT', PATH + project, {'quota_set': limits},
                            token=token, version=version)


class TestShow(QuotaSetsTestCase):

    def test_a_project_without_limits_has_the_defaults(self):
        self.assertEqual(dict(DEFAULTS, id=base.DEMO),
                         self.quota_set(version='2.57'))

    def test_injected_file_limits_are_shown_before_257(self):
        self.assertEqual(dict(DEFAULTS, id=base.DEMO, **INJECTED),
                         self.quota_set(version='2.56'))

    def test_the_options_are_the_defaults(self):
        self.plane.config.config(instances=3, metadata_items=7,
                                 group='quota')
        shown = self.quota_set()
        self.assertEqual((3, 7), (shown['instances'],
                                  shown['metadata_items']))

    def test_another_projects_quota_is_forbidden(self):
        response = self.request('GET', PATH + 'other')
        self.assertError(response, 403, 'forbidden')

    def test_an_admin_sees_any_project(self):
        self.assertEqual('other', self.quota_set('other',
                                                 token=base.ADMIN)['id'])

    def test_per_user_quotas_are_refused(self):
        response = self.request('GET', PATH + base.DEMO + '?user_id=demo')
        self.assertError(response, 400, 'badRequest', 'per project')


class TestDetail(QuotaSetsTestCase):

    def test_shows_limit_in_use_and_reserved(self):
        self.boot(flavorRef='1')
        detail = self.quota_set(suffix='/detail', version='2.57')
        self.assertEqual({'limit': 10, 'in_use': 1, 'reserved': 0},
                         detail['instances'])
        self.assertEqual({'limit': 20, 'in_use': 1, 'reserved': 0},
                         detail['cores'])
        self.assertEqual({'limit': 51200, 'in_use': 512, 'reserved': 0},
                         detail['ram'])
        self.assertEqual({'limit': 128, 'in_use': 0, 'reserved': 0},
                         detail['metadata_items'])
        self.assertEqual(base.DEMO, detail['id'])

    def test_servers_in_cells_count(self):
        self.instance_in_cell(self.cell1)
        self.instance_in_cell(self.cell0)
        detail = self.quota_set(suffix='/detail')
        self.assertEqual(2, detail['instances']['in_use'])

    def test_key_pairs_in_use_are_the_callers(self):
        self.request('POST', '/v2.1/os-keypairs', {'keypair': {
            'name': 'k1'}})
        detail = self.quota_set(suffix='/detail')
        self.assertEqual(1, detail['key_pairs']['in_use'])


class TestDefaults(QuotaSetsTestCase):

    def test_defaults_ignore_the_projects_own_limits(self):
        self.update({'instances': 2})
        self.assertEqual(dict(DEFAULTS, id=base.DEMO),
                         self.quota_set(suffix='/defaults',
                                        version='2.57'))

    def test_any_user_may_read_them(self):
        self.assertEqual('x', self.quota_set('x', '/defaults')['id'])


class TestUpdate(QuotaSetsTestCase):

    def test_sets_the_limits_and_answers_them_without_id(self):
        response = self.update({'instances': 2, 'cores': '4'},
                               version='2.57')
        self.assertEqual(200, response.status_int, response.body)
        self.assertEqual(dict(DEFAULTS, instances=2, cores=4),
                         response.json['quota_set'])
        self.assertEqual(2, self.quota_set()['instances'])

    def test_other_projects_keep_the_defaults(self):
        self.update({'instances': 2})
        self.assertEqual(10, self.quota_set(
            'other', token=base.ADMIN)['instances'])

    def test_is_for_admins_only(self):
        response = self.update({'instances': 100}, token=base.DEMO)
        self.assertError(response, 403, 'forbidden')
        self.assertEqual(10, self.quota_set()['instances'])

    def test_an_unknown_resource_is_400(self):
        response = self.update({'floating_ips': 10})
        self.assertError(response, 400, 'badRequest', 'floating_ips')

    def test_injected_files_are_unknown_from_257(self):
        response = self.update({'injected_files': 5}, version='2.57')
        self.assertError(response, 400, 'badRequest')

    def test_a_limit_below_minus_one_is_400(self):
        self.assertError(self.update({'instances': -2}), 400, 'badRequest')
        self.assertError(self.update({'instances': '-2'}), 400,
                         'badRequest', '-1 (no limit)')

    def test_a_limit_that_is_not_an_integer_is_400(self):
        self.assertError(self.update({'instances': 'many'}), 400,
                         'badRequest')
        self.assertError(self.update({'instances': 1.5}), 400,
                         'badRequest')

    def test_a_limit_below_usage_is_400_unless_forced(self):
        self.boot()
        self.boot()
        response = self.update({'instances': 1})
        self.assertError(response, 400, 'badRequest',
                         'instances 1 < 2 in use')
        self.assertEqual(10, self.quota_set()['instances'])
        response = self.update({'instances': 1, 'force': True})
        self.assertEqual(200, response.status_int, response.body)
        self.assertEqual(1, self.quota_set()['instances'])

    def test_a_config_only_limit_may_be_repeated_but_not_changed(self):
        response = self.update({'instances': 3, 'metadata_items': 128,
                                'injected_files': 5}, version='2.56')
        self.assertEqual(200, response.status_int, response.body)
        response = self.update({'metadata_items': 5})
        self.assertError(response, 400, 'badRequest',
                         '[quota] metadata_items')

    def test_per_user_quotas_are_refused(self):
        response = self.request('PUT', PATH + base.DEMO + '?user_id=demo',
                                {'quota_set': {'instances': 1}},
                                token=base.ADMIN)
        self.assertError(response, 400, 'badRequest')

    def test_a_body_without_quota_set_is_400(self):
        response = self.request('PUT', PATH + base.DEMO,
                                {'instances': 1}, token=base.ADMIN)
        self.assertError(response, 400, 'badRequest')


class TestDelete(QuotaSetsTestCase):

    def test_answers_202_and_the_defaults_apply_again(self):
        self.update({'instances': 2, 'key_pairs': 1})
        response = self.request('DELETE', PATH + base.DEMO,
                                token=base.ADMIN)
        self.assertEqual(202, response.status_int, response.body)
        self.assertEqual(dict(DEFAULTS, id=base.DEMO),
                         self.quota_set(version='2.57'))

    def test_is_for_admins_only(self):
        self.update({'instances': 2})
        response = self.request('DELETE', PATH + base.DEMO)
        self.assertError(response, 403, 'forbidden')
        self.assertEqual(2, self.quota_set()['instances'])

    def test_other_methods_are_405(self):
        response = self.request('POST', PATH + base.DEMO, {})
        self.assertEqual(405, response.status_int)
        self.assertEqual('DELETE, GET, PUT', response.headers['Allow'])


class TestQuotaClassSets(QuotaSetsTestCase):

    def quota_class(self, version=None):
        response = self.request('GET', CLASS_PATH + 'default',
                                token=base.ADMIN, version=version)
        self.assertEqual(200, response.status_int, response.body)
        return response.json['quota_class_set']

    def update_class(self, limits, version=None, token=base.ADMIN):
        return self.request('PUT', CLASS_PATH + 'default',
                            {'quota_class_set': limits}, token=token,
                            version=version)

    def test_default_shows_the_defaults_with_server_groups_from_250(self):
        self.assertEqual(dict(DEFAULTS, id='default'),
                         self.quota_class('2.57'))
        self.assertEqual(dict(DEFAULTS, id='default', **INJECTED),
                         self.quota_class('2.50'))

    def test_server_group_limits_are_not_shown_before_250(self):
        shown = self.quota_class('2.49')
        self.assertNotIn('server_groups', shown)
        self.assertNotIn('server_group_members', shown)

    def test_server_group_limits_are_refused_before_250(self):
        response = self.update_class({'server_groups': 1}, version='2.49')
        self.assertError(response, 400, 'badRequest', 'server_groups')

    def test_changing_the_defaults_changes_every_projects_limits(self):
        response = self.update_class({'instances': 4, 'server_groups': 3},
                                     version='2.57')
        self.assertEqual(200, response.status_int, response.body)
        self.assertEqual(dict(DEFAULTS, instances=4, server_groups=3),
                         response.json['quota_class_set'])
        shown = self.quota_set('other', token=base.ADMIN)
        self.assertEqual((4, 3), (shown['instances'],
                                  shown['server_groups']))
        self.assertEqual(4, self.quota_set(suffix='/defaults')['instances'])

    def test_a_projects_own_limit_wins_over_the_defaults(self):
        self.update({'instances': 7})
        self.update_class({'instances': 4})
        self.assertEqual(7, self.quota_set()['instances'])

    def test_another_class_is_404(self):
        response = self.request('GET', CLASS_PATH + 'gold',
                                token=base.ADMIN)
        self.assertError(response, 404, 'itemNotFound', '"default"')

    def test_is_for_admins_only(self):
        response = self.request('GET', CLASS_PATH + 'default')
        self.assertError(response, 403, 'forbidden')
        response = self.update_class({'instances': 4}, token=base.DEMO)
        self.assertError(response, 403, 'forbidden')

    def test_force_is_not_taken(self):
        response = self.update_class({'instances': 4, 'force': True})
        self.assertError(response, 400, 'badRequest')
