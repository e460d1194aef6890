"""select_destinations: host states -> filters -> weighers -> choice.

For each instance of a request: drop the ignored hosts (or keep only the
forced ones, which then skip the filters), run the enabled filters in order
(counting what each removed), weigh the survivors, pick at random among the
best ``host_subset_size``, consume the instance on that host state and
record it in the request's server group, so the next instance of the same
request sees both; return the chosen host followed by up to
``max_attempts - 1`` alternates from the same cell. If any instance cannot
be placed the whole request fails with a NoValidHost that says why, e.g.
"0/4 hosts available: 3 insufficient RAM, 1 compute service down or
disabled".

``schedule()`` is the pipeline on its own (no database, no RPC): the
scheduler daemon and ``nova-lite-manage scheduler simulate`` both run it.
"""

import random
import threading

from oslo_log import log as logging

from nova_lite import conf as nova_conf
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import instance_group as group_obj
from nova_lite.scheduler import filters
from nova_lite.scheduler import host_manager
from nova_lite.scheduler import weights

CONF = nova_conf.CONF
LOG = logging.getLogger(__name__)

# What each policy needs enabled to be honoured.
POLICY_NEEDS = {
    group_obj.AFFINITY: ('filter', 'ServerGroupAffinityFilter',
                         'enabled_filters'),
    group_obj.ANTI_AFFINITY: ('filter', 'ServerGroupAntiAffinityFilter',
                              'enabled_filters'),
    group_obj.SOFT_AFFINITY: ('weigher', 'ServerGroupSoftAffinityWeigher',
                              'weight_classes'),
    group_obj.SOFT_ANTI_AFFINITY: ('weigher',
                                   'ServerGroupSoftAntiAffinityWeigher',
                                   'weight_classes'),
}


class FilterResult:
    """Which hosts passed, and how many each filter removed."""

    def __init__(self, total):
        self.total = total
        self.removed = []  # [(filter name, reason, [refused host states])]

    def explain(self):
        parts = ['%d %s' % (len(hosts), reason)
                 for _name, reason, hosts in self.removed if hosts]
        text = '0/%d hosts available' % self.total
        return text + (': ' + ', '.join(parts) if parts else '')


def run_filters(filter_objs, host_states, spec):
    result = FilterResult(len(host_states))
    remaining = list(host_states)
    for host_filter in filter_objs:
        if not remaining:
            break
        if not host_filter.applies(spec):
            continue
        passed, refused = [], []
        for state in remaining:
            (passed if host_filter.host_passes(state, spec)
             else refused).append(state)
        result.removed.append((host_filter.name, host_filter.reason,
                               refused))
        remaining = passed
    return remaining, result


def check_policy(spec, filter_objs, weighers):
    """UnsupportedPolicy when the request's group needs a filter or
    weigher that is not enabled."""
    group = spec.instance_group
    if group is None:
        return
    needs = POLICY_NEEDS.get(group.policy)
    if needs is None:
        raise exception.UnsupportedPolicy(
            policy=group.policy, group=group.uuid,
            reason='unknown policy')
    kind, name, option = needs
    enabled = {f.name for f in filter_objs} | {w.name for w in weighers}
    if name not in enabled:
        raise exception.UnsupportedPolicy(
            policy=group.policy, group=group.uuid,
            reason='the %s %s is not in [filter_scheduler] %s' % (
                kind, name, option))


class Trace:
    """What happened to each instance of a request: for the ``simulate``
    command and debugging, not for the daemon's hot path."""

    def __init__(self):
        self.instances = []

    def record(self, candidates, ignored, forced, result, ranked, chosen):
        self.instances.append({
            'candidates': len(candidates),
            'ignored': [s.host for s in ignored],
            'forced': forced,
            'filters': [{'filter': name, 'reason': reason,
                         'removed': [{'host': s.host,
                                      'nodename': s.nodename,
                                      'why': why}
                                     for s, why in hosts]}
                        for name, reason, hosts in result],
            'ranking': [{'host': s.host, 'nodename': s.nodename,
                         'weight': round(weight, 6)}
                        for weight, s in ranked],
            'chosen': chosen.host if chosen is not None else None,
        })


def _excluded(spec, host_states):
    """(candidates, ignored, forced?): ignore_hosts removed; with
    force_hosts / force_nodes only those kept."""
    ignore = set(spec.ignore_hosts or [])
    candidates = [s for s in host_states if s.host not in ignore]
    ignored = [s for s in host_states if s.host in ignore]
    hosts, nodes = spec.force_hosts or [], spec.force_nodes or []
    if not hosts and not nodes:
        return candidates, ignored, False
    forced = [s for s in candidates
              if (not hosts or s.host in hosts) and
              (not nodes or s.nodename in nodes)]
    return forced, ignored + [s for s in candidates if s not in forced], True


