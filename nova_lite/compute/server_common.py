"""What the API side's server modules (``api``, ``server_create``,
``server_rebuild``, ``server_moves``) share: ``logged_cleanup`` for an undo
step that must not hide the failure it undoes.
"""

from oslo_log import log as logging

LOG = logging.getLogger(__name__)


class logged_cleanup:
    """Run an undo step, logging (not raising) if it fails itself."""

    def __init__(self, what):
        self.what = what

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc is not None:
            LOG.warning('Could not remove the %s: %s', self.what, exc)
        return True
