"""POST /servers/{id}/action evacuate, shelve, shelveOffload and unshelve;
and POST /servers naming ports (their resource requests become request
groups of the RequestSpec).

The port service is the in-memory stand-in, put in place of the API's
port client; the computes and the conductor are recorders on their RPC
topics."""

import fixtures
import oslo_messaging as messaging
from oslo_utils import uuidutils

from nova_lite.api.compute import servers
from nova_lite.compute import states
from nova_lite.conductor import rpcapi as conductor_rpcapi
from nova_lite import context as nova_context
from nova_lite import objects
from tests.unit.api import base
from tests.unit.api import test_server_actions
from tests.unit.api import test_servers
from tests.unit import fixtures as nova_fixtures
from tests.unit.network import test_client_helpers as port_fakes
from tests.unit.objects import test_migration_and_groups as db_fixtures


class MoveConductorRecorder(nova_fixtures.ConductorRecorder):
    """The conductor recorder, also for conductor RPC 1.2: the evacuations
    and the unshelves of offloaded servers (and from 1.5 an evacuation's
    force)."""

    target = messaging.Target(version='1.5')

    def _setUp(self):
        self.evacuations = []
        self.unshelves = []
        super()._setUp()

    def evacuate_instance(self, context, **kwargs):
        with self._arrived:
            self.evacuations.append((context, kwargs))
            self._arrived.notify_all()

    def unshelve_instance(self, context, **kwargs):
        with self._arrived:
            self.unshelves.append((context, kwargs))
            self._arrived.notify_all()

    def wait_for(self, calls, count=1, timeout=10):
        with self._arrived:
            self._arrived.wait_for(lambda: len(calls) >= count,
                                   timeout=timeout)
        return calls


class ShelvingCompute(test_server_actions._Compute):
    """A compute of compute RPC 1.3 recording what it is sent."""

    target = messaging.Target(version='1.3')

    def shelve_instance(self, context, **kwargs):
        self._record('shelve_instance', **kwargs)

    def shelve_offload_instance(self, context, **kwargs):
        self._record('shelve_offload_instance', **kwargs)

    def unshelve_instance(self, context, **kwargs):
        self._record('unshelve_instance', **kwargs)


class MovesTestCase(test_server_actions.ActionsTestCase):

    def setUp(self):
        # The servers' test case listens on the conductor topic with a
        # recorder of builds; this one records the moves too.
        self.useFixture(fixtures.MonkeyPatch(
            'tests.unit.fixtures.ConductorRecorder', MoveConductorRecorder))
        db_fixtures.use_migrated_databases(self)
        super().setUp()
        self.ports = port_fakes.FakePortService()
        api = servers._API
        self.addCleanup(setattr, api, '_ports', api._ports)
        api._ports = self.ports

    def compute_up(self, host='host1', recorder=None):
        return super().compute_up(host, recorder or ShelvingCompute())

    def service_up(self, host):
        """A compute service record of ``host`` that counts as up, without
        an RPC server behind it (for checks that cast nothing)."""
        with nova_context.target_cell(self.admin_context,
                                      self.cell1) as cctxt:
            objects.Service(cctxt, host=host, binary='nova-lite-compute',
                            topic='compute').create()

    def server(self, vm_state=states.ACTIVE, host='host1', port=None):
        """A server of demo in cell1 on ``host``; ``port``: 'plain' or
        'bandwidth' gives it a port bound there."""
        instance = self.instance_in_cell(self.cell1, vm_state=vm_state,
                                         host=host)
        if port is not None:
            self.port = self.ports.add(port_fakes.port(
                device_id=instance.uuid, project_id=instance.project_id,
                host=host,
                egress=100 if port == 'bandwidth' else None))
        return instance

    def set_state(self, instance, vm_state=None, task_state=None):
        stored = self.in_cell1(instance.uuid)
        if vm_state is not None:
            stored.vm_state = vm_state
        stored.task_state = task_state
        stored.save()


