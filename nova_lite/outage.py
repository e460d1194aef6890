"""Riding out a peer's outage: what a daemon does while the scheduler,
placement, the port service, the conductor or a database restarts.

A call that fails because its peer is away (not because the request is
wrong) is made again after 1, 2, 4, 8, 8... seconds, for up to
``[DEFAULT] outage_wait``; only then does the failure reach the work it
was part of. Calls made again must be safe to repeat: each caller says
why its call is (an idempotent write, a claim the scheduler adopts, a
binding written whole).
"""

import itertools
import time

import kombu.exceptions
from oslo_log import log as logging
import oslo_messaging as messaging

from nova_lite import conf as nova_conf

CONF = nova_conf.CONF
LOG = logging.getLogger(__name__)

# What a cast or call raises while the broker is away: oslo.messaging's
# own failure once its reconnection attempts are spent, or kombu's when
# the connection is refused outright.
BROKER_AWAY = (messaging.MessageDeliveryFailure,
               kombu.exceptions.OperationalError)

FIRST_PAUSE = 1
LONGEST_PAUSE = 8


def pauses(wait=None):
    """The pauses between tries, in seconds, that fit in ``wait``
    (``[DEFAULT] outage_wait`` by default) from now."""
    wait = CONF.outage_wait if wait is None else wait
    deadline = time.monotonic() + wait
    pause = FIRST_PAUSE
    while time.monotonic() + pause <= deadline:
        yield pause
        pause = min(pause * 2, LONGEST_PAUSE)


def sleep(seconds):
    """A pause between tries (tests replace this module's ``time``)."""
    time.sleep(seconds)


def ride_out(call, transient, what, wait=None, unless=()):
    """``call()``, made again after each pause while it raises one of
    ``transient`` (exception types) but none of ``unless``; the last
    failure is raised once the wait is over. ``what`` names the work for
    the log ("the build of X")."""
    for pause in itertools.chain(pauses(wait), [None]):
        try:
            return call()
        except transient as error:
            if pause is None or isinstance(error, unless):
                raise
            LOG.warning('%s waits for an outage to end (%s); trying again '
                        'in %d s', what, error, pause)
            sleep(pause)
