"""service_states: the scheduler's view of every compute service, whose
up-or-down the database works out; it must be servicegroup.service_is_up's
answer on the same record, whatever the record holds."""

import datetime

from oslo_utils import fixture as utils_fixture
import sqlalchemy as sa

from nova_lite.db import api as db
from nova_lite.db import main_models as models
from nova_lite import objects
from nova_lite.objects import service as service_obj
from nova_lite import servicegroup
from tests.unit.objects import test_objects

NOW = datetime.datetime(2026, 11, 30, 12, 0, 0)
SECOND = datetime.timedelta(seconds=1)
MICROSECOND = datetime.timedelta(microseconds=1)


class TestServiceStates(test_objects.DatabaseTestCase):

    def setUp(self):
        super().setUp()
        # (The Config fixture's service_down_time is 60 s.)
        self.useFixture(utils_fixture.TimeFixture(NOW))
        self.services = {}

    def add(self, host, forced_down=False, disabled=False, **times):
        service = objects.Service(self.context, host=host,
                                  binary=servicegroup.COMPUTE_BINARY,
                                  topic='compute', disabled=disabled,
                                  disabled_reason='maintenance'
                                  if disabled else None)
        service.create()
        # The times as given, None included (create and save stamp
        # their own).
        values = {'forced_down': forced_down, 'last_seen_up': None,
                  'updated_at': None, 'created_at': None}
        values.update(times)
        with db.cell_session(self.context) as session:
            session.execute(sa.update(models.Service).where(
                models.Service.id == service.id).values(**values))
        self.services[host] = service

    def test_up_as_service_is_up_says(self):
        cases = {
            'heartbeat-now': dict(last_seen_up=NOW),
            'heartbeat-at-the-limit': dict(last_seen_up=NOW - 60 * SECOND),
            'heartbeat-just-past': dict(
                last_seen_up=NOW - 60 * SECOND - MICROSECOND),
            'heartbeat-long-ago': dict(last_seen_up=NOW - 3600 * SECOND),
            'heartbeat-in-the-future': dict(last_seen_up=NOW + 30 * SECOND),
            'heartbeat-far-in-the-future': dict(
                last_seen_up=NOW + 61 * SECOND),
            'old-heartbeat-recent-update': dict(
                last_seen_up=NOW - 3600 * SECOND, updated_at=NOW),
            'no-heartbeat-recent-update': dict(updated_at=NOW - 10 * SECOND),
            'no-heartbeat-old-update': dict(
                updated_at=NOW - 3600 * SECOND, created_at=NOW),
            'only-created-now': dict(created_at=NOW),
            'only-created-long-ago': dict(created_at=NOW - 3600 * SECOND),
            'no-time-at-all': dict(),
            'forced-down-with-heartbeat': dict(forced_down=True,
                                               last_seen_up=NOW),
            'disabled-with-heartbeat': dict(disabled=True, last_seen_up=NOW),
        }
        for host, times in cases.items():
            self.add(host, **times)
        states = service_obj.service_states(self.context,
                                            servicegroup.COMPUTE_BINARY)
        self.assertEqual(set(cases), set(states))
        for host, state in states.items():
            stored = objects.Service.get_by_id(self.context,
                                               self.services[host].id)
            self.assertEqual(servicegroup.service_is_up(stored), state.up,
                             host)
            self.assertEqual((stored.disabled, stored.disabled_reason,
                              stored.forced_down),
                             (state.disabled, state.disabled_reason,
                              state.forced_down), host)
        # Both ways of being down and up are among the cases.
        self.assertTrue(states['heartbeat-at-the-limit'].up)
        self.assertFalse(states['heartbeat-just-past'].up)
        self.assertFalse(states['forced-down-with-heartbeat'].up)

    def test_other_binaries_and_deleted_services_are_left_out(self):
        self.add('here', last_seen_up=NOW)
        self.add('gone', last_seen_up=NOW)
        self.services['gone'].destroy()
        other = objects.Service(self.context, host='elsewhere',
                                binary='nova-lite-conductor',
                                topic='conductor')
        other.create()
        self.assertEqual({'here'}, set(service_obj.service_states(
            self.context, servicegroup.COMPUTE_BINARY)))
