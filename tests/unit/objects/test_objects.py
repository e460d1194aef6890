"""Versioned objects: their recorded versions, the wire, the databases and
the indirection through the conductor that computes rely on."""

import contextlib
import datetime
import types

from oslo_serialization import jsonutils
import oslo_messaging as messaging
from oslo_utils import uuidutils
from oslo_versionedobjects import base as ovo_base
from oslo_versionedobjects import exception as ovo_exception
from oslo_versionedobjects import fixture as ovo_fixture
import sqlalchemy as sa
import testtools

from nova_lite.compute import states
from nova_lite.conductor import manager as conductor_manager
from nova_lite.conductor import rpcapi as conductor_rpcapi
from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import base
from nova_lite import rpc
from tests.unit import fixtures as nova_fixtures

# Name -> 'VERSION-fingerprint' of every registered object. The fingerprint
# covers the fields and the signatures of the remotable methods.
OBJECT_HASHES = {
    'Aggregate': '1.0-2428c5e9dc9ddf2f4a5e36969c3f468a',
    'AggregateList': '1.0-15ecf022a68ddbb8c2a6739cfc9f8f5e',
    'BlockDeviceMapping': '1.0-9f44e6023361c97950fe27d677f49f16',
    'BuildRequest': '1.0-05434522ea279984d5df7d70a2f9ccd1',
    'BuildRequestList': '1.0-15ecf022a68ddbb8c2a6739cfc9f8f5e',
    'CellMapping': '1.0-2314bbc9f0b268f7cfb993c2c0f5f773',
    'CellMappingList': '1.0-15ecf022a68ddbb8c2a6739cfc9f8f5e',
    'ComputeNode': '1.0-a69b6fa8294eb43eec12b2b9d4415fcf',
    'ComputeNodeList': '1.0-b484575a09cfbff3e79bf58605057ff1',
    'Destination': '1.0-4c59dd1288b2e7adbda6051a2de59183',
    'Flavor': '1.0-8a4ba680e6c0b66477ce749595b257d6',
    'FlavorList': '1.0-15ecf022a68ddbb8c2a6739cfc9f8f5e',
    'HostMapping': '1.0-c81a1fd7e7988e5bcd0221ab73705037',
    'HostMappingList': '1.0-15ecf022a68ddbb8c2a6739cfc9f8f5e',
    'Image': '1.0-a45bcf04500298ef2633c069821f61e3',
    'ImageList': '1.0-15ecf022a68ddbb8c2a6739cfc9f8f5e',
    'ImageMeta': '1.0-88ce21fdd9661253a65980088d1378fb',
    'Instance': '1.5-68c0324895e2982d6b14bbf870de2a9f',
    'InstanceAction': '1.0-c3b46d23f5064d4000392849d5b1c521',
    'InstanceActionEvent': '1.0-845366b2abca2398b761ad358684f421',
    'InstanceActionEventList': '1.0-13d92fb953030cdbfee56481756e02be',
    'InstanceActionList': '1.0-3dab1c31a1f28ea54a5a558dfc03c4db',
    'InstanceFault': '1.0-3d0c037502bf766ca4a6003856de2397',
    'InstanceGroup': '1.0-cfe30e18b3d4404531acb6a7f7af2a30',
    'InstanceGroupList': '1.0-15ecf022a68ddbb8c2a6739cfc9f8f5e',
    'InstanceList': '1.1-5138c986983420d39d99459033d7c5cb',
    'InstanceMapping': '1.0-ff8bdff38cd31fc7161dc2d75a7b462f',
    'InstanceMappingList': '1.0-15ecf022a68ddbb8c2a6739cfc9f8f5e',
    'KeyPair': '1.0-243481d6be83d55720d153006997421a',
    'KeyPairList': '1.0-15ecf022a68ddbb8c2a6739cfc9f8f5e',
    'ProjectQuotas': '1.0-2348cd9c40a735896b19ce82c2b76760',
    'QuotaClass': '1.0-1d8d55efb0d92254d6fa7ca6c5346f49',
    'LiveMigrateData': '1.0-09af264c3779d8f7e6f5e5744a9366f5',
    'Migration': '1.4-c82ed16d5a77cc4b80446c675070d63d',
    'MigrationList': '1.2-b4ec1a227e3c95ed769d35e542b74009',
    'NetworkRequest': '1.0-724e969a2f094fc2427e729ca87d5d72',
    'NetworkRequestList': '1.0-15ecf022a68ddbb8c2a6739cfc9f8f5e',
    'RequestGroup': '1.0-58af1ebc52025f911871f1edeaba1cc4',
    'RequestSpec': '1.4-8a169c3243242791ef19a9ca39ba2b44',
    'SchedulerLimits': '1.0-16f09a44e72b98118a20ad179efc64df',
    'SchedulerRetries': '1.0-842099775ad19981c5dd0b1b006f2e3e',
    'Selection': '1.1-9d5242b25a1b15a2998481f1a4a79136',
    # The version field lost its default (SERVICE_VERSION, filled in by
    # create()); defaults are not sent, so 1.0 readers are unaffected.
    # 1.1: heartbeat_many.
    'Service': '1.1-4a1a497968ec2d4217acdcfa5d594229',
    'ServiceList': '1.0-15ecf022a68ddbb8c2a6739cfc9f8f5e',
}

HOW_TO_FIX_HASHES = (
    'The fields or remotable method signatures of the objects above changed '
    '(expected first, computed second). An older service cannot read the '
    'new shape: bump each changed object\'s VERSION (add a "Version X.Y: '
    'what changed" comment and, for a new field, obj_make_compatible), '
    'then record the new VERSION-hash in OBJECT_HASHES.')


def make_flavor(**overrides):
    """A flavor as the API database returns it: no pending changes."""
    values = dict(id=1, flavorid='1', name='m1.tiny', memory_mb=512,
                  vcpus=1, root_gb=1, ephemeral_gb=0, swap=0,
                  rxtx_factor=1.0, is_public=True, disabled=False,
                  extra_specs={'hw:cpu_policy': 'shared'}, projects=[])
    values.update(overrides)
    flavor = objects.Flavor(**values)
    flavor.obj_reset_changes()
    return flavor


def cell_context(cell):
    with nova_context.target_cell(nova_context.get_admin_context(),
                                  cell) as cctxt:
        return cctxt


def over_the_wire(entity):
    """``entity`` as an RPC peer receives it: serialized, JSON, back."""
    serializer = rpc.RequestContextSerializer()
    context = nova_context.get_admin_context()
    sent = jsonutils.dumps(serializer.serialize_entity(context, entity))
    return serializer.deserialize_entity(context, jsonutils.loads(sent))


