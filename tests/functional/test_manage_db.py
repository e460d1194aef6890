"""``nova-lite-manage db archive_deleted_rows`` and ``db purge`` on a
running control plane (MariaDB, the real daemons): the rows of deleted
servers, in cell1 and in cell0, move to the shadow tables with their
history and leave the API database; the live servers are untouched and go
on working; purging empties the shadow tables."""

import datetime

from tests.functional import base


class TestArchiveAndPurge(base.ControlPlaneTestCase):

    computes = 1

    def boot(self, name, flavor='2', status='ACTIVE'):
        created = self.admin.create_server(name, flavor=flavor,
                                           image=self.plane.image_id)
        return self.admin.wait_for_status(created['server']['id'],
                                          status)['id']

    def delete(self, server_id):
        self.assertEqual(204, self.admin.delete(
            '/servers/%s' % server_id).status_code)
        self.admin.wait_for_gone(server_id)

    def manage(self, *args):
        return self.plane.manage('db', *args, check=False)

    def uuids(self, database, table, where='1'):
        column = 'uuid' if table.endswith('instances') else 'instance_uuid'
        return {row[column] for row in self.plane.query(
            database, 'SELECT %s FROM %s WHERE %s' % (column, table, where))}

    def history(self, database, server_ids, shadow=False):
        """How many action, event and fault rows the servers have."""
        prefix = 'shadow_' if shadow else ''
        marks = ', '.join(['%s'] * len(server_ids))
        actions = self.plane.query(
            database, 'SELECT id FROM %sinstance_actions WHERE '
            'instance_uuid IN (%s)' % (prefix, marks), list(server_ids))
        events = self.plane.query(
            database, 'SELECT e.id FROM %sinstance_actions_events e JOIN '
            '%sinstance_actions a ON e.action_id = a.id WHERE '
            'a.instance_uuid IN (%s)' % (prefix, prefix, marks),
            list(server_ids))
        faults = self.plane.query(
            database, 'SELECT id FROM %sinstance_faults WHERE '
            'instance_uuid IN (%s)' % (prefix, marks), list(server_ids))
        return len(actions), len(events), len(faults)

    def test_deleted_servers_are_archived_then_purged_live_ones_work(self):
        api, cell1, cell0 = self.plane.databases[:3]
        kept = self.boot('kept')
        gone = {self.boot('gone1'), self.boot('gone2')}
        # No host has room for m1.huge: the server is buried in cell0.
        buried = self.boot('buried', flavor='99', status='ERROR')
        for server_id in gone | {buried}:
            self.delete(server_id)
        gone_history = self.history(cell1, gone)
        buried_history = self.history(cell0, {buried})
        # Actions and events, and the fault of the one with no host.
        self.assertTrue(all(gone_history[:2]), gone_history)
        self.assertTrue(all(buried_history), buried_history)

        # Deleted moments ago: not before yesterday.
        yesterday = (datetime.datetime.utcnow() -
                     datetime.timedelta(days=1)).isoformat()
        result = self.manage('archive_deleted_rows', '--all-cells',
                             '--before', yesterday)
        self.assertEqual(0, result.returncode, result.stdout + result.stderr)
        self.assertEqual(gone, self.uuids(cell1, 'instances',
                                          'deleted != 0'))

        result = self.manage('archive_deleted_rows', '--all-cells',
                             '--verbose', '--max_rows', '2',
                             '--until-complete')
        self.assertEqual(1, result.returncode, result.stdout + result.stderr)
        self.assertIn('| cell1.instances ', result.stdout)
        self.assertIn('| cell0.instances ', result.stdout)
        self.assertEqual(set(), self.uuids(cell1, 'instances',
                                           'deleted != 0'))
        self.assertEqual(gone, self.uuids(cell1, 'shadow_instances'))
        self.assertEqual({buried}, self.uuids(cell0, 'shadow_instances'))
        self.assertEqual((0, 0, 0), self.history(cell1, gone))
        self.assertEqual(gone_history,
                         self.history(cell1, gone, shadow=True))
        self.assertEqual((0, 0, 0), self.history(cell0, {buried}))
        self.assertEqual(buried_history,
                         self.history(cell0, {buried}, shadow=True))
        for table in ('instance_mappings', 'request_specs'):
            self.assertEqual({kept}, self.uuids(api, table))

        # The live server is listed and still answers to actions.
        listed = [s['id'] for s in self.admin.get('/servers').json()[
            'servers']]
        self.assertEqual([kept], listed)
        for server_id in gone | {buried}:
            self.assertEqual(404, self.admin.get(
                '/servers/%s' % server_id).status_code)
        self.assertEqual(202, self.admin.post(
            '/servers/%s/action' % kept, {'os-stop': None}).status_code)
        self.admin.wait_for_status(kept, 'SHUTOFF')
        self.assertEqual(202, self.admin.post(
            '/servers/%s/action' % kept, {'os-start': None}).status_code)
        self.admin.wait_for_status(kept, 'ACTIVE')

        result = self.manage('archive_deleted_rows', '--all-cells')
        self.assertEqual(0, result.returncode, result.stdout + result.stderr)
        self.assertIn('Nothing was archived.', result.stdout)

        result = self.manage('purge')
        self.assertEqual(1, result.returncode)
        result = self.manage('purge', '--all-cells', '--before', yesterday)
        self.assertEqual(3, result.returncode, result.stdout + result.stderr)
        self.assertEqual(gone, self.uuids(cell1, 'shadow_instances'))
        result = self.manage('purge', '--all-cells', '--all')
        self.assertEqual(0, result.returncode, result.stdout + result.stderr)
        for database in (cell1, cell0):
            self.assertEqual(set(), self.uuids(database, 'shadow_instances'))
        self.assertEqual((0, 0, 0), self.history(cell1, gone, shadow=True))
        self.assertEqual((0, 0, 0),
                         self.history(cell0, {buried}, shadow=True))
        self.assertEqual(kept, self.admin.server(kept)['id'])
        self.delete(kept)
