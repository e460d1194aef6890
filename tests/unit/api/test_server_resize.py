"""POST /servers/{id}/action resize, migrate, confirmResize and
revertResize: what is refused before anything changes, and what is handed
on.

The conductor is a recorder on its topic (conductor RPC 1.6); the source
compute is a recorder of compute RPC 1.6 (confirm and revert are cast to
the computes).
"""

import fixtures
import oslo_messaging as messaging

from nova_lite.compute import states
from nova_lite import context as nova_context
from nova_lite import objects
from tests.unit.api import base
from tests.unit.api import test_server_actions
from tests.unit.api import test_server_moves


class ResizeConductorRecorder(test_server_moves.MoveConductorRecorder):
    """The conductor recorder, also for conductor RPC 1.6."""

    target = messaging.Target(version='1.6')

    def _setUp(self):
        self.migrations = []
        super()._setUp()

    def migrate_server(self, context, **kwargs):
        with self._arrived:
            self.migrations.append((context, kwargs))
            self._arrived.notify_all()


class ResizingCompute(test_server_actions._Compute):
    """A compute of compute RPC 1.6 recording what it is sent."""

    target = messaging.Target(version='1.6')

    def confirm_resize(self, context, **kwargs):
        self._record('confirm_resize', **kwargs)

    def revert_resize(self, context, **kwargs):
        self._record('revert_resize', **kwargs)


class ResizeTestCase(test_server_moves.MovesTestCase):

    def setUp(self):
        self.useFixture(fixtures.MonkeyPatch(
            'tests.unit.api.test_server_moves.MoveConductorRecorder',
            ResizeConductorRecorder))
        super().setUp()
        self.bigger = self.make_flavor(flavorid='2', name='m1.small',
                                       memory_mb=2048, vcpus=2, root_gb=1)
        self.smaller_disk = self.make_flavor(flavorid='3', name='m1.flat',
                                             root_gb=0)
        self.compute = self.compute_up('host1', ResizingCompute())

    def resize(self, instance, flavor_ref='2', token=base.DEMO):
        return self.action(instance.uuid, {'resize': {
            'flavorRef': flavor_ref}}, token=token)

    def migrate(self, instance, host=None, version='2.56',
                token=base.ADMIN):
        body = {'migrate': {'host': host} if host else None}
        return self.action(instance.uuid, body, version=version,
                           token=token)

    def assertNothingChanged(self, instance):
        self.assertIsNone(self.in_cell1(instance.uuid).task_state)
        self.assertEqual([], self.conductor.migrations)


class TestResize(ResizeTestCase):

    def test_accepted_and_cast_to_the_conductor_with_the_new_flavor(self):
        instance = self.server()
        response = self.resize(instance)
        self.assertEqual(202, response.status_int, response.body)
        [(_context, cast)] = self.conductor.wait_for(
            self.conductor.migrations)
        self.assertEqual((instance.uuid, '2', None),
                         (cast['instance'].uuid, cast['flavor'].flavorid,
                          cast['host']))
        stored = self.in_cell1(instance.uuid)
        self.assertEqual(states.RESIZE_PREP, stored.task_state)
        shown = self.request('GET', '/v2.1/servers/' + instance.uuid
                             ).json['server']
        self.assertEqual('RESIZE', shown['status'])

    def test_a_stopped_server_may_be_resized(self):
        instance = self.server(vm_state=states.STOPPED)
        self.assertEqual(202, self.resize(instance).status_int)

    def test_the_same_flavor_is_400(self):
        instance = self.server()
        self.assertError(self.resize(instance, '1'), 400, 'badRequest',
                         'must change flavor')
        self.assertNothingChanged(instance)

    def test_a_smaller_root_disk_is_400(self):
        instance = self.server()
        self.assertError(self.resize(instance, '3'), 400, 'badRequest',
                         'root disk down')
        self.assertNothingChanged(instance)

    def test_an_unknown_flavor_is_400(self):
        instance = self.server()
        self.assertError(self.resize(instance, '99'), 400, 'badRequest')
        self.assertNothingChanged(instance)

    def test_a_larger_flavor_beyond_the_quota_is_403(self):
        instance = self.server()
        response = self.request('PUT', '/v2.1/os-quota-sets/' + base.DEMO,
                                {'quota_set': {'cores': 1, 'force': True}},
                                token=base.ADMIN)
        self.assertEqual(200, response.status_int, response.body)
        self.assertError(self.resize(instance), 403, 'forbidden', 'cores')
        self.assertNothingChanged(instance)

    def test_a_server_in_a_task_is_409(self):
        instance = self.server()
        self.set_state(instance, task_state=states.POWERING_OFF)
        self.assertError(self.resize(instance), 409, 'conflictingRequest')
        self.assertEqual([], self.conductor.migrations)

    def test_a_compute_pinned_below_1_6_refuses_up_front(self):
        self.plane.config.config(compute='1.5', group='upgrade_levels')
        self.fresh_rpc_clients()
        instance = self.server()
        self.assertError(self.resize(instance), 409, 'conflictingRequest',
                         '1.6')
        self.assertNothingChanged(instance)

    def test_a_source_compute_of_an_older_release_refuses_up_front(self):
        with nova_context.target_cell(self.admin_context,
                                      self.cell1) as cctxt:
            service = objects.Service.get_by_host_and_binary(
                cctxt, 'host1', 'nova-lite-compute')
            service.version = 11  # compute RPC 1.5
            service.save()
        instance = self.server()
        self.assertError(self.resize(instance), 409, 'conflictingRequest',
                         'host1')
        self.assertNothingChanged(instance)

    def test_another_project_cannot_see_it(self):
        instance = self.server()
        self.assertError(self.resize(instance, token='other'), 404,
                         'itemNotFound')
        self.assertNothingChanged(instance)