# -- evacuate -----------------------------------------------------------------

class EvacuateTestCase(MovesTestCase):

    def evacuate(self, instance, version='2.29', token=base.ADMIN,
                 **arguments):
        return self.action(instance.uuid, {'evacuate': arguments},
                           version=version, token=token)

    def assertNothingChanged(self, instance):
        self.assertIsNone(self.in_cell1(instance.uuid).task_state)
        self.assertEqual([], self.conductor.evacuations)


class TestEvacuate(EvacuateTestCase):

    def test_accepted_and_cast_to_the_conductor(self):
        instance = self.server(port='plain')
        response = self.evacuate(instance)
        self.assertEqual(200, response.status_int, response.body)
        [(_context, cast)] = self.conductor.wait_for(
            self.conductor.evacuations)
        self.assertEqual((instance.uuid, None),
                         (cast['instance'].uuid, cast['host']))

    def test_the_server_is_rebuilding_until_the_conductor_is_done(self):
        instance = self.server()
        self.evacuate(instance)
        self.assertEqual(states.REBUILDING,
                         self.in_cell1(instance.uuid).task_state)

    def test_a_target_host_is_passed_on(self):
        self.service_up('host2')
        instance = self.server()
        self.assertEqual(200, self.evacuate(instance, host='host2')
                         .status_int)
        [(_context, cast)] = self.conductor.wait_for(
            self.conductor.evacuations)
        self.assertEqual('host2', cast['host'])

    def test_the_server_shows_rebuild_meanwhile(self):
        instance = self.server()
        self.evacuate(instance)
        shown = self.request('GET', '/v2.1/servers/' + instance.uuid
                             ).json['server']
        self.assertEqual('REBUILD', shown['status'])

    def test_the_evacuation_is_recorded_as_an_action(self):
        instance = self.server()
        self.evacuate(instance)
        actions = self.request(
            'GET', '/v2.1/servers/%s/os-instance-actions' % instance.uuid,
            token=base.ADMIN).json['instanceActions']
        self.assertEqual(['evacuate'], [a['action'] for a in actions])

    def test_a_stopped_server_may_be_evacuated(self):
        instance = self.server(vm_state=states.STOPPED)
        self.assertEqual(200, self.evacuate(instance).status_int)


