"""/os-aggregates: create, list, show, update, delete and the host and
metadata actions; admin only."""

from oslo_utils import uuidutils

from nova_lite import context as nova_context
from nova_lite import objects
from nova_lite import placement_client
from tests.unit.api import base
from tests.unit import fixtures as nova_fixtures

PATH = '/v2.1/os-aggregates'


class AggregatesTestCase(base.APITestCase):

    def setUp(self):
        super().setUp()
        with nova_context.target_cell(self.admin_context,
                                      self.cell1) as cctxt:
            for host in ('compute1', 'compute2', 'compute3'):
                objects.Service(cctxt, host=host, binary='nova-lite-compute',
                                topic='compute').create()
            objects.Service(cctxt, host='controller',
                            binary='nova-lite-scheduler',
                            topic='scheduler').create()
        # compute3 is not discovered yet: it has no host mapping.
        for host in ('compute1', 'compute2'):
            objects.HostMapping(self.admin_context, host=host,
                                cell_mapping=self.cell1).create()

    def call(self, method, path='', body=None, token=base.ADMIN,
             version=None):
        return self.request(method, PATH + path, body, token=token,
                            version=version)

    def make_aggregate(self, name='agg', zone=None, version=None):
        body = {'name': name}
        if zone is not None:
            body['availability_zone'] = zone
        response = self.call('POST', body={'aggregate': body},
                             version=version)
        self.assertEqual(200, response.status_int, response.body)
        return response.json['aggregate']

    def act(self, aggregate_id, action, argument, token=base.ADMIN):
        return self.call('POST', '/%s/action' % aggregate_id,
                         {action: argument}, token=token)

    def add_host(self, aggregate_id, host):
        response = self.act(aggregate_id, 'add_host', {'host': host})
        self.assertEqual(200, response.status_int, response.body)
        return response.json['aggregate']


class TestCreate(AggregatesTestCase):

    def test_answers_200_with_the_aggregate(self):
        aggregate = self.make_aggregate(name='az1-agg', zone='az1')
        self.assertIsInstance(aggregate['id'], int)
        self.assertTrue(aggregate['created_at'].endswith('Z'))
        self.assertEqual(
            {'id': aggregate['id'], 'name': 'az1-agg',
             'availability_zone': 'az1', 'hosts': [],
             'metadata': {'availability_zone': 'az1'},
             'created_at': aggregate['created_at'], 'updated_at': None,
             'deleted_at': None, 'deleted': False}, aggregate)

    def test_without_a_zone_the_aggregate_has_none(self):
        aggregate = self.make_aggregate()
        self.assertEqual((None, {}), (aggregate['availability_zone'],
                                      aggregate['metadata']))

    def test_a_null_zone_is_no_zone(self):
        response = self.call('POST', body={'aggregate': {
            'name': 'agg', 'availability_zone': None}})
        self.assertIsNone(response.json['aggregate']['availability_zone'])

    def test_uuid_is_shown_from_241(self):
        self.assertNotIn('uuid', self.make_aggregate(name='a',
                                                     version='2.40'))
        aggregate = self.make_aggregate(name='b', version='2.41')
        self.assertTrue(uuidutils.is_uuid_like(aggregate['uuid']))
        stored = objects.Aggregate.get_by_id(self.admin_context,
                                             aggregate['id'])
        self.assertEqual(stored.uuid, aggregate['uuid'])

    def test_a_taken_name_is_409(self):
        self.make_aggregate(name='agg')
        response = self.call('POST', body={'aggregate': {'name': 'agg'}})
        self.assertError(response, 409, 'conflictingRequest', 'agg')

    def test_a_zone_with_a_colon_is_400(self):
        response = self.call('POST', body={'aggregate': {
            'name': 'agg', 'availability_zone': 'az:1'}})
        self.assertError(response, 400, 'badRequest', 'cannot contain ":"')

    def test_an_empty_zone_is_400(self):
        response = self.call('POST', body={'aggregate': {
            'name': 'agg', 'availability_zone': ''}})
        self.assertError(response, 400, 'badRequest', 'cannot be empty')

    def test_the_internal_zone_is_400(self):
        response = self.call('POST', body={'aggregate': {
            'name': 'agg', 'availability_zone': 'internal'}})
        self.assertError(response, 400, 'badRequest', 'internal')

    def test_bad_names_are_400(self):
        for name in ('', ' padded', 'x' * 256, 42, None):
            response = self.call('POST', body={'aggregate': {'name': name}})
            self.assertError(response, 400, 'badRequest', 'name')

    def test_missing_name_is_400(self):
        response = self.call('POST', body={'aggregate': {
            'availability_zone': 'az1'}})
        self.assertError(response, 400, 'badRequest', 'name')

    def test_unknown_field_is_400(self):
        response = self.call('POST', body={'aggregate': {
            'name': 'agg', 'hosts': ['compute1']}})
        self.assertError(response, 400, 'badRequest', 'hosts')

    def test_a_body_without_aggregate_is_400(self):
        response = self.call('POST', body={'name': 'agg'})
        self.assertError(response, 400, 'badRequest', 'aggregate')

    def test_malformed_json_is_400(self):
        response = self.request('POST', PATH, raw_body=b'{"aggregate":',
                                token=base.ADMIN)
        self.assertError(response, 400, 'badRequest', 'JSON')

    def test_non_admin_is_403(self):
        response = self.call('POST', body={'aggregate': {'name': 'agg'}},
                             token=base.DEMO)
        self.assertError(response, 403, 'forbidden', 'os-aggregates:create')
        self.assertEqual([], list(objects.AggregateList.get_all(
            self.admin_context)))


