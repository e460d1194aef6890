"""InstanceGroup and InstanceGroupList: server groups in the API database."""

from oslo_utils import uuidutils

from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import instance_group as group_obj
from tests.unit.objects import test_objects


class InstanceGroupTestCase(test_objects.DatabaseTestCase):

    def make_group(self, project_id='demo', policy=group_obj.AFFINITY,
                   **kwargs):
        group = objects.InstanceGroup(
            self.admin_context, name=kwargs.pop('name', 'g'),
            project_id=project_id, user_id=project_id, policy=policy,
            **kwargs)
        group.create()
        return group


class TestInstanceGroup(InstanceGroupTestCase):

    def test_create_generates_a_uuid_and_an_id(self):
        group = self.make_group()
        self.assertTrue(uuidutils.is_uuid_like(group.uuid))
        self.assertIsInstance(group.id, int)
        self.assertEqual(set(), group.obj_what_changed())

    def test_get_by_uuid_returns_what_create_stored(self):
        created = self.make_group(
            name='spread', policy=group_obj.ANTI_AFFINITY,
            rules={'max_server_per_host': '2'}, members=['m1', 'm2'])
        found = objects.InstanceGroup.get_by_uuid(self.admin_context,
                                                  created.uuid)
        self.assertEqual(
            ('spread', 'demo', 'demo', 'anti-affinity',
             {'max_server_per_host': '2'}, ['m1', 'm2']),
            (found.name, found.project_id, found.user_id, found.policy,
             found.rules, found.members))
        self.assertEqual(2, found.max_server_per_host)

    def test_hosts_are_not_stored(self):
        created = self.make_group(hosts=['compute1'])
        found = objects.InstanceGroup.get_by_uuid(self.admin_context,
                                                  created.uuid)
        self.assertEqual([], found.hosts)

    def test_a_group_without_rules_reads_back_empty_rules(self):
        created = self.make_group()
        found = objects.InstanceGroup.get_by_uuid(self.admin_context,
                                                  created.uuid)
        self.assertEqual({}, found.rules)

    def test_unknown_uuid_is_instance_group_not_found(self):
        self.assertRaises(exception.InstanceGroupNotFound,
                          objects.InstanceGroup.get_by_uuid,
                          self.admin_context, uuidutils.generate_uuid())

    def test_malformed_uuid_is_instance_group_not_found(self):
        self.assertRaises(exception.InstanceGroupNotFound,
                          objects.InstanceGroup.get_by_uuid,
                          self.admin_context, 'not-a-uuid')

    def test_create_refuses_an_unknown_policy(self):
        group = objects.InstanceGroup(self.admin_context, name='g',
                                      policy='together')
        self.assertRaises(exception.ObjectActionError, group.create)

    def test_create_twice_is_refused(self):
        group = self.make_group()
        self.assertRaises(exception.ObjectActionError, group.create)

    def test_destroy_removes_the_group_and_its_memberships(self):
        group = self.make_group(members=['m1'])
        group.destroy()
        self.assertRaises(exception.InstanceGroupNotFound,
                          objects.InstanceGroup.get_by_uuid,
                          self.admin_context, group.uuid)
        self.assertIsNone(objects.InstanceGroup.get_by_instance_uuid(
            self.admin_context, 'm1'))

    def test_destroy_twice_is_instance_group_not_found(self):
        group = self.make_group()
        group.destroy()
        self.assertRaises(exception.InstanceGroupNotFound, group.destroy)


