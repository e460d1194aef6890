"""``nova-lite-manage db archive_deleted_rows`` and ``db purge`` against
real SQLite API, cell0 and cell1 databases: what they print and their
exit status, which are nova-manage's (archive: 0 nothing archived, 1 rows
archived, 2 bad --max_rows, 3 no API database, 4 bad --before; purge: 0
rows deleted, 1 neither --before nor --all, 2 bad --before, 3 nothing
deleted, 4 a cell could not be reached)."""

import datetime
import os
import subprocess
import sys

from nova_lite.cmd import manage
from tests.unit import fixtures as nova_fixtures
from tests.unit import test_db_archive
from tests.unit import test_manage

NOW = test_db_archive.NOW
SERVERS = test_db_archive.SERVERS
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def archive_options(**options):
    values = dict(max_rows=1000, before=None, until_complete=False,
                  all_cells=False, purge=False, verbose=False)
    values.update(options)
    return values


def purge_options(**options):
    values = dict(before=None, purge_all=False, all_cells=False,
                  verbose=False)
    values.update(options)
    return values


class DbCommandTestCase(test_manage.ManageTestCase):

    def setUp(self):
        super().setUp()
        self.cell = self.useFixture(test_db_archive.CellRows(self.databases))

    def archive(self, **options):
        return self.manage(manage.db_archive_deleted_rows,
                           **archive_options(**options))

    def purge(self, **options):
        return self.manage(manage.db_purge, **purge_options(**options))

    def deleted_and_live_servers(self, cell=None):
        gone = self.cell.server(deleted_at=NOW, cell=cell)
        self.cell.newest_server(cell=cell)
        return gone


class TestArchiveDeletedRows(DbCommandTestCase):

    def test_exits_1_when_rows_were_archived_then_0_when_none_are_left(self):
        self.deleted_and_live_servers()
        self.assertEqual(1, self.archive())
        self.assertEqual(0, self.archive())
        self.assertEqual('Archived 4 row(s).\nNothing was archived.\n',
                         self.stdout.getvalue())
        self.assertEqual('', self.stderr.getvalue())

    def test_a_full_batch_says_more_may_remain(self):
        self.deleted_and_live_servers()
        self.assertEqual(1, self.archive(max_rows=2))
        self.assertEqual('Archived 2 row(s); more may remain: run the '
                         'command again, or with --until-complete.\n',
                         self.stdout.getvalue())

    def test_until_complete_archives_everything_in_one_run(self):
        self.deleted_and_live_servers()
        self.deleted_and_live_servers()
        self.assertEqual(1, self.archive(max_rows=1, until_complete=True))
        self.assertEqual('Archived 8 row(s).\n', self.stdout.getvalue())
        self.assertEqual(0, self.archive())

    def test_verbose_prints_the_rows_archived_per_table(self):
        self.deleted_and_live_servers()
        self.archive(verbose=True)
        self.assertEqual(
            '+-------------------------------+-------------------------+\n'
            '| Table                         | Number of Rows Archived |\n'
            '+-------------------------------+-------------------------+\n'
            '| instance_actions_events       | 1                       |\n'
            '| instance_actions              | 1                       |\n'
            '| instance_faults               | 1                       |\n'
            '| instances                     | 1                       |\n'
            '| API_DB.instance_group_members | 1                       |\n'
            '| API_DB.instance_mappings      | 1                       |\n'
            '| API_DB.request_specs          | 1                       |\n'
            '+-------------------------------+-------------------------+\n'
            'Archived 4 row(s).\n', self.stdout.getvalue())

    def test_before_leaves_what_was_deleted_later(self):
        self.cell.server(deleted_at=NOW - 2 * test_db_archive.DAYS_AGO)
        recent = self.cell.server(deleted_at=NOW)
        self.cell.newest_server()
        self.assertEqual(1, self.archive(
            before=(NOW - test_db_archive.DAYS_AGO).isoformat()))
        self.assertEqual(1, len(self.cell.of_server(recent)['instances']))

    def test_max_rows_below_1_is_refused_with_status_2(self):
        self.deleted_and_live_servers()
        self.assertEqual(2, self.archive(max_rows=0))
        self.assertEqual('--max_rows must be 1 or more, not 0.\n',
                         self.stderr.getvalue())
        self.assertEqual(2, len(self.cell.rows(SERVERS)))

    def test_a_before_that_is_no_date_is_refused_with_status_4(self):
        self.deleted_and_live_servers()
        self.assertEqual(4, self.archive(before='last tuesday'))
        self.assertIn('--before takes a date such as 2024-05-31',
                      self.stderr.getvalue())
        self.assertEqual(2, len(self.cell.rows(SERVERS)))

    def test_without_an_api_database_it_exits_3_and_archives_nothing(self):
        self.deleted_and_live_servers()
        self.config.config(connection=nova_fixtures.UNREACHABLE_DB,
                           group='api_database')
        self.assertEqual(3, self.archive())
        self.assertIn('Archiving deletes the API database rows of the '
                      'servers it archives, so [api_database] connection '
                      'must answer.', self.stderr.getvalue())
        self.assertEqual(2, len(self.cell.rows(SERVERS)))

    def test_all_cells_archives_cell0_too(self):
        self.deleted_and_live_servers()
        in_cell0 = self.deleted_and_live_servers(cell=self.databases.cell0)
        self.assertEqual(1, self.archive(all_cells=True, verbose=True))
        output = self.stdout.getvalue()
        self.assertIn('| cell0.instances ', output)
        self.assertIn('| cell1.instances ', output)
        self.assertIn('| API_DB.instance_mappings      | 2 ', output)
        self.assertEqual([], self.cell.of_server(
            in_cell0, url=self.databases.cell0_url)['instances'])

    def test_purge_then_empties_the_shadow_tables(self):
        self.deleted_and_live_servers()
        self.assertEqual(1, self.archive(purge=True))
        self.assertEqual('Archived 4 row(s).\nDeleted 4 row(s) from the '
                         'shadow tables.\n', self.stdout.getvalue())
        self.assertEqual([], self.cell.rows(SERVERS, shadow=True))

    def test_a_row_already_in_its_shadow_table_exits_255(self):
        gone = self.deleted_and_live_servers()
        fault = self.cell.of_server(gone)['instance_faults'][0]
        with self.cell.cell() as connection:
            connection.execute(test_db_archive.models.SHADOW[
                'instance_faults'].insert().values(fault))
        self.assertEqual(255, self.archive())
        self.assertIn('ERROR: A row of instance_faults is already in '
                      'shadow_instance_faults', self.stderr.getvalue())


