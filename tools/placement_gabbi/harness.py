"""Servers per gabbi file, the runs, and what they add up to.

Runs in nova_lite's python. A file's server is started with what the
file's fixture configures in OpenStack Placement's test suite
(``server_conf``), on a database of its own; the gabbi run itself is
``runner`` in the peer virtualenv's python (``tools/placement_peer.py``),
against that server's URL, with this package's HTTP ``fixtures`` making
the data.

Where the time goes (``--timings``): the tests themselves take little; a
python started for every file (a server's, a runner's) took most of it,
and still would. So a worker keeps one runner for all its files
(``Runner``), nova-lite-placement daemons are forked from one python that
imported them (``forkserver``), the database copies are made ahead by
threads of their own (``NovaLite.make_copies``), a worker starts its next
file's server while the current file runs, and servers are stopped on the
side. Each file still gets a fresh daemon, with its fixture's
configuration, on fresh copies of the migrated databases.
"""

import collections
import concurrent.futures
import json
import os
import queue
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid

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


def _end(process, timeout):
    """End a helper process that reads commands on stdin: its stdin
    closed, then killed if it has not exited within ``timeout``."""
    if process.poll() is None:
        try:
            process.stdin.close()
        except OSError:
            pass
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    process.stdout.close()


class Forks:
    """A ``forkserver`` process: nova-lite-placement daemons forked from
    one python that imported them, instead of a python each."""

    def __init__(self, env):
        self.lock = threading.Lock()
        self.process = subprocess.Popen(
            [sys.executable, '-m', 'tools.placement_gabbi.forkserver'],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
            env=env, cwd=ROOT)

    def ask(self, *words):
        with self.lock:
            if self.process.poll() is not None:
                raise RuntimeError('the forkserver exited (%s)'
                                   % self.process.returncode)
            self.process.stdin.write(' '.join(map(str, words)) + '\n')
            self.process.stdin.flush()
            answer = self.process.stdout.readline().strip()
        if not answer or answer.startswith('error'):
            raise RuntimeError('forkserver %s: %s' % (words[0], answer or
                                                      'no answer'))
        return answer

    def close(self):
        """The forkserver ends (SIGKILL for any daemon still running)."""
        _end(self.process, 30)


class ForkedDaemon:
    """``tests.functional.fixtures.Daemon``'s part that PlacementServer
    uses, for a daemon a ``Forks`` forked."""

    def __init__(self, forks, config_file, log_path):
        self.forks = forks
        self.config_file = config_file
        self.log_path = log_path
        self.pid = None
        self.status = None

    def start(self):
        self.pid = int(self.forks.ask('start', self.config_file,
                                      self.log_path))

    def _poll(self):
        if self.status is None and self.pid is not None:
            answer = self.forks.ask('poll', self.pid)
            if answer != 'running':
                self.status = int(answer.split()[1])
        return self.status

    @property
    def running(self):
        return self.pid is not None and self._poll() is None

    def stop(self, sig=signal.SIGTERM, timeout=20):
        if not self.running:
            return
        self.forks.ask('kill', self.pid, int(sig))
        deadline = time.monotonic() + timeout
        while self._poll() is None:
            if time.monotonic() > deadline:
                self.forks.ask('kill', self.pid, int(signal.SIGKILL))
                deadline = float('inf')
            time.sleep(0.02)

    def log(self):
        with open(self.log_path, errors='replace') as f:
            return f.read()


