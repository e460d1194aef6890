"""/os-server-groups: create, list, show and delete, per microversion."""

from oslo_utils import uuidutils

from nova_lite import objects
from tests.unit.api import base

V21, V213, V215, V264 = '2.1', '2.13', '2.15', '2.64'


def group_body(name='g1', **fields):
    if 'policies' not in fields and 'policy' not in fields:
        fields['policies'] = ['affinity']
    return {'server_group': dict(name=name, **fields)}


class ServerGroupsTestCase(base.APITestCase):

    def create(self, token=base.DEMO, version=V21, **body):
        return self.request('POST', '/v2.1/os-server-groups',
                            group_body(**body), token=token,
                            version=version)

    def make_group(self, token=base.DEMO, version=V21, **body):
        response = self.create(token=token, version=version, **body)
        self.assertEqual(200, response.status_int, response.body)
        return response.json['server_group']

    def show(self, group_id, token=base.DEMO, version=V21):
        return self.request('GET', '/v2.1/os-server-groups/' + group_id,
                            token=token, version=version)

    def list(self, query='', token=base.DEMO, version=V21):
        return self.request('GET', '/v2.1/os-server-groups' + query,
                            token=token, version=version)


class TestCreateBefore264(ServerGroupsTestCase):

    def test_answers_200_with_the_group_as_at_21(self):
        group = self.make_group(name='web', policies=['anti-affinity'])
        self.assertTrue(uuidutils.is_uuid_like(group['id']))
        self.assertEqual({'id': group['id'], 'name': 'web',
                          'policies': ['anti-affinity'], 'members': [],
                          'metadata': {}}, group)

    def test_the_group_is_stored_in_the_callers_project(self):
        group = self.make_group(token='alice:team')
        stored = objects.InstanceGroup.get_by_uuid(self.admin_context,
                                                   group['id'])
        self.assertEqual(('team', 'alice', 'affinity', {}),
                         (stored.project_id, stored.user_id, stored.policy,
                          stored.rules))

    def test_project_and_user_are_shown_from_213(self):
        group = self.make_group(token='alice:team', version=V213)
        self.assertEqual(('team', 'alice'),
                         (group['project_id'], group['user_id']))

    def test_soft_policies_need_215(self):
        for policy in ('soft-affinity', 'soft-anti-affinity'):
            response = self.create(policies=[policy], version='2.14')
            self.assertError(response, 400, 'badRequest',
                             'The %s policy needs microversion 2.15' % policy)

    def test_soft_policies_from_215(self):
        for policy in ('soft-affinity', 'soft-anti-affinity'):
            group = self.make_group(policies=[policy], version=V215)
            self.assertEqual([policy], group['policies'])

    def test_two_policies_are_400(self):
        response = self.create(policies=['affinity', 'anti-affinity'],
                               version=V215)
        self.assertError(response, 400, 'badRequest',
                         'exactly one policy; 2 given')

    def test_the_same_policy_twice_is_400(self):
        response = self.create(policies=['affinity', 'affinity'])
        self.assertError(response, 400, 'badRequest', 'exactly one policy')

    def test_no_policy_is_400(self):
        response = self.create(policies=[])
        self.assertError(response, 400, 'badRequest',
                         'exactly one policy; 0 given')

    def test_unknown_policy_is_400(self):
        response = self.create(policies=['together'], version=V215)
        self.assertError(response, 400, 'badRequest', 'together')

    def test_policies_must_be_a_list(self):
        response = self.create(policies='affinity')
        self.assertError(response, 400, 'badRequest', 'policies')

    def test_missing_policies_is_400(self):
        response = self.request('POST', '/v2.1/os-server-groups',
                                {'server_group': {'name': 'g'}})
        self.assertError(response, 400, 'badRequest', 'policies')

    def test_missing_name_is_400(self):
        response = self.request(
            'POST', '/v2.1/os-server-groups',
            {'server_group': {'policies': ['affinity']}})
        self.assertError(response, 400, 'badRequest', 'name')

    def test_bad_names_are_400(self):
        for name in ('', ' padded', 'x' * 256):
            response = self.create(name=name)
            self.assertError(response, 400, 'badRequest', 'name')

    def test_unknown_field_is_400(self):
        response = self.create(metadata={'a': 'b'})
        self.assertError(response, 400, 'badRequest', 'metadata')

    def test_policy_and_rules_need_264(self):
        for fields in ({'policy': 'anti-affinity'},
                       {'rules': {'max_server_per_host': 2}}):
            response = self.create(version='2.63', **fields)
            self.assertError(response, 400, 'badRequest',
                             'needs microversion 2.64')

    def test_no_body_is_400(self):
        response = self.request('POST', '/v2.1/os-server-groups')
        self.assertError(response, 400, 'badRequest')