def comparable(primitive):
    """An object primitive with its change lists (sets) sorted."""
    if isinstance(primitive, dict):
        return {key: (sorted(value) if key.endswith('.changes')
                      else comparable(value))
                for key, value in primitive.items()}
    if isinstance(primitive, list):
        return [comparable(value) for value in primitive]
    return primitive


class TestObjectVersions(testtools.TestCase):

    def test_every_registered_object_matches_its_recorded_fingerprint(self):
        objects.register_all()
        checker = ovo_fixture.ObjectVersionChecker(
            base.NovaLiteObjectRegistry.obj_classes())
        expected, actual = checker.test_hashes(OBJECT_HASHES)
        self.assertEqual(expected, actual, HOW_TO_FIX_HASHES)


class TestWireRoundTrips(testtools.TestCase):

    def setUp(self):
        super().setUp()
        objects.register_all()

    def assertSameOnBothSides(self, sent):
        received = over_the_wire(sent)
        self.assertIsInstance(received, type(sent))
        self.assertEqual(comparable(sent.obj_to_primitive()),
                         comparable(received.obj_to_primitive()))
        return received

    def test_request_spec_with_flavor_image_and_retries(self):
        spec = objects.RequestSpec(
            instance_uuid=uuidutils.generate_uuid(), project_id='demo',
            user_id='demo', num_instances=2, flavor=make_flavor(),
            image=objects.ImageMeta(id=uuidutils.generate_uuid(),
                                    name='cirros', min_disk=1, min_ram=64,
                                    properties={'hw_disk_bus': 'virtio'}),
            scheduler_hints={'group': ['g1']}, ignore_hosts=['h0'],
            retry=objects.SchedulerRetries(num_attempts=1,
                                           hosts=[['h1', 'n1']]))
        received = self.assertSameOnBothSides(spec)
        self.assertEqual([['h1', 'n1']], received.retry.hosts)
        self.assertEqual('shared',
                         received.flavor.extra_specs['hw:cpu_policy'])

    def test_selection_with_limits(self):
        selection = objects.Selection(
            compute_node_uuid=uuidutils.generate_uuid(), service_host='h1',
            nodename='n1', cell_uuid=uuidutils.generate_uuid(),
            limits=objects.SchedulerLimits(memory_mb=4096, vcpu=16,
                                           disk_gb=None))
        received = self.assertSameOnBothSides(selection)
        self.assertEqual({'memory_mb': 4096, 'vcpu': 16},
                         received.limits.to_dict())

    def test_selection_carries_its_allocation_request(self):
        request = {'allocations': {uuidutils.generate_uuid(): {
            'resources': {'VCPU': 1, 'MEMORY_MB': 512}}}}
        selection = objects.Selection(
            compute_node_uuid=uuidutils.generate_uuid(), service_host='h1',
            nodename='n1', cell_uuid=uuidutils.generate_uuid(), limits=None,
            allocation_request=jsonutils.dumps(request))
        self.assertEqual(request,
                         self.assertSameOnBothSides(selection).allocation)

    def test_selection_for_a_1_0_receiver_drops_the_allocation_request(self):
        selection = objects.Selection(
            compute_node_uuid=uuidutils.generate_uuid(), service_host='h1',
            nodename='n1', cell_uuid=uuidutils.generate_uuid(), limits=None,
            allocation_request='{"allocations": {}}')
        primitive = selection.obj_to_primitive(target_version='1.0')
        self.assertNotIn('allocation_request',
                         primitive['nova_lite_object.data'])
        self.assertIsNone(objects.Selection.obj_from_primitive(
            primitive).allocation)

    def test_instance_with_flavor_and_timestamps(self):
        instance = objects.Instance(
            uuid=uuidutils.generate_uuid(), project_id='demo',
            display_name='web', vm_state=states.BUILDING,
            task_state=states.SCHEDULING, flavor=make_flavor(),
            metadata={'role': 'web'}, tags=['a'],
            created_at=datetime.datetime(2024, 5, 1, 12, 30, 15, 123456))
        received = self.assertSameOnBothSides(instance)
        self.assertEqual(512, received.flavor.memory_mb)

    def test_a_list_of_host_lists_keeps_its_shape(self):
        host_lists = [[objects.Selection(
            compute_node_uuid=uuidutils.generate_uuid(),
            service_host=host, nodename=host,
            cell_uuid=uuidutils.generate_uuid(), limits=None)
            for host in ('h1', 'h2')]]
        received = over_the_wire(host_lists)
        self.assertEqual([['h1', 'h2']],
                         [[s.service_host for s in hosts]
                          for hosts in received])

    def test_context_keeps_the_caller_but_not_the_cell_credentials(self):
        serializer = rpc.RequestContextSerializer()
        context = nova_context.RequestContext(
            user_id='alice', project_id='demo', roles=['member'],
            read_deleted='yes', db_connection='mysql+pymysql://secret@db/c1',
            mq_url='rabbit://secret@mq/')
        received = serializer.deserialize_context(jsonutils.loads(
            jsonutils.dumps(serializer.serialize_context(context))))
        self.assertEqual(('alice', 'demo', ['member'], 'yes', False),
                         (received.user_id, received.project_id,
                          received.roles, received.read_deleted,
                          received.is_admin))
        self.assertIsNone(received.db_connection)
        self.assertIsNone(received.mq_url)

    def test_context_travels_without_its_unset_values_and_arrives_whole(
            self):
        serializer = rpc.RequestContextSerializer()
        for context in (nova_context.get_admin_context(),
                        nova_context.RequestContext(
                            user_id='alice', project_id='demo',
                            roles=['member'], request_id='req-1',
                            global_request_id='req-0')):
            sent = serializer.serialize_context(context)
            self.assertNotIn(None, sent.values())
            received = serializer.deserialize_context(jsonutils.loads(
                jsonutils.dumps(sent)))
            self.assertEqual(context.to_dict(), received.to_dict())


def _plain(value):
    """A field's value, comparable: an object as its primitive."""
    if isinstance(value, base.NovaLiteObject):
        return value.obj_to_primitive()
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


class DatabaseTestCase(testtools.TestCase):
    """Real SQLite API and cell databases."""

    def setUp(self):
        super().setUp()
        self.useFixture(nova_fixtures.Config())
        self.databases = self.useFixture(nova_fixtures.Databases())
        self.admin_context = nova_context.get_admin_context()
        self.context = cell_context(self.databases.cell1)

    def make_instance(self, context=None, **overrides):
        values = dict(uuid=uuidutils.generate_uuid(), project_id='demo',
                      user_id='demo', display_name='web',
                      vm_state=states.BUILDING,
                      task_state=states.SCHEDULING, host='compute1',
                      node='compute1', flavor=make_flavor())
        values.update(overrides)
        instance = objects.Instance(context or self.context, **values)
        instance.create()
        return instance

    def set_task_state_behind_its_back(self, instance, task_state):
        other = objects.Instance.get_by_uuid(self.context, instance.uuid)
        other.task_state = task_state
        other.save()


