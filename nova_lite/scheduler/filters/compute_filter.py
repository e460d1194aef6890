"""ComputeFilter: the host's compute service is up and enabled."""

from nova_lite.scheduler import filters


class ComputeFilter(filters.BaseHostFilter):
    reason = 'compute service down or disabled'

    def host_passes(self, host_state, spec):
        service = host_state.service
        return (service['up'] and not service['disabled'] and
                not service['forced_down'])


class AllHostsFilter(filters.BaseHostFilter):
    """Lets every host through: a filter list that checks nothing."""
    reason = 'never refuses'

    def host_passes(self, host_state, spec):
        return True
