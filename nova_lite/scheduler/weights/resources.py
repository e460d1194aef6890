"""RAM, CPU and disk weighers: more free resource weighs more (spread);
a negative multiplier stacks instead. None counts less than nothing left
(``minval = 0``), and the scale runs from 0 to the freest host."""

from nova_lite import conf as nova_conf
from nova_lite.scheduler import weights

CONF = nova_conf.CONF


class RAMWeigher(weights.BaseHostWeigher):
    minval = 0
    option = 'ram_weight_multiplier'

    def multiplier(self):
        return CONF.filter_scheduler.ram_weight_multiplier

    def weigh(self, host_state, spec):
        return host_state.free_ram_mb

    def weigh_all(self, host_states, spec):
        return weights.at_least_zero([s.free_ram_mb for s in host_states])


class CPUWeigher(weights.BaseHostWeigher):
    minval = 0
    option = 'cpu_weight_multiplier'

    def multiplier(self):
        return CONF.filter_scheduler.cpu_weight_multiplier

    def weigh(self, host_state, spec):
        total = host_state.vcpus_total * host_state.cpu_allocation_ratio
        return total - host_state.vcpus_used

    def weigh_all(self, host_states, spec):
        return weights.at_least_zero([
            s.vcpus_total * s.cpu_allocation_ratio - s.vcpus_used
            for s in host_states])


class DiskWeigher(weights.BaseHostWeigher):
    minval = 0
    option = 'disk_weight_multiplier'

    def multiplier(self):
        return CONF.filter_scheduler.disk_weight_multiplier

    def weigh(self, host_state, spec):
        return host_state.free_disk_mb

    def weigh_all(self, host_states, spec):
        return weights.at_least_zero([s.free_disk_mb for s in host_states])