class TestReads(AggregatesTestCase):

    def test_list_shows_every_aggregate_with_hosts_and_metadata(self):
        first = self.make_aggregate(name='a', zone='az1')
        self.add_host(first['id'], 'compute1')
        second = self.make_aggregate(name='b')
        listed = self.call('GET').json['aggregates']
        self.assertEqual([(first['id'], 'a', 'az1', ['compute1']),
                          (second['id'], 'b', None, [])],
                         [(a['id'], a['name'], a['availability_zone'],
                           a['hosts']) for a in listed])

    def test_list_without_aggregates_is_empty(self):
        self.assertEqual({'aggregates': []}, self.call('GET').json)

    def test_show_is_the_view_of_the_aggregate(self):
        created = self.make_aggregate(zone='az1')
        shown = self.call('GET', '/%d' % created['id']).json['aggregate']
        self.assertEqual(created, shown)

    def test_show_of_an_unknown_id_is_404(self):
        response = self.call('GET', '/4242')
        self.assertError(response, 404, 'itemNotFound',
                         'Aggregate 4242 could not be found')

    def test_show_of_a_non_integer_id_is_404(self):
        for aggregate_id in ('abc', '-1', '1.5', '99999999999999999999',
                             uuidutils.generate_uuid()):
            response = self.call('GET', '/' + aggregate_id)
            self.assertError(response, 404, 'itemNotFound',
                             'Aggregate %s could not be found' %
                             aggregate_id)

    def test_non_admin_is_403(self):
        created = self.make_aggregate()
        self.assertError(self.call('GET', token=base.DEMO), 403,
                         'forbidden')
        self.assertError(self.call('GET', '/%d' % created['id'],
                                   token=base.DEMO), 403, 'forbidden')


