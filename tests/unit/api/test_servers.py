"""/servers: create, list, show and delete across build requests and cells."""

import threading
import urllib.parse

import fixtures
import oslo_messaging as messaging
from oslo_utils import uuidutils

from nova_lite.compute import states
from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite import objects
from nova_lite import placement_client
from nova_lite import rpc
from tests.unit.api import base
from tests.unit import fixtures as nova_fixtures


def server_body(**overrides):
    server = {'name': 'web', 'flavorRef': '1', 'imageRef': base.IMAGE_UUID}
    server.update(overrides)
    return {'server': server}


class ServersTestCase(base.APITestCase):

    def setUp(self):
        super().setUp()
        self.flavor = self.make_flavor()
        self.make_image()
        self.conductor = self.useFixture(nova_fixtures.ConductorRecorder())

    def boot(self, token=base.DEMO, version=None, **overrides):
        response = self.request('POST', '/v2.1/servers',
                                server_body(**overrides), token=token,
                                version=version)
        self.assertEqual(202, response.status_int, response.body)
        return response

    def compute_up(self, host, recorder):
        """A compute service record for ``host`` in cell1 and ``recorder``
        serving its RPC topic (it records what the API casts there)."""
        with nova_context.target_cell(self.admin_context,
                                      self.cell1) as cctxt:
            objects.Service(cctxt, host=host, binary='nova-lite-compute',
                            topic='compute').create()
        server = rpc.get_server(messaging.Target(topic='compute.' + host,
                                                 server=host),
                                [recorder], executor='threading')
        server.start()
        self.addCleanup(server.wait)
        self.addCleanup(server.stop)
        return recorder

    def instance_in_cell(self, cell, vm_state=states.ACTIVE, host=None,
                         project_id=base.DEMO, fault=None):
        """An instance the conductor would have created in ``cell``."""
        with nova_context.target_cell(self.admin_context, cell) as cctxt:
            instance = objects.Instance(
                cctxt, uuid=uuidutils.generate_uuid(),
                project_id=project_id, user_id=project_id,
                display_name='in-a-cell', vm_state=vm_state,
                task_state=None, power_state=1, host=host, node=host,
                image_ref=base.IMAGE_UUID, flavor=self.flavor,
                metadata={}, tags=[])
            instance.create()
            if fault is not None:
                objects.InstanceFault(cctxt, instance_uuid=instance.uuid,
                                      code=500, message=fault,
                                      details='Traceback: deep').create()
            objects.InstanceMapping(
                self.admin_context, instance_uuid=instance.uuid,
                cell_mapping=cell, project_id=project_id,
                user_id=project_id).create()
        return instance


