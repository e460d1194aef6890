"""Servers per gabbi file, the runs, and what they add up to.

Runs in nova_lite's python. A file's server is started with what the
file's fixture configures in OpenStack Placement's test suite
(``server_conf``), on a database of its own; the gabbi run itself is
``runner`` in the peer virtualenv's python (``tools/placement_peer.py``),
against that server's URL, with this package's HTTP ``fixtures`` making
the data.
"""

import concurrent.futures
import json
import os
import shutil
import subprocess
import tempfile
import threading
import time

import yaml

from tools import placement_peer

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
KNOWN = os.path.join(HERE, 'known_differences.txt')
TARGETS = ('nova-lite', 'openstack')

LEGACY_RBAC = '[oslo_policy]\nenforce_new_defaults = false\n'
SECURE_RBAC = '[oslo_policy]\nenforce_new_defaults = true\n'
CORS = ('[cors]\nallowed_origin = http://valid.example.com\n'
        'allow_headers = openstack-api-version\n')


def server_conf(fixture, open_policy_file):
    """The configuration a fixture of Placement 16's gabbi tests gives the
    placement it runs: APIFixture (and so every fixture) says
    ``[api] auth_strategy = noauth2`` (both servers' configuration has it
    already) and ``[oslo_policy] enforce_new_defaults`` false, save
    SecureRBACPolicyFixture (true); OpenPolicyFixture makes every
    placement rule but admin_api ``@``; CORSFixture sets CORS's allowed
    origin and headers."""
    if fixture == 'SecureRBACPolicyFixture':
        return SECURE_RBAC
    if fixture == 'OpenPolicyFixture':
        return LEGACY_RBAC + 'policy_file = %s\n' % open_policy_file
    if fixture == 'CORSFixture':
        return LEGACY_RBAC + CORS
    return LEGACY_RBAC


def write_open_policy(path):
    """The OpenPolicyFixture's rules, as a policy file: every rule Placement
    16 registers, admin_api left out, is '@' (anyone)."""
    names = json.loads(subprocess.run(
        [placement_peer.python(), '-c',
         'import json; from placement import policies; '
         'print(json.dumps([r.name for r in policies.list_rules()]))'],
        check=True, capture_output=True, text=True).stdout)
    with open(path, 'w') as f:
        for name in names:
            if name != 'admin_api':
                f.write('"%s": "@"\n' % name)
    return path


# -- the files -----------------------------------------------------------


def gabbits_dir():
    placement_peer.ensure_installed()
    return os.path.join(placement_peer.package_dir(),
                        'tests', 'functional', 'gabbits')


def test_id(stem, name):
    """gabbi's name for a test (its class name): the file's stem and the
    test's name lowercased, spaces made underscores."""
    return '%s_%s' % (stem, name.lower().replace(' ', '_'))


def unique_ids(names):
    """Test ids, the second of two alike made ``<id>@2`` (and so on), as
    runner.unique_ids."""
    seen = {}
    ids = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        ids.append(name if seen[name] == 1 else '%s@%d' % (name, seen[name]))
    return ids


class GabbiFile:
    def __init__(self, path):
        self.path = path
        self.stem = os.path.splitext(os.path.basename(path))[0]
        with open(path) as f:
            data = yaml.safe_load(f)
        fixtures = data.get('fixtures') or ['APIFixture']
        self.fixture = fixtures[-1]
        self.ids = unique_ids([test_id(self.stem, test['name'])
                               for test in data['tests']])


def gabbi_files(names=None):
    """Placement 16's gabbi files, all or those named (by stem, with or
    without .yaml)."""
    directory = gabbits_dir()
    stems = sorted(os.path.splitext(name)[0]
                   for name in os.listdir(directory)
                   if name.endswith('.yaml'))
    if names:
        wanted = [os.path.basename(n)[:-5] if n.endswith('.yaml')
                  else os.path.basename(n) for n in names]
        missing = sorted(set(wanted) - set(stems))
        if missing:
            raise SystemExit('no such gabbi file: %s' % ', '.join(missing))
        stems = [stem for stem in stems if stem in wanted]
    return [GabbiFile(os.path.join(directory, stem + '.yaml'))
            for stem in stems]


# -- servers ---------------------------------------------------------------


def _connect():
    import pymysql
    return pymysql.connect(host='127.0.0.1', user='root', password='',
                           autocommit=True)


