"""Servers join a server group at boot (``group`` hint) and leave it when
deleted; the scheduler receives the group in the request spec."""

import oslo_messaging as messaging
from oslo_utils import uuidutils

from nova_lite import objects
from tests.unit.api import base
from tests.unit.api import test_servers


class GroupMembersTestCase(test_servers.ServersTestCase):

    def make_group(self, token=base.DEMO, policy='anti-affinity',
                   rules=None):
        response = self.request(
            'POST', '/v2.1/os-server-groups',
            {'server_group': {'name': 'g', 'policy': policy,
                              'rules': rules or {}}},
            token=token, version='2.64')
        self.assertEqual(200, response.status_int, response.body)
        return response.json['server_group']['id']

    def boot_into(self, group_id, token=base.DEMO,
                  hints_key='os:scheduler_hints', **overrides):
        body = test_servers.server_body(**overrides)
        body[hints_key] = {'group': group_id}
        return self.request('POST', '/v2.1/servers', body, token=token)

    def members(self, group_id):
        return objects.InstanceGroup.get_by_uuid(self.admin_context,
                                                 group_id).members


class TestBootIntoAGroup(GroupMembersTestCase):

    def test_the_server_becomes_a_member(self):
        group_id = self.make_group()
        response = self.boot_into(group_id)
        self.assertEqual(202, response.status_int, response.body)
        server_id = response.json['server']['id']
        self.assertEqual([server_id], self.members(group_id))
        shown = self.request('GET', '/v2.1/os-server-groups/' + group_id)
        self.assertEqual([server_id],
                         shown.json['server_group']['members'])

    def test_the_old_hints_key_works_too(self):
        group_id = self.make_group()
        response = self.boot_into(group_id,
                                  hints_key='OS-SCH-HNT:scheduler_hints')
        self.assertEqual([response.json['server']['id']],
                         self.members(group_id))

    def test_the_scheduler_gets_policy_rules_and_members(self):
        group_id = self.make_group(rules={'max_server_per_host': 2})
        first = self.boot_into(group_id).json['server']['id']
        second = self.boot_into(group_id).json['server']['id']
        builds = self.conductor.wait_for_builds(2)
        [spec] = [b['request_specs'][0] for _context, b in builds
                  if b['request_specs'][0].instance_uuid == second]
        group = spec.instance_group
        self.assertEqual((group_id, 'anti-affinity',
                          {'max_server_per_host': '2'}, [first, second],
                          []),
                         (group.uuid, group.policy, group.rules,
                          group.members, group.hosts))

    def test_the_stored_request_spec_keeps_the_group(self):
        group_id = self.make_group()
        server_id = self.boot_into(group_id).json['server']['id']
        spec = objects.RequestSpec.get_by_instance_uuid(self.admin_context,
                                                        server_id)
        self.assertEqual(group_id, spec.instance_group.uuid)
        self.assertEqual({'group': [group_id]}, spec.scheduler_hints)

    def test_a_multi_create_adds_every_instance(self):
        group_id = self.make_group()
        self.boot_into(group_id, min_count=3)
        [(_context, build)] = self.conductor.wait_for_builds()
        uuids = [b.instance_uuid for b in build['build_requests']]
        self.assertEqual(sorted(uuids), sorted(self.members(group_id)))
        self.assertEqual(
            [sorted(uuids)] * 3,
            [sorted(s.instance_group.members)
             for s in build['request_specs']])

    def test_without_the_hint_no_group_is_sent(self):
        self.boot()
        [(_context, build)] = self.conductor.wait_for_builds()
        self.assertIsNone(build['request_specs'][0].instance_group)


