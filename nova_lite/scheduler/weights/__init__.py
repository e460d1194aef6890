"""Host weighers: each returns a raw number per host; the handler
normalises each weigher's numbers to 0..1 (min/max; all equal -> 0),
multiplies them by the weigher's multiplier and adds them up. Higher total
wins; equal totals keep the hosts' order. A weigher whose multiplier is 0,
or that has nothing to say about a request (``applies``), is not run."""

import heapq


class BaseHostWeigher:

    @property
    def name(self):
        return type(self).__name__

    def multiplier(self):
        return 1.0

    def applies(self, spec):
        return True

    def weigh(self, host_state, spec):
        raise NotImplementedError


def normalize(values):
    if not values:
        return []
    low, high = min(values), max(values)
    if high == low:
        return [0.0 for _ in values]
    span = high - low
    return [(value - low) / span for value in values]


class Ranking:
    """The weighers' raw values for a set of hosts, kept between the
    instances of one request: placing an instance changes one host, so
    only that host is weighed again (``reweigh``) and hosts the filters
    drop are forgotten (``keep``); normalising and sorting are redone."""

    def __init__(self, weighers, host_states, spec):
        self.spec = spec
        self.weighers = [w for w in weighers
                         if w.multiplier() and w.applies(spec)]
        self.multipliers = [w.multiplier() for w in self.weighers]
        self.states = list(host_states)
        self.raw = [[w.weigh(s, spec) for s in self.states]
                    for w in self.weighers]

    def reweigh(self, state):
        """Weigh ``state`` again, and the other nodes of its host: the
        group weighers count members per host."""
        for index, candidate in enumerate(self.states):
            if candidate.host == state.host:
                for values, weigher in zip(self.raw, self.weighers):
                    values[index] = weigher.weigh(candidate, self.spec)

    def keep(self, host_states):
        wanted = {id(s) for s in host_states}
        indexes = [i for i, s in enumerate(self.states) if id(s) in wanted]
        if len(indexes) == len(self.states):
            return
        self.states = [self.states[i] for i in indexes]
        self.raw = [[values[i] for i in indexes] for values in self.raw]

    def ranked(self, best=None):
        """[(weight, host_state)] best first; ties keep the hosts' order.
        With ``best``, only that many (no full sort)."""
        totals = self._totals()
        if best is not None and best < len(self.states):
            order = heapq.nsmallest(best, range(len(self.states)),
                                    key=lambda i: (-totals[i], i))
        else:
            order = sorted(range(len(self.states)), key=lambda i: -totals[i])
        return [(totals[i], self.states[i]) for i in order]

    def _totals(self):
        totals = [0.0] * len(self.states)
        for multiplier, values in zip(self.multipliers, self.raw):
            totals = [t + multiplier * n
                      for t, n in zip(totals, normalize(values))]
        return totals


def weigh_hosts(weighers, host_states, spec):
    """Return [(weight, host_state)] sorted best first (stable)."""
    return Ranking(weighers, host_states, spec).ranked()


def _registry():
    from nova_lite.scheduler.weights import affinity
    from nova_lite.scheduler.weights import activity
    from nova_lite.scheduler.weights import resources
    return {
        'RAMWeigher': resources.RAMWeigher,
        'CPUWeigher': resources.CPUWeigher,
        'DiskWeigher': resources.DiskWeigher,
        'IoOpsWeigher': activity.IoOpsWeigher,
        'NumInstancesWeigher': activity.NumInstancesWeigher,
        'BuildFailureWeigher': activity.BuildFailureWeigher,
        'ServerGroupSoftAffinityWeigher':
            affinity.ServerGroupSoftAffinityWeigher,
        'ServerGroupSoftAntiAffinityWeigher':
            affinity.ServerGroupSoftAntiAffinityWeigher,
    }


def names():
    return sorted(_registry())


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