class TestUpdate(AggregatesTestCase):

    def update(self, aggregate_id, token=base.ADMIN, **fields):
        return self.call('PUT', '/%s' % aggregate_id, {'aggregate': fields},
                         token=token)

    def test_rename(self):
        created = self.make_aggregate(name='old', zone='az1')
        response = self.update(created['id'], name='new')
        self.assertEqual(200, response.status_int, response.body)
        updated = response.json['aggregate']
        self.assertEqual(('new', 'az1'),
                         (updated['name'], updated['availability_zone']))
        self.assertIsNotNone(updated['updated_at'])

    def test_set_and_change_the_zone(self):
        created = self.make_aggregate()
        self.update(created['id'], availability_zone='az1')
        updated = self.update(created['id'], availability_zone='az2'
                              ).json['aggregate']
        self.assertEqual(('az2', {'availability_zone': 'az2'}),
                         (updated['availability_zone'], updated['metadata']))

    def test_a_null_zone_removes_it(self):
        created = self.make_aggregate(zone='az1')
        updated = self.update(created['id'], availability_zone=None
                              ).json['aggregate']
        self.assertEqual((None, {}), (updated['availability_zone'],
                                      updated['metadata']))

    def test_name_and_zone_together(self):
        created = self.make_aggregate(name='old')
        updated = self.update(created['id'], name='new',
                              availability_zone='az1').json['aggregate']
        self.assertEqual(('new', 'az1'),
                         (updated['name'], updated['availability_zone']))

    def test_a_taken_name_is_409(self):
        self.make_aggregate(name='taken')
        created = self.make_aggregate(name='mine')
        self.assertError(self.update(created['id'], name='taken'), 409,
                         'conflictingRequest', 'taken')

    def test_a_zone_that_conflicts_for_a_host_is_400(self):
        in_az1 = self.make_aggregate(name='a', zone='az1')
        self.add_host(in_az1['id'], 'compute1')
        other = self.make_aggregate(name='b')
        self.add_host(other['id'], 'compute1')
        response = self.update(other['id'], name='renamed',
                               availability_zone='az2')
        self.assertError(response, 400, 'badRequest',
                         'conflicting availability zone')
        unchanged = self.call('GET', '/%d' % other['id']).json['aggregate']
        self.assertEqual(('b', None), (unchanged['name'],
                                       unchanged['availability_zone']))

    def test_a_zone_with_a_colon_is_400(self):
        created = self.make_aggregate()
        self.assertError(self.update(created['id'], availability_zone='a:b'),
                         400, 'badRequest', ':')

    def test_an_empty_body_is_400(self):
        created = self.make_aggregate()
        self.assertError(self.update(created['id']), 400, 'badRequest',
                         'aggregate')

    def test_unknown_field_is_400(self):
        created = self.make_aggregate()
        self.assertError(self.update(created['id'], hosts=[]), 400,
                         'badRequest', 'hosts')

    def test_unknown_id_is_404(self):
        self.assertError(self.update('4242', name='x'), 404, 'itemNotFound',
                         '4242')

    def test_non_admin_is_403(self):
        created = self.make_aggregate()
        self.assertError(self.update(created['id'], name='x',
                                     token=base.DEMO), 403, 'forbidden')


class TestDelete(AggregatesTestCase):

    def test_answers_200_with_an_empty_body(self):
        created = self.make_aggregate()
        response = self.call('DELETE', '/%d' % created['id'])
        self.assertEqual(200, response.status_int)
        self.assertEqual(b'', response.body)
        self.assertError(self.call('GET', '/%d' % created['id']), 404,
                         'itemNotFound')

    def test_an_aggregate_with_hosts_is_400_naming_them(self):
        created = self.make_aggregate()
        self.add_host(created['id'], 'compute1')
        self.add_host(created['id'], 'compute2')
        response = self.call('DELETE', '/%d' % created['id'])
        self.assertError(response, 400, 'badRequest', 'compute1, compute2')

    def test_unknown_id_is_404(self):
        self.assertError(self.call('DELETE', '/4242'), 404, 'itemNotFound')

    def test_non_integer_id_is_404(self):
        self.assertError(self.call('DELETE', '/abc'), 404, 'itemNotFound',
                         'abc')

    def test_non_admin_is_403(self):
        created = self.make_aggregate()
        self.assertError(self.call('DELETE', '/%d' % created['id'],
                                   token=base.DEMO), 403, 'forbidden')


