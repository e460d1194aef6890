"""The placement client's part in moves with ports: allocation candidates
with one suffixed request group per port resource request (and the
answer's ``mappings``), and ``move_allocations`` between an instance and
its migration's consumer.

The client talks to the real Placement app in this process (a requests
transport that hands each request to the WSGI app).

Also home of ``InProcessPlacement``, which the tests of the moves use in
place of ``tests.unit.fixtures.PlacementServer``.
"""

import urllib.parse

import fixtures
from oslo_config import fixture as config_fixture
from oslo_utils import uuidutils

from nova_lite.api import placement as placement_app
from nova_lite import conf as nova_conf
from nova_lite import objects
from nova_lite.placement import db as placement_db
from nova_lite.placement import resource_classes
from nova_lite.placement import traits
from nova_lite import placement_client
from tests.unit.network import base as network_base
from tests.unit.placement import base

CONF = nova_conf.CONF
PLACEMENT_URL = 'http://placement.test'
EGRESS = 'NET_BW_EGR_KILOBIT_PER_SEC'
PHYSNET0 = 'CUSTOM_PHYSNET_PHYSNET0'
PHYSNET1 = 'CUSTOM_PHYSNET_PHYSNET1'
VNIC = 'CUSTOM_VNIC_TYPE_NORMAL'


class RecordingAdapter(network_base.WSGIAdapter):
    """Hands each request to the app and keeps it, so a test can read what
    went over the wire; ``before_send(request)`` runs first when set."""

    def __init__(self, app):
        super().__init__(app)
        self.sent = []
        self.before_send = None

    def send(self, request, **kwargs):
        self.sent.append(request)
        if self.before_send is not None:
            self.before_send(request)
        return super().send(request, **kwargs)

    def query_of(self, request):
        return dict(urllib.parse.parse_qsl(
            urllib.parse.urlsplit(request.url).query))


class InProcessPlacement(fixtures.Fixture):
    """The Placement app in this process, on the API database the
    configuration names, reached through a requests transport instead of
    a socket: ``tests.unit.fixtures.PlacementServer`` without a server
    thread to start and stop. ``[placement] endpoint`` names it;
    ``client()`` is a report client wired to it, ``wire(client)`` wires
    one made elsewhere (a resource tracker's)."""

    def _setUp(self):
        # Fresh caches: each test has its own API database.
        for reset in (placement_db.reset, resource_classes.reset_cache,
                      traits.reset_cache):
            self.addCleanup(reset)
            reset()
        self.app = placement_app.make_app()
        overrides = self.useFixture(config_fixture.Config(CONF))
        overrides.config(endpoint_override=PLACEMENT_URL, group='placement')

    def wire(self, client):
        client.session.mount(PLACEMENT_URL,
                             network_base.WSGIAdapter(self.app))
        return client

    def client(self):
        return self.wire(placement_client.PlacementClient(
            endpoint=PLACEMENT_URL))


def port_group(port_id=None, egress=100, traits=(PHYSNET0, VNIC)):
    return objects.RequestGroup(requester_id=port_id or
                                uuidutils.generate_uuid(),
                                resources={EGRESS: egress},
                                required_traits=list(traits))


class ReportClientTestCase(base.PlacementTestCase):

    def setUp(self):
        super().setUp()
        objects.register_all()
        self.adapter = RecordingAdapter(self.app)
        self.client = placement_client.PlacementClient(endpoint=PLACEMENT_URL)
        self.client.session.mount(PLACEMENT_URL, self.adapter)

    def set_traits(self, rp, *names):
        for name in names:
            self.put('/traits/%s' % name)
        generation = self.get('/resource_providers/%s' % rp).json[
            'generation']
        self.assertStatus(200, self.put(
            '/resource_providers/%s/traits' % rp,
            {'traits': list(names),
             'resource_provider_generation': generation}))

    def bandwidth_provider(self, node, name, physnet_trait, kbps=1000):
        rp = self.make_provider(name, parent=node)['uuid']
        self.set_inventory(rp, **{EGRESS: kbps})
        self.set_traits(rp, physnet_trait, VNIC)
        return rp

    def held(self, consumer):
        return self.get('/allocations/%s' % consumer).json


