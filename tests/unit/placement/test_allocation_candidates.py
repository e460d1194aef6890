"""GET /allocation_candidates: flat, shared and nested providers, granular
groups, policies, filters and the response format per microversion."""

from unittest import mock

from oslo_config import fixture as config_fixture
from oslo_utils import uuidutils

from nova_lite import conf as nova_conf
from nova_lite.placement import candidates
from tests.unit.placement import base


class CandidatesTestCase(base.PlacementTestCase):

    def candidates(self, query, version=base.LATEST):
        response = self.get('/allocation_candidates?' + query,
                            version=version)
        self.assertStatus(200, response)
        return response.json

    def providers_of(self, body):
        """The provider sets of each allocation request, sorted."""
        return sorted(sorted(request['allocations'])
                      for request in body['allocation_requests'])

    def set_traits(self, rp, *names):
        for name in names:
            if name.startswith('CUSTOM_'):
                self.put('/traits/%s' % name)
        generation = self.get('/resource_providers/%s' % rp).json[
            'generation']
        self.assertStatus(200, self.put(
            '/resource_providers/%s/traits' % rp,
            {'traits': list(names),
             'resource_provider_generation': generation}))

    def set_aggregates(self, rp, *aggs):
        generation = self.get('/resource_providers/%s' % rp).json[
            'generation']
        self.assertStatus(200, self.put(
            '/resource_providers/%s/aggregates' % rp,
            {'aggregates': list(aggs),
             'resource_provider_generation': generation}))