class TestAddHost(AggregatesTestCase):

    def test_the_host_becomes_a_member(self):
        created = self.make_aggregate()
        aggregate = self.add_host(created['id'], 'compute1')
        self.assertEqual(['compute1'], aggregate['hosts'])
        self.assertEqual(['compute1'], objects.Aggregate.get_by_id(
            self.admin_context, created['id']).hosts)

    def test_a_compute_not_yet_mapped_to_a_cell_may_join(self):
        created = self.make_aggregate()
        self.assertEqual(['compute3'],
                         self.add_host(created['id'], 'compute3')['hosts'])

    def test_an_unknown_host_is_404(self):
        created = self.make_aggregate()
        response = self.act(created['id'], 'add_host', {'host': 'nowhere'})
        self.assertError(response, 404, 'itemNotFound', 'nowhere')

    def test_a_host_without_a_compute_service_is_404(self):
        created = self.make_aggregate()
        response = self.act(created['id'], 'add_host',
                            {'host': 'controller'})
        self.assertError(response, 404, 'itemNotFound', 'controller')

    def test_an_undiscovered_host_while_a_cell_does_not_answer_is_503(
            self):
        # It may be that cell's: not a 404, and never a 500.
        nova_fixtures.map_unreachable_cell(self.admin_context)
        created = self.make_aggregate()
        response = self.act(created['id'], 'add_host', {'host': 'nowhere'})
        self.assertError(response, 503, 'serviceUnavailable',
                         'cell cell9 did not answer')

    def test_a_discovered_host_may_join_while_another_cell_is_down(self):
        nova_fixtures.map_unreachable_cell(self.admin_context)
        created = self.make_aggregate()
        self.assertEqual(['compute1'],
                         self.add_host(created['id'], 'compute1')['hosts'])

    def test_a_member_again_is_409(self):
        created = self.make_aggregate()
        self.add_host(created['id'], 'compute1')
        response = self.act(created['id'], 'add_host', {'host': 'compute1'})
        self.assertError(response, 409, 'conflictingRequest', 'compute1')

    def test_a_host_in_another_zone_is_400(self):
        in_az1 = self.make_aggregate(name='a', zone='az1')
        self.add_host(in_az1['id'], 'compute1')
        in_az2 = self.make_aggregate(name='b', zone='az2')
        response = self.act(in_az2['id'], 'add_host', {'host': 'compute1'})
        self.assertError(response, 400, 'badRequest',
                         'conflicting availability zone az1')

    def test_a_host_may_join_another_aggregate_of_its_zone(self):
        first = self.make_aggregate(name='a', zone='az1')
        self.add_host(first['id'], 'compute1')
        second = self.make_aggregate(name='b', zone='az1')
        self.assertEqual(['compute1'],
                         self.add_host(second['id'], 'compute1')['hosts'])

    def test_a_host_in_a_zone_may_join_an_aggregate_without_one(self):
        in_az1 = self.make_aggregate(name='a', zone='az1')
        self.add_host(in_az1['id'], 'compute1')
        plain = self.make_aggregate(name='ssd')
        self.assertEqual(['compute1'],
                         self.add_host(plain['id'], 'compute1')['hosts'])

    def test_unknown_aggregate_is_404(self):
        response = self.act('4242', 'add_host', {'host': 'compute1'})
        self.assertError(response, 404, 'itemNotFound', '4242')

    def test_non_integer_aggregate_is_404(self):
        response = self.act('abc', 'add_host', {'host': 'compute1'})
        self.assertError(response, 404, 'itemNotFound', 'abc')

    def test_a_missing_host_is_400(self):
        created = self.make_aggregate()
        for argument in ({}, {'host': ''}, {'host': 7}, 'compute1'):
            response = self.act(created['id'], 'add_host', argument)
            self.assertError(response, 400, 'badRequest', 'add_host')

    def test_non_admin_is_403(self):
        created = self.make_aggregate()
        response = self.act(created['id'], 'add_host', {'host': 'compute1'},
                            token=base.DEMO)
        self.assertError(response, 403, 'forbidden', 'add_host')


