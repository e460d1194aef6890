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
from nova_lite.scheduler import request_filter
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
    if value.__class__ is kind:
        return value
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


class Host:
    """One host row of the case, read and checked once: what a compute
    node row, its service record and its provider's inventory would say.
    ``state()`` makes the scheduler's HostState of it (a new one for each
    decision: deciding consumes from it)."""

    __slots__ = ('host', 'nodename', 'uuid', 'vcpus', 'vcpus_used',
                 'memory_mb', 'free_ram_mb', 'local_gb', 'free_disk_gb',
                 'num_io_ops', 'num_instances', 'failed_builds',
                 'cpu_allocation_ratio', 'ram_allocation_ratio',
                 'disk_allocation_ratio', 'hypervisor_type',
                 'hypervisor_version', 'supported_instances', 'traits',
                 'stats', 'instances', 'service', 'aggregates',
                 'aggregate_uuids', 'reserved', 'allocated', 'room',
                 'totals')

    def state(self, members=None):
        # (Every slot set here at once: ten thousand of these per decision.)
        state = _new_host_state(host_manager.HostState)
        state.host = self.host
        state.nodename = self.nodename
        state.cell_uuid = CELL
        state.uuid = self.uuid
        state.vcpus_total = self.vcpus
        state.vcpus_used = self.vcpus_used
        state.total_usable_ram_mb = self.memory_mb
        state.free_ram_mb = self.free_ram_mb
        state.total_usable_disk_gb = self.local_gb
        state.free_disk_mb = 1024 * self.free_disk_gb
        state.num_io_ops = self.num_io_ops
        state.num_instances = self.num_instances
        state.failed_builds = self.failed_builds
        state.cpu_allocation_ratio = self.cpu_allocation_ratio
        state.ram_allocation_ratio = self.ram_allocation_ratio
        state.disk_allocation_ratio = self.disk_allocation_ratio
        state.hypervisor_type = self.hypervisor_type
        state.hypervisor_version = self.hypervisor_version
        state.supported_instances = self.supported_instances
        state.traits = self.traits
        state.stats = self.stats
        state.instances = set(self.instances)
        if members:
            state.instances.update(members)
        state.placed = set()
        state.service = self.service
        state.aggregates = self.aggregates
        state.updated = None
        state.limits = {}
        return state

    def asked_for(self, query):
        """Whether this host's provider is what the pre-filters'
        PlacementQuery asks for: in one aggregate of each member_of, in
        none of the forbidden ones, with the required traits and without
        the forbidden ones (the compute node alone: the simulation has no
        nested providers)."""
        uuids = self.aggregate_uuids
        return (all(not uuids.isdisjoint(among) for among in query.member_of)
                and uuids.isdisjoint(query.forbidden_aggregates) and
                query.all_required <= self.traits and
                self.traits.isdisjoint(query.all_forbidden))

    def fits(self, wanted, claimed=None):
        """Whether ``wanted`` -- (VCPU, MEMORY_MB, DISK_GB), see
        ``wanted_vector`` -- fits this host's inventory as placement
        decides: within (total - reserved) * ratio, at most the total per
        instance, on top of what this decision ``claimed`` on it already
        (the same kind of vector)."""
        if wanted is None:
            return False
        totals, room = self.totals, self.room
        if claimed is None:
            return (wanted[0] <= room[0] and wanted[1] <= room[1] and
                    wanted[2] <= room[2] and wanted[0] <= totals[0] and
                    wanted[1] <= totals[1] and wanted[2] <= totals[2])
        return all(want <= total and want + held <= left
                   for want, held, left, total in zip(wanted, claimed, room,
                                                      totals))


def wanted_vector(resources):
    """(VCPU, MEMORY_MB, DISK_GB) of {resource class: amount}; None when it
    asks for a class the simulated hosts have no inventory of."""
    if any(rc not in _INVENTORY for rc in resources):
        return None
    vector = [0, 0, 0]
    for rc, amount in resources.items():
        vector[_INVENTORY[rc]] = amount
    return tuple(vector)


_new_host_state = object.__new__

# Resource class -> index in Host.reserved / Host.allocated.
_INVENTORY = {'VCPU': 0, 'MEMORY_MB': 1, 'DISK_GB': 2}
_UP = {'up': True, 'disabled': False, 'forced_down': False,
       'disabled_reason': None}


def _uuid_of(name):
    """A stable uuid for an aggregate the case names without one."""
    return str(uuid_lib.uuid5(uuid_lib.NAMESPACE_URL,
                              'nova-lite-simulate:' + name))