class TestEvacuateRefusals(EvacuateTestCase):

    def test_it_is_for_admins(self):
        instance = self.server()
        self.assertError(self.evacuate(instance, token=base.DEMO), 403,
                         'forbidden')
        self.assertNothingChanged(instance)

    def test_while_the_source_compute_is_up_it_is_400(self):
        self.service_up('host1')
        instance = self.server()
        self.assertError(self.evacuate(instance), 400, 'badRequest',
                         'still in use')
        self.assertNothingChanged(instance)

    def test_the_source_host_as_target_is_400(self):
        instance = self.server()
        self.assertError(self.evacuate(instance, host='host1'), 400,
                         'badRequest', 'same one')
        self.assertNothingChanged(instance)

    def test_an_unknown_target_host_is_404(self):
        instance = self.server()
        self.assertError(self.evacuate(instance, host='nowhere'), 404,
                         'itemNotFound', 'nowhere')
        self.assertNothingChanged(instance)

    def test_a_server_in_a_task_is_409(self):
        instance = self.server()
        self.set_state(instance, task_state=states.POWERING_OFF)
        self.assertError(self.evacuate(instance), 409,
                         'conflictingRequest', 'task_state')

    def test_a_server_still_building_is_409(self):
        uuid = self.boot().json['server']['id']
        response = self.action(uuid, {'evacuate': {}}, version='2.29',
                               token=base.ADMIN)
        self.assertError(response, 409, 'conflictingRequest')

    def test_a_compute_pinned_to_1_2_cannot_move_port_resources(self):
        self.plane.config.config(compute='1.2', group='upgrade_levels')
        self.fresh_rpc_clients()
        instance = self.server(port='bandwidth')
        self.assertError(self.evacuate(instance), 409, 'conflictingRequest',
                         'minimum bandwidth')
        self.assertNothingChanged(instance)

    def test_a_compute_pinned_to_1_2_evacuates_a_server_without_them(self):
        self.plane.config.config(compute='1.2', group='upgrade_levels')
        self.fresh_rpc_clients()
        instance = self.server(port='plain')
        self.assertEqual(200, self.evacuate(instance).status_int)

    def test_a_compute_pinned_to_1_1_cannot_evacuate_at_all(self):
        self.plane.config.config(compute='1.1', group='upgrade_levels')
        self.fresh_rpc_clients()
        instance = self.server()
        self.assertError(self.evacuate(instance), 409, 'conflictingRequest',
                         '1.2')
        self.assertNothingChanged(instance)

    def test_conductors_pinned_below_1_2_are_409(self):
        self.plane.config.config(conductor='1.1', group='upgrade_levels')
        self.fresh_rpc_clients()
        instance = self.server()
        self.assertError(self.evacuate(instance), 409, 'conflictingRequest',
                         'conductor')
        self.assertNothingChanged(instance)

    def test_an_unsent_cast_is_503_and_nothing_changes(self):
        self.useFixture(fixtures.MockPatchObject(
            conductor_rpcapi.ConductorAPI, 'evacuate_instance',
            side_effect=messaging.MessageDeliveryFailure('broker down')))
        instance = self.server()
        self.assertError(self.evacuate(instance), 503, 'serviceUnavailable',
                         'broker down')
        self.assertIsNone(self.in_cell1(instance.uuid).task_state)


class TestEvacuateMicroversions(EvacuateTestCase):

    def test_before_214_on_shared_storage_is_required(self):
        instance = self.server()
        self.assertError(self.evacuate(instance, version='2.13'), 400,
                         'badRequest', 'onSharedStorage')

    def test_before_214_the_answer_carries_the_admin_password(self):
        instance = self.server()
        response = self.evacuate(instance, version='2.13',
                                 onSharedStorage=False, adminPass='s3cret')
        self.assertEqual(200, response.status_int, response.body)
        self.assertEqual({'adminPass': 's3cret'}, response.json)

    def test_from_214_on_shared_storage_is_refused(self):
        instance = self.server()
        self.assertError(self.evacuate(instance, version='2.14',
                                       onSharedStorage=False), 400,
                         'badRequest')

    def test_from_214_the_answer_has_no_body(self):
        instance = self.server()
        response = self.evacuate(instance, version='2.14')
        self.assertEqual((200, b''), (response.status_int, response.body))

    def test_force_before_229_is_refused(self):
        instance = self.server()
        self.assertError(self.evacuate(instance, version='2.28', force=True),
                         400, 'badRequest')

    def test_force_from_229_is_accepted(self):
        self.service_up('host2')
        instance = self.server()
        response = self.evacuate(instance, version='2.29', host='host2',
                                 force=True)
        self.assertEqual(200, response.status_int, response.body)