class TestRemoveHost(AggregatesTestCase):

    def test_the_host_leaves(self):
        created = self.make_aggregate()
        self.add_host(created['id'], 'compute1')
        self.add_host(created['id'], 'compute2')
        response = self.act(created['id'], 'remove_host',
                            {'host': 'compute1'})
        self.assertEqual(200, response.status_int, response.body)
        self.assertEqual(['compute2'], response.json['aggregate']['hosts'])

    def test_a_non_member_is_404(self):
        created = self.make_aggregate()
        response = self.act(created['id'], 'remove_host',
                            {'host': 'compute1'})
        self.assertError(response, 404, 'itemNotFound', 'compute1')

    def test_a_host_whose_compute_is_gone_may_leave(self):
        created = self.make_aggregate()
        objects.Aggregate.get_by_id(self.admin_context,
                                    created['id']).add_host('retired')
        response = self.act(created['id'], 'remove_host',
                            {'host': 'retired'})
        self.assertEqual([], response.json['aggregate']['hosts'])

    def test_unknown_aggregate_is_404(self):
        response = self.act('4242', 'remove_host', {'host': 'compute1'})
        self.assertError(response, 404, 'itemNotFound', '4242')

    def test_non_admin_is_403(self):
        created = self.make_aggregate()
        self.add_host(created['id'], 'compute1')
        response = self.act(created['id'], 'remove_host',
                            {'host': 'compute1'}, token=base.DEMO)
        self.assertError(response, 403, 'forbidden', 'remove_host')


class TestSetMetadata(AggregatesTestCase):

    def set_metadata(self, aggregate_id, metadata):
        return self.act(aggregate_id, 'set_metadata', {'metadata': metadata})

    def test_keys_are_set_and_null_removes_them(self):
        created = self.make_aggregate(zone='az1')
        self.set_metadata(created['id'], {'ssd': 'true', 'gpu': 'yes'})
        response = self.set_metadata(created['id'], {'gpu': None})
        self.assertEqual(200, response.status_int, response.body)
        self.assertEqual({'availability_zone': 'az1', 'ssd': 'true'},
                         response.json['aggregate']['metadata'])

    def test_the_zone_key_changes_the_zone(self):
        created = self.make_aggregate()
        aggregate = self.set_metadata(
            created['id'], {'availability_zone': 'az1'}).json['aggregate']
        self.assertEqual('az1', aggregate['availability_zone'])

    def test_a_zone_that_conflicts_for_a_host_is_400(self):
        in_az1 = self.make_aggregate(name='a', zone='az1')
        self.add_host(in_az1['id'], 'compute1')
        other = self.make_aggregate(name='b')
        self.add_host(other['id'], 'compute1')
        response = self.set_metadata(other['id'], {
            'availability_zone': 'az2', 'ssd': 'true'})
        self.assertError(response, 400, 'badRequest',
                         'conflicting availability zone')
        self.assertEqual({}, objects.Aggregate.get_by_id(
            self.admin_context, other['id']).metadata)

    def test_the_same_zone_for_a_shared_host_is_fine(self):
        in_az1 = self.make_aggregate(name='a', zone='az1')
        self.add_host(in_az1['id'], 'compute1')
        other = self.make_aggregate(name='b')
        self.add_host(other['id'], 'compute1')
        response = self.set_metadata(other['id'],
                                     {'availability_zone': 'az1'})
        self.assertEqual(200, response.status_int, response.body)

    def test_a_zone_with_a_colon_is_400(self):
        created = self.make_aggregate()
        response = self.set_metadata(created['id'],
                                     {'availability_zone': 'a:b'})
        self.assertError(response, 400, 'badRequest', 'cannot contain ":"')

    def test_bad_metadata_is_400(self):
        created = self.make_aggregate()
        for metadata in ({'ssd': 1}, {'': 'x'}, {'bad/key': 'x'},
                         {'k': 'x' * 256}, ['ssd']):
            response = self.set_metadata(created['id'], metadata)
            self.assertError(response, 400, 'badRequest', 'metadata')

    def test_missing_metadata_is_400(self):
        created = self.make_aggregate()
        response = self.act(created['id'], 'set_metadata', {})
        self.assertError(response, 400, 'badRequest', 'metadata')

    def test_unknown_aggregate_is_404(self):
        response = self.set_metadata('4242', {'ssd': 'true'})
        self.assertError(response, 404, 'itemNotFound', '4242')

    def test_non_admin_is_403(self):
        created = self.make_aggregate()
        response = self.act(created['id'], 'set_metadata',
                            {'metadata': {'ssd': 'true'}}, token=base.DEMO)
        self.assertError(response, 403, 'forbidden', 'set_metadata')


