"""PUT /os-services/{id} status of a compute: the compute is told at once
(set_host_enabled, compute RPC 1.7), so that it puts
COMPUTE_STATUS_DISABLED on its providers or takes it off -- unless it is
down or too old, when its audit does it later."""

import datetime
import threading

import oslo_messaging as messaging
from oslo_utils import timeutils

from nova_lite.api.compute import services
from nova_lite import context as nova_context
from nova_lite import objects
from nova_lite import rpc
from tests.unit.api import base
from tests.unit.api import test_hosts


class StatusRecorder:
    """host1's compute, recording what it is told."""

    target = messaging.Target(version='1.7')

    def __init__(self):
        self.told = []
        self.arrived = threading.Event()

    def set_host_enabled(self, context, enabled):
        self.told.append(enabled)
        self.arrived.set()


class StatusTestCase(test_hosts.HostsTestCase):

    def setUp(self):
        super().setUp()
        self.compute = StatusRecorder()
        server = rpc.get_server(messaging.Target(topic='compute.host1',
                                                 server='host1'),
                                [self.compute], executor='threading')
        server.start()
        self.addCleanup(server.wait)
        self.addCleanup(server.stop)
        self.fresh_rpc_client()

    def fresh_rpc_client(self):
        """The API reads its [upgrade_levels] pins when it creates its RPC
        client; have it create it again for this test."""
        self.addCleanup(setattr, services._HOSTS, '_compute_rpc',
                        services._HOSTS._compute_rpc)
        services._HOSTS._compute_rpc = None

    def update(self, body, service=None):
        response = self.request(
            'PUT', '/v2.1/os-services/' + (service or self.service).uuid,
            body, token=base.ADMIN, version='2.53')
        self.assertEqual(200, response.status_int, response.body)
        return response.json['service']

    def change_service(self, **values):
        with nova_context.target_cell(self.admin_context,
                                      self.cell1) as cctxt:
            service = objects.Service.get_by_uuid(cctxt, self.service.uuid)
            for name, value in values.items():
                setattr(service, name, value)
            service.save()

    def told(self):
        self.assertTrue(self.compute.arrived.wait(10), 'nothing told')
        return self.compute.told

    def assertNotTold(self):
        # Anything cast would have been sent before the response.
        self.assertFalse(self.compute.arrived.wait(0.5), self.compute.told)


class TestTheComputeIsTold(StatusTestCase):

    def test_disabling_tells_the_compute_it_is_disabled(self):
        self.update({'status': 'disabled', 'disabled_reason': 'rack 4'})
        self.assertEqual([False], self.told())

    def test_enabling_tells_it_it_is_enabled(self):
        self.change_service(disabled=True)
        self.update({'status': 'enabled'})
        self.assertEqual([True], self.told())

    def test_forcing_it_down_tells_it_nothing(self):
        self.update({'forced_down': True})
        self.assertNotTold()

    def test_a_compute_that_is_down_is_not_told(self):
        self.change_service(last_seen_up=timeutils.utcnow() -
                            datetime.timedelta(hours=1))
        self.assertEqual('disabled',
                         self.update({'status': 'disabled'})['status'])
        self.assertNotTold()
        self.assertIn('is down', self.logs.output)

    def test_a_compute_of_an_older_release_is_not_told(self):
        self.change_service(version=13)  # compute RPC 1.6
        self.assertEqual('disabled',
                         self.update({'status': 'disabled'})['status'])
        self.assertNotTold()
        self.assertIn('too old', self.logs.output)

    def test_computes_pinned_below_1_7_are_not_told(self):
        self.plane.config.config(compute='1.6', group='upgrade_levels')
        self.fresh_rpc_client()
        self.assertEqual('disabled',
                         self.update({'status': 'disabled'})['status'])
        self.assertNotTold()

    def test_another_kind_of_service_tells_no_compute(self):
        with nova_context.target_cell(self.admin_context,
                                      self.cell1) as cctxt:
            conductor = objects.Service(cctxt, host='host1',
                                        binary='nova-lite-conductor',
                                        topic='conductor')
            conductor.create()
        self.update({'status': 'disabled'}, service=conductor)
        self.assertNotTold()
