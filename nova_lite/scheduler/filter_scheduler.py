"""select_destinations: host states -> filters -> weighers -> choice.

For each instance of a request: drop the ignored hosts (or keep only the
forced ones, which then skip the filters, or only the nodes of a move's
requested destination, which do not), run the enabled filters in order
(counting what each removed), weigh the survivors, pick at random among the
best ``host_subset_size``, consume the instance on that host state and
record it in the request's server group, so the next instance of the same
request sees both; return the chosen host followed by up to
``max_attempts - 1`` alternates from the same cell. If any instance cannot
be placed the whole request fails with a NoValidHost that says why, e.g.
"0/4 hosts available: 3 insufficient RAM, 1 compute service down or
disabled", or for a move to a named host "0/3 hosts available: 1 ignored
host, 1 not the requested host, 1 anti-affinity policy".

``schedule()`` is the pipeline on its own (no database, no RPC): the
scheduler daemon and ``nova-lite-manage scheduler simulate`` both run it.
"""

import random
import threading

from oslo_log import log as logging
from oslo_serialization import jsonutils

from nova_lite import conf as nova_conf
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import instance_group as group_obj
from nova_lite import placement_client
from nova_lite.scheduler import filters
from nova_lite.scheduler import host_manager
from nova_lite.scheduler import request_filter
from nova_lite.scheduler import utils as scheduler_utils
from nova_lite.scheduler import weights

CONF = nova_conf.CONF
LOG = logging.getLogger(__name__)

