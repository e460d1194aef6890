"""Tags of networks and ports, and the tag filters of their lists."""

from tests.unit.network import base


class TestTags(base.NetworkTestCase):

    def setUp(self):
        super().setUp()
        self.network = self.make_network()
        self.port = self.make_port(self.network['id'])
        self.path = '/v2.0/ports/%s/tags' % self.port['id']

    def test_replace_all_tags(self):
        response = self.put(self.path, {'tags': ['red', 'blue']})
        self.assertStatus(200, response)
        self.assertEqual(['blue', 'red'], response.json['tags'])
        self.assertEqual(['blue', 'red'],
                         self.show_port(self.port['id'])['tags'])

    def test_add_check_and_remove_one_tag(self):
        self.assertStatus(201, self.put(self.path + '/red'))
        self.assertStatus(204, self.get(self.path + '/red'))
        self.assertStatus(204, self.delete(self.path + '/red'))
        self.assertError(self.get(self.path + '/red'), 404)

    def test_removing_a_missing_tag_is_404(self):
        self.assertError(self.delete(self.path + '/red'), 404,
                         fragment='red')

    def test_remove_all_tags(self):
        self.put(self.path, {'tags': ['a', 'b']})
        self.assertStatus(204, self.delete(self.path))
        self.assertEqual({'tags': []}, self.get(self.path).json)

    def test_tags_at_creation(self):
        network = self.make_network(tags=['x'])
        self.assertEqual(['x'], network['tags'])

    def test_tags_of_a_network(self):
        path = '/v2.0/networks/%s/tags' % self.network['id']
        self.put(path, {'tags': ['prod']})
        self.assertEqual(['prod'], self.get(path).json['tags'])

    def test_a_tag_with_a_comma_is_refused(self):
        self.assertError(self.put(self.path, {'tags': ['a,b']}), 400)
        self.assertError(self.put(self.path + '/a,b'), 400)

    def test_tags_of_an_unknown_port_are_404(self):
        self.assertError(self.get('/v2.0/ports/x/tags'), 404,
                         'PortNotFound')

    def test_members_cannot_tag_others_ports(self):
        self.assertError(self.put(self.path, {'tags': ['a']},
                                  token=base.DEMO), 404, 'PortNotFound')

    def test_filters(self):
        both = self.make_port(self.network['id'], tags=['a', 'b'])
        only_a = self.make_port(self.network['id'], tags=['a'])
        only_c = self.make_port(self.network['id'], tags=['c_d%'])

        def listed(query):
            return sorted(p['id'] for p in self.get(
                '/v2.0/ports?' + query).json['ports'])
        self.assertEqual([both['id']], listed('tags=a,b'))
        self.assertEqual(sorted([both['id'], only_a['id']]),
                         listed('tags-any=b,a'))
        self.assertEqual(sorted([only_a['id'], only_c['id'],
                                 self.port['id']]), listed('not-tags=a,b'))
        self.assertEqual([only_c['id']], listed('tags=c_d%25'))
        self.assertEqual([], listed('tags=c'))
