#!/usr/bin/env python3
"""Nova 34's own scheduler, run in-process on ``scheduler simulate`` cases.

Run by the python of the Nova 34 virtualenv (``.peers/nova34``, see
``peer.py``), never by nova_lite's. It reads cases in the JSON format of
``nova-lite-manage scheduler simulate`` (one case, or a list of them) and
for each one runs Nova's real decision: ``SchedulerManager.
select_destinations`` with its request filters (``process_reqspec``),
``resources_from_request_spec``, the report client's allocation candidates
query and claims, its HostManager building each HostState with
``HostState.update`` from ComputeNode objects, and its filters and weighers
with the case's ``config`` applied to Nova's own options.

Only what would leave the process is substituted:

- the database reads (cells, compute nodes, services, aggregates, host
  mappings, the instances on each host, the server group, the minimum
  compute version), answered from the case's rows (see ``Cloud``);
- placement, answered by ``emulated_placement.EmulatedPlacement``, which
  documents how a host row becomes a resource provider.

One more thing is fixed where Nova leaves it to chance: Nova hands the
filters its host states in the iteration order of a set of (host, node)
names, so which of two equally weighed hosts wins depends on the
process's string hashing. ``CaseOrderScheduler`` puts them in the case's
host order first (Nova's sort by weight is stable), so that a tie is
decided the same way on every run and can be compared.

The request reaches the scheduler as Nova's conductor sends it: a server
group is named by the ``group`` scheduler hint and holds the members
already on hosts plus every instance of the request (the API adds those
before scheduling), and the conductor's own ``setup_instance_group`` fills
in the group's hosts -- or refuses a policy whose filter or weigher is not
enabled (``UnsupportedPolicyException``, answered as the ``error``).

Prints a JSON list with one answer per case, in the shape of simulate's
answer (``chosen_hosts``, ``selections`` with ``alternates``, per instance
the weighed ``ranking``, ``error`` on NoValidHost) and, with ``--repeat
N``, ``timing_ms``: the median wall time over N runs of the whole decision
from the host rows to the selection (each run reads the rows afresh), and
``placement_ms``, the part of it the emulated placement took to answer.

Usage: .peers/nova34/bin/python tools/nova_oracle/oracle.py [--repeat N]
       CASES.json|-
"""

import argparse
import contextlib
import copy
import datetime
import json
import logging
import os
import statistics
import sys
import time
import traceback
import uuid
import warnings

warnings.simplefilter('ignore')
os.environ.setdefault('OS_NOVA_DISABLE_EVENTLET_PATCHING', 'true')

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import emulated_placement  # noqa: E402

CELL_UUID = '00000000-0000-0000-0000-00000000cafe'
# Where a multi-instance request's instance uuids come from, so that the
# answers can name them instance-0, instance-1, ... as simulate does.
INSTANCE_NAMESPACE = uuid.UUID('6e6f7661-2d6f-7261-636c-650000000000')

# Nova loads weighers by class path; a case may name them by class name.
WEIGHER_PATHS = {
    'RAMWeigher': 'nova.scheduler.weights.ram.RAMWeigher',
    'CPUWeigher': 'nova.scheduler.weights.cpu.CPUWeigher',
    'DiskWeigher': 'nova.scheduler.weights.disk.DiskWeigher',
    'IoOpsWeigher': 'nova.scheduler.weights.io_ops.IoOpsWeigher',
    'NumInstancesWeigher':
        'nova.scheduler.weights.num_instances.NumInstancesWeigher',
    'BuildFailureWeigher':
        'nova.scheduler.weights.compute.BuildFailureWeigher',
    'HypervisorVersionWeigher':
        'nova.scheduler.weights.hypervisor_version.HypervisorVersionWeigher',
    'ServerGroupSoftAffinityWeigher':
        'nova.scheduler.weights.affinity.ServerGroupSoftAffinityWeigher',
    'ServerGroupSoftAntiAffinityWeigher':
        'nova.scheduler.weights.affinity.ServerGroupSoftAntiAffinityWeigher',
    'MetricsWeigher': 'nova.scheduler.weights.metrics.MetricsWeigher',
    'PCIWeigher': 'nova.scheduler.weights.pci.PCIWeigher',
    'CrossCellWeigher': 'nova.scheduler.weights.cross_cell.CrossCellWeigher',
    'ImagePropertiesWeigher':
        'nova.scheduler.weights.image_props.ImagePropertiesWeigher',
}


