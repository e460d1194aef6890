"""RamFilter, CoreFilter, DiskFilter: enough of a resource is left once the
allocation ratio is applied. Each records its ceiling in the host state's
``limits`` so the compute's claim enforces the same figure."""

from nova_lite.scheduler import filters


def _requested_disk_mb(spec):
    flavor = spec.flavor
    root_gb = 0 if spec.is_bfv else flavor.root_gb
    return (root_gb + flavor.ephemeral_gb) * 1024 + flavor.swap


class RamFilter(filters.BaseHostFilter):
    reason = 'insufficient RAM'

    @staticmethod
    def _room(host_state):
        total = host_state.total_usable_ram_mb
        limit = total * host_state.ram_allocation_ratio
        used = total - host_state.free_ram_mb
        return limit, limit - used

    def host_passes(self, host_state, spec):
        limit, room = self._room(host_state)
        host_state.limits['memory_mb'] = int(limit)
        return room >= spec.flavor.memory_mb

    def refusal(self, host_state, spec):
        return 'needs %d MB RAM, %d MB usable' % (
            spec.flavor.memory_mb, self._room(host_state)[1])


class CoreFilter(filters.BaseHostFilter):
    reason = 'insufficient vCPUs'

    def host_passes(self, host_state, spec):
        if not host_state.vcpus_total:
            return True  # the host does not report CPUs; do not filter
        limit = host_state.vcpus_total * host_state.cpu_allocation_ratio
        host_state.limits['vcpu'] = int(limit)
        return limit - host_state.vcpus_used >= spec.flavor.vcpus

    def refusal(self, host_state, spec):
        limit = host_state.vcpus_total * host_state.cpu_allocation_ratio
        return 'needs %d vCPUs, %g usable' % (
            spec.flavor.vcpus, limit - host_state.vcpus_used)


class DiskFilter(filters.BaseHostFilter):
    reason = 'insufficient disk'

    @staticmethod
    def _room_mb(host_state):
        total_mb = host_state.total_usable_disk_gb * 1024
        limit_mb = total_mb * host_state.disk_allocation_ratio
        used_mb = total_mb - host_state.free_disk_mb
        return limit_mb, limit_mb - used_mb

    def host_passes(self, host_state, spec):
        limit_mb, room_mb = self._room_mb(host_state)
        host_state.limits['disk_gb'] = int(limit_mb / 1024)
        return room_mb >= _requested_disk_mb(spec)

    def refusal(self, host_state, spec):
        return 'needs %d MB disk, %d MB usable' % (
            _requested_disk_mb(spec), self._room_mb(host_state)[1])
