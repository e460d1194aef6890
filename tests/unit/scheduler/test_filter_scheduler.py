"""The FilterScheduler behind select_destinations: host states from its
host manager, candidates and claims from placement (the real application,
in this process, on a loopback port, with a provider per host state), the
pipeline in between."""

import fixtures
from oslo_utils import uuidutils
import testtools

from nova_lite import conf as nova_conf
from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import instance_group as group_obj
from nova_lite import placement_client
from nova_lite.scheduler import filter_scheduler
from nova_lite.scheduler import host_manager
from tests.unit import fixtures as nova_fixtures
from tests.unit.scheduler import fakes
from tests.unit.scheduler.fakes import CELL1
from tests.unit.scheduler.fakes import hosts_of
from tests.unit.scheduler.fakes import make_host

CONF = nova_conf.CONF


def make_spec(**kwargs):
    kwargs.setdefault('project_id', 'demo')
    kwargs.setdefault('user_id', 'demo')
    return fakes.make_spec(**kwargs)


class FakeHostManager:
    """The host manager's answers from fixed host states."""

    def __init__(self, states, unread=()):
        self.states = states
        self.unread = list(unread)  # what a cell left unread
        self.reads = []  # the uuids asked for (None: every host)

    def get_host_states(self, context, with_instances=True, uuids=None):
        self.reads.append(uuids)
        return [s for s in self.states if uuids is None or s.uuid in uuids]

    def hosts_of(self, instance_uuids):
        return {s.host for s in self.states
                if s.instances & set(instance_uuids)}

    def node_uuids(self, context, host, nodename=None):
        return [s.uuid for s in self.states if s.host == host and
                (nodename is None or s.nodename == nodename)]


class FakeRandom:

    def __init__(self):
        self.offered = []

    def choice(self, choices):
        self.offered.append(hosts_of(s for _w, s in choices))
        return choices[-1]


class RacingReportClient(placement_client.PlacementClient):
    """Placement as this scheduler sees it, while another scheduler takes
    room on hosts right after this one has read the candidates."""

    def __init__(self, after_candidates):
        super().__init__()
        self.after_candidates = after_candidates

    def get_allocation_candidates(self, resources, limit=None, groups=(),
                                  in_tree=None, **narrowing):
        answer = super().get_allocation_candidates(resources, limit, groups,
                                                   in_tree, **narrowing)
        self.after_candidates()
        return answer


class CountingReportClient(RacingReportClient):
    """Placement, with the claims asked of it, in order."""

    def __init__(self, after_candidates=lambda: None):
        super().__init__(after_candidates)
        self.claims = []

    def claim_all(self, requests, project_id, user_id):
        self.claims.append(('together', len(requests)))
        return super().claim_all(requests, project_id, user_id)

    def claim_resources(self, consumer_uuid, allocation_request, project_id,
                        user_id):
        self.claims.append(('alone', consumer_uuid))
        return super().claim_resources(consumer_uuid, allocation_request,
                                       project_id, user_id)


class FilterSchedulerTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.config = self.useFixture(nova_fixtures.Config())
        self.config.config(group='filter_scheduler',
                           enabled_filters=fakes.PIPELINE_FILTERS)
        self.useFixture(nova_fixtures.Databases())
        self.placement = self.useFixture(nova_fixtures.PlacementServer())
        self.reportclient = placement_client.PlacementClient()

    def select(self, states, spec=None, num=1, reportclient=None,
               unread=(), **kwargs):
        self.placement.add_host_states(
            [s for s in states if self.reportclient.get_provider(s.uuid)
             is None])
        scheduler = filter_scheduler.FilterScheduler(
            FakeHostManager(states, unread), reportclient)
        self.uuids = [uuidutils.generate_uuid() for _ in range(num)]
        return scheduler.select_destinations(None, spec or make_spec(),
                                             self.uuids, **kwargs)

    def held_by(self, consumer):
        return list(self.reportclient.get_allocations(consumer)
                    ['allocations'])

    def take(self, state, memory_mb):
        """Another consumer takes ``memory_mb`` on ``state``'s provider."""
        self.assertTrue(self.reportclient.claim_resources(
            uuidutils.generate_uuid(), {'allocations': {state.uuid: {
                'resources': {'MEMORY_MB': memory_mb}}}}, 'other', 'other'))


