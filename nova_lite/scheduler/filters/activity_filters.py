"""IoOpsFilter and NumInstancesFilter: a host that is busy enough takes no
more -- as many I/O-heavy operations in progress as ``[filter_scheduler]
max_io_ops_per_host``, or as many instances as ``max_instances_per_host``.
Their Aggregate variants let an aggregate's metadata of the same name set
the ceiling for its hosts (several aggregates: the lowest)."""

from nova_lite import conf as nova_conf
from nova_lite.scheduler import filters
from nova_lite.scheduler import utils as scheduler_utils

CONF = nova_conf.CONF


class IoOpsFilter(filters.BaseHostFilter):
    reason = 'too many I/O operations in progress'

    def ceiling(self, host_state):
        return CONF.filter_scheduler.max_io_ops_per_host

    def host_passes(self, host_state, spec):
        return host_state.num_io_ops < self.ceiling(host_state)

    def refusal(self, host_state, spec):
        return '%d I/O operations in progress, at most %d' % (
            host_state.num_io_ops, self.ceiling(host_state))


class AggregateIoOpsFilter(IoOpsFilter):
    reason = 'too many I/O operations in progress for its aggregate'

    def ceiling(self, host_state):
        return scheduler_utils.aggregate_number(
            host_state, 'max_io_ops_per_host',
            CONF.filter_scheduler.max_io_ops_per_host, int)


class NumInstancesFilter(filters.BaseHostFilter):
    reason = 'too many instances'

    def ceiling(self, host_state):
        return CONF.filter_scheduler.max_instances_per_host

    def host_passes(self, host_state, spec):
        return host_state.num_instances < self.ceiling(host_state)

    def refusal(self, host_state, spec):
        return '%d instances, at most %d' % (host_state.num_instances,
                                             self.ceiling(host_state))


class AggregateNumInstancesFilter(NumInstancesFilter):
    reason = 'too many instances for its aggregate'

    def ceiling(self, host_state):
        return scheduler_utils.aggregate_number(
            host_state, 'max_instances_per_host',
            CONF.filter_scheduler.max_instances_per_host, int)
