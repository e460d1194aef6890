"""Host weighers, added up as Nova's are.

Each weigher gives a raw number per host, kept within the weigher's
``minval``/``maxval`` when it has them (the resource and I/O weighers have
``minval = 0``: a host overcommitted into negative free RAM counts as none
left). The numbers are normalised to 0..1 -- from ``minval`` if set, else
the lowest number, to ``maxval`` if set, else the highest; all equal gives
0 -- multiplied by the weigher's multiplier *for that host* (an aggregate's
metadata may set it, e.g. ``ram_weight_multiplier=-1.0`` on an aggregate
whose hosts should be packed; several aggregates: the lowest) and summed in
the weighers' order. Higher total wins; equal totals keep the hosts' order;
a single host weighs 0. A weigher that has nothing to say about a request
(``applies``) or whose multiplier is 0 on every host is not run.
"""

import heapq
import itertools
import operator

from nova_lite.scheduler import utils as scheduler_utils


class BaseHostWeigher:
    # Bounds the raw numbers are kept within, and normalised from/to
    # (None: the lowest/highest number of the hosts weighed).
    minval = None
    maxval = None
    # The [filter_scheduler] option of the multiplier, which an
    # aggregate's metadata of the same name overrides for its hosts.
    option = None

    @property
    def name(self):
        return type(self).__name__

    def multiplier(self):
        """The configured multiplier."""
        return 1.0

    def host_multiplier(self, host_state):
        """The multiplier on ``host_state``: its aggregates' ``option``
        metadata, else the configured one."""
        return scheduler_utils.aggregate_number(
            host_state, self.option, self.multiplier(), float)

    def applies(self, spec):
        return True

    def weigh(self, host_state, spec):
        raise NotImplementedError

    def weigh_all(self, host_states, spec):
        """[raw value of each host], kept within minval/maxval. (A weigher
        that reads one attribute overrides this with a plain list
        comprehension: ten thousand hosts per request.)"""
        return [self.bounded(self.weigh(s, spec)) for s in host_states]

    def bounded(self, value):
        if self.minval is not None and value < self.minval:
            value = self.minval
        if self.maxval is not None and value > self.maxval:
            value = self.maxval
        return value


def at_least_zero(values):
    """``values`` with the negative ones raised to 0 (minval = 0)."""
    return [value if value > 0 else 0 for value in values]


def normalize(values, minval=None, maxval=None):
    """``values`` scaled to 0..1 between ``minval`` (default: the lowest)
    and ``maxval`` (default: the highest); all zero when they are equal."""
    if not values:
        return []
    high = float(max(values) if maxval is None else maxval)
    low = float(min(values) if minval is None else minval)
    if high == low:
        return [0.0] * len(values)
    span = high - low
    return [(value - low) / span for value in values]


