"""KeyPair and KeyPairList: users' key pairs in the API database."""

from nova_lite import exception
from nova_lite import objects
from tests.unit.objects import test_objects


class KeyPairTestCase(test_objects.DatabaseTestCase):

    def make_keypair(self, name='k1', user_id='demo', **kwargs):
        keypair = objects.KeyPair(self.admin_context, name=name,
                                  user_id=user_id, fingerprint='aa:bb',
                                  public_key='ssh-ed25519 AAAA', **kwargs)
        keypair.create()
        return keypair


class TestKeyPair(KeyPairTestCase):

    def test_get_by_name_returns_what_create_stored(self):
        created = self.make_keypair(type='x509')
        found = objects.KeyPair.get_by_name(self.admin_context, 'demo',
                                            'k1')
        self.assertEqual(
            (created.id, 'k1', 'demo', 'aa:bb', 'ssh-ed25519 AAAA', 'x509'),
            (found.id, found.name, found.user_id, found.fingerprint,
             found.public_key, found.type))
        self.assertIsNotNone(found.created_at)

    def test_the_type_defaults_to_ssh(self):
        self.assertEqual('ssh', self.make_keypair().type)

    def test_a_duplicate_name_of_one_user_is_refused(self):
        self.make_keypair()
        self.assertRaises(exception.KeyPairExists, self.make_keypair)

    def test_names_are_per_user(self):
        self.make_keypair()
        self.make_keypair(user_id='other')

    def test_another_users_key_pair_is_not_found(self):
        self.make_keypair(user_id='other')
        self.assertRaises(exception.KeypairNotFound,
                          objects.KeyPair.get_by_name, self.admin_context,
                          'demo', 'k1')

    def test_destroy_removes_it_and_twice_is_not_found(self):
        keypair = self.make_keypair()
        keypair.destroy()
        self.assertRaises(exception.KeypairNotFound, keypair.destroy)


class TestKeyPairList(KeyPairTestCase):

    def test_get_by_user_and_count_see_only_that_user(self):
        self.make_keypair('b')
        self.make_keypair('a')
        self.make_keypair('a', user_id='other')
        self.assertEqual(['a', 'b'], [k.name for k in
                                      objects.KeyPairList.get_by_user(
                                          self.admin_context, 'demo')])
        self.assertEqual(2, objects.KeyPairList.count(self.admin_context,
                                                      'demo'))
        self.assertEqual(0, objects.KeyPairList.count(self.admin_context,
                                                      'nobody'))

    def test_get_by_user_pages_by_name_after_the_marker(self):
        for name in ('c', 'a', 'd', 'b'):
            self.make_keypair(name)
        self.make_keypair('bb', user_id='other')

        def names(**kwargs):
            return [k.name for k in objects.KeyPairList.get_by_user(
                self.admin_context, 'demo', **kwargs)]
        self.assertEqual(['a', 'b'], names(limit=2))
        self.assertEqual(['c', 'd'], names(marker='b'))
        self.assertEqual(['c'], names(marker='b', limit=1))
        self.assertEqual([], names(marker='d'))

    def test_a_marker_the_user_does_not_have_is_marker_not_found(self):
        self.make_keypair('a')
        self.make_keypair('theirs', user_id='other')
        for marker in ('nope', 'theirs'):
            self.assertRaises(exception.MarkerNotFound,
                              objects.KeyPairList.get_by_user,
                              self.admin_context, 'demo', marker=marker)
