"""/os-keypairs: import, generate, list, show and delete a user's key
pairs; another user's for administrators from 2.10; the key pair quota;
key_name at server create."""

from cryptography.hazmat.primitives import serialization

from tests.unit.api import base
from tests.unit.api import test_servers

PATH = '/v2.1/os-keypairs'
# Made with ssh-keygen; the fingerprints are what ``ssh-keygen -l -E md5``
# prints for them.
ED25519_KEY = ('ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOmtXf6qvkIJiAHiV0B9Ng'
               'rjFXyOJQ98JT7ipvLfJh1i demo@host')
ED25519_FINGERPRINT = '55:8a:db:be:61:a5:cb:34:18:fb:49:a1:9a:31:c3:88'
RSA_KEY = ('ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAAAgQDeWQK5QY5m9baL+x6mCzqymk'
           'M5WpvWbfaYw2+wVXDysS3kW0qX/SVJa6kE0oOxqFxmb5dlSe4n6sOYf9Zt6xze0F'
           'XXmAd024DKsGN5J1dxGtll3ceXepCMgxbo04eJzIPgjzPt4sTEDgHi95r0VZApII'
           'UHipLz+MMibbLxe/K+uw==')
RSA_FINGERPRINT = '8c:22:64:8f:d8:6a:8e:48:df:a4:16:7b:d8:df:54:c7'
OTHER = 'other'


class KeypairsTestCase(base.APITestCase):

    def call(self, method, path='', body=None, token=base.DEMO,
             version=None):
        return self.request(method, PATH + path, body, token=token,
                            version=version)

    def create(self, name='k1', public_key=ED25519_KEY, token=base.DEMO,
               version=None, **extra):
        keypair = dict(extra, name=name)
        if public_key is not None:
            keypair['public_key'] = public_key
        return self.call('POST', body={'keypair': keypair}, token=token,
                         version=version)

    def make_keypair(self, name='k1', public_key=ED25519_KEY,
                     token=base.DEMO):
        response = self.create(name, public_key, token=token)
        self.assertEqual(200, response.status_int, response.body)
        return response.json['keypair']


class TestImport(KeypairsTestCase):

    def test_answers_200_with_the_key_and_its_md5_fingerprint(self):
        self.assertEqual(
            {'name': 'k1', 'public_key': ED25519_KEY,
             'fingerprint': ED25519_FINGERPRINT, 'user_id': base.DEMO},
            self.make_keypair())

    def test_an_rsa_key_without_comment_is_fingerprinted(self):
        self.assertEqual(RSA_FINGERPRINT,
                         self.make_keypair(public_key=RSA_KEY)['fingerprint'])

    def test_answers_201_with_the_type_from_22(self):
        response = self.create(version='2.2')
        self.assertEqual(201, response.status_int, response.body)
        self.assertEqual('ssh', response.json['keypair']['type'])

    def test_type_is_refused_before_22(self):
        response = self.create(version='2.1', type='ssh')
        self.assertError(response, 400, 'badRequest')

    def test_an_unknown_type_is_refused(self):
        response = self.create(version='2.2', type='pgp')
        self.assertError(response, 400, 'badRequest')

    def test_a_key_of_an_unknown_type_is_invalid(self):
        response = self.create(public_key='ssh-foo AAAA comment')
        self.assertError(response, 400, 'badRequest',
                         'Keypair data is invalid')

    def test_a_key_that_is_not_base64_is_invalid(self):
        response = self.create(public_key='ssh-rsa not*base64 comment')
        self.assertError(response, 400, 'badRequest',
                         'Keypair data is invalid')

    def test_a_key_whose_blob_names_another_type_is_invalid(self):
        blob = ED25519_KEY.split()[1]
        response = self.create(public_key='ssh-rsa ' + blob)
        self.assertError(response, 400, 'badRequest',
                         'Keypair data is invalid')

    def test_a_key_without_blob_is_invalid(self):
        response = self.create(public_key='ssh-rsa')
        self.assertError(response, 400, 'badRequest',
                         'Keypair data is invalid')

    def test_a_duplicate_name_is_409(self):
        self.make_keypair()
        response = self.create(public_key=RSA_KEY)
        self.assertError(response, 409, 'conflictingRequest',
                         "Key pair 'k1' already exists.")

    def test_two_users_may_use_the_same_name(self):
        self.make_keypair()
        self.assertEqual(OTHER,
                         self.make_keypair(token=OTHER)['user_id'])


