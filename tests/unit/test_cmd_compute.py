"""nova-lite-compute needs no database credentials and uses none.

It starts from a config with no [database] or [api_database] at all (what
the functional tests and quickstart write for computes). A config that has
connections (one machine whose daemons all read one nova-lite.conf) is
warned about and ignored, and any direct database use in the process
raises DBNotAllowed.
"""

import functools
import http.server
import json
import logging
import os
import threading

import fixtures
import testtools

from nova_lite.cmd import compute as compute_cmd
from nova_lite import conf as nova_conf
from nova_lite.conf import database as database_conf
from nova_lite import config
from nova_lite.db import api as db_api
from nova_lite import exception
from nova_lite.objects import base as objects_base
from nova_lite import rpc
from nova_lite import service
from tests.unit import fixtures as nova_fixtures

CONF = nova_conf.CONF

# What a compute needs besides its host: a broker, placement and the
# port service (none of them answers).
PEERS_CONF = """
[DEFAULT]
transport_url = fake:/
[placement]
auth_type = noauth2
endpoint_override = http://127.0.0.1:9
[network]
auth_type = noauth2
endpoint_override = http://127.0.0.1:9
"""

COMPUTE_CONF = PEERS_CONF + """
[DEFAULT]
host = compute9
"""

WITH_DATABASE = COMPUTE_CONF + """
[database]
connection = mysql+pymysql://nova:SECRET@db.example/nova_cell1
[api_database]
connection = mysql+pymysql://nova:SECRET@db.example/nova_api
"""


class CommandTestCase(testtools.TestCase):
    """A daemon's ``main()`` run up to ``service.serve``, which records
    what it would have served (``self.served``) and returns."""

    def setUp(self):
        super().setUp()
        # The daemon registers oslo.log's command-line options, which
        # cannot be added once the Config fixture has parsed CONF.
        CONF.reset()
        config._set_log_defaults()
        self.useFixture(nova_fixtures.Config())
        self.log = self.useFixture(fixtures.FakeLogger(level=logging.INFO))
        self.directory = self.useFixture(fixtures.TempDir()).path
        # oslo.log's setup would replace the captured root logger.
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.cmd.common.config.parse_args',
            functools.partial(config.parse_args, configure_logging=False)))
        self.served = []
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.service.serve', lambda *s: self.served.extend(s)))
        self.addCleanup(rpc.cleanup)
        self.addCleanup(setattr, objects_base.NovaLiteObject,
                        'indirection_api', None)
        self.addCleanup(db_api.block_access, None)

    def run_main(self, main, command, text):
        """``main()`` of ``command`` with the config ``text``; what it
        served."""
        path = os.path.join(self.directory, command + '.conf')
        with open(path, 'w') as f:
            f.write(text)
        self.useFixture(fixtures.MonkeyPatch(
            'sys.argv', [command, '--config-file', path]))
        main()
        return self.served


class TestComputeHoldsNoDatabaseCredentials(CommandTestCase):

    def _start(self, text):
        [compute] = self.run_main(compute_cmd.main, 'nova-lite-compute',
                                  text)
        return compute

    def test_no_database_option_is_required(self):
        for group, opts in database_conf.list_opts().items():
            for opt in opts:
                self.assertFalse(opt.required, '[%s] %s' % (group.name,
                                                            opt.name))

    def test_starts_from_a_config_without_database_sections(self):
        compute = self._start(COMPUTE_CONF)
        self.assertIsInstance(compute, service.Service)
        self.assertEqual('compute.compute9', compute.topic)
        self.assertIsNone(CONF.database.connection)
        self.assertIsNone(CONF.api_database.connection)
        self.assertIsNotNone(objects_base.NovaLiteObject.indirection_api)
        self.assertNotIn('database connection strings', self.log.output)

    def test_database_connections_in_its_config_are_warned_and_dropped(self):
        self._start(WITH_DATABASE)
        self.assertIn('This compute has database connection strings in its '
                      'configuration; computes never use them',
                      self.log.output)
        self.assertNotIn('SECRET', self.log.output)
        self.assertIsNone(CONF.database.connection)
        self.assertIsNone(CONF.api_database.connection)

    def test_direct_database_access_raises(self):
        self._start(COMPUTE_CONF)
        for use in (lambda: db_api.cell_session(None).__enter__(),
                    lambda: db_api.api_session().__enter__(),
                    lambda: db_api.get_engine('sqlite://')):
            error = self.assertRaises(exception.DBNotAllowed, use)
            self.assertIn('nova-lite-compute holds no database credentials',
                          error.message)
            self.assertIn('test_cmd_compute.py', error.message)
        self.assertIn('Direct database access attempted in '
                      'nova-lite-compute', self.log.output)

    def test_a_configuration_error_is_one_line_and_exit_status_2(self):
        # What a compute with a broken option prints: no traceback.
        stderr = self.useFixture(fixtures.StringStream('stderr')).stream
        self.useFixture(fixtures.MonkeyPatch('sys.stderr', stderr))
        error = self.assertRaises(SystemExit, self._start,
                                  COMPUTE_CONF + '[network]\n'
                                  'bandwidths = nonsense\n')
        self.assertEqual(2, error.code)
        stderr.seek(0)
        output = stderr.read()
        self.assertTrue(output.startswith('ERROR: '), output)
        self.assertNotIn('Traceback', output)


class _OldPlacement(http.server.BaseHTTPRequestHandler):
    """Answers every GET with the version document of a Placement that
    offers microversions up to 1.30 (older than root_required)."""

    def do_GET(self):
        body = json.dumps({'versions': [{
            'id': 'v1.0', 'min_version': '1.0', 'max_version': '1.30',
            'status': 'CURRENT', 'links': []}]}).encode()
        self.send_response(200)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


class TestPlacementTooOld(CommandTestCase):

    def test_the_compute_stops_with_one_line_and_serves_nothing(self):
        server = http.server.ThreadingHTTPServer(('127.0.0.1', 0),
                                                 _OldPlacement)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        self.addCleanup(server.server_close)
        self.addCleanup(server.shutdown)
        stderr = self.useFixture(fixtures.StringStream('stderr')).stream
        self.useFixture(fixtures.MonkeyPatch('sys.stderr', stderr))
        conf = COMPUTE_CONF.replace(
            '[placement]\nauth_type = noauth2\n'
            'endpoint_override = http://127.0.0.1:9',
            '[placement]\nauth_type = noauth2\n'
            'endpoint_override = http://127.0.0.1:%d' % server.server_port)
        error = self.assertRaises(SystemExit, self.run_main,
                                  compute_cmd.main, 'nova-lite-compute', conf)
        self.assertEqual(2, error.code)
        self.assertEqual([], self.served)
        stderr.seek(0)
        [line] = stderr.read().splitlines()
        # The file that names that Placement is named too.
        self.assertEqual(
            'ERROR: The Placement service at http://127.0.0.1:%d offers '
            'microversions up to 1.30; nova_lite needs 1.35 or later '
            '(Placement 3.0.0, Ussuri, or any release since). Config files '
            'read: %s/nova-lite-compute.conf. Name another with '
            '--config-file PATH.' % (server.server_port, self.directory),
            line)
