"""What ``pip install .`` and the tools read: the declared dependencies,
the pins CI installs, the entry points, and a clean linter."""

import configparser
import os
import re
import subprocess
import sys

from packaging import requirements as pkg_requirements
from packaging import version as pkg_version
import testtools

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def _lines(name):
    with open(os.path.join(ROOT, name)) as f:
        return [line.strip() for line in f
                if line.strip() and not line.lstrip().startswith('#')]


def _setup_cfg():
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(os.path.join(ROOT, 'setup.cfg'))
    return parser


def _multiline(value):
    return [line.strip() for line in value.splitlines() if line.strip()]


def _key(name):
    return re.sub(r'[-_.]+', '-', name).lower()


class TestDependencies(testtools.TestCase):

    def test_install_requires_is_requirements_txt(self):
        self.assertEqual(
            _lines('requirements.txt'),
            _multiline(_setup_cfg()['options']['install_requires']))

    def test_every_requirement_is_a_floor(self):
        for line in _lines('requirements.txt') + _lines(
                'test-requirements.txt'):
            requirement = pkg_requirements.Requirement(line)
            self.assertEqual(['>='], [s.operator for s in
                                      requirement.specifier], line)

    def test_every_requirement_is_pinned_at_or_above_its_floor(self):
        pins = {}
        for line in _lines('constraints.txt'):
            name, _, pinned = line.partition('==')
            self.assertTrue(pinned, 'not a pin: %s' % line)
            pins[_key(name)] = pkg_version.Version(pinned)
        for line in _lines('requirements.txt') + _lines(
                'test-requirements.txt'):
            requirement = pkg_requirements.Requirement(line)
            pinned = pins.get(_key(requirement.name))
            self.assertIsNotNone(pinned, '%s is not in constraints.txt'
                                 % requirement.name)
            self.assertIn(pinned, requirement.specifier, line)

    def test_python_requires_matches_what_the_pins_need(self):
        self.assertEqual('>=3.11',
                         _setup_cfg()['options']['python_requires'])


class TestEntryPoints(testtools.TestCase):

    def entry_points(self, group):
        return _multiline(_setup_cfg()['options.entry_points'][group])

    def test_the_policy_tools_find_the_enforcer(self):
        self.assertEqual(['nova_lite = nova_lite.policy:get_enforcer'],
                         self.entry_points('oslo.policy.enforcer'))

    def test_every_console_script_names_a_main_that_exists(self):
        import importlib
        for line in self.entry_points('console_scripts'):
            script, _, target = (part.strip() for part in
                                 line.partition('='))
            module, _, function = target.partition(':')
            self.assertTrue(callable(getattr(
                importlib.import_module(module), function, None)), script)


class TestLinter(testtools.TestCase):

    def test_flake8_is_clean(self):
        # tox -e pep8 runs the same, with tox.ini's [flake8] settings.
        result = subprocess.run([sys.executable, '-m', 'flake8'], cwd=ROOT,
                                stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)
        self.assertEqual((0, ''), (result.returncode, result.stdout))