class TestEvacuateToANamedHost(EvacuateTestCase):
    """A named host is filtered by the scheduler unless ``force`` (2.29)
    is true; the conductor is told which."""

    def setUp(self):
        super().setUp()
        self.service_up('host2')
        self.instance = self.server()

    def cast(self):
        [(_context, cast)] = self.conductor.wait_for(
            self.conductor.evacuations)
        return cast

    def test_from_229_force_is_passed_on(self):
        self.evacuate(self.instance, host='host2', force=True)
        self.assertEqual(('host2', True),
                         (self.cast()['host'], self.cast()['force']))

    def test_from_229_a_host_without_force_is_not_forced(self):
        self.evacuate(self.instance, host='host2')
        self.assertEqual(('host2', False),
                         (self.cast()['host'], self.cast()['force']))

    def test_before_229_a_named_host_is_not_forced(self):
        # Nova's evacuate went to a named host without the scheduler
        # before 2.29; nova_lite runs the filters at every microversion.
        self.evacuate(self.instance, version='2.14', host='host2')
        self.assertEqual(('host2', False),
                         (self.cast()['host'], self.cast()['force']))

    def test_force_without_a_host_is_400(self):
        self.assertError(self.evacuate(self.instance, force=True), 400,
                         'badRequest', 'non-provided destination')
        self.assertNothingChanged(self.instance)

    def test_conductors_pinned_to_1_4_refuse_an_unforced_host(self):
        # A 1.4 conductor would skip the filters for it.
        self.plane.config.config(conductor='1.4', group='upgrade_levels')
        self.fresh_rpc_clients()
        self.assertError(self.evacuate(self.instance, host='host2'), 409,
                         'conflictingRequest', 'without force')
        self.assertNothingChanged(self.instance)

    def test_conductors_pinned_to_1_4_take_a_forced_host_as_before(self):
        self.plane.config.config(conductor='1.4', group='upgrade_levels')
        self.fresh_rpc_clients()
        response = self.evacuate(self.instance, host='host2', force=True)
        self.assertEqual(200, response.status_int, response.body)
        self.assertNotIn('force', self.cast())


# -- shelve, shelveOffload, unshelve ------------------------------------------

class TestShelve(MovesTestCase):

    def test_shelve_casts_to_the_servers_compute(self):
        compute = self.compute_up()
        instance = self.server()
        response = self.action(instance.uuid, {'shelve': None})
        self.assertEqual(202, response.status_int, response.body)
        self.assertTrue(compute.arrived.wait(10))
        [(method, kwargs)] = compute.calls
        self.assertEqual(('shelve_instance', instance.uuid),
                         (method, kwargs['instance'].uuid))
        self.assertTrue(uuidutils.is_uuid_like(kwargs['image_id']))
        self.assertEqual(states.SHELVING,
                         self.in_cell1(instance.uuid).task_state)

    def test_a_stopped_server_may_be_shelved(self):
        self.service_up('host1')
        instance = self.server(vm_state=states.STOPPED)
        self.assertEqual(202, self.action(instance.uuid, {'shelve': None})
                         .status_int)

    def test_shelving_a_shelved_server_is_409(self):
        instance = self.server(vm_state=states.SHELVED)
        self.assertError(self.action(instance.uuid, {'shelve': None}), 409,
                         'conflictingRequest', 'shelved')

    def test_a_server_in_a_task_is_409(self):
        instance = self.server()
        self.set_state(instance, task_state=states.REBUILDING)
        self.assertError(self.action(instance.uuid, {'shelve': None}), 409,
                         'conflictingRequest', 'task_state')

    def test_with_the_compute_down_it_is_503_and_nothing_changes(self):
        instance = self.server()
        self.assertError(self.action(instance.uuid, {'shelve': None}), 503,
                         'serviceUnavailable')
        self.assertIsNone(self.in_cell1(instance.uuid).task_state)

    def test_a_compute_pinned_below_1_3_is_409(self):
        self.service_up('host1')
        self.plane.config.config(compute='1.2', group='upgrade_levels')
        self.fresh_rpc_clients()
        instance = self.server()
        self.assertError(self.action(instance.uuid, {'shelve': None}), 409,
                         'conflictingRequest', '1.3')
        self.assertIsNone(self.in_cell1(instance.uuid).task_state)

    def test_a_shelved_server_shows_shelved(self):
        instance = self.server(vm_state=states.SHELVED_OFFLOADED, host=None)
        shown = self.request('GET', '/v2.1/servers/' + instance.uuid
                             ).json['server']
        self.assertEqual('SHELVED_OFFLOADED', shown['status'])