class TestSelections(FilterSchedulerTestCase):

    def test_selection_names_the_host_and_the_filters_limits(self):
        state = make_host('h1', nodename='node1', ram_mb=4096, vcpus=4,
                          disk_gb=10, ram_allocation_ratio=1.5,
                          cpu_allocation_ratio=2.0)
        [[selection]] = self.select([state])
        self.assertIsInstance(selection, objects.Selection)
        self.assertEqual(
            (state.uuid, 'h1', 'node1', CELL1, 6144, 8, 10),
            (selection.compute_node_uuid, selection.service_host,
             selection.nodename, selection.cell_uuid,
             selection.limits.memory_mb, selection.limits.vcpu,
             selection.limits.disk_gb))

    def test_one_list_of_selections_per_instance(self):
        lists = self.select([make_host('h1'), make_host('h2')], num=3)
        self.assertEqual(3, len(lists))

    def test_alternates_are_capped_at_max_attempts_minus_one(self):
        self.config.config(max_attempts=3, group='scheduler')
        hosts = [make_host('h%d' % i) for i in range(5)]
        [selections] = self.select(hosts)
        self.assertEqual(3, len(selections))

    def test_no_alternates_unless_asked_for(self):
        hosts = [make_host('h%d' % i) for i in range(5)]
        [selections] = self.select(hosts, return_alternates=False)
        self.assertEqual(1, len(selections))

    def test_host_subset_size_is_offered_to_the_random_choice(self):
        self.config.config(host_subset_size=2, group='filter_scheduler')
        fake_random = FakeRandom()
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.scheduler.filter_scheduler.random', fake_random))
        hosts = [make_host('h%d' % ram, free_ram_mb=ram)
                 for ram in (1024, 2048, 4096)]
        [[selection, *_alternates]] = self.select(hosts)
        self.assertEqual([['h4096', 'h2048']], fake_random.offered)
        self.assertEqual('h2048', selection.service_host)

    def test_group_hosts_come_from_where_the_members_run(self):
        group = fakes.make_group(group_obj.AFFINITY)
        group.members, group.hosts = ['m1'], ['stale']
        hosts = [make_host('h1'), make_host('h2', instances=['m1'],
                                            free_ram_mb=1024)]
        [[selection, *_alternates]] = self.select(
            hosts, make_spec(group=group))
        self.assertEqual('h2', selection.service_host)

    def test_a_host_the_members_left_is_no_longer_a_group_host(self):
        group = fakes.make_group(group_obj.ANTI_AFFINITY)
        group.members, group.hosts = ['m1'], ['h1']
        [[selection, *_alternates]] = self.select(
            [make_host('h1'), make_host('h2', free_ram_mb=1024)],
            make_spec(group=group))
        self.assertEqual('h1', selection.service_host)

    def test_an_unknown_filter_stops_the_scheduler_at_start(self):
        self.config.config(enabled_filters=['NoSuchFilter'],
                           group='filter_scheduler')
        self.assertRaises(exception.ConfigurationError,
                          filter_scheduler.FilterScheduler,
                          FakeHostManager([]))

    def test_an_unknown_weigher_stops_the_scheduler_at_start(self):
        self.config.config(weight_classes=['NoSuchWeigher'],
                           group='filter_scheduler')
        self.assertRaises(exception.ConfigurationError,
                          filter_scheduler.FilterScheduler,
                          FakeHostManager([]))


