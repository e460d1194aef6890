"""The server list (``API.get_all``): each cell's database pages its own
instances and the pages are merged with the build requests, in the list's
order, against real (SQLite) API, cell0, cell1 and cell2 databases."""

import datetime
import os

import fixtures
from oslo_utils import uuidutils
import sqlalchemy as sa
import testtools

from nova_lite.compute import api as compute_api
from nova_lite.compute import server_list
from nova_lite.compute import states
from nova_lite import context as nova_context
from nova_lite.db import api as db_api
from nova_lite.db import api_models
from nova_lite.db import migration
from nova_lite import exception
from nova_lite import objects
from tests.unit import fixtures as nova_fixtures

DEMO = 'demo'
T0 = datetime.datetime(2026, 1, 1, 12, 0, 0)


def at(seconds):
    return T0 + datetime.timedelta(seconds=seconds)


class ServerListTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.logs = self.useFixture(fixtures.FakeLogger())
        self.useFixture(nova_fixtures.Config())
        self.databases = self.useFixture(nova_fixtures.Databases())
        self.admin = nova_context.get_admin_context()
        self.demo = nova_context.RequestContext(user_id=DEMO,
                                                project_id=DEMO)
        self.cell0 = self.databases.cell0
        self.cell1 = self.databases.cell1
        path = os.path.join(self.useFixture(fixtures.TempDir()).path,
                            'cell2.sqlite')
        migration.db_sync('sqlite:///' + path, migration.MAIN)
        self.cell2 = objects.CellMapping(
            self.admin, name='cell2',
            transport_url=nova_fixtures.FAKE_TRANSPORT_URL,
            database_connection='sqlite:///' + path)
        self.cell2.create()
        self.flavor = objects.Flavor(
            id=1, flavorid='1', name='m1.tiny', memory_mb=512, vcpus=1,
            root_gb=1, ephemeral_gb=0, swap=0, rxtx_factor=1.0,
            is_public=True, disabled=False, extra_specs={})
        self.api = compute_api.API()

    def _instance(self, context, created_at, project_id, **fields):
        values = dict(uuid=uuidutils.generate_uuid(), project_id=project_id,
                      user_id=project_id, display_name='server',
                      vm_state=states.ACTIVE, task_state=None, host=None,
                      flavor=self.flavor, metadata={}, tags=[],
                      created_at=created_at)
        values.update(fields)
        return objects.Instance(context, **values)

    def in_cell(self, cell, created_at, project_id=DEMO, fault=None,
                **fields):
        """An instance of ``cell`` created at ``created_at``; its uuid."""
        with nova_context.target_cell(self.admin, cell) as cctxt:
            instance = self._instance(cctxt, created_at, project_id,
                                      **fields)
            instance.create()
            if fault is not None:
                objects.InstanceFault(cctxt, instance_uuid=instance.uuid,
                                      code=500, message=fault).create()
        return instance.uuid

    def building(self, created_at, project_id=DEMO, **fields):
        """A build request whose row was written at ``created_at``."""
        instance = self._instance(
            self.admin, created_at.replace(microsecond=0), project_id,
            vm_state=states.BUILDING, task_state=states.SCHEDULING, **fields)
        objects.BuildRequest(self.admin, instance_uuid=instance.uuid,
                             project_id=project_id,
                             instance=instance).create()
        table = api_models.BuildRequest
        with db_api.api_session() as session:
            session.execute(sa.update(table).where(
                table.instance_uuid == instance.uuid).values(
                    created_at=created_at))
        return instance.uuid

    def listed(self, context=None, limit=None, marker=None, **search_opts):
        search_opts.setdefault('project_id', DEMO)
        return [i.uuid for i in self.api.get_all(
            context or self.demo, search_opts, limit=limit, marker=marker)]

    def walked(self, limit, **search_opts):
        """Every page of ``limit``, each after the last one's last."""
        walked, marker = [], None
        while True:
            page = self.listed(limit=limit, marker=marker, **search_opts)
            self.assertLessEqual(len(page), limit)
            walked.extend(page)
            if len(page) < limit:
                return walked
            marker = page[-1]


