"""POST /servers/{id}/action: rebuild (on its host, and from cell0 from
2.65), os-stop and os-start."""

import threading

import fixtures
import oslo_messaging as messaging

from nova_lite.compute import states
from nova_lite.conductor import rpcapi as conductor_rpcapi
from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite import lifecycle
from nova_lite import objects
from nova_lite.api.compute import servers
from tests.unit.api import base
from tests.unit.api import test_servers

NEW_IMAGE = '4c8a7d2e-3f9b-4e1a-9b0c-5d6e7f8a9b0c'


class _Compute:
    """An RPC server on one compute's topic that records what it is sent."""

    target = messaging.Target(version='1.1')

    def __init__(self):
        self.calls = []
        self.arrived = threading.Event()

    def _record(self, method, **kwargs):
        self.calls.append((method, kwargs))
        self.arrived.set()

    def rebuild_instance(self, context, **kwargs):
        self._record('rebuild_instance', **kwargs)

    def stop_instance(self, context, **kwargs):
        self._record('stop_instance', **kwargs)

    def start_instance(self, context, **kwargs):
        self._record('start_instance', **kwargs)


class ActionsTestCase(test_servers.ServersTestCase):

    def setUp(self):
        super().setUp()
        self.make_image(image_id=NEW_IMAGE, name='new-image')

    def action(self, uuid, body, version=None, token=base.DEMO):
        return self.request('POST', '/v2.1/servers/%s/action' % uuid, body,
                            version=version, token=token)

    def fresh_rpc_clients(self):
        """The API reads its [upgrade_levels] pins when it creates its RPC
        clients; have it create them again for this test only."""
        api = servers._API
        for name in ('_conductor', '_compute_rpc'):
            self.addCleanup(setattr, api, name, getattr(api, name))
            setattr(api, name, None)

    def compute_up(self, host='host1', recorder=None):
        return super().compute_up(host, recorder or _Compute())

    def in_cell1(self, uuid):
        with nova_context.target_cell(self.admin_context,
                                      self.cell1) as cctxt:
            return objects.Instance.get_by_uuid(cctxt, uuid)