class TestWhatChanged(testtools.TestCase):
    """NovaLiteObject.obj_what_changed answers as oslo's, which reads
    every field to find the objects among them."""

    def setUp(self):
        super().setUp()
        objects.register_all()

    def oslo_answer(self, obj):
        return ovo_base.VersionedObject.obj_what_changed(obj)

    def test_nested_objects_changed_in_place_count(self):
        instance = objects.Instance(uuid=uuidutils.generate_uuid(),
                                    flavor=make_flavor(), old_flavor=None,
                                    block_device_mapping=[])
        instance.obj_reset_changes(recursive=True)
        self.assertEqual(set(), instance.obj_what_changed())
        instance.flavor.name = 'renamed'
        instance.host = 'compute1'
        self.assertEqual({'flavor', 'host'}, instance.obj_what_changed())
        self.assertEqual(self.oslo_answer(instance),
                         base.NovaLiteObject.obj_what_changed(instance))

    def test_an_object_without_object_fields(self):
        node = objects.ComputeNode(host='compute1', running_vms=1)
        node.obj_reset_changes(['host'])
        self.assertEqual({'running_vms'}, node.obj_what_changed())
        self.assertEqual(self.oslo_answer(node), node.obj_what_changed())


class TestCopyFromRow(testtools.TestCase):
    """base.copy_from_row stores each column's value as its field's setter
    would, without the setter's bookkeeping: same values, same types,
    nothing left changed."""

    def setUp(self):
        super().setUp()
        objects.register_all()

    ROW = dict(
        id=7, uuid=uuidutils.generate_uuid(), host='compute1',
        hypervisor_hostname='compute1', hypervisor_type='fake',
        hypervisor_version=1, host_ip=None, vcpus=8, memory_mb=8192,
        local_gb=100, vcpus_used=1, memory_mb_used=512, local_gb_used=1,
        free_ram_mb=7680, free_disk_gb=99, running_vms=1,
        current_workload=0, disk_available_least=None,
        cpu_allocation_ratio=16, ram_allocation_ratio=1.5,
        disk_allocation_ratio=1.0, mapped=1,
        created_at=datetime.datetime(2026, 12, 7, 15, 0, 0),
        updated_at=datetime.datetime(2026, 12, 7, 15, 1, 2, 345678),
        deleted_at=None, deleted=0)

    def row(self, **changes):
        return types.SimpleNamespace(**dict(self.ROW, **changes))

    def by_setters(self, row):
        node = objects.ComputeNode()
        for name in self.ROW:
            value = getattr(row, name)
            setattr(node, name, bool(value) if name == 'deleted' else value)
        node.obj_reset_changes()
        return node

    def test_the_values_are_those_the_setters_store(self):
        row = self.row()
        copied = base.copy_from_row(objects.ComputeNode(), row,
                                    list(self.ROW))
        expected = self.by_setters(row)
        for name in self.ROW:
            self.assertEqual(getattr(expected, name), getattr(copied, name),
                             name)
            self.assertIs(type(getattr(expected, name)),
                          type(getattr(copied, name)), name)
        # Coerced as the setter does: an integer column of a float field,
        # a 0/1 column of a boolean, an aware datetime.
        self.assertIs(float, type(copied.cpu_allocation_ratio))
        self.assertIs(True, copied.mapped)
        self.assertIs(False, copied.deleted)
        self.assertIsNotNone(copied.updated_at.tzinfo)
        self.assertEqual(set(), copied.obj_what_changed())

    def test_a_value_its_field_refuses_is_refused(self):
        self.assertRaises(ValueError, base.copy_from_row,
                          objects.ComputeNode(), self.row(vcpus='many'),
                          list(self.ROW))
        self.assertRaises(ValueError, base.copy_from_row,
                          objects.ComputeNode(), self.row(host=None),
                          list(self.ROW))

    def test_a_read_only_field_set_already_cannot_change(self):
        node = base.copy_from_row(objects.ComputeNode(), self.row(),
                                  list(self.ROW))
        base.copy_from_row(node, self.row(vcpus=16), list(self.ROW))
        self.assertEqual(16, node.vcpus)
        self.assertEqual(set(), node.obj_what_changed())
        self.assertRaises(ovo_exception.ReadOnlyFieldError,
                          base.copy_from_row, node, self.row(id=8),
                          list(self.ROW))

    def test_changes_made_before_are_forgotten_for_the_columns_copied(self):
        node = base.copy_from_row(objects.ComputeNode(), self.row(),
                                  list(self.ROW))
        node.vcpus_used = 3
        node.stats = {'a': '1'}
        base.copy_from_row(node, self.row(), list(self.ROW))
        self.assertEqual(1, node.vcpus_used)
        self.assertEqual({'stats'}, node.obj_what_changed())


class TestFieldReads(testtools.TestCase):
    """Every registered object's fields read with the project's direct
    getters, which answer as oslo.versionedobjects' do."""

    def setUp(self):
        super().setUp()
        objects.register_all()

    def test_a_set_field_reads_its_value_and_a_deleted_one_is_unset(self):
        flavor = objects.Flavor(name='small', memory_mb=512)
        self.assertEqual('small', flavor.name)
        self.assertEqual(512, flavor.memory_mb)
        del flavor.name
        self.assertFalse(flavor.obj_attr_is_set('name'))

    def test_an_unset_field_reads_a_copy_of_its_lazy_default(self):
        flavor = objects.Flavor(name='small')
        specs = flavor.extra_specs
        self.assertEqual({}, specs)
        specs['hw:cpu_policy'] = 'dedicated'
        self.assertEqual({}, objects.Flavor().extra_specs)

    def test_an_unset_field_without_one_is_an_error(self):
        error = self.assertRaises(exception.ObjectActionError,
                                  lambda: objects.Flavor().memory_mb)
        self.assertIsNone(error.__context__)

    def test_every_field_of_every_object_reads_what_was_set(self):
        for name, classes in ovo_base.VersionedObjectRegistry.obj_classes(
                ).items():
            for cls in classes:
                obj = cls()
                for field in cls.fields:
                    marker = object()
                    setattr(obj, '_obj_' + field, marker)
                    self.assertIs(marker, getattr(obj, field),
                                  '%s.%s' % (name, field))