class CaseError(Exception):
    """The case cannot be put to Nova (a bad row, an unknown option)."""


def _start_nova():
    """Nova's configuration, objects and a notifier that sends nowhere."""
    import nova.conf
    from nova import objects
    from nova import rpc
    conf = nova.conf.CONF
    import oslo_messaging.opts
    rpc.set_defaults(control_exchange='nova')
    for group, options in oslo_messaging.opts.list_opts():
        conf.register_opts(options, group=group)
    conf([], project='nova', default_config_files=[])
    conf.set_override('transport_url', 'fake:/')
    conf.set_override('driver', ['noop'],
                      group='oslo_messaging_notifications')
    objects.register_all()
    rpc.init(conf)
    # NOVA_ORACLE_LOG_LEVEL=10 shows Nova's own debug log of the decision.
    logging.basicConfig(stream=sys.stderr, level=int(os.environ.get(
        'NOVA_ORACLE_LOG_LEVEL', logging.ERROR)))
    return conf


# -- the case's rows as Nova's database would return them ------------------

def _int(row, key, where, default=None):
    value = row.get(key, default)
    if value is None:
        raise CaseError('%s needs "%s"' % (where, key))
    try:
        return int(value)
    except (TypeError, ValueError):
        raise CaseError('%s: "%s" must be a number' % (where, key))