class TestFlat(CandidatesTestCase):

    def setUp(self):
        super().setUp()
        self.cn1 = self.compute_node('cn1', vcpus=8, memory_mb=4096)
        self.cn2 = self.compute_node('cn2', vcpus=2, memory_mb=1024)

    def test_every_provider_with_room_is_a_candidate(self):
        body = self.candidates('resources=VCPU:1,MEMORY_MB:512')
        self.assertEqual(sorted([[self.cn1], [self.cn2]]),
                         self.providers_of(body))
        request = [r for r in body['allocation_requests']
                   if self.cn1 in r['allocations']][0]
        self.assertEqual({'VCPU': 1, 'MEMORY_MB': 512},
                         request['allocations'][self.cn1]['resources'])
        self.assertEqual({'': [self.cn1]}, request['mappings'])

    def test_usage_is_subtracted(self):
        self.allocate(uuidutils.generate_uuid(), {self.cn2: {'VCPU': 2}})
        body = self.candidates('resources=VCPU:1')
        self.assertEqual([[self.cn1]], self.providers_of(body))

    def test_max_unit_excludes(self):
        self.set_inventory(self.cn1, VCPU={'total': 8, 'max_unit': 1})
        body = self.candidates('resources=VCPU:2')
        self.assertEqual([[self.cn2]], self.providers_of(body))

    def test_nothing_fits_is_empty_not_an_error(self):
        body = self.candidates('resources=VCPU:100')
        self.assertEqual({'allocation_requests': [],
                          'provider_summaries': {}}, body)

    def test_summaries_show_capacity_used_and_traits(self):
        self.allocate(uuidutils.generate_uuid(), {self.cn1: {'VCPU': 3}})
        self.set_traits(self.cn1, 'HW_CPU_X86_AVX2')
        summary = self.candidates('resources=VCPU:1')[
            'provider_summaries'][self.cn1]
        self.assertEqual({'capacity': 8, 'used': 3},
                         summary['resources']['VCPU'])
        self.assertIn('DISK_GB', summary['resources'])
        self.assertEqual(['HW_CPU_X86_AVX2'], summary['traits'])
        self.assertEqual(self.cn1, summary['root_provider_uuid'])
        self.assertIsNone(summary['parent_provider_uuid'])

    def test_summaries_show_only_requested_classes_before_1_27(self):
        summary = self.candidates('resources=VCPU:1', version='1.26')[
            'provider_summaries'][self.cn1]
        self.assertEqual(['VCPU'], list(summary['resources']))

    def test_list_format_before_1_12(self):
        body = self.candidates('resources=VCPU:1', version='1.10')
        request = body['allocation_requests'][0]
        self.assertIsInstance(request['allocations'], list)
        self.assertIn('resource_provider', request['allocations'][0])

    def test_no_mappings_before_1_34(self):
        body = self.candidates('resources=VCPU:1', version='1.33')
        self.assertNotIn('mappings', body['allocation_requests'][0])

    def test_limit(self):
        body = self.candidates('resources=VCPU:1&limit=1')
        self.assertEqual(1, len(body['allocation_requests']))
        self.assertEqual(1, len(body['provider_summaries']))

    def test_required_and_forbidden_traits(self):
        self.set_traits(self.cn1, 'HW_CPU_X86_AVX2')
        self.assertEqual([[self.cn1]], self.providers_of(self.candidates(
            'resources=VCPU:1&required=HW_CPU_X86_AVX2')))
        self.assertEqual([[self.cn2]], self.providers_of(self.candidates(
            'resources=VCPU:1&required=!HW_CPU_X86_AVX2')))

    def test_any_of_traits_from_1_39(self):
        self.set_traits(self.cn1, 'HW_CPU_X86_AVX2')
        self.set_traits(self.cn2, 'HW_CPU_X86_SSE')
        self.assertEqual(sorted([[self.cn1], [self.cn2]]), sorted(
            self.providers_of(self.candidates(
                'resources=VCPU:1&required=in:HW_CPU_X86_AVX2,'
                'HW_CPU_X86_SSE', version='1.39'))))
        self.assertEqual([[self.cn2]], self.providers_of(self.candidates(
            'resources=VCPU:1&required=in:HW_CPU_X86_AVX2,HW_CPU_X86_SSE'
            '&required=!HW_CPU_X86_AVX2', version='1.39')))

    def test_any_of_traits_in_a_granular_group(self):
        self.set_traits(self.cn2, 'HW_CPU_X86_SSE')
        self.assertEqual([[self.cn2]], self.providers_of(self.candidates(
            'resources_A=VCPU:1&required_A=in:HW_CPU_X86_AVX2,'
            'HW_CPU_X86_SSE', version='1.39')))

    def test_repeated_required_before_1_39_the_last_counts(self):
        self.set_traits(self.cn1, 'HW_CPU_X86_AVX2')
        self.assertEqual([[self.cn1]], self.providers_of(self.candidates(
            'resources=VCPU:1&required=HW_CPU_X86_SSE'
            '&required=HW_CPU_X86_AVX2', version='1.38')))

    def test_member_of(self):
        agg = uuidutils.generate_uuid()
        self.set_aggregates(self.cn2, agg)
        self.assertEqual([[self.cn2]], self.providers_of(self.candidates(
            'resources=VCPU:1&member_of=%s' % agg)))
        self.assertEqual([[self.cn1]], self.providers_of(self.candidates(
            'resources=VCPU:1&member_of=!%s' % agg)))

    def test_root_required(self):
        self.set_traits(self.cn2, 'COMPUTE_STATUS_DISABLED')
        self.assertEqual([[self.cn1]], self.providers_of(self.candidates(
            'resources=VCPU:1&root_required=!COMPUTE_STATUS_DISABLED')))

    def test_in_tree(self):
        self.assertEqual([[self.cn2]], self.providers_of(self.candidates(
            'resources=VCPU:1&in_tree=%s' % self.cn2)))


