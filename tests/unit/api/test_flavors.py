"""/flavors."""

from tests.unit.api import base

NEW_FLAVOR = {'flavor': {'name': 'm1.small', 'ram': 2048, 'vcpus': 1,
                         'disk': 20}}


class TestFlavorReads(base.APITestCase):

    def setUp(self):
        super().setUp()
        self.make_flavor('1', 'm1.tiny', memory_mb=512)
        self.make_flavor('2', 'm1.small', memory_mb=2048, root_gb=20)

    def test_list_has_ids_names_and_links(self):
        flavors = self.request('GET', '/v2.1/flavors').json['flavors']
        self.assertEqual(['1', '2'], [f['id'] for f in flavors])
        self.assertEqual({'id', 'name', 'links'}, set(flavors[0]))

    def test_detail_has_the_public_api_fields(self):
        flavor = self.request('GET',
                              '/v2.1/flavors/detail').json['flavors'][1]
        self.assertEqual(2048, flavor['ram'])
        self.assertEqual(20, flavor['disk'])
        self.assertEqual('', flavor['swap'])
        self.assertEqual(0, flavor['OS-FLV-EXT-DATA:ephemeral'])
        self.assertFalse(flavor['OS-FLV-DISABLED:disabled'])
        self.assertTrue(flavor['os-flavor-access:is_public'])
        self.assertEqual(['self', 'bookmark'],
                         [link['rel'] for link in flavor['links']])

    def test_is_public_none_is_accepted(self):
        for value in ('None', 'none'):
            response = self.request('GET', '/v2.1/flavors/detail?is_public='
                                    + value, token=base.ADMIN)
            self.assertEqual(2, len(response.json['flavors']))

    def test_min_ram_filters(self):
        flavors = self.request('GET', '/v2.1/flavors?minRam=1024'
                               ).json['flavors']
        self.assertEqual(['2'], [f['id'] for f in flavors])

    def test_limit_gives_a_next_link(self):
        body = self.request('GET', '/v2.1/flavors?limit=1').json
        self.assertEqual(1, len(body['flavors']))
        self.assertIn('marker=1', body['flavors_links'][0]['href'])

    def test_marker_pages_on(self):
        flavors = self.request('GET', '/v2.1/flavors?marker=1'
                               ).json['flavors']
        self.assertEqual(['2'], [f['id'] for f in flavors])

    def test_unknown_marker_is_400(self):
        response = self.request('GET', '/v2.1/flavors?marker=nope')
        self.assertError(response, 400, 'badRequest')

    def test_show(self):
        flavor = self.request('GET', '/v2.1/flavors/2').json['flavor']
        self.assertEqual('m1.small', flavor['name'])

    def test_show_unknown_is_404(self):
        response = self.request('GET', '/v2.1/flavors/42')
        self.assertError(response, 404, 'itemNotFound', '42')

    def test_extra_specs(self):
        response = self.request('GET', '/v2.1/flavors/1/os-extra_specs')
        self.assertEqual({'extra_specs': {}}, response.json)


class TestFlavorManage(base.APITestCase):

    def test_admin_creates_with_an_automatic_uuid_id(self):
        response = self.request('POST', '/v2.1/flavors', NEW_FLAVOR,
                                token=base.ADMIN)
        self.assertEqual(200, response.status_int, response.body)
        flavor = response.json['flavor']
        self.assertEqual(36, len(flavor['id']))
        self.assertEqual(2048, flavor['ram'])
        shown = self.request('GET', '/v2.1/flavors/' + flavor['id'])
        self.assertEqual('m1.small', shown.json['flavor']['name'])

    def test_create_with_id_and_extras(self):
        body = {'flavor': dict(NEW_FLAVOR['flavor'], id='small',
                               swap=512, rxtx_factor=2.0,
                               **{'OS-FLV-EXT-DATA:ephemeral': 5,
                                  'os-flavor-access:is_public': False})}
        flavor = self.request('POST', '/v2.1/flavors', body,
                              token=base.ADMIN).json['flavor']
        self.assertEqual('small', flavor['id'])
        self.assertEqual(512, flavor['swap'])
        self.assertEqual(5, flavor['OS-FLV-EXT-DATA:ephemeral'])
        self.assertFalse(flavor['os-flavor-access:is_public'])

    def test_non_admin_create_is_403(self):
        response = self.request('POST', '/v2.1/flavors', NEW_FLAVOR)
        self.assertError(response, 403, 'forbidden')

    def test_missing_field_is_400(self):
        body = {'flavor': {'name': 'm1.small', 'ram': 2048, 'vcpus': 1}}
        response = self.request('POST', '/v2.1/flavors', body,
                                token=base.ADMIN)
        self.assertError(response, 400, 'badRequest', 'disk')

    def test_over_long_name_is_400(self):
        body = {'flavor': dict(NEW_FLAVOR['flavor'], name='x' * 256)}
        response = self.request('POST', '/v2.1/flavors', body,
                                token=base.ADMIN)
        self.assertError(response, 400, 'badRequest', 'name')

    def test_negative_ram_is_400(self):
        body = {'flavor': dict(NEW_FLAVOR['flavor'], ram=-1)}
        response = self.request('POST', '/v2.1/flavors', body,
                                token=base.ADMIN)
        self.assertError(response, 400, 'badRequest', 'ram')

    def test_duplicate_name_is_409(self):
        self.request('POST', '/v2.1/flavors', NEW_FLAVOR, token=base.ADMIN)
        response = self.request('POST', '/v2.1/flavors', NEW_FLAVOR,
                                token=base.ADMIN)
        self.assertError(response, 409, 'conflictingRequest', 'm1.small')

    def test_admin_deletes(self):
        self.make_flavor('1')
        response = self.request('DELETE', '/v2.1/flavors/1',
                                token=base.ADMIN)
        self.assertEqual(202, response.status_int)
        self.assertError(self.request('GET', '/v2.1/flavors/1'), 404,
                         'itemNotFound')

    def test_non_admin_delete_is_403(self):
        self.make_flavor('1')
        response = self.request('DELETE', '/v2.1/flavors/1')
        self.assertError(response, 403, 'forbidden')

    def test_private_flavors_are_hidden_from_other_projects(self):
        self.make_flavor('1', is_public=False)
        flavors = self.request('GET', '/v2.1/flavors').json['flavors']
        self.assertEqual([], flavors)
