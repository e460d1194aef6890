"""The soft server-group policies: the number of the group's members on a
host weighs for it (soft-affinity: stack) or against it
(soft-anti-affinity: spread), but never rules a host out."""

from nova_lite import conf as nova_conf
from nova_lite.objects import instance_group as group_obj
from nova_lite.scheduler.filters import affinity_filter
from nova_lite.scheduler import weights

CONF = nova_conf.CONF


class _SoftPolicyWeigher(weights.BaseHostWeigher):
    policy = None
    sign = 1

    def applies(self, spec):
        group = spec.instance_group
        return group is not None and group.policy == self.policy

    def weigh(self, host_state, spec):
        return self.sign * affinity_filter.members_on_host(
            spec.instance_group, host_state)


class ServerGroupSoftAffinityWeigher(_SoftPolicyWeigher):
    policy = group_obj.SOFT_AFFINITY
    option = 'soft_affinity_weight_multiplier'

    def multiplier(self):
        return CONF.filter_scheduler.soft_affinity_weight_multiplier


class ServerGroupSoftAntiAffinityWeigher(_SoftPolicyWeigher):
    policy = group_obj.SOFT_ANTI_AFFINITY
    sign = -1
    option = 'soft_anti_affinity_weight_multiplier'

    def multiplier(self):
        return CONF.filter_scheduler.soft_anti_affinity_weight_multiplier