class TestBadRequests(CandidatesTestCase):

    def test_before_1_10_is_404(self):
        self.assertError(self.get('/allocation_candidates?resources=VCPU:1',
                                  version='1.9'), 404)

    def test_no_resources_is_400(self):
        self.assertError(self.get('/allocation_candidates'), 400)

    def test_unknown_class_is_400(self):
        self.assertError(self.get('/allocation_candidates?resources=NOPE:1'),
                         400)

    def test_malformed_resources_is_400(self):
        self.assertError(self.get('/allocation_candidates?resources=VCPU'),
                         400, 'placement.query.bad_value')

    def test_zero_amount_is_400(self):
        self.assertError(self.get('/allocation_candidates?resources=VCPU:0'),
                         400)

    def test_unknown_trait_is_400(self):
        self.assertError(self.get('/allocation_candidates?resources=VCPU:1'
                                  '&required=CUSTOM_NOPE'), 400)

    def test_unknown_parameter_is_400(self):
        self.assertError(self.get('/allocation_candidates?resources=VCPU:1'
                                  '&colour=red'), 400)

    def test_two_numbered_groups_need_a_group_policy(self):
        self.assertError(self.get('/allocation_candidates?resources1=VCPU:1'
                                  '&resources2=VCPU:1'), 400)

    def test_bad_group_policy_is_400(self):
        self.assertError(self.get('/allocation_candidates?resources=VCPU:1'
                                  '&group_policy=all'), 400)

    def test_bad_limit_is_400(self):
        self.assertError(self.get('/allocation_candidates?resources=VCPU:1'
                                  '&limit=0'), 400)

    def test_required_without_resources_in_a_group_is_400_before_1_36(self):
        self.assertError(self.get(
            '/allocation_candidates?resources=VCPU:1&required1=CUSTOM_X',
            version='1.35'), 400)

    def test_string_suffix_before_1_33_is_400(self):
        self.assertError(self.get(
            '/allocation_candidates?resources_A=VCPU:1', version='1.32'),
            400)

    def test_unknown_same_subtree_suffix_is_400(self):
        self.assertError(self.get(
            '/allocation_candidates?resources_A=VCPU:1&same_subtree=_A,_B'),
            400)

    def test_in_tree_not_a_uuid_is_400(self):
        self.assertError(self.get(
            '/allocation_candidates?resources=VCPU:1&in_tree=x'), 400)


class TestSharing(CandidatesTestCase):

    def setUp(self):
        super().setUp()
        self.agg = uuidutils.generate_uuid()
        self.cn = self.make_provider('cn')['uuid']
        self.set_inventory(self.cn, VCPU=8, MEMORY_MB=4096)
        self.set_aggregates(self.cn, self.agg)
        self.storage = self.make_provider('storage')['uuid']
        self.set_inventory(self.storage, DISK_GB=1000)
        self.set_aggregates(self.storage, self.agg)
        self.set_traits(self.storage, 'MISC_SHARES_VIA_AGGREGATE')

    def test_disk_comes_from_the_sharing_provider(self):
        body = self.candidates('resources=VCPU:1,DISK_GB:10')
        self.assertEqual([sorted([self.cn, self.storage])],
                         self.providers_of(body))
        request = body['allocation_requests'][0]
        self.assertEqual({'DISK_GB': 10},
                         request['allocations'][self.storage]['resources'])
        self.assertEqual(sorted([self.cn, self.storage]),
                         sorted(request['mappings']['']))

    def test_not_shared_without_the_trait(self):
        self.set_traits(self.storage)
        self.assertEqual([], self.candidates(
            'resources=VCPU:1,DISK_GB:10')['allocation_requests'])

    def test_not_shared_outside_the_aggregate(self):
        self.set_aggregates(self.cn)
        self.assertEqual([], self.candidates(
            'resources=VCPU:1,DISK_GB:10')['allocation_requests'])

    def test_sharing_provider_alone_satisfies_a_disk_only_request(self):
        body = self.candidates('resources=DISK_GB:10')
        self.assertEqual([[self.storage]], self.providers_of(body))