class TestInstance(DatabaseTestCase):

    def test_get_by_uuid_returns_what_create_stored(self):
        instance = self.make_instance(metadata={'role': 'web'})
        found = objects.Instance.get_by_uuid(self.context, instance.uuid)
        self.assertEqual(('web', states.SCHEDULING, {'role': 'web'}),
                         (found.display_name, found.task_state,
                          found.metadata))
        self.assertEqual('m1.tiny', found.flavor.name)

    def test_create_is_one_insert_and_reads_nothing_back(self):
        statements = []

        def executed(conn, cursor, statement, *args):
            statements.append(statement.split()[0])
        sa.event.listen(sa.engine.Engine, 'before_cursor_execute', executed)
        self.addCleanup(sa.event.remove, sa.engine.Engine,
                        'before_cursor_execute', executed)
        instance = self.make_instance()
        self.assertEqual(['INSERT'], [s for s in statements if s != 'BEGIN'])
        # Every field is set, as a compute will need them.
        self.assertIsNotNone(instance.updated_at)
        self.assertIsNone(instance.launched_at)
        self.assertEqual(set(), instance.obj_what_changed())

    def _new(self, **overrides):
        values = dict(uuid=uuidutils.generate_uuid(), project_id='demo',
                      user_id='demo', display_name='web',
                      vm_state=states.BUILDING,
                      task_state=states.SCHEDULING, flavor=make_flavor(),
                      metadata={'role': 'web'})
        values.update(overrides)
        return objects.Instance(self.context, **values)

    def test_create_all_leaves_each_as_create_and_a_read_would(self):
        alone = self._new()
        alone.create()
        together = [self._new(), self._new(display_name='db', locked=True)]
        context = nova_context.RequestContext(
            user_id='u', project_id='p', request_id='req-together')
        context.db_connection = self.context.db_connection
        objects.Instance.create_all(context, together, 'create')
        skip = ('id', 'uuid', 'updated_at', 'created_at', 'display_name',
                'locked')
        for instance in together:
            found = objects.Instance.get_by_uuid(self.context, instance.uuid)
            self.assertEqual(found.id, instance.id)
            self.assertEqual(set(), instance.obj_what_changed())
            for name in instance.fields:
                if name == 'fault':
                    continue
                self.assertEqual(instance.obj_attr_is_set(name),
                                 alone.obj_attr_is_set(name), name)
                if name != 'updated_at' and instance.obj_attr_is_set(name):
                    self.assertEqual(_plain(getattr(found, name)),
                                     _plain(getattr(instance, name)), name)
                if name not in skip and instance.obj_attr_is_set(name):
                    self.assertEqual(_plain(getattr(alone, name)),
                                     _plain(getattr(instance, name)), name)
            action = objects.InstanceAction.get_by_request_id(
                self.context, instance.uuid, 'req-together')
            self.assertEqual(('create', 'u', 'p'), (
                action.action, action.user_id, action.project_id))
        self.assertTrue(together[1].locked)
        self.assertEqual('db', together[1].display_name)

    def test_create_all_writes_nothing_when_one_exists(self):
        taken = self.make_instance()
        fresh = self._new()
        self.assertRaises(exception.Conflict, objects.Instance.create_all,
                          self.context, [fresh, self._new(uuid=taken.uuid)],
                          'create')
        self.assertRaises(exception.InstanceNotFound,
                          objects.Instance.get_by_uuid, self.context,
                          fresh.uuid)

    def test_in_task_keeps_the_servers_in_a_task_or_building(self):
        building = self.make_instance(task_state=None)
        in_task = self.make_instance(vm_state=states.ACTIVE,
                                     task_state=states.REBOOTING)
        self.make_instance(vm_state=states.ACTIVE, task_state=None)
        found = objects.InstanceList.get_by_filters(
            self.context, {'host': 'compute1', 'in_task': True})
        self.assertEqual({building.uuid, in_task.uuid},
                         {i.uuid for i in found})

    def test_create_copies_the_flavor_sizes_onto_the_instance(self):
        instance = self.make_instance(flavor=make_flavor(memory_mb=2048,
                                                         vcpus=2))
        found = objects.Instance.get_by_uuid(self.context, instance.uuid)
        self.assertEqual((2048, 2), (found.memory_mb, found.vcpus))

    def test_save_writes_the_changed_fields(self):
        instance = self.make_instance()
        instance.vm_state = states.ACTIVE
        instance.task_state = None
        instance.save()
        found = objects.Instance.get_by_uuid(self.context, instance.uuid)
        self.assertEqual((states.ACTIVE, None),
                         (found.vm_state, found.task_state))

    def test_an_instance_read_back_has_no_pending_changes(self):
        # Even when the flavor it was created with still had changes of
        # its own: those must not survive the round trip through the row.
        flavor = make_flavor()
        flavor.memory_mb = 1024
        instance = self.make_instance(flavor=flavor)
        found = objects.Instance.get_by_uuid(self.context, instance.uuid)
        self.assertEqual(set(), found.obj_what_changed())

    def test_save_writes_system_metadata_changed_in_place(self):
        instance = self.make_instance()
        instance.system_metadata['shelved_at'] = '2026-11-22T18:00:00'
        instance.metadata['role'] = 'db'
        self.assertIn('system_metadata', instance.obj_what_changed())
        instance.save()
        found = objects.Instance.get_by_uuid(self.context, instance.uuid)
        self.assertEqual(('2026-11-22T18:00:00', 'db'),
                         (found.system_metadata.get('shelved_at'),
                          found.metadata.get('role')))
        found.system_metadata.pop('shelved_at')
        found.save()
        self.assertNotIn('shelved_at', objects.Instance.get_by_uuid(
            self.context, instance.uuid).system_metadata)

    def test_save_leaves_no_pending_changes(self):
        instance = self.make_instance()
        instance.flavor.memory_mb = 1024
        instance.vm_state = states.ACTIVE
        instance.save()
        self.assertEqual(set(), instance.obj_what_changed())

    def test_save_with_the_expected_task_state_applies(self):
        instance = self.make_instance(task_state=states.SPAWNING)
        instance.task_state = None
        instance.save(expected_task_state=states.SPAWNING)
        found = objects.Instance.get_by_uuid(self.context, instance.uuid)
        self.assertIsNone(found.task_state)

    def test_expected_task_state_list_may_include_none(self):
        instance = self.make_instance(task_state=None)
        instance.vm_state = states.ACTIVE
        instance.save(expected_task_state=[None, states.SPAWNING])
        found = objects.Instance.get_by_uuid(self.context, instance.uuid)
        self.assertEqual(states.ACTIVE, found.vm_state)

    def test_expecting_only_none_refuses_a_row_in_a_task(self):
        instance = self.make_instance(task_state=None)
        self.set_task_state_behind_its_back(instance, states.SPAWNING)
        instance.vm_state = states.ERROR
        self.assertRaises(exception.UnexpectedTaskStateError, instance.save,
                          expected_task_state=[None])
        instance = self.make_instance(task_state=None)
        instance.vm_state = states.ERROR
        instance.save(expected_task_state=[None])
        self.assertEqual(states.ERROR, objects.Instance.get_by_uuid(
            self.context, instance.uuid).vm_state)

    def test_none_in_the_list_still_refuses_another_task(self):
        instance = self.make_instance(task_state=states.SCHEDULING)
        self.set_task_state_behind_its_back(instance, states.MIGRATING)
        instance.vm_state = states.ERROR
        self.assertRaises(exception.UnexpectedTaskStateError, instance.save,
                          expected_task_state=[None, states.SCHEDULING])

    def test_save_with_the_expected_vm_state_and_task_state(self):
        instance = self.make_instance(task_state=states.SPAWNING)
        instance.task_state = None
        self.assertRaises(exception.UnexpectedTaskStateError, instance.save,
                          expected_vm_state=[states.ACTIVE],
                          expected_task_state=states.SPAWNING)
        instance.save(expected_vm_state=[states.BUILDING],
                      expected_task_state=states.SPAWNING)
        self.assertIsNone(objects.Instance.get_by_uuid(
            self.context, instance.uuid).task_state)

    def test_expected_states_do_not_carry_over_between_saves(self):
        # The UPDATEs of one shape are made once; what one save expects
        # is not what the next of the same shape is held to.
        first = self.make_instance(task_state=states.SPAWNING)
        second = self.make_instance(task_state=states.SCHEDULING)
        first.task_state = second.task_state = None
        first.save(expected_task_state=[states.SPAWNING])
        self.assertRaises(exception.UnexpectedTaskStateError, second.save,
                          expected_task_state=[states.SPAWNING])
        second.save(expected_task_state=[states.SCHEDULING])

    def test_save_expecting_a_task_state_the_row_lost_is_refused(self):
        instance = self.make_instance(task_state=states.SCHEDULING)
        self.set_task_state_behind_its_back(instance, states.SPAWNING)
        instance.vm_state = states.ERROR
        error = self.assertRaises(exception.UnexpectedTaskStateError,
                                  instance.save,
                                  expected_task_state=states.SCHEDULING)
        self.assertIs(exception.UnexpectedTaskStateError, type(error))
        found = objects.Instance.get_by_uuid(self.context, instance.uuid)
        self.assertEqual((states.BUILDING, states.SPAWNING),
                         (found.vm_state, found.task_state))

    def test_save_over_a_delete_in_progress_says_deleting(self):
        instance = self.make_instance(task_state=states.SPAWNING)
        self.set_task_state_behind_its_back(instance, states.DELETING)
        instance.vm_state = states.ACTIVE
        instance.task_state = None
        self.assertRaises(exception.UnexpectedDeletingTaskStateError,
                          instance.save,
                          expected_task_state=states.SPAWNING)

    def test_destroy_soft_deletes_the_row(self):
        instance = self.make_instance()
        instance.destroy()
        self.assertRaises(exception.InstanceNotFound,
                          objects.Instance.get_by_uuid, self.context,
                          instance.uuid)
        with nova_context.target_cell(
                nova_context.get_admin_context(read_deleted='yes'),
                self.databases.cell1) as deleted_context:
            kept = objects.Instance.get_by_uuid(deleted_context,
                                                instance.uuid)
        self.assertEqual((True, states.DELETED),
                         (kept.deleted, kept.vm_state))

    def test_save_after_destroy_is_instance_not_found(self):
        instance = self.make_instance()
        objects.Instance.get_by_uuid(self.context, instance.uuid).destroy()
        instance.vm_state = states.ACTIVE
        self.assertRaises(exception.InstanceNotFound, instance.save)

    def test_expected_attrs_fault_loads_the_latest_fault(self):
        instance = self.make_instance()
        for message in ('first', 'second'):
            objects.InstanceFault(self.context, instance_uuid=instance.uuid,
                                  code=500, message=message,
                                  details='').create()
        found = objects.Instance.get_by_uuid(self.context, instance.uuid,
                                             expected_attrs=['fault'])
        self.assertEqual('second', found.fault.message)

    def test_expected_attrs_fault_is_none_without_faults(self):
        instance = self.make_instance()
        found = objects.Instance.get_by_uuid(self.context, instance.uuid,
                                             expected_attrs=['fault'])
        self.assertIsNone(found.fault)

    def test_fault_is_not_loaded_unless_asked_for(self):
        instance = self.make_instance()
        found = objects.Instance.get_by_uuid(self.context, instance.uuid)
        self.assertFalse(found.obj_attr_is_set('fault'))

    def test_instances_live_in_the_cell_they_were_created_in(self):
        instance = self.make_instance()
        self.assertRaises(exception.InstanceNotFound,
                          objects.Instance.get_by_uuid,
                          cell_context(self.databases.cell0), instance.uuid)