def schedule(spec, instance_uuids, host_states, filter_objs, weighers,
             max_alternates=0, subset_size=1, trace=None, chooser=None):
    """Per instance [chosen HostState, alternate, ...]; raises NoValidHost.

    Consumes each instance on its chosen host state and records it in
    ``spec.instance_group``. Placing an instance only takes from the
    chosen host (and the group), so for the next instance of the request
    the filters run again on that host alone -- plus those whose answer
    depends on other hosts, on every host still in the running -- and
    only that host is weighed again: a request for ten instances costs
    little more than one.
    """
    check_policy(spec, filter_objs, weighers)
    chooser = chooser or random.choice
    num = len(instance_uuids) or spec.num_instances
    candidates, ignored, forced = _excluded(spec, host_states)
    group = spec.instance_group
    active = [f for f in filter_objs if f.applies(spec)]
    passed = ranking = chosen = None
    chosen_per_instance = []
    for index in range(num):
        instance_uuid = instance_uuids[index] if instance_uuids else None
        result = None
        if forced:
            passed, result = candidates, FilterResult(len(host_states))
        elif passed is None or trace is not None:
            passed, result = run_filters(filter_objs, candidates, spec)
        else:
            passed = _refilter(active, passed, chosen, spec)
        if not passed:
            if result is None:
                # The incremental pass ran out of hosts: run the filters
                # in full for an explanation that adds up.
                _none, result = run_filters(filter_objs, candidates, spec)
            _explain(result, host_states, ignored, forced)
            if trace is not None:
                trace.record(candidates, ignored, forced,
                             _refusals(result, filter_objs, spec), [], None)
            LOG.info('No valid host for instance %d/%d of request %s: %s',
                     index + 1, num, spec.instance_uuid, result.explain())
            raise exception.NoValidHost(reason=result.explain())
        if ranking is None or trace is not None:
            ranking = weights.Ranking(weighers, passed, spec)
        else:
            ranking.keep(passed)
            ranking.reweigh(chosen)
        ranked = _ranked(ranking, trace, subset_size, max_alternates)
        _weight, chosen = chooser(ranked[:subset_size])
        if trace is not None:
            _explain(result, host_states, ignored, forced)
            trace.record(candidates, ignored, forced,
                         _refusals(result, filter_objs, spec), ranked,
                         chosen)
        chosen.consume_from_instance(spec, instance_uuid)
        if group is not None:
            group.add_placement(chosen.host, instance_uuid)
        alternates = [state for _w, state in ranked
                      if state is not chosen and
                      state.cell_uuid == chosen.cell_uuid][:max_alternates]
        if len(alternates) < max_alternates and \
                len(ranked) < len(ranking.states):
            # The short list held too few hosts of the chosen one's cell.
            alternates = [state for _w, state in ranking.ranked()
                          if state is not chosen and
                          state.cell_uuid == chosen.cell_uuid][
                              :max_alternates]
        chosen_per_instance.append([chosen] + alternates)
        LOG.debug('Instance %d/%d: chose %s, alternates %s', index + 1,
                  num, chosen.host, [s.host for s in alternates])
    return chosen_per_instance


def _ranked(ranking, trace, subset_size, max_alternates):
    """The whole ranking for a trace; else only the hosts the choice and
    the alternates can come from."""
    if trace is not None:
        return ranking.ranked()
    return ranking.ranked(best=subset_size + max_alternates + 1)


def _refilter(active, passed, chosen, spec):
    """``passed`` for the next instance, after ``chosen`` took one.

    The group filters count members per host, so every node of the
    chosen host is filtered again, not the chosen node alone.
    """
    refused = {id(s) for s in passed if s.host == chosen.host and
               not all(f.host_passes(s, spec) for f in active)}
    if refused:
        passed = [s for s in passed if id(s) not in refused]
    for host_filter in active:
        if host_filter.depends_on_other_hosts:
            passed = [s for s in passed if host_filter.host_passes(s, spec)]
    return passed


def _explain(result, host_states, ignored, forced):
    """Count the hosts set aside before the filters into ``result``."""
    result.total = len(host_states)
    if forced:
        result.removed = [('force_hosts', 'not the forced host', ignored)]
    elif ignored and not any(name == 'ignore_hosts'
                             for name, _r, _h in result.removed):
        result.removed.insert(0, ('ignore_hosts', 'ignored host', ignored))


def _refusals(result, filter_objs, spec):
    by_name = {f.name: f for f in filter_objs}
    described = []
    for name, reason, hosts in result.removed:
        host_filter = by_name.get(name)
        described.append((name, reason, [
            (s, host_filter.refusal(s, spec) if host_filter else reason)
            for s in hosts]))
    return described


def _needs_instances(spec):
    """Whether any filter or weigher will look at who runs where: a server
    group, or the same_host / different_host hints."""
    hints = spec.scheduler_hints or {}
    return (spec.instance_group is not None or
            bool(hints.get('same_host') or hints.get('different_host')))


def _group_hosts_from(group, host_states):
    """The group's hosts as the host states show them (the caller's list
    may be stale: members deleted or moved since)."""
    members = set(group.members)
    group.hosts = sorted({s.host for s in host_states
                          if s.instances & members})


class FilterScheduler:

    def __init__(self, host_manager_=None):
        self.host_manager = host_manager_ or host_manager.HostManager()
        self.filters = filters.load(CONF.filter_scheduler.enabled_filters)
        self.weighers = weights.load(CONF.filter_scheduler.weight_classes)
        # Host states are shared between concurrent requests; consuming
        # resources on them must not interleave.
        self._lock = threading.Lock()

    def select_destinations(self, context, spec, instance_uuids,
                            return_alternates=True):
        max_alternates = (CONF.scheduler.max_attempts - 1
                          if return_alternates else 0)
        with self._lock:
            host_states = self.host_manager.get_host_states(
                context, with_instances=_needs_instances(spec))
            if spec.instance_group is not None:
                _group_hosts_from(spec.instance_group, host_states)
            chosen = schedule(spec, instance_uuids, host_states,
                              self.filters, self.weighers, max_alternates,
                              CONF.filter_scheduler.host_subset_size)
        return [[self._selection(state) for state in states]
                for states in chosen]

    @staticmethod
    def _selection(state):
        limits = objects.SchedulerLimits(
            memory_mb=state.limits.get('memory_mb'),
            vcpu=state.limits.get('vcpu'),
            disk_gb=state.limits.get('disk_gb'))
        return objects.Selection(
            compute_node_uuid=state.uuid, service_host=state.host,
            nodename=state.nodename, cell_uuid=state.cell_uuid,
            limits=limits)