class TestNested(CandidatesTestCase):
    """A compute node with two NIC children offering bandwidth."""

    def setUp(self):
        super().setUp()
        self.cn = self.compute_node('cn')
        self.nic1 = self.make_provider('nic1', parent=self.cn)['uuid']
        self.nic2 = self.make_provider('nic2', parent=self.cn)['uuid']
        for nic in (self.nic1, self.nic2):
            self.set_inventory(nic, NET_BW_EGR_KILOBIT_PER_SEC=1000)
        self.set_traits(self.nic1, 'CUSTOM_PHYSNET_A')
        self.set_traits(self.nic2, 'CUSTOM_PHYSNET_B')

    def test_unsuffixed_group_spreads_over_the_tree(self):
        body = self.candidates(
            'resources=VCPU:1,NET_BW_EGR_KILOBIT_PER_SEC:100')
        self.assertEqual(sorted([sorted([self.cn, self.nic1]),
                                 sorted([self.cn, self.nic2])]),
                         self.providers_of(body))

    def test_summaries_cover_the_whole_tree(self):
        body = self.candidates('resources=VCPU:1')
        self.assertEqual({self.cn, self.nic1, self.nic2},
                         set(body['provider_summaries']))
        self.assertEqual(self.cn, body['provider_summaries'][self.nic1][
            'parent_provider_uuid'])

    def test_granular_group_lands_on_the_child_with_the_trait(self):
        body = self.candidates(
            'resources=VCPU:1&resources1=NET_BW_EGR_KILOBIT_PER_SEC:100'
            '&required1=CUSTOM_PHYSNET_B')
        (request,) = body['allocation_requests']
        self.assertEqual({'': [self.cn], '1': [self.nic2]},
                         request['mappings'])
        self.assertEqual({'NET_BW_EGR_KILOBIT_PER_SEC': 100},
                         request['allocations'][self.nic2]['resources'])

    def test_string_suffixes_name_the_mappings(self):
        body = self.candidates(
            'resources_PORT1=NET_BW_EGR_KILOBIT_PER_SEC:100'
            '&required_PORT1=CUSTOM_PHYSNET_A&resources=VCPU:1')
        (request,) = body['allocation_requests']
        self.assertEqual([self.nic1], request['mappings']['_PORT1'])

    def test_isolate_puts_groups_on_different_providers(self):
        query = ('resources1=NET_BW_EGR_KILOBIT_PER_SEC:100'
                 '&resources2=NET_BW_EGR_KILOBIT_PER_SEC:100')
        isolated = self.candidates(query + '&group_policy=isolate')
        self.assertEqual([sorted([self.nic1, self.nic2])] * 2,
                         self.providers_of(isolated))
        shared = self.candidates(query + '&group_policy=none')
        self.assertEqual(4, len(shared['allocation_requests']))

    def test_merged_groups_must_fit_together(self):
        body = self.candidates(
            'resources1=NET_BW_EGR_KILOBIT_PER_SEC:600'
            '&resources2=NET_BW_EGR_KILOBIT_PER_SEC:600&group_policy=none')
        self.assertEqual([sorted([self.nic1, self.nic2])] * 2,
                         self.providers_of(body))

    def test_granular_group_on_a_child_that_is_full_gives_nothing(self):
        self.allocate(uuidutils.generate_uuid(),
                      {self.nic2: {'NET_BW_EGR_KILOBIT_PER_SEC': 1000}})
        body = self.candidates(
            'resources=VCPU:1&resources1=NET_BW_EGR_KILOBIT_PER_SEC:100'
            '&required1=CUSTOM_PHYSNET_B')
        self.assertEqual([], body['allocation_requests'])

    def test_same_subtree(self):
        pf = self.make_provider('pf', parent=self.nic1)['uuid']
        self.set_inventory(pf, NET_PACKET_RATE_KILOPACKET_PER_SEC=100)
        query = ('resources_BW=NET_BW_EGR_KILOBIT_PER_SEC:10'
                 '&resources_PPS=NET_PACKET_RATE_KILOPACKET_PER_SEC:1'
                 '&group_policy=none')
        loose = self.candidates(query)
        self.assertEqual(2, len(loose['allocation_requests']))
        tight = self.candidates(query + '&same_subtree=_BW,_PPS')
        (request,) = tight['allocation_requests']
        self.assertEqual([self.nic1], request['mappings']['_BW'])

    def test_resourceless_group_with_same_subtree(self):
        query = ('resources_BW=NET_BW_EGR_KILOBIT_PER_SEC:10'
                 '&required_NIC=CUSTOM_PHYSNET_B&same_subtree=_BW,_NIC'
                 '&group_policy=none')
        (request,) = self.candidates(query)['allocation_requests']
        self.assertEqual([self.nic2], request['mappings']['_BW'])
        self.assertEqual([self.nic2], request['mappings']['_NIC'])