class TestName(KeypairsTestCase):

    def test_an_empty_name_is_refused(self):
        self.assertError(self.create(name=''), 400, 'badRequest')

    def test_a_name_longer_than_255_is_refused(self):
        self.assertError(self.create(name='k' * 256), 400, 'badRequest')

    def test_a_name_of_255_is_accepted(self):
        self.assertEqual('k' * 255, self.make_keypair('k' * 255)['name'])

    def test_leading_or_trailing_spaces_are_refused(self):
        self.assertError(self.create(name=' k1'), 400, 'badRequest')
        self.assertError(self.create(name='k1 '), 400, 'badRequest')

    def test_control_characters_are_refused(self):
        self.assertError(self.create(name='k\n1'), 400, 'badRequest')

    def test_inner_spaces_are_accepted_and_the_name_is_addressable(self):
        self.make_keypair('my key')
        self.assertEqual(200, self.call('GET', '/my%20key').status_int)


class TestGenerate(KeypairsTestCase):

    def test_without_public_key_a_key_pair_is_generated(self):
        keypair = self.make_keypair(public_key=None)
        private = serialization.load_ssh_private_key(
            keypair['private_key'].encode('ascii'), password=None)
        public = private.public_key().public_bytes(
            serialization.Encoding.OpenSSH,
            serialization.PublicFormat.OpenSSH).decode('ascii')
        self.assertEqual(public, keypair['public_key'])
        self.assertEqual(47, len(keypair['fingerprint']))

    def test_the_private_key_is_shown_only_at_create(self):
        self.make_keypair(public_key=None)
        self.assertNotIn('private_key',
                         self.call('GET', '/k1').json['keypair'])

    def test_an_imported_key_pair_has_no_private_key(self):
        self.assertNotIn('private_key', self.make_keypair())

    def test_an_x509_key_pair_is_a_certificate(self):
        response = self.create(public_key=None, version='2.2', type='x509')
        self.assertEqual(201, response.status_int, response.body)
        keypair = response.json['keypair']
        self.assertEqual('x509', keypair['type'])
        self.assertTrue(keypair['public_key'].startswith(
            '-----BEGIN CERTIFICATE-----'))
        self.assertIn('PRIVATE KEY', keypair['private_key'])

    def test_an_x509_certificate_can_be_imported_again(self):
        generated = self.create(public_key=None, version='2.2',
                                type='x509').json['keypair']
        response = self.create(name='k2', version='2.2', type='x509',
                               public_key=generated['public_key'])
        self.assertEqual(generated['fingerprint'],
                         response.json['keypair']['fingerprint'])

    def test_an_ssh_key_is_not_an_x509_certificate(self):
        response = self.create(version='2.2', type='x509')
        self.assertError(response, 400, 'badRequest',
                         'Keypair data is invalid')


class TestList(KeypairsTestCase):

    def test_lists_the_callers_key_pairs_each_wrapped(self):
        self.make_keypair('k1')
        self.make_keypair('k2', RSA_KEY)
        self.make_keypair('theirs', token=OTHER)
        response = self.call('GET')
        self.assertEqual(200, response.status_int)
        self.assertEqual(
            {'keypairs': [
                {'keypair': {'name': 'k1', 'public_key': ED25519_KEY,
                             'fingerprint': ED25519_FINGERPRINT}},
                {'keypair': {'name': 'k2', 'public_key': RSA_KEY,
                             'fingerprint': RSA_FINGERPRINT}}]},
            response.json)

    def test_shows_the_type_from_22(self):
        self.make_keypair()
        keypair, = self.call('GET', version='2.2').json['keypairs']
        self.assertEqual('ssh', keypair['keypair']['type'])

    def test_no_key_pairs_is_an_empty_list(self):
        self.assertEqual({'keypairs': []}, self.call('GET').json)