# How many times a request is scheduled again when it finds claims that
# an earlier request for its instances wrote meanwhile.
CONFLICT_ROUNDS = 3

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

    def record(self, candidates, ruled_out, forced, result, ranked, chosen):
        self.instances.append({
            'candidates': len(candidates),
            'ignored': [s.host for _n, _r, states in ruled_out
                        for s in states],
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


# (name, reason) of the hosts the request itself rules out before any
# filter runs.
_IGNORED = ('ignore_hosts', 'ignored host')
_NOT_FORCED = ('force_hosts', 'not the forced host')
_NOT_REQUESTED = ('requested_destination', 'not the requested host')


def _excluded(spec, host_states):
    """(candidates, ruled out, forced?), where ``ruled out`` is [(name,
    reason, [host state])] of the hosts the request itself leaves out:
    those it ignores and -- with force_hosts / force_nodes, or else a
    requested destination -- every host but those. Forced candidates
    skip the filters; a requested destination's nodes are filtered like
    any host."""
    ignore = set(spec.ignore_hosts or [])
    candidates = [s for s in host_states if s.host not in ignore]
    ruled_out = [_IGNORED + ([s for s in host_states if s.host in ignore],)]
    hosts, nodes = spec.force_hosts or [], spec.force_nodes or []
    destination = spec.requested_destination
    forced = bool(hosts or nodes)
    if forced:
        def wanted(state):
            return ((not hosts or state.host in hosts) and
                    (not nodes or state.nodename in nodes))
        why = _NOT_FORCED
    elif destination is not None:
        wanted, why = destination.holds, _NOT_REQUESTED
    else:
        return candidates, ruled_out, False
    ruled_out.append(why + ([s for s in candidates if not wanted(s)],))
    return [s for s in candidates if wanted(s)], ruled_out, forced


# Hosts the request itself rules out, whatever their state: a
# rescheduled build's tried hosts, the hosts it ignores. (Not the hosts
# other than a move's requested destination: that one host being late to
# report is that host's trouble, not a blink of every compute's.)
_RULED_OUT_BY_THE_REQUEST = ('RetryFilter', _IGNORED[0])


def _every_compute_unheard_from(result):
    """Whether every host the request could still use was refused by the
    compute filter only because its service has not reported lately (not
    disabled, not forced down)."""
    unheard = [state for name, _reason, hosts in result.removed
               if name == 'ComputeFilter' for state in hosts]
    ruled_out = sum(len(hosts) for name, _reason, hosts in result.removed
                    if name in _RULED_OUT_BY_THE_REQUEST)
    if not unheard or len(unheard) + ruled_out != result.total:
        return False
    return all(not state.service['disabled'] and
               not state.service['forced_down'] for state in unheard)


def _still_wanted(spec, state):
    """Whether the request may land on ``state``: not ignored, among the
    forced hosts or the requested destination if any, not tried
    already."""
    candidates, _ruled_out, _forced = _excluded(spec, [state])
    if not candidates:
        return False
    tried = spec.retry.hosts if spec.retry is not None else ()
    return [state.host, state.nodename] not in [list(t) for t in tried]


def schedule(spec, instance_uuids, host_states, filter_objs, weighers,
             max_alternates=0, subset_size=1, trace=None, chooser=None,
             claim=None, set_aside=()):
    """Per instance [chosen HostState, alternate, ...]; raises NoValidHost.

    Consumes each instance on its chosen host state and records it in
    ``spec.instance_group``. Placing an instance only takes from the
    chosen host (and the group), so for the next instance of the request
    the filters run again on that host alone -- plus those whose answer
    depends on other hosts, on every host still in the running -- and
    only that host is weighed again: a request for ten instances costs
    little more than one.

    ``claim(host_state, instance_uuid)``, when given, takes the chosen
    host's resources for the instance (in placement) and says whether it
    could; a host whose claim is refused (another scheduler was faster)
    is dropped and the next best one chosen. ``set_aside`` is [(reason,
    [host state])] of hosts left out before this call (placement had no
    room on them), counted in a NoValidHost's explanation; it may be a
    function returning that list, called only if an explanation is
    needed.
    """
    check_policy(spec, filter_objs, weighers)
    chooser = chooser or random.choice
    num = len(instance_uuids) or spec.num_instances
    candidates, ruled_out, forced = _excluded(spec, host_states)
    group = spec.instance_group
    active = [f for f in filter_objs if f.applies(spec)]
    passed = ranking = chosen = None
    lost = []  # hosts whose claim was refused
    if not callable(set_aside):
        set_aside = (lambda listed: lambda: listed)(set_aside)

    def no_valid_host(index, result):
        set_aside_now = set_aside()
        everyone = list(host_states) + [
            s for _reason, states in set_aside_now for s in states]
        # A host set aside that the request itself rules out (ignored,
        # not the requested host) is counted as such, not for lack of
        # room.
        _candidates, request_refused, _forced = _excluded(spec, everyone)
        refused = {id(s) for _n, _r, states in request_refused
                   for s in states}
        aside = [s for _reason, states in set_aside_now for s in states
                 if id(s) not in refused]
        if forced:
            # Forced hosts skip the filters.
            result = FilterResult(len(everyone))
        elif result is None or aside:
            # The hosts set aside go through the filters too, so that a
            # host that is simply too small says "insufficient RAM";
            # only those the filters would have let through are counted
            # under the reason they were set aside for.
            result = run_filters(filter_objs, candidates + aside, spec)[1]
        refused |= {id(s) for _n, _r, hosts in result.removed for s in hosts}
        unexplained = [(reason, [s for s in states if id(s) not in refused])
                       for reason, states in set_aside_now]
        _explain(result, len(everyone), request_refused, forced,
                 unexplained, lost)
        if trace is not None:
            trace.record(candidates, request_refused, forced,
                         _refusals(result, filter_objs, spec), [], None)
        LOG.info('No valid host for instance %d/%d of request %s: %s',
                 index + 1, num, spec.instance_uuid, result.explain())
        if _every_compute_unheard_from(result):
            return exception.ComputesUnheardFrom(
                reason=result.explain() + ' (every compute service the '
                'request can use is late to report; none is '
                'disabled)')
        return exception.NoValidHost(reason=result.explain())

    # As Nova, each instance after the first sees the hosts in the order
    # the previous one ranked them, its chosen host first: equal weights
    # then favour the host just chosen. (Only a multi-create pays for the
    # full sort this needs.)
    ordered = num > 1
    chosen_hosts = []
    for index in range(num):
        instance_uuid = instance_uuids[index] if instance_uuids else None
        result = None
        if forced:
            passed, result = candidates, FilterResult(len(host_states))
        elif passed is None:
            passed, result = run_filters(filter_objs, candidates, spec)
        elif trace is not None:
            ok, result = run_filters(filter_objs, candidates, spec)
            ok = {id(s) for s in ok}
            passed = [s for s in passed if id(s) in ok]
        else:
            passed = _refilter(active, passed, chosen, spec)
        if not passed:
            # (When the incremental pass ran out of hosts the filters run
            # again in full, for an explanation that adds up.)
            raise no_valid_host(index, result)
        if ranking is None or trace is not None:
            ranking = weights.Ranking(weighers, passed, spec)
        else:
            ranking.keep(passed)
            ranking.reweigh(chosen)
            ranking.reorder(passed)
        ranked = _ranked(ranking, trace or ordered, subset_size,
                         max_alternates)
        _weight, picked = chooser(ranked[:subset_size])
        # The picked host is claimed, else -- as in Nova, without weighing
        # again -- the next in the ranking; a host whose claim was refused
        # stays among the hosts weighed, but is not claimed again.
        chosen = None
        for candidate in _claim_order(picked, ranked, ranking):
            if candidate in lost:
                continue
            if claim is None or claim(candidate, instance_uuid):
                chosen = candidate
                break
            LOG.info('Claim on %s refused for instance %d/%d of request '
                     '%s; trying the next host', candidate.host, index + 1,
                     num, spec.instance_uuid)
            lost.append(candidate)
        if chosen is None:
            raise no_valid_host(index, None)
        if trace is not None:
            set_aside_now = set_aside()
            _explain(result, len(host_states) + sum(
                len(states) for _r, states in set_aside_now), ruled_out,
                forced, set_aside_now, lost)
            trace.record(candidates, ruled_out, forced,
                         _refusals(result, filter_objs, spec), ranked,
                         chosen)
        chosen.consume_from_instance(spec, instance_uuid)
        if group is not None:
            group.add_placement(chosen.host, instance_uuid)
        chosen_hosts.append(chosen)
        if ordered:
            passed = [picked] + [state for _w, state in ranked
                                 if state is not picked]
        LOG.debug('Instance %d/%d: chose %s', index + 1, num, chosen.host)
    if not ordered:
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
        return [[chosen] + alternates]
    # A multi-create's alternates come, as in Nova, from one last ranking
    # of the hosts after every instance took its share, and are none of
    # the hosts chosen.
    final = []
    if max_alternates and not forced:
        passed = _refilter(active, passed, chosen, spec)
        if passed:
            ranking.keep(passed)
            ranking.reweigh(chosen)
            ranking.reorder(passed)
            final = _ranked(ranking, True, subset_size, max_alternates)
            _weight, first = chooser(final[:subset_size])
            final = [first] + [s for _w, s in final if s is not first]
    elif max_alternates:
        final = list(passed)
    taken = {id(s) for s in chosen_hosts}
    per_instance = []
    for chosen in chosen_hosts:
        alternates = [state for state in final
                      if id(state) not in taken and
                      state.cell_uuid == chosen.cell_uuid][:max_alternates]
        per_instance.append([chosen] + alternates)
    return per_instance


def _claim_order(picked, ranked, ranking):
    """The hosts to claim, in order: the one picked, then the others as
    ranked -- the whole ranking if the short list runs out."""
    yield picked
    for _weight, state in ranked:
        if state is not picked:
            yield state
    if len(ranked) < len(ranking.states):
        for _weight, state in ranking.ranked()[len(ranked):]:
            if state is not picked:
                yield state


def _candidate_limit(spec, in_tree):
    """How many allocation candidates to ask placement for: as Nova,
    ``[scheduler] max_placement_results``, but all of them for a request
    in a server group or with a same_host / different_host hint (the
    hosts those filters want must not be cut off) and for a named host
    that is not one node (placement can narrow to one tree only)."""
    if scheduler_utils.unlimited_candidates(spec):
        return None
    names_a_host = bool(spec.force_hosts or spec.force_nodes or
                        spec.requested_destination is not None)
    if names_a_host and in_tree is None:
        return None
    return CONF.scheduler.max_placement_results


def _ranked(ranking, trace, subset_size, max_alternates):
    """The whole ranking for a trace; else only the hosts the choice and
    the alternates can come from. With ``[filter_scheduler]
    shuffle_best_same_weighed_hosts``, the hosts sharing the best weight
    come in a random order."""
    shuffle = CONF.filter_scheduler.shuffle_best_same_weighed_hosts
    if trace is not None or shuffle:
        ranked = ranking.ranked()
    else:
        return ranking.ranked(best=subset_size + max_alternates + 1)
    if shuffle and ranked:
        best = [item for item in ranked if item[0] == ranked[0][0]]
        random.shuffle(best)
        ranked[:len(best)] = best
    return ranked


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


def _explain(result, total, ruled_out, forced, set_aside=(), lost=()):
    """Count the hosts the request ruled out and those set aside before
    the filters (and those whose claim was refused after them) into
    ``result``, of ``total`` hosts. Forced hosts skip the filters, so
    then only what the request ruled out is counted."""
    result.total = total
    if forced:
        result.removed = []
    named = {name for name, _r, _h in result.removed}
    result.removed[:0] = [(name, reason, list(states))
                          for name, reason, states in ruled_out
                          if states and name not in named]
    for reason, states in reversed(set_aside):
        if states and not any(r == reason for _n, r, _h in result.removed):
            result.removed.insert(0, ('placement', reason, states))
    if lost and not any(name == 'claim' for name, _r, _h in result.removed):
        # They passed the filters on the figures this scheduler had; by
        # the time it claimed, a concurrent request had taken the room.
        lost_ids = {id(s) for s in lost}
        for _name, _reason, hosts in result.removed:
            hosts[:] = [s for s in hosts if id(s) not in lost_ids]
        result.removed.append(('claim', 'taken by a concurrent request',
                               list(lost)))


def _refusals(result, filter_objs, spec):
    by_name = {f.name: f for f in filter_objs}
    described = []
    for name, reason, hosts in result.removed:
        host_filter = by_name.get(name)
        described.append((name, reason, [
            (s, host_filter.refusal(s, spec) if host_filter else reason)
            for s in hosts]))
    return described


def _not_offered(query):
    """Why a host placement did not offer is set aside, in a NoValidHost's
    explanation: for lack of room, or also (when the pre-filters narrowed
    the query by aggregate) for being outside what the request asked.
    (The filters run on those hosts too, so a host of another zone says
    so under AvailabilityZoneFilter.)"""
    if query is None or not query.narrows_by_aggregate:
        return 'not enough free resources in placement'
    return 'not offered by placement (no room, or not matching %s)' % (
        query.describe())


def _claim_later(offers, later):
    """A ``claim`` for ``schedule`` that writes nothing: each instance's
    claim is the chosen host's first allocation request, kept in
    ``later`` ({instance uuid: (host state, request)}) to be written
    together."""
    def claim(state, instance_uuid):
        requests = offers.get(state.uuid)
        if not requests:
            return False
        later[instance_uuid] = (state, requests[0])
        return True
    return claim


def _needs_instances(spec):
    """Whether any filter or weigher will look at who runs where: a server
    group, or the same_host / different_host hints."""
    hints = spec.scheduler_hints or {}
    return (spec.instance_group is not None or
            bool(hints.get('same_host') or hints.get('different_host')))


class FilterScheduler:

    def __init__(self, host_manager_=None, reportclient=None):
        self.host_manager = host_manager_ or host_manager.HostManager()
        self.reportclient = reportclient or placement_client.PlacementClient()
        self.filters = filters.load(CONF.filter_scheduler.enabled_filters)
        self.weighers = weights.load(CONF.filter_scheduler.weight_classes)
        # Host states are shared between concurrent requests; consuming
        # resources on them must not interleave.
        self._lock = threading.Lock()

    def select_destinations(self, context, spec, instance_uuids,
                            return_alternates=True):
        """Per instance [Selection of the chosen host, alternates...].

        Only hosts placement has room on are considered; the chosen
        host's allocation candidate is claimed in placement for the
        instance before the answer goes out, so two schedulers cannot
        fill the same room. If any instance of the request cannot be
        placed, what was claimed for the others is given back.

        Asking again is safe: an instance that holds a claim already (an
        earlier answer was lost -- a timeout, a scheduler or broker
        restart -- or a late duplicate of the request is still at work)
        keeps it, and this answer names its host. The claim is adopted
        by writing it again (its consumer generation moves on), so a
        give-back by the earlier request no longer applies to it.
        """
        adopted = {}
        for _attempt in range(CONFLICT_ROUNDS):
            try:
                return self._select(context, spec, instance_uuids,
                                    return_alternates, adopted)
            except placement_client.ConsumerExists as e:
                LOG.info('Instance %s holds a claim already: an earlier '
                         'request placed it; adopting the claims of '
                         'request %s', e.kwargs['consumer'],
                         spec.instance_uuid)
                adopted = self._adopt(instance_uuids)
        raise exception.NoValidHost(
            reason='the claims of request %s kept changing while it was '
                   'scheduled' % spec.instance_uuid)

    def _adopt(self, instance_uuids):
        """{instance uuid: (allocation request, consumer generation)} of
        the instances that hold a claim already, now adopted."""
        adopted = {}
        for uuid in instance_uuids:
            try:
                held = self.reportclient.get_allocations(uuid)
                if not held.get('allocations'):
                    continue
                generation = self.reportclient.adopt_allocations(uuid, held)
            except placement_client.PlacementUnavailable as e:
                raise exception.PlacementUnreachable(
                    reason='the claim of %s could not be read from '
                           'placement (%s)' % (uuid, e))
            adopted[uuid] = ({'allocations': {
                rp: {'resources': a['resources']}
                for rp, a in held['allocations'].items()}}, generation,
                held.get('project_id'), held.get('user_id'))
        return adopted

    def _select(self, context, spec, instance_uuids, return_alternates,
                adopted):
        max_alternates = (CONF.scheduler.max_attempts - 1
                          if return_alternates else 0)
        query = request_filter.placement_query(context, spec)
        offers = self._allocation_candidates(
            spec, self._destination_tree(context, spec), query)
        # instance uuid -> (allocation request, consumer generation,
        # project, user) of what this request claimed (or adopted).
        claims = dict(adopted)
        project_id = spec.project_id or context.project_id
        user_id = spec.user_id or context.user_id

        def written(what, write, requests):
            """Whether placement took the claims ``write()`` asks for:
            ``requests`` ({instance uuid: allocation request}), then
            kept in ``claims``."""
            try:
                taken = write()
            except placement_client.PlacementUnavailable as e:
                raise exception.PlacementUnreachable(
                    reason='%s could not be written to placement (%s)' %
                    (what, e))
            if taken:
                for instance_uuid, request in requests.items():
                    claims[instance_uuid] = (
                        request, placement_client.NEW_CONSUMER_GENERATION,
                        project_id, user_id)
            return taken

        def claim(state, instance_uuid):
            for request in offers.get(state.uuid, ()):
                if written('the claim on %s' % state.host,
                           lambda: self.reportclient.claim_resources(
                               instance_uuid, request, project_id, user_id),
                           {instance_uuid: request}):
                    return True
            return False

        def claim_together(later):
            requests = {uuid: request
                        for uuid, (_state, request) in later.items()}
            return written(
                'the claims of %d instances' % len(requests),
                lambda: self.reportclient.claim_all(requests, project_id,
                                                    user_id),
                requests)

        def set_aside():
            # Only for a NoValidHost's explanation: every other host.
            everyone = self.host_manager.get_host_states(
                context, with_instances=False)
            return [(_not_offered(query),
                     [s for s in everyone if s.uuid not in offers])]

        unread = []
        try:
            with self._lock:
                held_at = self._adopted_hosts(context, spec, adopted)
                for uuid in set(adopted) - set(held_at):
                    del claims[uuid]  # given back
                to_place = [uuid for uuid in instance_uuids
                            if uuid not in held_at]
                host_states = self.host_manager.get_host_states(
                    context, with_instances=_needs_instances(spec),
                    uuids=set(offers))
                # (A NoValidHost's explanation reads the hosts again.)
                unread = list(self.host_manager.unread)
                if spec.instance_group is not None:
                    # Where the members run, full hosts included.
                    spec.instance_group.hosts = sorted(
                        self.host_manager.hosts_of(
                            spec.instance_group.members) |
                        {state.host for state in held_at.values()})

                def place(claim):
                    return schedule(
                        spec, to_place, host_states, self.filters,
                        self.weighers, max_alternates,
                        CONF.filter_scheduler.host_subset_size,
                        claim=claim if instance_uuids else None,
                        set_aside=set_aside)

                chosen = []
                if len(to_place) > 1 and spec.instance_group is None:
                    # A multi-create's claims go to placement in one
                    # request, once all are placed. Should placement
                    # refuse them (it then writes none), the hosts get
                    # back what they lent and each instance is placed and
                    # claimed alone, as below.
                    later = {}
                    chosen = place(_claim_later(offers, later))
                    if not claim_together(later):
                        for uuid, (state, _request) in later.items():
                            state.give_back_instance(spec, uuid)
                        chosen = place(claim)
                elif to_place or not instance_uuids:
                    chosen = place(claim)
        except placement_client.ConsumerExists:
            self._give_back(claims, keep=adopted)
            raise
        except placement_client.PlacementConflict as e:
            self._give_back(claims)
            raise exception.NoValidHost(
                reason='a claim could not be written to placement (%s)' % e)
        except exception.NoValidHost as e:
            self._give_back(claims)
            unread += [what for what in self.host_manager.unread
                       if what not in unread]
            if type(e) is not exception.NoValidHost or not unread:
                raise
            # The host it needs may be among those not read.
            raise exception.HostsUnread(reason='%s; not read: %s' % (
                e.kwargs.get('reason', ''), '; '.join(unread))) from e
        except Exception:
            self._give_back(claims)
            raise
        placed = dict(zip(to_place, chosen))
        adopted = {uuid: adopted[uuid] for uuid in held_at}
        selections = []
        for index in range(len(instance_uuids) or len(chosen)):
            instance_uuid = instance_uuids[index] if instance_uuids else None
            if instance_uuid in adopted:
                selections.append([self._selection(
                    held_at[instance_uuid], self._with_mappings(
                        spec, adopted[instance_uuid][0]))])
                continue
            first, *alternates = (placed[instance_uuid] if instance_uuid
                                  else chosen[index])
            selections.append(
                [self._selection(first, claims[instance_uuid][0]
                                 if instance_uuid in claims else
                                 offers[first.uuid][0])] +
                [self._selection(state, offers[state.uuid][0])
                 for state in alternates])
        LOG.info('Request %s: %d instance(s) placed and claimed on %s%s',
                 spec.instance_uuid, len(selections),
                 ', '.join(s[0].service_host for s in selections),
                 ' (%d adopted)' % len(adopted) if adopted else '')
        return selections

    def _adopted_hosts(self, context, spec, adopted):
        """{instance uuid: the HostState of the compute node its adopted
        claim is on}."""
        if not adopted:
            return {}
        providers = {rp for request, *_ in adopted.values()
                     for rp in request['allocations']}
        states = {state.uuid: state for state in
                  self.host_manager.get_host_states(
                      context, with_instances=False, uuids=providers)}
        found = {}
        for uuid, (request, *_rest) in adopted.items():
            nodes = [states[rp] for rp in request['allocations']
                     if rp in states]
            if not nodes:
                raise exception.NoValidHost(
                    reason='instance %s holds a claim on providers that '
                           'are no compute node of this deployment (%s)' %
                           (uuid, ', '.join(sorted(request['allocations']))))
            if not _still_wanted(spec, nodes[0]):
                # Left over from a try this request has moved on from
                # (its give-back failed): given back, and placed anew.
                LOG.info('The claim %s holds on %s is not one this request '
                         'may keep; giving it back', uuid, nodes[0].host)
                self._give_back({uuid: adopted[uuid]})
                continue
            found[uuid] = nodes[0]
        return found

    def _with_mappings(self, spec, request):
        """An adopted claim as an allocation request with ``mappings``
        (which provider serves each port's request group), found again
        from what it holds."""
        groups = spec.requested_resources
        if not groups:
            return request
        traits = {rp: set(self.reportclient.provider_traits(rp))
                  for rp in request['allocations']}
        by_port = scheduler_utils.mappings_from_allocations(
            groups, request['allocations'], traits)
        return dict(request, mappings={
            group.suffix: [by_port[group.requester_id]] for group in groups})

    def _destination_tree(self, context, spec):
        """The compute node that a move's requested destination -- or a
        request's one forced host -- is, so that placement is asked about
        its tree alone (among ``max_placement_results`` candidates from
        every host it might not be); None to ask about every host: no
        such host, a host of several nodes, or its nodes not readable."""
        if spec.force_hosts or spec.force_nodes:
            if len(spec.force_hosts or ()) != 1 or \
                    len(spec.force_nodes or ()) > 1:
                return None
            host = spec.force_hosts[0]
            node = spec.force_nodes[0] if spec.force_nodes else None
        elif spec.requested_destination is not None:
            host = spec.requested_destination.host
            node = spec.requested_destination.node
        else:
            return None
        try:
            uuids = self.host_manager.node_uuids(context, host, node)
        except Exception as e:
            LOG.warning('Cannot read the compute nodes of %s (%s); asking '
                        'placement about every host', host, e)
            return None
        return uuids[0] if len(uuids) == 1 else None

    def _allocation_candidates(self, spec, in_tree=None, query=None):
        """{compute node provider uuid: [allocation request]} for what one
        instance of ``spec`` needs, at most ``max_placement_results``;
        only within the tree of the provider ``in_tree``, if given, and
        narrowed by the request pre-filters' ``query`` (a
        request_filter.PlacementQuery) before the limit."""
        resources = scheduler_utils.resources_from_request_spec(spec)
        narrowing = query.placement_arguments() if query is not None else {}
        try:
            requests, summaries = self.reportclient.get_allocation_candidates(
                resources, limit=_candidate_limit(spec, in_tree),
                groups=spec.requested_resources, in_tree=in_tree,
                **narrowing)
        except placement_client.PlacementConflict as e:
            if in_tree is None:
                if isinstance(e, placement_client.PlacementBadRequest):
                    # Asking again will not help (a trait placement does
                    # not know, from the flavor or the image).
                    raise exception.NoValidHost(
                        reason='placement refused the query for %s (%s)' %
                        (query.describe() if query else 'the resources',
                         e.kwargs.get('reason', e)))
                raise self._unreachable(spec, e)
            # The node has no provider yet (its compute has not reported
            # to placement): no tree to narrow to.
            LOG.info('Placement refused the tree of %s (%s); asking about '
                     'every host', in_tree, e)
            return self._allocation_candidates(spec, query=query)
        except placement_client.PlacementUnavailable as e:
            raise self._unreachable(spec, e)
        offers = {}
        for request in requests:
            roots = {summaries.get(rp, {}).get('root_provider_uuid', rp)
                     for rp in request['allocations']}
            # A compute node's tree, possibly with sharing providers
            # (those are roots of their own, with no host state).
            for root in roots:
                offers.setdefault(root, []).append(request)
        LOG.debug('Placement offered %d allocation requests on %d '
                  'providers for %s (%s)', len(requests), len(offers),
                  resources, query.describe() if query else 'no pre-filter')
        return offers

    @staticmethod
    def _unreachable(spec, e):
        LOG.warning('No allocation candidates for request %s: %s',
                    spec.instance_uuid, e)
        return exception.PlacementUnreachable(
            reason='placement could not be asked for hosts with room '
                   '(%s)' % e)

    def _give_back(self, claims, keep=()):
        """Give back the ``claims`` this request wrote (or adopted), each
        only if nobody wrote it since; those in ``keep`` stay."""
        for consumer, (_request, generation, project_id, user_id) in \
                claims.items():
            if consumer in keep:
                continue
            try:
                self.reportclient.give_back_claim(consumer, generation,
                                                  project_id, user_id)
            except (placement_client.PlacementUnavailable,
                    placement_client.PlacementConflict) as e:
                LOG.warning('Could not give back the claim of %s (the '
                            'compute audit will): %s', consumer, e)

    @staticmethod
    def _selection(state, allocation_request):
        limits = objects.SchedulerLimits(
            memory_mb=state.limits.get('memory_mb'),
            vcpu=state.limits.get('vcpu'),
            disk_gb=state.limits.get('disk_gb'))
        return objects.Selection(
            compute_node_uuid=state.uuid, service_host=state.host,
            nodename=state.nodename, cell_uuid=state.cell_uuid,
            limits=limits,
            allocation_request=jsonutils.dumps(allocation_request))