class TestCreateFrom264(ServerGroupsTestCase):

    def create264(self, **fields):
        return self.request('POST', '/v2.1/os-server-groups',
                            {'server_group': dict(name='g2', **fields)},
                            version=V264)

    def test_policy_and_rules_replace_policies_and_metadata(self):
        response = self.create264(policy='anti-affinity',
                                  rules={'max_server_per_host': 2})
        self.assertEqual(200, response.status_int, response.body)
        group = response.json['server_group']
        self.assertEqual({'id': group['id'], 'name': 'g2',
                          'policy': 'anti-affinity',
                          'rules': {'max_server_per_host': 2},
                          'members': [], 'project_id': base.DEMO,
                          'user_id': base.DEMO}, group)

    def test_max_server_per_host_is_explained_when_wrong(self):
        response = self.create264(policy='anti-affinity',
                                  rules={'max_server_per_host': '0'})
        self.assertError(response, 400, 'badRequest',
                         'max_server_per_host must be a positive integer')

    def test_max_server_per_host_as_a_string_is_shown_as_a_number(self):
        # The openstack CLI sends --rule max_server_per_host=3 as "3".
        response = self.create264(policy='anti-affinity',
                                  rules={'max_server_per_host': '3'})
        self.assertEqual({'max_server_per_host': 3},
                         response.json['server_group']['rules'])

    def test_rules_are_stored_for_the_scheduler(self):
        group_id = self.create264(
            policy='anti-affinity', rules={'max_server_per_host': 4}
        ).json['server_group']['id']
        stored = objects.InstanceGroup.get_by_uuid(self.admin_context,
                                                   group_id)
        self.assertEqual(4, stored.max_server_per_host)

    def test_rules_default_to_none(self):
        response = self.create264(policy='soft-affinity')
        self.assertEqual({}, response.json['server_group']['rules'])

    def test_empty_rules_fit_any_policy(self):
        response = self.create264(policy='affinity', rules={})
        self.assertEqual(200, response.status_int, response.body)

    def test_rules_with_another_policy_are_400(self):
        for policy in ('affinity', 'soft-affinity', 'soft-anti-affinity'):
            response = self.create264(policy=policy,
                                      rules={'max_server_per_host': 2})
            self.assertError(response, 400, 'badRequest',
                             'only to the anti-affinity policy')

    def test_unknown_rule_is_400(self):
        response = self.create264(policy='anti-affinity',
                                  rules={'max_servers': 2})
        self.assertError(response, 400, 'badRequest', 'max_servers')

    def test_max_server_per_host_must_be_a_positive_integer(self):
        for value in (0, -1, '0', '-1', 'two', 1.5, '1.5', True, None, '',
                      '\u00b2'):
            response = self.create264(policy='anti-affinity',
                                      rules={'max_server_per_host': value})
            self.assertError(response, 400, 'badRequest',
                             'max_server_per_host')

    def test_rules_must_be_an_object(self):
        response = self.create264(policy='anti-affinity', rules=[2])
        self.assertError(response, 400, 'badRequest', 'rules')

    def test_policies_is_400_and_says_to_send_policy(self):
        response = self.create264(policies=['affinity'])
        self.assertError(response, 400, 'badRequest', '"policy"')

    def test_missing_policy_is_400(self):
        response = self.create264()
        self.assertError(response, 400, 'badRequest', 'policy')

    def test_unknown_policy_is_400(self):
        response = self.create264(policy='together')
        self.assertError(response, 400, 'badRequest', 'together')

    def test_a_list_of_policies_in_policy_is_400(self):
        response = self.create264(policy=['affinity', 'anti-affinity'])
        self.assertError(response, 400, 'badRequest', 'policy')

    def test_a_264_group_seen_at_21_has_its_one_policy(self):
        group_id = self.create264(
            policy='anti-affinity', rules={'max_server_per_host': 2}
        ).json['server_group']['id']
        shown = self.show(group_id).json['server_group']
        self.assertEqual(['anti-affinity'], shown['policies'])
        self.assertNotIn('rules', shown)