def clone_database(source, target):
    """A copy of database ``source`` (tables, keys, rows) named
    ``target``: a fresh migrated database in a fraction of a second."""
    connection = _connect()
    try:
        with connection.cursor() as cursor:
            cursor.execute(
                'SELECT DEFAULT_CHARACTER_SET_NAME, DEFAULT_COLLATION_NAME '
                'FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = %s',
                (source,))
            charset, collation = cursor.fetchone()
            cursor.execute('CREATE DATABASE `%s` CHARACTER SET %s COLLATE %s'
                           % (target, charset, collation))
            cursor.execute(
                'SELECT TABLE_NAME, TABLE_TYPE FROM information_schema.TABLES '
                'WHERE TABLE_SCHEMA = %s', (source,))
            tables = cursor.fetchall()
            if any(kind != 'BASE TABLE' for _, kind in tables):
                raise RuntimeError('%s has views: clone_database copies '
                                   'tables only' % source)
            cursor.execute('SET FOREIGN_KEY_CHECKS = 0')
            cursor.execute('USE `%s`' % target)
            for table, _ in tables:
                cursor.execute('SHOW CREATE TABLE `%s`.`%s`'
                               % (source, table))
                cursor.execute(cursor.fetchone()[1])
                cursor.execute('INSERT INTO `%s`.`%s` SELECT * FROM `%s`.`%s`'
                               % (target, table, source, table))
    finally:
        connection.close()


def _drop(database):
    connection = _connect()
    try:
        with connection.cursor() as cursor:
            cursor.execute('DROP DATABASE IF EXISTS `%s`' % database)
    finally:
        connection.close()


def _migrations():
    """What nova_lite's migration scripts are (names and times): when it
    changes during a run (a developer's tree), the copies must too."""
    top = os.path.join(ROOT, 'nova_lite', 'db', 'migrations')
    found = []
    for folder, _, names in os.walk(top):
        for name in names:
            if name.endswith('.py'):
                path = os.path.join(folder, name)
                found.append((path, os.stat(path).st_mtime))
    return sorted(found)


class NovaLite:
    """nova-lite-placement, a daemon per file on copies of databases
    migrated once (``nova-lite-manage api_db sync`` and ``db sync`` take
    ten seconds; a copy, a fraction of one). The copies are migrated again
    when the migration scripts change during the run."""

    name = 'nova-lite'

    def __init__(self):
        from tests.functional import placement_fixtures
        self.template = placement_fixtures.PlacementServer()
        self.lock = threading.Lock()
        self.migrations = None

    def prepare(self):
        with self.lock:
            if self.migrations == _migrations():
                return
            self.migrations = _migrations()
            self.template._write_config()
            self.template.manage('api_db', 'sync')
            self.template.manage('db', 'sync')

    def server(self, extra_conf):
        from tests.functional import fixtures
        from tests.functional import placement_fixtures
        target = self

        class Server(placement_fixtures.PlacementServer):
            def start(self):
                self._write_config()
                target.prepare()
                with target.lock:
                    for source, copy in zip(target.template.databases,
                                            self.databases):
                        clone_database(source, copy)
                self.daemon = fixtures.Daemon(
                    'placement', 'placement', [self.conf],
                    os.path.join(self.workdir, 'placement.log'), self.env)
                self.daemon.start()
                self.wait_until_up()

        return Server(extra_conf=extra_conf)

    def cleanup(self):
        for name in self.template.databases:
            _drop(name)
        shutil.rmtree(self.template.workdir, ignore_errors=True)


class OpenStack:
    """OpenStack Placement 16 (``placement_peer.Server``), one per file."""

    name = 'openstack'

    def prepare(self):
        placement_peer.ensure_installed()

    def server(self, extra_conf):
        return placement_peer.Server(extra_conf=extra_conf)

    def cleanup(self):
        pass


def make_target(name):
    return {'nova-lite': NovaLite, 'openstack': OpenStack}[name]()


# -- running ---------------------------------------------------------------


def _all_failed(gabbi_file, reason):
    return [{'id': i, 'status': 'fail', 'reason': reason}
            for i in gabbi_file.ids]


def _tail(text, lines=3):
    return ' | '.join(line for line in text.strip().splitlines()[-lines:])


