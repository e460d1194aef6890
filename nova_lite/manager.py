"""Base class of the RPC managers (conductor, scheduler, compute) and the
``periodic_task`` decorator their methods use.

The service that runs a manager (``nova_lite.service``) finds the periodic
tasks by the mark the decorator leaves; a manager never imports the service.
"""


def periodic_task(spacing):
    """Mark a manager method as periodic; ``spacing`` is seconds or a
    callable returning them (read when the service starts)."""
    def decorator(method):
        method._periodic_spacing = spacing
        return method
    return decorator


class Manager:
    service_ref = None

    def init_host(self, context):
        """Before the service record and RPC server exist."""

    def post_start_hook(self, context):
        """After the RPC server started."""

    def cleanup_host(self):
        """After the RPC server stopped and in-flight requests finished."""
