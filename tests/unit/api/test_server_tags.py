"""/servers/{server_id}/tags (2.26) and the tag filters of the server
list."""

from nova_lite import context as nova_context
from nova_lite import objects
from tests.unit.api import base
from tests.unit.api import test_servers

V = '2.26'


class ServerTagsTestCase(test_servers.ServersTestCase):

    def setUp(self):
        super().setUp()
        self.instance = self.instance_in_cell(self.cell1, host='host1')

    def tags_path(self, tag=None, uuid=None):
        path = '/v2.1/servers/%s/tags' % (uuid or self.instance.uuid)
        return path + ('/' + tag if tag is not None else '')

    def tag(self, method, tag=None, body=None, uuid=None, version=V,
            token=base.DEMO):
        return self.request(method, self.tags_path(tag, uuid), body,
                            version=version, token=token)

    def stored_tags(self, uuid=None, cell=None):
        with nova_context.target_cell(self.admin_context,
                                      cell or self.cell1) as cctxt:
            return objects.Instance.get_by_uuid(
                cctxt, uuid or self.instance.uuid).tags


class TestServerTags(ServerTagsTestCase):

    def test_add_answers_201_with_location_then_204(self):
        response = self.tag('PUT', 'blue')
        self.assertEqual(201, response.status_int, response.body)
        self.assertTrue(response.headers['Location'].endswith(
            '/v2.1/servers/%s/tags/blue' % self.instance.uuid))
        self.assertEqual(204, self.tag('PUT', 'blue').status_int)
        self.assertEqual(['blue'], self.stored_tags())

    def test_list_and_check(self):
        self.tag('PUT', 'blue')
        self.tag('PUT', 'green')
        self.assertEqual({'tags': ['blue', 'green']},
                         self.tag('GET').json)
        self.assertEqual(204, self.tag('GET', 'green').status_int)
        self.assertError(self.tag('GET', 'red'), 404, 'itemNotFound',
                         "has no tag 'red'")

    def test_the_server_document_shows_them(self):
        self.tag('PUT', 'blue')
        server = self.request('GET', '/v2.1/servers/' + self.instance.uuid,
                              version=V).json['server']
        self.assertEqual(['blue'], server['tags'])

    def test_replace_all(self):
        self.tag('PUT', 'old')
        response = self.tag('PUT', body={'tags': ['a', 'b', 'a']})
        self.assertEqual(200, response.status_int, response.body)
        self.assertEqual({'tags': ['a', 'b']}, response.json)
        self.assertEqual(['a', 'b'], self.stored_tags())

    def test_remove_one_and_all(self):
        self.tag('PUT', body={'tags': ['a', 'b', 'c']})
        self.assertEqual(204, self.tag('DELETE', 'b').status_int)
        self.assertEqual(['a', 'c'], self.stored_tags())
        self.assertError(self.tag('DELETE', 'b'), 404, 'itemNotFound',
                         "has no tag 'b'")
        self.assertEqual(204, self.tag('DELETE').status_int)
        self.assertEqual([], self.stored_tags())

    def test_a_tag_with_an_encoded_space_round_trips(self):
        self.assertEqual(201, self.tag('PUT', 'two%20words').status_int)
        self.assertEqual(['two words'], self.stored_tags())
        self.assertEqual(204, self.tag('GET', 'two%20words').status_int)

    def test_before_226_the_paths_do_not_exist(self):
        for method, tag in (('GET', None), ('PUT', 'x'), ('DELETE', None),
                            ('GET', 'x'), ('DELETE', 'x')):
            self.assertError(self.tag(method, tag, version='2.25'), 404,
                             'itemNotFound')
        self.assertEqual([], self.stored_tags())

    def test_another_projects_server_is_404_but_admins_may(self):
        self.assertError(self.tag('PUT', 'x', token='mallory'), 404,
                         'itemNotFound')
        self.assertEqual(201, self.tag('PUT', 'x',
                                       token=base.ADMIN).status_int)

    def test_a_server_in_cell0_can_be_tagged(self):
        buried = self.instance_in_cell(self.cell0, vm_state='error')
        self.assertEqual(201, self.tag('PUT', 'x', uuid=buried.uuid
                                       ).status_int)
        self.assertEqual(['x'], self.stored_tags(buried.uuid, self.cell0))

    def test_a_server_being_scheduled_shows_but_keeps_its_tags(self):
        uuid = self.boot(version='2.52', networks='none',
                         tags=['given']).json['server']['id']
        self.assertEqual({'tags': ['given']}, self.tag('GET', uuid=uuid
                                                       ).json)
        self.assertEqual(204, self.tag('GET', 'given', uuid=uuid
                                       ).status_int)
        for method, tag, body in (('PUT', 'x', None),
                                  ('PUT', None, {'tags': ['x']}),
                                  ('DELETE', 'given', None),
                                  ('DELETE', None, None)):
            self.assertError(
                self.tag(method, tag, body, uuid=uuid), 409,
                'conflictingRequest', 'while it is being scheduled')