class TestRebuildOnHost(ActionsTestCase):

    def test_rebuild_casts_to_the_compute_with_the_new_image(self):
        compute = self.compute_up()
        instance = self.instance_in_cell(self.cell1, host='host1')
        response = self.action(instance.uuid, {'rebuild': {
            'imageRef': NEW_IMAGE, 'name': 'renamed',
            'metadata': {'role': 'db'}}})
        self.assertEqual(202, response.status_int, response.body)
        self.assertEqual(NEW_IMAGE, response.json['server']['image']['id'])
        self.assertTrue(compute.arrived.wait(10))
        [(method, kwargs)] = compute.calls
        self.assertEqual('rebuild_instance', method)
        self.assertEqual(NEW_IMAGE, kwargs['image'].id)
        self.assertEqual(base.IMAGE_UUID, kwargs['orig_image_ref'])
        stored = self.in_cell1(instance.uuid)
        self.assertEqual((states.REBUILDING, 'renamed', {'role': 'db'}),
                         (stored.task_state, stored.display_name,
                          stored.metadata))

    def test_rebuild_metadata_over_the_quota_is_403(self):
        # As at create: at most [quota] metadata_items (128).
        self.compute_up()
        instance = self.instance_in_cell(self.cell1, host='host1')
        response = self.action(instance.uuid, {'rebuild': {
            'imageRef': NEW_IMAGE,
            'metadata': {'k%d' % i: 'v' for i in range(129)}}})
        self.assertError(response, 403, 'forbidden', 'metadata_items')
        self.assertIsNone(self.in_cell1(instance.uuid).task_state)

    def test_rebuild_sets_key_pair_from_254(self):
        self.compute_up()
        self.request('POST', '/v2.1/os-keypairs',
                     {'keypair': {'name': 'k1'}})
        instance = self.instance_in_cell(self.cell1, host='host1')
        response = self.action(instance.uuid, {'rebuild': {
            'imageRef': NEW_IMAGE, 'key_name': 'k1'}}, version='2.54')
        self.assertEqual(202, response.status_int, response.body)
        stored = self.in_cell1(instance.uuid)
        self.assertEqual('k1', stored.key_name)
        self.assertTrue(stored.key_data.startswith('ssh-'))

    def test_key_name_before_254_is_400(self):
        instance = self.instance_in_cell(self.cell1, host='host1')
        response = self.action(instance.uuid, {'rebuild': {
            'imageRef': NEW_IMAGE, 'key_name': 'k1'}}, version='2.53')
        self.assertError(response, 400, 'badRequest', 'key_name')

    def test_bad_image_reference_is_400(self):
        self.compute_up()
        instance = self.instance_in_cell(self.cell1, host='host1')
        response = self.action(instance.uuid, {'rebuild': {
            'imageRef': 'no-such-image'}})
        self.assertError(response, 400, 'badRequest', 'no-such-image')
        self.assertIsNone(self.in_cell1(instance.uuid).task_state)

    def test_task_state_in_progress_is_409(self):
        self.compute_up()
        instance = self.instance_in_cell(self.cell1, host='host1')
        instance.task_state = states.DELETING
        instance.save()
        response = self.action(instance.uuid, {'rebuild': {
            'imageRef': NEW_IMAGE}})
        self.assertError(response, 409, 'conflictingRequest', 'task_state')

    def test_building_server_is_409(self):
        uuid = self.boot().json['server']['id']
        response = self.action(uuid, {'rebuild': {'imageRef': NEW_IMAGE}})
        self.assertError(response, 409, 'conflictingRequest', 'building')

    def test_another_projects_server_is_404(self):
        instance = self.instance_in_cell(self.cell1, host='host1')
        response = self.action(instance.uuid, {'rebuild': {
            'imageRef': NEW_IMAGE}}, token='mallory')
        self.assertError(response, 404, 'itemNotFound')

    def test_compute_down_is_503_and_nothing_changes(self):
        instance = self.instance_in_cell(self.cell1, host='host1')
        response = self.action(instance.uuid, {'rebuild': {
            'imageRef': NEW_IMAGE, 'name': 'renamed'}})
        self.assertError(response, 503, 'serviceUnavailable', 'down')
        stored = self.in_cell1(instance.uuid)
        self.assertEqual((None, 'in-a-cell', base.IMAGE_UUID),
                         (stored.task_state, stored.display_name,
                          stored.image_ref))

    def test_compute_pinned_below_1_1_is_409(self):
        self.compute_up()
        self.plane.config.config(compute='1.0', group='upgrade_levels')
        self.fresh_rpc_clients()
        instance = self.instance_in_cell(self.cell1, host='host1')
        response = self.action(instance.uuid, {'rebuild': {
            'imageRef': NEW_IMAGE}})
        self.assertError(response, 409, 'conflictingRequest', '1.1')

    def test_unknown_action_is_400(self):
        instance = self.instance_in_cell(self.cell1, host='host1')
        response = self.action(instance.uuid, {'os-shelve': None})
        self.assertError(response, 400, 'badRequest', 'rebuild')


class TestStopStart(ActionsTestCase):

    def test_stop_then_start_cast_to_the_compute(self):
        compute = self.compute_up()
        instance = self.instance_in_cell(self.cell1, host='host1')
        response = self.action(instance.uuid, {'os-stop': None})
        self.assertEqual(202, response.status_int, response.body)
        self.assertTrue(compute.arrived.wait(10))
        self.assertEqual(states.POWERING_OFF,
                         self.in_cell1(instance.uuid).task_state)
        stored = self.in_cell1(instance.uuid)
        stored.task_state = None
        stored.vm_state = states.STOPPED
        stored.save()
        compute.arrived.clear()
        response = self.action(instance.uuid, {'os-start': None})
        self.assertEqual(202, response.status_int, response.body)
        self.assertTrue(compute.arrived.wait(10))
        self.assertEqual(['stop_instance', 'start_instance'],
                         [method for method, _kwargs in compute.calls])

    def test_start_of_an_active_server_is_409(self):
        self.compute_up()
        instance = self.instance_in_cell(self.cell1, host='host1')
        response = self.action(instance.uuid, {'os-start': None})
        self.assertError(response, 409, 'conflictingRequest', 'active')


