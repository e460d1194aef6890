"""The answers a conductor gave lately to computes' object calls.

A compute has no database: every record it reads or writes is a call to
a conductor (``objects.base``). When the broker restarts under such a
call, the compute cannot tell whether the conductor ran it -- the answer
may be what was lost -- so it asks again with the same call id
(``conductor.rpcapi.ConductorAPI``). Run twice, a call is not always
harmless: a save that checks the task state it changes fails the second
time, a fault is recorded twice. So the conductor runs each id once:

- a repeat of a call that has finished gets the first run's answer (or
  its error) again;
- a repeat of a call still running waits for it and gets its answer.

Only writes are kept: a read asked again is run again
(``ConductorManager``), and so is a write refused because its database
could not serve it (DatabaseUnavailable: nothing of it was written), so
that a compute asking again once the database is back gets it done.
Answers are kept for ``[DEFAULT] outage_wait`` plus
``rpc_response_timeout`` (how long a compute keeps asking), at most
``MOST`` of them, oldest forgotten first. A repeat that reaches another
conductor, or this one restarted, is run again; the flows are built for
that case too (a save refused as unexpected is a late request to them,
and the recovery of interrupted work picks the server up).
"""

import collections
import threading
import time

from nova_lite import conf as nova_conf
from nova_lite import exception

CONF = nova_conf.CONF

# How many answers a conductor keeps at most.
MOST = 4096


def _not_run(error):
    """Whether ``error`` says the database did none of the call: it
    could not be reached, or refused to serve (a Galera node out of its
    cluster). A connection lost mid-way may have committed."""
    return isinstance(error, exception.DatabaseUnavailable) and \
        not isinstance(error, exception.DatabaseConnectionLost)


class _Call:
    def __init__(self):
        self.done = threading.Event()
        self.finished_at = None
        self.result = None
        self.error = None

    def answer(self):
        if self.error is not None:
            raise self.error
        return self.result


class Answers:
    """The calls this conductor ran lately, by their callers' ids."""

    def __init__(self, most=MOST):
        self.most = most
        self._lock = threading.Lock()
        # call id -> _Call, the oldest first.
        self._calls = collections.OrderedDict()

    def once(self, call_id, run):
        """``run()``'s answer, run only if ``call_id`` was not run here
        lately (None: an old caller's call, with no id: run)."""
        if call_id is None:
            return run()
        with self._lock:
            self._forget_old()
            call = self._calls.get(call_id)
            first = call is None
            if first:
                call = self._calls[call_id] = _Call()
        if not first:
            call.done.wait()
            return call.answer()
        try:
            call.result = run()
        except Exception as error:
            call.error = error
            if _not_run(error):
                with self._lock:
                    if self._calls.get(call_id) is call:
                        del self._calls[call_id]
            raise
        finally:
            call.finished_at = time.monotonic()
            call.done.set()
        return call.result

    def __len__(self):
        return len(self._calls)

    def _forget_old(self):
        """Forget, oldest first, the answers kept long enough, and while
        more than ``most`` are kept, any that has finished (a call still
        running is kept: its repeats wait for it)."""
        # (rpc_response_timeout is oslo.messaging's: registered once an
        # RPC client exists.)
        keep = CONF.outage_wait + getattr(CONF, 'rpc_response_timeout', 60)
        now = time.monotonic()
        while self._calls:
            call_id, call = next(iter(self._calls.items()))
            finished = call.finished_at is not None
            stale = finished and now - call.finished_at >= keep
            crowded = finished and len(self._calls) >= self.most
            if not (stale or crowded):
                break
            del self._calls[call_id]