class TestCreate(ServersTestCase):

    def test_answers_202_with_id_links_and_location(self):
        server = self.boot().json['server']
        self.assertEqual(36, len(server['id']))
        self.assertEqual('MANUAL', server['OS-DCF:diskConfig'])
        self.assertEqual([{'name': 'default'}], server['security_groups'])
        self.assertEqual('self', server['links'][0]['rel'])

    def test_writes_the_api_database_records(self):
        uuid = self.boot().json['server']['id']
        build_request = objects.BuildRequest.get_by_instance_uuid(
            self.admin_context, uuid)
        self.assertEqual(states.BUILDING, build_request.instance.vm_state)
        self.assertEqual(states.SCHEDULING,
                         build_request.instance.task_state)
        mapping = objects.InstanceMapping.get_by_instance_uuid(
            self.admin_context, uuid)
        self.assertIsNone(mapping.cell_mapping)
        spec = objects.RequestSpec.get_by_instance_uuid(self.admin_context,
                                                        uuid)
        self.assertEqual('1', spec.flavor.flavorid)
        self.assertEqual(base.IMAGE_UUID, spec.image.id)

    def test_casts_one_build_to_the_conductor(self):
        uuid = self.boot().json['server']['id']
        [(context, build)] = self.conductor.wait_for_builds()
        self.assertEqual(base.DEMO, context.project_id)
        self.assertEqual([uuid], [b.instance_uuid
                                  for b in build['build_requests']])
        self.assertEqual([uuid], [s.instance_uuid
                                  for s in build['request_specs']])
        self.assertEqual(base.IMAGE_UUID, build['image'].id)

    def test_multi_create_names_and_one_cast(self):
        self.boot(min_count=2, max_count=3)
        [(_context, build)] = self.conductor.wait_for_builds()
        names = sorted(b.instance.display_name
                       for b in build['build_requests'])
        self.assertEqual(['web-1', 'web-2', 'web-3'], names)
        self.assertEqual({3}, {s.num_instances
                               for s in build['request_specs']})

    def test_return_reservation_id(self):
        body = self.boot(return_reservation_id=True).json
        self.assertTrue(body['reservation_id'].startswith('r-'))

    def test_scheduler_hints_under_either_key(self):
        for key in ('os:scheduler_hints', 'OS-SCH-HNT:scheduler_hints'):
            body = server_body()
            body[key] = {'same_host': 'abc', 'different_host': ['x', 'y']}
            uuid = self.request('POST', '/v2.1/servers', body
                                ).json['server']['id']
            spec = objects.RequestSpec.get_by_instance_uuid(
                self.admin_context, uuid)
            self.assertEqual({'same_host': ['abc'],
                              'different_host': ['x', 'y']},
                             spec.scheduler_hints)

    def test_block_device_mapping_v2_next_to_image_is_accepted(self):
        bdm = [{'boot_index': 0, 'uuid': base.IMAGE_UUID,
                'source_type': 'image', 'destination_type': 'local',
                'delete_on_termination': True}]
        self.boot(block_device_mapping_v2=bdm)
        [(_context, build)] = self.conductor.wait_for_builds()
        self.assertEqual(bdm, build['block_device_mapping'])

    def test_networks_are_required_from_237(self):
        response = self.request('POST', '/v2.1/servers', server_body(),
                                version='2.37')
        self.assertError(response, 400, 'badRequest', 'networks')
        self.boot(version='2.37', networks='auto')

    def test_tags_at_create_from_252(self):
        uuid = self.boot(version='2.52', networks='none',
                         tags=['blue']).json['server']['id']
        server = self.request('GET', '/v2.1/servers/' + uuid,
                              version='2.52').json['server']
        self.assertEqual(['blue'], server['tags'])

    def test_tags_before_252_are_400(self):
        response = self.request('POST', '/v2.1/servers',
                                server_body(tags=['blue']))
        self.assertError(response, 400, 'badRequest')

    def test_personality_is_ignored_before_257(self):
        self.boot(version='2.56', networks='none',
                  personality=[{'path': '/etc/motd', 'contents': 'aGk='}])

    def test_personality_from_257_is_400(self):
        response = self.request(
            'POST', '/v2.1/servers',
            server_body(networks='none', personality=[
                {'path': '/etc/motd', 'contents': 'aGk='}]),
            version='2.57')
        self.assertError(response, 400, 'badRequest', 'personality')

    def test_trusted_image_certificates_are_kept_and_shown_from_263(self):
        server = self.boot(version='2.63', networks='none',
                           trusted_image_certificates=['cert-1', 'cert-2']
                           ).json['server']
        shown = self.request('GET', '/v2.1/servers/%s' % server['id'],
                             version='2.63').json['server']
        self.assertEqual(['cert-1', 'cert-2'],
                         shown['trusted_image_certificates'])

    def test_personality_is_recorded_but_not_kept(self):
        server = self.boot(version='2.56', networks='none', personality=[
            {'path': '/etc/motd', 'contents': 'aGk='}]).json['server']
        build_request = objects.BuildRequest.get_by_instance_uuid(
            self.admin_context, server['id'])
        self.assertEqual('True', build_request.instance.system_metadata[
            'personality_used'])

    def test_null_trusted_image_certificates_boot(self):
        self.boot(version='2.63', networks='none',
                  trusted_image_certificates=None)

    def test_malformed_trusted_image_certificates_are_400(self):
        for value in ([], [''], ['a', 'a'], 'cert-1'):
            response = self.request(
                'POST', '/v2.1/servers',
                server_body(networks='none',
                            trusted_image_certificates=value),
                version='2.63')
            self.assertError(response, 400, 'badRequest',
                             'trusted_image_certificates')

    def test_trusted_image_certificates_before_263_are_400(self):
        response = self.request(
            'POST', '/v2.1/servers',
            server_body(networks='none',
                        trusted_image_certificates=['cert-1']),
            version='2.62')
        self.assertError(response, 400, 'badRequest',
                         'trusted_image_certificates')

    def test_unknown_flavor_is_400(self):
        response = self.request('POST', '/v2.1/servers',
                                server_body(flavorRef='42'))
        self.assertError(response, 400, 'badRequest', '42')

    def test_a_private_flavor_of_no_access_is_400(self):
        self.make_flavor('7', 'm1.private', is_public=False)
        response = self.request('POST', '/v2.1/servers',
                                server_body(flavorRef='7'))
        self.assertError(response, 400, 'badRequest', '7')

    def test_flavor_link_is_accepted(self):
        self.boot(flavorRef='http://example.com/v2.1/flavors/1')

    def test_unknown_image_is_400(self):
        response = self.request(
            'POST', '/v2.1/servers',
            server_body(imageRef='0c3b1a1e-1111-4222-8333-944445555666'))
        self.assertError(response, 400, 'badRequest', 'image')

    def test_missing_flavor_is_400(self):
        body = server_body()
        del body['server']['flavorRef']
        response = self.request('POST', '/v2.1/servers', body)
        self.assertError(response, 400, 'badRequest', 'flavorRef')

    def test_over_long_name_is_400(self):
        response = self.request('POST', '/v2.1/servers',
                                server_body(name='x' * 256))
        self.assertError(response, 400, 'badRequest', 'name')

    def test_min_count_above_max_count_is_400(self):
        response = self.request('POST', '/v2.1/servers',
                                server_body(min_count=3, max_count=2))
        self.assertError(response, 400, 'badRequest', 'min_count')

    def test_more_than_a_thousand_servers_in_one_request_is_400(self):
        for count in (1001, '1001', 2 ** 31, '99999999999'):
            response = self.request('POST', '/v2.1/servers',
                                    server_body(min_count=count))
            self.assertError(response, 400, 'badRequest', 'min_count')
            response = self.request('POST', '/v2.1/servers',
                                    server_body(max_count=count))
            self.assertError(response, 400, 'badRequest', 'max_count')

    def test_user_data_must_be_base64(self):
        response = self.request('POST', '/v2.1/servers',
                                server_body(user_data='not base64!'))
        self.assertError(response, 400, 'badRequest', 'user_data')

    def test_forcing_a_host_is_for_admins(self):
        response = self.request('POST', '/v2.1/servers',
                                server_body(availability_zone='nova:host1'))
        self.assertError(response, 403, 'forbidden')
        uuid = self.boot(token=base.ADMIN,
                         availability_zone='nova:host1'
                         ).json['server']['id']
        spec = objects.RequestSpec.get_by_instance_uuid(self.admin_context,
                                                        uuid)
        self.assertEqual(['host1'], spec.force_hosts)
        self.assertEqual('nova', spec.availability_zone)

    def test_an_unknown_availability_zone_is_400(self):
        response = self.request('POST', '/v2.1/servers',
                                server_body(availability_zone='az9'))
        self.assertError(response, 400, 'badRequest',
                         'The requested availability zone is not available')
        self.assertEqual([], list(objects.BuildRequestList.get_all(
            self.admin_context)))

    def test_the_default_availability_zone_may_be_asked_for(self):
        uuid = self.boot(availability_zone='nova').json['server']['id']
        spec = objects.RequestSpec.get_by_instance_uuid(self.admin_context,
                                                        uuid)
        self.assertEqual('nova', spec.availability_zone)

    def test_the_zone_of_an_aggregate_may_be_asked_for(self):
        objects.Aggregate(self.admin_context, name='az1-agg',
                          metadata={'availability_zone': 'az1'}).create()
        uuid = self.boot(availability_zone='az1').json['server']['id']
        spec = objects.RequestSpec.get_by_instance_uuid(self.admin_context,
                                                        uuid)
        self.assertEqual('az1', spec.availability_zone)

    def test_a_forced_host_in_an_unknown_zone_is_400(self):
        response = self.request('POST', '/v2.1/servers',
                                server_body(availability_zone='az9:host1'),
                                token=base.ADMIN)
        self.assertError(response, 400, 'badRequest',
                         'The requested availability zone is not available')

    def test_a_forced_host_without_a_zone_needs_no_zone(self):
        uuid = self.boot(token=base.ADMIN,
                         availability_zone=':host1').json['server']['id']
        spec = objects.RequestSpec.get_by_instance_uuid(self.admin_context,
                                                        uuid)
        self.assertEqual((['host1'], None),
                         (spec.force_hosts, spec.availability_zone))

    def test_failed_cast_removes_the_records_and_is_503(self):
        from nova_lite.conductor import rpcapi

        def refuse(*args, **kwargs):
            raise messaging.MessageDeliveryFailure('broker down')
        self.patch(rpcapi.ConductorAPI, 'schedule_and_build_instances',
                   refuse)
        response = self.request('POST', '/v2.1/servers', server_body())
        self.assertError(response, 503, 'serviceUnavailable', 'broker down')
        self.assertEqual([], list(objects.BuildRequestList.get_all(
            self.admin_context)))


