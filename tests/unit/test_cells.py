"""nova_lite.cells: one query in every cell at once (``scatter``), or one
thing looked for in every cell (``find``), against the real (SQLite) cell
databases; a cell that does not answer is reported and logged, never
raised."""

import threading

import fixtures
from oslo_utils import uuidutils
import testtools

from nova_lite import cells
from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite import objects
from tests.unit import fixtures as nova_fixtures


def _cell_uuid(cctxt, cell):
    return cctxt.cell_uuid


class CellsTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.logs = self.useFixture(fixtures.FakeLogger())
        self.useFixture(nova_fixtures.Config())
        self.databases = self.useFixture(nova_fixtures.Databases())
        self.context = nova_context.get_admin_context()

    def unreachable_cell(self):
        return nova_fixtures.map_unreachable_cell(self.context)


class TestScatter(CellsTestCase):

    def test_each_cell_answers_aimed_at_itself_cell0_too(self):
        scattered = cells.scatter(self.context, _cell_uuid, 'a test')
        uuids = [self.databases.cell0.uuid, self.databases.cell1.uuid]
        self.assertEqual(dict(zip(uuids, uuids)), scattered.answers)
        self.assertEqual({}, scattered.down)

    def test_cell0_is_left_out_when_asked(self):
        scattered = cells.scatter(self.context, _cell_uuid, 'a test',
                                  with_cell0=False)
        self.assertEqual([self.databases.cell1.uuid],
                         list(scattered.answers))

    def test_only_the_cells_given_are_asked(self):
        scattered = cells.scatter(self.context, _cell_uuid, 'a test',
                                  cells=[self.databases.cell1])
        self.assertEqual([self.databases.cell1.uuid],
                         list(scattered.answers))

    def test_a_cell_whose_database_is_unreachable_is_reported_not_raised(
            self):
        down = self.unreachable_cell()
        scattered = cells.scatter(
            self.context,
            lambda cctxt, cell: len(objects.InstanceList.get_by_filters(
                cctxt, {})), 'a server count')
        self.assertEqual({self.databases.cell0.uuid: 0,
                          self.databases.cell1.uuid: 0}, scattered.answers)
        self.assertEqual([down.uuid], list(scattered.down))
        self.assertIn('Cannot reach the database',
                      str(scattered.down[down.uuid]))
        self.assertIn('Skipping cell cell9 in a server count',
                      self.logs.output)

    def test_the_down_cells_are_named_for_an_operator(self):
        self.unreachable_cell()
        scattered = cells.scatter(
            self.context,
            lambda cctxt, cell: objects.InstanceList.get_by_filters(cctxt,
                                                                    {}),
            'a server list')
        self.assertEqual(['cell9'], list(scattered.down_by_name()))

    def test_a_cell_that_does_not_answer_in_time_is_reported(self):
        release = threading.Event()
        self.addCleanup(release.set)

        def query(cctxt, cell):
            if cell.uuid == self.databases.cell1.uuid:
                release.wait(30)
            return cell.name

        scattered = cells.scatter(self.context, query, 'a slow list',
                                  timeout=0.2)
        self.assertEqual({self.databases.cell0.uuid: 'cell0'},
                         scattered.answers)
        self.assertEqual([self.databases.cell1.uuid], list(scattered.down))
        self.assertIn('Skipping cell cell1 in a slow list: no answer '
                      'within 0.2s', self.logs.output)

    def test_any_other_error_of_a_query_is_raised(self):
        def query(cctxt, cell):
            raise ValueError('a bug in the query')

        self.assertRaises(ValueError, cells.scatter, self.context, query,
                          'a test')

    def test_the_cells_are_asked_at_the_same_time(self):
        both_asked = threading.Barrier(2, timeout=10)

        def query(cctxt, cell):
            # Would time out (BrokenBarrierError) if asked one by one.
            both_asked.wait()
            return True

        scattered = cells.scatter(self.context, query, 'a test')
        self.assertEqual(2, len(scattered.answers))


class TestListFromEveryCell(CellsTestCase):

    def test_the_cells_lists_are_one_list_without_the_down_cell(self):
        self.unreachable_cell()

        def query(cctxt, cell):
            objects.InstanceList.get_by_filters(cctxt, {})
            return [cell.name, cell.name]

        listed = cells.list_from_every_cell(self.context, query, 'a test',
                                            with_cell0=False)
        self.assertEqual(['cell1', 'cell1'], listed)


class TestFind(CellsTestCase):

    def make_service(self, cell, host='compute1'):
        with nova_context.target_cell(self.context, cell) as cctxt:
            service = objects.Service(cctxt, host=host,
                                      binary='nova-lite-compute',
                                      topic='compute')
            service.create()
        return service

    def find_service(self, uuid):
        return cells.find(
            self.context, lambda cctxt, cell: objects.Service.get_by_uuid(
                cctxt, uuid), 'service %s' % uuid)

    def test_what_one_cell_has_is_found_there(self):
        service = self.make_service(self.databases.cell1)
        found = self.find_service(service.uuid)
        self.assertEqual((service.uuid, self.databases.cell1.uuid),
                         (found.uuid, found._context.cell_uuid))

    def test_what_no_cell_has_is_none(self):
        self.assertIsNone(self.find_service(uuidutils.generate_uuid()))

    def test_a_query_answering_none_means_not_in_that_cell(self):
        self.assertIsNone(cells.find(self.context, lambda cctxt, cell: None,
                                     'nothing'))

    def test_what_an_answering_cell_has_is_found_while_another_is_down(
            self):
        self.unreachable_cell()
        service = self.make_service(self.databases.cell1)
        self.assertEqual(service.uuid, self.find_service(service.uuid).uuid)

    def test_what_is_in_no_answering_cell_while_one_is_down_is_a_503(self):
        self.unreachable_cell()
        uuid = uuidutils.generate_uuid()
        error = self.assertRaises(exception.CellUnavailable,
                                  self.find_service, uuid)
        self.assertEqual(503, error.code)
        self.assertEqual('Cannot find service %s: it is in no cell that '
                         'answered, and cell cell9 did not answer; try '
                         'again when it is back.' % uuid,
                         error.format_message())
        self.assertIn('Skipping cell cell9 in a search for service %s' %
                      uuid, self.logs.output)
