"""What this compute process is doing, per instance: a lock each (one
operation at a time on a server), how many operations are queued or
running for it (the look for interrupted tasks and the allocation heal
leave those alone), and the live migrations an admin asked to abort while
they run here. The manager and its flows share one ``InstanceWork``; one
guard covers all of it.
"""

import collections
import contextlib
import threading


class InstanceWork:

    def __init__(self):
        self._guard = threading.Lock()
        self._locks = {}
        # Instances this process has work for (queued or running): the
        # look for interrupted tasks leaves them alone.
        self._in_flight = collections.Counter()
        # Ids of migrations an admin asked to abort while they run here.
        self._aborted_migrations = set()

    def lock(self, uuid):
        with self._guard:
            return self._locks.setdefault(uuid, threading.Lock())

    def forget_lock(self, uuid):
        with self._guard:
            self._locks.pop(uuid, None)

    def begin(self, uuid):
        with self._guard:
            self._in_flight[uuid] += 1

    def end(self, uuid):
        with self._guard:
            self._in_flight[uuid] -= 1
            if self._in_flight[uuid] <= 0:
                del self._in_flight[uuid]

    @contextlib.contextmanager
    def working_on(self, uuid):
        self.begin(uuid)
        try:
            yield
        finally:
            self.end(uuid)

    def is_worked_on(self, uuid):
        with self._guard:
            return self._in_flight[uuid] > 0

    @contextlib.contextmanager
    def idle(self, uuid):
        """Hold ``uuid``'s lock if nothing of this process works on the
        instance; entered as whether it could."""
        lock = self.lock(uuid)
        if not lock.acquire(blocking=False):
            yield False
            return
        try:
            yield not self.is_worked_on(uuid)
        finally:
            lock.release()

    def abort_migration(self, migration_id):
        with self._guard:
            self._aborted_migrations.add(migration_id)

    def migration_aborted(self, migration_id):
        with self._guard:
            return migration_id in self._aborted_migrations

    def forget_abort(self, migration_id):
        with self._guard:
            self._aborted_migrations.discard(migration_id)