class TestActionBodies(AggregatesTestCase):

    def test_two_actions_are_400_naming_the_actions(self):
        created = self.make_aggregate()
        response = self.call('POST', '/%d/action' % created['id'], {
            'add_host': {'host': 'compute1'},
            'remove_host': {'host': 'compute1'}})
        self.assertError(response, 400, 'badRequest',
                         'exactly one of add_host, remove_host, '
                         'set_metadata; 2 given')

    def test_no_action_is_400(self):
        created = self.make_aggregate()
        response = self.call('POST', '/%d/action' % created['id'], {})
        self.assertError(response, 400, 'badRequest', '0 given')

    def test_an_unknown_action_is_400(self):
        created = self.make_aggregate()
        response = self.call('POST', '/%d/action' % created['id'],
                             {'add_hosts': {'host': 'compute1'}})
        self.assertError(response, 400, 'badRequest', 'add_hosts')

    def test_a_body_that_is_not_an_object_is_400(self):
        created = self.make_aggregate()
        response = self.call('POST', '/%d/action' % created['id'],
                             ['add_host'])
        self.assertError(response, 400, 'badRequest')

    def test_get_on_the_action_path_is_405(self):
        created = self.make_aggregate()
        response = self.call('GET', '/%d/action' % created['id'])
        self.assertEqual(405, response.status_int)
        self.assertEqual('POST', response.headers['Allow'])


class TestAvailabilityZones(AggregatesTestCase):
    """/os-availability-zone: the zones the aggregates make."""

    def zones(self, path='', token=base.ADMIN):
        response = self.request('GET', '/v2.1/os-availability-zone' + path,
                                token=token)
        self.assertEqual(200, response.status_int, response.body)
        return {z['zoneName']: z for z in
                response.json['availabilityZoneInfo']}

    def test_hosts_outside_zone_aggregates_are_in_the_default_zone(self):
        self.assertEqual(
            {'nova': {'zoneName': 'nova', 'zoneState': {'available': True},
                      'hosts': None}},
            self.zones(token=base.DEMO))

    def test_a_zone_aggregate_with_a_host_is_listed(self):
        aggregate = self.make_aggregate(zone='az1')
        self.add_host(aggregate['id'], 'compute2')
        self.assertEqual(['az1', 'nova'], sorted(self.zones()))

    def test_a_zone_without_hosts_is_not_listed(self):
        self.make_aggregate(zone='empty')
        self.assertNotIn('empty', self.zones())

    def test_a_zone_whose_computes_are_all_disabled_is_unavailable(self):
        aggregate = self.make_aggregate(zone='az1')
        self.add_host(aggregate['id'], 'compute2')
        with nova_context.target_cell(self.admin_context,
                                      self.cell1) as cctxt:
            service = objects.Service.get_by_host_and_binary(
                cctxt, 'compute2', 'nova-lite-compute')
            service.disabled = True
            service.save()
        self.assertEqual({'available': False},
                         self.zones()['az1']['zoneState'])

    def test_detail_lists_hosts_and_the_internal_zone_to_admins(self):
        aggregate = self.make_aggregate(zone='az1')
        self.add_host(aggregate['id'], 'compute2')
        zones = self.zones('/detail')
        self.assertEqual(['compute2'], list(zones['az1']['hosts']))
        self.assertEqual({'nova-lite-scheduler'},
                         set(zones['internal']['hosts']['controller']))
        self.assertEqual(
            {'available', 'active', 'updated_at'},
            set(zones['az1']['hosts']['compute2']['nova-lite-compute']))

    def test_detail_is_admin_only(self):
        response = self.request('GET', '/v2.1/os-availability-zone/detail',
                                token=base.DEMO)
        self.assertEqual(403, response.status_int)