class TestShow(ServerGroupsTestCase):

    def test_show_as_created(self):
        group = self.make_group(version=V264, policy='affinity')
        shown = self.show(group['id'], version=V264)
        self.assertEqual(200, shown.status_int)
        self.assertEqual(group, shown.json['server_group'])

    def test_unknown_group_is_404(self):
        unknown = uuidutils.generate_uuid()
        self.assertError(self.show(unknown), 404, 'itemNotFound', unknown)

    def test_malformed_id_is_404(self):
        self.assertError(self.show('not-a-uuid'), 404, 'itemNotFound',
                         'not-a-uuid')

    def test_another_projects_group_is_404(self):
        group = self.make_group(token='bob')
        self.assertError(self.show(group['id']), 404, 'itemNotFound')

    def test_admin_sees_any_projects_group(self):
        group = self.make_group(token='bob')
        shown = self.show(group['id'], token=base.ADMIN, version=V213)
        self.assertEqual('bob', shown.json['server_group']['project_id'])

    def test_show_without_a_token_is_401(self):
        group = self.make_group()
        self.assertEqual(401, self.show(group['id'], token=None).status_int)


class TestDelete(ServerGroupsTestCase):

    def delete(self, group_id, token=base.DEMO):
        return self.request('DELETE', '/v2.1/os-server-groups/' + group_id,
                            token=token)

    def test_owner_deletes_with_204(self):
        group = self.make_group()
        response = self.delete(group['id'])
        self.assertEqual(204, response.status_int)
        self.assertEqual(b'', response.body)
        self.assertError(self.show(group['id']), 404, 'itemNotFound')

    def test_unknown_group_is_404(self):
        response = self.delete(uuidutils.generate_uuid())
        self.assertError(response, 404, 'itemNotFound')

    def test_another_projects_group_is_404_and_stays(self):
        group = self.make_group(token='bob')
        self.assertError(self.delete(group['id']), 404, 'itemNotFound')
        self.assertEqual(200, self.show(group['id'], token='bob').status_int)

    def test_admin_deletes_any_projects_group(self):
        group = self.make_group(token='bob')
        self.assertEqual(204, self.delete(group['id'],
                                          token=base.ADMIN).status_int)
        self.assertError(self.show(group['id'], token='bob'), 404,
                         'itemNotFound')

    def test_second_delete_is_404(self):
        group = self.make_group()
        self.delete(group['id'])
        self.assertError(self.delete(group['id']), 404, 'itemNotFound')


