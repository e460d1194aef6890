"""nova_lite.quota: effective limits, usage counted from the real (SQLite)
API and cell databases, and the checks built on them."""

import fixtures
from oslo_utils import uuidutils
import testtools

from nova_lite.compute import states
from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite import objects
from nova_lite import quota
from tests.unit import fixtures as nova_fixtures
from tests.unit.objects import test_objects

PROJECT = 'demo'
UNREACHABLE_DB = nova_fixtures.UNREACHABLE_DB


class QuotaTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.logs = self.useFixture(fixtures.FakeLogger())
        self.config = self.useFixture(nova_fixtures.Config())
        self.databases = self.useFixture(nova_fixtures.Databases())
        self.context = nova_context.RequestContext(
            user_id=PROJECT, project_id=PROJECT)
        self.admin = nova_context.get_admin_context()

    def flavor(self, vcpus=2, memory_mb=1024):
        return test_objects.make_flavor(vcpus=vcpus, memory_mb=memory_mb)

    def server_in_cell(self, cell, project_id=PROJECT, vcpus=2,
                       memory_mb=1024, uuid=None):
        with nova_context.target_cell(self.admin, cell) as cctxt:
            instance = objects.Instance(
                cctxt, uuid=uuid or uuidutils.generate_uuid(),
                project_id=project_id, user_id=project_id,
                display_name='vm', vm_state=states.ACTIVE, task_state=None,
                vcpus=vcpus, memory_mb=memory_mb,
                flavor=self.flavor(vcpus, memory_mb))
            instance.create()
        return instance

    def server_being_built(self, project_id=PROJECT, vcpus=2,
                           memory_mb=1024, uuid=None):
        instance = objects.Instance(
            uuid=uuid or uuidutils.generate_uuid(), project_id=project_id,
            user_id=project_id, display_name='vm',
            vm_state=states.BUILDING, task_state=states.SCHEDULING,
            vcpus=vcpus, memory_mb=memory_mb,
            flavor=self.flavor(vcpus, memory_mb), metadata={},
            system_metadata={}, tags=[])
        objects.BuildRequest(self.admin, instance_uuid=instance.uuid,
                             project_id=project_id,
                             instance=instance).create()
        return instance

    def set_project(self, **limits):
        quota.set_project_limits(self.admin, PROJECT, limits, force=True)


class TestLimits(QuotaTestCase):

    def test_without_rows_the_options_apply(self):
        self.config.config(instances=7, cores=9, group='quota')
        limits = quota.get_limits(self.context, PROJECT)
        self.assertEqual((7, 9, 51200), (limits['instances'],
                                         limits['cores'], limits['ram']))

    def test_the_default_class_wins_over_the_options(self):
        quota.set_class_limits(self.admin, 'default', {'instances': 3})
        self.assertEqual(3, quota.get_limits(self.context,
                                             PROJECT)['instances'])
        self.assertEqual(3, quota.default_limits(self.context)['instances'])

    def test_a_project_limit_wins_over_the_default_class(self):
        quota.set_class_limits(self.admin, 'default', {'instances': 3})
        self.set_project(instances=5)
        self.assertEqual(5, quota.get_limits(self.context,
                                             PROJECT)['instances'])
        self.assertEqual(3, quota.get_limits(self.context,
                                             'other')['instances'])

    def test_resetting_a_project_brings_back_the_defaults(self):
        self.set_project(instances=5, cores=1)
        quota.reset_project_limits(self.admin, PROJECT)
        self.assertEqual(quota.default_limits(self.context),
                         quota.get_limits(self.context, PROJECT))

    def test_setting_one_limit_keeps_the_others(self):
        self.set_project(instances=5)
        self.set_project(cores=6)
        limits = quota.get_limits(self.context, PROJECT)
        self.assertEqual((5, 6), (limits['instances'], limits['cores']))

    def test_only_the_default_class_exists(self):
        self.assertRaises(exception.QuotaClassNotFound,
                          quota.get_class_limits, self.admin, 'gold')
        self.assertRaises(exception.QuotaClassNotFound,
                          quota.set_class_limits, self.admin, 'gold',
                          {'instances': 1})

    def test_member_limit_is_that_of_the_groups_project(self):
        quota.set_project_limits(self.admin, 'other',
                                 {'server_group_members': 2})
        group = objects.InstanceGroup(project_id='other')
        self.assertEqual(2, quota.server_group_member_limit(self.context,
                                                            group))


