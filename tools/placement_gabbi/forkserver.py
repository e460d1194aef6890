"""nova-lite-placement daemons forked from one process that imported them.

    python -m tools.placement_gabbi.forkserver

Runs in nova_lite's python, with the repository on PYTHONPATH and the
environment a daemon gets (``harness.NovaLite``). Starting
``python -m nova_lite.cmd.placement`` costs over a second of CPU in
imports, for each of the gabbi files (2 cores); this process does those
imports once (``nova_lite.cmd.placement``, what that command imports
before it reads any configuration, and the application module it serves,
which reads none when imported) and forks a daemon for each file, which
then runs ``nova_lite.cmd.placement.main()`` with ``--config-file`` its
own file, exactly as the command would: configuration, logging, the
database, the application and its HTTP server are all the child's own.

Commands, a line each on stdin, answered with a line on stdout:

``start CONF LOG``
    fork a daemon with ``--config-file CONF``, its stdout and stderr
    appended to LOG; answers its pid.
``kill PID SIGNAL``
    send the daemon the signal (a number); answers ``ok``.
``poll PID``
    answers ``running``, or ``exited STATUS`` (its exit status; minus the
    signal's number if a signal ended it) once it has ended.

At the end of stdin the daemons still running get SIGKILL.
"""

import gc
import os
import signal
import sys


def _child(placement, conf, log):
    """In the forked process: become ``nova-lite-placement --config-file
    CONF`` with its output in LOG. Returns the exit status."""
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    out = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    os.dup2(out, 1)
    os.dup2(out, 2)
    os.close(out)
    # The handlers a python starts with (this process ignores SIGINT).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    # What ``python -m nova_lite.cmd.placement --config-file CONF`` has.
    sys.argv = [placement.__file__, '--config-file', conf]
    try:
        placement.main()
    except SystemExit as exc:
        return exc.code
    return 0


def main():
    from nova_lite.cmd import placement
    import nova_lite.api.placement  # noqa: F401
    # What a daemon freezes first thing when it serves (nova_lite.service.
    # serve: gc.collect(), gc.freeze()), frozen here once: the daemons'
    # collection then has only what they made themselves to walk.
    gc.collect()
    gc.freeze()
    # Ctrl-C in the harness's terminal is the harness's business.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    requests, answers = sys.stdin, sys.stdout
    children = {}   # pid -> exit status, None while running
    for line in requests:
        words = line.split()
        if not words:
            continue
        command, args = words[0], words[1:]
        if command == 'start':
            answers.flush()
            pid = os.fork()
            if pid == 0:
                # Leaves through SystemExit: the interpreter's own exit
                # (atexit handlers, flushed streams), as the command's.
                sys.exit(_child(placement, *args))
            children[pid] = None
            answer = str(pid)
        elif command == 'kill':
            pid = int(args[0])
            if children.get(pid, 0) is None:
                os.kill(pid, int(args[1]))
            answer = 'ok'
        elif command == 'poll':
            pid = int(args[0])
            if children.get(pid, 0) is None:
                done, status = os.waitpid(pid, os.WNOHANG)
                if done:
                    children[pid] = os.waitstatus_to_exitcode(status)
            status = children.get(pid, 0)
            answer = 'running' if status is None else 'exited %d' % status
        else:
            answer = 'error: no such command %r' % command
        answers.write(answer + '\n')
        answers.flush()
    for pid, status in children.items():
        if status is None:
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except OSError:
                pass


if __name__ == '__main__':
    main()
