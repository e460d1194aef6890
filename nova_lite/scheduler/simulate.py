"""``nova-lite-manage scheduler simulate``: the scheduling pipeline on hosts
described in JSON, with no daemon and no database.

The case names a configuration (``[filter_scheduler]``, ``[scheduler]``
and ``[DEFAULT]`` options), aggregates, hosts and a request; the answer
says where each instance goes, the alternates, the full weighed ranking
and what every filter removed and why. It decides as the daemon does:
hosts default to what a compute of the daemons' configuration reports
(allocation ratios, reserved RAM, disk and vCPUs), placement's part is
played from the hosts' figures -- only hosts with room for the flavor
within their allocation ratios, of the aggregates and with the traits the
request's pre-filters ask for, the first ``[scheduler]
max_placement_results`` of them -- and then the same
``filter_scheduler.schedule()`` as the daemon runs. With ``repeat``, the
answer adds ``timing_ms``: the median time of the whole decision, from the
host rows to the selection. The input format is documented in the README.
"""

import contextlib
import copy
import statistics
import time
import uuid as uuid_lib

from oslo_utils import uuidutils

from nova_lite import conf as nova_conf
from nova_lite import exception
from nova_lite import objects
from nova_lite.scheduler import filter_scheduler
from nova_lite.scheduler import filters
from nova_lite.scheduler import host_manager
from nova_lite.scheduler import utils as scheduler_utils
from nova_lite.scheduler import weights

CONF = nova_conf.CONF

# The simulated hosts all live in one pretend cell.
CELL = '00000000-0000-0000-0000-00000000cafe'


class CaseError(exception.Invalid):
    msg_fmt = 'Invalid simulation case: %(reason)s'


def _required(mapping, key, where):
    if not isinstance(mapping, dict) or key not in mapping:
        raise CaseError(reason='%s needs "%s"' % (where, key))
    return mapping[key]


def _object(value, where):
    """``value`` if it is a JSON object (or absent: {})."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise CaseError(reason='%s must be an object, not %s' % (
            where, type(value).__name__))
    return value


def _list(value, where):
    if value is None:
        return []
    if not isinstance(value, list):
        raise CaseError(reason='%s must be a list, not %s' % (
            where, type(value).__name__))
    return value


def _number(mapping, key, where, default=None, kind=int):
    value = mapping.get(key, default)
    if value is None:
        raise CaseError(reason='%s needs "%s"' % (where, key))
    try:
        return kind(value)
    except (TypeError, ValueError):
        raise CaseError(reason='%s: "%s" must be a number, not %r' % (
            where, key, value))


@contextlib.contextmanager
def configured(config):
    """Apply the case's options for the duration of the run."""
    applied = []
    try:
        for group, options in _object(config, 'config').items():
            if not isinstance(options, dict):
                raise CaseError(reason='config.%s must be an object' % group)
            group_name = None if group == 'DEFAULT' else group
            for name, value in options.items():
                try:
                    CONF.set_override(name, value, group=group_name)
                except (ValueError, KeyError) as e:
                    raise CaseError(reason='config.%s.%s: %s' % (
                        group, name, e))
                except Exception as e:  # NoSuchOptError and friends
                    raise CaseError(reason='config.%s.%s: %s' % (
                        group, name, e))
                applied.append((name, group_name))
        yield
    finally:
        for name, group_name in applied:
            CONF.clear_override(name, group=group_name)


class Reserved:
    """What a host keeps for itself: vCPUs, MB of RAM, GB of disk."""

    def __init__(self, vcpus, memory_mb, disk_gb):
        self.vcpus = vcpus
        self.memory_mb = memory_mb
        self.disk_gb = disk_gb