class Ranking:
    """The weighers' raw values for a set of hosts, kept between the
    instances of one request: placing an instance changes one host, so
    only that host is weighed again (``reweigh``) and hosts the filters
    drop are forgotten (``keep``); normalising and sorting are redone."""

    def __init__(self, weighers, host_states, spec):
        self.spec = spec
        self.states = list(host_states)
        # The order equal weights keep, as indexes of ``states`` (None:
        # theirs).
        self.order = None
        overridden = _overridden_options(self.states)
        self.weighers, self.multipliers = [], []
        for weigher in weighers:
            if not weigher.applies(spec):
                continue
            default = weigher.multiplier()
            if weigher.option in overridden:
                # [multiplier of each host]
                per_host = [weigher.host_multiplier(s)
                            for s in self.states]
                if not any(per_host):
                    continue
            elif not default:
                continue
            else:
                per_host = default
            self.weighers.append(weigher)
            self.multipliers.append(per_host)
        self.raw = [w.weigh_all(self.states, spec) for w in self.weighers]

    def reweigh(self, state):
        """Weigh ``state`` again, and the other nodes of its host: the
        group weighers count members per host."""
        for index, candidate in enumerate(self.states):
            if candidate.host == state.host:
                for values, weigher in zip(self.raw, self.weighers):
                    values[index] = weigher.bounded(
                        weigher.weigh(candidate, self.spec))

    def keep(self, host_states):
        """Forget the hosts not in ``host_states`` (a subset of the
        ranking's hosts)."""
        if len(host_states) == len(self.states):
            return
        wanted = {id(s) for s in host_states}
        indexes = [i for i, s in enumerate(self.states) if id(s) in wanted]
        if len(indexes) == len(self.states):
            return
        self.states = [self.states[i] for i in indexes]
        self.raw = [[values[i] for i in indexes] for values in self.raw]
        self.multipliers = [m if not isinstance(m, list)
                            else [m[i] for i in indexes]
                            for m in self.multipliers]
        if self.order is not None:
            renumbered = {old: new for new, old in enumerate(indexes)}
            self.order = [renumbered[i] for i in self.order
                          if i in renumbered]

    def reorder(self, host_states):
        """Let equal weights keep the order of ``host_states`` (the same
        hosts) rather than their own."""
        position = {id(s): i for i, s in enumerate(self.states)}
        self.order = [position[id(s)] for s in host_states]

    def ranked(self, best=None):
        """[(weight, host_state)] best first; ties keep the hosts' order
        (or the one ``reorder`` gave). With ``best``, only that many (no
        full sort)."""
        totals = self.totals()
        count = len(self.states)
        if best is not None and best < count:
            if self.order is None:
                found = heapq.nsmallest(best, zip([-t for t in totals],
                                                  itertools.count()))
                order = [index for _weight, index in found]
            else:
                found = heapq.nsmallest(best, zip(
                    [-totals[i] for i in self.order], itertools.count(),
                    self.order))
                order = [index for _weight, _position, index in found]
        else:
            # (A reverse sort keeps equal weights in the order given.)
            order = sorted(range(count) if self.order is None
                           else self.order, key=totals.__getitem__,
                           reverse=True)
        if not order:
            return []
        pick = operator.itemgetter(*order)
        if len(order) == 1:
            return [(pick(totals), pick(self.states))]
        return list(zip(pick(totals), pick(self.states)))

    def totals(self):
        """Each host's weight, summed in the weighers' order."""
        totals = [0.0] * len(self.states)
        if len(self.states) <= 1:
            return totals
        for weigher, multiplier, values in zip(self.weighers,
                                               self.multipliers, self.raw):
            high = float(max(values) if weigher.maxval is None
                         else weigher.maxval)
            low = float(min(values) if weigher.minval is None
                        else weigher.minval)
            if high == low:
                # Every value normalises to 0: adds nothing.
                continue
            span = high - low
            # (The same operations, in the same order, as normalize() and
            # then multiplier * normalised: equal hosts stay equal.)
            if isinstance(multiplier, list):
                totals = [t + m * ((v - low) / span) for t, m, v in
                          zip(totals, multiplier, values)]
            else:
                totals = [t + multiplier * ((v - low) / span)
                          for t, v in zip(totals, values)]
        return totals


def _overridden_options(host_states):
    """The metadata keys of the aggregates of ``host_states``."""
    seen, keys = set(), set()
    for state in host_states:
        for aggregate in state.aggregates:
            if id(aggregate) not in seen:
                seen.add(id(aggregate))
                keys.update(aggregate.metadata)
    return keys


def weigh_hosts(weighers, host_states, spec):
    """Return [(weight, host_state)] sorted best first (stable)."""
    return Ranking(weighers, host_states, spec).ranked()


def _registry():
    """{name: weigher class}, in the order ``all_weighers`` runs them."""
    from nova_lite.scheduler.weights import affinity
    from nova_lite.scheduler.weights import activity
    from nova_lite.scheduler.weights import resources
    return {
        'ServerGroupSoftAffinityWeigher':
            affinity.ServerGroupSoftAffinityWeigher,
        'ServerGroupSoftAntiAffinityWeigher':
            affinity.ServerGroupSoftAntiAffinityWeigher,
        'BuildFailureWeigher': activity.BuildFailureWeigher,
        'CPUWeigher': resources.CPUWeigher,
        'DiskWeigher': resources.DiskWeigher,
        'HypervisorVersionWeigher': activity.HypervisorVersionWeigher,
        'IoOpsWeigher': activity.IoOpsWeigher,
        'NumInstancesWeigher': activity.NumInstancesWeigher,
        'RAMWeigher': resources.RAMWeigher,
    }


# The name that stands for every weigher (Nova's spelling is accepted too).
ALL = 'all_weighers'


def names():
    return sorted(_registry())


def load(names):
    """The weighers named, in order. A name may be written as Nova's
    class path (``nova.scheduler.weights.ram.RAMWeigher``, only its last
    part counts); ``all_weighers`` stands for every weigher."""
    from nova_lite import exception
    registry = _registry()
    loaded, unknown = [], []
    for name in names:
        short = name.strip().rsplit('.', 1)[-1]
        if short == ALL:
            loaded.extend(cls() for cls in registry.values())
        elif short in registry:
            loaded.append(registry[short]())
        else:
            unknown.append(name)
    if unknown:
        raise exception.ConfigurationError(
            reason='unknown weigher(s) %s in [filter_scheduler] '
                   'weight_classes; known: %s (or %s)' %
                   (', '.join(unknown), ', '.join(sorted(registry)), ALL))
    return loaded
