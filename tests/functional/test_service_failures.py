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
    """A scheduler that does not answer is a delay, not a failure: the
    conductor asks again for up to ``[DEFAULT] outage_wait``; only a
    scheduler gone for longer than that fails the build, and then it
    ends in ERROR rather than hanging."""

    computes = 1
    extra_conf = ('[DEFAULT]\noutage_wait = 15\n'
                  '[conductor]\nscheduler_call_timeout = 3\n')

    def test_a_build_waits_for_the_scheduler_to_come_back(self):
        self.plane.daemons['scheduler'].stop()
        created = self.admin.create_server('patient',
                                           image=self.plane.image_id)
        server_id = created['server']['id']
        # An unanswered call later it is still being scheduled.
        fixtures.wait_for(
            lambda: 'Scheduling of %s waits for an outage to end' %
            server_id in self.plane.daemons['conductor'].log(),
            timeout=20, what='the build waiting for the scheduler')
        self.assertEqual('BUILD', self.admin.server(server_id)['status'])
        self.plane.daemons['scheduler'].start()
        self.admin.wait_for_status(server_id, 'ACTIVE', timeout=60)

    def test_build_without_scheduler_ends_in_error_not_hang(self):
        self.plane.daemons['scheduler'].stop()
        created = self.admin.create_server('orphan',
                                           image=self.plane.image_id)
        server = self.admin.wait_for_status(created['server']['id'], 'ERROR',
                                            timeout=60)
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