class NovaLite:
    """nova-lite-placement, a daemon per file on copies of databases
    migrated once (``nova-lite-manage api_db sync`` and ``db sync`` take
    ten seconds; a copy, a fraction of one). The copies are migrated again
    when the migration scripts change during the run. The daemons are
    forked by a ``forkserver`` (started again, for the daemons to come,
    when the migrations change).

    ``make_copies(n)``: a thread makes the copies for n servers, a few
    ahead of the servers that take them (MariaDB creates a table in a few
    milliseconds of waiting on the disk: the copies of a file's two
    databases take a fifth of a second or more, better spent while other
    files run)."""

    name = 'nova-lite'
    AHEAD = 3

    def __init__(self):
        from tests.functional import placement_fixtures
        self.template = placement_fixtures.PlacementServer()
        self.lock = threading.Lock()
        self.migrations = None
        self.forks = []
        self.copies = queue.Queue(self.AHEAD)
        self.copiers = []
        self.closing = threading.Event()

    def prepare(self):
        """The template databases migrated (again if the migrations
        changed): which migrations they have."""
        with self.lock:
            if self.migrations != _migrations():
                self.migrations = _migrations()
                self.template._write_config()
                self.template.manage('api_db', 'sync')
                self.template.manage('db', 'sync')
                self.forks.append(Forks(self.template.env))
            return self.migrations

    def _copy(self):
        """Copies of the template's databases, under new names: (the
        migrations they have, [names]). Copies made while the template is
        migrated again have the old migrations' mark (and are dropped)."""
        migrations = self.prepare()
        suffix = uuid.uuid4().hex[:10]
        names = ['nl_pl_%s_api' % suffix, 'nl_pl_%s_cell' % suffix]
        for source, copy in zip(self.template.databases, names):
            clone_database(source, copy)
        return migrations, names

    def make_copies(self, count, threads=2):
        """Copies for ``count`` servers, by ``threads`` threads (MariaDB
        makes two sets of tables at once in less time than one after the
        other)."""
        shares = [count // threads + (i < count % threads)
                  for i in range(threads)]
        self.copiers = [threading.Thread(
            target=self._copier, args=(share,), daemon=True,
            name='database-copies') for share in shares]
        for copier in self.copiers:
            copier.start()

    def _copier(self, count):
        for _ in range(count):
            try:
                copy = self._copy()
            except Exception as exc:
                copy = exc
            while not self.closing.is_set():
                try:
                    self.copies.put(copy, timeout=0.2)
                    break
                except queue.Full:
                    pass
            else:
                if not isinstance(copy, Exception):
                    for name in copy[1]:
                        _drop(name)
                return

    def databases(self):
        """Names of fresh copies of the migrated databases (made by the
        ``make_copies`` thread if it runs and they are up to date)."""
        current = self.prepare()
        while self.copiers:
            try:
                copy = self.copies.get(timeout=0.5)
            except queue.Empty:
                if any(copier.is_alive() for copier in self.copiers):
                    continue
                break
            if isinstance(copy, Exception):
                raise copy
            migrations, names = copy
            if migrations == current:
                return names
            for name in names:
                _drop(name)
        return self._copy()[1]

    def server(self, extra_conf):
        from tests.functional import placement_fixtures
        target = self

        class Server(placement_fixtures.PlacementServer):
            def start(self):
                started = time.monotonic()
                self.databases = target.databases()
                self._write_config()
                self.timings = {'clone': time.monotonic() - started}
                self.daemon = ForkedDaemon(
                    target.forks[-1], self.conf,
                    os.path.join(self.workdir, 'placement.log'))
                self.daemon.start()
                # A file's wait for its server is on the critical path.
                self.wait_until_up(interval=0.02)
                self.timings['up'] = (time.monotonic() - started
                                      - self.timings['clone'])

        return Server(extra_conf=extra_conf)

    def cleanup(self):
        self.closing.set()
        for copier in self.copiers:
            copier.join()
        while not self.copies.empty():
            copy = self.copies.get()
            if not isinstance(copy, Exception):
                for name in copy[1]:
                    _drop(name)
        for forks in self.forks:
            forks.close()
        for name in self.template.databases:
            _drop(name)
        shutil.rmtree(self.template.workdir, ignore_errors=True)


class OpenStack:
    """OpenStack Placement 16 (``placement_peer.Server``), one per file."""

    name = 'openstack'

    def prepare(self):
        placement_peer.ensure_installed()

    def make_copies(self, count):
        pass

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


