"""select_destinations: host states -> filters -> weighers -> choice.

For each instance of a request: run the enabled filters in order (counting
what each removed), weigh the survivors, pick at random among the best
``host_subset_size``, consume the instance's resources on that host state
so the next instance of the same request sees them gone, and return the
chosen host followed by up to ``max_attempts - 1`` alternates from the same
cell. If any instance cannot be placed the whole request fails with a
NoValidHost that says why, e.g. "0/4 hosts available: 3 insufficient RAM,
1 compute service down or disabled".
"""

import random
import threading

from oslo_log import log as logging

from nova_lite import conf as nova_conf
from nova_lite import exception
from nova_lite import objects
from nova_lite.scheduler import filters
from nova_lite.scheduler import host_manager
from nova_lite.scheduler import weights

CONF = nova_conf.CONF
LOG = logging.getLogger(__name__)


class FilterResult:
    """Which hosts passed, and how many each filter removed."""

    def __init__(self, total):
        self.total = total
        self.removed = []  # [(filter name, reason, count)]

    def explain(self):
        parts = ['%d %s' % (count, reason)
                 for _name, reason, count in self.removed if count]
        text = '0/%d hosts available' % self.total
        return text + (': ' + ', '.join(parts) if parts else '')


def run_filters(filter_objs, host_states, spec):
    result = FilterResult(len(host_states))
    remaining = list(host_states)
    for host_filter in filter_objs:
        passed = [s for s in remaining if host_filter.host_passes(s, spec)]
        result.removed.append((type(host_filter).__name__,
                               host_filter.reason,
                               len(remaining) - len(passed)))
        remaining = passed
        if not remaining:
            break
    return remaining, result


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
        with self._lock:
            host_states = self.host_manager.get_host_states(context)
            return self._schedule(spec, instance_uuids, host_states,
                                  return_alternates)

    def _candidates(self, spec, host_states):
        excluded = set(spec.ignore_hosts or [])
        if spec.retry is not None:
            excluded.update(host for host, _node in spec.retry.hosts)
        return [s for s in host_states if s.host not in excluded]

    @staticmethod
    def _forced(spec, candidates):
        """The hosts an admin forced (``force_hosts``/``force_nodes``), or
        None when nothing is forced. Forced hosts skip the filters."""
        hosts, nodes = spec.force_hosts or [], spec.force_nodes or []
        if not hosts and not nodes:
            return None
        return [s for s in candidates
                if (not hosts or s.host in hosts) and
                (not nodes or s.nodename in nodes)]

    def _schedule(self, spec, instance_uuids, host_states,
                  return_alternates=True):
        num = len(instance_uuids) or spec.num_instances
        max_alternates = (CONF.scheduler.max_attempts - 1
                          if return_alternates else 0)
        subset_size = CONF.filter_scheduler.host_subset_size
        candidates = self._candidates(spec, host_states)
        forced = self._forced(spec, candidates)
        selections = []
        for index in range(num):
            if forced is not None:
                passed, result = forced, FilterResult(len(candidates))
                result.removed.append(('force_hosts', 'not the forced host',
                                       len(candidates) - len(forced)))
            else:
                passed, result = run_filters(self.filters, candidates, spec)
            if not passed:
                LOG.info('No valid host for instance %d/%d of request %s: '
                         '%s', index + 1, num, spec.instance_uuid,
                         result.explain())
                raise exception.NoValidHost(reason=result.explain())
            ranked = weights.weigh_hosts(self.weighers, passed, spec)
            top = ranked[:subset_size]
            _weight, chosen = random.choice(top)
            chosen.consume_from_request(spec.flavor, spec.is_bfv)
            alternates = [state for _w, state in ranked
                          if state is not chosen and
                          state.cell_uuid == chosen.cell_uuid]
            alternates = alternates[:max_alternates]
            selections.append([self._selection(chosen)] +
                              [self._selection(s) for s in alternates])
            LOG.debug('Instance %d/%d: chose %s, alternates %s', index + 1,
                      num, chosen.host, [s.host for s in alternates])
        return selections

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