class TestCandidateLimit(testtools.TestCase):
    """How many candidates placement is asked for."""

    def setUp(self):
        super().setUp()
        self.useFixture(nova_fixtures.Config()).config(
            max_placement_results=7, group='scheduler')

    def test_the_limit_by_default(self):
        self.assertEqual(7, filter_scheduler._candidate_limit(make_spec(),
                                                              None))

    def test_no_limit_for_a_group_or_host_hints(self):
        group = fakes.make_group('anti-affinity')
        for spec in (make_spec(group=group),
                     make_spec(hints={'same_host': ['x']}),
                     make_spec(hints={'different_host': ['x']}),
                     make_spec(hints={'group': ['g']})):
            self.assertIsNone(filter_scheduler._candidate_limit(spec, None))

    def test_a_named_host_of_one_node_keeps_the_limit_on_its_tree(self):
        spec = make_spec(force_hosts=['h1'])
        self.assertEqual(7, filter_scheduler._candidate_limit(spec, 'rp'))

    def test_a_named_host_of_several_nodes_lifts_the_limit(self):
        spec = make_spec(requested_destination=objects.Destination(
            host='h1', node=None))
        self.assertIsNone(filter_scheduler._candidate_limit(spec, None))


class TestPlacement(FilterSchedulerTestCase):

    def test_the_chosen_host_is_claimed_for_each_instance(self):
        hosts = [make_host('h1'), make_host('h2', free_ram_mb=1024)]
        lists = self.select(hosts, num=2)
        for uuid, (chosen, *_alternates) in zip(self.uuids, lists):
            self.assertEqual([chosen.compute_node_uuid],
                             self.held_by(uuid))
            self.assertEqual(
                {'VCPU': 1, 'MEMORY_MB': 512, 'DISK_GB': 1},
                chosen.allocation['allocations'][
                    chosen.compute_node_uuid]['resources'])

    def test_alternates_carry_a_candidate_but_hold_nothing(self):
        hosts = [make_host('h1'), make_host('h2', free_ram_mb=1024)]
        [[chosen, alternate]] = self.select(hosts)
        self.assertEqual([alternate.compute_node_uuid],
                         list(alternate.allocation['allocations']))
        self.assertEqual([chosen.compute_node_uuid],
                         self.held_by(self.uuids[0]))

    def test_a_host_placement_has_no_room_on_is_not_considered(self):
        # The host state still believes h1 is empty; placement knows
        # better.
        hosts = [make_host('h1'), make_host('h2', free_ram_mb=1024)]
        self.placement.add_host_states(hosts)
        self.take(hosts[0], 4000)
        [[chosen]] = self.select(hosts, return_alternates=False)
        self.assertEqual('h2', chosen.service_host)

    def test_no_room_anywhere_says_so_per_host(self):
        hosts = [make_host('h1'), make_host('small', free_ram_mb=256)]
        self.placement.add_host_states(hosts)
        self.take(hosts[0], 4000)
        error = self.assertRaises(exception.NoValidHost, self.select, hosts)
        self.assertIn('0/2 hosts available: 1 not enough free resources in '
                      'placement, 1 insufficient RAM', str(error))

    def test_a_host_filled_by_another_scheduler_meanwhile_is_skipped(self):
        hosts = [make_host('best'), make_host('next', free_ram_mb=2048)]
        self.placement.add_host_states(hosts)
        racing = RacingReportClient(lambda: self.take(hosts[0], 4000))
        [[chosen, *alternates]] = self.select(hosts, reportclient=racing)
        # (As in Nova, the host filled meanwhile stays an alternate: a
        # reschedule's claim on it would be refused in turn.)
        self.assertEqual(('next', ['best']),
                         (chosen.service_host,
                          [s.service_host for s in alternates]))
        self.assertEqual([hosts[1].uuid], self.held_by(self.uuids[0]))

    def test_every_host_taken_meanwhile_is_a_no_valid_host(self):
        hosts = [make_host('only')]
        self.placement.add_host_states(hosts)
        racing = RacingReportClient(lambda: self.take(hosts[0], 4000))
        error = self.assertRaises(exception.NoValidHost, self.select,
                                  hosts, reportclient=racing)
        self.assertIn('0/1 hosts available: 1 taken by a concurrent request',
                      str(error))
        self.assertEqual([], self.held_by(self.uuids[0]))

    def test_a_multi_create_that_fails_gives_back_what_it_claimed(self):
        # Room for one instance in placement (the host state would take
        # more), affinity keeps the second on the same host.
        group = fakes.make_group(group_obj.AFFINITY)
        hosts = [make_host('h1', ram_mb=4096)]
        self.placement.add_host_states(hosts)
        self.take(hosts[0], 3500)
        scheduler = filter_scheduler.FilterScheduler(
            FakeHostManager(hosts))
        uuids = [uuidutils.generate_uuid() for _ in range(2)]
        self.assertRaises(exception.NoValidHost,
                          scheduler.select_destinations, None,
                          make_spec(group=group), uuids)
        self.assertEqual([[], []], [self.held_by(u) for u in uuids])

    def test_a_multi_create_claims_its_instances_in_one_request(self):
        hosts = [make_host('h1'), make_host('h2')]
        client = CountingReportClient()
        lists = self.select(hosts, num=3, reportclient=client)
        self.assertEqual([('together', 3)], client.claims)
        for uuid, [chosen, *_alternates] in zip(self.uuids, lists):
            self.assertEqual([chosen.compute_node_uuid], self.held_by(uuid))
        self.assertEqual([2, 1], sorted(
            (len(s.placed) for s in hosts), reverse=True))

    def test_claims_refused_together_are_placed_and_claimed_alone(self):
        # Another scheduler fills h2 right after the candidates are read:
        # the instances placed on h1 and h2 cannot be claimed together.
        hosts = [make_host('h1'), make_host('h2')]
        self.placement.add_host_states(hosts)
        client = CountingReportClient(lambda: self.take(hosts[1], 4096))
        lists = self.select(hosts, num=2, reportclient=client)
        self.assertEqual(('together', 2), client.claims[0])
        self.assertEqual({'alone'}, {how for how, _ in client.claims[1:]})
        self.assertEqual(set(self.uuids),
                         {uuid for _, uuid in client.claims[1:]})
        self.assertEqual(['h1', 'h1'],
                         [chosen.service_host for chosen, *_ in lists])
        for uuid in self.uuids:
            self.assertEqual([hosts[0].uuid], self.held_by(uuid))
        # What the first placing took from h2 was given back.
        self.assertEqual(
            [(set(self.uuids), 2, 4096 - 1024), (set(), 0, 4096)],
            [(s.placed, s.num_instances, s.free_ram_mb) for s in hosts])

    def test_only_the_offered_hosts_are_read(self):
        hosts = [make_host('h1'), make_host('full')]
        self.placement.add_host_states(hosts)
        self.take(hosts[1], 4000)
        manager = FakeHostManager(hosts)
        filter_scheduler.FilterScheduler(manager).select_destinations(
            None, make_spec(), [uuidutils.generate_uuid()])
        self.assertEqual([{hosts[0].uuid}], manager.reads)

    def test_affinity_to_a_full_host_is_no_valid_host(self):
        # The member's host is not offered (full); another host with room
        # must not be taken instead.
        group = fakes.make_group(group_obj.AFFINITY)
        hosts = [make_host('h1', instances=['m1']), make_host('h2')]
        group.members = ['m1']
        self.placement.add_host_states(hosts)
        self.take(hosts[0], 4000)
        error = self.assertRaises(exception.NoValidHost, self.select,
                                  hosts, make_spec(group=group))
        self.assertIn('0/2 hosts available: 1 not enough free resources in '
                      'placement, 1 affinity', str(error))

    def test_candidates_are_capped_by_max_placement_results(self):
        self.config.config(max_placement_results=1, group='scheduler')
        hosts = [make_host('h%d' % i) for i in range(3)]
        [selections] = self.select(hosts)
        self.assertEqual(1, len(selections))

    def test_placement_unreachable_is_a_no_valid_host_that_says_so(self):
        self.config.config(endpoint_override='http://127.0.0.1:9', timeout=2,
                           group='placement')
        scheduler = filter_scheduler.FilterScheduler(
            FakeHostManager([make_host('h1')]))
        # PlacementUnreachable: a NoValidHost the conductor asks again.
        error = self.assertRaises(
            exception.PlacementUnreachable, scheduler.select_destinations,
            None, make_spec(), [uuidutils.generate_uuid()])
        self.assertIn('placement could not be asked', str(error))