class TestPlacementMirror(AggregatesTestCase):
    """A host aggregate is mirrored in placement: its hosts' compute node
    providers are in the placement aggregate of the same uuid."""

    def setUp(self):
        super().setUp()
        self.placement = self.useFixture(nova_fixtures.PlacementServer())
        self.client = placement_client.PlacementClient()
        # compute1 has two nodes, compute3 (not discovered yet) one;
        # compute2 has none yet.
        self.nodes = {'compute1': [self.make_node('compute1', 'node1a'),
                                   self.make_node('compute1', 'node1b')],
                      'compute3': [self.make_node('compute3', 'node3')]}
        self.other = uuidutils.generate_uuid()
        for uuids in self.nodes.values():
            for uuid in uuids:
                self.placement.add_compute_node(uuid, uuid)
                self.client.update_provider_aggregates(uuid,
                                                       add=[self.other])

    def make_node(self, host, nodename):
        with nova_context.target_cell(self.admin_context,
                                      self.cell1) as cctxt:
            node = objects.ComputeNode(
                cctxt, host=host, hypervisor_hostname=nodename,
                hypervisor_type='fake', hypervisor_version=1, vcpus=8,
                memory_mb=4096, local_gb=100, cpu_allocation_ratio=4.0,
                ram_allocation_ratio=1.0, disk_allocation_ratio=1.0)
            node.create()
        return node.uuid

    def placement_aggregates(self, host):
        return [set(self.client.get_aggregates(uuid))
                for uuid in self.nodes[host]]

    def uuid_of(self, aggregate):
        return objects.Aggregate.get_by_id(self.admin_context,
                                           aggregate['id']).uuid

    def test_every_node_of_a_host_joins_keeping_its_other_aggregates(self):
        aggregate = self.make_aggregate(zone='az1')
        self.add_host(aggregate['id'], 'compute1')
        self.assertEqual([{self.uuid_of(aggregate), self.other}] * 2,
                         self.placement_aggregates('compute1'))

    def test_a_host_that_leaves_takes_its_nodes_out(self):
        aggregate = self.make_aggregate()
        self.add_host(aggregate['id'], 'compute1')
        response = self.act(aggregate['id'], 'remove_host',
                            {'host': 'compute1'})
        self.assertEqual(200, response.status_int, response.body)
        self.assertEqual([{self.other}] * 2,
                         self.placement_aggregates('compute1'))

    def test_a_host_not_discovered_yet_is_mirrored_too(self):
        aggregate = self.make_aggregate()
        self.add_host(aggregate['id'], 'compute3')
        self.assertEqual([{self.uuid_of(aggregate), self.other}],
                         self.placement_aggregates('compute3'))

    def test_placement_away_still_adds_the_host_and_names_the_remedy(self):
        self.plane.config.config(endpoint_override='http://127.0.0.1:9',
                                 timeout=2, group='placement')
        aggregate = self.add_host(self.make_aggregate()['id'], 'compute1')
        self.assertEqual(['compute1'], aggregate['hosts'])
        self.assertIn('placement sync_aggregates', self.logs.output)
        self.assertIn('Placement is unavailable', self.logs.output)

    def test_a_node_without_a_provider_yet_is_a_warning(self):
        self.make_node('compute2', 'node2')
        aggregate = self.add_host(self.make_aggregate()['id'], 'compute2')
        self.assertEqual(['compute2'], aggregate['hosts'])
        self.assertIn('has no resource provider yet', self.logs.output)
        self.assertIn('placement sync_aggregates', self.logs.output)

    def test_a_host_without_compute_nodes_yet_is_a_warning(self):
        self.add_host(self.make_aggregate()['id'], 'compute2')
        self.assertIn('Host compute2 has no compute node yet',
                      self.logs.output)
