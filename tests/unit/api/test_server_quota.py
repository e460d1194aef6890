"""Server create within the project's quota: instances, cores and RAM
counted over build requests and every cell, metadata items, and the
server group member limit of the group's project."""

from nova_lite import objects
from tests.unit.api import base
from tests.unit.api import test_server_group_members
from tests.unit.api import test_servers


class ServerQuotaTestCase(test_servers.ServersTestCase):

    def set_quota(self, **limits):
        response = self.request('PUT', '/v2.1/os-quota-sets/' + base.DEMO,
                                {'quota_set': dict(limits, force=True)},
                                token=base.ADMIN)
        self.assertEqual(200, response.status_int, response.body)

    def create(self, **overrides):
        return self.request('POST', '/v2.1/servers',
                            test_servers.server_body(**overrides))

    def build_requests(self):
        return objects.BuildRequestList.get_all(self.admin_context)


class TestInstances(ServerQuotaTestCase):

    def test_a_boot_past_the_limit_is_403_and_creates_nothing(self):
        self.set_quota(instances=1)
        self.boot()
        response = self.create()
        self.assertError(response, 403, 'forbidden',
                         'Quota exceeded for instances: requested 1, but '
                         'already used 1 of 1 instances.')
        self.assertEqual(1, len(self.build_requests()))
        self.assertEqual(1, len(self.conductor.wait_for_builds()))

    def test_a_server_in_cell0_still_counts(self):
        self.set_quota(instances=1)
        self.instance_in_cell(self.cell0, vm_state='error')
        self.assertError(self.create(), 403, 'forbidden',
                         'Quota exceeded for instances')

    def test_cores_are_limited(self):
        self.set_quota(cores=1)
        self.boot()
        self.assertError(self.create(), 403, 'forbidden',
                         'Quota exceeded for cores: requested 1, but '
                         'already used 1 of 1 cores.')

    def test_ram_is_limited(self):
        self.set_quota(ram=600)
        self.boot()
        self.assertError(self.create(), 403, 'forbidden',
                         'Quota exceeded for ram: requested 512, but '
                         'already used 512 of 600 MB of RAM.')

    def test_a_multi_create_is_cut_to_what_fits(self):
        self.set_quota(instances=3)
        self.boot()
        self.boot(min_count=1, max_count=5)
        self.assertEqual(3, len(self.build_requests()))

    def test_a_multi_create_whose_min_count_does_not_fit_is_403(self):
        self.set_quota(instances=3)
        self.boot()
        response = self.create(min_count=3, max_count=5)
        self.assertError(response, 403, 'forbidden',
                         'Quota exceeded for instances: requested 3, but '
                         'already used 1 of 3 instances.')
        self.assertEqual(1, len(self.build_requests()))

    def test_deleting_a_server_makes_room(self):
        self.set_quota(instances=1)
        server_id = self.boot().json['server']['id']
        self.request('DELETE', '/v2.1/servers/' + server_id)
        self.boot()

    def test_other_projects_are_not_limited(self):
        self.set_quota(instances=0)
        self.boot(token='other')

    def test_more_metadata_items_than_allowed_is_403(self):
        self.plane.config.config(metadata_items=1, group='quota')
        response = self.create(metadata={'a': '1', 'b': '2'})
        self.assertError(response, 403, 'forbidden',
                         'Quota exceeded for metadata_items')
        self.assertEqual([], list(self.build_requests()))


class TestGroupMembers(test_server_group_members.GroupMembersTestCase):

    def test_the_projects_own_member_limit_applies(self):
        self.request('PUT', '/v2.1/os-quota-sets/' + base.DEMO,
                     {'quota_set': {'server_group_members': 1}},
                     token=base.ADMIN)
        group_id = self.make_group()
        self.assertEqual(202, self.boot_into(group_id).status_int)
        response = self.boot_into(group_id)
        self.assertError(response, 403, 'forbidden',
                         'too many servers in group')
        self.assertEqual(1, len(self.members(group_id)))
