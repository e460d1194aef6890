"""The moves a conductor works on, kept alive while it does.

A move of an existing server (evacuation, unshelve, live migration)
belongs to the conductor whose cast started it. If that conductor dies,
the move is undone once it has made no progress for the interrupted-task
timeout: an evacuation or an unshelve by another conductor
(``recover.InterruptedMoves``, ``[conductor] interrupted_task_timeout``),
a live migration by its source compute
(``compute.flows.interrupted.recover_live_migrations``, ``[compute]
interrupted_task_timeout``). No progress means the record's
``updated_at`` -- the move's migration, the moving server -- has not
moved for that long. Both are written and judged by the database's
clock (``Migration.end_if_stale``, ``Instance.end_task_if_stale``), so
the machines involved need not agree on the time.

A live conductor may still go that long without a step: it waits for a
scheduler that restarts, or for placement (``nova_lite.outage``, up to
``[DEFAULT] outage_wait``). So while a move is worked on here its record
is marked alive every quarter of the timeout (``renew``, a periodic task
of the conductor), and only a move whose conductor is gone is taken
over.

The takeover ends the move for good: the migration ``error``, the
server's task cleared. Everything the first conductor writes after that
is conditional on the move still going on -- its step record and the
migration's next status on the migration's status, the compute's start
on the migration's status and the server's task -- so a conductor that
lost its move (it stalled past the timeout) changes nothing of what the
takeover settled; it stops, and undoes nothing (its flow takes
MigrationStatusChanged, or UnexpectedTaskStateError for an unshelve, as
"not ours"). A live migration an admin cancelled meanwhile is still its
conductor's to undo.
"""

import contextlib
import threading

from oslo_log import log as logging

from nova_lite.compute import states
from nova_lite import objects

LOG = logging.getLogger(__name__)

# The statuses of an evacuation its conductor still works on.
EVACUATING = ('accepted', 'pre-migrating')
# The statuses of a live migration its conductor still works on (from
# ``queued`` on, its source compute's).
LIVE_MIGRATING = ('accepted', 'queued')
# The status of a resize or cold migration its conductor still works on
# (from ``migrating`` on, its source compute's).
RESIZING = ('pre-migrating',)


class MovesInProgress:
    """The moves this conductor works on: {key: (cell context, what to
    renew)}."""

    def __init__(self):
        self._lock = threading.Lock()
        self._moves = {}

    def __len__(self):
        with self._lock:
            return len(self._moves)

    @contextlib.contextmanager
    def evacuation(self, cctxt, migration):
        """Keep ``migration``'s evacuation alive while the block runs."""
        with self._working_on(('migration', migration.uuid), cctxt,
                              lambda c: objects.Migration.renew(
                                  c, [migration.uuid], EVACUATING)):
            yield

    @contextlib.contextmanager
    def resize(self, cctxt, migration):
        """Keep ``migration``'s resize or cold migration alive while the
        block runs."""
        with self._working_on(('migration', migration.uuid), cctxt,
                              lambda c: objects.Migration.renew(
                                  c, [migration.uuid], RESIZING)):
            yield

    @contextlib.contextmanager
    def live_migration(self, cctxt, migration):
        """Keep ``migration``'s live migration alive while the block
        runs: the migration, and the migrating server (its source
        compute looks at the server's ``updated_at``). One an admin
        cancelled is kept alive too: this conductor undoes it at its next
        step, and its source must not undo it as well meanwhile (the
        server's source allocation, given back twice, would be lost)."""
        def renew(c):
            moving = objects.Migration.renew(c, [migration.uuid],
                                             LIVE_MIGRATING + ('cancelled',))
            if moving:
                objects.Instance.renew(c, [migration.instance_uuid],
                                       states.MIGRATING)
            return moving
        with self._working_on(('live migration', migration.uuid), cctxt,
                              renew):
            yield

    @contextlib.contextmanager
    def unshelve(self, cctxt, instance_uuid):
        """Keep the unshelve of ``instance_uuid`` alive while the block
        runs."""
        with self._working_on(('unshelve', instance_uuid), cctxt,
                              lambda c: objects.Instance.renew(
                                  c, [instance_uuid], states.UNSHELVING)):
            yield

    @contextlib.contextmanager
    def _working_on(self, key, cctxt, renew):
        with self._lock:
            self._moves[key] = (cctxt, renew)
        try:
            yield
        finally:
            with self._lock:
                self._moves.pop(key, None)

    def renew(self):
        """Mark every move worked on here alive; how many still go on (a
        move ended by a takeover is no longer renewed: see the module's
        docstring)."""
        with self._lock:
            moves = dict(self._moves)
        alive = 0
        for key, (cctxt, renew) in moves.items():
            try:
                renewed = renew(cctxt)
            except Exception as e:
                LOG.warning('The %s %s was not marked alive now (%s); '
                            'trying again at the next renewal',
                            key[0], key[1], e)
                continue
            if renewed:
                alive += 1
            else:
                LOG.warning('The %s %s is over for this conductor (ended '
                            'by a takeover, or deleted)', key[0], key[1])
        return alive
