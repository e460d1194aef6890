"""POST /servers/{id}/action: reboot (soft and hard), pause and unpause,
suspend and resume, lock and unlock, os-resetState; and what a locked
server refuses.

The server's compute is a recorder on its RPC topic: the API's side ends
with the cast, and the task state it set.
"""

import threading

import fixtures
import oslo_messaging as messaging

from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.compute import states
from nova_lite import objects
from nova_lite import policy
from tests.unit.api import base
from tests.unit.api import test_server_actions

NEW_IMAGE = test_server_actions.NEW_IMAGE


class _Compute:
    """A 1.5 compute: records the power actions cast to it."""

    target = messaging.Target(version='1.5')

    def __init__(self):
        self.calls = []
        self.arrived = threading.Semaphore(0)

    def _record(self, method, instance, **kwargs):
        self.calls.append((method, instance.uuid, kwargs))
        self.arrived.release()

    def reboot_instance(self, context, instance, reboot_type):
        self._record('reboot_instance', instance, reboot_type=reboot_type)

    def pause_instance(self, context, instance):
        self._record('pause_instance', instance)

    def unpause_instance(self, context, instance):
        self._record('unpause_instance', instance)

    def suspend_instance(self, context, instance):
        self._record('suspend_instance', instance)

    def resume_instance(self, context, instance):
        self._record('resume_instance', instance)

    def stop_instance(self, context, instance):
        self._record('stop_instance', instance)

    def rebuild_instance(self, context, instance, **kwargs):
        self._record('rebuild_instance', instance)

    def terminate_instance(self, context, instance):
        self._record('terminate_instance', instance)

    def wait(self, count=1):
        for _cast in range(count):
            assert self.arrived.acquire(timeout=10), 'no cast arrived'
        return self.calls


class StateActionsTestCase(test_server_actions.ActionsTestCase):

    def setUp(self):
        super().setUp()
        self.compute = self.compute_up(recorder=_Compute())

    def server(self, vm_state=states.ACTIVE, task_state=None,
               locked_by=None):
        instance = self.instance_in_cell(self.cell1, vm_state=vm_state,
                                         host='host1')
        if task_state is not None or locked_by is not None:
            instance.task_state = task_state
            if locked_by is not None:
                instance.locked = True
                instance.system_metadata = {'locked_by': locked_by}
            instance.save()
        return instance

    def state(self, instance):
        stored = self.in_cell1(instance.uuid)
        return stored.vm_state, stored.task_state

    def shown(self, instance, version=None, token=base.DEMO):
        return self.request('GET', '/v2.1/servers/' + instance.uuid,
                            version=version, token=token).json['server']

    def actions(self, instance):
        return [a['action'] for a in self.request(
            'GET', '/v2.1/servers/%s/os-instance-actions' % instance.uuid,
            token=base.ADMIN).json['instanceActions']]