class TestMembers(InstanceGroupTestCase):

    def test_add_members_appends_in_order_and_skips_present_ones(self):
        group = self.make_group(members=['m1'])
        added = objects.InstanceGroup.add_members(
            self.admin_context, group.uuid, ['m2', 'm1', 'm3', 'm2'])
        self.assertEqual(['m2', 'm3'], added)
        found = objects.InstanceGroup.get_by_uuid(self.admin_context,
                                                  group.uuid)
        self.assertEqual(['m1', 'm2', 'm3'], found.members)

    def test_add_members_to_a_missing_group_is_not_found(self):
        self.assertRaises(exception.InstanceGroupNotFound,
                          objects.InstanceGroup.add_members,
                          self.admin_context, uuidutils.generate_uuid(),
                          ['m1'])

    def test_remove_members_leaves_the_others(self):
        group = self.make_group(members=['m1', 'm2', 'm3'])
        objects.InstanceGroup.remove_members(self.admin_context, group.uuid,
                                             ['m1', 'm3', 'not-a-member'])
        found = objects.InstanceGroup.get_by_uuid(self.admin_context,
                                                  group.uuid)
        self.assertEqual(['m2'], found.members)

    def test_remove_members_of_a_missing_group_is_quiet(self):
        objects.InstanceGroup.remove_members(
            self.admin_context, uuidutils.generate_uuid(), ['m1'])

    def test_remove_members_touches_only_the_named_group(self):
        first = self.make_group(members=['m1'])
        second = self.make_group(members=['m2'])
        objects.InstanceGroup.remove_members(self.admin_context,
                                             first.uuid, ['m1', 'm2'])
        self.assertEqual(['m2'], objects.InstanceGroup.get_by_uuid(
            self.admin_context, second.uuid).members)

    def test_get_by_instance_uuid_finds_the_group_of_a_member(self):
        self.make_group(members=['m0'])
        group = self.make_group(name='mine', members=['m1', 'm2'])
        found = objects.InstanceGroup.get_by_instance_uuid(
            self.admin_context, 'm2')
        self.assertEqual((group.uuid, 'mine', ['m1', 'm2']),
                         (found.uuid, found.name, found.members))

    def test_get_by_instance_uuid_of_a_non_member_is_none(self):
        self.make_group(members=['m1'])
        self.assertIsNone(objects.InstanceGroup.get_by_instance_uuid(
            self.admin_context, 'm9'))


class TestInstanceGroupList(InstanceGroupTestCase):

    def setUp(self):
        super().setUp()
        self.groups = [self.make_group(project_id=project, name=name,
                                       members=[name + '-vm'])
                       for project, name in (('demo', 'a'), ('other', 'b'),
                                             ('demo', 'c'), ('demo', 'd'))]

    def _names(self, groups):
        return [g.name for g in groups]

    def test_every_project_oldest_first(self):
        groups = objects.InstanceGroupList.get_all(self.admin_context)
        self.assertEqual(['a', 'b', 'c', 'd'], self._names(groups))

    def test_one_project(self):
        groups = objects.InstanceGroupList.get_all(self.admin_context,
                                                   project_id='demo')
        self.assertEqual(['a', 'c', 'd'], self._names(groups))

    def test_members_are_loaded(self):
        groups = objects.InstanceGroupList.get_all(self.admin_context,
                                                   project_id='other')
        self.assertEqual([['b-vm']], [g.members for g in groups])

    def test_limit_and_offset_page_through(self):
        pages = [self._names(objects.InstanceGroupList.get_all(
            self.admin_context, project_id='demo', limit=2, offset=offset))
            for offset in (0, 2, 4)]
        self.assertEqual([['a', 'c'], ['d'], []], pages)

    def test_marker_starts_after_that_group(self):
        groups = objects.InstanceGroupList.get_all(
            self.admin_context, project_id='demo',
            marker=self.groups[0].uuid)
        self.assertEqual(['c', 'd'], self._names(groups))

    def test_a_marker_of_another_project_is_marker_not_found(self):
        self.assertRaises(exception.MarkerNotFound,
                          objects.InstanceGroupList.get_all,
                          self.admin_context, project_id='demo',
                          marker=self.groups[1].uuid)

    def test_offset_without_limit(self):
        groups = objects.InstanceGroupList.get_all(self.admin_context,
                                                   offset=3)
        self.assertEqual(['d'], self._names(groups))

    def test_a_group_travels_in_a_request_spec(self):
        spec = objects.RequestSpec(
            instance_uuid=uuidutils.generate_uuid(), project_id='demo',
            flavor=test_objects.make_flavor(),
            instance_group=objects.InstanceGroup(
                uuid=self.groups[0].uuid, policy='affinity', rules={},
                members=['a-vm'], hosts=[]))
        received = test_objects.over_the_wire(spec)
        self.assertEqual((self.groups[0].uuid, ['a-vm']),
                         (received.instance_group.uuid,
                          received.instance_group.members))