class Inventory:
    """A host's compute node provider as placement would see it: per
    resource class (total, reserved, allocation ratio, allocated), the
    allocations being what the compute node counts as used less what it
    keeps for itself."""

    def __init__(self, state, reserved, free_disk_gb):
        disk_total = state.total_usable_disk_gb
        self.resources = {
            'VCPU': (state.vcpus_total, reserved.vcpus,
                     state.cpu_allocation_ratio,
                     state.vcpus_used - reserved.vcpus),
            'MEMORY_MB': (state.total_usable_ram_mb, reserved.memory_mb,
                          state.ram_allocation_ratio,
                          state.total_usable_ram_mb - state.free_ram_mb -
                          reserved.memory_mb),
            'DISK_GB': (disk_total, reserved.disk_gb,
                        state.disk_allocation_ratio,
                        disk_total - free_disk_gb - reserved.disk_gb),
        }

    def fits(self, wanted):
        """Whether {resource class: amount} fits, as placement decides."""
        for rc, amount in wanted.items():
            if rc not in self.resources:
                return False
            total, reserved, ratio, used = self.resources[rc]
            if amount > total or \
                    used + amount > (total - min(reserved, total)) * ratio:
                return False
        return True


def _uuid_of(name):
    """A stable uuid for an aggregate the case names without one."""
    return str(uuid_lib.uuid5(uuid_lib.NAMESPACE_URL,
                              'nova-lite-simulate:' + name))