class TestArchiveWithADownCell(DbCommandTestCase):

    def setUp(self):
        super().setUp()
        nova_fixtures.map_unreachable_cell(self.context)

    def test_the_other_cells_are_archived_and_it_exits_1(self):
        self.deleted_and_live_servers()
        self.assertEqual(1, self.archive(all_cells=True))
        self.assertEqual('Archived 4 row(s).\n', self.stdout.getvalue())
        self.assertDownCellReported('its deleted rows were not archived')

    def test_nothing_archived_still_exits_1(self):
        self.assertEqual(1, self.archive(all_cells=True))
        self.assertDownCellReported('its deleted rows were not archived')


class TestPurge(DbCommandTestCase):

    def archived(self):
        self.cell.server(deleted_at=NOW - 2 * test_db_archive.DAYS_AGO)
        self.cell.server(deleted_at=NOW)
        self.cell.newest_server()
        self.archive()
        self.stdout.truncate(0)
        self.stdout.seek(0)

    def test_neither_before_nor_all_is_refused_with_status_1(self):
        self.archived()
        self.assertEqual(1, self.purge())
        self.assertEqual('Say which shadow rows to delete: --before DATE '
                         '(those of rows deleted before DATE) or --all '
                         '(every one), not neither.\n',
                         self.stderr.getvalue())
        self.assertEqual(2, len(self.cell.rows(SERVERS, shadow=True)))

    def test_both_before_and_all_are_refused_with_status_1(self):
        self.archived()
        self.assertEqual(1, self.purge(purge_all=True, before='2020-01-01'))
        self.assertEqual(2, len(self.cell.rows(SERVERS, shadow=True)))

    def test_a_before_that_is_no_date_is_refused_with_status_2(self):
        self.archived()
        self.assertEqual(2, self.purge(before='2024-13-45'))
        self.assertEqual(2, len(self.cell.rows(SERVERS, shadow=True)))

    def test_all_deletes_every_shadow_row_and_exits_0(self):
        self.archived()
        self.assertEqual(0, self.purge(purge_all=True))
        self.assertEqual('Deleted 8 row(s) from the shadow tables.\n',
                         self.stdout.getvalue())
        self.assertEqual([], self.cell.rows(SERVERS, shadow=True))

    def test_before_deletes_what_was_deleted_earlier(self):
        self.archived()
        self.assertEqual(0, self.purge(
            before=(NOW - test_db_archive.DAYS_AGO).isoformat(),
            verbose=True))
        self.assertIn('| shadow_instances ', self.stdout.getvalue())
        self.assertEqual([NOW], [r['deleted_at'] for r in self.cell.rows(
            SERVERS, shadow=True)])

    def test_nothing_to_delete_exits_3(self):
        self.assertEqual(3, self.purge(purge_all=True))
        self.assertEqual('Nothing was purged.\n', self.stdout.getvalue())

    def test_all_cells_purges_cell0_too(self):
        self.deleted_and_live_servers(cell=self.databases.cell0)
        self.archive(all_cells=True)
        self.assertEqual(0, self.purge(purge_all=True, all_cells=True))
        self.assertEqual([], self.cell.rows(
            SERVERS, shadow=True, url=self.databases.cell0_url))

    def test_a_down_cell_is_reported_the_others_purged_and_it_exits_4(self):
        self.archived()
        nova_fixtures.map_unreachable_cell(self.context)
        self.assertEqual(4, self.purge(purge_all=True, all_cells=True))
        self.assertEqual([], self.cell.rows(SERVERS, shadow=True))
        self.assertDownCellReported('its shadow tables were not purged')


