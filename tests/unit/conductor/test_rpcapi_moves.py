"""Conductor RPC 1.5: a move to a named host says whether it is forced.

A 1.4 conductor forces every named host (it puts the host in
``force_hosts``, which skips the filters), so a client pinned below 1.5
may send it only the moves that mean the same to both: no host, or a
forced one. An unforced move to a named host is refused with
ConductorTooOld before anything is sent. The casts are captured by a real
RPC server on the in-memory transport.
"""

import threading

import oslo_messaging as messaging
from oslo_messaging.rpc import dispatcher as rpc_dispatcher
from oslo_messaging.rpc import server as rpc_server
from oslo_utils import uuidutils

from nova_lite.conductor import manager as conductor_manager
from nova_lite.conductor import rpcapi as conductor_rpcapi
from nova_lite.conductor.tasks import evacuate
from nova_lite.conductor.tasks import live_migrate
from nova_lite import exception
from nova_lite import objects
from nova_lite import rpc
from tests.unit import test_rpcapi


class RecordingConductor:
    """The conductor's two move methods, noting what they were cast."""

    target = messaging.Target(version='1.5')

    def __init__(self):
        self.casts = []
        self.arrived = threading.Event()

    def live_migrate_instance(self, context, **kwargs):
        self.casts.append(('live_migrate_instance', kwargs))
        self.arrived.set()

    def evacuate_instance(self, context, **kwargs):
        self.casts.append(('evacuate_instance', kwargs))
        self.arrived.set()


class TestMovesToANamedHost(test_rpcapi.RPCTestCase):

    def setUp(self):
        super().setUp()
        self.conductor = RecordingConductor()
        self.dispatcher = test_rpcapi.VersionRecordingDispatcher(
            [self.conductor], rpc.RequestContextSerializer(),
            rpc_dispatcher.DefaultRPCAccessPolicy)
        server = rpc_server.RPCServer(
            rpc.TRANSPORT,
            messaging.Target(topic=conductor_rpcapi.RPC_TOPIC,
                             server='conductor1'),
            self.dispatcher, executor='threading')
        server.start()
        self.addCleanup(server.wait)
        self.addCleanup(server.stop)
        self.instance = objects.Instance(uuid=uuidutils.generate_uuid())

    def pin_conductor(self, level):
        self.config.config(conductor=level, group='upgrade_levels')

    def received(self):
        self.assertTrue(self.conductor.arrived.wait(10))
        [(method, kwargs)] = self.conductor.casts
        [version] = self.dispatcher.versions
        kwargs.pop('instance')
        return method, version, kwargs

    def test_an_unpinned_client_says_the_host_is_not_forced(self):
        conductor_rpcapi.ConductorAPI().live_migrate_instance(
            self.context, self.instance, host='compute2')
        self.assertEqual(
            ('live_migrate_instance', '1.5',
             {'host': 'compute2', 'block_migration': False, 'force': False}),
            self.received())

    def test_an_unpinned_client_says_the_host_is_forced(self):
        conductor_rpcapi.ConductorAPI().evacuate_instance(
            self.context, self.instance, host='compute2', force=True)
        self.assertEqual(
            ('evacuate_instance', '1.5', {'host': 'compute2', 'force': True}),
            self.received())

    def test_pinned_to_1_4_an_unforced_named_host_is_refused_unsent(self):
        self.pin_conductor('1.4')
        api = conductor_rpcapi.ConductorAPI()
        self.assertFalse(api.can_filter_named_host('compute2', False))
        for move in (api.live_migrate_instance, api.evacuate_instance):
            error = self.assertRaises(exception.ConductorTooOld, move,
                                      self.context, self.instance,
                                      host='compute2')
            self.assertIn('without force', str(error))
            self.assertIn('pinned to 1.4', str(error))
        self.assertFalse(self.conductor.arrived.wait(0.2))

    def test_pinned_to_1_4_a_forced_host_is_sent_as_a_1_4_conductor_knew_it(
            self):
        self.pin_conductor('1.4')
        conductor_rpcapi.ConductorAPI().live_migrate_instance(
            self.context, self.instance, host='compute2', force=True)
        self.assertEqual(
            ('live_migrate_instance', '1.3',
             {'host': 'compute2', 'block_migration': False}),
            self.received())

    def test_pinned_to_1_4_a_move_without_a_host_is_sent_without_force(self):
        self.pin_conductor('1.4')
        conductor_rpcapi.ConductorAPI().evacuate_instance(
            self.context, self.instance)
        self.assertEqual(('evacuate_instance', '1.2', {'host': None}),
                         self.received())


class TestAnOlderCallersNamedHostIsForced(test_rpcapi.RPCTestCase):
    """A 1.4 API sends no ``force``: to it every named host was forced,
    and the conductor keeps that meaning."""

    def task_of(self, module, task_class, method, **kwargs):
        made = []

        class Recorded(task_class):
            def execute(self):
                made.append(self)

        self.patch(module, task_class.__name__, Recorded)
        manager = conductor_manager.ConductorManager()
        getattr(manager, method)(self.context, objects.Instance(
            uuid=uuidutils.generate_uuid()), host='compute2', **kwargs)
        [task] = made
        return task

    def test_a_live_migration_without_force_is_forced(self):
        task = self.task_of(live_migrate, live_migrate.LiveMigrationTask,
                            'live_migrate_instance')
        self.assertTrue(task.force)

    def test_an_evacuation_without_force_is_forced(self):
        task = self.task_of(evacuate, evacuate.EvacuateTask,
                            'evacuate_instance')
        self.assertTrue(task.force)

    def test_a_15_callers_unforced_host_is_not(self):
        task = self.task_of(live_migrate, live_migrate.LiveMigrationTask,
                            'live_migrate_instance', force=False)
        self.assertFalse(task.force)