class TestBuildRequest(DatabaseTestCase):

    def test_second_destroy_is_build_request_not_found(self):
        uuid = uuidutils.generate_uuid()
        build_request = objects.BuildRequest(
            self.admin_context, instance_uuid=uuid, project_id='demo',
            instance=objects.Instance(uuid=uuid, project_id='demo',
                                      flavor=make_flavor()))
        build_request.create()
        build_request.destroy()
        self.assertRaises(exception.BuildRequestNotFound,
                          build_request.destroy)


class TestCreateAll(DatabaseTestCase):
    """The API database's records of new servers, all at once."""

    def records(self, count):
        uuids = [uuidutils.generate_uuid() for _ in range(count)]
        requests = [
            objects.BuildRequest(
                self.admin_context, instance_uuid=uuid, project_id='demo',
                instance=objects.Instance(uuid=uuid, project_id='demo',
                                          flavor=make_flavor()))
            for uuid in uuids]
        specs = [objects.RequestSpec(
            self.admin_context, instance_uuid=uuid, project_id='demo',
            num_instances=count, flavor=make_flavor()) for uuid in uuids]
        mappings = [objects.InstanceMapping(
            self.admin_context, instance_uuid=uuid, cell_mapping=None,
            project_id='demo', user_id='demo', queued_for_delete=False)
            for uuid in uuids]
        return requests, specs, mappings

    def test_each_is_left_as_its_create_would_leave_it(self):
        requests, specs, mappings = self.records(3)
        objects.BuildRequest.create_all(self.admin_context, requests, specs,
                                        mappings)
        alone = self.records(1)
        for record in alone:
            record[0].create()
        for made, one in zip((requests, specs, mappings), alone):
            self.assertEqual(set(one[0].obj_what_changed()),
                             set(made[0].obj_what_changed()))
            self.assertEqual(
                sorted(n for n in one[0].fields
                       if one[0].obj_attr_is_set(n)),
                sorted(n for n in made[0].fields
                       if made[0].obj_attr_is_set(n)))
        for request, spec, mapping in zip(requests, specs, mappings):
            uuid = request.instance_uuid
            read = objects.BuildRequest.get_by_instance_uuid(
                self.admin_context, uuid)
            self.assertEqual((request.id, uuid), (read.id, read.instance.uuid))
            read = objects.RequestSpec.get_by_instance_uuid(
                self.admin_context, uuid)
            self.assertEqual(spec.id, read.id)
            read = objects.InstanceMapping.get_by_instance_uuid(
                self.admin_context, uuid)
            self.assertEqual((mapping.id, None, False),
                             (read.id, read.cell_mapping,
                              read.queued_for_delete))

    def test_nothing_is_written_when_one_of_them_exists(self):
        requests, specs, mappings = self.records(3)
        # The last server's mapping exists already.
        objects.InstanceMapping(
            self.admin_context, instance_uuid=requests[-1].instance_uuid,
            project_id='demo', user_id='demo').create()
        self.assertRaises(exception.Conflict,
                          objects.BuildRequest.create_all,
                          self.admin_context, requests, specs, mappings)
        for request in requests:
            self.assertRaises(exception.BuildRequestNotFound,
                              objects.BuildRequest.get_by_instance_uuid,
                              self.admin_context, request.instance_uuid)
            self.assertRaises(exception.RequestSpecNotFound,
                              objects.RequestSpec.get_by_instance_uuid,
                              self.admin_context, request.instance_uuid)


