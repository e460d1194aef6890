"""/limits: the absolute limits of the caller's project and its usage, in
the Compute API's names."""

from tests.unit.api import base
from tests.unit.api import test_servers

PATH = '/v2.1/limits'


class LimitsTestCase(test_servers.ServersTestCase):

    def absolute(self, query='', token=base.DEMO, version=None):
        response = self.request('GET', PATH + query, token=token,
                                version=version)
        self.assertEqual(200, response.status_int, response.body)
        self.assertEqual([], response.json['limits']['rate'])
        return response.json['limits']['absolute']


class TestLimits(LimitsTestCase):

    def test_the_defaults_and_no_usage_at_257(self):
        self.assertEqual({
            'maxTotalInstances': 10, 'maxTotalCores': 20,
            'maxTotalRAMSize': 51200, 'maxServerGroups': 10,
            'maxServerGroupMembers': 10, 'maxTotalKeypairs': 100,
            'maxServerMeta': 128, 'totalInstancesUsed': 0,
            'totalCoresUsed': 0, 'totalRAMUsed': 0,
            'totalServerGroupsUsed': 0}, self.absolute(version='2.57'))

    def test_image_meta_until_238_and_personality_until_256(self):
        self.assertEqual(
            (128, 5, 10240),
            tuple(self.absolute(version='2.38')[key] for key in (
                'maxImageMeta', 'maxPersonality', 'maxPersonalitySize')))
        at_239 = self.absolute(version='2.39')
        self.assertNotIn('maxImageMeta', at_239)
        self.assertIn('maxPersonality', at_239)
        self.assertNotIn('maxPersonality', self.absolute(version='2.57'))

    def test_usage_counts_servers_being_built_and_in_cells(self):
        self.boot()
        self.instance_in_cell(self.cell0)
        self.request('POST', '/v2.1/os-server-groups', {'server_group': {
            'name': 'g', 'policies': ['affinity']}})
        absolute = self.absolute()
        self.assertEqual((2, 2, 1024, 1), (
            absolute['totalInstancesUsed'], absolute['totalCoresUsed'],
            absolute['totalRAMUsed'], absolute['totalServerGroupsUsed']))

    def test_a_projects_own_limits(self):
        self.request('PUT', '/v2.1/os-quota-sets/' + base.DEMO,
                     {'quota_set': {'instances': 3, 'ram': -1}},
                     token=base.ADMIN)
        absolute = self.absolute()
        self.assertEqual((3, -1), (absolute['maxTotalInstances'],
                                   absolute['maxTotalRAMSize']))

    def test_an_admin_may_ask_about_another_project(self):
        self.instance_in_cell(self.cell1)
        self.assertEqual(1, self.absolute('?tenant_id=' + base.DEMO,
                                          token=base.ADMIN)[
            'totalInstancesUsed'])
        self.assertEqual(0, self.absolute(token=base.ADMIN)[
            'totalInstancesUsed'])

    def test_another_project_is_forbidden_to_others(self):
        response = self.request('GET', PATH + '?tenant_id=other')
        self.assertError(response, 403, 'forbidden')

    def test_reserved_is_accepted(self):
        self.assertEqual(10, self.absolute('?reserved=1')[
            'maxTotalInstances'])
