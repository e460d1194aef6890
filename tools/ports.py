"""Free TCP ports for the daemons a test or tool starts.

A port is chosen by binding port 0 and letting it go, before the daemon
that will listen on it starts: the kernel may then hand the same port to
the next caller, and two daemons started together would be given one
port. The second fails to bind while the first answers for both, so a
client of the second talks to the first (another database, another
policy) without a sign. ``free_port`` never gives a port twice in a
process.
"""

import socket
import threading

_LOCK = threading.Lock()
_GIVEN = set()


def free_port(host='127.0.0.1'):
    """A port nothing listens on now, not given before by this process."""
    with _LOCK:
        while True:
            with socket.socket() as sock:
                sock.bind((host, 0))
                port = sock.getsockname()[1]
            if port not in _GIVEN:
                _GIVEN.add(port)
                return port