class TestInstanceMapping(DatabaseTestCase):

    def make_mapping(self):
        mapping = objects.InstanceMapping(
            self.admin_context, instance_uuid=uuidutils.generate_uuid(),
            project_id='demo', user_id='demo')
        mapping.create()
        return mapping

    def stored_cell(self, mapping):
        return objects.InstanceMapping.get_by_instance_uuid(
            self.admin_context, mapping.instance_uuid).cell_mapping

    def test_a_new_mapping_has_no_cell(self):
        self.assertIsNone(self.stored_cell(self.make_mapping()))

    def test_mapping_moves_to_a_cell_and_back_to_none(self):
        mapping = self.make_mapping()
        mapping.cell_mapping = self.databases.cell1
        mapping.save()
        self.assertEqual(self.databases.cell1.uuid,
                         self.stored_cell(mapping).uuid)
        mapping.cell_mapping = None
        mapping.save()
        self.assertIsNone(self.stored_cell(mapping))


class TestMapToCell(TestInstanceMapping):
    """A build's mapping change, in the transaction of its flow's record,
    while its owner holds the build request."""

    FLOW = {'action': 'create', 'steps': [['map_to_cell', 'c']]}

    def building(self, owner='conductor-a'):
        mapping = self.make_mapping()
        uuid = mapping.instance_uuid
        objects.BuildRequest(
            self.admin_context, instance_uuid=uuid, project_id='demo',
            instance=objects.Instance(uuid=uuid, project_id='demo',
                                      flavor=make_flavor())).create()
        objects.BuildRequest.claim_new(self.admin_context, [uuid], owner)
        return mapping

    def map_to_cell(self, mapping, owner='conductor-a'):
        objects.InstanceMapping.map_to_cell(
            self.admin_context, mapping.instance_uuid, self.databases.cell1,
            owner, self.FLOW)

    def test_it_maps_and_records_while_the_owner_holds_the_build(self):
        mapping = self.building()
        self.map_to_cell(mapping)
        self.assertEqual(self.databases.cell1.uuid,
                         self.stored_cell(mapping).uuid)
        self.assertEqual(self.FLOW, objects.BuildRequest.get_flow(
            self.admin_context, mapping.instance_uuid))

    def test_another_owner_changes_neither(self):
        mapping = self.building(owner='conductor-b')
        self.assertRaises(exception.BuildTakenOver, self.map_to_cell,
                          mapping)
        self.assertIsNone(self.stored_cell(mapping))
        self.assertIsNone(objects.BuildRequest.get_flow(
            self.admin_context, mapping.instance_uuid))

    def test_a_server_deleted_meanwhile_records_nothing(self):
        mapping = self.building()
        mapping.destroy()
        self.assertRaises(exception.InstanceMappingNotFound,
                          self.map_to_cell, mapping)
        self.assertIsNone(objects.BuildRequest.get_flow(
            self.admin_context, mapping.instance_uuid))


class TestTogether(TestMapToCell):
    """The statements of several builds at once: all or nothing."""

    def test_map_all_maps_and_records_every_one(self):
        mappings = [self.building(), self.building()]
        uuids = [m.instance_uuid for m in mappings]
        self.assertTrue(objects.InstanceMapping.map_all_to_cell(
            self.admin_context, uuids, self.databases.cell1, 'conductor-a',
            self.FLOW))
        for mapping in mappings:
            self.assertEqual(self.databases.cell1.uuid,
                             self.stored_cell(mapping).uuid)
            self.assertEqual(self.FLOW, objects.BuildRequest.get_flow(
                self.admin_context, mapping.instance_uuid))

    def test_map_all_writes_nothing_when_one_is_not_the_owners(self):
        mappings = [self.building(), self.building(owner='conductor-b')]
        self._refused(mappings)

    def test_map_all_writes_nothing_when_one_mapping_is_gone(self):
        mappings = [self.building(), self.building()]
        mappings[1].destroy()
        self._refused(mappings)

    def _refused(self, mappings):
        self.assertFalse(objects.InstanceMapping.map_all_to_cell(
            self.admin_context, [m.instance_uuid for m in mappings],
            self.databases.cell1, 'conductor-a', self.FLOW))
        mapping = mappings[0]
        self.assertIsNone(self.stored_cell(mapping))
        self.assertIsNone(objects.BuildRequest.get_flow(
            self.admin_context, mapping.instance_uuid))

    def test_destroy_all_is_all_or_nothing(self):
        mine = [self.building(), self.building()]
        theirs = self.building(owner='conductor-b')
        uuids = [m.instance_uuid for m in mine]
        self.assertFalse(objects.BuildRequest.destroy_all(
            self.admin_context, uuids + [theirs.instance_uuid],
            'conductor-a'))
        for uuid in uuids:
            objects.BuildRequest.get_by_instance_uuid(self.admin_context,
                                                      uuid)
        self.assertTrue(objects.BuildRequest.destroy_all(
            self.admin_context, uuids, 'conductor-a'))
        for uuid in uuids:
            self.assertRaises(exception.BuildRequestNotFound,
                              objects.BuildRequest.get_by_instance_uuid,
                              self.admin_context, uuid)


