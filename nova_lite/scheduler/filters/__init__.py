"""Host filters: each answers one question about one host.

A filter's ``host_passes(host_state, spec)`` says whether the host can take
one instance of the request; ``reason`` names, in an operator's words, why
it says no -- NoValidHost counts the hosts each filter removed under it.
Filters are registered by name in ``FILTERS``; an unknown name in
``[filter_scheduler] enabled_filters`` stops the scheduler at start.
"""


class BaseHostFilter:
    reason = 'rejected'

    def host_passes(self, host_state, spec):
        raise NotImplementedError


def _registry():
    from nova_lite.scheduler.filters import compute_filter
    from nova_lite.scheduler.filters import resource_filters
    return {
        'ComputeFilter': compute_filter.ComputeFilter,
        'RamFilter': resource_filters.RamFilter,
        'CoreFilter': resource_filters.CoreFilter,
        'DiskFilter': resource_filters.DiskFilter,
    }


def load(names):
    from nova_lite import exception
    registry = _registry()
    unknown = [n for n in names if n not in registry]
    if unknown:
        raise exception.ConfigurationError(
            reason='unknown filter(s) %s in [filter_scheduler] '
                   'enabled_filters; known: %s' %
                   (', '.join(unknown), ', '.join(sorted(registry))))
    return [registry[name]() for name in names]