class Runner:
    """``runner --serve`` in the peer virtualenv's python: gabbi imported
    once, then one file after another (a worker's). Started again after a
    file that broke or outlasted its time."""

    def __init__(self, workdir):
        self.stderr = tempfile.NamedTemporaryFile(
            'w+', dir=workdir, prefix='runner-', suffix='.err')
        self.process = None

    def start(self):
        self.process = subprocess.Popen(
            [placement_peer.python(), '-m', 'tools.placement_gabbi.runner',
             '--serve'], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=self.stderr, cwd=ROOT, text=True,
            env=dict(os.environ, PYTHONPATH=ROOT))

    def _errors(self, since):
        self.stderr.seek(since)
        text = self.stderr.read()
        self.stderr.seek(0, os.SEEK_END)
        return text

    def run(self, gabbi_file, url, timeout=600):
        """The file's tests' outcomes, run against ``url``."""
        if self.process is not None and self.process.poll() is not None:
            self.close()
        if self.process is None:
            self.start()
        since = self.stderr.seek(0, os.SEEK_END)
        try:
            self.process.stdin.write('%s %s\n' % (url, gabbi_file.path))
            self.process.stdin.flush()
        except OSError:
            self.close()
            return _all_failed(gabbi_file, 'runner failed: %s' % (
                _tail(self._errors(since))[:300]))
        ready, _, _ = select.select([self.process.stdout], [], [], timeout)
        if not ready:
            self.process.kill()
            self.close()
            return _all_failed(gabbi_file, 'timed out (%ds)' % timeout)
        line = self.process.stdout.readline()
        try:
            result = json.loads(line)
        except ValueError:
            self.close()
            return _all_failed(gabbi_file, 'runner failed: %s' % (
                _tail(self._errors(since))[:300]))
        if 'error' in result:
            return _all_failed(gabbi_file, 'runner failed: %s' % (
                _tail(result['error'])[:300]))
        return result['tests']

    def close(self):
        if self.process is not None:
            _end(self.process, 10)
            self.process = None


def start_server(target, gabbi_file, open_policy_file):
    """A fresh server of the target configured for the file: (server,
    None), or (server, why it did not start)."""
    server = target.server(server_conf(gabbi_file.fixture, open_policy_file))
    started = time.monotonic()
    try:
        server.start()
    except Exception as exc:
        return server, 'server did not start: %s' % (
            _tail(str(exc), 2)[:300])
    finally:
        server.timings = dict(getattr(server, 'timings', {}),
                              start=time.monotonic() - started)
    return server, None


def stop_server(server, gabbi_file, logs=None):
    """The server stopped, its database dropped, its log copied to
    ``logs``/<file stem>.log when ``logs`` is a folder. Returns the
    seconds it took."""
    started = time.monotonic()
    try:
        server.stop()
    finally:
        log = os.path.join(server.workdir, 'placement.log')
        if logs and os.path.exists(log):
            shutil.copy(log, os.path.join(logs, gabbi_file.stem + '.log'))
        shutil.rmtree(server.workdir, ignore_errors=True)
    return time.monotonic() - started


