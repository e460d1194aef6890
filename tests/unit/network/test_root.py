"""Version documents and the extensions clients check for."""

from tests.unit.network import base


class TestRoot(base.NetworkTestCase):

    def test_versions_need_no_token(self):
        response = self.get('/', token=None)
        self.assertStatus(200, response)
        [version] = response.json['versions']
        self.assertEqual(('v2.0', 'CURRENT'), (version['id'],
                                               version['status']))
        self.assertTrue(version['links'][0]['href'].endswith('/v2.0/'))

    def test_everything_else_needs_a_token(self):
        response = self.get('/v2.0/ports', token=None)
        self.assertError(response, 401)

    def test_v2_lists_resources(self):
        response = self.get('/v2.0/')
        self.assertIn('ports', [r['collection'] for r in
                                response.json['resources']])

    def test_the_extensions_clients_check_for_are_listed(self):
        aliases = {e['alias'] for e in self.get('/v2.0/extensions').json[
            'extensions']}
        for alias in ('binding', 'binding-extended', 'provider', 'qos',
                      'qos-bw-minimum-ingress', 'port-resource-request',
                      'agent', 'standard-attr-description', 'project-id'):
            self.assertIn(alias, aliases)

    def test_show_one_extension(self):
        response = self.get('/v2.0/extensions/binding-extended',
                            token=base.DEMO)
        self.assertEqual('binding-extended',
                         response.json['extension']['alias'])

    def test_an_unknown_extension_is_404(self):
        response = self.get('/v2.0/extensions/port-security')
        self.assertError(response, 404, 'ExtensionNotFound', 'port-security')