class TestOrder(ServerListTestCase):

    def test_newest_first_across_the_cells_and_the_build_requests(self):
        oldest = self.in_cell(self.cell1, at(1))
        in_cell0 = self.in_cell(self.cell0, at(2), vm_state=states.ERROR)
        in_cell2 = self.in_cell(self.cell2, at(3))
        pending = self.building(at(4))
        newest = self.in_cell(self.cell1, at(5))
        self.assertEqual([newest, pending, in_cell2, in_cell0, oldest],
                         self.listed())

    def test_at_the_same_created_at_a_build_request_first_then_uuid(self):
        same = at(10)
        uuids = [self.in_cell(cell, same)
                 for cell in (self.cell0, self.cell1, self.cell2,
                              self.cell1, self.cell2)]
        pending = [self.building(same), self.building(same)]
        self.assertEqual(sorted(pending, reverse=True) +
                         sorted(uuids, reverse=True), self.listed())

    def test_a_server_in_a_cell_and_still_building_is_listed_once_as_the_cells(
            self):
        same = at(10)
        earlier = self.in_cell(self.cell1, same)
        uuid = self.building(same)
        # The conductor has created the instance; its build request is
        # not deleted yet.
        self.in_cell(self.cell2, same, uuid=uuid, display_name='in-cell2')
        listed = self.api.get_all(self.demo, {'project_id': DEMO})
        self.assertEqual([uuid, earlier], [i.uuid for i in listed])
        self.assertEqual('in-cell2', listed[0].display_name)
        self.assertEqual(states.ACTIVE, listed[0].vm_state)
        for limit in (1, 2):
            self.assertEqual([uuid, earlier], self.walked(limit))