class Cloud:
    """The case's hosts, services, aggregates and instances, and the
    database reads Nova's scheduler makes, answered from them."""

    def __init__(self, case, conf):
        from nova import objects
        self.conf = conf
        self.objects = objects
        hosts = case.get('hosts')
        if not isinstance(hosts, list):
            raise CaseError('the case needs a list of "hosts"')
        self.rows = []
        self.order = {}
        self.aggregates = []  # [(name, uuid, metadata, set of hosts)]
        by_name = {}
        for index, item in enumerate(case.get('aggregates') or []):
            name = str(item['name'])
            agg = (name, str(uuid.uuid5(INSTANCE_NAMESPACE, 'agg:' + name)),
                   {str(k): str(v) for k, v in
                    (item.get('metadata') or {}).items()},
                   set(str(h) for h in item.get('hosts') or []))
            by_name[name] = agg
            self.aggregates.append(agg)
        zones = {}
        self.instances = {}  # host -> [instance uuid]
        for index, row in enumerate(hosts):
            where = 'hosts[%d]' % index
            host = str(row['host'])
            node = str(row.get('nodename') or host)
            self.order[(host, node)] = index
            for name in row.get('aggregates') or []:
                if name not in by_name:
                    raise CaseError('%s: unknown aggregate %s' % (where, name))
                by_name[name][3].add(host)
            if row.get('availability_zone'):
                zones.setdefault(str(row['availability_zone']), set()).add(
                    host)
            self.instances.setdefault(host, []).extend(
                str(i) for i in row.get('instances') or [])
            self.rows.append(self._compute_row(index, host, node, row, where))
        for zone, members in sorted(zones.items()):
            name = 'zone-%s' % zone
            self.aggregates.append((name, str(uuid.uuid5(
                INSTANCE_NAMESPACE, 'agg:' + name)),
                {'availability_zone': zone}, members))
        group = (case.get('request') or {}).get('server_group') or {}
        for host, members in sorted((group.get('members_on_hosts') or
                                     {}).items()):
            if host not in self.instances:
                raise CaseError('server_group.members_on_hosts names '
                                'unknown host %s' % host)
            for member in members:
                if str(member) not in self.instances[host]:
                    self.instances[host].append(str(member))
        self.cell = objects.CellMapping(
            uuid=CELL_UUID, name='cell1', database_connection='sqlite://',
            transport_url='none:///', disabled=False)
        self.providers = [self._provider(row) for row in self.rows]
        self.group = None  # set with the request

    def _compute_row(self, index, host, node, row, where):
        """A compute_nodes row, as the database hands it to
        ComputeNode._from_db_object: the figures a compute of Nova's
        default configuration reports (it counts what it reserves as
        used)."""
        conf = self.conf
        reserved = {
            'VCPU': _int(row, 'reserved_host_cpus', where,
                         conf.reserved_host_cpus),
            'MEMORY_MB': _int(row, 'reserved_host_memory_mb', where,
                              conf.reserved_host_memory_mb),
            # Placement reserves whole GB, rounded up.
            'DISK_GB': -(-_int(row, 'reserved_host_disk_mb', where,
                               conf.reserved_host_disk_mb) // 1024),
        }
        memory = _int(row, 'memory_mb', where)
        disk = _int(row, 'local_gb', where)
        free_ram = _int(row, 'free_ram_mb', where,
                        memory - reserved['MEMORY_MB'])
        free_disk = _int(row, 'free_disk_gb', where,
                         disk - reserved['DISK_GB'])
        service = row.get('service') or {}
        ratios = {}
        for ratio in ('cpu_allocation_ratio', 'ram_allocation_ratio',
                      'disk_allocation_ratio'):
            value = row.get(ratio)
            if value is None:
                # What the compute reports: its option, else the initial
                # ratio.
                value = (getattr(conf, ratio) or
                         getattr(conf, 'initial_' + ratio))
            ratios[ratio] = float(value)
        stats = {str(k): str(v) for k, v in (row.get('stats') or {}).items()}
        stats.update({
            'num_instances': str(_int(row, 'num_instances', where, 0)),
            'io_workload': str(_int(row, 'num_io_ops', where, 0)),
            'failed_builds': str(_int(row, 'failed_builds', where, 0)),
        })
        return {
            'id': index + 1, 'service_id': index + 1,
            'uuid': str(row.get('uuid') or
                        emulated_placement.provider_uuid(host, node)),
            'host': host, 'hypervisor_hostname': node,
            'vcpus': _int(row, 'vcpus', where),
            'vcpus_used': _int(row, 'vcpus_used', where, reserved['VCPU']),
            'memory_mb': memory, 'memory_mb_used': memory - free_ram,
            'free_ram_mb': free_ram,
            'local_gb': disk, 'local_gb_used': disk - free_disk,
            'free_disk_gb': free_disk, 'disk_available_least': None,
            'hypervisor_type': str(row.get('hypervisor_type') or 'QEMU'),
            'hypervisor_version': int(row.get('hypervisor_version') or 0),
            'current_workload': _int(row, 'num_io_ops', where, 0),
            'running_vms': _int(row, 'num_instances', where, 0),
            'cpu_info': '{}', 'metrics': '[]', 'host_ip': '192.0.2.%d' % (
                index % 250 + 1),
            'numa_topology': None, 'pci_stats': None, 'mapped': 1,
            'stats': json.dumps(stats),
            'supported_instances': json.dumps(
                [list(s) for s in row.get('supported_instances') or []]),
            'created_at': None, 'updated_at': None, 'deleted_at': None,
            'deleted': 0,
            'cpu_allocation_ratio': ratios['cpu_allocation_ratio'],
            'ram_allocation_ratio': ratios['ram_allocation_ratio'],
            'disk_allocation_ratio': ratios['disk_allocation_ratio'],
            # Kept beside the row for the service and placement:
            '_service': service, '_row': row, '_reserved': reserved,
        }

    def _provider(self, row):
        raw = row['_row']
        reserved = row['_reserved']
        inventory = {
            'VCPU': (row['vcpus'], reserved['VCPU'],
                     row['cpu_allocation_ratio']),
            'MEMORY_MB': (row['memory_mb'], reserved['MEMORY_MB'],
                          row['ram_allocation_ratio']),
            'DISK_GB': (row['local_gb'], reserved['DISK_GB'],
                        row['disk_allocation_ratio']),
        }
        # The instances' allocations: what the compute node counts as
        # used, less what it keeps for itself.
        used = {
            'VCPU': row['vcpus_used'] - reserved['VCPU'],
            'MEMORY_MB': (row['memory_mb'] - row['free_ram_mb'] -
                          reserved['MEMORY_MB']),
            'DISK_GB': (row['local_gb'] - row['free_disk_gb'] -
                        reserved['DISK_GB']),
        }
        traits = set(str(t) for t in raw.get('traits') or [])
        traits.add('OWNER_NOVA')
        if row['_service'].get('disabled'):
            traits.add('COMPUTE_STATUS_DISABLED')
        aggregates = {agg_uuid for _n, agg_uuid, _m, hosts in self.aggregates
                      if row['host'] in hosts}
        return emulated_placement.Provider(row['uuid'], inventory, used,
                                           traits, aggregates)

    # -- Nova objects from the rows (what each database read returns) -----

    def compute_node(self, context, row):
        node = self.objects.ComputeNode(context)
        db_row = {k: v for k, v in row.items() if not k.startswith('_')}
        db_row['updated_at'] = self.now
        return self.objects.ComputeNode._from_db_object(context, node, db_row)

    def service(self, context, row):
        raw = row['_service']
        down = raw.get('up') is False
        heard = self.now - datetime.timedelta(hours=1) if down else self.now
        db_row = {
            'id': row['id'], 'uuid': str(uuid.uuid5(
                INSTANCE_NAMESPACE, 'svc:' + row['host'])),
            'host': row['host'], 'binary': 'nova-compute',
            'topic': 'compute', 'report_count': 1,
            'disabled': bool(raw.get('disabled', False)),
            'disabled_reason': raw.get('disabled_reason'),
            'forced_down': bool(raw.get('forced_down', False)),
            'last_seen_up': heard, 'created_at': heard,
            'updated_at': heard, 'deleted_at': None, 'deleted': False,
            'version': self.objects.service.SERVICE_VERSION}
        return self.objects.Service._from_db_object(
            context, self.objects.Service(context), db_row)

    def aggregate(self, context, agg):
        name, agg_uuid, metadata, hosts = agg
        index = self.aggregates.index(agg)
        return self.objects.Aggregate(
            context, id=index + 1, uuid=agg_uuid, name=name,
            hosts=sorted(hosts), metadata=dict(metadata),
            created_at=None, updated_at=None, deleted_at=None, deleted=False)

    def _aggregate_list(self, context, aggs):
        return self.objects.AggregateList(
            context, objects=[self.aggregate(context, a) for a in aggs])

    @contextlib.contextmanager
    def database(self):
        """Nova's database reads answered from the case, for the
        duration."""
        from unittest import mock
        from nova import exception
        from nova.objects import service as service_obj
        objects = self.objects
        cloud = self

        def cls_method(fn):
            return classmethod(lambda cls, *a, **kw: fn(*a, **kw))

        def cells(context):
            return objects.CellMappingList(objects=[cloud.cell])

        def cell_by_uuid(context, cell_uuid):
            if cell_uuid != CELL_UUID:
                raise exception.CellMappingNotFound(uuid=cell_uuid)
            return cloud.cell

        def host_mapping(context, host):
            if host not in cloud.instances:
                raise exception.HostMappingNotFound(name=host)
            return objects.HostMapping(host=host, cell_mapping=cloud.cell)

        def services(context, binary, include_disabled=False):
            return objects.ServiceList(objects=[
                cloud.service(context, row) for row in cloud.rows
                if include_disabled or not row['_service'].get('disabled')])

        def nodes_by_uuids(context, uuids):
            wanted = set(uuids)
            return objects.ComputeNodeList(objects=[
                cloud.compute_node(context, row) for row in cloud.rows
                if row['uuid'] in wanted])

        def all_nodes(context):
            return objects.ComputeNodeList(objects=[
                cloud.compute_node(context, row) for row in cloud.rows])

        def nodes_by_host(context, host, use_slave=False):
            found = [cloud.compute_node(context, row) for row in cloud.rows
                     if row['host'] == host]
            if not found:
                raise exception.ComputeHostNotFound(host=host)
            return objects.ComputeNodeList(objects=found)

        def node_by_host_and_name(context, host, nodename):
            for row in cloud.rows:
                if row['host'] == host and \
                        row['hypervisor_hostname'] == nodename:
                    return cloud.compute_node(context, row)
            raise exception.ComputeHostNotFound(host=host)

        def node_by_name(context, nodename):
            for row in cloud.rows:
                if row['hypervisor_hostname'] == nodename:
                    return cloud.compute_node(context, row)
            raise exception.ComputeHostNotFound(host=nodename)

        def aggregates_all(context):
            return cloud._aggregate_list(context, cloud.aggregates)

        def aggregates_by_metadata(context, key=None, value=None):
            return cloud._aggregate_list(context, [
                a for a in cloud.aggregates
                if any((key is None or k == key) and
                       (value is None or v == value)
                       for k, v in a[2].items())])

        def aggregates_not_matching(context, ignored_keys, key_prefix,
                                    value):
            return cloud._aggregate_list(context, [
                a for a in cloud.aggregates
                if any(k.startswith(key_prefix) and v == value and
                       k not in ignored_keys for k, v in a[2].items())])

        def instance_uuids_by_host(context, host):
            return list(cloud.instances.get(host, []))

        def instances_by_filters(context, filters, *args, **kwargs):
            hosts = filters.get('host')
            wanted = filters.get('uuid')
            return objects.InstanceList(objects=[
                objects.Instance(context, uuid=i, host=h)
                for h in sorted(cloud.instances)
                if hosts is None or h in hosts
                for i in cloud.instances[h]
                if wanted is None or i in wanted])

        def group_by_instance(context, instance_uuid):
            if cloud.group is None or \
                    instance_uuid not in cloud.group['members']:
                raise exception.InstanceGroupNotFound(
                    group_uuid=instance_uuid)
            return cloud.instance_group(context)

        def minimum_version(context, binaries, require_all=False):
            return service_obj.SERVICE_VERSION

        patches = [
            (objects.CellMappingList, 'get_all', cls_method(cells)),
            (objects.CellMapping, 'get_by_uuid', cls_method(cell_by_uuid)),
            (objects.HostMapping, 'get_by_host', cls_method(host_mapping)),
            (objects.ServiceList, 'get_by_binary', cls_method(services)),
            (objects.ComputeNodeList, 'get_all_by_uuids',
             cls_method(nodes_by_uuids)),
            (objects.ComputeNodeList, 'get_all', cls_method(all_nodes)),
            (objects.ComputeNodeList, 'get_all_by_host',
             cls_method(nodes_by_host)),
            (objects.ComputeNode, 'get_by_host_and_nodename',
             cls_method(node_by_host_and_name)),
            (objects.ComputeNode, 'get_by_nodename',
             cls_method(node_by_name)),
            (objects.AggregateList, 'get_all', cls_method(aggregates_all)),
            (objects.AggregateList, 'get_by_metadata',
             cls_method(aggregates_by_metadata)),
            (objects.AggregateList, 'get_non_matching_by_metadata_keys',
             cls_method(aggregates_not_matching)),
            (objects.InstanceList, 'get_uuids_by_host',
             cls_method(instance_uuids_by_host)),
            (objects.InstanceList, 'get_by_filters',
             cls_method(instances_by_filters)),
            (objects.InstanceGroup, 'get_by_instance_uuid',
             cls_method(group_by_instance)),
            (service_obj, 'get_minimum_version_all_cells', minimum_version),
        ]
        with contextlib.ExitStack() as stack:
            for target, name, replacement in patches:
                stack.enter_context(mock.patch.object(target, name,
                                                      replacement))
            yield

    def instance_group(self, context):
        """The request's server group as the database holds it."""
        return self.objects.InstanceGroup(
            context, deleted=False, deleted_at=None, created_at=None,
            updated_at=None, **copy.deepcopy(self.group))

    @property
    def now(self):
        from oslo_utils import timeutils
        return timeutils.utcnow().replace(tzinfo=datetime.timezone.utc)


# -- the case's options, on Nova's CONF -------------------------------------

@contextlib.contextmanager
def configured(conf, config):
    """The case's ``config`` ({group: {option: value}}) for the duration."""
    applied = []
    try:
        for group, options in (config or {}).items():
            group_name = None if group == 'DEFAULT' else group
            for name, value in (options or {}).items():
                if name == 'weight_classes' and group == 'filter_scheduler':
                    value = [WEIGHER_PATHS.get(v, v) for v in value]
                try:
                    conf.set_override(name, value, group=group_name)
                except Exception as e:
                    raise CaseError('config.%s.%s: %s: %s' % (
                        group, name, type(e).__name__, e))
                applied.append((name, group_name))
        yield
    finally:
        for name, group_name in applied:
            conf.clear_override(name, group=group_name)


# -- the request, as the conductor hands it to the scheduler ----------------

def request_spec(context, case, cloud):
    """(RequestSpec, [instance uuid], {uuid: name})."""
    from nova import objects
    request = case.get('request')
    if not isinstance(request, dict) or not isinstance(
            request.get('flavor'), dict):
        raise CaseError('the case needs a request with a flavor')
    flavor_in = request['flavor']
    flavor = objects.Flavor(
        context, id=1, flavorid=str(flavor_in.get('id', 'simulated')),
        name=str(flavor_in.get('name', 'simulated')),
        vcpus=_int(flavor_in, 'vcpus', 'request.flavor'),
        memory_mb=_int(flavor_in, 'memory_mb', 'request.flavor'),
        root_gb=_int(flavor_in, 'root_gb', 'request.flavor', 0),
        ephemeral_gb=_int(flavor_in, 'ephemeral_gb', 'request.flavor', 0),
        swap=_int(flavor_in, 'swap', 'request.flavor', 0),
        rxtx_factor=1.0, vcpu_weight=0, disabled=False, is_public=True,
        description=None,
        extra_specs={str(k): str(v) for k, v in
                     (flavor_in.get('extra_specs') or {}).items()})
    num = _int(request, 'num_instances', 'request', 1)
    uuids = [str(uuid.uuid5(INSTANCE_NAMESPACE, 'instance-%d' % i))
             for i in range(num)]
    names = {u: 'instance-%d' % i for i, u in enumerate(uuids)}
    hints = {}
    for name, value in (request.get('scheduler_hints') or {}).items():
        hints[name] = ([str(v) for v in value] if isinstance(value, list)
                       else [str(value)])
    group = None
    group_in = request.get('server_group') or {}
    if group_in:
        members = [str(m) for _host, on_host in sorted(
            (group_in.get('members_on_hosts') or {}).items())
            for m in on_host]
        # The group as the API loads it and adds the request's instances
        # to; the conductor fills in its hosts (setup_instance_group).
        cloud.group = dict(
            id=1, uuid=str(group_in.get('uuid') or
                           uuid.uuid5(INSTANCE_NAMESPACE, 'group')),
            name=group_in.get('name') or 'group',
            policy=group_in['policy'], policies=[group_in['policy']],
            rules={str(k): str(v) for k, v in
                   (group_in.get('rules') or {}).items()},
            members=members + uuids, user_id='user',
            project_id=request.get('project_id') or 'demo')
        group = cloud.instance_group(context)
        hints['group'] = [group.uuid]
    image = request.get('image') or {}
    properties = {str(k): str(v) for k, v in
                  (image.get('properties') or {}).items()}
    # simulate reads the disk format among the properties; Nova's image
    # has it beside them, and always one (qcow2 when the case names none).
    disk_format = (properties.pop('disk_format', None) or
                   image.get('disk_format') or 'qcow2')
    image_meta = {
        'id': str(uuid.uuid5(INSTANCE_NAMESPACE, 'image')),
        'name': 'image', 'status': 'active', 'disk_format': disk_format,
        'container_format': 'bare', 'min_ram': 0, 'min_disk': 0,
        'size': 1024, 'properties': properties}
    filter_properties = {
        'scheduler_hints': hints,
        'ignore_hosts': list(request.get('ignore_hosts') or []) or None,
        'force_hosts': list(request.get('force_hosts') or []) or None,
        'force_nodes': list(request.get('force_nodes') or []) or None,
    }
    destination = request.get('requested_destination')
    if destination:
        filter_properties['requested_destination'] = objects.Destination(
            host=str(destination['host']),
            node=(None if destination.get('node') is None
                  else str(destination['node'])))
    spec = objects.RequestSpec.from_components(
        context, uuids[0], image_meta, flavor, None,
        objects.InstancePCIRequests(requests=[]), filter_properties, group,
        request.get('availability_zone'),
        project_id=request.get('project_id') or 'demo', user_id='user')
    spec.num_instances = num
    spec.is_bfv = bool(request.get('boot_from_volume', False))
    return spec, uuids, names


# -- Nova's scheduler, and the decision -------------------------------------

def scheduler_class():
    from nova.scheduler import manager

    class CaseOrderScheduler(manager.SchedulerManager):
        """Nova's SchedulerManager, its host states in the case's order,
        recording each weighed ranking on the way."""

        order = {}
        rankings = []

        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            real = self.host_manager.get_weighed_hosts
            scheduler = self

            def weighed(hosts, spec_obj):
                result = real(hosts, spec_obj)
                # (Kept as is, read after the timing: Nova makes a new list
                # rather than change this one.)
                scheduler.rankings.append(result)
                return result
            self.host_manager.get_weighed_hosts = weighed

        def _get_all_host_states(self, context, spec_obj,
                                 provider_summaries):
            states = super()._get_all_host_states(
                context, spec_obj, provider_summaries)
            return iter(sorted(states, key=lambda s: self.order.get(
                (s.host, s.nodename), len(self.order))))

    return CaseOrderScheduler


def started(scheduler_cls):
    """A scheduler that has finished starting: the HostManager reads every
    host's instances in a background thread at start, which a running
    scheduler has long finished; waited for here, so that it does not run
    during the decisions that are timed."""
    from unittest import mock
    from nova import thread_pool_factory
    spawned = []
    real_spawn = thread_pool_factory.spawn

    def spawn(*args, **kwargs):
        future = real_spawn(*args, **kwargs)
        spawned.append(future)
        return future
    with mock.patch.object(thread_pool_factory, 'spawn', spawn):
        scheduler = scheduler_cls()
    for future in spawned:
        future.result(timeout=600)
    return scheduler


def decide(conf, case, repeat=1):
    """Nova's answer to ``case`` (a JSON-able dict)."""
    from nova import context as nova_context
    from nova import exception
    import oslo_messaging as messaging
    from nova.scheduler.client import report
    from nova.scheduler import utils as scheduler_utils
    with configured(conf, case.get('config')):
        cloud = Cloud(case, conf)
        with cloud.database():
            placement = emulated_placement.EmulatedPlacement(cloud.providers)
            report.PLACEMENTCLIENT = report.SchedulerReportClient(
                adapter=placement)
            scheduler = started(scheduler_class())
            scheduler.order = cloud.order
            timings, placement_times = [], []
            for _run in range(max(1, repeat)):
                placement.reset()
                scheduler.rankings = []
                context = nova_context.get_admin_context()
                spec, uuids, names = request_spec(context, case, cloud)
                try:
                    # What the conductor does before it asks: the group's
                    # hosts and members, and a refusal of a policy whose
                    # filter or weigher is not enabled.
                    scheduler_utils.reset_globals()
                    scheduler_utils.setup_instance_group(context, spec)
                except exception.UnsupportedPolicyException as e:
                    selections, error = [], e
                    break
                began = time.perf_counter()
                try:
                    selections = scheduler.select_destinations(
                        context, spec_obj=spec, instance_uuids=uuids,
                        return_objects=True, return_alternates=True)
                    error = None
                except messaging.ExpectedException as e:
                    # (select_destinations is an RPC endpoint: the
                    # NoValidHost it expects comes wrapped.)
                    selections, error = [], e.exc_info[1]
                    if not isinstance(error, exception.NoValidHost):
                        raise error
                timings.append((time.perf_counter() - began) * 1000)
                placement_times.append(placement.seconds * 1000)
    answer = {'chosen_hosts': [], 'selections': [], 'instances': []}
    if error is not None:
        answer['error'] = {'type': type(error).__name__,
                           'message': error.format_message()}
    for index, chosen in enumerate(selections):
        name = 'instance-%d' % index
        answer['chosen_hosts'].append(chosen[0].service_host)
        answer['selections'].append({
            'instance': name, 'host': chosen[0].service_host,
            'nodename': chosen[0].nodename,
            'alternates': [{'host': s.service_host, 'nodename': s.nodename}
                           for s in chosen[1:]]})
    num = len(uuids)
    rankings = [[{'host': w.obj.host, 'nodename': w.obj.nodename,
                  'weight': round(float(w.weight), 6)} for w in weighed]
                for weighed in scheduler.rankings]
    for index, ranking in enumerate(rankings[:num]):
        answer['instances'].append({'instance': 'instance-%d' % index,
                                    'ranking': ranking})
    if len(rankings) > num:
        # With several instances Nova weighs once more for the alternates.
        answer['alternates_ranking'] = rankings[num]
    answer['placement_queries'] = list(placement.queries)
    if repeat > 1 and timings:
        answer['timing_ms'] = round(statistics.median(timings), 3)
        # Of which the emulated placement's part (its queries and claims).
        answer['placement_ms'] = round(statistics.median(placement_times),
                                       3)
    return answer


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('cases', help='a JSON case or list of cases; - for '
                                      'standard input')
    parser.add_argument('--repeat', type=int, default=1,
                        help='decide each case N times and add timing_ms, '
                             'the median milliseconds')
    args = parser.parse_args(argv)
    if args.cases == '-':
        cases = json.load(sys.stdin)
    else:
        with open(args.cases) as f:
            cases = json.load(f)
    single = isinstance(cases, dict)
    if single:
        cases = [cases]
    conf = _start_nova()
    answers = []
    for case in cases:
        try:
            answers.append(decide(conf, copy.deepcopy(case), args.repeat))
        except CaseError as e:
            answers.append({'case_error': str(e)})
        except Exception as e:
            # Reported as that case's answer (a difference the harness
            # shows), not the end of every other case's.
            traceback.print_exc()
            answers.append({'case_error': 'the oracle failed: %s: %s' % (
                type(e).__name__, e)})
    json.dump(answers[0] if single else answers, sys.stdout)
    sys.stdout.write('\n')
    return 0


if __name__ == '__main__':
    sys.exit(main())