class TestFlavor(DatabaseTestCase):

    def create_flavor(self, flavorid, name):
        flavor = objects.Flavor(self.admin_context, flavorid=flavorid,
                                name=name, memory_mb=512, vcpus=1,
                                root_gb=1, ephemeral_gb=0, swap=0)
        flavor.create()
        return flavor

    def test_duplicate_name_is_flavor_exists(self):
        self.create_flavor('1', 'm1.tiny')
        error = self.assertRaises(exception.FlavorExists,
                                  self.create_flavor, '2', 'm1.tiny')
        self.assertIn('name m1.tiny', str(error))

    def test_duplicate_flavorid_is_flavor_exists(self):
        self.create_flavor('1', 'm1.tiny')
        error = self.assertRaises(exception.FlavorExists,
                                  self.create_flavor, '1', 'm1.small')
        self.assertIn('ID 1', str(error))


class TestService(DatabaseTestCase):

    def make_service(self):
        service = objects.Service(self.context, host='compute1',
                                  binary='nova-lite-compute',
                                  topic='compute')
        service.create()
        return service

    def test_heartbeat_counts_reports_and_records_when(self):
        service = self.make_service()
        service.last_seen_up = datetime.datetime(2000, 1, 1)
        service.save()
        before = base.utcnow()
        service.heartbeat()
        service.heartbeat()
        stored = objects.Service.get_by_host_and_binary(
            self.context, 'compute1', 'nova-lite-compute')
        self.assertEqual(2, stored.report_count)
        self.assertGreaterEqual(stored.last_seen_up.replace(tzinfo=None),
                                before)

    def test_heartbeat_refreshes_the_object_itself(self):
        service = self.make_service()
        service.heartbeat()
        self.assertEqual(1, service.report_count)
        self.assertEqual(set(), service.obj_what_changed())


# -- object indirection ------------------------------------------------------

@contextlib.contextmanager
def conductor_side():
    """Run object methods against the local databases, as the conductor."""
    saved = base.NovaLiteObject.indirection_api
    base.NovaLiteObject.indirection_api = None
    try:
        yield
    finally:
        base.NovaLiteObject.indirection_api = saved


class InProcessConductor:
    """The indirection API of a compute, answered by a real
    ConductorManager in this process. Arguments and results cross a fake
    wire (serializer + JSON) both ways, as they would over RPC."""

    def __init__(self):
        self.manager = conductor_manager.ConductorManager()
        self.serializer = rpc.RequestContextSerializer()
        self.calls = []
        # The primitive of each object an object_action sent.
        self.sent = []

    def _wire(self, context, value):
        sent = jsonutils.dumps(self.serializer.serialize_entity(context,
                                                                value))
        return self.serializer.deserialize_entity(context,
                                                  jsonutils.loads(sent))

    def _call(self, context, method, **kwargs):
        remote_context = self.serializer.deserialize_context(
            jsonutils.loads(jsonutils.dumps(
                self.serializer.serialize_context(context))))
        kwargs = {name: self._wire(remote_context, value)
                  for name, value in kwargs.items()}
        with conductor_side():
            try:
                result = getattr(self.manager, method)(remote_context,
                                                       **kwargs)
            except messaging.ExpectedException as wrapped:
                # What the RPC dispatcher unwraps before replying.
                raise wrapped.exc_info[1]
        return self._wire(context, result)

    def object_class_action_versions(self, context, objname, objmethod,
                                     object_versions, args, kwargs):
        self.calls.append((objname, objmethod))
        return self._call(context, 'object_class_action_versions',
                          objname=objname, objmethod=objmethod,
                          object_versions=object_versions, args=args,
                          kwargs=kwargs)

    # The compute's own: what it sends is what ConductorAPI sends.
    object_action = conductor_rpcapi.ConductorAPI.object_action

    def _object_call(self, context, method, what, **kwargs):
        self.calls.append(tuple(what.split('.')))
        self.sent.append(kwargs['objinst'].obj_to_primitive())
        return self._call(context, method, **kwargs)

    def object_backport_versions(self, context, objinst, object_versions):
        return self._call(context, 'object_backport_versions',
                          objinst=objinst, object_versions=object_versions)


