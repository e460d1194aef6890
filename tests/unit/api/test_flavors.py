"""/flavors."""

import fixtures

from nova_lite import policy
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

    def test_min_ram_or_disk_past_the_largest_integer_is_400_not_500(self):
        for name in ('minRam', 'minDisk'):
            response = self.request('GET', '/v2.1/flavors/detail?%s=%s' % (
                name, '9' * 25))
            self.assertError(response, 400, 'badRequest', 'out of range')

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

    def test_a_private_flavor_is_not_found_by_other_projects(self):
        self.make_flavor('1', is_public=False)
        for path in ('/v2.1/flavors/1', '/v2.1/flavors/1/os-extra_specs'):
            self.assertError(self.request('GET', path), 404, 'itemNotFound')

    def test_a_private_flavor_is_shown_to_admins_and_granted_projects(self):
        self.make_flavor('1', is_public=False, projects=[base.DEMO])
        self.make_flavor('2', 'm1.other', is_public=False)
        self.assertEqual(200, self.request('GET', '/v2.1/flavors/1')
                         .status_int)
        self.assertEqual(200, self.request('GET', '/v2.1/flavors/2',
                                           token=base.ADMIN).status_int)


class TestFlavorDescription(base.APITestCase):
    """Microversion 2.55: description at create, PUT, and in every view."""

    def setUp(self):
        super().setUp()
        self.make_flavor('1', 'm1.tiny', description='for tests')

    def put(self, body, version='2.55', token=base.ADMIN, flavor_id='1'):
        return self.request('PUT', '/v2.1/flavors/' + flavor_id, body,
                            token=token, version=version)

    def test_description_is_shown_from_255(self):
        for path in ('/v2.1/flavors', '/v2.1/flavors/detail'):
            [flavor] = self.request('GET', path,
                                    version='2.55').json['flavors']
            self.assertEqual('for tests', flavor['description'])
            [flavor] = self.request('GET', path,
                                    version='2.54').json['flavors']
            self.assertNotIn('description', flavor)
        shown = self.request('GET', '/v2.1/flavors/1', version='2.55')
        self.assertEqual('for tests', shown.json['flavor']['description'])

    def test_a_flavor_without_description_shows_null(self):
        self.make_flavor('2', 'm1.small')
        shown = self.request('GET', '/v2.1/flavors/2', version='2.55')
        self.assertIsNone(shown.json['flavor']['description'])

    def test_create_takes_a_description_from_255(self):
        body = {'flavor': dict(NEW_FLAVOR['flavor'], description='big')}
        response = self.request('POST', '/v2.1/flavors', body,
                                token=base.ADMIN, version='2.55')
        self.assertEqual(200, response.status_int, response.body)
        self.assertEqual('big', response.json['flavor']['description'])

    def test_create_with_a_description_before_255_is_400(self):
        body = {'flavor': dict(NEW_FLAVOR['flavor'], description='big')}
        response = self.request('POST', '/v2.1/flavors', body,
                                token=base.ADMIN, version='2.54')
        self.assertError(response, 400, 'badRequest', 'description')

    def test_put_changes_the_description(self):
        response = self.put({'flavor': {'description': 'changed'}})
        self.assertEqual(200, response.status_int, response.body)
        self.assertEqual('changed', response.json['flavor']['description'])
        shown = self.request('GET', '/v2.1/flavors/1', version='2.55')
        self.assertEqual('changed', shown.json['flavor']['description'])

    def test_put_null_clears_the_description(self):
        response = self.put({'flavor': {'description': None}})
        self.assertIsNone(response.json['flavor']['description'])

    def test_put_before_255_is_404_naming_the_version(self):
        response = self.put({'flavor': {'description': 'x'}},
                            version='2.54')
        self.assertError(response, 404, 'itemNotFound', '2.55')

    def test_put_is_for_admins(self):
        response = self.put({'flavor': {'description': 'x'}},
                            token=base.DEMO)
        self.assertError(response, 403, 'forbidden')

    def test_put_of_anything_but_the_description_is_400(self):
        response = self.put({'flavor': {'description': 'x', 'ram': 1}})
        self.assertError(response, 400, 'badRequest', 'ram')
        response = self.put({'flavor': {'name': 'renamed'}})
        self.assertError(response, 400, 'badRequest', 'description')

    def test_put_of_an_unknown_flavor_is_404(self):
        response = self.put({'flavor': {'description': 'x'}},
                            flavor_id='42')
        self.assertError(response, 404, 'itemNotFound', '42')

    def test_an_over_long_description_is_400(self):
        response = self.put({'flavor': {'description': 'x' * 65536}})
        self.assertError(response, 400, 'badRequest', 'description')


class TestFlavorExtraSpecsEmbedded(base.APITestCase):
    """Microversion 2.61: extra_specs in the full flavor document."""

    def setUp(self):
        super().setUp()
        flavor = self.make_flavor('1', 'm1.tiny',
                                  extra_specs={'hw:cpu_policy': 'shared'})
        self.flavor = flavor

    def test_detail_and_show_embed_extra_specs_from_261(self):
        [flavor] = self.request('GET', '/v2.1/flavors/detail',
                                version='2.61').json['flavors']
        self.assertEqual({'hw:cpu_policy': 'shared'}, flavor['extra_specs'])
        shown = self.request('GET', '/v2.1/flavors/1', version='2.61')
        self.assertEqual({'hw:cpu_policy': 'shared'},
                         shown.json['flavor']['extra_specs'])

    def test_not_before_261(self):
        shown = self.request('GET', '/v2.1/flavors/1', version='2.60')
        self.assertNotIn('extra_specs', shown.json['flavor'])

    def test_the_brief_list_has_none(self):
        [flavor] = self.request('GET', '/v2.1/flavors',
                                version='2.61').json['flavors']
        self.assertNotIn('extra_specs', flavor)

    def test_create_and_update_answers_embed_them(self):
        response = self.request('POST', '/v2.1/flavors', NEW_FLAVOR,
                                token=base.ADMIN, version='2.61')
        self.assertEqual({}, response.json['flavor']['extra_specs'])
        response = self.request('PUT', '/v2.1/flavors/1',
                                {'flavor': {'description': 'd'}},
                                token=base.ADMIN, version='2.61')
        self.assertEqual({'hw:cpu_policy': 'shared'},
                         response.json['flavor']['extra_specs'])

    def test_hidden_from_callers_the_policy_does_not_allow(self):
        policy_file = self.useFixture(fixtures.TempDir()).join(
            'policy.yaml')
        with open(policy_file, 'w') as f:
            f.write('"os_compute_api:os-flavor-extra-specs:index": '
                    '"rule:admin_api"\n')
        self.plane.config.config(policy_file=policy_file,
                                 group='oslo_policy')
        policy.reset()
        shown = self.request('GET', '/v2.1/flavors/1', version='2.61')
        self.assertNotIn('extra_specs', shown.json['flavor'])
        shown = self.request('GET', '/v2.1/flavors/1', version='2.61',
                             token=base.ADMIN)
        self.assertIn('extra_specs', shown.json['flavor'])
