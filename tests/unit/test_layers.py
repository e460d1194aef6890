"""nova_lite's layers point only down (issue 17).

From the bottom: the neutral modules (objects, db, rpc, ``manager``,
``concurrency``, ``lifecycle``, ``placement_client``, ...), then the daemon
packages (api, compute, conductor, network, scheduler) and ``service``
which runs them, then the console scripts in ``cmd``. Every module of
``nova_lite/`` is read with ``ast`` (imports inside functions count too)
and each of its imports of ``nova_lite.*`` is held to these rules:

- a module under ``compute/`` reaches the conductor only through its RPC
  client, ``nova_lite.conductor.rpcapi``;
- only ``cmd/`` imports ``nova_lite.cmd``;
- no ``manager.py`` imports ``nova_lite.service`` (the service runs the
  manager, not the other way round);
- ``lifecycle``, ``placement_client``, ``servicegroup`` and ``cells``
  import no daemon package. The one exception: ``lifecycle`` uses the
  instance vocabulary ``compute.states`` and
  ``compute.instance_actions``, which therefore must import no daemon
  package themselves.
"""

import ast
import os

import testtools

import nova_lite

DAEMON_PACKAGES = ('nova_lite.api', 'nova_lite.compute', 'nova_lite.conductor',
                   'nova_lite.network', 'nova_lite.scheduler')
# What lifecycle may borrow from compute: leaves, checked to stay leaves.
INSTANCE_VOCABULARY = ('nova_lite.compute.states',
                       'nova_lite.compute.instance_actions')


def _within(name, package):
    return name == package or name.startswith(package + '.')


def _within_any(name, packages):
    return any(_within(name, package) for package in packages)


def _is_manager(module):
    return module.rsplit('.', 1)[-1] == 'manager'


# (rule, applies to the importing module, forbids the imported name)
RULES = (
    ('compute reaches the conductor only through nova_lite.conductor.rpcapi',
     lambda module: _within(module, 'nova_lite.compute'),
     lambda name: (_within(name, 'nova_lite.conductor') and
                   not _within(name, 'nova_lite.conductor.rpcapi'))),
    ('only nova_lite.cmd imports nova_lite.cmd',
     lambda module: not _within(module, 'nova_lite.cmd'),
     lambda name: _within(name, 'nova_lite.cmd')),
    ('a manager does not import the service that runs it',
     _is_manager,
     lambda name: _within(name, 'nova_lite.service')),
    ('lifecycle imports no daemon package but the instance vocabulary '
     '(compute.states, compute.instance_actions)',
     lambda module: module == 'nova_lite.lifecycle',
     lambda name: (_within_any(name, DAEMON_PACKAGES) and
                   not _within_any(name, INSTANCE_VOCABULARY))),
    ('placement_client imports no daemon package',
     lambda module: module == 'nova_lite.placement_client',
     lambda name: _within_any(name, DAEMON_PACKAGES)),
    ('servicegroup, which every daemon asks whether a compute is up, '
     'imports no daemon package',
     lambda module: module == 'nova_lite.servicegroup',
     lambda name: _within_any(name, DAEMON_PACKAGES)),
    ('cells, which runs a query in every cell for any daemon, imports no '
     'daemon package',
     lambda module: module == 'nova_lite.cells',
     lambda name: _within_any(name, DAEMON_PACKAGES)),
    ('flow, the shape of every flow, imports nothing of nova_lite',
     lambda module: module == 'nova_lite.flow',
     lambda name: True),
    ('the instance vocabulary lifecycle uses imports no daemon package',
     lambda module: module in INSTANCE_VOCABULARY,
     lambda name: _within_any(name, DAEMON_PACKAGES)),
)


def imported_names(module, source, is_package=False):
    """Each name of nova_lite.* that ``source`` (module ``module``)
    imports, with its line: ``import a.b`` gives a.b, ``from a import b``
    gives a.b (b may be a module), relative imports are resolved."""
    package = module if is_package else module.rpartition('.')[0]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ''
            if node.level:
                parent = package.split('.')
                parent = parent[:len(parent) - (node.level - 1)]
                base = '.'.join(parent + ([base] if base else []))
            for alias in node.names:
                if alias.name == '*':
                    yield base, node.lineno
                else:
                    yield '%s.%s' % (base, alias.name), node.lineno


