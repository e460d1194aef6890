"""What a daemon has done since it started, counted.

Two kinds of work are counted in every process, because they are what a
boot costs beyond Python: the RPC messages it received (``rpc.cast.<method>``
and ``rpc.call.<method>``, a conductor's object methods as
``rpc.call.object_action.Instance.save``) and the statements and commits it
sent to its databases (``db.statements``, ``db.commits``).

``kill -USR2 <pid>`` makes a daemon run by ``service.serve()`` log them on
one line (``Counters: {json}``); ``tools/bench/boot_bench.py`` reads that
line from every daemon before and after its boots, and prints the
difference per boot. Counting is a dictionary increment under a lock: it is
always on.
"""

import collections
import itertools
import json
import os
import threading

_COUNTS = collections.Counter()
_LOCK = threading.Lock()

# The line a daemon logs on SIGUSR2; what follows it is JSON.
LOG_PREFIX = 'Counters: '

# For a profile, not for a deployment: with this environment variable set
# to 1, each statement is counted by its text too (``sql.<its first
# STATEMENT_PREFIX characters>``), which is how boot_bench --by-statement
# tells which statements a boot sends.
BY_STATEMENT = os.environ.get('NOVA_LITE_COUNT_BY_STATEMENT') == '1'
STATEMENT_PREFIX = 100


def add(name, amount=1):
    with _LOCK:
        _COUNTS[name] += amount


def snapshot():
    """The counts so far, as a plain dict."""
    with _LOCK:
        return dict(_COUNTS)


def render():
    """The line ``report()`` logs."""
    return LOG_PREFIX + json.dumps(snapshot(), sort_keys=True)


def parse(line):
    """The counts in a line ``render()`` made (anything may precede it),
    or None when the line holds none."""
    at = line.find(LOG_PREFIX)
    if at < 0:
        return None
    try:
        counts = json.loads(line[at + len(LOG_PREFIX):])
    except ValueError:
        return None
    return counts if isinstance(counts, dict) else None


# Where a daemon that traces its memory allocations (started with
# PYTHONTRACEMALLOC=<frames>, as tools/bench/soak.py does) writes a
# tracemalloc snapshot on each SIGUSR2: <dir>/<binary>-<pid>-<n>.snapshot.
SNAPSHOT_DIR_ENV = 'NOVA_LITE_MEMORY_SNAPSHOTS'
_snapshots = itertools.count(1)


def dump_memory_snapshot(binary):
    """Write a tracemalloc snapshot, if this process traces its memory
    and was told where; the path written, or None."""
    import tracemalloc
    directory = os.environ.get(SNAPSHOT_DIR_ENV)
    if not directory or not tracemalloc.is_tracing():
        return None
    path = os.path.join(directory, '%s-%d-%d.snapshot' % (
        binary, os.getpid(), next(_snapshots)))
    tracemalloc.take_snapshot().dump(path + '.part')
    # Whole or not at all, for a reader polling the directory.
    os.rename(path + '.part', path)
    return path


def count_statements(engine):
    """An ``on_engine_create`` hook: count ``engine``'s statements and
    commits."""
    import sqlalchemy as sa

    @sa.event.listens_for(engine, 'before_cursor_execute')
    def _statement(conn, cursor, statement, parameters, context,
                   executemany):
        add('db.statements')
        if BY_STATEMENT:
            add('sql.' + ' '.join(statement.split())[:STATEMENT_PREFIX])

    @sa.event.listens_for(engine, 'commit')
    def _commit(conn):
        add('db.commits')