class TestShelveOffload(MovesTestCase):

    def test_it_is_for_admins(self):
        instance = self.server(vm_state=states.SHELVED)
        self.assertError(self.action(instance.uuid, {'shelveOffload': None}),
                         403, 'forbidden')
        self.assertIsNone(self.in_cell1(instance.uuid).task_state)

    def test_an_admin_offload_casts_to_the_compute(self):
        compute = self.compute_up()
        instance = self.server(vm_state=states.SHELVED)
        response = self.action(instance.uuid, {'shelveOffload': None},
                               token=base.ADMIN)
        self.assertEqual(202, response.status_int, response.body)
        self.assertTrue(compute.arrived.wait(10))
        self.assertEqual(['shelve_offload_instance'],
                         [method for method, _kwargs in compute.calls])
        self.assertEqual(states.SHELVING_OFFLOADING,
                         self.in_cell1(instance.uuid).task_state)

    def test_offloading_an_active_server_is_409(self):
        instance = self.server()
        self.assertError(self.action(instance.uuid, {'shelveOffload': None},
                                     token=base.ADMIN),
                         409, 'conflictingRequest', 'active')


class TestUnshelve(MovesTestCase):

    def test_a_shelved_server_is_unshelved_by_its_compute(self):
        compute = self.compute_up()
        instance = self.server(vm_state=states.SHELVED)
        response = self.action(instance.uuid, {'unshelve': None})
        self.assertEqual(202, response.status_int, response.body)
        self.assertTrue(compute.arrived.wait(10))
        [(method, kwargs)] = compute.calls
        self.assertEqual(('unshelve_instance', None),
                         (method, kwargs['selection']))
        self.assertEqual([], self.conductor.unshelves)

    def test_an_offloaded_server_is_sent_to_the_conductor(self):
        instance = self.server(vm_state=states.SHELVED_OFFLOADED, host=None)
        response = self.action(instance.uuid, {'unshelve': None})
        self.assertEqual(202, response.status_int, response.body)
        [(_context, cast)] = self.conductor.wait_for(self.conductor.unshelves)
        self.assertEqual(instance.uuid, cast['instance'].uuid)
        self.assertEqual(states.UNSHELVING,
                         self.in_cell1(instance.uuid).task_state)

    def test_unshelving_an_active_server_is_409(self):
        instance = self.server()
        self.assertError(self.action(instance.uuid, {'unshelve': None}), 409,
                         'conflictingRequest', 'active')

    def test_an_offloaded_server_in_a_task_is_409(self):
        instance = self.server(vm_state=states.SHELVED_OFFLOADED, host=None)
        self.set_state(instance, task_state=states.UNSHELVING)
        self.assertError(self.action(instance.uuid, {'unshelve': None}), 409,
                         'conflictingRequest', 'task_state')
        self.assertEqual([], self.conductor.unshelves)

    def test_conductors_pinned_below_1_2_cannot_unshelve_offloaded(self):
        self.plane.config.config(conductor='1.1', group='upgrade_levels')
        self.fresh_rpc_clients()
        instance = self.server(vm_state=states.SHELVED_OFFLOADED, host=None)
        self.assertError(self.action(instance.uuid, {'unshelve': None}), 409,
                         'conflictingRequest', 'conductor')
        self.assertIsNone(self.in_cell1(instance.uuid).task_state)

    def test_another_projects_server_is_404(self):
        instance = self.server(vm_state=states.SHELVED_OFFLOADED, host=None)
        self.assertError(self.action(instance.uuid, {'unshelve': None},
                                     token='mallory'), 404, 'itemNotFound')