class TestRebuildFromCell0(ActionsTestCase):

    def bury(self, **boot):
        """Boot through the API, then bury as the conductor would."""
        uuid = self.boot(**boot).json['server']['id']
        build_request = objects.BuildRequest.get_by_instance_uuid(
            self.admin_context, uuid)
        spec = objects.RequestSpec.get_by_instance_uuid(self.admin_context,
                                                        uuid)
        lifecycle.bury_in_cell0(
            self.admin_context, build_request, spec,
            exception.NoValidHost(reason='0/1 hosts available'),
            objects.NetworkRequestList.from_api('auto'))
        return uuid

    def cell0_record(self, uuid):
        context = nova_context.get_admin_context(read_deleted='yes')
        with nova_context.target_cell(context, self.cell0) as cctxt:
            return objects.InstanceList.get_by_filters(
                cctxt, {'uuid': [uuid], 'deleted': True}).objects

    def test_before_265_it_is_409_as_it_always_was(self):
        uuid = self.bury()
        response = self.action(uuid, {'rebuild': {'imageRef': NEW_IMAGE}},
                               version='2.64')
        self.assertError(response, 409, 'conflictingRequest',
                         "Cannot 'rebuild' instance %s while it is in "
                         "vm_state error" % uuid)
        self.assertEqual(1, len(self.cell0_record(uuid)))

    def test_from_265_the_server_is_taken_out_of_cell0(self):
        uuid = self.bury(version='2.52', networks='none', tags=['a'])
        response = self.action(uuid, {'rebuild': {'imageRef': NEW_IMAGE,
                                                  'name': 'again'}},
                               version='2.65')
        self.assertEqual(202, response.status_int, response.body)
        server = response.json['server']
        self.assertEqual((uuid, 'BUILD', 'again'),
                         (server['id'], server['status'], server['name']))
        # Hard-deleted from cell0; a BuildRequest with the same UUID; the
        # mapping points at no cell.
        self.assertEqual([], self.cell0_record(uuid))
        build_request = objects.BuildRequest.get_by_instance_uuid(
            self.admin_context, uuid)
        self.assertEqual((states.BUILDING, NEW_IMAGE, ['a']),
                         (build_request.instance.vm_state,
                          build_request.instance.image_ref,
                          build_request.instance.tags))
        self.assertIsNone(objects.InstanceMapping.get_by_instance_uuid(
            self.admin_context, uuid).cell_mapping)
        [(_context, cast)] = self.conductor.wait_for_rebuilds()
        self.assertEqual(uuid, cast['build_request'].instance_uuid)
        self.assertEqual('auto',
                         cast['request_spec'].requested_networks.to_api())
        self.assertEqual(NEW_IMAGE, cast['image'].id)
        listed = self.request('GET', '/v2.1/servers').json['servers']
        self.assertEqual([uuid], [s['id'] for s in listed])

    def test_volume_backed_server_keeps_its_block_devices(self):
        volume = '8d5b2c3e-1f4a-4b6c-9d7e-0a1b2c3d4e5f'
        uuid = self.bury(imageRef=None, block_device_mapping_v2=[{
            'boot_index': 0, 'uuid': volume, 'source_type': 'volume',
            'destination_type': 'volume', 'delete_on_termination': 'false'}])
        response = self.action(uuid, {'rebuild': {'imageRef': NEW_IMAGE}},
                               version='2.65')
        self.assertEqual(202, response.status_int, response.body)
        server = response.json['server']
        self.assertEqual(('', [{'id': volume,
                                'delete_on_termination': False}]),
                         (server['image'],
                          server['os-extended-volumes:volumes_attached']))
        [(_context, cast)] = self.conductor.wait_for_rebuilds()
        self.assertTrue(cast['request_spec'].is_bfv)
        [bdm] = cast['build_request'].instance.block_device_mapping
        self.assertEqual((volume, 0), (bdm.uuid, bdm.boot_index))

    def test_server_created_with_personality_is_409(self):
        uuid = self.bury(version='2.56', networks='none', personality=[
            {'path': '/etc/motd', 'contents': 'aGk='}])
        response = self.action(uuid, {'rebuild': {'imageRef': NEW_IMAGE}},
                               version='2.65')
        self.assertError(response, 409, 'conflictingRequest',
                         'personality')
        self.assertEqual(1, len(self.cell0_record(uuid)))

    def test_conductor_pinned_below_1_1_refuses_before_changing_anything(
            self):
        self.plane.config.config(conductor='1.0', group='upgrade_levels')
        self.fresh_rpc_clients()
        uuid = self.bury()
        response = self.action(uuid, {'rebuild': {'imageRef': NEW_IMAGE}},
                               version='2.65')
        self.assertError(response, 409, 'conflictingRequest', 'conductor')
        self.assertEqual(1, len(self.cell0_record(uuid)))
        self.assertRaises(exception.BuildRequestNotFound,
                          objects.BuildRequest.get_by_instance_uuid,
                          self.admin_context, uuid)

    def test_a_queued_delete_wins_and_leaves_no_build_request(self):
        uuid = self.bury()
        mapping = objects.InstanceMapping.get_by_instance_uuid(
            self.admin_context, uuid)
        mapping.queued_for_delete = True
        mapping.save()
        response = self.action(uuid, {'rebuild': {'imageRef': NEW_IMAGE}},
                               version='2.65')
        self.assertError(response, 404, 'itemNotFound')
        self.assertRaises(exception.BuildRequestNotFound,
                          objects.BuildRequest.get_by_instance_uuid,
                          self.admin_context, uuid)
        self.assertEqual([], self.conductor.rebuilds)

    def test_a_failure_after_leaving_cell0_buries_the_server_again(self):
        uuid = self.bury()
        self.useFixture(fixtures.MockPatchObject(
            objects.RequestSpec, 'save',
            side_effect=exception.DatabaseUnavailable(url='mysql://api',
                                                      reason='gone')))
        response = self.action(uuid, {'rebuild': {'imageRef': NEW_IMAGE}},
                               version='2.65')
        self.assertError(response, 503, 'serviceUnavailable')
        [record] = self.cell0_record(uuid)
        self.assertEqual(states.ERROR, record.vm_state)
        self.assertRaises(exception.BuildRequestNotFound,
                          objects.BuildRequest.get_by_instance_uuid,
                          self.admin_context, uuid)
        self.assertEqual([uuid], [s['id'] for s in self.request(
            'GET', '/v2.1/servers').json['servers']])

    def test_unsent_cast_buries_the_server_again(self):
        uuid = self.bury()
        self.useFixture(fixtures.MockPatchObject(
            conductor_rpcapi.ConductorAPI, 'rebuild_instance_in_cell0',
            side_effect=messaging.MessageDeliveryFailure('broker down')))
        response = self.action(uuid, {'rebuild': {'imageRef': NEW_IMAGE}},
                               version='2.65')
        self.assertError(response, 503, 'serviceUnavailable', 'cell0')
        [record] = self.cell0_record(uuid)
        self.assertEqual(states.ERROR, record.vm_state)
        self.assertTrue(objects.InstanceMapping.get_by_instance_uuid(
            self.admin_context, uuid).cell_mapping.is_cell0)
        spec = objects.RequestSpec.get_by_instance_uuid(self.admin_context,
                                                        uuid)
        self.assertEqual('auto', spec.requested_networks.to_api())
        listed = self.request('GET', '/v2.1/servers').json['servers']
        self.assertEqual([uuid], [s['id'] for s in listed])