def run_file(target, gabbi_file, open_policy_file, logs=None, timeout=600):
    """One file against a fresh server: its tests' outcomes. The server's
    log is copied to ``logs``/<file stem>.log when ``logs`` is a folder."""
    server = target.server(server_conf(gabbi_file.fixture, open_policy_file))
    try:
        try:
            server.start()
        except Exception as exc:
            return _all_failed(gabbi_file, 'server did not start: %s' % (
                _tail(str(exc), 2)[:300]))
        try:
            result = subprocess.run(
                [placement_peer.python(), '-m', 'tools.placement_gabbi.runner',
                 server.url, gabbi_file.path],
                cwd=ROOT, env=dict(os.environ, PYTHONPATH=ROOT),
                capture_output=True, text=True, timeout=timeout)
            tests = json.loads(result.stdout)['tests']
        except subprocess.TimeoutExpired:
            return _all_failed(gabbi_file, 'timed out (%ds)' % timeout)
        except ValueError:
            return _all_failed(gabbi_file, 'runner failed: %s' % (
                _tail(result.stderr)[:300]))
        return tests
    finally:
        server.stop()
        log = os.path.join(server.workdir, 'placement.log')
        if logs and os.path.exists(log):
            shutil.copy(log, os.path.join(logs, gabbi_file.stem + '.log'))
        shutil.rmtree(server.workdir, ignore_errors=True)


def run(target_name='nova-lite', names=None, workers=2, progress=None,
        logs=None):
    """Run the gabbi files (all, or those named) against fresh servers of
    the target, ``workers`` at a time. Returns a ``Report``. ``logs``: a
    folder for each file's server log."""
    files = gabbi_files(names)
    target = make_target(target_name)
    started = time.monotonic()
    workdir = tempfile.mkdtemp(prefix='placement-gabbi-')
    if logs:
        os.makedirs(logs, exist_ok=True)
    results = {}
    lock = threading.Lock()
    try:
        target.prepare()
        open_policy = write_open_policy(os.path.join(workdir, 'open.yaml'))

        def one(gabbi_file):
            tests = run_file(target, gabbi_file, open_policy, logs)
            with lock:
                results[gabbi_file.stem] = tests
                if progress:
                    progress(gabbi_file.stem, tests)

        # The longest files first, so that the last ones are short.
        order = sorted(files, key=lambda f: -len(f.ids))
        with concurrent.futures.ThreadPoolExecutor(workers) as pool:
            for future in [pool.submit(one, f) for f in order]:
                future.result()
    finally:
        target.cleanup()
        shutil.rmtree(workdir, ignore_errors=True)
    return Report(target_name, files, results,
                  time.monotonic() - started)


# -- known differences ---------------------------------------------------


def load_known(path=KNOWN):
    """{test id: reason} from the known-differences file: one test a line,
    its id, white space, its reason; # comments and blank lines aside."""
    known = {}
    if not os.path.exists(path):
        return known
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith('#'):
                continue
            test, _, reason = line.partition(' ')
            known[test] = reason.strip()
    return known


PREAMBLE = """\
# Gabbi tests of OpenStack Placement 16 that nova-lite-placement fails,
# and why: one test a line, its id (tools/placement_gabbi: <file
# stem>_<name lowercased, spaces as _>), white space, the reason; grouped
# by reason under a comment with the count.
# tests/functional/test_placement_gabbi.py fails for a failure not
# listed here and for a listed test that passes: take its line out
# (python -m tools.placement_gabbi --prune-known does).
"""


def write_known(known, path=KNOWN):
    """The known-differences file from {test id: reason}: grouped by
    reason, the largest groups first, tests in the order given."""
    groups = {}
    for test, reason in known.items():
        groups.setdefault(reason, []).append(test)
    out = [PREAMBLE]
    for reason, tests in sorted(groups.items(),
                                key=lambda item: (-len(item[1]), item[0])):
        out.append('# %s (%d)' % (reason, len(tests)))
        out += ['%s %s' % (test, reason) for test in tests]
        out.append('')
    with open(path, 'w') as f:
        f.write('\n'.join(out))


def prune_known(passing, path=KNOWN):
    """Take the lines of these tests out of the known-differences file."""
    write_known({test: reason for test, reason in load_known(path).items()
                 if test not in passing}, path)


