"""Whether a service is up: a recent heartbeat and not forced down."""

import datetime
import threading

from oslo_utils import timeutils
import testtools

from nova_lite import objects
from nova_lite import service
from nova_lite import servicegroup
from tests.unit import fixtures as nova_fixtures

objects.register_all()

SERVICE_DOWN_TIME = 60


def seconds_ago(seconds):
    return timeutils.utcnow() - datetime.timedelta(seconds=seconds)


def make_service(**fields):
    values = dict(host='compute1', binary='nova-lite-compute',
                  forced_down=False, last_seen_up=None, updated_at=None,
                  created_at=None)
    values.update(fields)
    return objects.Service(**values)


class TestServiceIsUp(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.config = self.useFixture(nova_fixtures.Config())
        self.config.config(service_down_time=SERVICE_DOWN_TIME)

    def test_up_when_last_seen_recently(self):
        service = make_service(last_seen_up=seconds_ago(5))
        self.assertTrue(servicegroup.service_is_up(service))

    def test_down_once_service_down_time_has_passed(self):
        service = make_service(
            last_seen_up=seconds_ago(SERVICE_DOWN_TIME + 5))
        self.assertFalse(servicegroup.service_is_up(service))

    def test_down_when_forced_down_despite_a_recent_heartbeat(self):
        service = make_service(last_seen_up=seconds_ago(5), forced_down=True)
        self.assertFalse(servicegroup.service_is_up(service))

    def test_service_down_time_is_configurable(self):
        self.config.config(service_down_time=300)
        service = make_service(last_seen_up=seconds_ago(120))
        self.assertTrue(servicegroup.service_is_up(service))

    def test_without_a_heartbeat_the_last_update_counts(self):
        service = make_service(updated_at=seconds_ago(5),
                               created_at=seconds_ago(3600))
        self.assertTrue(servicegroup.service_is_up(service))

    def test_without_heartbeat_or_update_the_creation_counts(self):
        service = make_service(created_at=seconds_ago(SERVICE_DOWN_TIME + 5))
        self.assertFalse(servicegroup.service_is_up(service))

    def test_never_seen_is_down(self):
        self.assertFalse(servicegroup.service_is_up(make_service()))


class _Record:
    """A service record that counts its heartbeats."""

    def __init__(self):
        self.beat = threading.Event()

    def heartbeat(self):
        self.beat.set()


class TestFirstHeartbeat(testtools.TestCase):
    """A daemon restarted after a while is reported down until its first
    heartbeat: that beat comes as it starts, not a report_interval on."""

    def test_the_first_heartbeat_is_at_once(self):
        config = self.useFixture(nova_fixtures.Config())
        config.config(report_interval=3600)
        daemon = service._ServiceBase('nova-lite-test', host='host1')
        daemon.service_ref = _Record()
        daemon._start_periodic_tasks()
        self.addCleanup(daemon._wait_periodic_tasks)
        self.addCleanup(daemon._stop_periodic_tasks)
        self.assertTrue(daemon.service_ref.beat.wait(10))