class TestQueryKeys(CandidatesTestCase):

    def test_repeated_resources_the_last_counts(self):
        # As OpenStack Placement (it reads the query as a dict).
        self.compute_node('cn1', vcpus=1)
        self.assertEqual([], self.candidates(
            'resources=VCPU:1&resources=VCPU:2')['allocation_requests'])

    def test_repeated_root_required_is_400_duplicate_key(self):
        self.assertError(self.get(
            '/allocation_candidates?resources=VCPU:1&root_required=A'
            '&root_required=B'), 400, 'placement.query.duplicate_key')

    def test_query_keys_are_checked_as_a_schema(self):
        self.assertError(self.get(
            '/allocation_candidates?resources01=VCPU:1', version='1.25'),
            400, fragment="'resources01' does not match any of the regexes")
        self.assertError(self.get(
            '/allocation_candidates?resources=VCPU:1&limit=1',
            version='1.15'), 400, fragment="'limit' was unexpected")
        self.assertError(self.get(
            '/allocation_candidates?resources=VCPU:1&group_policy=bogus'),
            400, fragment="'bogus' is not one of ['none', 'isolate']")

    def test_an_unknown_in_tree_provider_is_no_candidates(self):
        self.compute_node('cn1')
        self.assertEqual([], self.candidates(
            'resources=VCPU:1&in_tree=%s' % uuidutils.generate_uuid())[
                'allocation_requests'])

    def test_repeated_member_of_means_all_of_them(self):
        cn1 = self.compute_node('cn1')
        self.compute_node('cn2')
        agg1, agg2 = uuidutils.generate_uuid(), uuidutils.generate_uuid()
        self.set_aggregates(cn1, agg1, agg2)
        body = self.candidates('resources=VCPU:1&member_of=%s&member_of=%s'
                               % (agg1, agg2))
        self.assertEqual([[cn1]], self.providers_of(body))

    def test_repeated_member_of_before_1_24_is_400(self):
        agg = uuidutils.generate_uuid()
        self.assertError(self.get(
            '/allocation_candidates?resources=VCPU:1&member_of=%s'
            '&member_of=%s' % (agg, agg), version='1.23'), 400)


class TestLimitAfterNarrowing(CandidatesTestCase):
    """The limit applies to what the query asks for: aggregates, root
    traits and required traits narrow before the first N are taken (what
    the scheduler's request pre-filters rely on)."""

    def setUp(self):
        super().setUp()
        self.first = [self.compute_node('first%d' % i) for i in range(4)]
        self.last = self.compute_node('last')
        self.agg = uuidutils.generate_uuid()
        self.set_aggregates(self.last, self.agg)

    def test_member_of_finds_a_provider_after_the_limit(self):
        self.assertNotIn([self.last], self.providers_of(self.candidates(
            'resources=VCPU:1&limit=2')))
        self.assertEqual([[self.last]], self.providers_of(self.candidates(
            'resources=VCPU:1&limit=2&member_of=in:%s' % self.agg)))

    def test_forbidden_root_trait_skips_the_first_providers(self):
        for provider in self.first:
            self.set_traits(provider, 'COMPUTE_STATUS_DISABLED')
        self.assertEqual([[self.last]], self.providers_of(self.candidates(
            'resources=VCPU:1&limit=2'
            '&root_required=!COMPUTE_STATUS_DISABLED')))

    def test_nested_world_narrows_before_the_limit_too(self):
        nic = self.make_provider('nic', parent=self.first[0])['uuid']
        self.set_inventory(nic, NET_BW_EGR_KILOBIT_PER_SEC=1000)
        self.assertEqual([[self.last]], self.providers_of(self.candidates(
            'resources=VCPU:1&limit=1&member_of=in:%s' % self.agg)))


class TestRandomize(CandidatesTestCase):
    """[placement] randomize_allocation_candidates: with a limit, a
    random sample of the candidates instead of the first ones."""

    def setUp(self):
        super().setUp()
        self.config = self.useFixture(config_fixture.Config(nova_conf.CONF))
        self.providers = [self.compute_node('cn%02d' % i)
                          for i in range(12)]

    def answered(self, query, times=20):
        return {rp for _ in range(times)
                for providers in self.providers_of(self.candidates(query))
                for rp in providers}

    def test_off_the_first_providers_every_time(self):
        self.assertEqual(set(self.providers[:3]),
                         self.answered('resources=VCPU:1&limit=3'))

    def test_on_a_sample_of_every_provider_that_fits(self):
        self.config.config(randomize_allocation_candidates=True,
                           group='placement')
        # 20 draws of 3 out of 12 all being the same 3: about 1 in 10^46.
        answered = self.answered('resources=VCPU:1&limit=3')
        self.assertGreater(len(answered), 3)
        self.assertLessEqual(answered, set(self.providers))

    def test_on_each_answer_still_has_the_limit(self):
        self.config.config(randomize_allocation_candidates=True,
                           group='placement')
        body = self.candidates('resources=VCPU:1&limit=3')
        self.assertEqual(3, len(body['allocation_requests']))
        self.assertEqual(3, len(body['provider_summaries']))

    def test_on_samples_trees_in_a_nested_world_too(self):
        self.config.config(randomize_allocation_candidates=True,
                           group='placement')
        nic = self.make_provider('nic', parent=self.providers[0])['uuid']
        self.set_inventory(nic, NET_BW_EGR_KILOBIT_PER_SEC=1000)
        answered = self.answered('resources=VCPU:1&limit=3')
        self.assertGreater(len(answered - {nic}), 3)

    def test_on_without_a_limit_answers_every_candidate(self):
        self.config.config(randomize_allocation_candidates=True,
                           group='placement')
        self.assertEqual(sorted([rp] for rp in self.providers),
                         self.providers_of(self.candidates(
                             'resources=VCPU:1')))


