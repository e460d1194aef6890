"""Services that stop: reported down, not scheduled to, and callers that
time out instead of hanging."""

from tests.functional import base
from tests.functional import fixtures


class TestComputeDown(base.ControlPlaneTestCase):

    def test_stopped_compute_is_reported_down_and_not_scheduled_to(self):
        self.plane.daemons['compute1'].stop()

        def compute1_down():
            services = self.admin.get('/os-services').json()['services']
            return [s for s in services if s['host'] == 'compute1' and
                    s['binary'] == 'nova-lite-compute' and
                    s['state'] == 'down']
        fixtures.wait_for(compute1_down, timeout=30,
                          what='compute1 reported down')
        ids = [self.admin.create_server('after-down-%d' % i,
                                        image=self.plane.image_id)
               ['server']['id'] for i in range(3)]
        for server_id in ids:
            server = self.admin.wait_for_status(server_id, 'ACTIVE')
            self.assertEqual('compute2', server['OS-EXT-SRV-ATTR:host'])


class TestSchedulerGone(base.ControlPlaneTestCase):

    computes = 1
    extra_conf = '[conductor]\nscheduler_call_timeout = 3\n'

    def test_build_without_scheduler_ends_in_error_not_hang(self):
        self.plane.daemons['scheduler'].stop()
        created = self.admin.create_server('orphan',
                                           image=self.plane.image_id)
        server = self.admin.wait_for_status(created['server']['id'], 'ERROR',
                                            timeout=30)
        self.assertIn('scheduler did not answer', server['fault']['message'])


class TestEventletMode(base.ControlPlaneTestCase):

    backend = 'eventlet'
    computes = 1

    def test_boot_in_eventlet_mode(self):
        created = self.admin.create_server('green',
                                           image=self.plane.image_id)
        self.admin.wait_for_status(created['server']['id'], 'ACTIVE')
        for name in ('conductor', 'scheduler', 'compute1'):
            self.assertIn('eventlet concurrency',
                          self.plane.daemons[name].log())