class TestReads(ServersTestCase):

    def test_show_a_build_request(self):
        uuid = self.boot().json['server']['id']
        server = self.request('GET', '/v2.1/servers/' + uuid).json['server']
        self.assertEqual('BUILD', server['status'])
        self.assertEqual('scheduling', server['OS-EXT-STS:task_state'])
        self.assertEqual({'id': '1', 'links': server['flavor']['links']},
                         server['flavor'])
        self.assertEqual(base.IMAGE_UUID, server['image']['id'])
        self.assertEqual('', server['hostId'])
        self.assertTrue(server['created'].endswith('Z'))
        self.assertNotIn('OS-EXT-SRV-ATTR:host', server)

    def test_flavor_is_embedded_from_247(self):
        uuid = self.boot().json['server']['id']
        server = self.request('GET', '/v2.1/servers/' + uuid,
                              version='2.47').json['server']
        self.assertEqual('m1.tiny', server['flavor']['original_name'])
        self.assertEqual(512, server['flavor']['ram'])

    def test_trusted_image_certificates_are_shown_null_from_263(self):
        uuid = self.boot().json['server']['id']
        server = self.request('GET', '/v2.1/servers/' + uuid,
                              version='2.63').json['server']
        self.assertIsNone(server['trusted_image_certificates'])
        [server] = self.request('GET', '/v2.1/servers/detail',
                                version='2.63').json['servers']
        self.assertIsNone(server['trusted_image_certificates'])
        server = self.request('GET', '/v2.1/servers/' + uuid,
                              version='2.62').json['server']
        self.assertNotIn('trusted_image_certificates', server)

    def test_admin_sees_extended_attributes(self):
        uuid = self.boot().json['server']['id']
        server = self.request('GET', '/v2.1/servers/' + uuid,
                              token=base.ADMIN, version='2.16'
                              ).json['server']
        self.assertIsNone(server['OS-EXT-SRV-ATTR:host'])
        self.assertIn('OS-EXT-SRV-ATTR:reservation_id', server)
        self.assertEqual('', server['host_status'])

    def test_non_uuid_id_is_404(self):
        response = self.request('GET', '/v2.1/servers/web')
        self.assertError(response, 404, 'itemNotFound', 'web')

    def test_unknown_uuid_is_404(self):
        response = self.request(
            'GET', '/v2.1/servers/0c3b1a1e-1111-4222-8333-944445555666')
        self.assertError(response, 404, 'itemNotFound')

    def test_another_projects_server_is_404(self):
        uuid = self.boot().json['server']['id']
        response = self.request('GET', '/v2.1/servers/' + uuid,
                                token='mallory')
        self.assertError(response, 404, 'itemNotFound')

    def test_cell0_instance_shows_error_with_its_fault(self):
        instance = self.instance_in_cell(self.cell0, vm_state=states.ERROR,
                                         fault='No valid host was found.')
        server = self.request('GET', '/v2.1/servers/' + instance.uuid
                              ).json['server']
        self.assertEqual('ERROR', server['status'])
        self.assertEqual('No valid host was found.',
                         server['fault']['message'])
        self.assertNotIn('details', server['fault'])

    def test_admin_sees_fault_details(self):
        instance = self.instance_in_cell(self.cell0, vm_state=states.ERROR,
                                         fault='No valid host was found.')
        server = self.request('GET', '/v2.1/servers/' + instance.uuid,
                              token=base.ADMIN).json['server']
        self.assertEqual('Traceback: deep', server['fault']['details'])

    def test_list_merges_build_requests_and_cells_newest_first(self):
        in_cell = self.instance_in_cell(self.cell1, host='host1')
        building = self.boot().json['server']['id']
        servers = self.request('GET', '/v2.1/servers').json['servers']
        self.assertEqual([building, in_cell.uuid],
                         [s['id'] for s in servers])

    def test_list_is_per_project(self):
        self.boot()
        self.assertEqual([], self.request('GET', '/v2.1/servers',
                                          token='mallory').json['servers'])

    def test_all_tenants_is_for_admins(self):
        self.boot()
        response = self.request('GET', '/v2.1/servers?all_tenants=1')
        self.assertError(response, 403, 'forbidden')
        servers = self.request('GET', '/v2.1/servers/detail?all_tenants=1',
                               token=base.ADMIN).json['servers']
        self.assertEqual(1, len(servers))

    def test_a_page_asks_the_policy_once_per_rule(self):
        from nova_lite.api.compute import server_views
        from nova_lite import policy
        for _ in range(3):
            self.boot()
        asked = []
        real = policy.authorize

        def authorize(context, action, *args, **kwargs):
            asked.append(action)
            return real(context, action, *args, **kwargs)
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.policy.authorize', authorize))
        servers = self.request('GET', '/v2.1/servers/detail?all_tenants=1',
                               token=base.ADMIN).json['servers']
        self.assertEqual(3, len(servers))
        # An administrator sees the extended attributes of every one.
        self.assertIn('OS-EXT-SRV-ATTR:host', servers[0])
        self.assertEqual(1, asked.count(server_views.EXTENDED_ATTRS_POLICY))

    def test_status_and_name_filters(self):
        self.instance_in_cell(self.cell1, host='host1')
        self.boot(name='db')
        active = self.request('GET', '/v2.1/servers?status=ACTIVE'
                              ).json['servers']
        self.assertEqual(['in-a-cell'], [s['name'] for s in active])
        named = self.request('GET', '/v2.1/servers?name=^d').json['servers']
        self.assertEqual(['db'], [s['name'] for s in named])

    def names(self, name_filter):
        response = self.request('GET', '/v2.1/servers?name=' +
                                urllib.parse.quote(name_filter))
        self.assertEqual(200, response.status_int, response.body)
        return [s['name'] for s in response.json['servers']]

    def test_the_name_filter_is_a_regular_expression(self):
        for name in ('web-1', 'web-2', 'db'):
            self.boot(name=name)
        self.assertEqual(['web-2', 'web-1'], self.names('web'))
        self.assertEqual(['web-2'], self.names('^web-[2-9]$'))
        self.assertEqual(['db'], self.names('b$'))

    def test_a_catastrophic_pattern_is_answered_at_once(self):
        # Python's re backtracks for hours on this, holding the GIL.
        self.useFixture(fixtures.Timeout(60, gentle=True))
        self.boot(name='a' * 40 + 'b')
        self.assertEqual([], self.names('(a+)+$'))

    def test_a_pattern_re2_does_not_take_matches_the_equal_name(self):
        self.boot(name=r'(x)\1')
        self.boot(name='xx')
        self.assertEqual([r'(x)\1'], self.names(r'(x)\1'))

    def test_a_name_filter_longer_than_a_name_is_400(self):
        response = self.request('GET', '/v2.1/servers?name=' + 'a' * 256)
        self.assertError(response, 400, 'badRequest', 'at most 255')
        self.assertEqual(200, self.request(
            'GET', '/v2.1/servers?name=' + 'a' * 255).status_int)

    def test_limit_and_marker(self):
        first = self.boot().json['server']['id']
        second = self.boot().json['server']['id']
        page = self.request('GET', '/v2.1/servers?limit=1').json
        self.assertEqual([second], [s['id'] for s in page['servers']])
        self.assertIn('marker=' + second, page['servers_links'][0]['href'])
        rest = self.request('GET', '/v2.1/servers?marker=' + second).json
        self.assertEqual([first], [s['id'] for s in rest['servers']])

    def test_the_next_link_of_the_details_pages_the_details(self):
        self.boot()
        second = self.boot().json['server']['id']
        page = self.request('GET', '/v2.1/servers/detail?limit=1').json
        self.assertEqual(
            'http://localhost/v2.1/servers/detail?limit=1&marker=' + second,
            page['servers_links'][0]['href'])

    def test_unknown_marker_is_400(self):
        response = self.request(
            'GET', '/v2.1/servers?marker=0c3b1a1e-1111-4222-8333-944445555666')
        self.assertError(response, 400, 'badRequest')