class TestBeforeDates(DbCommandTestCase):

    def test_a_date_is_midnight_utc(self):
        self.assertEqual(datetime.datetime(2024, 5, 31),
                         manage._parse_before('2024-05-31'))

    def test_an_offset_is_turned_into_utc(self):
        self.assertEqual(datetime.datetime(2024, 5, 31, 10, 0),
                         manage._parse_before('2024-05-31T12:00+02:00'))

    def test_words_are_no_date(self):
        self.assertIsNone(manage._parse_before('yesterday'))


class TestTheCommandLine(DbCommandTestCase):
    """The real argument parser, in a process of its own."""

    def run_manage(self, *args):
        conf = os.path.join(self.useFixture(
            test_db_archive.fixtures.TempDir()).path, 'nova-lite.conf')
        with open(conf, 'w') as f:
            f.write('[api_database]\nconnection = %s\n[database]\n'
                    'connection = %s\n' % (self.databases.api_url,
                                           self.databases.cell1_url))
        return subprocess.run(
            [sys.executable, '-m', 'nova_lite.cmd.manage', '--config-file',
             conf] + list(args), capture_output=True, text=True,
            env=dict(os.environ, PYTHONPATH=ROOT), cwd=ROOT, timeout=60)

    def test_archive_and_purge_run_with_their_options(self):
        self.deleted_and_live_servers()
        result = self.run_manage('db', 'archive_deleted_rows', '--max_rows',
                                 '10', '--until-complete', '--verbose',
                                 '--before', '2999-01-01')
        self.assertEqual(1, result.returncode, result.stderr)
        self.assertIn('Archived 4 row(s).', result.stdout)
        result = self.run_manage('db', 'purge')
        self.assertEqual(1, result.returncode)
        self.assertIn('--before DATE', result.stderr)
        result = self.run_manage('db', 'purge', '--all', '--verbose')
        self.assertEqual(0, result.returncode, result.stderr)
        self.assertIn('| shadow_instances ', result.stdout)

    def test_max_rows_that_is_no_number_exits_2(self):
        result = self.run_manage('db', 'archive_deleted_rows', '--max_rows',
                                 'many')
        self.assertEqual(2, result.returncode)
        self.assertIn("invalid int value: 'many'", result.stderr)
