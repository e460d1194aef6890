"""/servers/{server_id}/os-instance-actions: a server's history, per
microversion and role."""

import hashlib
import re
import threading

import oslo_messaging as messaging
from oslo_utils import uuidutils

from nova_lite import context as nova_context
from nova_lite import objects
from tests.unit.api import base
from tests.unit.api import test_servers

TIME = re.compile(r'^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}$')


class InstanceActionsTestCase(test_servers.ServersTestCase):

    def actions_path(self, uuid, request_id=None):
        path = '/v2.1/servers/%s/os-instance-actions' % uuid
        return path + ('/' + request_id if request_id else '')

    def list_actions(self, uuid, version='2.21', token=base.DEMO,
                     query=''):
        response = self.request('GET', self.actions_path(uuid) + query,
                                version=version, token=token)
        self.assertEqual(200, response.status_int, response.body)
        return response.json

    def show_action(self, uuid, request_id, version='2.21',
                    token=base.DEMO):
        response = self.request('GET', self.actions_path(uuid, request_id),
                                version=version, token=token)
        self.assertEqual(200, response.status_int, response.body)
        return response.json['instanceAction']

    def record(self, instance, request_id, action='create', events=(),
               cell=None):
        """Action ``action`` of request ``request_id`` by the owner, with
        ``events``: (name, host, result) triples."""
        context = nova_context.RequestContext(
            user_id=instance.user_id, project_id=instance.project_id,
            request_id=request_id)
        with nova_context.target_cell(context,
                                      cell or self.cell1) as cctxt:
            objects.InstanceAction.action_start(cctxt, instance.uuid,
                                                action)
            for name, host, result in events:
                objects.InstanceActionEvent.event_start(
                    cctxt, instance.uuid, name, host=host)
                objects.InstanceActionEvent.event_finish(
                    cctxt, instance.uuid, name, result,
                    traceback='Traceback: deep' if result == 'Error'
                    else None)

    def delete_server(self, uuid):
        response = self.request('DELETE', '/v2.1/servers/' + uuid)
        self.assertEqual(204, response.status_int, response.body)
        return response.headers['X-OpenStack-Request-Id']


class TestDeleteIsRecorded(InstanceActionsTestCase):

    def test_deleting_a_server_in_a_cell_records_a_delete_action(self):
        instance = self.instance_in_cell(self.cell1, host='host1')
        request_id = self.delete_server(instance.uuid)
        [action] = self.list_actions(instance.uuid)['instanceActions']
        self.assertEqual(
            {'action': 'delete', 'instance_uuid': instance.uuid,
             'request_id': request_id, 'user_id': base.DEMO,
             'project_id': base.DEMO, 'message': None},
            {k: v for k, v in action.items() if k != 'start_time'})
        self.assertRegex(action['start_time'], TIME)

    def test_deleting_a_server_in_cell0_records_it_there(self):
        instance = self.instance_in_cell(self.cell0, vm_state='error')
        request_id = self.delete_server(instance.uuid)
        action = self.show_action(instance.uuid, request_id)
        self.assertEqual('delete', action['action'])
        with nova_context.target_cell(self.admin_context,
                                      self.cell0) as cell0:
            self.assertEqual(['delete'], [
                a.action for a in objects.InstanceActionList.
                get_by_instance_uuid(cell0, instance.uuid)])

    def test_deleting_a_build_request_records_nothing(self):
        uuid = self.boot().json['server']['id']
        self.delete_server(uuid)
        for cell in (self.cell0, self.cell1):
            with nova_context.target_cell(self.admin_context,
                                          cell) as cctxt:
                self.assertEqual([], list(objects.InstanceActionList.
                                          get_by_instance_uuid(cctxt,
                                                               uuid)))

    def test_the_compute_gets_the_request_of_the_recorded_action(self):
        instance = self.instance_in_cell(self.cell1, host='host1')
        compute = self.compute_up('host1', _ComputeRecorder())
        request_id = self.delete_server(instance.uuid)
        self.assertTrue(compute.terminated.wait(10))
        self.assertEqual(request_id, compute.request_id)
        self.assertEqual('delete', self.show_action(
            instance.uuid, request_id)['action'])


