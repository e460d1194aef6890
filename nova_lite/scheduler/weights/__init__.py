"""Host weighers: each returns a raw number per host; the handler
normalises each weigher's numbers to 0..1 (all equal -> 0), multiplies them
by the weigher's multiplier and adds them up. Higher total wins."""


class BaseHostWeigher:
    def multiplier(self):
        return 1.0

    def weigh(self, host_state, spec):
        raise NotImplementedError


def normalize(values):
    low, high = min(values), max(values)
    if high == low:
        return [0.0 for _ in values]
    span = high - low
    return [(value - low) / span for value in values]


def weigh_hosts(weighers, host_states, spec):
    """Return [(weight, host_state)] sorted best first (stable)."""
    totals = [0.0] * len(host_states)
    for weigher in weighers:
        raw = [weigher.weigh(state, spec) for state in host_states]
        multiplier = weigher.multiplier()
        for index, value in enumerate(normalize(raw)):
            totals[index] += multiplier * value
    ranked = sorted(enumerate(host_states), key=lambda p: -totals[p[0]])
    return [(totals[index], state) for index, state in ranked]


def _registry():
    from nova_lite.scheduler.weights import resources
    return {
        'RAMWeigher': resources.RAMWeigher,
        'CPUWeigher': resources.CPUWeigher,
        'DiskWeigher': resources.DiskWeigher,
    }


def load(names):
    from nova_lite import exception
    registry = _registry()
    unknown = [n for n in names if n not in registry]
    if unknown:
        raise exception.ConfigurationError(
            reason='unknown weigher(s) %s in [filter_scheduler] '
                   'weight_classes; known: %s' %
                   (', '.join(unknown), ', '.join(sorted(registry))))
    return [registry[name]() for name in names]