class TestReboot(StateActionsTestCase):

    def test_a_soft_reboot_is_cast_in_rebooting(self):
        instance = self.server()
        response = self.action(instance.uuid, {'reboot': {'type': 'SOFT'}})
        self.assertEqual(202, response.status_int, response.body)
        self.assertEqual([('reboot_instance', instance.uuid,
                           {'reboot_type': 'SOFT'})], self.compute.wait())
        self.assertEqual((states.ACTIVE, states.REBOOTING),
                         self.state(instance))
        self.assertEqual('REBOOT', self.shown(instance)['status'])
        self.assertEqual(['reboot'], self.actions(instance))

    def test_a_hard_reboot_is_cast_in_rebooting_hard(self):
        instance = self.server()
        response = self.action(instance.uuid, {'reboot': {'type': 'hard'}})
        self.assertEqual(202, response.status_int, response.body)
        self.assertEqual([('reboot_instance', instance.uuid,
                           {'reboot_type': 'HARD'})], self.compute.wait())
        self.assertEqual('HARD_REBOOT', self.shown(instance)['status'])

    def test_the_type_is_taken_in_nova_spellings_only(self):
        instance = self.server()
        for spelling in ('Soft', 'soft'):
            response = self.action(instance.uuid,
                                   {'reboot': {'type': spelling}})
            self.assertEqual(202, response.status_int, response.body)
            self.compute.wait()
            self.reset_task(instance)
        for body in ({'type': 'sOfT'}, {'type': 'WARM'}, {}, None):
            self.assertError(self.action(instance.uuid, {'reboot': body}),
                             400, 'badRequest')

    def reset_task(self, instance):
        stored = self.in_cell1(instance.uuid)
        stored.task_state = None
        stored.save()

    def test_a_soft_reboot_of_a_stopped_server_is_409(self):
        instance = self.server(vm_state=states.STOPPED)
        self.assertError(
            self.action(instance.uuid, {'reboot': {'type': 'SOFT'}}), 409,
            'conflictingRequest', 'vm_state stopped')

    def test_a_hard_reboot_brings_back_stopped_paused_suspended_and_error(
            self):
        for vm_state in (states.STOPPED, states.PAUSED, states.SUSPENDED,
                         states.ERROR):
            instance = self.server(vm_state=vm_state)
            response = self.action(instance.uuid,
                                   {'reboot': {'type': 'HARD'}})
            self.assertEqual(202, response.status_int, response.body)
            self.assertEqual((vm_state, states.REBOOTING_HARD),
                             self.state(instance))
        self.compute.wait(4)

    def test_a_hard_reboot_overtakes_a_soft_one_but_not_the_reverse(self):
        instance = self.server(task_state=states.REBOOT_STARTED)
        response = self.action(instance.uuid, {'reboot': {'type': 'HARD'}})
        self.assertEqual(202, response.status_int, response.body)
        self.assertEqual(states.REBOOTING_HARD, self.state(instance)[1])
        self.assertError(
            self.action(instance.uuid, {'reboot': {'type': 'SOFT'}}), 409,
            'conflictingRequest', 'task_state rebooting_hard')

    def test_a_hard_reboot_does_not_overtake_a_delete(self):
        instance = self.server(task_state=states.DELETING)
        self.assertError(
            self.action(instance.uuid, {'reboot': {'type': 'HARD'}}), 409,
            'conflictingRequest', 'task_state deleting')

    def test_an_unsent_hard_reboot_gives_back_the_task_it_overtook(self):
        instance = self.server(task_state=states.PAUSING)
        self.useFixture(fixtures.MockPatchObject(
            compute_rpcapi.ComputeAPI, 'reboot_instance',
            side_effect=messaging.MessageDeliveryFailure('broker down')))
        self.assertError(
            self.action(instance.uuid, {'reboot': {'type': 'HARD'}}), 503,
            'serviceUnavailable')
        self.assertEqual(states.PAUSING, self.state(instance)[1])

    def test_computes_pinned_to_1_4_are_too_old_and_nothing_changes(self):
        self.plane.config.config(compute='1.4', group='upgrade_levels')
        self.fresh_rpc_clients()
        instance = self.server()
        self.assertError(
            self.action(instance.uuid, {'reboot': {'type': 'HARD'}}), 409,
            'conflictingRequest', 'compute RPC API 1.5')
        self.assertEqual((states.ACTIVE, None), self.state(instance))

    def test_another_projects_server_is_404(self):
        instance = self.server()
        self.assertError(
            self.action(instance.uuid, {'reboot': {'type': 'SOFT'}},
                        token='mallory'), 404, 'itemNotFound')


class TestPauseAndSuspend(StateActionsTestCase):

    CASES = (('pause', states.ACTIVE, states.PAUSING, 'pause_instance'),
             ('unpause', states.PAUSED, states.UNPAUSING,
              'unpause_instance'),
             ('suspend', states.ACTIVE, states.SUSPENDING,
              'suspend_instance'),
             ('resume', states.SUSPENDED, states.RESUMING,
              'resume_instance'))

    def test_each_is_cast_in_its_task_state(self):
        for action, vm_state, task_state, method in self.CASES:
            instance = self.server(vm_state=vm_state)
            response = self.action(instance.uuid, {action: None})
            self.assertEqual(202, response.status_int, response.body)
            self.assertEqual((vm_state, task_state), self.state(instance))
            self.assertEqual((method, instance.uuid),
                             self.compute.wait()[-1][:2])
            self.assertEqual(action, self.actions(instance)[0])

    def test_each_from_another_state_is_409(self):
        for action, vm_state, _task_state, _method in self.CASES:
            instance = self.server(vm_state=states.STOPPED)
            self.assertError(self.action(instance.uuid, {action: None}),
                             409, 'conflictingRequest', 'vm_state stopped')

    def test_each_takes_null_only(self):
        instance = self.server()
        for action, _vm_state, _task_state, _method in self.CASES:
            self.assertError(self.action(instance.uuid, {action: {}}),
                             400, 'badRequest')

    def test_paused_and_suspended_servers_show_and_filter_so(self):
        paused = self.server(vm_state=states.PAUSED)
        suspended = self.server(vm_state=states.SUSPENDED)
        self.assertEqual('PAUSED', self.shown(paused)['status'])
        self.assertEqual('SUSPENDED', self.shown(suspended)['status'])
        for status, instance in (('PAUSED', paused),
                                 ('SUSPENDED', suspended)):
            listed = self.request('GET', '/v2.1/servers?status=' + status
                                  ).json['servers']
            self.assertEqual([instance.uuid], [s['id'] for s in listed])

    def test_computes_pinned_to_1_4_are_too_old(self):
        self.plane.config.config(compute='1.4', group='upgrade_levels')
        self.fresh_rpc_clients()
        instance = self.server()
        self.assertError(self.action(instance.uuid, {'suspend': None}),
                         409, 'conflictingRequest', 'compute RPC API 1.5')
        self.assertEqual((states.ACTIVE, None), self.state(instance))