class TestCandidateCap(CandidatesTestCase):
    """[placement] max_allocation_candidates bounds the product of a
    request's groups over wide trees; the generation strategy says from
    which trees the capped candidates come."""

    def setUp(self):
        super().setUp()
        self.config = self.useFixture(config_fixture.Config(nova_conf.CONF))
        # Two trees of four GPUs each: two one-GPU groups meet in 4 x 4
        # ways per tree.
        self.trees = []
        for name in ('cn1', 'cn2'):
            root = self.compute_node(name)
            gpus = []
            for index in range(4):
                gpu = self.make_provider('%s-gpu%d' % (name, index),
                                         parent=root)['uuid']
                self.set_inventory(gpu, VGPU=1)
                gpus.append(gpu)
            self.trees.append((root, gpus))
        self.query = ('resources_A=VGPU:1&resources_B=VGPU:1'
                      '&group_policy=none')

    def roots_of(self, body):
        return [self.trees[0][0] if set(r['allocations']) <= set(
            self.trees[0][1]) else self.trees[1][0]
            for r in body['allocation_requests']]

    def test_uncapped_every_combination_is_a_candidate(self):
        self.config.config(max_allocation_candidates=-1, group='placement')
        # Per tree 4 x 4 pairs of GPUs, each taking one VGPU: the 4 where
        # both groups pick the same GPU need 2 of its 1 and are dropped.
        self.assertEqual(24, len(self.candidates(self.query)[
            'allocation_requests']))

    def test_the_cap_bounds_a_request_without_a_limit(self):
        self.config.config(max_allocation_candidates=5, group='placement')
        body = self.candidates(self.query)
        self.assertEqual(5, len(body['allocation_requests']))

    def test_a_limit_below_the_cap_still_applies(self):
        self.config.config(max_allocation_candidates=5, group='placement')
        body = self.candidates(self.query + '&limit=2')
        self.assertEqual(2, len(body['allocation_requests']))

    def test_depth_first_fills_the_cap_from_the_first_tree(self):
        self.config.config(max_allocation_candidates=6, group='placement')
        roots = self.roots_of(self.candidates(self.query))
        self.assertEqual([self.trees[0][0]] * 6, roots)

    def test_breadth_first_takes_each_tree_in_turn(self):
        self.config.config(
            max_allocation_candidates=6, group='placement',
            allocation_candidates_generation_strategy='breadth-first')
        roots = self.roots_of(self.candidates(self.query))
        self.assertEqual(3, roots.count(self.trees[0][0]))
        self.assertEqual(3, roots.count(self.trees[1][0]))


class TestCandidateCapFlat(CandidatesTestCase):

    def test_the_cap_bounds_a_flat_world_too(self):
        config = self.useFixture(config_fixture.Config(nova_conf.CONF))
        config.config(max_allocation_candidates=2, group='placement')
        for index in range(4):
            self.compute_node('cn%d' % index)
        body = self.candidates('resources=VCPU:1')
        self.assertEqual(2, len(body['allocation_requests']))


