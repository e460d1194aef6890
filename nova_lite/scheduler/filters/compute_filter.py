"""ComputeFilter: the host's compute service is up and enabled."""

from nova_lite.scheduler import filters


class ComputeFilter(filters.BaseHostFilter):
    reason = 'compute service down or disabled'

    def host_passes(self, host_state, spec):
        service = host_state.service
        return (service['up'] and not service['disabled'] and
                not service['forced_down'])
