"""RamFilter, CoreFilter, DiskFilter: enough of a resource is left once the
allocation ratio is applied. Each records its ceiling in the host state's
``limits`` so the compute's claim enforces the same figure."""

from nova_lite.scheduler import filters


class RamFilter(filters.BaseHostFilter):
    reason = 'insufficient RAM'

    def host_passes(self, host_state, spec):
        requested = spec.flavor.memory_mb
        total = host_state.total_usable_ram_mb
        limit = total * host_state.ram_allocation_ratio
        used = total - host_state.free_ram_mb
        host_state.limits['memory_mb'] = int(limit)
        return limit - used >= requested


class CoreFilter(filters.BaseHostFilter):
    reason = 'insufficient vCPUs'

    def host_passes(self, host_state, spec):
        if not host_state.vcpus_total:
            return True  # the host does not report CPUs; do not filter
        limit = host_state.vcpus_total * host_state.cpu_allocation_ratio
        host_state.limits['vcpu'] = int(limit)
        return limit - host_state.vcpus_used >= spec.flavor.vcpus


class DiskFilter(filters.BaseHostFilter):
    reason = 'insufficient disk'

    def host_passes(self, host_state, spec):
        flavor = spec.flavor
        root_gb = 0 if spec.is_bfv else flavor.root_gb
        requested_mb = (root_gb + flavor.ephemeral_gb) * 1024 + flavor.swap
        total_mb = host_state.total_usable_disk_gb * 1024
        limit_mb = total_mb * host_state.disk_allocation_ratio
        used_mb = total_mb - host_state.free_disk_mb
        host_state.limits['disk_gb'] = int(limit_mb / 1024)
        return limit_mb - used_mb >= requested_mb