def run(target_name='nova-lite', names=None, workers=2, progress=None,
        logs=None, ahead=1):
    """Run the gabbi files (all, or those named) against fresh servers of
    the target, ``workers`` at a time. Returns a ``Report``. ``logs``: a
    folder for each file's server log.

    Each worker has a runner of its own (``Runner``), and starts the
    server of its next file while the current one runs; a server is
    stopped (and its database dropped) on the side, while the worker goes
    on with its next file. ``ahead``: servers a worker starts ahead (two
    or three workers, one or two ahead, measured on two cores: two
    workers and one ahead were the quickest)."""
    files = gabbi_files(names)
    target = make_target(target_name)
    started = time.monotonic()
    workdir = tempfile.mkdtemp(prefix='placement-gabbi-')
    if logs:
        os.makedirs(logs, exist_ok=True)
    results = {}
    timings = {}
    lock = threading.Lock()
    # The longest files first, so that the last ones are short.
    waiting = sorted(files, key=lambda f: -len(f.ids))

    def next_file():
        with lock:
            return waiting.pop(0) if waiting else None

    try:
        target.prepare()
        target.make_copies(len(files))
        open_policy = write_open_policy(os.path.join(workdir, 'open.yaml'))
        # Stopping takes a daemon a second or so, of waiting mostly.
        stopper = concurrent.futures.ThreadPoolExecutor(
            2 * workers, thread_name_prefix='stop')
        stops = []

        def stop(server, gabbi_file):
            def body():
                seconds = stop_server(server, gabbi_file, logs)
                with lock:
                    timings.setdefault(gabbi_file.stem, {})['stop'] = seconds
            with lock:
                stops.append(stopper.submit(body))

        def worker():
            runner = Runner(workdir)
            # Its python starts while the first server does.
            runner.start()
            pending = collections.deque()
            with concurrent.futures.ThreadPoolExecutor(ahead) as starter:
                try:
                    while True:
                        while len(pending) <= ahead:
                            following = next_file()
                            if following is None:
                                break
                            pending.append((following, starter.submit(
                                start_server, target, following,
                                open_policy)))
                        if not pending:
                            break
                        gabbi_file, starting = pending.popleft()
                        waited = time.monotonic()
                        server, error = starting.result()
                        ran = time.monotonic()
                        timings[gabbi_file.stem] = dict(
                            server.timings, wait=ran - waited)
                        try:
                            tests = (_all_failed(gabbi_file, error) if error
                                     else runner.run(gabbi_file, server.url))
                        finally:
                            timings[gabbi_file.stem]['run'] = (
                                time.monotonic() - ran)
                            stop(server, gabbi_file)
                        with lock:
                            results[gabbi_file.stem] = tests
                            if progress:
                                progress(gabbi_file.stem, tests)
                finally:
                    runner.close()
                    for gabbi_file, starting in pending:
                        stop(starting.result()[0], gabbi_file)

        try:
            with concurrent.futures.ThreadPoolExecutor(workers) as pool:
                for future in [pool.submit(worker) for _ in range(workers)]:
                    future.result()
        finally:
            stopper.shutdown(wait=True)
        for future in stops:
            future.result()
    finally:
        target.cleanup()
        shutil.rmtree(workdir, ignore_errors=True)
    return Report(target_name, files, results,
                  time.monotonic() - started, timings)


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
    def __init__(self, target, files, results, seconds, timings=None):
        self.target = target
        self.files = files
        self.results = results
        self.seconds = seconds
        # {file stem: {phase: seconds}}: start (clone and up for
        # nova-lite), wait (for the server, by the worker), run, stop.
        self.timings = timings or {}
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

    def timing_table(self):
        """Each file's seconds by phase, and their sums."""
        phases = ['start', 'clone', 'up', 'wait', 'run', 'stop']
        phases = [p for p in phases
                  if any(p in t for t in self.timings.values())]
        width = max([len(f.stem) for f in self.files] + [5])
        out = ['%-*s %5s ' % (width, 'file', 'tests') +
               ' '.join('%6s' % p for p in phases)]
        for gabbi_file in self.files:
            times = self.timings.get(gabbi_file.stem, {})
            out.append('%-*s %5d ' % (width, gabbi_file.stem,
                                      len(gabbi_file.ids)) +
                       ' '.join('%6.2f' % times.get(p, 0) for p in phases))
        out.append('%-*s %5d ' % (width, 'SUM', sum(
            len(f.ids) for f in self.files)) + ' '.join(
            '%6.1f' % sum(t.get(p, 0) for t in self.timings.values())
            for p in phases))
        return '\n'.join(out)

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