class TestMoveToANamedHost(FilterSchedulerTestCase):
    """Placement is asked about the named host's tree alone; a requested
    destination then goes through the filters, a forced host does not --
    and neither is given room placement does not have."""

    def move_to(self, host, **kwargs):
        return make_spec(requested_destination=objects.Destination(
            host=host), **kwargs)

    def test_a_requested_host_past_max_placement_results_is_found(self):
        self.config.config(max_placement_results=1, group='scheduler')
        hosts = [make_host('h%d' % i) for i in range(4)]
        for named in ('h0', 'h3'):
            [[chosen]] = self.select(hosts, self.move_to(named),
                                     return_alternates=False)
            self.assertEqual(named, chosen.service_host)

    def test_a_requested_host_placement_has_no_room_on_says_so(self):
        hosts = [make_host('named'), make_host('free')]
        self.placement.add_host_states(hosts)
        self.take(hosts[0], 4000)
        error = self.assertRaises(exception.NoValidHost, self.select, hosts,
                                  self.move_to('named'))
        self.assertIn('0/2 hosts available: 1 not enough free resources in '
                      'placement, 1 not the requested host', str(error))

    def test_a_requested_host_the_filters_refuse_is_not_claimed(self):
        group = fakes.make_group(group_obj.ANTI_AFFINITY)
        hosts = [make_host('named', instances=['m1']), make_host('free')]
        group.members = ['m1']
        error = self.assertRaises(exception.NoValidHost, self.select, hosts,
                                  self.move_to('named', group=group))
        self.assertIn('0/2 hosts available: 1 not the requested host, '
                      '1 anti-affinity policy', str(error))
        self.assertEqual([], self.held_by(self.uuids[0]))

    def test_a_forced_host_skips_the_filters_and_is_claimed(self):
        group = fakes.make_group(group_obj.ANTI_AFFINITY)
        hosts = [make_host('named', instances=['m1']), make_host('free')]
        group.members = ['m1']
        [[chosen]] = self.select(hosts, make_spec(
            force_hosts=['named'], group=group), return_alternates=False)
        self.assertEqual([hosts[0].uuid], self.held_by(self.uuids[0]))

    def test_a_forced_host_placement_has_no_room_on_is_not_overcommitted(
            self):
        hosts = [make_host('named'), make_host('free')]
        self.placement.add_host_states(hosts)
        self.take(hosts[0], 4000)
        error = self.assertRaises(exception.NoValidHost, self.select, hosts,
                                  make_spec(force_hosts=['named']))
        self.assertIn('0/2 hosts available: 1 not enough free resources in '
                      'placement, 1 not the forced host', str(error))


