"""``pip install .`` in a new virtualenv, alone, gives working console
scripts and the oslo tools' entry points: what a deployer who installs
from the source tree gets."""

import os
import shutil
import subprocess
import sys
import tempfile

import testtools

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
SCRIPTS = ('nova-lite-api', 'nova-lite-conductor', 'nova-lite-scheduler',
           'nova-lite-compute', 'nova-lite-placement', 'nova-lite-network',
           'nova-lite-manage', 'nova-lite-all')


class TestPipInstall(testtools.TestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.venv = tempfile.mkdtemp(prefix='nova-lite-pip-')
        try:
            subprocess.run([sys.executable, '-m', 'venv', cls.venv],
                           check=True)
            # A copy: a build in the checkout would leave build/ there.
            source = os.path.join(cls.venv, 'source')
            shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
                '.venv', '.tox', '.git', '.stestr', '.peers', 'build',
                '*.egg-info', '__pycache__'))
            cls.install = subprocess.run(
                [cls.bin('pip'), 'install', '--disable-pip-version-check',
                 '--no-input', source],
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                text=True)
        except BaseException:
            shutil.rmtree(cls.venv, ignore_errors=True)
            raise

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.venv, ignore_errors=True)
        super().tearDownClass()

    @classmethod
    def bin(cls, name):
        return os.path.join(cls.venv, 'bin', name)

    def run_installed(self, *argv):
        return subprocess.run([self.bin(argv[0])] + list(argv[1:]),
                              stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True,
                              cwd=self.venv, timeout=120)

    def setUp(self):
        super().setUp()
        self.assertEqual(0, self.install.returncode,
                         self.install.stdout[-3000:])

    def test_every_console_script_runs(self):
        for script in SCRIPTS:
            result = self.run_installed(script, '--help')
            self.assertEqual(0, result.returncode,
                             '%s --help:\n%s' % (script,
                                                 result.stdout[-2000:]))
            self.assertIn('usage:', result.stdout)

    def test_the_policy_generator_finds_the_rules(self):
        result = self.run_installed('oslopolicy-policy-generator',
                                    '--namespace', 'nova_lite')
        self.assertEqual(0, result.returncode, result.stdout[-2000:])
        self.assertIn('"os_compute_api:servers:create"', result.stdout)

    def test_the_config_generator_finds_the_options(self):
        result = self.run_installed('oslo-config-generator',
                                    '--namespace', 'nova_lite')
        self.assertEqual(0, result.returncode, result.stdout[-2000:])
        self.assertIn('[api]', result.stdout)

    def test_the_schema_migrations_are_installed(self):
        result = self.run_installed(
            'python', '-c', 'import glob, os, nova_lite.db.migrations as m; '
            'print(len(glob.glob(os.path.join(os.path.dirname(m.__file__),'
            ' "*", "versions", "*.py"))))')
        self.assertEqual(0, result.returncode, result.stdout)
        self.assertGreater(int(result.stdout.strip()), 0)