class TestLocalDeleteReleasesPorts(MovesTestCase):

    def test_a_server_whose_compute_is_down_gives_its_ports_back(self):
        instance = self.server(port='bandwidth')
        response = self.request('DELETE', '/v2.1/servers/' + instance.uuid)
        self.assertEqual(204, response.status_int)
        stored = self.ports.ports[self.port['id']]
        self.assertEqual(('', None), (stored['device_id'],
                                      stored['binding:host_id']))

    def test_an_offloaded_server_gives_its_ports_back(self):
        instance = self.server(vm_state=states.SHELVED_OFFLOADED, host=None,
                               port='plain')
        self.request('DELETE', '/v2.1/servers/' + instance.uuid)
        self.assertEqual('', self.ports.ports[self.port['id']]['device_id'])


# -- create with ports --------------------------------------------------------

class TestCreateWithPorts(MovesTestCase):

    def create(self, networks, **overrides):
        return self.request('POST', '/v2.1/servers', test_servers.server_body(
            networks=networks, **overrides))

    def free_port(self, **kwargs):
        return self.ports.add(port_fakes.port(project_id=base.DEMO,
                                              **kwargs))

    def spec_of(self, response):
        return objects.RequestSpec.get_by_instance_uuid(
            self.admin_context, response.json['server']['id'])

    def test_a_ports_resource_request_becomes_a_request_group(self):
        port = self.free_port(egress=1000)
        response = self.create([{'port': port['id']}])
        self.assertEqual(202, response.status_int, response.body)
        [group] = self.spec_of(response).requested_resources
        self.assertEqual((port['id'], {port_fakes.EGRESS: 1000}),
                         (group.requester_id, group.resources))

    def test_the_requested_networks_are_kept_in_the_spec(self):
        port = self.free_port()
        response = self.create([{'port': port['id']}])
        self.assertEqual(([{'port': port['id']}], []),
                         (self.spec_of(response).requested_networks.to_api(),
                          self.spec_of(response).requested_resources))

    def test_an_unknown_port_is_400(self):
        unknown = uuidutils.generate_uuid()
        self.assertError(self.create([{'port': unknown}]), 400,
                         'badRequest', unknown)

    def test_another_projects_port_is_400(self):
        theirs = self.ports.add(port_fakes.port(project_id='other'))
        self.assertError(self.create([{'port': theirs['id']}]), 400,
                         'badRequest')

    def test_another_projects_port_is_400_for_an_admin_too(self):
        # The server's ports are its project's: the port would be bound
        # to it and then never counted among them.
        theirs = self.ports.add(port_fakes.port(project_id='other'))
        response = self.request('POST', '/v2.1/servers',
                                test_servers.server_body(
                                    networks=[{'port': theirs['id']}]),
                                token=base.ADMIN)
        self.assertError(response, 400, 'badRequest', 'not usable')
        self.assertEqual('', self.ports.ports[theirs['id']]['device_id'])

    def test_a_port_in_use_is_409(self):
        taken = self.free_port(device_id=uuidutils.generate_uuid())
        self.assertError(self.create([{'port': taken['id']}]), 409,
                         'conflictingRequest', 'in use')

    def test_the_same_port_twice_is_400(self):
        port = self.free_port()
        self.assertError(self.create([{'port': port['id']},
                                      {'port': port['id']}]), 400,
                         'badRequest')

    def test_several_servers_with_one_port_is_400(self):
        port = self.free_port()
        self.assertError(self.create([{'port': port['id']}], min_count=2,
                                     max_count=2), 400, 'badRequest',
                         'multiple instances')

    def test_an_unknown_network_is_400(self):
        self.assertError(self.create([{'uuid': uuidutils.generate_uuid()}]),
                         400, 'badRequest')

    def test_a_port_service_that_is_down_is_503(self):
        port = self.free_port()
        self.ports.down = True
        self.assertError(self.create([{'port': port['id']}]), 503,
                         'serviceUnavailable')

    def test_no_build_is_cast_when_a_port_is_refused(self):
        self.create([{'port': uuidutils.generate_uuid()}])
        self.assertEqual([], list(objects.BuildRequestList.get_all(
            self.admin_context)))
