"""How busy a host is: I/O-heavy operations in progress, instance count,
recent build failures (a host that keeps failing builds is avoided until
it succeeds again), and how recent its hypervisor is."""

from nova_lite import conf as nova_conf
from nova_lite.scheduler import utils as scheduler_utils
from nova_lite.scheduler import weights

CONF = nova_conf.CONF


class IoOpsWeigher(weights.BaseHostWeigher):
    """More I/O-heavy operations weigh more; the default multiplier is
    negative, so busy hosts lose."""
    minval = 0
    option = 'io_ops_weight_multiplier'

    def multiplier(self):
        return CONF.filter_scheduler.io_ops_weight_multiplier

    def weigh(self, host_state, spec):
        return host_state.num_io_ops

    def weigh_all(self, host_states, spec):
        return weights.at_least_zero([s.num_io_ops for s in host_states])


class NumInstancesWeigher(weights.BaseHostWeigher):
    """More instances weigh more: a negative multiplier spreads by count,
    a positive one packs."""
    option = 'num_instances_weight_multiplier'

    def multiplier(self):
        return CONF.filter_scheduler.num_instances_weight_multiplier

    def weigh(self, host_state, spec):
        return host_state.num_instances

    def weigh_all(self, host_states, spec):
        return [s.num_instances for s in host_states]


class BuildFailureWeigher(weights.BaseHostWeigher):
    """Each recent failed build counts against the host: the count is
    weighed with the configured multiplier turned negative."""
    option = 'build_failure_weight_multiplier'

    def multiplier(self):
        return -CONF.filter_scheduler.build_failure_weight_multiplier

    def host_multiplier(self, host_state):
        return -scheduler_utils.aggregate_number(
            host_state, self.option,
            CONF.filter_scheduler.build_failure_weight_multiplier, float)

    def weigh(self, host_state, spec):
        return host_state.failed_builds

    def weigh_all(self, host_states, spec):
        return [s.failed_builds for s in host_states]


class HypervisorVersionWeigher(weights.BaseHostWeigher):
    """A newer hypervisor weighs more (an unknown version counts as 0)."""
    option = 'hypervisor_version_weight_multiplier'

    def multiplier(self):
        return CONF.filter_scheduler.hypervisor_version_weight_multiplier

    def weigh(self, host_state, spec):
        return host_state.hypervisor_version or 0

    def weigh_all(self, host_states, spec):
        return [s.hypervisor_version or 0 for s in host_states]