class TestList(ServerGroupsTestCase):

    def setUp(self):
        super().setUp()
        for name in ('a', 'b', 'c'):
            self.make_group(name=name)
        self.make_group(name='theirs', token='bob')

    def names(self, response):
        self.assertEqual(200, response.status_int, response.body)
        return [g['name'] for g in response.json['server_groups']]

    def test_lists_the_callers_project_oldest_first(self):
        self.assertEqual(['a', 'b', 'c'], self.names(self.list()))

    def test_list_documents_follow_the_microversion(self):
        [group] = self.list('?limit=1', version=V264).json['server_groups']
        self.assertEqual({'id', 'name', 'policy', 'rules', 'members',
                          'project_id', 'user_id'}, set(group))
        [group] = self.list('?limit=1').json['server_groups']
        self.assertEqual({'id', 'name', 'policies', 'members', 'metadata'},
                         set(group))

    def test_all_projects_for_an_admin_lists_every_project(self):
        for query in ('?all_projects', '?all_projects=True',
                      '?all_projects=1'):
            self.assertEqual(['a', 'b', 'c', 'theirs'],
                             self.names(self.list(query, token=base.ADMIN)))

    def test_all_projects_false_is_the_callers_project(self):
        self.assertEqual([], self.names(self.list('?all_projects=false',
                                                  token=base.ADMIN)))

    def test_all_projects_is_403_for_others(self):
        self.assertError(self.list('?all_projects=True'), 403, 'forbidden')

    def test_admin_without_all_projects_sees_its_own_project(self):
        self.make_group(name='admins', token=base.ADMIN)
        self.assertEqual(['admins'],
                         self.names(self.list(token=base.ADMIN)))

    def test_limit_and_offset(self):
        self.assertEqual(['a', 'b'], self.names(self.list('?limit=2')))
        self.assertEqual(['b', 'c'], self.names(self.list('?offset=1')))
        self.assertEqual(['c'], self.names(self.list('?limit=2&offset=2')))
        self.assertEqual([], self.names(self.list('?offset=5')))

    def test_marker_pages_on_as_openstacksdk_asks(self):
        [first] = self.list('?limit=1').json['server_groups']
        self.assertEqual(['b'], self.names(
            self.list('?limit=1&marker=' + first['id'])))
        [last] = self.list('?offset=2').json['server_groups']
        self.assertEqual([], self.names(
            self.list('?limit=1&marker=' + last['id'])))

    def test_unknown_marker_is_400(self):
        self.assertError(self.list('?marker=nope'), 400, 'badRequest',
                         'nope')

    def test_limit_is_capped_by_max_limit(self):
        self.plane.config.config(max_limit=2, group='api')
        self.assertEqual(['a', 'b'], self.names(self.list('?limit=10')))

    def test_bad_limit_or_offset_is_400(self):
        for query in ('?limit=x', '?limit=-1', '?offset=x', '?offset=-1'):
            self.assertError(self.list(query), 400, 'badRequest',
                             query[1:].split('=')[0])

    def test_an_offset_past_the_largest_integer_is_400_not_500(self):
        self.assertError(self.list('?offset=99999999999999999999999'), 400,
                         'badRequest', 'offset must be <= 2147483647')

    def test_a_huge_limit_is_capped_by_max_limit(self):
        self.assertEqual(200, self.list('?limit=99999999999999999999999'
                                        ).status_int)

    def test_bad_all_projects_is_400(self):
        self.assertError(self.list('?all_projects=maybe', token=base.ADMIN),
                         400, 'badRequest', 'all_projects')

    def test_route_answers_405_for_other_methods(self):
        response = self.request('PUT', '/v2.1/os-server-groups')
        self.assertEqual(405, response.status_int)
        self.assertEqual('GET, POST', response.headers['Allow'])


class TestGroupQuota(ServerGroupsTestCase):

    def setUp(self):
        super().setUp()
        self.plane.config.config(server_groups=2, group='quota')

    def test_groups_up_to_the_quota_are_created(self):
        self.make_group(name='g1')
        self.make_group(name='g2')

    def test_one_more_is_refused_with_403_naming_the_quota(self):
        self.make_group(name='g1')
        self.make_group(name='g2')
        response = self.create(name='g3')
        self.assertError(response, 403, 'forbidden',
                         'Quota exceeded for server_groups')
        self.assertEqual(2, len(self.list().json['server_groups']))

    def test_the_quota_is_per_project(self):
        self.make_group(name='g1')
        self.make_group(name='g2')
        self.make_group(token=base.ADMIN, name='admin-group')

    def test_deleting_a_group_makes_room(self):
        first = self.make_group(name='g1')
        self.make_group(name='g2')
        self.request('DELETE', '/v2.1/os-server-groups/' + first['id'])
        self.make_group(name='g3')

    def test_minus_one_is_no_limit(self):
        self.plane.config.config(server_groups=-1, group='quota')
        for index in range(5):
            self.make_group(name='g%d' % index)