class TestListPaging(KeypairsTestCase):
    """From 2.35 the list is paged by ``limit`` and ``marker``, a key pair
    name, in name order."""

    NAMES = ['a key', 'b', 'c', 'd', 'e']

    def setUp(self):
        super().setUp()
        for name in reversed(self.NAMES):
            self.make_keypair(name)
        self.make_keypair('theirs', token=OTHER)

    def page(self, query='', version='2.35', token=base.DEMO):
        response = self.call('GET', query, token=token, version=version)
        self.assertEqual(200, response.status_int, response.body)
        return response.json

    @staticmethod
    def names(page):
        return [k['keypair']['name'] for k in page['keypairs']]

    def test_limit_gives_a_full_page_and_a_next_link(self):
        page = self.page('?limit=2')
        self.assertEqual(['a key', 'b'], self.names(page))
        [link] = page['keypairs_links']
        self.assertEqual('next', link['rel'])
        self.assertEqual(
            'http://localhost/v2.1/os-keypairs?limit=2&marker=b',
            link['href'])

    def test_marker_starts_after_the_named_key_pair(self):
        page = self.page('?marker=b')
        self.assertEqual(['c', 'd', 'e'], self.names(page))
        self.assertNotIn('keypairs_links', page)

    def test_following_the_next_links_walks_every_key_pair_once(self):
        walked, query = [], '?limit=2'
        for _ in range(len(self.NAMES)):
            page = self.page(query)
            walked += self.names(page)
            links = page.get('keypairs_links')
            if not links:
                break
            query = '?' + links[0]['href'].split('?', 1)[1]
        self.assertEqual(self.NAMES, walked)

    def test_a_marker_with_a_space_is_quoted_in_the_next_link(self):
        page = self.page('?limit=1')
        self.assertIn('marker=a+key', page['keypairs_links'][0]['href'])
        self.assertEqual(['b'], self.names(self.page(
            '?limit=1&marker=a+key')))

    def test_a_short_last_page_has_no_next_link(self):
        page = self.page('?limit=4&marker=b')
        self.assertEqual(['c', 'd', 'e'], self.names(page))
        self.assertNotIn('keypairs_links', page)

    def test_a_full_last_page_links_to_an_empty_one(self):
        page = self.page('?limit=3&marker=b')
        self.assertEqual(['c', 'd', 'e'], self.names(page))
        self.assertIn('marker=e', page['keypairs_links'][0]['href'])
        self.assertEqual({'keypairs': []}, self.page('?limit=3&marker=e'))

    def test_limit_zero_is_an_empty_page(self):
        self.assertEqual({'keypairs': []}, self.page('?limit=0'))

    def test_limit_is_capped_by_max_limit(self):
        self.plane.config.config(max_limit=2, group='api')
        page = self.page('?limit=10')
        self.assertEqual(['a key', 'b'], self.names(page))
        self.assertIn('limit=2', page['keypairs_links'][0]['href'])

    def test_without_limit_a_page_holds_at_most_max_limit(self):
        self.plane.config.config(max_limit=4, group='api')
        self.assertEqual(self.NAMES[:4], self.names(self.page()))

    def test_an_unknown_marker_is_400(self):
        response = self.call('GET', '?marker=nope', version='2.35')
        self.assertError(response, 400, 'badRequest',
                         'Marker nope could not be found.')

    def test_another_users_key_pair_is_no_marker(self):
        response = self.call('GET', '?marker=theirs', version='2.35')
        self.assertError(response, 400, 'badRequest', 'theirs')

    def test_a_bad_limit_is_400(self):
        for limit in ('-1', 'two'):
            response = self.call('GET', '?limit=' + limit, version='2.35')
            self.assertError(response, 400, 'badRequest', 'limit')

    def test_before_235_limit_and_marker_are_ignored(self):
        page = self.page('?limit=1&marker=nope', version='2.34')
        self.assertEqual({'keypairs'}, set(page))
        self.assertEqual(self.NAMES, self.names(page))

    def test_admin_pages_another_users_key_pairs(self):
        page = self.page('?user_id=%s&limit=1' % OTHER, token=base.ADMIN)
        self.assertEqual(['theirs'], self.names(page))
        self.assertIn('user_id=%s' % OTHER,
                      page['keypairs_links'][0]['href'])


class TestShow(KeypairsTestCase):

    def test_shows_every_attribute(self):
        self.make_keypair()
        keypair = self.call('GET', '/k1', version='2.2').json['keypair']
        self.assertIsInstance(keypair.pop('id'), int)
        self.assertTrue(keypair.pop('created_at').endswith('Z'))
        self.assertEqual(
            {'name': 'k1', 'public_key': ED25519_KEY,
             'fingerprint': ED25519_FINGERPRINT, 'user_id': base.DEMO,
             'type': 'ssh', 'updated_at': None, 'deleted': False,
             'deleted_at': None}, keypair)

    def test_an_unknown_name_is_404(self):
        self.assertError(self.call('GET', '/nope'), 404, 'itemNotFound')

    def test_another_users_key_pair_is_404(self):
        self.make_keypair(token=OTHER)
        self.assertError(self.call('GET', '/k1'), 404, 'itemNotFound')


class TestDelete(KeypairsTestCase):

    def test_answers_202_and_the_key_pair_is_gone(self):
        self.make_keypair()
        self.assertEqual(202, self.call('DELETE', '/k1').status_int)
        self.assertError(self.call('GET', '/k1'), 404, 'itemNotFound')

    def test_answers_204_from_22(self):
        self.make_keypair()
        self.assertEqual(204, self.call('DELETE', '/k1',
                                        version='2.2').status_int)

    def test_an_unknown_name_is_404(self):
        self.assertError(self.call('DELETE', '/nope'), 404, 'itemNotFound')

    def test_another_users_key_pair_is_404_and_stays(self):
        self.make_keypair(token=OTHER)
        self.assertError(self.call('DELETE', '/k1'), 404, 'itemNotFound')
        self.assertEqual(200, self.call('GET', '/k1', token=OTHER).status_int)


