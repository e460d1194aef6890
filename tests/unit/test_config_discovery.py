"""Which config a command reads without --config-file (oslo.config's
search for the project nova-lite), what a configuration error says about
it, and the config nova-lite-all writes for nova-lite-manage."""

import configparser
import io
import os
import subprocess
import sys

import fixtures
from oslo_config import cfg
import testtools

from nova_lite.cmd import all as all_cmd
from nova_lite import conf as nova_conf
from nova_lite import config
from tests.unit import fixtures as nova_fixtures

CONF = nova_conf.CONF
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
# nova-lite-manage as its console script runs it: oslo.config takes the
# program's name (and so the name of its own config file) from argv[0].
MANAGE = ('import sys; sys.argv[0] = "nova-lite-manage"; '
          'from nova_lite.cmd import manage; manage.main()')
MACHINE_CONFIGS = ('/etc/nova-lite/nova-lite.conf', '/etc/nova-lite.conf',
                   '/etc/nova-lite/nova-lite-manage.conf',
                   '/etc/nova-lite-manage.conf')


class TestManageFindsItsConfig(testtools.TestCase):
    """nova-lite-manage run as an operator would, in a process of its own
    with a home directory of the test's."""

    def setUp(self):
        super().setUp()
        self.home = self.useFixture(fixtures.TempDir()).path

    def manage(self, *args):
        env = dict(os.environ, HOME=self.home, PYTHONPATH=ROOT)
        for name in ('SNAP', 'SNAP_COMMON'):
            env.pop(name, None)
        return subprocess.run([sys.executable, '-c', MANAGE] + list(args),
                              capture_output=True, text=True, env=env,
                              cwd=self.home, timeout=60)

    def write(self, path, text):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'w') as f:
            f.write(text)
        return path

    def skip_if_the_machine_has_a_config(self):
        found = [path for path in MACHINE_CONFIGS if os.path.exists(path)]
        if found:
            self.skipTest('this machine has %s, which nova-lite-manage '
                          'reads' % ', '.join(found))

    def test_without_config_file_the_project_config_found_is_read(self):
        self.skip_if_the_machine_has_a_config()
        database = os.path.join(self.home, 'cell.sqlite')
        self.write(os.path.join(self.home, '.nova-lite', 'nova-lite.conf'),
                   '[database]\nconnection = sqlite:///%s\n' % database)
        result = self.manage('db', 'sync')
        self.assertEqual(0, result.returncode, result.stderr)
        self.assertTrue(os.path.exists(database))

    def test_without_any_config_the_error_says_where_it_looked(self):
        self.skip_if_the_machine_has_a_config()
        result = self.manage('db', 'version')
        self.assertEqual(1, result.returncode)
        self.assertEqual(
            'ERROR: Configuration error: no database connection is '
            'configured\nNo config file was read: none was named with '
            '--config-file, and there is no nova-lite.conf or '
            'nova-lite-manage.conf in ~/.nova-lite/, ~/, /etc/nova-lite/ '
            'or /etc/. Put the deployment\'s config at '
            '/etc/nova-lite/nova-lite.conf, or run nova-lite-manage '
            '--config-file PATH ...\n', result.stderr)

    def test_with_a_config_file_the_error_names_the_files_read(self):
        conf = self.write(os.path.join(self.home, 'compute.conf'),
                          '[DEFAULT]\nhost = compute2\n')
        result = self.manage('--config-file', conf, 'db', 'version')
        self.assertEqual(1, result.returncode)
        self.assertIn('Config files read: %s. Name another with '
                      '--config-file PATH.' % conf, result.stderr)


class TestTheSearchTheErrorDescribes(testtools.TestCase):

    def test_the_directories_named_are_those_oslo_config_searches(self):
        for name in ('SNAP', 'SNAP_COMMON'):
            self.useFixture(fixtures.EnvironmentVariable(name))
        asked = []

        def exists(path):
            asked.append(path)
            return False
        self.useFixture(fixtures.MonkeyPatch('os.path.exists', exists))
        cfg.find_config_files(project=config.PROJECT,
                              prog='nova-lite-manage')
        self.assertEqual(
            sorted({os.path.expanduser(d).rstrip('/') or '/'
                    for d in config.SEARCHED_DIRECTORIES}),
            sorted({os.path.dirname(path) for path in asked}))


class TestNovaLiteAllWritesTheManageConfig(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.config = self.useFixture(nova_fixtures.Config())
        self.state = self.useFixture(fixtures.TempDir()).path
        self.stdout = self.useFixture(fixtures.MonkeyPatch(
            'sys.stdout', io.StringIO())).new_value

    def test_the_file_holds_the_databases_and_auth_it_runs_with(self):
        self.config.config(connection='sqlite:///api.sqlite',
                           group='api_database')
        self.config.config(connection='sqlite:///cell1.sqlite',
                           group='database')
        all_cmd._write_manage_config(self.state)
        written = configparser.ConfigParser(interpolation=None)
        written.read(os.path.join(self.state, 'nova-lite-manage.conf'))
        self.assertEqual(
            {'api': {'auth_strategy': 'noauth2'},
             'api_database': {'connection': 'sqlite:///api.sqlite'},
             'database': {'connection': 'sqlite:///cell1.sqlite'}},
            {section: dict(written[section])
             for section in written.sections()})

    def test_it_prints_the_command_line_with_its_own_config_files(self):
        self.config.config(connection='sqlite:///api.sqlite',
                           group='api_database')
        self.config.config(connection='sqlite:///cell1.sqlite',
                           group='database')
        own = os.path.join(self.state, 'embedded.conf')
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.cmd.all.CONF', _WithConfigFiles([own])))
        all_cmd._write_manage_config(self.state)
        self.assertEqual(
            'Operator commands for this control plane:\n'
            '  nova-lite-manage --config-file %s --config-file %s audit\n'
            % (own, os.path.join(self.state, 'nova-lite-manage.conf')),
            self.stdout.getvalue())


class _WithConfigFiles:
    """CONF as a process started with ``--config-file`` for each of
    ``files`` sees it."""

    def __init__(self, files):
        self.config_file = files

    def __getattr__(self, name):
        return getattr(CONF, name)

    def __getitem__(self, group):
        return CONF[group]