class _ComputeRecorder:
    target = messaging.Target(version='1.0')

    def __init__(self):
        self.terminated = threading.Event()

    def terminate_instance(self, context, instance):
        self.terminated.set()


class TestDelete(ServersTestCase):

    def test_delete_a_build_request(self):
        uuid = self.boot().json['server']['id']
        response = self.request('DELETE', '/v2.1/servers/' + uuid)
        self.assertEqual(204, response.status_int)
        self.assertRaises(exception.BuildRequestNotFound,
                          objects.BuildRequest.get_by_instance_uuid,
                          self.admin_context, uuid)
        self.assertRaises(exception.RequestSpecNotFound,
                          objects.RequestSpec.get_by_instance_uuid,
                          self.admin_context, uuid)
        mapping = objects.InstanceMapping.get_by_instance_uuid(
            self.admin_context, uuid)
        self.assertTrue(mapping.queued_for_delete)
        self.assertError(self.request('GET', '/v2.1/servers/' + uuid), 404,
                         'itemNotFound')

    def test_delete_another_projects_server_is_404(self):
        uuid = self.boot().json['server']['id']
        response = self.request('DELETE', '/v2.1/servers/' + uuid,
                                token='mallory')
        self.assertError(response, 404, 'itemNotFound')

    def test_delete_in_cell0_destroys_there(self):
        instance = self.instance_in_cell(self.cell0, vm_state=states.ERROR)
        response = self.request('DELETE', '/v2.1/servers/' + instance.uuid)
        self.assertEqual(204, response.status_int)
        self.assertError(self.request('GET', '/v2.1/servers/' +
                                      instance.uuid), 404, 'itemNotFound')

    def held_in_placement(self, instance):
        """A placement of this test's own holding an allocation of
        ``instance`` on a node: as the scheduler's claim would."""
        placement = self.useFixture(nova_fixtures.PlacementServer())
        node = uuidutils.generate_uuid()
        placement.add_compute_node(node, 'host1')
        client = placement_client.PlacementClient(
            endpoint=placement.endpoint)
        # The API's client (made once per process) calls this placement.
        from nova_lite.api.compute import servers
        self.patch(servers._API, '_reportclient', client)
        client.put_allocations(
            instance.uuid, {node: {'resources': {'VCPU': 1}}},
            instance.project_id, instance.user_id)
        self.assertNotEqual(
            {}, client.get_allocations(instance.uuid)['allocations'])
        return client

    def test_delete_with_compute_down_is_local(self):
        instance = self.instance_in_cell(self.cell1, host='host1')
        placement = self.held_in_placement(instance)
        response = self.request('DELETE', '/v2.1/servers/' + instance.uuid)
        self.assertEqual(204, response.status_int)
        self.assertEqual([], self.request('GET', '/v2.1/servers'
                                          ).json['servers'])
        # No compute gives it back: the delete does (as Nova's API).
        self.assertEqual(
            {}, placement.get_allocations(instance.uuid)['allocations'])

    def test_delete_before_the_compute_took_the_build_gives_back(self):
        """Scheduled, in its cell, not yet taken over by its compute (no
        host): the scheduler's claim goes with it, not when that compute
        gets the build -- which may be away for long."""
        instance = self.instance_in_cell(self.cell1, host=None)
        placement = self.held_in_placement(instance)
        response = self.request('DELETE', '/v2.1/servers/' + instance.uuid)
        self.assertEqual(204, response.status_int)
        self.assertEqual(
            {}, placement.get_allocations(instance.uuid)['allocations'])

    def test_delete_with_compute_up_casts_terminate(self):
        instance = self.instance_in_cell(self.cell1, host='host1')
        compute = self.compute_up('host1', _ComputeRecorder())
        response = self.request('DELETE', '/v2.1/servers/' + instance.uuid)
        self.assertEqual(204, response.status_int)
        self.assertTrue(compute.terminated.wait(10))
        shown = self.request('GET', '/v2.1/servers/' + instance.uuid
                             ).json['server']
        self.assertEqual('deleting', shown['OS-EXT-STS:task_state'])