class TestPreFilters(FilterSchedulerTestCase):
    """The request pre-filters narrow placement's query before
    max_placement_results: member_of a zone's aggregates, never a
    provider with COMPUTE_STATUS_DISABLED."""

    def setUp(self):
        super().setUp()
        self.context = nova_context.get_admin_context()

    def zone(self, name, states):
        """A host aggregate making zone ``name`` of ``states``' hosts, in
        the API database and mirrored into placement."""
        aggregate = objects.Aggregate(
            self.context, name=name, hosts=[s.host for s in states],
            metadata={'availability_zone': name})
        aggregate.create()
        for state in states:
            state.aggregates = [host_manager.Aggregate(
                name, aggregate.metadata, [state.host], aggregate.uuid)]
            self.reportclient.update_provider_aggregates(
                state.uuid, add=[aggregate.uuid])
        return aggregate

    def set_traits(self, state, *traits):
        generation = self.reportclient.get_provider(state.uuid)['generation']
        response = self.reportclient._request(
            'PUT', '/resource_providers/%s/traits' % state.uuid,
            {'traits': list(traits),
             'resource_provider_generation': generation}, version='1.6')
        self.assertEqual(200, response.status_code, response.text)

    def test_a_zone_past_max_placement_results_gets_its_servers(self):
        self.config.config(max_placement_results=2, group='scheduler')
        hosts = [make_host('h%d' % i) for i in range(4)] + [
            make_host('z1')]
        self.placement.add_host_states(hosts)  # z1's provider comes last
        self.zone('az1', hosts[-1:])
        spec = make_spec(availability_zone='az1')
        scheduler = filter_scheduler.FilterScheduler(
            FakeHostManager(hosts), self.reportclient)
        # Unnarrowed, placement's first two providers leave z1 out...
        self.assertNotIn(hosts[-1].uuid,
                         scheduler._allocation_candidates(spec))
        # ... narrowed by the zone, it is the one candidate.
        [[chosen]] = self.select(hosts, spec, return_alternates=False)
        self.assertEqual('z1', chosen.service_host)

    def test_a_provider_with_compute_status_disabled_is_not_offered(self):
        # Its service looks enabled to the filters: only the trait keeps
        # servers off it.
        hosts = [make_host('h1'), make_host('h2')]
        self.placement.add_host_states(hosts)
        self.set_traits(hosts[0], 'COMPUTE_STATUS_DISABLED')
        lists = self.select(hosts, num=3)
        self.assertEqual({'h2'}, {s[0].service_host for s in lists})
        self.assertEqual({hosts[1].uuid},
                         {rp for uuid in self.uuids
                          for rp in self.held_by(uuid)})

    def test_only_disabled_providers_is_no_valid_host_that_says_why(self):
        hosts = [make_host('h1')]
        self.placement.add_host_states(hosts)
        self.set_traits(hosts[0], 'COMPUTE_STATUS_DISABLED')
        error = self.assertRaises(exception.NoValidHost, self.select, hosts)
        self.assertIn('0/1 hosts available: 1 not enough free resources',
                      str(error))

    def test_a_host_outside_the_zone_says_so_in_the_explanation(self):
        hosts = [make_host('h1'), make_host('z1')]
        self.placement.add_host_states(hosts)
        self.zone('az1', hosts[1:])
        self.take(hosts[1], 4096)
        error = self.assertRaises(exception.NoValidHost, self.select, hosts,
                                  make_spec(availability_zone='az1'))
        # z1 is full; h1, set aside by placement, is refused by
        # AvailabilityZoneFilter when the explanation runs the filters.
        self.assertIn('0/2 hosts available: 1 not offered by placement (no '
                      'room, or not matching availability zone az1; no '
                      'COMPUTE_STATUS_DISABLED), 1 not in the requested '
                      'availability zone', str(error))

    def test_a_forced_move_skips_the_pre_filters(self):
        # Nova forces a move without asking its scheduler at all.
        hosts = [make_host('h1'), make_host('h2')]
        self.placement.add_host_states(hosts)
        self.set_traits(hosts[0], 'COMPUTE_STATUS_DISABLED')
        spec = make_spec(force_hosts=['h1'])
        cell1 = [c for c in objects.CellMappingList.get_all(self.context)
                 if not c.is_cell0][0]
        objects.InstanceMapping(
            self.context, instance_uuid=spec.instance_uuid,
            cell_mapping=cell1, project_id='demo', user_id='demo').create()
        [[chosen]] = self.select(hosts, spec, return_alternates=False)
        self.assertEqual('h1', chosen.service_host)

    def test_a_forced_boot_goes_through_the_pre_filters(self):
        hosts = [make_host('h1'), make_host('h2')]
        self.placement.add_host_states(hosts)
        self.set_traits(hosts[0], 'COMPUTE_STATUS_DISABLED')
        self.assertRaises(exception.NoValidHost, self.select, hosts,
                          make_spec(force_hosts=['h1']),
                          return_alternates=False)

    def test_a_trait_placement_does_not_know_is_a_plain_no_valid_host(self):
        # Not PlacementUnreachable: asking again would not help.
        error = self.assertRaises(
            exception.NoValidHost, self.select, [make_host('h1')],
            make_spec(extra_specs={'trait:CUSTOM_UNHEARD_OF': 'required'}))
        self.assertIs(exception.NoValidHost, type(error))
        self.assertIn('placement refused the query', str(error))
        self.assertIn('CUSTOM_UNHEARD_OF', str(error))

    def test_aggregates_unreadable_is_a_retryable_no_valid_host(self):
        self.useFixture(fixtures.MockPatchObject(
            objects.AggregateList, 'get_all',
            side_effect=exception.DatabaseUnavailable(url='api',
                                                      reason='gone')))
        self.assertRaises(exception.HostsUnread, self.select,
                          [make_host('h1')],
                          make_spec(availability_zone='az1'))


