"""RetryFilter: a rescheduled build does not go back to a host it already
failed on."""

from nova_lite.scheduler import filters


class RetryFilter(filters.BaseHostFilter):
    reason = 'already tried for this instance'

    def applies(self, spec):
        return spec.retry is not None and bool(spec.retry.hosts)

    def host_passes(self, host_state, spec):
        return [host_state.host, host_state.nodename] not in [
            list(pair) for pair in spec.retry.hosts]