class TestObjectIndirection(DatabaseTestCase):
    """A compute has no database: its remotable calls run in the conductor.

    The compute side uses an untargeted context, so the conductor works on
    its own cell database (cell1 in these tests).
    """

    def setUp(self):
        super().setUp()
        self.useFixture(nova_fixtures.FakeRPC())
        self.conductor = InProcessConductor()
        base.NovaLiteObject.indirection_api = self.conductor
        self.addCleanup(setattr, base.NovaLiteObject, 'indirection_api',
                        None)
        self.compute_context = nova_context.get_admin_context()
        with conductor_side():
            self.instance = self.make_instance(task_state=states.SPAWNING)

    def test_instance_get_by_uuid_is_answered_by_the_conductor(self):
        found = objects.Instance.get_by_uuid(self.compute_context,
                                             self.instance.uuid)
        self.assertEqual(self.instance.uuid, found.uuid)
        self.assertEqual('m1.tiny', found.flavor.name)
        self.assertEqual([('Instance', 'get_by_uuid')], self.conductor.calls)

    def test_instance_found_remotely_has_no_pending_changes(self):
        found = objects.Instance.get_by_uuid(self.compute_context,
                                             self.instance.uuid)
        self.assertEqual(set(), found.obj_what_changed())

    def test_instance_save_lands_in_the_database(self):
        instance = objects.Instance.get_by_uuid(self.compute_context,
                                                self.instance.uuid)
        instance.vm_state = states.ACTIVE
        instance.task_state = None
        instance.save(expected_task_state=states.SPAWNING)
        self.assertIn(('Instance', 'save'), self.conductor.calls)
        with conductor_side():
            stored = objects.Instance.get_by_uuid(self.context,
                                                  self.instance.uuid)
        self.assertEqual((states.ACTIVE, None),
                         (stored.vm_state, stored.task_state))
        self.assertEqual(set(), instance.obj_what_changed())

    def test_the_answer_to_a_save_carries_what_the_save_changed(self):
        instance = objects.Instance.get_by_uuid(self.compute_context,
                                                self.instance.uuid)
        instance.task_state = None
        with conductor_side():
            updates, _result = conductor_manager._object_action(
                instance, 'save', [], {})
        # Every change is saved, and the flavor, which the save left as
        # it was, is not sent back (updated_at is, unless the save fell in
        # the second of the last one: its primitive has no fraction).
        self.assertEqual([], updates.pop('obj_what_changed'))
        self.assertEqual(set(), set(updates) - {'updated_at'})
        # A nested object the method changes is sent back.
        instance.flavor.name = 'renamed'
        with conductor_side():
            updates, _result = conductor_manager._object_action(
                instance, 'refresh', [], {})
        self.assertEqual('m1.tiny', updates['flavor'][
            'nova_lite_object.data']['name'])

    def new_compute_node(self):
        return objects.ComputeNode(
            self.compute_context, host='compute1',
            hypervisor_hostname='compute1', hypervisor_type='fake',
            hypervisor_version=1000, vcpus=16, memory_mb=32768,
            local_gb=1000, vcpus_used=0, memory_mb_used=512,
            local_gb_used=0, free_ram_mb=32256, free_disk_gb=1000,
            running_vms=0, current_workload=0, cpu_allocation_ratio=16.0,
            ram_allocation_ratio=1.5, disk_allocation_ratio=1.0)

    def sent_data(self):
        return self.conductor.sent[-1]['nova_lite_object.data']

    def test_a_save_sends_only_the_identity_and_the_changes(self):
        instance = objects.Instance.get_by_uuid(self.compute_context,
                                                self.instance.uuid)
        before = instance.obj_to_primitive()['nova_lite_object.data']
        instance.vm_state = states.ACTIVE
        instance.task_state = None
        instance.metadata['role'] = 'web'  # changed in place
        instance.save(expected_task_state=states.SPAWNING)
        self.assertEqual(
            {'id', 'uuid', 'vm_state', 'task_state', 'metadata'},
            set(self.sent_data()))
        self.assertEqual(
            {'vm_state', 'task_state', 'metadata'},
            set(self.conductor.sent[-1]['nova_lite_object.changes']))
        with conductor_side():
            stored = objects.Instance.get_by_uuid(self.context,
                                                  self.instance.uuid)
        self.assertEqual((states.ACTIVE, None, {'role': 'web'}, 'm1.tiny',
                          'compute1'),
                         (stored.vm_state, stored.task_state, stored.metadata,
                          stored.flavor.name, stored.host))
        # The compute's object keeps what it did not send, saved.
        after = instance.obj_to_primitive()['nova_lite_object.data']
        self.assertEqual(set(before), set(after))
        self.assertEqual(before['flavor'], after['flavor'])
        self.assertEqual(set(), instance.obj_what_changed())

    def test_system_metadata_changed_in_place_on_a_compute_is_saved(self):
        # As a resize records the vm state to go back to, and a shelve
        # its image, on an instance the compute was sent.
        instance = objects.Instance.get_by_uuid(self.compute_context,
                                                self.instance.uuid)
        instance.system_metadata['old_vm_state'] = states.ACTIVE
        instance.system_metadata.update({'shelved_host': 'compute1'})
        self.assertEqual({'system_metadata'}, instance.obj_what_changed())
        instance.save()
        with conductor_side():
            stored = objects.Instance.get_by_uuid(self.context,
                                                  self.instance.uuid)
        self.assertEqual({'old_vm_state': states.ACTIVE,
                          'shelved_host': 'compute1'},
                         stored.system_metadata)
        del instance.system_metadata['old_vm_state']
        instance.save()
        with conductor_side():
            stored = objects.Instance.get_by_uuid(self.context,
                                                  self.instance.uuid)
        self.assertEqual({'shelved_host': 'compute1'},
                         stored.system_metadata)

    def test_a_save_sends_a_nested_object_changed_in_place(self):
        instance = objects.Instance.get_by_uuid(self.compute_context,
                                                self.instance.uuid)
        instance.flavor.extra_specs = {'hw:cpu_policy': 'dedicated'}
        instance.save()
        self.assertEqual({'id', 'uuid', 'flavor'}, set(self.sent_data()))
        with conductor_side():
            stored = objects.Instance.get_by_uuid(self.context,
                                                  self.instance.uuid)
        self.assertEqual({'hw:cpu_policy': 'dedicated'},
                         stored.flavor.extra_specs)

    def test_a_compute_node_save_sends_its_id_and_the_changes(self):
        node = self.new_compute_node()
        node.create()
        node.running_vms = 1
        node.memory_mb_used = 1024
        node.save()
        self.assertEqual({'id', 'running_vms', 'memory_mb_used'},
                         set(self.sent_data()))
        with conductor_side():
            stored = objects.ComputeNode.get_by_host_and_nodename(
                self.context, 'compute1', 'compute1')
        self.assertEqual((1, 1024, 32256), (stored.running_vms,
                                            stored.memory_mb_used,
                                            stored.free_ram_mb))
        self.assertEqual((1, 'fake', set()),
                         (node.running_vms, node.hypervisor_type,
                          node.obj_what_changed()))

    def test_other_calls_send_the_whole_object(self):
        instance = objects.Instance.get_by_uuid(self.compute_context,
                                                self.instance.uuid)
        instance.refresh()
        self.assertIn('flavor', self.sent_data())
        self.assertIn('display_name', self.sent_data())

    def test_instance_save_refusal_reaches_the_compute(self):
        with conductor_side():
            self.set_task_state_behind_its_back(self.instance,
                                                states.DELETING)
        instance = objects.Instance.get_by_uuid(self.compute_context,
                                                self.instance.uuid)
        instance.task_state = None
        self.assertRaises(exception.UnexpectedDeletingTaskStateError,
                          instance.save, expected_task_state=states.SPAWNING)
        # The compute keeps its change, and all it did not send.
        self.assertEqual({'task_state'}, instance.obj_what_changed())
        self.assertEqual('m1.tiny', instance.flavor.name)

    def test_instance_fault_create_lands_in_the_database(self):
        fault = objects.InstanceFault(
            self.compute_context, instance_uuid=self.instance.uuid,
            code=500, message='spawn failed', details='Traceback', host='c1')
        fault.create()
        self.assertEqual([('InstanceFault', 'create')], self.conductor.calls)
        self.assertTrue(fault.obj_attr_is_set('id'))
        with conductor_side():
            stored = objects.Instance.get_by_uuid(
                self.context, self.instance.uuid, expected_attrs=['fault'])
        self.assertEqual((fault.id, 'spawn failed', 'c1'),
                         (stored.fault.id, stored.fault.message,
                          stored.fault.host))

    def test_compute_node_create_lands_in_the_database(self):
        node = self.new_compute_node()
        node.create()
        self.assertEqual([('ComputeNode', 'create')], self.conductor.calls)
        self.assertTrue(uuidutils.is_uuid_like(node.uuid))
        with conductor_side():
            stored = objects.ComputeNode.get_by_host_and_nodename(
                self.context, 'compute1', 'compute1')
        self.assertEqual((node.id, node.uuid, 32256, 1.5),
                         (stored.id, stored.uuid, stored.free_ram_mb,
                          stored.ram_allocation_ratio))
