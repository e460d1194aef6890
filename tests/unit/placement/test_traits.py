"""Traits (1.6): the standard ones are os-traits', custom ones CUSTOM_*."""

import os_traits

from nova_lite.placement import db
from nova_lite.placement import traits
from tests.unit.placement import base


class TestStandardTraits(base.PlacementTestCase):

    def test_the_list_is_os_traits_and_nothing_else(self):
        listed = self.get('/traits').json['traits']
        self.assertEqual(sorted(os_traits.get_traits()), listed)

    def test_a_trait_os_traits_added_lately_can_be_set(self):
        rp = self.make_provider()
        response = self.put('/resource_providers/%s/traits' % rp['uuid'], {
            'traits': [os_traits.COMPUTE_MIGRATE_POST_COPY,
                       os_traits.HW_CPU_X86_AMXBF16],
            'resource_provider_generation': 0})
        self.assertStatus(200, response)

    def _write_trait(self, name):
        with db.transaction() as connection:
            connection.execute(db.TRAITS.insert().values(
                name=name, created_at=db.now()))

    def test_a_name_os_traits_does_not_have_is_not_standard(self):
        response = self.put('/resource_providers/%s/traits' %
                            self.make_provider()['uuid'], {
                                'traits': ['HW_CPU_X86_RDRAND'],
                                'resource_provider_generation': 0})
        self.assertError(response, 400, fragment='HW_CPU_X86_RDRAND')

    def test_an_unused_standard_name_os_traits_dropped_is_removed(self):
        self.get('/traits')  # the standard ones are written
        self._write_trait('HW_CPU_X86_RDRAND')
        traits.reset_cache()
        self.assertNotIn('HW_CPU_X86_RDRAND',
                         self.get('/traits').json['traits'])

    def test_a_dropped_standard_name_a_provider_has_stays(self):
        self.get('/traits')
        self._write_trait('HW_CPU_X86_RDRAND')
        rp = self.make_provider()
        self.assertStatus(200, self.put(
            '/resource_providers/%s/traits' % rp['uuid'],
            {'traits': ['HW_CPU_X86_RDRAND'],
             'resource_provider_generation': 0}))
        traits.reset_cache()
        self.assertIn('HW_CPU_X86_RDRAND',
                      self.get('/traits').json['traits'])
        self.assertEqual(['HW_CPU_X86_RDRAND'], self.get(
            '/resource_providers/%s/traits' % rp['uuid']).json['traits'])


class TestTraitRequests(base.PlacementTestCase):

    def test_put_is_201_then_204_both_with_location(self):
        for status in (201, 204):
            response = self.put('/traits/CUSTOM_MADE')
            self.assertStatus(status, response)
            self.assertTrue(response.headers['Location'].endswith(
                '/traits/CUSTOM_MADE'))

    def test_a_badly_formed_name_filter_says_the_forms(self):
        self.assertError(self.get('/traits?name=in_abc'), 400,
                         fragment='Badly formatted name parameter. Expected '
                                  'name query string parameter in form: '
                                  '?name=[in|startswith]:[name1,name2|'
                                  'prefix]. Got: "in_abc"')

    def test_associated_takes_true_or_false(self):
        self.assertError(self.get('/traits?associated=xyz'), 400,
                         fragment='The query parameter "associated" only '
                                  'accepts "true" or "false"')

    def test_a_stale_provider_generation_is_409(self):
        rp = self.make_provider()['uuid']
        response = self.put('/resource_providers/%s/traits' % rp, {
            'traits': [], 'resource_provider_generation': 5})
        self.assertError(response, 409, 'placement.concurrent_update',
                         "Resource provider's generation already changed.")