class TestBadGroupHints(GroupMembersTestCase):

    def assertNothingCreated(self):
        self.assertEqual([], list(objects.BuildRequestList.get_all(
            self.admin_context)))

    def test_an_unknown_group_is_400(self):
        unknown = uuidutils.generate_uuid()
        response = self.boot_into(unknown)
        self.assertError(response, 400, 'badRequest',
                         'Invalid scheduler hint group=%s: project demo has '
                         'no server group with this id' % unknown)
        self.assertNothingCreated()

    def test_another_projects_group_is_400_like_an_unknown_one(self):
        group_id = self.make_group(token='bob')
        response = self.boot_into(group_id)
        self.assertError(response, 400, 'badRequest',
                         'project demo has no server group with this id')
        self.assertEqual([], self.members(group_id))
        self.assertNothingCreated()

    def test_a_malformed_group_id_is_400(self):
        response = self.boot_into('not-a-uuid')
        self.assertError(response, 400, 'badRequest',
                         'not a server group UUID')

    def test_a_list_of_groups_is_400(self):
        group_id = self.make_group()
        response = self.boot_into([group_id])
        self.assertError(response, 400, 'badRequest',
                         'one server group UUID')
        self.assertEqual([], self.members(group_id))

    def test_a_group_deleted_during_the_create_is_400(self):
        group_id = self.make_group()
        real_add = objects.InstanceGroup.add_members

        def delete_first(context, group_uuid, instance_uuids, **kwargs):
            objects.InstanceGroup.get_by_uuid(context, group_uuid).destroy()
            return real_add(context, group_uuid, instance_uuids, **kwargs)
        self.patch(objects.InstanceGroup, 'add_members', delete_first)
        response = self.boot_into(group_id)
        self.assertError(response, 400, 'badRequest', 'was deleted')
        self.assertNothingCreated()


class TestCreateStaysAtomic(GroupMembersTestCase):

    def test_a_failed_cast_removes_the_new_members(self):
        from nova_lite.conductor import rpcapi
        group_id = self.make_group()
        existing = self.boot_into(group_id).json['server']['id']

        def refuse(*args, **kwargs):
            raise messaging.MessageDeliveryFailure('broker down')
        self.patch(rpcapi.ConductorAPI, 'schedule_and_build_instances',
                   refuse)
        response = self.boot_into(group_id, min_count=2)
        self.assertError(response, 503, 'serviceUnavailable')
        self.assertEqual([existing], self.members(group_id))

    def test_a_failure_after_joining_removes_the_new_members(self):
        group_id = self.make_group()

        def broken(*args):
            raise RuntimeError('API database hiccup')
        self.patch(objects.BuildRequest, 'create_all', broken)
        response = self.boot_into(group_id)
        self.assertEqual(500, response.status_int)
        self.assertEqual([], self.members(group_id))
        self.assertEqual([], list(objects.BuildRequestList.get_all(
            self.admin_context)))


class TestMemberQuota(GroupMembersTestCase):

    def setUp(self):
        super().setUp()
        self.plane.config.config(server_group_members=3, group='quota')

    def test_servers_up_to_the_quota_join(self):
        group_id = self.make_group()
        response = self.boot_into(group_id, min_count=3)
        self.assertEqual(202, response.status_int, response.body)
        self.assertEqual(3, len(self.members(group_id)))

    def test_a_boot_past_the_quota_is_403_and_creates_nothing(self):
        group_id = self.make_group()
        self.boot_into(group_id, min_count=2)
        response = self.boot_into(group_id, min_count=2)
        self.assertError(response, 403, 'forbidden',
                         'too many servers in group')
        self.assertEqual(2, len(self.members(group_id)))
        self.assertEqual(2, len(objects.BuildRequestList.get_all(
            self.admin_context)))

    def test_minus_one_is_no_limit(self):
        self.plane.config.config(server_group_members=-1, group='quota')
        group_id = self.make_group()
        self.boot_into(group_id, min_count=5)
        self.assertEqual(5, len(self.members(group_id)))


class TestLeavingAGroup(GroupMembersTestCase):

    def test_deleting_a_server_removes_it_from_its_group(self):
        group_id = self.make_group()
        gone = self.boot_into(group_id).json['server']['id']
        stays = self.boot_into(group_id).json['server']['id']
        response = self.request('DELETE', '/v2.1/servers/' + gone)
        self.assertEqual(204, response.status_int)
        self.assertEqual([stays], self.members(group_id))

    def test_deleting_a_server_in_a_cell_removes_it(self):
        group_id = self.make_group()
        instance = self.instance_in_cell(self.cell1)
        objects.InstanceGroup.add_members(self.admin_context, group_id,
                                          [instance.uuid])
        self.request('DELETE', '/v2.1/servers/' + instance.uuid)
        self.assertEqual([], self.members(group_id))

    def test_deleting_a_group_leaves_its_servers(self):
        group_id = self.make_group()
        server_id = self.boot_into(group_id).json['server']['id']
        self.request('DELETE', '/v2.1/os-server-groups/' + group_id)
        self.assertEqual(200, self.request(
            'GET', '/v2.1/servers/' + server_id).status_int)
        response = self.request('DELETE', '/v2.1/servers/' + server_id)
        self.assertEqual(204, response.status_int)