class TestServerUsage(QuotaTestCase):

    def test_servers_in_a_cell_count(self):
        self.server_in_cell(self.databases.cell1, vcpus=2, memory_mb=512)
        self.server_in_cell(self.databases.cell1, vcpus=4, memory_mb=2048)
        self.assertEqual({'instances': 2, 'cores': 6, 'ram': 2560},
                         quota.count_servers(self.context, PROJECT))

    def test_a_server_in_cell0_counts(self):
        self.server_in_cell(self.databases.cell0)
        self.assertEqual({'instances': 1, 'cores': 2, 'ram': 1024},
                         quota.count_servers(self.context, PROJECT))

    def test_a_server_being_built_counts(self):
        self.server_being_built(vcpus=1, memory_mb=256)
        self.assertEqual({'instances': 1, 'cores': 1, 'ram': 256},
                         quota.count_servers(self.context, PROJECT))

    def test_a_server_both_built_and_in_a_cell_counts_once(self):
        # The conductor created it in the cell and has not yet deleted
        # its BuildRequest.
        instance = self.server_being_built()
        self.server_in_cell(self.databases.cell1, uuid=instance.uuid)
        self.assertEqual({'instances': 1, 'cores': 2, 'ram': 1024},
                         quota.count_servers(self.context, PROJECT))

    def test_deleted_servers_do_not_count(self):
        self.server_in_cell(self.databases.cell1).destroy()
        self.assertEqual({'instances': 0, 'cores': 0, 'ram': 0},
                         quota.count_servers(self.context, PROJECT))

    def test_other_projects_do_not_count(self):
        self.server_in_cell(self.databases.cell1, project_id='other')
        self.server_being_built(project_id='other')
        self.assertEqual({'instances': 0, 'cores': 0, 'ram': 0},
                         quota.count_servers(self.context, PROJECT))

    def test_an_unreachable_cell_is_skipped_with_a_warning(self):
        objects.CellMapping(self.admin, name='cell9',
                            transport_url='fake:/',
                            database_connection=UNREACHABLE_DB).create()
        self.server_in_cell(self.databases.cell1)
        self.assertEqual(1, quota.count_servers(self.context,
                                                PROJECT)['instances'])
        self.assertIn('Skipping cell cell9 in the quota usage of project '
                      'demo', self.logs.output)

    def test_server_groups_and_key_pairs(self):
        objects.InstanceGroup(self.admin, name='g', policy='affinity',
                              project_id=PROJECT, user_id=PROJECT).create()
        objects.KeyPair(self.admin, name='k', user_id='alice',
                        fingerprint='aa', public_key='ssh-ed25519 A'
                        ).create()
        usage = quota.count_usage(self.context, PROJECT, user_id='alice')
        self.assertEqual((1, 1, 0), (usage['server_groups'],
                                     usage['key_pairs'],
                                     usage['server_group_members']))


class TestCheckDeltas(QuotaTestCase):

    def test_within_the_limit_passes(self):
        self.set_project(cores=20)
        self.server_in_cell(self.databases.cell1, vcpus=16)
        quota.check_deltas(self.context, PROJECT, {'cores': 4})

    def test_over_the_limit_says_what_is_used_and_requested(self):
        self.set_project(cores=20)
        self.server_in_cell(self.databases.cell1, vcpus=18)
        error = self.assertRaises(exception.OverQuota, quota.check_deltas,
                                  self.context, PROJECT, {'cores': 4})
        self.assertEqual('Quota exceeded for cores: requested 4, but '
                         'already used 18 of 20 cores.', str(error))
        self.assertEqual(403, error.code)
        self.assertEqual(['cores'], error.kwargs['overs'])

    def test_every_resource_over_is_named(self):
        self.set_project(instances=1, ram=1000)
        self.server_in_cell(self.databases.cell1, memory_mb=512)
        error = self.assertRaises(
            exception.OverQuota, quota.check_deltas, self.context, PROJECT,
            {'instances': 1, 'cores': 2, 'ram': 512})
        self.assertEqual(
            'Quota exceeded for instances: requested 1, but already used 1 '
            'of 1 instances; ram: requested 512, but already used 512 of '
            '1000 MB of RAM.', str(error))

    def test_minus_one_is_unlimited(self):
        self.set_project(instances=-1)
        for _ in range(3):
            self.server_in_cell(self.databases.cell1)
        quota.check_deltas(self.context, PROJECT, {'instances': 100})

    def test_key_pairs_are_counted_for_the_user(self):
        self.set_project(key_pairs=1)
        objects.KeyPair(self.admin, name='k', user_id='alice',
                        fingerprint='aa', public_key='ssh-ed25519 A'
                        ).create()
        quota.check_deltas(self.context, PROJECT, {'key_pairs': 1},
                           user_id='bob')
        self.assertRaises(exception.OverQuota, quota.check_deltas,
                          self.context, PROJECT, {'key_pairs': 1},
                          user_id='alice')

    def test_key_pairs_without_a_user_is_a_programming_error(self):
        self.assertRaises(ValueError, quota.check_deltas, self.context,
                          PROJECT, {'key_pairs': 1})

    def test_server_group_members_are_counted_per_group(self):
        self.set_project(server_group_members=1)
        group = objects.InstanceGroup(
            self.admin, name='g', policy='affinity', project_id=PROJECT,
            user_id=PROJECT, members=[uuidutils.generate_uuid()])
        group.create()
        error = self.assertRaises(
            exception.OverQuota, quota.check_deltas, self.context, PROJECT,
            {'server_group_members': 1}, group_uuid=group.uuid)
        self.assertIn('already used 1 of 1 members', str(error))