def _aggregates(case):
    """{name: Aggregate} of the case's aggregates."""
    aggregates = {}
    for index, item in enumerate(_list(case.get('aggregates'),
                                       'aggregates')):
        where = 'aggregates[%d]' % index
        item = _object(item, where)
        name = _required(item, 'name', where)
        aggregates[name] = host_manager.Aggregate(
            name, _object(item.get('metadata'), where + '.metadata'),
            _list(item.get('hosts'), where + '.hosts'),
            str(item.get('uuid') or _uuid_of(name)))
    return aggregates


class HostRows(list):
    """The case's Host rows, in input order, with ``in_aggregate``:
    {aggregate uuid: [index of each row of a host in it]} (placement's
    member_of looks there rather than at every host), and ``by_uuid``."""

    def __init__(self):
        super().__init__()
        self.in_aggregate = {}
        self.by_uuid = {}


def read_hosts(case):
    """([Host] of the case, input order, {name: Aggregate}); CaseError
    for a host or aggregate that does not make sense."""
    aggregates = _aggregates(case)
    listed = {}  # host -> [aggregate] that list it
    for _name, aggregate in sorted(aggregates.items()):
        for host in aggregate.hosts:
            listed.setdefault(host, []).append(aggregate)
    # Read once, as the daemons' configuration would set them.
    default_ratios = (CONF.cpu_allocation_ratio, CONF.ram_allocation_ratio,
                      CONF.disk_allocation_ratio)
    default_reserved = (CONF.reserved_host_cpus,
                        CONF.reserved_host_memory_mb,
                        CONF.reserved_host_disk_mb)
    zones, hosts, seen, uuids = {}, HostRows(), set(), set()
    for index, item in enumerate(_list(_required(case, 'hosts', 'the case'),
                                       'hosts')):
        where = 'hosts[%d]' % index
        item = _object(item, where)
        row = Host()
        row.host = host = str(_required(item, 'host', where))
        row.nodename = str(item.get('nodename') or host)
        if (host, row.nodename) in seen:
            raise CaseError(reason='%s: %s/%s appears twice' % (
                where, host, row.nodename))
        seen.add((host, row.nodename))
        row.uuid = str(item.get('uuid') or
                       '00000000-0000-4000-8000-%012d' % index)
        if row.uuid in uuids:
            raise CaseError(reason='%s: uuid %s appears twice' % (
                where, row.uuid))
        uuids.add(row.uuid)
        # What the host keeps for itself, as its compute would report it:
        # counted as used on the compute node, reserved in placement.
        reserved_cpus = _number(item, 'reserved_host_cpus', where,
                                default_reserved[0])
        reserved_ram = _number(item, 'reserved_host_memory_mb', where,
                               default_reserved[1])
        reserved_disk = -(-_number(item, 'reserved_host_disk_mb', where,
                                   default_reserved[2]) // 1024)
        row.reserved = (reserved_cpus, reserved_ram, reserved_disk)
        row.vcpus = _number(item, 'vcpus', where)
        row.vcpus_used = _number(item, 'vcpus_used', where, reserved_cpus)
        row.memory_mb = _number(item, 'memory_mb', where)
        row.free_ram_mb = _number(item, 'free_ram_mb', where,
                                  row.memory_mb - reserved_ram)
        row.local_gb = _number(item, 'local_gb', where)
        row.free_disk_gb = _number(item, 'free_disk_gb', where,
                                   row.local_gb - reserved_disk)
        # What placement holds in allocations: the used figures less the
        # reserved amounts they count.
        row.allocated = (row.vcpus_used - reserved_cpus,
                         row.memory_mb - row.free_ram_mb - reserved_ram,
                         row.local_gb - row.free_disk_gb - reserved_disk)
        row.totals = (row.vcpus, row.memory_mb, row.local_gb)
        row.num_io_ops = _number(item, 'num_io_ops', where, 0)
        row.num_instances = _number(item, 'num_instances', where, 0)
        row.failed_builds = _number(item, 'failed_builds', where, 0)
        row.cpu_allocation_ratio, row.ram_allocation_ratio, \
            row.disk_allocation_ratio = (
                _number(item, name, where, default, float)
                for name, default in zip(
                    ('cpu_allocation_ratio', 'ram_allocation_ratio',
                     'disk_allocation_ratio'), default_ratios))
        row.hypervisor_version = None
        if item.get('hypervisor_version') is not None:
            row.hypervisor_version = _number(item, 'hypervisor_version',
                                             where)
        row.hypervisor_type = item.get('hypervisor_type')
        row.supported_instances = [
            tuple(s) for s in _list(item.get('supported_instances'),
                                    where + '.supported_instances')]
        row.traits = set(_list(item.get('traits'), where + '.traits'))
        row.stats = {str(k): v for k, v in _object(
            item.get('stats'), where + '.stats').items()}
        row.instances = frozenset(_list(item.get('instances'),
                                        where + '.instances'))
        service = _object(item.get('service'), where + '.service')
        row.service = _UP if not service else {
            'up': bool(service.get('up', True)),
            'disabled': bool(service.get('disabled', False)),
            'forced_down': bool(service.get('forced_down', False)),
            'disabled_reason': service.get('disabled_reason')}
        if row.service['disabled']:
            # As its compute marks its provider.
            row.traits.add(request_filter.STATUS_DISABLED)
        names = set(_list(item.get('aggregates'), where + '.aggregates'))
        for name in sorted(names):
            if name not in aggregates:
                raise CaseError(reason='%s: unknown aggregate %s' % (
                    where, name))
        row.aggregates = [aggregates[name] for name in sorted(names)]
        row.aggregates += [a for a in listed.get(host, ())
                           if a.name not in names]
        zone = item.get('availability_zone')
        if zone:
            name = 'zone-%s' % zone
            if name not in zones:
                zones[name] = host_manager.Aggregate(
                    name, {'availability_zone': zone}, (),
                    _uuid_of(name))
            zones[name].hosts.add(host)
            row.aggregates.append(zones[name])
        row.aggregate_uuids = frozenset(a.uuid for a in row.aggregates)
        # What placement can still give: (total - reserved) * ratio less
        # what is allocated, per resource class.
        row.room = tuple(
            (total - min(reserved, total)) * ratio - allocated
            for total, reserved, ratio, allocated in zip(
                row.totals, row.reserved,
                (row.cpu_allocation_ratio, row.ram_allocation_ratio,
                 row.disk_allocation_ratio), row.allocated))
        for uuid in row.aggregate_uuids:
            hosts.in_aggregate.setdefault(uuid, []).append(len(hosts))
        hosts.by_uuid[row.uuid] = row
        hosts.append(row)
    aggregates.update(zones)
    return hosts, aggregates


def request_spec(case, hosts):
    """(RequestSpec, instance names, {host: names of the request's group
    members there}) from the case's request; ``hosts`` are the case's
    Host rows."""
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
    members = {}
    if group:
        spec.instance_group, members = _group(group, hosts)
    names = ['instance-%d' % i for i in range(num)]
    return spec, names, members


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


def _group(group, hosts):
    """(InstanceGroup, {host: member names there})."""
    from nova_lite.objects import instance_group as group_obj
    policy = _required(group, 'policy', 'request.server_group')
    if policy not in group_obj.POLICIES:
        raise CaseError(reason='request.server_group.policy %r is not one '
                               'of %s' % (policy, ', '.join(
                                   group_obj.POLICIES)))
    known = {row.host for row in hosts}
    members, group_hosts, by_host = [], [], {}
    for host, on_host in sorted(_object(group.get('members_on_hosts'),
                                        'request.server_group.'
                                        'members_on_hosts').items()):
        if host not in known:
            raise CaseError(reason='request.server_group.members_on_hosts '
                                   'names unknown host %s' % host)
        names = [str(m) for m in _list(on_host, 'request.server_group.'
                                       'members_on_hosts.' + host)]
        members.extend(names)
        if names:
            group_hosts.append(host)
            by_host[host] = names
    return objects.InstanceGroup(
        uuid=group.get('uuid') or uuidutils.generate_uuid(),
        name=group.get('name'), policy=policy,
        rules={str(k): str(v) for k, v in (group.get('rules') or
                                           {}).items()},
        members=members, hosts=group_hosts), by_host


def _first(choices):
    return choices[0]


# Why placement would not offer a host (the daemon's words).
NO_ROOM = 'not enough free resources in placement'
BEYOND_LIMIT = 'beyond [scheduler] max_placement_results'
NOT_ASKED_FOR = 'not what the request pre-filters ask placement for'


def placement_offers(spec, hosts, members, aggregates):
    """(the host states placement would offer for one instance of
    ``spec``, in order, at most ``max_placement_results``; a function
    returning [(reason, [host state])] of the others, made only if a
    NoValidHost must be explained). The request's pre-filters narrow the
    query first, as the daemon's do; NoValidHost if they rule out every
    host."""
    query = request_filter.process(spec, aggregates.values(), CONF)
    query.all_required = query.required | query.root_required
    query.all_forbidden = query.forbidden | query.root_forbidden
    wanted = wanted_vector(scheduler_utils.resources_from_request_spec(spec))
    limit = (None if scheduler_utils.unlimited_candidates(spec)
             else CONF.scheduler.max_placement_results)
    rows, others = hosts, []
    target = _target(spec, hosts)
    if target is not None:
        # Placement is asked about the one node's tree, or about every
        # host with no limit when the host has several nodes. (The other
        # hosts are still handed on, for the request itself to rule out
        # and say so.)
        nodes = [row for row in hosts if row.host == target[0] and
                 (target[1] is None or row.nodename == target[1])]
        if len(nodes) == 1:
            others = [row for row in hosts if row is not nodes[0]]
            rows = nodes
        else:
            limit = None
    if query.member_of and rows is hosts:
        # Only the hosts of the aggregates asked for are looked at.
        among = None
        for uuids in query.member_of:
            found = set()
            for uuid in uuids:
                found.update(hosts.in_aggregate.get(uuid, ()))
            among = found if among is None else among & found
        rows = [hosts[index] for index in sorted(among)]
    offered = []
    for row in rows:
        if not row.asked_for(query) or not row.fits(wanted):
            continue
        if limit is not None and len(offered) == limit:
            break
        offered.append(row)
    offered_states = [row.state(members.get(row.host)) for row in offered]
    offered_states += [row.state(members.get(row.host)) for row in others]

    def set_aside():
        handed_on = {id(row) for row in offered} | {id(row)
                                                    for row in others}
        not_asked, no_room, beyond = [], [], []
        for row in hosts:
            if id(row) in handed_on:
                continue
            if not row.asked_for(query):
                not_asked.append(row)
            elif not row.fits(wanted):
                no_room.append(row)
            else:
                beyond.append(row)
        left = [(NOT_ASKED_FOR + ' (%s)' % query.describe(), not_asked),
                (NO_ROOM, no_room), (BEYOND_LIMIT, beyond)]
        return [(reason, [r.state(members.get(r.host)) for r in rows])
                for reason, rows in left if rows]
    return offered_states, set_aside


def _target(spec, hosts):
    """(host, node or None) a move's requested destination or a request's
    one forced host names -- what the daemon narrows placement's query
    to --, or None."""
    destination = spec.requested_destination
    if spec.force_hosts or spec.force_nodes:
        if len(spec.force_hosts or ()) > 1 or len(spec.force_nodes or ()) > 1:
            return None
        host = spec.force_hosts[0] if spec.force_hosts else None
        node = spec.force_nodes[0] if spec.force_nodes else None
        if host is None:
            host = next((row.host for row in hosts if row.nodename == node),
                        None)
        return (host, node) if host is not None else None
    if destination is not None:
        return destination.host, destination.node
    return None


def _claims(spec, hosts):
    """claim(host state, instance): the instance's resources claimed on
    the host's inventory for the rest of the decision, as the daemon
    claims in placement; False when they no longer fit."""
    wanted = wanted_vector(scheduler_utils.resources_from_request_spec(spec))
    claimed = {}

    def claim(state, instance):
        held = claimed.get(state.uuid)
        if not hosts.by_uuid[state.uuid].fits(wanted, held):
            return False
        claimed[state.uuid] = tuple(
            a + b for a, b in zip(held or (0, 0, 0), wanted))
        return True
    return claim


def decide(hosts, aggregates, case, filter_objs, weighers, trace=None):
    """(instance names, [[chosen host state, alternates...]] or the
    NoValidHost): the whole decision, from the host rows to the
    selection."""
    spec, names, members = request_spec(case, hosts)
    subset = CONF.filter_scheduler.host_subset_size
    try:
        offered, set_aside = placement_offers(spec, hosts, members,
                                              aggregates)
        return names, filter_scheduler.schedule(
            spec, names, offered, filter_objs, weighers,
            max_alternates=CONF.scheduler.max_attempts - 1,
            subset_size=subset, trace=trace, set_aside=set_aside,
            chooser=None if subset > 1 else _first,
            claim=_claims(spec, hosts))
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
        hosts, aggregates = read_hosts(case)
        trace = filter_scheduler.Trace()
        names, chosen = decide(hosts, aggregates, case, filter_objs,
                               weighers, trace)
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
                decide(hosts, aggregates, case, filter_objs, weighers)
                timings.append(time.perf_counter() - started)
            answer['timing_ms'] = round(
                statistics.median(timings) * 1000, 3)
        return answer