class TestAskedAgain(FilterSchedulerTestCase):
    """select_destinations asked again for instances an earlier request
    claimed already (its answer was lost, or it is still at work): the
    claims are kept and named, never doubled or dropped."""

    def setUp(self):
        super().setUp()
        self.hosts = [make_host('h1'), make_host('h2'), make_host('h3')]
        self.placement.add_host_states(self.hosts)

    def scheduler(self, reportclient=None):
        return filter_scheduler.FilterScheduler(
            FakeHostManager(self.hosts), reportclient)

    def ask(self, uuids, spec=None, scheduler=None):
        return (scheduler or self.scheduler()).select_destinations(
            None, spec or make_spec(), uuids)

    def test_the_repeat_names_the_host_the_first_answer_claimed(self):
        uuids = [uuidutils.generate_uuid() for _ in range(2)]
        first = self.ask(uuids)
        again = self.ask(uuids)
        self.assertEqual([s[0].service_host for s in first],
                         [s[0].service_host for s in again])
        for uuid, (chosen, *_rest) in zip(uuids, again):
            self.assertEqual([chosen.compute_node_uuid], self.held_by(uuid))
            self.assertEqual({'VCPU': 1, 'MEMORY_MB': 512, 'DISK_GB': 1},
                             chosen.allocation['allocations'][
                                 chosen.compute_node_uuid]['resources'])

    def test_a_repeat_places_the_instances_the_first_did_not_claim(self):
        claimed, new = (uuidutils.generate_uuid() for _ in range(2))
        [[first, *_]] = self.ask([claimed])
        lists = self.ask([claimed, new])
        self.assertEqual(first.service_host, lists[0][0].service_host)
        self.assertEqual([lists[1][0].compute_node_uuid],
                         self.held_by(new))

    def test_the_first_requests_late_give_back_leaves_the_adopted_claim(self):
        uuid = uuidutils.generate_uuid()
        self.ask([uuid])  # the first request: its answer was lost
        [[chosen, *_]] = self.ask([uuid])
        # The first request then failed on another of its instances and
        # gives back what it claimed -- after the repeat adopted it.
        self.assertFalse(self.reportclient.give_back_claim(
            uuid, placement_client.NEW_CONSUMER_GENERATION, 'demo', 'demo'))
        self.assertEqual([chosen.compute_node_uuid], self.held_by(uuid))

    def test_a_duplicate_that_claims_meanwhile_is_adopted(self):
        uuid = uuidutils.generate_uuid()
        client = self.reportclient

        def duplicate_claims_first():
            # A late duplicate of the request claims h3 while this one is
            # choosing among the candidates it read.
            if not client.get_allocations(uuid).get('allocations'):
                self.assertTrue(client.claim_resources(uuid, {
                    'allocations': {self.hosts[2].uuid: {'resources': {
                        'VCPU': 1, 'MEMORY_MB': 512, 'DISK_GB': 1}}}},
                    'demo', 'demo'))
        racing = RacingReportClient(duplicate_claims_first)
        [[chosen]] = self.scheduler(racing).select_destinations(
            None, make_spec(), [uuid], return_alternates=False)
        self.assertEqual('h3', chosen.service_host)
        self.assertEqual([self.hosts[2].uuid], self.held_by(uuid))
        # Nothing else is held on any host.
        for state in self.hosts[:2]:
            self.assertEqual({}, self.reportclient.get_provider_allocations(
                state.uuid))

    def test_a_claim_on_a_host_the_request_ignores_is_given_back(self):
        # Left by a try the request moved on from (a live migration's
        # reschedule whose give-back failed).
        uuid = uuidutils.generate_uuid()
        self.assertTrue(self.reportclient.claim_resources(uuid, {
            'allocations': {self.hosts[0].uuid: {'resources': {
                'VCPU': 1, 'MEMORY_MB': 512, 'DISK_GB': 1}}}},
            'demo', 'demo'))
        [[chosen, *_]] = self.ask([uuid], make_spec(ignore_hosts=['h1']))
        self.assertNotEqual('h1', chosen.service_host)
        self.assertEqual([chosen.compute_node_uuid], self.held_by(uuid))
        self.assertEqual({}, self.reportclient.get_provider_allocations(
            self.hosts[0].uuid))