class TestValidation(ServerTagsTestCase):

    def test_a_tag_of_61_characters_is_400(self):
        self.assertError(self.tag('PUT', 'x' * 61), 400, 'badRequest',
                         '1 to 60 characters')
        self.assertEqual(201, self.tag('PUT', 'x' * 60).status_int)

    def test_a_comma_is_400(self):
        self.assertError(self.tag('PUT', 'a,b'), 400, 'badRequest',
                         'without "/" or ","')

    def test_replace_checks_every_tag(self):
        for tags in (['ok', ''], ['a/b'], ['a,b'], ['x' * 61], 'a', [1]):
            self.assertError(self.tag('PUT', body={'tags': tags}), 400,
                             'badRequest')
        self.assertError(self.tag('PUT', body={}), 400, 'badRequest',
                         'tags')

    def test_at_most_50_tags(self):
        self.tag('PUT', body={'tags': ['t%d' % i for i in range(50)]})
        self.assertError(self.tag('PUT', 'one-more'), 400, 'badRequest',
                         'would have 51 tags; a server has at most 50')
        self.assertError(
            self.tag('PUT', body={'tags': ['t%d' % i for i in range(51)]}),
            400, 'badRequest', 'at most 50')
        self.assertEqual(50, len(self.stored_tags()))


class TestListFilters(ServerTagsTestCase):

    def setUp(self):
        super().setUp()
        self.servers = {}
        for name, tags in (('red-big', ['red', 'big']), ('red', ['red']),
                           ('none', [])):
            instance = self.instance_in_cell(self.cell1, host='host1')
            self.tag('PUT', body={'tags': tags}, uuid=instance.uuid)
            self.servers[instance.uuid] = name

    def listed(self, query, version=V):
        servers = self.request('GET', '/v2.1/servers?' + query,
                               version=version).json['servers']
        return sorted(self.servers[s['id']] for s in servers
                      if s['id'] in self.servers)

    def test_tags_needs_them_all(self):
        self.assertEqual(['red-big'], self.listed('tags=red,big'))
        self.assertEqual(['red', 'red-big'], self.listed('tags=red'))

    def test_tags_any_needs_one(self):
        self.assertEqual(['red', 'red-big'], self.listed('tags-any=big,red'))

    def test_not_tags_excludes_those_with_them_all(self):
        self.assertEqual(['none', 'red'], self.listed('not-tags=red,big'))

    def test_not_tags_any_excludes_those_with_one(self):
        self.assertEqual(['none'], self.listed('not-tags-any=big,red'))

    def test_filters_combine_and_may_repeat(self):
        self.assertEqual(['red'], self.listed('tags=red&not-tags=big'))
        self.assertEqual(['red-big'], self.listed('tags=red&tags=big'))

    def test_before_226_they_are_ignored(self):
        self.assertEqual(['none', 'red', 'red-big'],
                         self.listed('tags=red', version='2.25'))
