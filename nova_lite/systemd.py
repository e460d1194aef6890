"""sd_notify: tell systemd (Type=notify units) that a daemon is ready."""

import os
import socket

from oslo_log import log as logging

LOG = logging.getLogger(__name__)


def notify(state):
    """Send ``state`` (e.g. 'READY=1') to $NOTIFY_SOCKET if systemd set it."""
    address = os.environ.get('NOTIFY_SOCKET')
    if not address:
        return False
    if address.startswith('@'):
        address = '\0' + address[1:]  # abstract namespace
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
            sock.connect(address)
            sock.sendall(state.encode())
        return True
    except OSError as e:
        LOG.warning('Cannot notify systemd at %s: %s', address, e)
        return False


def notify_ready():
    return notify('READY=1')


def notify_stopping():
    return notify('STOPPING=1')