class TestCandidatesWithGroups(ReportClientTestCase):
    """A compute node with a bandwidth provider on each of two physical
    networks."""

    def setUp(self):
        super().setUp()
        self.node = self.compute_node('cn')
        self.nic0 = self.bandwidth_provider(self.node, 'cn:physnet0',
                                            PHYSNET0)
        self.nic1 = self.bandwidth_provider(self.node, 'cn:physnet1',
                                            PHYSNET1)
        self.flavor = {'VCPU': 1, 'MEMORY_MB': 512}

    def candidates(self, groups=(), limit=None):
        return self.client.get_allocation_candidates(self.flavor, limit,
                                                     groups)

    def test_each_group_is_asked_for_under_its_port_suffix(self):
        group = port_group(egress=250)
        self.candidates([group])
        query = self.adapter.query_of(self.adapter.sent[-1])
        self.assertEqual(
            ('MEMORY_MB:512,VCPU:1', '%s:250' % EGRESS,
             ','.join(sorted([PHYSNET0, VNIC])), 'none'),
            (query['resources'], query['resources_' + group.requester_id],
             query['required_' + group.requester_id],
             query['group_policy']))

    def test_the_request_asks_for_microversion_1_35(self):
        # mappings (1.34) and root_required (1.35).
        self.candidates()
        self.assertEqual('placement 1.35', self.adapter.sent[-1].headers[
            'OpenStack-API-Version'])

    def test_the_pre_filters_narrowing_goes_on_the_unsuffixed_group(self):
        agg1, agg2, agg3, agg4 = sorted(uuidutils.generate_uuid()
                                        for _ in range(4))
        self.put('/traits/CUSTOM_SLOW')
        self.client.get_allocation_candidates(
            self.flavor, 5, member_of=[[agg2, agg1], [agg3]],
            forbidden_aggregates=[agg4], required=['HW_CPU_X86_AVX2'],
            forbidden=['CUSTOM_SLOW'], root_required=['COMPUTE_NODE'],
            root_forbidden=['COMPUTE_STATUS_DISABLED'])
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(
            self.adapter.sent[-1].url).query)
        self.assertEqual(
            (['in:%s,%s' % (agg1, agg2), 'in:' + agg3, '!in:' + agg4],
             ['HW_CPU_X86_AVX2,!CUSTOM_SLOW'],
             ['COMPUTE_NODE,!COMPUTE_STATUS_DISABLED'], ['5']),
            (query['member_of'], query['required'], query['root_required'],
             query['limit']))

    def test_a_member_of_placement_has_no_provider_in_answers_nothing(self):
        requests, _summaries = self.client.get_allocation_candidates(
            self.flavor, member_of=[[uuidutils.generate_uuid()]])
        self.assertEqual([], requests)

    def test_a_root_trait_the_node_lacks_answers_nothing(self):
        self.assertEqual([], self.client.get_allocation_candidates(
            self.flavor, root_required=['COMPUTE_STATUS_DISABLED'])[0])
        self.assertNotEqual([], self.client.get_allocation_candidates(
            self.flavor, root_forbidden=['COMPUTE_STATUS_DISABLED'])[0])

    def test_an_unknown_trait_is_placement_bad_request(self):
        self.assertRaises(placement_client.PlacementBadRequest,
                          self.client.get_allocation_candidates, self.flavor,
                          required=['CUSTOM_NOBODY_HAS_THIS'])

    def test_without_groups_no_group_policy_is_sent(self):
        self.candidates()
        self.assertEqual({'resources': 'MEMORY_MB:512,VCPU:1'},
                         self.adapter.query_of(self.adapter.sent[-1]))

    def test_a_group_without_required_traits_sends_no_required(self):
        group = port_group(traits=())
        self.candidates([group])
        self.assertNotIn('required_' + group.requester_id,
                         self.adapter.query_of(self.adapter.sent[-1]))

    def test_the_limit_is_sent(self):
        self.candidates(limit=3)
        self.assertEqual('3', self.adapter.query_of(
            self.adapter.sent[-1])['limit'])

    def test_mappings_name_the_provider_of_each_port(self):
        group = port_group(traits=(PHYSNET1, VNIC))
        [request], summaries = self.candidates([group])
        self.assertEqual({'': [self.node], group.suffix: [self.nic1]},
                         request['mappings'])
        self.assertEqual({EGRESS: 100},
                         request['allocations'][self.nic1]['resources'])
        self.assertEqual(self.node,
                         summaries[self.nic1]['root_provider_uuid'])

    def test_two_ports_may_share_one_provider(self):
        first, second = port_group(), port_group()
        [request], _summaries = self.candidates([first, second])
        self.assertEqual(([self.nic0], [self.nic0]),
                         (request['mappings'][first.suffix],
                          request['mappings'][second.suffix]))
        self.assertEqual({EGRESS: 200},
                         request['allocations'][self.nic0]['resources'])

    def test_a_port_no_provider_can_satisfy_leaves_no_candidate(self):
        requests_, _summaries = self.candidates([port_group(egress=5000)])
        self.assertEqual([], requests_)

    def test_a_trait_no_provider_has_leaves_no_candidate(self):
        self.put('/traits/CUSTOM_PHYSNET_NOWHERE')
        requests_, _summaries = self.candidates([port_group(
            traits=('CUSTOM_PHYSNET_NOWHERE',))])
        self.assertEqual([], requests_)