class TestLock(StateActionsTestCase):

    def lock(self, instance, token=base.DEMO, action='lock'):
        return self.action(instance.uuid, {action: None}, token=token)

    def locked(self, instance):
        stored = self.in_cell1(instance.uuid)
        return stored.locked, stored.system_metadata.get('locked_by')

    def test_the_owner_locks_and_unlocks(self):
        instance = self.server()
        self.assertEqual(202, self.lock(instance).status_int)
        self.assertEqual((True, 'owner'), self.locked(instance))
        self.assertTrue(self.shown(instance, version='2.9')['locked'])
        self.assertEqual(202, self.lock(instance, action='unlock').status_int)
        self.assertEqual((False, None), self.locked(instance))
        self.assertFalse(self.shown(instance, version='2.9')['locked'])
        self.assertEqual(['unlock', 'lock'], self.actions(instance)[:2])

    def test_locking_a_locked_server_again_is_no_error(self):
        instance = self.server()
        self.lock(instance)
        self.assertEqual(202, self.lock(instance).status_int)
        self.assertEqual((True, 'owner'), self.locked(instance))

    def test_locked_is_not_shown_before_2_9(self):
        instance = self.server(locked_by='owner')
        self.assertNotIn('locked', self.shown(instance, version='2.8'))

    def test_an_administrators_lock_replaces_the_owners(self):
        instance = self.server(locked_by='owner')
        self.assertEqual(202, self.lock(instance, token=base.ADMIN)
                         .status_int)
        self.assertEqual((True, 'admin'), self.locked(instance))

    def test_the_owner_cannot_lift_an_administrators_lock(self):
        instance = self.server(locked_by='admin')
        self.assertError(self.lock(instance, action='unlock'), 403,
                         'forbidden', 'unlock_override')
        self.assertEqual((True, 'admin'), self.locked(instance))

    def test_an_administrator_lifts_the_owners_lock_by_override(self):
        instance = self.server(locked_by='owner')
        self.assertEqual(202, self.lock(instance, action='unlock',
                                        token=base.ADMIN).status_int)
        self.assertEqual((False, None), self.locked(instance))

    def test_without_the_override_an_administrator_cannot_either(self):
        policy_file = self.useFixture(fixtures.TempDir()).join(
            'policy.yaml')
        with open(policy_file, 'w') as f:
            f.write('"os_compute_api:os-lock-server:unlock:unlock_override"'
                    ': "!"\n')
        self.plane.config.config(policy_file=policy_file,
                                 group='oslo_policy')
        policy.reset()
        instance = self.server(locked_by='owner')
        self.assertError(self.lock(instance, action='unlock',
                                   token=base.ADMIN), 403, 'forbidden')

    def test_another_projects_server_is_404(self):
        instance = self.server()
        self.assertError(self.lock(instance, token='mallory'), 404,
                         'itemNotFound')

    def test_a_server_being_scheduled_cannot_be_locked(self):
        uuid = self.boot().json['server']['id']
        self.assertError(self.action(uuid, {'lock': None}), 409,
                         'conflictingRequest', 'being scheduled')