class _ComputeRecorder:
    target = messaging.Target(version='1.0')

    def __init__(self):
        self.terminated = threading.Event()
        self.request_id = None

    def terminate_instance(self, context, instance):
        self.request_id = context.request_id
        self.terminated.set()


class TestReadingActions(InstanceActionsTestCase):

    def test_a_deleted_server_needs_221(self):
        instance = self.instance_in_cell(self.cell1, host='host1')
        self.delete_server(instance.uuid)
        response = self.request('GET', self.actions_path(instance.uuid),
                                version='2.20')
        self.assertError(response, 404, 'itemNotFound', instance.uuid)

    def test_newest_first(self):
        instance = self.instance_in_cell(self.cell1, host='host1')
        self.record(instance, 'req-1', 'create')
        self.record(instance, 'req-2', 'stop')
        listed = self.list_actions(instance.uuid, version='2.1')
        self.assertEqual(['req-2', 'req-1'], [
            a['request_id'] for a in listed['instanceActions']])
        self.assertNotIn('links', listed)

    def test_a_build_request_has_no_actions_yet(self):
        uuid = self.boot().json['server']['id']
        self.assertEqual({'instanceActions': []}, self.list_actions(uuid))
        response = self.request('GET', self.actions_path(uuid, 'req-1'))
        self.assertError(response, 404, 'itemNotFound', 'req-1')

    def test_a_server_that_never_existed_is_404(self):
        response = self.request('GET', self.actions_path(
            uuidutils.generate_uuid()))
        self.assertError(response, 404, 'itemNotFound')
        response = self.request('GET', self.actions_path('not-a-uuid'))
        self.assertError(response, 404, 'itemNotFound', 'not-a-uuid')

    def test_another_projects_server_is_404(self):
        instance = self.instance_in_cell(self.cell1, host='host1')
        self.record(instance, 'req-1')
        for path in (self.actions_path(instance.uuid),
                     self.actions_path(instance.uuid, 'req-1')):
            self.assertError(self.request('GET', path, token='mallory'),
                             404, 'itemNotFound')

    def test_an_admin_reads_any_projects_actions(self):
        instance = self.instance_in_cell(self.cell1, host='host1')
        self.record(instance, 'req-1')
        self.assertEqual(1, len(self.list_actions(
            instance.uuid, token=base.ADMIN)['instanceActions']))

    def test_an_unknown_request_id_is_404_with_a_message(self):
        instance = self.instance_in_cell(self.cell1, host='host1')
        response = self.request('GET', self.actions_path(instance.uuid,
                                                         'req-nope'))
        self.assertError(
            response, 404, 'itemNotFound',
            'Action for request_id req-nope on instance %s not found.' %
            instance.uuid)

    def test_show_has_the_action_keys(self):
        instance = self.instance_in_cell(self.cell1, host='host1')
        self.record(instance, 'req-1', 'create')
        action = self.show_action(instance.uuid, 'req-1', version='2.1')
        self.assertEqual(
            {'action': 'create', 'instance_uuid': instance.uuid,
             'request_id': 'req-1', 'user_id': base.DEMO,
             'project_id': base.DEMO, 'message': None},
            {k: v for k, v in action.items() if k != 'start_time'})