class TestMoveAllocations(ReportClientTestCase):

    def setUp(self):
        super().setUp()
        self.source = self.compute_node('source')
        self.nic = self.make_provider('source:physnet0',
                                      parent=self.source)['uuid']
        self.set_inventory(self.nic, **{EGRESS: 1000})
        self.instance = uuidutils.generate_uuid()
        self.migration = uuidutils.generate_uuid()
        self.allocations = {self.source: {'VCPU': 1, 'MEMORY_MB': 512},
                            self.nic: {EGRESS: 100}}
        self.assertStatus(204, self.allocate(
            self.instance, self.allocations, project_id='demo',
            user_id='alice'))

    def resources(self, consumer):
        return {rp: a['resources']
                for rp, a in self.held(consumer)['allocations'].items()}

    def test_everything_the_source_holds_goes_to_the_target(self):
        self.assertTrue(self.client.move_allocations(self.instance,
                                                     self.migration))
        self.assertEqual(({}, self.allocations),
                         (self.resources(self.instance),
                          self.resources(self.migration)))

    def test_the_target_holds_it_for_the_same_project_and_user(self):
        self.client.move_allocations(self.instance, self.migration)
        held = self.held(self.migration)
        self.assertEqual(('demo', 'alice'),
                         (held['project_id'], held['user_id']))

    def test_it_is_one_post_to_allocations(self):
        self.client.move_allocations(self.instance, self.migration)
        self.assertEqual(['/allocations'], [
            urllib.parse.urlsplit(r.url).path
            for r in self.adapter.sent if r.method == 'POST'])

    def test_moving_back_restores_the_source(self):
        self.client.move_allocations(self.instance, self.migration)
        self.assertTrue(self.client.move_allocations(self.migration,
                                                     self.instance))
        self.assertEqual(({}, self.allocations),
                         (self.resources(self.migration),
                          self.resources(self.instance)))

    def test_a_source_holding_nothing_is_false_and_writes_nothing(self):
        empty = uuidutils.generate_uuid()
        self.assertFalse(self.client.move_allocations(empty,
                                                      self.migration))
        self.assertEqual({}, self.resources(self.migration))
        self.assertEqual([], [r for r in self.adapter.sent
                              if r.method != 'GET'])

    def test_a_concurrent_change_of_the_source_is_retried(self):
        # Another writer changes the instance's allocation between the
        # client's read and its POST: the retry moves what it holds then.
        changed = {self.source: {'VCPU': 2, 'MEMORY_MB': 512},
                   self.nic: {EGRESS: 100}}

        def race(request):
            if request.method == 'POST':
                self.adapter.before_send = None
                generation = self.held(self.instance)['consumer_generation']
                self.assertStatus(204, self.allocate(
                    self.instance, changed, generation=generation,
                    project_id='demo', user_id='alice'))
        self.adapter.before_send = race
        self.assertTrue(self.client.move_allocations(self.instance,
                                                     self.migration))
        self.assertEqual(({}, changed), (self.resources(self.instance),
                                         self.resources(self.migration)))
        self.assertEqual(2, len([r for r in self.adapter.sent
                                 if r.method == 'POST']))

    def test_a_source_that_keeps_changing_is_placement_conflict(self):
        def race(request):
            if request.method == 'POST':
                held = self.held(self.instance)
                self.assertStatus(204, self.allocate(
                    self.instance, self.allocations,
                    generation=held['consumer_generation'],
                    project_id='demo', user_id='alice'))
        self.adapter.before_send = race
        error = self.assertRaises(placement_client.PlacementConflict,
                                  self.client.move_allocations,
                                  self.instance, self.migration)
        self.assertIn('kept changing', error.format_message())
        self.assertEqual(self.allocations, self.resources(self.instance))
