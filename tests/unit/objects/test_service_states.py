"""service_states: the scheduler's view of every compute service, whose
up-or-down the database works out; it must be servicegroup.service_is_up's
answer on the same record, whatever the record holds."""

import datetime

from oslo_utils import fixture as utils_fixture
from oslo_utils import uuidutils
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


def statements_on(context, table, function, *args):
    """``function(*args)``, and whether each statement on ``table`` it ran
    was packed (GROUP_CONCAT)."""
    seen = []

    def listen(conn, cursor, statement, *rest):
        if table in statement:
            seen.append('group_concat' in statement.lower())
    engine = db.get_engine(context.db_connection)
    sa.event.listen(engine, 'before_cursor_execute', listen)
    try:
        answer = function(*args)
    finally:
        sa.event.remove(engine, 'before_cursor_execute', listen)
    return answer, seen


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

    def statements_of(self, function, *args):
        return statements_on(self.context, 'services', function, *args)

    def test_every_service_comes_back_in_one_packed_row(self):
        for host in ('a', 'b', 'c'):
            self.add(host, last_seen_up=NOW)
        self.add('off', disabled=True, last_seen_up=NOW)
        states, statements = self.statements_of(
            service_obj.service_states, self.context,
            servicegroup.COMPUTE_BINARY)
        self.assertEqual([True], statements)
        self.assertEqual(
            {'a': (False, None, False, True),
             'b': (False, None, False, True),
             'c': (False, None, False, True),
             'off': (True, 'maintenance', False, True)},
            {host: (state.disabled, state.disabled_reason,
                    state.forced_down, state.up)
             for host, state in states.items()})

    def test_a_value_holding_a_separator_is_read_row_by_row(self):
        # A reason is free text: a ',' or the unit separator in it would
        # split the packed value wrongly, so the rows are read as rows.
        self.add('plain', last_seen_up=NOW)
        for host, reason in (('comma', 'disk, then RAM'),
                             ('unit', 'odd\x1freason')):
            self.add(host, disabled=True, last_seen_up=NOW)
            service = self.services[host]
            service.disabled_reason = reason
            service.save()
        states, statements = self.statements_of(
            service_obj.service_states, self.context,
            servicegroup.COMPUTE_BINARY)
        self.assertEqual([True, False], statements)
        self.assertEqual({'plain': None, 'comma': 'disk, then RAM',
                          'unit': 'odd\x1freason'},
                         {host: state.disabled_reason
                          for host, state in states.items()})
        self.assertTrue(all(state.up for state in states.values()))


class TestComputeNodesWritten(test_objects.DatabaseTestCase):
    """written_by_uuid: when each compute node asked about was last
    written, as the database's text of it, in one packed row."""

    def make_node(self, host):
        node = objects.ComputeNode(
            self.context, host=host, hypervisor_hostname=host,
            hypervisor_type='fake', hypervisor_version=1, vcpus=8,
            memory_mb=8192, local_gb=100, cpu_allocation_ratio=16.0,
            ram_allocation_ratio=1.5, disk_allocation_ratio=1.0)
        node.create()
        return node

    def stored_times(self):
        with db.cell_session(self.context) as session:
            return dict(session.execute(sa.select(
                models.ComputeNode.uuid,
                sa.cast(models.ComputeNode.updated_at, sa.String))).all())

    def test_the_times_are_the_databases_text_of_them(self):
        nodes = [self.make_node('host%d' % i) for i in range(3)]
        nodes[0].vcpus_used = 2
        nodes[0].save()
        with db.cell_session(self.context) as session:
            session.execute(sa.update(models.ComputeNode).where(
                models.ComputeNode.uuid == nodes[1].uuid).values(
                    updated_at=None))
        deleted = self.make_node('gone')
        deleted.destroy()
        asked = [node.uuid for node in nodes] + [
            deleted.uuid, uuidutils.generate_uuid()]
        written, statements = statements_on(
            self.context, 'compute_nodes',
            objects.ComputeNodeList.written_by_uuid, self.context, asked)
        self.assertEqual([True], statements)
        stored = self.stored_times()
        self.assertIsNone(stored[nodes[1].uuid])
        self.assertEqual({node.uuid: stored[node.uuid] for node in nodes},
                         written)

    def test_only_uuids_in_their_stored_form_are_asked_about(self):
        node = self.make_node('host1')
        written = objects.ComputeNodeList.written_by_uuid(
            self.context, [node.uuid.upper(), "x') OR ('1'='1", node.uuid])
        self.assertEqual([node.uuid], list(written))
        self.assertEqual({}, objects.ComputeNodeList.written_by_uuid(
            self.context, ["x') OR ('1'='1"]))