class TestCreateBounds(ServersTestCase):
    """Each list and map of a create has a bound (see
    ``tests/unit/test_request_schema_bounds.py``); over it, a 400 that
    says how long it was and what is allowed."""

    def create(self, version=None, **overrides):
        return self.request('POST', '/v2.1/servers',
                            server_body(**overrides), version=version)

    def test_more_networks_than_a_server_takes_is_400(self):
        networks = [{'uuid': uuidutils.generate_uuid()}
                    for _ in range(101)]
        self.assertError(self.create(version='2.37', networks=networks), 400,
                         'badRequest', 'It has 101 items; at most 100')

    def test_more_block_devices_than_a_server_takes_is_400(self):
        bdms = [{'source_type': 'blank', 'destination_type': 'local',
                 'volume_size': 1} for _ in range(101)]
        self.assertError(self.create(block_device_mapping_v2=bdms), 400,
                         'badRequest', 'at most 100')

    def test_metadata_over_the_quota_is_403_and_over_the_ceiling_400(self):
        over_quota = {'k%d' % i: 'v' for i in range(129)}
        self.assertError(self.create(metadata=over_quota), 403, 'forbidden',
                         'metadata_items')
        over_ceiling = {'k%d' % i: 'v' for i in range(1001)}
        self.assertError(self.create(metadata=over_ceiling), 400, 'badRequest',
                         'It has 1001 keys; at most 1000')

    def test_too_many_scheduler_hints_or_hint_values_are_400(self):
        for hints in ({'h%d' % i: 'x' for i in range(101)},
                      {'same_host': ['x'] * 1001}):
            body = dict(server_body(), **{'os:scheduler_hints': hints})
            self.assertError(self.request('POST', '/v2.1/servers', body),
                             400, 'badRequest', 'at most')