class TestRootsOnlyInANestedWorld(CandidatesTestCase):
    """Where only roots hold what is asked for (a flavor's classes, the
    children holding bandwidth), every candidate is one root and the
    search is the flat world's, plus the rest of each tree for the
    summaries: the answer is the one the general search gives."""

    def setUp(self):
        super().setUp()
        self.roots = []
        for index in range(6):
            root = self.compute_node('cn%d' % index, vcpus=2 + index,
                                     memory_mb=1024 * (index + 1))
            nic = self.make_provider('nic%d' % index, parent=root)['uuid']
            self.set_inventory(nic, NET_BW_EGR_KILOBIT_PER_SEC=1000 + index)
            self.set_traits(nic, 'CUSTOM_PHYSNET_%d' % (index % 2))
            self.roots.append(root)
        # A grandchild, and a child with no inventory.
        nic0 = self.get('/resource_providers?in_tree=%s' % self.roots[0]
                        ).json['resource_providers']
        nic0 = [p['uuid'] for p in nic0 if p['uuid'] != self.roots[0]][0]
        self.pf = self.make_provider('pf0', parent=nic0)['uuid']
        self.set_inventory(self.pf, NET_PACKET_RATE_KILOPACKET_PER_SEC=10)
        self.make_provider('empty1', parent=self.roots[1])
        self.allocate(uuidutils.generate_uuid(), {
            self.roots[2]: {'VCPU': 3, 'MEMORY_MB': 1024},
            nic0: {'NET_BW_EGR_KILOBIT_PER_SEC': 10}})
        self.set_traits(self.roots[3], 'HW_CPU_X86_AVX2')
        self.set_traits(self.roots[4], 'COMPUTE_STATUS_DISABLED',
                        'HW_CPU_X86_AVX2')
        self.agg = uuidutils.generate_uuid()
        for root in self.roots[3:]:
            self.set_aggregates(root, self.agg)

    def general(self, query, version):
        """The answer of the general (tree by tree) search."""
        real = candidates._world

        def below_roots(connection, class_ids):
            return real(connection, class_ids)[:2] + (True,)

        with mock.patch.object(candidates, '_world', below_roots):
            return self.candidates(query, version=version)

    def test_the_same_answer_as_the_general_search(self):
        queries = [
            'resources=VCPU:1,MEMORY_MB:512',
            'resources=VCPU:4',
            'resources=VCPU:1&limit=2',
            'resources=VCPU:1&required=HW_CPU_X86_AVX2',
            'resources=VCPU:1&required=!HW_CPU_X86_AVX2',
            'resources=VCPU:1&root_required=!COMPUTE_STATUS_DISABLED',
            'resources=VCPU:1&member_of=%s' % self.agg,
            'resources=VCPU:1&in_tree=%s' % self.pf,
            'resources=DISK_GB:10,MEMORY_MB:6144',
            'resources=VCPU:100',
        ]
        fast = mock.patch.object(candidates, '_find_single_providers',
                                 wraps=candidates._find_single_providers)
        # (Each query parameter from the version that has it.)
        since = {'root_required': (1, 35), 'in_tree': (1, 31),
                 'required=!': (1, 22), 'member_of': (1, 21),
                 'required': (1, 17),
                 'limit': (1, 16)}
        for version in ('1.36', '1.29', '1.28', '1.17', '1.12'):
            for query in queries:
                if any(name in query and base._as_tuple(version) < first
                       for name, first in since.items()):
                    continue
                with fast as found:
                    answer = self.candidates(query, version=version)
                self.assertTrue(found.called, query)
                self.assertEqual(self.general(query, version), answer,
                                 '%s at %s' % (query, version))

    def test_summaries_cover_every_tree_of_the_candidates(self):
        body = self.candidates('resources=VCPU:1&in_tree=%s' % self.pf)
        self.assertEqual(3, len(body['provider_summaries']))
        self.assertEqual({'NET_PACKET_RATE_KILOPACKET_PER_SEC': {
            'capacity': 10, 'used': 0}},
            body['provider_summaries'][self.pf]['resources'])

    def test_a_child_with_a_class_asked_for_takes_the_general_search(self):
        nic = self.make_provider('vcpus', parent=self.roots[5])['uuid']
        self.set_inventory(nic, VCPU=64)
        with mock.patch.object(candidates, '_find_single_providers') as fast:
            body = self.candidates('resources=VCPU:32')
        fast.assert_not_called()
        self.assertEqual([[nic]], self.providers_of(body))