def host_states(case):
    """([HostState] from the case's hosts and aggregates (input order),
    {id(host state): Inventory})."""
    aggregates, zones, inventories = {}, {}, {}
    for index, item in enumerate(_list(case.get('aggregates'),
                                       'aggregates')):
        where = 'aggregates[%d]' % index
        item = _object(item, where)
        name = _required(item, 'name', where)
        aggregates[name] = host_manager.Aggregate(
            name, _object(item.get('metadata'), where + '.metadata'),
            _list(item.get('hosts'), where + '.hosts'))
        aggregates[name].uuid = str(item.get('uuid') or _uuid_of(name))
    states = []
    seen = set()
    for index, item in enumerate(_list(_required(case, 'hosts', 'the case'),
                                       'hosts')):
        where = 'hosts[%d]' % index
        item = _object(item, where)
        host = str(_required(item, 'host', where))
        nodename = str(item.get('nodename') or host)
        if (host, nodename) in seen:
            raise CaseError(reason='%s: %s/%s appears twice' % (
                where, host, nodename))
        seen.add((host, nodename))
        state = host_manager.HostState(host, nodename, CELL)
        state.uuid = item.get('uuid') or uuidutils.generate_uuid()
        # What the host keeps for itself, as its compute would report it:
        # counted as used on the compute node, reserved in placement.
        reserved = Reserved(
            _number(item, 'reserved_host_cpus', where,
                    CONF.reserved_host_cpus),
            _number(item, 'reserved_host_memory_mb', where,
                    CONF.reserved_host_memory_mb),
            -(-_number(item, 'reserved_host_disk_mb', where,
                       CONF.reserved_host_disk_mb) // 1024))
        state.vcpus_total = _number(item, 'vcpus', where)
        state.vcpus_used = _number(item, 'vcpus_used', where, reserved.vcpus)
        state.total_usable_ram_mb = _number(item, 'memory_mb', where)
        state.free_ram_mb = _number(
            item, 'free_ram_mb', where,
            state.total_usable_ram_mb - reserved.memory_mb)
        state.total_usable_disk_gb = _number(item, 'local_gb', where)
        free_disk_gb = _number(item, 'free_disk_gb', where,
                               state.total_usable_disk_gb - reserved.disk_gb)
        state.free_disk_mb = 1024 * free_disk_gb
        state.num_io_ops = _number(item, 'num_io_ops', where, 0)
        state.num_instances = _number(item, 'num_instances', where, 0)
        state.failed_builds = _number(item, 'failed_builds', where, 0)
        for ratio in ('cpu_allocation_ratio', 'ram_allocation_ratio',
                      'disk_allocation_ratio'):
            setattr(state, ratio, _number(item, ratio, where,
                                          getattr(CONF, ratio), float))
        if item.get('hypervisor_version') is not None:
            state.hypervisor_version = _number(item, 'hypervisor_version',
                                               where)
        state.hypervisor_type = item.get('hypervisor_type')
        state.supported_instances = [
            tuple(s) for s in item.get('supported_instances') or []]
        state.traits = set(item.get('traits') or [])
        state.stats = {str(k): v for k, v in _object(
            item.get('stats'), where + '.stats').items()}
        state.instances = set(item.get('instances') or [])
        service = _object(item.get('service'), where + '.service')
        state.service = {'up': bool(service.get('up', True)),
                         'disabled': bool(service.get('disabled', False)),
                         'forced_down': bool(service.get('forced_down',
                                                         False)),
                         'disabled_reason': service.get('disabled_reason')}
        names = set(item.get('aggregates') or [])
        for name in names:
            if name not in aggregates:
                raise CaseError(reason='%s: unknown aggregate %s' % (
                    where, name))
        state.aggregates = [a for name, a in sorted(aggregates.items())
                            if name in names or host in a.hosts]
        zone = item.get('availability_zone')
        if zone:
            name = 'zone-%s' % zone
            if name not in zones:
                zones[name] = host_manager.Aggregate(
                    name, {'availability_zone': zone})
                zones[name].uuid = _uuid_of(name)
            zones[name].hosts.add(host)
            state.aggregates.append(zones[name])
        inventories[id(state)] = Inventory(state, reserved, free_disk_gb)
        states.append(state)
    return states, inventories


def request_spec(case, states):
    """(RequestSpec, instance names) from the case's request."""
    request = _object(_required(case, 'request', 'the case'), 'request')
    flavor_in = _object(_required(request, 'flavor', 'request'),
                        'request.flavor')
    where = 'request.flavor'
    flavor = objects.Flavor(
        id=1, flavorid=str(flavor_in.get('id', 'simulated')),
        name=str(flavor_in.get('name', 'simulated')),
        vcpus=_number(flavor_in, 'vcpus', where),
        memory_mb=_number(flavor_in, 'memory_mb', where),
        root_gb=_number(flavor_in, 'root_gb', where, 0),
        ephemeral_gb=_number(flavor_in, 'ephemeral_gb', where, 0),
        swap=_number(flavor_in, 'swap', where, 0),
        extra_specs={str(k): str(v) for k, v in
                     _object(flavor_in.get('extra_specs'),
                             where + '.extra_specs').items()})
    image = _object(request.get('image'), 'request.image')
    hints = {}
    for name, value in _object(request.get('scheduler_hints'),
                               'request.scheduler_hints').items():
        hints[name] = [str(v) for v in value] if isinstance(
            value, list) else [str(value)]
    num = _number(request, 'num_instances', 'request', 1)
    if num < 1:
        raise CaseError(reason='request.num_instances must be at least 1')
    spec = objects.RequestSpec(
        instance_uuid=uuidutils.generate_uuid(),
        project_id=request.get('project_id'), num_instances=num,
        flavor=flavor,
        image=objects.ImageMeta(properties={
            str(k): str(v) for k, v in
            _object(image.get('properties'),
                    'request.image.properties').items()}),
        availability_zone=request.get('availability_zone'),
        scheduler_hints=hints,
        ignore_hosts=list(request.get('ignore_hosts') or []),
        force_hosts=list(request.get('force_hosts') or []),
        force_nodes=list(request.get('force_nodes') or []),
        requested_destination=_destination(
            request.get('requested_destination')),
        is_bfv=bool(request.get('boot_from_volume', False)))
    group = _object(request.get('server_group'), 'request.server_group')
    if group:
        spec.instance_group = _group(group, states)
    names = ['instance-%d' % i for i in range(num)]
    return spec, names


def _destination(value):
    """A move's named host, ``{"host": ..., "node": ...}`` (the node
    optional), which the filters still judge; None if not given."""
    destination = _object(value, 'request.requested_destination')
    if not destination:
        return None
    return objects.Destination(
        host=str(_required(destination, 'host',
                           'request.requested_destination')),
        node=(None if destination.get('node') is None
              else str(destination['node'])))


def _group(group, states):
    from nova_lite.objects import instance_group as group_obj
    policy = _required(group, 'policy', 'request.server_group')
    if policy not in group_obj.POLICIES:
        raise CaseError(reason='request.server_group.policy %r is not one '
                               'of %s' % (policy, ', '.join(
                                   group_obj.POLICIES)))
    by_host = {s.host: s for s in states}
    members, hosts = [], []
    for host, on_host in sorted((group.get('members_on_hosts') or
                                 {}).items()):
        if host not in by_host:
            raise CaseError(reason='request.server_group.members_on_hosts '
                                   'names unknown host %s' % host)
        names = [str(m) for m in on_host]
        members.extend(names)
        if names:
            hosts.append(host)
            by_host[host].instances.update(names)
    return objects.InstanceGroup(
        uuid=group.get('uuid') or uuidutils.generate_uuid(),
        name=group.get('name'), policy=policy,
        rules={str(k): str(v) for k, v in (group.get('rules') or
                                           {}).items()},
        members=members, hosts=hosts)


def _first(choices):
    return choices[0]


# Why placement would not offer a host (the daemon's words).
NO_ROOM = 'not enough free resources in placement'
BEYOND_LIMIT = 'beyond [scheduler] max_placement_results'


def placement_offers(spec, states, inventories):
    """(the host states placement would offer for one instance of
    ``spec``, in order, at most ``max_placement_results``; [(reason, [host
    state])] of the others)."""
    wanted = scheduler_utils.resources_from_request_spec(spec)
    offered, no_room = [], []
    for state in states:
        (offered if inventories[id(state)].fits(wanted)
         else no_room).append(state)
    limit = CONF.scheduler.max_placement_results
    set_aside = [(NO_ROOM, no_room)]
    if len(offered) > limit:
        set_aside.append((BEYOND_LIMIT, offered[limit:]))
        offered = offered[:limit]
    return offered, set_aside


def decide(case, filter_objs, weighers, trace=None):
    """(instance names, [[chosen host state, alternates...]] or the
    NoValidHost): the whole decision, from the case's host rows to the
    selection."""
    states, inventories = host_states(case)
    spec, names = request_spec(case, states)
    offered, set_aside = placement_offers(spec, states, inventories)
    subset = CONF.filter_scheduler.host_subset_size
    try:
        return names, filter_scheduler.schedule(
            spec, names, offered, filter_objs, weighers,
            max_alternates=CONF.scheduler.max_attempts - 1,
            subset_size=subset, trace=trace, set_aside=set_aside,
            chooser=None if subset > 1 else _first)
    except exception.NoValidHost as e:
        return names, e


def run(case, repeat=0):
    """The simulation's answer (a JSON-able dict) for ``case``; with
    ``repeat``, also ``timing_ms``, the median milliseconds of that many
    more decisions (made without the trace)."""
    if not isinstance(case, dict):
        raise CaseError(reason='the case must be a JSON object')
    case = copy.deepcopy(case)
    with configured(case.get('config')):
        filter_objs = filters.load(CONF.filter_scheduler.enabled_filters)
        weighers = weights.load(CONF.filter_scheduler.weight_classes)
        trace = filter_scheduler.Trace()
        names, chosen = decide(case, filter_objs, weighers, trace)
        answer = {'chosen_hosts': [], 'selections': [], 'instances': []}
        if isinstance(chosen, exception.NoValidHost):
            answer['error'] = {'type': type(chosen).__name__,
                               'message': chosen.format_message()}
            chosen = []
        for name, states_for in zip(names, chosen):
            answer['chosen_hosts'].append(states_for[0].host)
            answer['selections'].append({
                'instance': name, 'host': states_for[0].host,
                'nodename': states_for[0].nodename,
                'limits': dict(states_for[0].limits),
                'alternates': [{'host': s.host, 'nodename': s.nodename}
                               for s in states_for[1:]]})
        for name, steps in zip(names, trace.instances):
            answer['instances'].append(dict(steps, instance=name))
        if repeat:
            timings = []
            for _ in range(repeat):
                started = time.perf_counter()
                decide(case, filter_objs, weighers)
                timings.append(time.perf_counter() - started)
            answer['timing_ms'] = round(
                statistics.median(timings) * 1000, 3)
        return answer
