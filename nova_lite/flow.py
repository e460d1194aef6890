"""Flows: steps in order, each claim declared with its undo.

A flow (a conductor task, or a compute's half of a move) is a list of
steps. Before a step that claims something -- an allocation, a record, a
mapping, a task state -- the flow says so and names its undo in the same
line::

    with flow.Flow('build', uuid, record=...) as build:
        build.step('create_in_cell', cell.uuid)
        instance.create()
        build.step('map_to_cell', cell.uuid)
        mapping.save()
        build.done()

The step is recorded before it is taken (``record`` writes the list where
a takeover after a crash can read it: on the build request, on the
migration), so an undo may find its step half-done or not done at all:
every undo is idempotent. When the flow fails, its undos run newest first,
each logged; one that fails does not keep the others from running. A
crash runs nothing (SIGKILL does not unwind): a takeover reads the
recorded steps and replays the same undos with ``undo_recorded``. Once
``done()`` the flow's claims are its outcome and nothing is undone.

A flow that continues another daemon's (a compute's half of a move the
conductor began) takes the steps that daemon took with ``inherit``: their
undo is its own from then on, under the same names.

What a step's undo is lives in one table per flow (``undos``: step name
-> ``undo(arg)``), so the running flow and a takeover use the same code,
and a test can make every step of a flow fail in turn (``before_step``).
"""

from oslo_log import log as logging

LOG = logging.getLogger(__name__)


class FlowFailed(Exception):
    """Raised by ``before_step`` in tests: the step fails."""


class Flow:
    """One run of a flow over ``subject`` (a server's UUID, for logs).

    ``undos`` maps each step name to ``undo(arg)``; ``record(steps)``, if
    given, stores the steps started so far (a list of ``[name, arg]``)
    and raises to stop the flow (say, its lease was lost). A failure of
    one of the ``not_ours`` types means the flow's subject belongs to
    someone else now (taken over, deleted by its user): nothing is undone,
    since what the steps made may be the new owner's.
    """

    def __init__(self, name, subject, undos, record=None, not_ours=()):
        self.name = name
        self.subject = subject
        self.undos = undos
        self.record = record
        self.not_ours = tuple(not_ours)
        self.steps = []
        self.finished = False

    # Tests replace this to make a chosen step fail (or crash).
    @staticmethod
    def before_step(flow, step):
        pass

    def step(self, name, arg=None, record=True):
        """Say that step ``name`` (on ``arg``) is about to be taken; from
        now on a failure undoes it. ``record`` False leaves the record as
        it is: for a step whose record would tell a takeover nothing (no
        undo) and that checks for itself that the flow is still its
        own."""
        if name not in self.undos:
            raise KeyError('%s flow has no step %r' % (self.name, name))
        Flow.before_step(self, name)
        # Recorded before it is taken: a step whose record fails is not
        # taken, and is not undone.
        if record and self.record is not None:
            self.record(self.steps + [[name, arg]])
        self.steps.append([name, arg])

    def settle(self, arg):
        """The step just taken turned out to be on ``arg`` (what it learns
        as it is taken: the host a scheduler chose); recorded, so its
        undo acts on that only. A step recorded before it learnt
        (crashed in between) keeps its first arg."""
        if not self.steps:
            raise KeyError('%s flow has no step to settle' % self.name)
        steps = self.steps[:-1] + [[self.steps[-1][0], arg]]
        if self.record is not None:
            self.record(steps)
        self.steps[-1][1] = arg

    def inherit(self, steps):
        """Take over the undo of ``steps`` (``[[name, arg], ...]``) that
        another daemon has taken already (what the conductor claimed
        before it handed a move to a compute): they are held whatever
        happens next, so a failure from here -- even of their record,
        written with the next step's -- undoes them."""
        for name, _arg in steps:
            if name not in self.undos:
                raise KeyError('%s flow has no step %r' % (self.name, name))
        self.steps.extend([name, arg] for name, arg in steps)
        for name, _arg in steps:
            Flow.before_step(self, name)

    def done(self):
        """The flow reached its outcome: nothing will be undone."""
        self.finished = True

    def mark(self):
        """A point to undo back to (``undo(since=mark)``): a loop that
        tries one candidate after another undoes only the last try."""
        return len(self.steps)

    def undo(self, since=0):
        """Undo the steps taken after ``since`` (all by default); True if
        every undo succeeded."""
        undone = run_undos(self.name, self.subject, self.undos,
                           self.steps[since:])
        del self.steps[since:]
        return undone

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        # An Exception is a failure to undo; a BaseException (a crash, an
        # interpreter exit) is not: nothing runs, as after a SIGKILL.
        if exc_type is not None and issubclass(exc_type, Exception) and \
                not issubclass(exc_type, self.not_ours) and \
                not self.finished:
            LOG.warning('%s of %s failed at %s (%s): undoing %d step(s)',
                        self.name, self.subject,
                        self.steps[-1][0] if self.steps else 'its start',
                        exc, sum(1 for step, _ in self.steps
                                 if self.undos[step] is not no_undo))
            self.undo()
        return False


def run_undos(name, subject, undos, steps):
    """Undo ``steps`` (``[[name, arg], ...]`` as recorded) newest first;
    each undo is logged, and one that fails does not stop the others.
    True if every undo succeeded."""
    undone = True
    for step, arg in reversed(steps):
        undo = undos.get(step)
        if undo is None or undo is no_undo:
            continue  # a point in the record: nothing to undo or log
        try:
            undo(arg)
        except Exception:
            undone = False
            LOG.exception('%s of %s: could not undo %s(%s)', name, subject,
                          step, arg or '')
        else:
            LOG.info('%s of %s: undid %s%s', name, subject, step,
                     '(%s)' % arg if arg else '')
    return undone


def undo_recorded(name, subject, undos, steps):
    """A takeover's replay of what a crashed flow had recorded."""
    LOG.warning('%s of %s was interrupted after %s: undoing what it did',
                name, subject, ', '.join(s for s, _ in steps) or 'nothing')
    run_undos(name, subject, undos, steps)


def no_undo(arg):
    """The undo of a step that claims nothing (a point in the record)."""


def undo_table(**undos):
    """``{step: undo}``; ``None`` stands for ``no_undo``."""
    return {step: undo or no_undo for step, undo in undos.items()}
