"""Recording what is done to a server: the action names and event steps.

The names below are what ``os-instance-actions`` shows as ``action``; they
are part of the Compute API, so they are spelled as clients know them.
A request records its action where it starts (``record_action``: the API
for delete, the conductor for create), and each service step it runs is
an event of that action::

    with instance_actions.event(context, instance.uuid,
                                'compute_terminate_instance',
                                host=self.host):
        ...

Recording is bookkeeping: a failure to record is logged, never raised, so
it cannot fail the operation it describes.
"""

import traceback

from oslo_log import log as logging

from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import instance_action as instance_action_obj

LOG = logging.getLogger(__name__)

CREATE = 'create'
DELETE = 'delete'
REBUILD = 'rebuild'
EVACUATE = 'evacuate'
MIGRATE = 'migrate'
LIVE_MIGRATION = 'live-migration'
RESIZE = 'resize'
CONFIRM_RESIZE = 'confirmResize'
REVERT_RESIZE = 'revertResize'
STOP = 'stop'
START = 'start'
SHELVE = 'shelve'
SHELVE_OFFLOAD = 'shelveOffload'
UNSHELVE = 'unshelve'
REBOOT = 'reboot'
LOCK = 'lock'
UNLOCK = 'unlock'
PAUSE = 'pause'
UNPAUSE = 'unpause'
SUSPEND = 'suspend'
RESUME = 'resume'
RESET_STATE = 'resetState'


def record_action(context, instance_uuid, action, cell_mapping=None):
    """Start ``action`` of the calling request on an instance, in the cell
    database of ``cell_mapping`` (default: the one ``context`` is aimed
    at); the InstanceAction, or None (logged) if it could not be
    recorded."""
    try:
        with nova_context.target_cell(context, cell_mapping) as cctxt:
            return objects.InstanceAction.action_start(cctxt, instance_uuid,
                                                       action)
    except Exception as error:
        LOG.warning('Could not record action %s of request %s on instance '
                    '%s: %s', action, context.request_id, instance_uuid,
                    error)
        return None


def error_details(error):
    """What an event's ``details`` say about ``error``: the message. A
    server's fault says the same (``lifecycle.fault_message``), but for
    a failed scheduling."""
    if isinstance(error, exception.NovaLiteException):
        return error.format_message()
    return '%s: %s' % (type(error).__name__, error)


class event:
    """Context manager recording one step of the request's action.

    ``event(context, instance_uuid, name, host=None, action=None)`` records
    the start of event ``name`` (on ``host``); on leaving, its finish:
    Error with the traceback and the error's message (``details``) if an
    exception escapes (it still propagates), else Success -- unless the
    block called ``fail()``, for an outcome that is a failure without an
    exception (a build that ends in a reschedule). If the request has no
    action on the instance yet, one named ``action`` (default ``name``) is
    created.
    """

    def __init__(self, context, instance_uuid, name, host=None,
                 action=None, start_with_save=False):
        self.context = context
        self.instance_uuid = instance_uuid
        self.name = name
        self.host = host
        self.action = action
        self._failure = None
        # With start_with_save the start waits for the block's first
        # ``save``, which carries it: on a compute, one conductor call for
        # both.
        self._start_waits = start_with_save
        # Whether a ``save`` carried the finish already.
        self._finished = False

    def fail(self, details, error=None):
        """End the event as an Error without raising: ``details`` say why,
        ``error`` (an exception, optional) gives the traceback."""
        trace = None
        if error is not None:
            trace = ''.join(traceback.format_exception(
                type(error), error, error.__traceback__))
        self._failure = (details, trace)

    def save(self, instance, finishing=False, **kwargs):
        """``instance.save(**kwargs)``, carrying the event's start if it
        waits for one; else, ``finishing``, its finish as a Success (the
        block then ends well unless it says otherwise). A refused save
        raises, as it would, once the start it was to carry is recorded
        on its own."""
        record = None
        if self._start_waits:
            record = instance_action_obj.event_start_record(
                self.name, host=self.host, action=self.action)
        elif finishing and self._failure is None:
            record = instance_action_obj.event_finish_record(
                self.name, instance_action_obj.RESULT_SUCCESS,
                host=self.host)
        if record is not None:
            kwargs['action_event'] = record
        saved = False
        try:
            instance.save(**kwargs)
            saved = True
        finally:
            if self._start_waits:
                self._start_waits = False
                if not saved:
                    self._start()
        self._finished = record is not None and 'finish' in record

    def __enter__(self):
        if not self._start_waits:
            self._start()
        return self

    def _start(self):
        self._record(objects.InstanceActionEvent.event_start, 'start',
                     host=self.host, action=self.action)

    def __exit__(self, exc_type, exc, tb):
        if self._start_waits:
            # The block never saved: the start goes on its own.
            self._start_waits = False
            self._start()
        if self._finished and exc is None and self._failure is None:
            return False
        if exc is not None:
            self._finish(instance_action_obj.RESULT_ERROR,
                         ''.join(traceback.format_exception(exc_type, exc,
                                                            tb)),
                         error_details(exc))
        elif self._failure is not None:
            details, trace = self._failure
            self._finish(instance_action_obj.RESULT_ERROR, trace, details)
        else:
            self._finish(instance_action_obj.RESULT_SUCCESS)
        return False

    def _finish(self, result, trace=None, details=None):
        self._record(objects.InstanceActionEvent.event_finish, 'finish',
                     result, traceback=trace, details=details,
                     host=self.host)

    def _record(self, method, what, *args, **kwargs):
        try:
            method(self.context, self.instance_uuid, self.name, *args,
                   **kwargs)
        except Exception as error:
            LOG.warning('Could not record the %s of event %s (request %s) '
                        'on instance %s: %s', what, self.name,
                        self.context.request_id, self.instance_uuid, error)
