"""The round trips a transaction costs on MariaDB itself: a pooled
connection used a moment ago is not pinged again, nor rolled back after
its commit; one idle for a second is pinged (``db.api``). Counted by the
server, on the connection the pool hands out (one thread, one
connection)."""

import json
import os
import subprocess
import sys
import tempfile
import uuid

import testtools

from tests.functional import fixtures

SCRIPT = r'''
import json, sys, time
from nova_lite.cmd import common
common.setup(sys.argv[1:])
from nova_lite.db import api as db
url = db.CONF.database.connection


def status():
    with db.connection(url) as conn:
        return {name: int(value) for name, value in conn.exec_driver_sql(
            "SHOW SESSION STATUS WHERE Variable_name IN "
            "('Com_rollback', 'Com_admin_commands', 'Com_commit')").all()}


first = status()
for _ in range(20):
    with db.connection(url) as conn:
        conn.exec_driver_sql('SELECT 1')
busy = status()
time.sleep(db.PING_AFTER_IDLE + 0.5)
idle = status()
print(json.dumps([first, busy, idle]))
'''


class TestRoundTripsOfATransaction(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.database = 'nl_ft_%s_rt' % uuid.uuid4().hex[:10]
        fixtures._mysql('CREATE DATABASE `%s`' % self.database)
        self.addCleanup(fixtures._mysql,
                        'DROP DATABASE `%s`' % self.database)
        handle, self.conf = tempfile.mkstemp(suffix='.conf')
        self.addCleanup(os.unlink, self.conf)
        with os.fdopen(handle, 'w') as f:
            f.write('[DEFAULT]\ntransport_url = fake://\n[database]\n'
                    'connection = mysql+pymysql://root:@127.0.0.1:3306/%s'
                    '?charset=utf8mb4\n' % self.database)

    def test_a_busy_connection_is_neither_pinged_nor_rolled_back(self):
        result = subprocess.run(
            [sys.executable, '-c', SCRIPT, '--config-file', self.conf],
            capture_output=True, text=True, cwd=fixtures.ROOT,
            env=dict(os.environ, PYTHONPATH=fixtures.ROOT), timeout=60)
        self.assertEqual(0, result.returncode, result.stderr)
        first, busy, idle = json.loads(
            result.stdout.splitlines()[-1])
        # Twenty-one transactions (the reading one included) committed,
        # on the same connection: no ping and no rollback among them.
        self.assertEqual(21, busy['Com_commit'] - first['Com_commit'])
        self.assertEqual(first['Com_admin_commands'],
                         busy['Com_admin_commands'])
        self.assertEqual(first['Com_rollback'], busy['Com_rollback'])
        # After a second idle, the next checkout pinged it once.
        self.assertEqual(1, idle['Com_admin_commands'] -
                         busy['Com_admin_commands'])
        self.assertEqual(busy['Com_rollback'], idle['Com_rollback'])