class TestMigrate(ResizeTestCase):

    def test_a_cold_migration_keeps_the_flavor(self):
        instance = self.server()
        response = self.migrate(instance)
        self.assertEqual(202, response.status_int, response.body)
        [(_context, cast)] = self.conductor.wait_for(
            self.conductor.migrations)
        self.assertEqual(('1', None), (cast['flavor'].flavorid,
                                       cast['host']))

    def test_a_host_is_passed_on_from_2_56(self):
        self.service_up('host2')
        instance = self.server()
        self.assertEqual(202, self.migrate(instance, 'host2').status_int)
        [(_context, cast)] = self.conductor.wait_for(
            self.conductor.migrations)
        self.assertEqual('host2', cast['host'])

    def test_a_host_before_2_56_is_400(self):
        instance = self.server()
        self.assertError(self.migrate(instance, 'host2', version='2.55'),
                         400, 'badRequest')
        self.assertNothingChanged(instance)

    def test_an_unknown_or_the_same_host_is_400(self):
        instance = self.server()
        self.assertError(self.migrate(instance, 'nowhere'), 400,
                         'badRequest', 'nowhere')
        self.assertError(self.migrate(instance, 'host1'), 400,
                         'badRequest', 'same one')
        self.assertNothingChanged(instance)

    def test_it_is_for_admins(self):
        instance = self.server()
        self.assertError(self.migrate(instance, token=base.DEMO), 403,
                         'forbidden')
        self.assertNothingChanged(instance)


class TestConfirmAndRevert(ResizeTestCase):

    def resized(self):
        """A server RESIZED on host1 from host2, its migration
        finished."""
        instance = self.server()
        self.set_state(instance, vm_state=states.RESIZED)
        with nova_context.target_cell(self.admin_context,
                                      self.cell1) as cctxt:
            migration = objects.Migration(
                cctxt, instance_uuid=instance.uuid, migration_type='resize',
                status='finished', source_compute='host1',
                source_node='host1', dest_compute='host1', dest_node='host1',
                dest_host='host1')
            migration.create()
        return instance, migration

    def status_of(self, migration):
        with nova_context.target_cell(self.admin_context,
                                      self.cell1) as cctxt:
            return objects.Migration.get_by_uuid(cctxt,
                                                 migration.uuid).status

    def test_confirm_is_204_and_cast_to_the_source(self):
        instance, migration = self.resized()
        response = self.action(instance.uuid, {'confirmResize': None})
        self.assertEqual(204, response.status_int, response.body)
        self.assertEqual('confirming', self.status_of(migration))
        self.assertTrue(self.compute.arrived.wait(10))
        self.assertEqual(['confirm_resize'],
                         [method for method, _kwargs in self.compute.calls])

    def test_revert_is_202_and_cast_to_the_destination(self):
        instance, migration = self.resized()
        response = self.action(instance.uuid, {'revertResize': None})
        self.assertEqual(202, response.status_int, response.body)
        self.assertEqual('reverting', self.status_of(migration))
        self.assertEqual(states.RESIZE_REVERTING,
                         self.in_cell1(instance.uuid).task_state)
        shown = self.request('GET', '/v2.1/servers/' + instance.uuid
                             ).json['server']
        self.assertEqual('REVERT_RESIZE', shown['status'])

    def test_a_server_that_was_not_resized_is_409(self):
        instance = self.server()
        for action in ('confirmResize', 'revertResize'):
            self.assertError(self.action(instance.uuid, {action: None}),
                             409, 'conflictingRequest')

    def test_once_reverting_it_cannot_be_confirmed(self):
        instance, migration = self.resized()
        self.action(instance.uuid, {'revertResize': None})
        self.assertError(self.action(instance.uuid,
                                     {'confirmResize': None}),
                         409, 'conflictingRequest')
        self.assertEqual('reverting', self.status_of(migration))