class TestRecheck(QuotaTestCase):

    def test_usage_at_the_limit_passes(self):
        self.set_project(instances=1)
        self.server_being_built()
        quota.recheck(self.context, PROJECT)

    def test_usage_over_the_limit_is_over_quota(self):
        # Two boots raced past the API's check; the build requests of
        # both count.
        self.set_project(instances=1)
        self.server_being_built()
        self.server_being_built()
        error = self.assertRaises(exception.OverQuota, quota.recheck,
                                  self.context, PROJECT)
        self.assertEqual('Quota exceeded for instances: 2 in use, over '
                         'the limit of 1 instances.', str(error))

    def test_a_server_in_cell0_counts(self):
        self.set_project(instances=1)
        self.server_in_cell(self.databases.cell0)
        self.server_being_built()
        self.assertRaises(exception.OverQuota, quota.recheck, self.context,
                          PROJECT)


class TestCheckInstances(QuotaTestCase):

    def test_all_requested_when_they_fit(self):
        self.assertEqual(3, quota.check_instances(
            self.context, self.flavor(), 1, 3))

    def test_fewer_than_max_when_the_quota_allows_at_least_min(self):
        self.set_project(instances=4)
        self.server_in_cell(self.databases.cell1)
        self.assertEqual(3, quota.check_instances(
            self.context, self.flavor(), 2, 5))

    def test_cores_and_ram_limit_the_count_too(self):
        self.set_project(cores=5, ram=-1)
        self.assertEqual(2, quota.check_instances(
            self.context, self.flavor(vcpus=2), 1, 10))

    def test_fewer_than_min_is_over_quota_for_min(self):
        self.set_project(instances=4)
        self.server_in_cell(self.databases.cell1)
        self.server_being_built()
        error = self.assertRaises(
            exception.OverQuota, quota.check_instances, self.context,
            self.flavor(), 3, 5)
        self.assertEqual('Quota exceeded for instances: requested 3, but '
                         'already used 2 of 4 instances.', str(error))

    def test_a_flavor_with_no_vcpus_is_limited_by_instances_only(self):
        self.set_project(instances=2, cores=0)
        self.assertEqual(2, quota.check_instances(
            self.context, self.flavor(vcpus=0), 1, 5))


class TestSetProjectLimits(QuotaTestCase):

    def test_a_limit_below_usage_is_refused(self):
        self.server_in_cell(self.databases.cell1)
        self.server_in_cell(self.databases.cell0)
        error = self.assertRaises(
            exception.QuotaLimitBelowUsage, quota.set_project_limits,
            self.admin, PROJECT, {'instances': 1, 'cores': 100})
        self.assertIn('instances 1 < 2 in use', str(error))
        self.assertEqual(400, error.code)
        self.assertEqual(10, quota.get_limits(self.context,
                                              PROJECT)['instances'])

    def test_force_sets_it_anyway(self):
        self.server_in_cell(self.databases.cell1)
        self.server_in_cell(self.databases.cell1)
        limits = quota.set_project_limits(self.admin, PROJECT,
                                          {'instances': 1}, force=True)
        self.assertEqual(1, limits['instances'])

    def test_minus_one_is_never_below_usage(self):
        self.server_in_cell(self.databases.cell1)
        quota.set_project_limits(self.admin, PROJECT, {'instances': -1})
        self.assertEqual(-1, quota.get_limits(self.context,
                                              PROJECT)['instances'])


class TestMetadataItems(QuotaTestCase):

    def test_up_to_the_limit_passes(self):
        self.config.config(metadata_items=2, group='quota')
        quota.check_metadata_items({'a': '1', 'b': '2'})

    def test_more_is_over_quota(self):
        self.config.config(metadata_items=2, group='quota')
        error = self.assertRaises(exception.OverQuota,
                                  quota.check_metadata_items,
                                  {'a': '1', 'b': '2', 'c': '3'})
        self.assertIn('metadata_items: requested 3', str(error))