def violations(module, source, is_package=False):
    """One line per import of ``module`` that breaks a rule."""
    found = []
    for name, line in imported_names(module, source, is_package):
        if not _within(name, 'nova_lite'):
            continue
        for rule, applies, forbids in RULES:
            if applies(module) and forbids(name):
                found.append('%s line %d imports %s: %s'
                             % (module, line, name, rule))
    return found


def nova_lite_modules():
    """(module name, source, is_package) of every module of nova_lite."""
    root = os.path.dirname(nova_lite.__file__)
    for directory, _, files in os.walk(root):
        for filename in sorted(files):
            if not filename.endswith('.py'):
                continue
            path = os.path.join(directory, filename)
            parts = os.path.relpath(path, os.path.dirname(root))[:-3].split(
                os.sep)
            is_package = parts[-1] == '__init__'
            if is_package:
                parts = parts[:-1]
            with open(path, encoding='utf-8') as f:
                yield '.'.join(parts), f.read(), is_package


class TestLayers(testtools.TestCase):

    def test_no_module_imports_against_the_layers(self):
        found = []
        for module, source, is_package in nova_lite_modules():
            found.extend(violations(module, source, is_package))
        self.assertEqual([], found, '\n'.join(found))

    def test_every_module_is_read(self):
        modules = {module for module, _, _ in nova_lite_modules()}
        for expected in ('nova_lite.cmd', 'nova_lite.compute.manager',
                         'nova_lite.conductor.tasks.build',
                         'nova_lite.lifecycle', 'nova_lite.placement_client',
                         'nova_lite.servicegroup', 'nova_lite.cells',
                         'nova_lite.flow', 'nova_lite.service'):
            self.assertIn(expected, modules)


class TestTheCheckerCatches(testtools.TestCase):
    """The rules find each form of a forbidden import."""

    def assertViolates(self, module, source, rule_words, is_package=False):
        found = violations(module, source, is_package)
        self.assertEqual(1, len(found), found)
        self.assertIn(rule_words, found[0])

    def test_from_nova_lite_import_cmd_in_a_function_is_caught(self):
        self.assertViolates('nova_lite.service',
                            'def f():\n    from nova_lite import cmd\n',
                            'only nova_lite.cmd imports nova_lite.cmd')

    def test_import_of_a_cmd_module_is_caught(self):
        self.assertViolates('nova_lite.rpc', 'import nova_lite.cmd.common\n',
                            'only nova_lite.cmd imports nova_lite.cmd')

    def test_cmd_may_import_itself(self):
        self.assertEqual([], violations(
            'nova_lite.cmd.compute', 'from nova_lite.cmd import common\n'))

    def test_compute_importing_a_conductor_task_is_caught(self):
        self.assertViolates(
            'nova_lite.compute.manager',
            'from nova_lite.conductor.tasks import build as build_task\n',
            'nova_lite.conductor.rpcapi')

    def test_relative_import_of_the_conductor_package_is_caught(self):
        self.assertViolates('nova_lite.compute.api',
                            'from .. import conductor\n',
                            'nova_lite.conductor.rpcapi')

    def test_compute_may_use_the_conductor_rpc_client(self):
        self.assertEqual([], violations(
            'nova_lite.compute.manager',
            'from nova_lite.conductor import rpcapi as conductor_rpcapi\n'))

    def test_manager_importing_the_service_is_caught(self):
        self.assertViolates('nova_lite.scheduler.manager',
                            'from nova_lite import service\n',
                            'does not import the service')

    def test_lifecycle_importing_a_daemon_package_is_caught(self):
        self.assertViolates('nova_lite.lifecycle',
                            'from nova_lite.conductor import leases\n',
                            'lifecycle imports no daemon package')

    def test_lifecycle_may_use_the_instance_vocabulary(self):
        self.assertEqual([], violations(
            'nova_lite.lifecycle',
            'from nova_lite.compute import states\n'
            'from nova_lite.compute import instance_actions\n'))

    def test_placement_client_importing_the_scheduler_is_caught(self):
        self.assertViolates('nova_lite.placement_client',
                            'import nova_lite.scheduler.utils\n',
                            'placement_client imports no daemon package')