class TestOtherUsers(KeypairsTestCase):
    """From 2.10 an administrator names the user; others may not."""

    def setUp(self):
        super().setUp()
        self.make_keypair(token=OTHER)

    def test_admin_lists_another_users_key_pairs(self):
        response = self.call('GET', '?user_id=' + OTHER, token=base.ADMIN,
                             version='2.10')
        self.assertEqual(['k1'], [k['keypair']['name']
                                  for k in response.json['keypairs']])

    def test_user_id_is_ignored_before_210(self):
        response = self.call('GET', '?user_id=' + OTHER, token=base.ADMIN,
                             version='2.9')
        self.assertEqual([], response.json['keypairs'])

    def test_admin_shows_and_deletes_another_users_key_pair(self):
        shown = self.call('GET', '/k1?user_id=' + OTHER, token=base.ADMIN,
                          version='2.10')
        self.assertEqual(OTHER, shown.json['keypair']['user_id'])
        self.assertEqual(204, self.call('DELETE', '/k1?user_id=' + OTHER,
                                        token=base.ADMIN,
                                        version='2.10').status_int)
        self.assertError(self.call('GET', '/k1', token=OTHER), 404,
                         'itemNotFound')

    def test_admin_creates_a_key_pair_for_another_user(self):
        response = self.create('k2', token=base.ADMIN, version='2.10',
                               user_id=OTHER)
        self.assertEqual(201, response.status_int, response.body)
        self.assertEqual(OTHER, response.json['keypair']['user_id'])
        self.assertEqual(200, self.call('GET', '/k2', token=OTHER).status_int)

    def test_user_id_in_the_body_is_refused_before_210(self):
        response = self.create('k2', token=base.ADMIN, version='2.9',
                               user_id=OTHER)
        self.assertError(response, 400, 'badRequest')

    def test_a_user_may_not_name_another_user(self):
        for method, path in (('GET', ''), ('GET', '/k1'),
                             ('DELETE', '/k1')):
            response = self.call(method, path + '?user_id=' + OTHER,
                                 version='2.10')
            self.assertError(response, 403, 'forbidden')
        response = self.create('k2', version='2.10', user_id=OTHER)
        self.assertError(response, 403, 'forbidden')

    def test_a_user_may_name_themself(self):
        response = self.call('GET', '?user_id=' + OTHER, token=OTHER,
                             version='2.10')
        self.assertEqual(1, len(response.json['keypairs']))


class TestQuota(KeypairsTestCase):

    def setUp(self):
        super().setUp()
        self.plane.config.config(key_pairs=2, group='quota')

    def test_one_more_than_the_quota_is_refused_with_403(self):
        self.make_keypair('k1')
        self.make_keypair('k2', RSA_KEY)
        response = self.create('k3')
        self.assertError(response, 403, 'forbidden',
                         'Quota exceeded for key_pairs: requested 1, but '
                         'already used 2 of 2 key pairs.')
        self.assertEqual(2, len(self.call('GET').json['keypairs']))

    def test_the_quota_is_per_user(self):
        self.make_keypair('k1')
        self.make_keypair('k2', RSA_KEY)
        self.make_keypair('k1', token=OTHER)

    def test_minus_one_is_unlimited(self):
        self.plane.config.config(key_pairs=-1, group='quota')
        for index in range(4):
            self.make_keypair('k%d' % index)


class TestServerKeyName(test_servers.ServersTestCase):

    def test_a_server_boots_with_the_callers_key_pair(self):
        self.request('POST', PATH, {'keypair': {
            'name': 'k1', 'public_key': ED25519_KEY}})
        uuid = self.boot(key_name='k1').json['server']['id']
        server = self.request('GET', '/v2.1/servers/' + uuid).json['server']
        self.assertEqual('k1', server['key_name'])

    def test_an_unknown_key_name_is_400(self):
        response = self.request('POST', '/v2.1/servers',
                                test_servers.server_body(key_name='nope'))
        self.assertError(response, 400, 'badRequest',
                         'Invalid key_name provided.')

    def test_another_users_key_name_is_400(self):
        self.request('POST', PATH, {'keypair': {
            'name': 'k1', 'public_key': ED25519_KEY}}, token=OTHER)
        response = self.request('POST', '/v2.1/servers',
                                test_servers.server_body(key_name='k1'))
        self.assertError(response, 400, 'badRequest',
                         'Invalid key_name provided.')