class TestEveryComputeUnheardFrom(FilterSchedulerTestCase):
    """Every heartbeat late at once is what a broker or database blink
    looks like: a NoValidHost the conductor asks again about."""

    def test_no_host_heard_from_is_a_retryable_no_valid_host(self):
        hosts = [make_host('h1', up=False), make_host('h2', up=False)]
        error = self.assertRaises(exception.ComputesUnheardFrom,
                                  self.select, hosts)
        self.assertIn('2 compute service down or disabled', str(error))

    def test_the_hosts_left_after_those_tried_unheard_from_is_retryable(
            self):
        # A rescheduled build: its first host failed it, the other's
        # heartbeat is late (the broker blinked).
        hosts = [make_host('h1'), make_host('h2', up=False)]
        spec = make_spec(retry=objects.SchedulerRetries(
            num_attempts=1, hosts=[['h1', 'h1']]))
        error = self.assertRaises(exception.ComputesUnheardFrom,
                                  self.select, hosts, spec)
        self.assertIn('1 already tried', str(error))

    def test_only_tried_hosts_is_a_plain_no_valid_host(self):
        hosts = [make_host('h1'), make_host('h2')]
        spec = make_spec(retry=objects.SchedulerRetries(
            num_attempts=2, hosts=[['h1', 'h1'], ['h2', 'h2']]))
        error = self.assertRaises(exception.NoValidHost, self.select, hosts,
                                  spec)
        self.assertNotIsInstance(error, exception.ComputesUnheardFrom)

    def test_a_disabled_host_among_them_is_a_plain_no_valid_host(self):
        hosts = [make_host('h1', up=False), make_host('h2', disabled=True)]
        error = self.assertRaises(exception.NoValidHost, self.select, hosts)
        self.assertNotIsInstance(error, exception.ComputesUnheardFrom)

    def test_no_host_while_a_cell_was_not_read_is_retryable(self):
        hosts = [make_host('h1', free_ram_mb=0)]
        error = self.assertRaises(
            exception.HostsUnread, self.select, hosts,
            unread=['the hosts of cell cell2 (1047 WSREP not ready)'])
        self.assertIn('not read: the hosts of cell cell2', str(error))
        self.assertEqual([], self.held_by(self.uuids[0]))

    def test_a_cell_that_answers_again_for_the_explanation_still_counts(
            self):
        # The hosts are read again to explain the NoValidHost; by then
        # the cell answers.
        class AnswersAgain(FakeHostManager):
            def get_host_states(self, *args, **kwargs):
                if self.reads:
                    self.unread = []
                return super().get_host_states(*args, **kwargs)

        self.placement.add_host_states([make_host('h1', free_ram_mb=0)])
        manager = AnswersAgain([make_host('h1', free_ram_mb=0)],
                               unread=['the hosts of cell cell2 (down)'])
        scheduler = filter_scheduler.FilterScheduler(manager)
        self.assertRaises(exception.HostsUnread,
                          scheduler.select_destinations, None, make_spec(),
                          [uuidutils.generate_uuid()])

    def test_a_host_that_fits_is_chosen_while_a_cell_was_not_read(self):
        [[selection]] = self.select(
            [make_host('h1')], unread=['the hosts of cell cell2 (down)'])
        self.assertEqual('h1', selection.service_host)

    def test_one_host_down_and_the_others_full_is_a_plain_no_valid_host(
            self):
        hosts = [make_host('h1', up=False),
                 make_host('h2', free_ram_mb=0)]
        error = self.assertRaises(exception.NoValidHost, self.select, hosts)
        self.assertNotIsInstance(error, exception.ComputesUnheardFrom)
