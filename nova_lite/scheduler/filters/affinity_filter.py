"""Server group policies and the same/different host hints.

ServerGroupAffinityFilter keeps a group on the hosts its members already
use; ServerGroupAntiAffinityFilter refuses hosts holding a member (or
``max_server_per_host`` of them, the group's rule). The soft policies are
preferences, left to the weighers. SameHostFilter and DifferentHostFilter
read the ``same_host`` / ``different_host`` hints (instance uuids).
"""

from nova_lite.objects import instance_group as group_obj
from nova_lite.scheduler import filters


def members_on_host(group, host_state):
    """How many of the group's members run on the host."""
    found = len(host_state.instances.intersection(group.members))
    if not found and host_state.host in group.hosts:
        found = 1
    return found


def _group(spec, policy):
    group = spec.instance_group
    if group is not None and group.policy == policy:
        return group
    return None


class ServerGroupAffinityFilter(filters.BaseHostFilter):
    reason = 'affinity policy: not a host of the group'
    depends_on_other_hosts = True

    def applies(self, spec):
        return _group(spec, group_obj.AFFINITY) is not None

    def host_passes(self, host_state, spec):
        group = spec.instance_group
        return not group.hosts or host_state.host in group.hosts

    def refusal(self, host_state, spec):
        return 'the group runs on %s' % ', '.join(
            sorted(spec.instance_group.hosts))


class ServerGroupAntiAffinityFilter(filters.BaseHostFilter):
    reason = 'anti-affinity policy'

    def applies(self, spec):
        return _group(spec, group_obj.ANTI_AFFINITY) is not None

    def host_passes(self, host_state, spec):
        group = spec.instance_group
        return members_on_host(group, host_state) < group.max_server_per_host

    def refusal(self, host_state, spec):
        group = spec.instance_group
        return '%d member(s) of the group already here (at most %d)' % (
            members_on_host(group, host_state), group.max_server_per_host)


def _hint(spec, name):
    values = (spec.scheduler_hints or {}).get(name) or []
    return set(values if isinstance(values, list) else [values])


class SameHostFilter(filters.BaseHostFilter):
    reason = 'not on the same host as the same_host instances'

    def applies(self, spec):
        return bool(_hint(spec, 'same_host'))

    def host_passes(self, host_state, spec):
        return bool(host_state.instances & _hint(spec, 'same_host'))


class DifferentHostFilter(filters.BaseHostFilter):
    reason = 'holds a different_host instance'

    def applies(self, spec):
        return bool(_hint(spec, 'different_host'))

    def host_passes(self, host_state, spec):
        return not host_state.instances & _hint(spec, 'different_host')