class TestPaging(ServerListTestCase):

    def everything(self):
        """13 servers over three cells and the build requests, some
        created at the same time."""
        cells = (self.cell0, self.cell1, self.cell2)
        for n in range(9):
            self.in_cell(cells[n % 3], at(n // 2))
        for n in range(4):
            self.building(at(n))
        return self.listed()

    def test_every_limit_walks_every_server_once_in_order(self):
        everything = self.everything()
        self.assertEqual(13, len(everything))
        for limit in (1, 2, 3, 5, 13, 20):
            self.assertEqual(everything, self.walked(limit), limit)

    def test_a_marker_in_any_cell_or_build_request_starts_after_it(self):
        everything = self.everything()
        for n, marker in enumerate(everything):
            self.assertEqual(everything[n + 1:n + 4],
                             self.listed(limit=3, marker=marker), n)

    def test_the_limit_is_over_every_cell_together(self):
        everything = self.everything()
        self.assertEqual(everything[:4], self.listed(limit=4))
        self.assertEqual([], self.listed(limit=0))

    def test_an_unknown_marker_is_marker_not_found(self):
        self.everything()
        theirs = self.in_cell(self.cell1, at(3), project_id='other')
        for marker in (uuidutils.generate_uuid(), 'not-a-uuid', theirs):
            self.assertRaises(exception.MarkerNotFound, self.listed,
                              marker=marker)
        self.assertRaises(exception.MarkerNotFound, self.listed,
                          marker=uuidutils.generate_uuid(), limit=0)

    def test_a_marker_deleted_since_its_page_still_places_the_next(self):
        newer = self.in_cell(self.cell1, at(3))
        marker = self.in_cell(self.cell2, at(2))
        older = self.in_cell(self.cell1, at(1))
        self.assertEqual([newer, marker], self.listed(limit=2))
        with nova_context.target_cell(self.admin, self.cell2) as cctxt:
            objects.Instance.get_by_uuid(cctxt, marker).destroy()
        self.assertEqual([older], self.listed(limit=2, marker=marker))

    def test_a_page_reads_the_page_and_one_row_from_each_cell(self):
        for n in range(30):
            self.in_cell((self.cell1, self.cell2)[n % 2], at(n))
        reads = []
        real = objects.InstanceList.get_newest_first

        def counted(context, filters, after=None, limit=None):
            found = real(context, filters, after=after, limit=limit)
            reads.append((context.cell_uuid, limit, len(found)))
            return found
        self.useFixture(fixtures.MockPatchObject(
            objects.InstanceList, 'get_newest_first', counted))
        page = self.listed(limit=5)
        marker_page = self.listed(limit=5, marker=page[-1])
        self.assertEqual(10, len(page + marker_page))
        self.assertEqual(
            sorted([(self.cell0.uuid, 6, 0), (self.cell1.uuid, 6, 6),
                    (self.cell2.uuid, 6, 6)] * 2), sorted(reads))


class TestFilters(ServerListTestCase):

    def test_one_project_or_every_project(self):
        mine = self.in_cell(self.cell1, at(2))
        theirs = self.in_cell(self.cell2, at(1), project_id='other')
        building = self.building(at(3), project_id='other')
        self.assertEqual([mine], self.listed())
        self.assertEqual([building, mine, theirs],
                         self.listed(self.admin, project_id=None))

    def test_host_and_vm_state(self):
        on_host1 = self.in_cell(self.cell1, at(3), host='host1')
        stopped = self.in_cell(self.cell2, at(2), host='host2',
                               vm_state=states.STOPPED)
        self.building(at(4))
        self.assertEqual([on_host1], self.listed(host='host1'))
        self.assertEqual([stopped], self.listed(vm_state=[states.STOPPED]))
        self.assertEqual([], self.listed(host='host1',
                                         vm_state=[states.STOPPED]))

    def test_deleted_servers_only_when_the_context_reads_deleted(self):
        live = self.in_cell(self.cell1, at(2))
        gone = self.in_cell(self.cell1, at(1))
        with nova_context.target_cell(self.admin, self.cell1) as cctxt:
            objects.Instance.get_by_uuid(cctxt, gone).destroy()
        self.assertEqual([live], self.listed())
        reading_deleted = self.demo.elevated(read_deleted='yes')
        self.assertEqual([live, gone], self.listed(reading_deleted))

    def test_the_name_is_a_regular_expression_searched_for(self):
        names = {}
        for n, name in enumerate(('web-1', 'WEB-2', 'db', r'(x)\1', 'xx',
                                  '50%_off')):
            names[self.in_cell((self.cell1, self.cell2)[n % 2], at(n),
                               display_name=name)] = name
        names[self.building(at(9), display_name='web-3')] = 'web-3'

        def named(pattern):
            return [names[uuid] for uuid in self.listed(name=pattern)]
        self.assertEqual(['web-3', 'web-1'], named('web'))
        self.assertEqual(['WEB-2'], named('WEB'))
        self.assertEqual(['web-3', 'WEB-2', 'web-1'], named('(?i)^web-'))
        self.assertEqual([r'(x)\1'], named(r'(x)\1'))
        self.assertEqual(['50%_off'], named('%_'))
        self.assertEqual([], named('_%'))

    def test_tags(self):
        both = self.in_cell(self.cell1, at(4), tags=['red', 'big'])
        red = self.in_cell(self.cell2, at(3), tags=['red'])
        quoted = self.in_cell(self.cell1, at(2), tags=['a"b', 'red'])
        none = self.in_cell(self.cell2, at(1), tags=['reddish'])
        self.assertEqual([both, red, quoted], self.listed(tags=['red']))
        self.assertEqual([both], self.listed(tags=['red', 'big']))
        self.assertEqual([both, quoted],
                         self.listed(**{'tags-any': ['big', 'a"b']}))
        self.assertEqual([red, none],
                         self.listed(**{'not-tags': ['red', 'big'],
                                        'not-tags-any': ['a"b']}))

    def test_the_limit_counts_only_servers_that_pass_every_check(self):
        wanted = [self.in_cell(self.cell1, at(n), display_name='db-%d' % n)
                  for n in range(3)]
        for n in range(120):
            self.in_cell(self.cell1, at(10 + n), display_name='web-%d' % n)
        self.assertEqual(wanted[::-1][:2], self.listed(name='^db', limit=2))
        self.assertEqual(wanted[::-1], self.walked(2, name='^db'))


class TestCells(ServerListTestCase):

    def test_a_cell_that_does_not_answer_is_left_out_with_a_warning(self):
        listed = self.in_cell(self.cell1, at(1))
        nova_fixtures.map_unreachable_cell(self.admin)
        self.assertEqual([listed], self.listed())
        self.assertIn('Skipping cell cell9 in a server list',
                      self.logs.output)

    def test_a_marker_no_answering_cell_has_is_cell_unavailable(self):
        self.in_cell(self.cell1, at(1))
        nova_fixtures.map_unreachable_cell(self.admin)
        self.assertRaises(exception.CellUnavailable, self.listed,
                          marker=uuidutils.generate_uuid())

    def test_only_the_page_is_read_whole_with_its_faults(self):
        failed = self.in_cell(self.cell0, at(3), vm_state=states.ERROR,
                              fault='No valid host was found.')
        older_failure = self.in_cell(self.cell0, at(1),
                                     vm_state=states.ERROR, fault='Gone.')
        in_cell1 = self.in_cell(self.cell1, at(2))
        read = []
        real = objects.InstanceList.get_by_filters

        def recorded(context, filters, **kwargs):
            read.append(set(filters['uuid']))
            return real(context, filters, **kwargs)
        self.useFixture(fixtures.MockPatchObject(
            objects.InstanceList, 'get_by_filters', recorded))
        page = self.api.get_all(self.demo, {'project_id': DEMO}, limit=2)
        self.assertEqual([failed, in_cell1], [i.uuid for i in page])
        self.assertEqual('No valid host was found.', page[0].fault.message)
        self.assertIsNone(page[1].fault)
        self.assertEqual(sorted([{failed}, {in_cell1}]), sorted(read))
        [last] = self.api.get_all(self.demo, {'project_id': DEMO},
                                  limit=1, marker=in_cell1)
        self.assertEqual(older_failure, last.uuid)
        self.assertEqual('Gone.', last.fault.message)

    def test_a_server_deleted_while_its_page_is_read_is_shown_deleted(self):
        uuid = self.in_cell(self.cell1, at(1))
        real = objects.InstanceList.get_by_filters

        def deleted_first(context, filters, **kwargs):
            objects.Instance.get_by_uuid(context, uuid).destroy()
            return real(context, filters, **kwargs)
        self.useFixture(fixtures.MockPatchObject(
            objects.InstanceList, 'get_by_filters', deleted_first))
        [instance] = self.api.get_all(self.demo, {'project_id': DEMO})
        self.assertEqual(states.DELETED, instance.vm_state)


class TestNarrowing(testtools.TestCase):
    """What the cells' databases are told of the checks made after."""

    def narrowed(self, **search_opts):
        return server_list._narrowing(search_opts)

    def test_a_name_without_special_characters_is_contained(self):
        self.assertEqual({'name_contains': 'web-1'},
                         self.narrowed(name=compute_api.name_filter('web-1')))

    def test_a_regular_expression_narrows_nothing(self):
        self.assertEqual({}, self.narrowed(
            name=compute_api.name_filter('^web')))

    def test_a_pattern_re2_refuses_is_the_name_itself(self):
        self.assertEqual({'name_contains': r'(x)\1'}, self.narrowed(
            name=compute_api.name_filter(r'(x)\1')))