class Report:
    def __init__(self, target, files, results, seconds):
        self.target = target
        self.files = files
        self.results = results
        self.seconds = seconds
        self.known = load_known() if target == 'nova-lite' else {}

    def tests(self):
        for gabbi_file in self.files:
            for test in self.results.get(gabbi_file.stem, []):
                yield gabbi_file.stem, test

    def count(self, status, stem=None):
        return sum(1 for s, t in self.tests()
                   if t['status'] == status and stem in (None, s))

    @property
    def percent(self):
        ran = self.count('pass') + self.count('fail')
        return 100.0 * self.count('pass') / ran if ran else 0.0

    def failures(self):
        return [(stem, t) for stem, t in self.tests() if t['status'] == 'fail']

    def unexpected(self):
        """Failures the known-differences list does not name."""
        return [(stem, t) for stem, t in self.failures()
                if t['id'] not in self.known]

    def fixed(self):
        """Tests the list names that ran and did not fail."""
        return sorted(t['id'] for _, t in self.tests()
                      if t['id'] in self.known and t['status'] == 'pass')

    def unknown_ids(self):
        """Ids in the list that no test of the files run has (only
        meaningful when every file ran)."""
        ids = {t['id'] for _, t in self.tests()}
        return sorted(set(self.known) - ids)

    @property
    def ok(self):
        if self.target != 'nova-lite':
            return not self.failures()
        return not self.unexpected() and not self.fixed()

    def as_dict(self):
        files = {}
        for gabbi_file in self.files:
            stem = gabbi_file.stem
            files[stem] = {
                'fixture': gabbi_file.fixture,
                'passed': self.count('pass', stem),
                'failed': self.count('fail', stem),
                'skipped': self.count('skip', stem),
                'tests': self.results.get(stem, [])}
        return {'target': self.target, 'seconds': round(self.seconds, 1),
                'passed': self.count('pass'), 'failed': self.count('fail'),
                'skipped': self.count('skip'),
                'percent': round(self.percent, 2),
                'unexpected_failures': [t['id'] for _, t in self.unexpected()],
                'listed_but_passing': self.fixed(), 'files': files}

    def area(self, stem, test):
        """What a failure is about: its known-differences reason, or (not
        listed) its file."""
        if test['id'] in self.known:
            return self.known[test['id']]
        return 'NOT LISTED: %s' % stem

    def table(self):
        """Each file's passed/run, and the total."""
        out = []
        width = max([len(f.stem) for f in self.files] + [5])
        for gabbi_file in self.files:
            stem = gabbi_file.stem
            passed, failed = self.count('pass', stem), self.count('fail', stem)
            skipped = self.count('skip', stem)
            out.append('%-*s %4d/%-4d%s%s' % (
                width, stem, passed, passed + failed,
                '  %d failed' % failed if failed else '',
                '  %d skipped' % skipped if skipped else ''))
        out.append('%-*s %4d/%-4d %.2f%% pass (%d failed, %d skipped); '
                   'target %s, %.0fs' % (
                       width, 'TOTAL', self.count('pass'),
                       self.count('pass') + self.count('fail'), self.percent,
                       self.count('fail'), self.count('skip'), self.target,
                       self.seconds))
        return '\n'.join(out)

    def summary(self, verbose=True):
        """The table, then (verbose) the failures by area, then what the
        known-differences list does not account for."""
        out = [self.table()]
        if verbose and self.failures():
            out.append('')
            out.append(self.failures_by_area())
        unexpected = self.unexpected() if self.target == 'nova-lite' else []
        if unexpected:
            out.append('Failures not in %s: %d%s' % (
                os.path.relpath(KNOWN, ROOT), len(unexpected),
                ' (the NOT LISTED areas above)' if verbose else ''))
            if not verbose:
                out += ['  %s: %s' % (t['id'], t['reason'])
                        for _, t in unexpected]
        if self.fixed():
            out.append('Listed in %s but passing now (take them out: '
                       '--prune-known) (%d):' % (
                           os.path.relpath(KNOWN, ROOT), len(self.fixed())))
            out += ['  ' + test for test in self.fixed()]
        return '\n'.join(out)

    def failures_by_area(self):
        areas = {}
        for stem, test in self.failures():
            areas.setdefault(self.area(stem, test), []).append(test)
        out = ['Failures by area (%d failed of %d run, target %s):' % (
            self.count('fail'), self.count('pass') + self.count('fail'),
            self.target)]
        for area, tests in sorted(areas.items(),
                                  key=lambda item: (-len(item[1]), item[0])):
            out.append('')
            out.append('== %s (%d)' % (area, len(tests)))
            out += ['  %s: %s' % (t['id'], t['reason']) for t in tests]
        return '\n'.join(out)
