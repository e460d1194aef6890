"""Service.heartbeat_many: the heartbeat of many services in one
statement, as a process hosting many simulated computes sends it."""

import datetime

from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import base
from tests.unit import fixtures as nova_fixtures
from tests.unit.objects import test_objects


class TestHeartbeatMany(test_objects.DatabaseTestCase):

    def make_services(self, count):
        services = []
        for number in range(count):
            service = objects.Service(self.context, host='fake%d' % number,
                                      binary='nova-lite-compute',
                                      topic='compute.fake%d' % number)
            service.create()
            service.last_seen_up = datetime.datetime(2000, 1, 1)
            service.save()
            services.append(service)
        return services

    def stored(self, service):
        return objects.Service.get_by_id(self.context, service.id)

    def test_counts_a_report_and_records_when_for_each(self):
        services = self.make_services(3)
        before = base.utcnow()
        found = objects.Service.heartbeat_many(
            self.context, [s.id for s in services])
        objects.Service.heartbeat_many(self.context,
                                       [s.id for s in services])
        self.assertEqual(3, found)
        for service in services:
            stored = self.stored(service)
            self.assertEqual(2, stored.report_count)
            self.assertGreaterEqual(
                stored.last_seen_up.replace(tzinfo=None), before)

    def test_leaves_the_others_alone(self):
        beating, quiet = self.make_services(2)
        objects.Service.heartbeat_many(self.context, [beating.id])
        self.assertEqual(0, self.stored(quiet).report_count)
        self.assertEqual(datetime.datetime(2000, 1, 1),
                         self.stored(quiet).last_seen_up.replace(
                             tzinfo=None))

    def test_a_deleted_service_is_not_counted_nor_brought_back(self):
        kept, deleted = self.make_services(2)
        deleted.destroy()
        found = objects.Service.heartbeat_many(self.context,
                                               [kept.id, deleted.id])
        self.assertEqual(1, found)
        self.assertEqual([kept.id], [
            s.id for s in objects.ServiceList.get_all(self.context)])

    def test_no_ids_is_no_statement(self):
        self.assertEqual(0, objects.Service.heartbeat_many(self.context, []))

    def test_ids_that_are_not_a_list_of_integers_are_refused(self):
        [service] = self.make_services(1)
        for ids in (service.id, 'all', [str(service.id)], [True], None):
            self.assertRaises(exception.InvalidRPCMessage,
                              objects.Service.heartbeat_many, self.context,
                              ids)
        self.assertEqual(0, self.stored(service).report_count)


class TestHeartbeatManyThroughTheConductor(test_objects.DatabaseTestCase):
    """A compute process has no database: its one call runs in the
    conductor."""

    def setUp(self):
        super().setUp()
        self.useFixture(nova_fixtures.FakeRPC())
        self.conductor = test_objects.InProcessConductor()
        with test_objects.conductor_side():
            self.services = []
            for number in range(4):
                service = objects.Service(
                    self.context, host='fake%d' % number,
                    binary='nova-lite-compute')
                service.create()
                self.services.append(service)
        base.NovaLiteObject.indirection_api = self.conductor
        self.addCleanup(setattr, base.NovaLiteObject, 'indirection_api',
                        None)

    def test_one_conductor_call_for_every_host(self):
        found = objects.Service.heartbeat_many(
            nova_context.get_admin_context(),
            [s.id for s in self.services])
        self.assertEqual(4, found)
        self.assertEqual([('Service', 'heartbeat_many')],
                         self.conductor.calls)
        with test_objects.conductor_side():
            self.assertEqual([1, 1, 1, 1], [
                s.report_count
                for s in objects.ServiceList.get_all(self.context)])
