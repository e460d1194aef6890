"""/os-hypervisors and /os-services (admin)."""

import datetime

from oslo_utils import uuidutils

from nova_lite import context as nova_context
from nova_lite import objects
from tests.unit.api import base
from tests.unit import fixtures as nova_fixtures


class HostsTestCase(base.APITestCase):

    def setUp(self):
        super().setUp()
        with nova_context.target_cell(self.admin_context,
                                      self.cell1) as cctxt:
            self.service = objects.Service(cctxt, host='host1',
                                           binary='nova-lite-compute',
                                           topic='compute')
            self.service.create()
            self.node = objects.ComputeNode(
                cctxt, host='host1', hypervisor_hostname='node1',
                hypervisor_type='fake', hypervisor_version=1,
                host_ip='192.0.2.1', vcpus=8, memory_mb=16384, local_gb=100,
                vcpus_used=2, memory_mb_used=1024, local_gb_used=10,
                free_ram_mb=15360, free_disk_gb=90, running_vms=2,
                current_workload=0, disk_available_least=90,
                cpu_allocation_ratio=4.0, ram_allocation_ratio=1.0,
                disk_allocation_ratio=1.0)
            self.node.create()


class TestHypervisors(HostsTestCase):

    def test_non_admin_is_403(self):
        self.assertError(self.request('GET', '/v2.1/os-hypervisors'), 403,
                         'forbidden')

    def test_list_by_uuid_with_state_and_status(self):
        [hypervisor] = self.request('GET', '/v2.1/os-hypervisors',
                                    token=base.ADMIN, version='2.53'
                                    ).json['hypervisors']
        self.assertEqual({'id': self.node.uuid,
                          'hypervisor_hostname': 'node1',
                          'state': 'up', 'status': 'enabled'}, hypervisor)

    def test_detail_has_capacity_and_service(self):
        [hypervisor] = self.request('GET', '/v2.1/os-hypervisors/detail',
                                    token=base.ADMIN).json['hypervisors']
        self.assertEqual(8, hypervisor['vcpus'])
        self.assertEqual(15360, hypervisor['free_ram_mb'])
        self.assertEqual(self.service.uuid, hypervisor['service']['id'])
        self.assertEqual('host1', hypervisor['service']['host'])

    def test_show(self):
        response = self.request('GET', '/v2.1/os-hypervisors/' +
                                self.node.uuid, token=base.ADMIN)
        self.assertEqual('node1',
                         response.json['hypervisor']['hypervisor_hostname'])

    def test_show_bad_id_is_404(self):
        response = self.request('GET', '/v2.1/os-hypervisors/1',
                                token=base.ADMIN)
        self.assertError(response, 404, 'itemNotFound')

    def test_statistics(self):
        stats = self.request('GET', '/v2.1/os-hypervisors/statistics',
                             token=base.ADMIN).json['hypervisor_statistics']
        self.assertEqual(1, stats['count'])
        self.assertEqual(2, stats['running_vms'])


class TestServices(HostsTestCase):

    def test_non_admin_is_403(self):
        self.assertError(self.request('GET', '/v2.1/os-services'), 403,
                         'forbidden')

    def test_list(self):
        [service] = self.request('GET', '/v2.1/os-services',
                                 token=base.ADMIN).json['services']
        self.assertEqual(self.service.uuid, service['id'])
        self.assertEqual('nova-lite-compute', service['binary'])
        self.assertEqual('up', service['state'])
        self.assertEqual('enabled', service['status'])
        self.assertEqual('nova', service['zone'])

    def test_a_compute_in_a_zone_aggregate_shows_that_zone(self):
        objects.Aggregate(self.admin_context, name='az1-agg',
                          hosts=['host1'],
                          metadata={'availability_zone': 'az1'}).create()
        [service] = self.request('GET', '/v2.1/os-services',
                                 token=base.ADMIN).json['services']
        self.assertEqual('az1', service['zone'])

    def test_stale_heartbeat_is_down(self):
        self.service.last_seen_up = (datetime.datetime.utcnow() -
                                     datetime.timedelta(hours=1))
        self.service.save()
        [service] = self.request('GET', '/v2.1/os-services',
                                 token=base.ADMIN).json['services']
        self.assertEqual('down', service['state'])

    def test_disable_with_reason(self):
        response = self.request(
            'PUT', '/v2.1/os-services/' + self.service.uuid,
            {'status': 'disabled', 'disabled_reason': 'maintenance'},
            token=base.ADMIN, version='2.53')
        self.assertEqual(200, response.status_int, response.body)
        self.assertEqual('disabled', response.json['service']['status'])
        self.assertEqual('maintenance',
                         response.json['service']['disabled_reason'])

    def test_force_down(self):
        service = self.request(
            'PUT', '/v2.1/os-services/' + self.service.uuid,
            {'forced_down': True}, token=base.ADMIN).json['service']
        self.assertEqual('down', service['state'])
        self.assertTrue(service['forced_down'])

    def test_empty_update_is_400(self):
        response = self.request('PUT', '/v2.1/os-services/' +
                                self.service.uuid, {}, token=base.ADMIN)
        self.assertError(response, 400, 'badRequest')

    def test_update_unknown_is_404(self):
        response = self.request('PUT', '/v2.1/os-services/nope',
                                {'status': 'enabled'}, token=base.ADMIN)
        self.assertError(response, 404, 'itemNotFound')

    def test_delete_removes_service_and_nodes(self):
        response = self.request('DELETE', '/v2.1/os-services/' +
                                self.service.uuid, token=base.ADMIN)
        self.assertEqual(204, response.status_int)
        self.assertEqual([], self.request('GET', '/v2.1/os-services',
                                          token=base.ADMIN).json['services'])
        self.assertEqual([], self.request('GET', '/v2.1/os-hypervisors',
                                          token=base.ADMIN
                                          ).json['hypervisors'])


class TestACellThatDoesNotAnswer(HostsTestCase):
    """A lookup by uuid searches every cell at once: what an answering
    cell has is found, what none has is a 503 naming the cell that did
    not answer (it may be there), never a 500."""

    def setUp(self):
        super().setUp()
        nova_fixtures.map_unreachable_cell(self.admin_context)

    def test_the_service_of_an_answering_cell_is_updated(self):
        response = self.request(
            'PUT', '/v2.1/os-services/' + self.service.uuid,
            {'status': 'disabled'}, token=base.ADMIN, version='2.53')
        self.assertEqual(200, response.status_int, response.body)

    def test_a_service_in_no_answering_cell_is_503(self):
        response = self.request(
            'PUT', '/v2.1/os-services/' + uuidutils.generate_uuid(),
            {'status': 'disabled'}, token=base.ADMIN, version='2.53')
        self.assertError(response, 503, 'serviceUnavailable',
                         'cell cell9 did not answer')

    def test_the_hypervisor_of_an_answering_cell_is_shown(self):
        response = self.request('GET', '/v2.1/os-hypervisors/' +
                                self.node.uuid, token=base.ADMIN)
        self.assertEqual(200, response.status_int, response.body)

    def test_a_hypervisor_in_no_answering_cell_is_503(self):
        response = self.request('GET', '/v2.1/os-hypervisors/' +
                                uuidutils.generate_uuid(), token=base.ADMIN)
        self.assertError(response, 503, 'serviceUnavailable',
                         'cell cell9 did not answer')

    def test_the_lists_leave_it_out(self):
        [service] = self.request('GET', '/v2.1/os-services',
                                 token=base.ADMIN).json['services']
        self.assertEqual('host1', service['host'])