class TestALockedServer(StateActionsTestCase):
    """Refuses every action but to an administrator (409), as in Nova."""

    REFUSED = ({'reboot': {'type': 'HARD'}}, {'pause': None},
               {'suspend': None}, {'os-stop': None}, {'shelve': None},
               {'rebuild': {'imageRef': NEW_IMAGE}},
               {'resize': {'flavorRef': '1'}}, {'confirmResize': None},
               {'revertResize': None})

    def test_its_owner_is_refused_every_action(self):
        instance = self.server(locked_by='owner')
        for body in self.REFUSED:
            self.assertError(self.action(instance.uuid, body), 409,
                             'conflictingRequest',
                             'Instance %s is locked' % instance.uuid)
        self.assertEqual((states.ACTIVE, None), self.state(instance))

    def test_its_owner_cannot_delete_it(self):
        instance = self.server(locked_by='owner')
        self.assertError(self.request('DELETE', '/v2.1/servers/' +
                                      instance.uuid), 409,
                         'conflictingRequest', 'is locked')
        self.assertEqual((states.ACTIVE, None), self.state(instance))

    def test_an_administrator_acts_on_it(self):
        instance = self.server(locked_by='owner')
        response = self.action(instance.uuid, {'os-stop': None},
                               token=base.ADMIN)
        self.assertEqual(202, response.status_int, response.body)
        self.compute.wait()
        self.assertEqual(states.POWERING_OFF, self.state(instance)[1])

    def test_an_administrator_deletes_it(self):
        instance = self.server(locked_by='owner')
        response = self.request('DELETE', '/v2.1/servers/' + instance.uuid,
                                token=base.ADMIN)
        self.assertEqual(204, response.status_int, response.body)

    def test_once_unlocked_its_owner_acts_on_it_again(self):
        instance = self.server(locked_by='owner')
        self.action(instance.uuid, {'unlock': None})
        response = self.action(instance.uuid, {'pause': None})
        self.assertEqual(202, response.status_int, response.body)


class TestResetState(StateActionsTestCase):

    def reset(self, instance, state, token=base.ADMIN):
        return self.action(instance.uuid, {'os-resetState': {'state': state}},
                           token=token)

    def test_an_administrator_sets_error_and_ends_the_task(self):
        instance = self.server(task_state=states.REBOOT_STARTED)
        self.assertEqual(202, self.reset(instance, 'error').status_int)
        self.assertEqual((states.ERROR, None), self.state(instance))
        self.assertEqual('resetState', self.actions(instance)[0])

    def test_an_administrator_sets_active(self):
        instance = self.server(vm_state=states.ERROR,
                               task_state=states.PAUSING)
        self.assertEqual(202, self.reset(instance, 'active').status_int)
        self.assertEqual((states.ACTIVE, None), self.state(instance))

    def test_only_active_and_error(self):
        instance = self.server()
        for state in ('stopped', 'ACTIVE', None):
            self.assertError(self.reset(instance, state), 400, 'badRequest')

    def test_the_owner_may_not(self):
        instance = self.server(task_state=states.PAUSING)
        self.assertError(self.reset(instance, 'error', token=base.DEMO),
                         403, 'forbidden')
        self.assertEqual((states.ACTIVE, states.PAUSING),
                         self.state(instance))

    def test_a_locked_server_is_reset_too(self):
        instance = self.server(vm_state=states.ERROR, locked_by='owner')
        self.assertEqual(202, self.reset(instance, 'active').status_int)
        self.assertEqual((states.ACTIVE, None), self.state(instance))

    def test_a_server_being_scheduled_is_409(self):
        uuid = self.boot().json['server']['id']
        response = self.action(uuid, {'os-resetState': {'state': 'error'}},
                               token=base.ADMIN)
        self.assertError(response, 409, 'conflictingRequest',
                         'being scheduled')
        self.assertEqual(states.BUILDING, objects.BuildRequest
                         .get_by_instance_uuid(self.admin_context, uuid)
                         .instance.vm_state)


class TestTheListOfActions(StateActionsTestCase):

    def test_an_unknown_action_names_every_action_served(self):
        instance = self.server()
        response = self.action(instance.uuid, {'os-shelve': None})
        self.assertError(response, 400, 'badRequest')
        message = response.json['badRequest']['message']
        for action in ('reboot', 'pause', 'unpause', 'suspend', 'resume',
                       'lock', 'unlock', 'os-resetState'):
            self.assertIn(action, message)
