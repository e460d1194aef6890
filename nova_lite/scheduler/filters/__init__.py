"""Host filters: each answers one question about one host.

A filter's ``host_passes(host_state, spec)`` says whether the host can take
one instance of the request; ``reason`` names, in an operator's words, why
it says no -- NoValidHost counts the hosts each filter removed under it --
and ``refusal(host_state, spec)`` may add the figures for one host (the
``simulate`` command shows them). ``applies(spec)`` lets a filter that has
nothing to check for a request (no group, no zone, no hints) be skipped
without visiting any host. Filters are registered by name in ``FILTERS``;
an unknown name in ``[filter_scheduler] enabled_filters`` stops the
scheduler at start.
"""


class BaseHostFilter:
    reason = 'rejected'
    # True when placing an instance on one host can change the answer for
    # another (the affinity filter, once the group has a host): such a
    # filter is run on every host again for the next instance of a
    # request, the others only on the host that was chosen.
    depends_on_other_hosts = False

    @property
    def name(self):
        return type(self).__name__

    def applies(self, spec):
        return True

    def host_passes(self, host_state, spec):
        raise NotImplementedError

    def refusal(self, host_state, spec):
        """Why this host in particular was refused (default: ``reason``)."""
        return self.reason


def _registry():
    from nova_lite.scheduler.filters import activity_filters
    from nova_lite.scheduler.filters import affinity_filter
    from nova_lite.scheduler.filters import aggregate_filter
    from nova_lite.scheduler.filters import availability_zone_filter
    from nova_lite.scheduler.filters import compute_capabilities_filter
    from nova_lite.scheduler.filters import compute_filter
    from nova_lite.scheduler.filters import image_props_filter
    from nova_lite.scheduler.filters import resource_filters
    from nova_lite.scheduler.filters import retry_filter
    return {
        'AllHostsFilter': compute_filter.AllHostsFilter,
        'ComputeFilter': compute_filter.ComputeFilter,
        'ComputeCapabilitiesFilter':
            compute_capabilities_filter.ComputeCapabilitiesFilter,
        'IoOpsFilter': activity_filters.IoOpsFilter,
        'AggregateIoOpsFilter': activity_filters.AggregateIoOpsFilter,
        'NumInstancesFilter': activity_filters.NumInstancesFilter,
        'AggregateNumInstancesFilter':
            activity_filters.AggregateNumInstancesFilter,
        'RamFilter': resource_filters.RamFilter,
        'CoreFilter': resource_filters.CoreFilter,
        'DiskFilter': resource_filters.DiskFilter,
        'AvailabilityZoneFilter':
            availability_zone_filter.AvailabilityZoneFilter,
        'AggregateInstanceExtraSpecsFilter':
            aggregate_filter.AggregateInstanceExtraSpecsFilter,
        'ImagePropertiesFilter': image_props_filter.ImagePropertiesFilter,
        'ServerGroupAffinityFilter':
            affinity_filter.ServerGroupAffinityFilter,
        'ServerGroupAntiAffinityFilter':
            affinity_filter.ServerGroupAntiAffinityFilter,
        'SameHostFilter': affinity_filter.SameHostFilter,
        'DifferentHostFilter': affinity_filter.DifferentHostFilter,
        'RetryFilter': retry_filter.RetryFilter,
    }


def names():
    return sorted(_registry())


def load(names):
    from nova_lite import exception
    registry = _registry()
    # (Nova's class paths are accepted: only the last part counts.)
    short = [name.strip().rsplit('.', 1)[-1] for name in names]
    unknown = [n for n, s in zip(names, short) if s not in registry]
    if unknown:
        raise exception.ConfigurationError(
            reason='unknown filter(s) %s in [filter_scheduler] '
                   'enabled_filters; known: %s' %
                   (', '.join(unknown), ', '.join(sorted(registry))))
    return [registry[name]() for name in short]
