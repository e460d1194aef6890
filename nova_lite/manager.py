"""Base class of the RPC managers (conductor, scheduler, compute)."""


class Manager:
    service_ref = None

    def init_host(self, context):
        """Before the service record and RPC server exist."""

    def post_start_hook(self, context):
        """After the RPC server started."""

    def cleanup_host(self):
        """After the RPC server stopped and in-flight requests finished."""
