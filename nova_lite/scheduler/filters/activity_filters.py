"""IoOpsFilter and NumInstancesFilter: a host that is busy enough takes no
more -- as many I/O-heavy operations in progress as ``[filter_scheduler]
max_io_ops_per_host``, or as many instances as ``max_instances_per_host``.
Their Aggregate variants let an aggregate's metadata of the same name set
the ceiling for its hosts (several aggregates: the lowest)."""

from oslo_log import log as logging

from nova_lite import conf as nova_conf
from nova_lite.scheduler import filters

CONF = nova_conf.CONF
LOG = logging.getLogger(__name__)


def aggregate_ceiling(host_state, key, default):
    """The lowest integer ``key`` of the host's aggregates' metadata, else
    ``default`` (also when one is not an integer, after a warning)."""
    values = {a.metadata[key] for a in host_state.aggregates
              if key in a.metadata}
    if not values:
        return default
    try:
        return min(int(value) for value in values)
    except ValueError:
        LOG.warning('Aggregate metadata %s of host %s is not an integer '
                    '(%s); using [filter_scheduler] %s = %s', key,
                    host_state.host, ', '.join(sorted(values)), key,
                    default)
        return default


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
        return aggregate_ceiling(host_state, 'max_io_ops_per_host',
                                 CONF.filter_scheduler.max_io_ops_per_host)


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
        return aggregate_ceiling(
            host_state, 'max_instances_per_host',
            CONF.filter_scheduler.max_instances_per_host)