class TestEvents(InstanceActionsTestCase):

    def setUp(self):
        super().setUp()
        self.instance = self.instance_in_cell(self.cell1, host='host1')
        self.record(self.instance, 'req-1', 'create', events=[
            ('compute_build_and_run_instance', 'host2', 'Error'),
            ('compute_build_and_run_instance', 'host1', 'Success')])

    def events(self, version, token=base.DEMO):
        return self.show_action(self.instance.uuid, 'req-1', version,
                                token)['events']

    def test_before_251_only_admins_see_events(self):
        owner = self.show_action(self.instance.uuid, 'req-1', '2.50')
        self.assertNotIn('events', owner)
        self.assertEqual('Error', owner['message'])
        events = self.events('2.50', base.ADMIN)
        self.assertEqual(
            [{'event': 'compute_build_and_run_instance',
              'result': 'Success', 'traceback': None},
             {'event': 'compute_build_and_run_instance', 'result': 'Error',
              'traceback': 'Traceback: deep'}],
            [{k: e[k] for k in ('event', 'result', 'traceback')}
             for e in events])
        self.assertRegex(events[0]['start_time'], TIME)
        self.assertRegex(events[0]['finish_time'], TIME)
        self.assertNotIn('host', events[0])

    def test_from_251_owners_see_events_without_tracebacks(self):
        events = self.events('2.51')
        self.assertEqual(['Success', 'Error'], [e['result'] for e in events])
        self.assertEqual({'event', 'start_time', 'finish_time', 'result'},
                         set(events[1]))

    def test_from_262_events_show_host_id_and_admins_the_host(self):
        def host_id(host):
            return hashlib.sha224(('demo' + host).encode()).hexdigest()
        owner = self.events('2.62')
        self.assertEqual([host_id('host1'), host_id('host2')],
                         [e['hostId'] for e in owner])
        self.assertNotIn('host', owner[0])
        admin = self.events('2.62', base.ADMIN)
        self.assertEqual(['host1', 'host2'], [e['host'] for e in admin])
        self.assertEqual(host_id('host1'), admin[0]['hostId'])
        self.assertNotIn('hostId', self.events('2.61', base.ADMIN)[0])


class TestPaging(InstanceActionsTestCase):

    def setUp(self):
        super().setUp()
        self.instance = self.instance_in_cell(self.cell1, host='host1')
        for request_id in ('req-1', 'req-2', 'req-3'):
            self.record(self.instance, request_id)

    def request_ids(self, body):
        return [a['request_id'] for a in body['instanceActions']]

    def test_from_258_actions_show_updated_at(self):
        [action, *_] = self.list_actions(self.instance.uuid,
                                         version='2.58')['instanceActions']
        self.assertRegex(action['updated_at'], TIME)
        self.assertIn('updated_at', self.show_action(
            self.instance.uuid, 'req-1', version='2.58'))
        [action, *_] = self.list_actions(self.instance.uuid,
                                         version='2.57')['instanceActions']
        self.assertNotIn('updated_at', action)

    def test_limit_and_marker_page_with_a_next_link(self):
        page = self.list_actions(self.instance.uuid, version='2.58',
                                 query='?limit=2')
        self.assertEqual(['req-3', 'req-2'], self.request_ids(page))
        [link] = page['links']
        self.assertEqual('next', link['rel'])
        self.assertIn('/v2.1/servers/%s/os-instance-actions?' %
                      self.instance.uuid, link['href'])
        self.assertIn('marker=req-2', link['href'])
        rest = self.list_actions(self.instance.uuid, version='2.58',
                                 query='?limit=2&marker=req-2')
        self.assertEqual(['req-1'], self.request_ids(rest))
        self.assertNotIn('links', rest)

    def test_before_258_paging_parameters_are_ignored(self):
        listed = self.list_actions(self.instance.uuid, version='2.57',
                                   query='?limit=1&marker=nope')
        self.assertEqual(['req-3', 'req-2', 'req-1'],
                         self.request_ids(listed))

    def test_an_unknown_marker_is_400(self):
        response = self.request(
            'GET', self.actions_path(self.instance.uuid) + '?marker=nope',
            version='2.58')
        self.assertError(response, 400, 'badRequest', 'nope')

    def test_changes_since(self):
        action = objects.InstanceAction.get_by_request_id(
            self.cell_context(), self.instance.uuid, 'req-2')
        since = action.updated_at.replace(tzinfo=None).isoformat() + 'Z'
        listed = self.list_actions(self.instance.uuid, version='2.58',
                                   query='?changes-since=' + since)
        self.assertEqual(['req-3', 'req-2'], self.request_ids(listed))

    def test_a_malformed_changes_since_is_400(self):
        response = self.request(
            'GET', self.actions_path(self.instance.uuid) +
            '?changes-since=yesterday', version='2.58')
        self.assertError(response, 400, 'badRequest', 'changes-since')

    def cell_context(self):
        with nova_context.target_cell(self.admin_context,
                                      self.cell1) as cctxt:
            return cctxt
