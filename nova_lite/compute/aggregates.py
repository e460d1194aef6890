"""The business layer behind /os-aggregates: host aggregates and the
availability zones they make.

An aggregate with ``availability_zone`` metadata puts its hosts in that
zone; a host in no such aggregate is in ``[DEFAULT]
default_availability_zone``. A host is in one zone only, so adding a host
to a zone aggregate, or giving a zone to an aggregate, is refused when a
host would end up in two zones (AvailabilityZoneConflict). These checks
read and then write, as in Nova: two administrators racing to put one host
in two zones can both succeed.

A host joins an aggregate only if it runs a compute service; it may leave
one whatever became of it.

Each host aggregate is mirrored in placement as the placement aggregate of
the same uuid: a host's compute node providers join it and leave it with
the host, so that the scheduler's request pre-filters can ask placement for
the hosts of a zone or of a project (``member_of``). Placement's answer
does not decide the API call, as in Nova: when the mirror cannot be
written (placement away, the compute's provider not reported yet) the
host aggregate still changes, a warning says so, and ``nova-lite-manage
placement sync_aggregates`` repairs the mirror.
"""

from oslo_log import log as logging

from nova_lite import cells
from nova_lite import conf as nova_conf
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import aggregate as aggregate_obj
from nova_lite import placement_client
from nova_lite import servicegroup

CONF = nova_conf.CONF
LOG = logging.getLogger(__name__)

AZ_KEY = aggregate_obj.AZ_KEY
# The zone os-services shows for daemons other than computes; a host
# aggregate may not take it.
INTERNAL_ZONE = 'internal'


def check_zone_name(zone, attribute=AZ_KEY):
    """ValidationError (400) unless ``zone`` can name a zone."""
    if not zone or not zone.strip():
        raise exception.ValidationError(
            attribute=attribute,
            reason='An availability zone name cannot be empty; send null '
                   'for no zone.')
    if ':' in zone:
        raise exception.ValidationError(
            attribute=attribute,
            reason='An availability zone name cannot contain ":" (servers '
                   'are booted with "zone:host:node"); got %r.' % zone)
    if zone == INTERNAL_ZONE:
        raise exception.ValidationError(
            attribute=attribute,
            reason='"%s" is the zone of the control plane\'s own services '
                   'and cannot be given to a host aggregate.' % zone)


def availability_zones(context):
    """Every zone a server may ask for: the default zone and the zone of
    each aggregate that has one."""
    zones = {CONF.default_availability_zone}
    for aggregate in objects.AggregateList.get_all(context):
        if aggregate.availability_zone:
            zones.add(aggregate.availability_zone)
    return zones


def check_requested_zone(context, zone):
    """InvalidAvailabilityZone (400) unless a server may ask for
    ``zone`` (None asks for none)."""
    if zone is None or zone == CONF.default_availability_zone:
        return
    if zone not in availability_zones(context):
        raise exception.InvalidAvailabilityZone(zone=zone)


def zones_by_host(context):
    """{host: zone} of every host in a zone aggregate."""
    zones = {}
    for aggregate in objects.AggregateList.get_all(context):
        zone = aggregate.availability_zone
        if zone:
            for host in aggregate.hosts:
                zones.setdefault(host, zone)
    return zones


def zone_of_service(service, zones):
    """The zone a service is in, given ``zones_by_host``: a compute's is
    its host's, the other daemons' the internal zone."""
    if service.binary != servicegroup.COMPUTE_BINARY:
        return INTERNAL_ZONE
    return zones.get(service.host, CONF.default_availability_zone)


def _check_zone_of_hosts(context, aggregate, hosts, zone):
    """AvailabilityZoneConflict if one of ``hosts`` is in another
    aggregate whose zone is not ``zone`` (None: nothing to check)."""
    if not zone or not hosts:
        return
    for other in objects.AggregateList.get_all(context):
        other_zone = other.availability_zone
        if other.id == aggregate.id or not other_zone or other_zone == zone:
            continue
        for host in hosts:
            if host in other.hosts:
                raise exception.AvailabilityZoneConflict(
                    host=host, zone=zone, aggregate_id=aggregate.id,
                    other_zone=other_zone, other_aggregate=other.name)


def _check_compute_host(context, host):
    """ComputeHostNotFound unless ``host`` runs a compute service: in the
    cell its host mapping names, or (not discovered yet) in any cell.
    CellUnavailable (503) when it is not in the cells that answered and
    one did not."""
    try:
        in_cells = [
            objects.HostMapping.get_by_host(context, host).cell_mapping]
    except exception.HostMappingNotFound:
        in_cells = None  # every cell but cell0
    service = cells.find(
        context, lambda cctxt, cell: servicegroup.compute_service(cctxt,
                                                                  host),
        'the compute service of host %s' % host, cells=in_cells,
        with_cell0=False)
    if service is None:
        raise exception.ComputeHostNotFound(host=host)


def compute_node_uuids(context, host):
    """The uuids of ``host``'s compute nodes -- their resource providers'
    uuids -- read in the cell its host mapping names, or (not discovered
    yet) in any cell; [] when it has none. CellUnavailable when a cell it
    may be in did not answer."""
    try:
        in_cells = [
            objects.HostMapping.get_by_host(context, host).cell_mapping]
    except exception.HostMappingNotFound:
        in_cells = None
    nodes = cells.find(
        context, lambda cctxt, cell: objects.ComputeNodeList.get_by_host(
            cctxt, host) or None,
        'the compute nodes of host %s' % host, cells=in_cells,
        with_cell0=False)
    return sorted(node.uuid for node in nodes or ())


class AggregateAPI:
    """Create, change and delete aggregates; add and remove hosts."""

    def __init__(self, reportclient=None):
        self._reportclient = reportclient

    @property
    def reportclient(self):
        # One per use unless given: the API module makes its AggregateAPI
        # at import, before the configuration is read, and hosts join
        # aggregates seldom.
        return self._reportclient or placement_client.PlacementClient()

    def _mirror(self, context, aggregate, host, joined):
        """Put ``host``'s compute node providers in the placement
        aggregate ``aggregate.uuid`` (``joined``) or take them out of it,
        leaving their other aggregates as they are. Never fails the call:
        what cannot be written is a warning naming the remedy."""
        action = 'into' if joined else 'out of'
        remedy = ('run nova-lite-manage placement sync_aggregates once it '
                  'is resolved')
        try:
            nodes = compute_node_uuids(context, host)
        except exception.CellUnavailable as e:
            LOG.warning('Host %s was not put %s the placement aggregate %s '
                        '(aggregate %s): %s; %s', host, action,
                        aggregate.uuid, aggregate.name, e, remedy)
            return
        if not nodes:
            LOG.warning('Host %s has no compute node yet, so no resource '
                        'provider to put %s the placement aggregate %s '
                        '(aggregate %s); once its compute has reported, %s',
                        host, action, aggregate.uuid, aggregate.name,
                        'run nova-lite-manage placement sync_aggregates')
            return
        reportclient = self.reportclient
        for uuid in nodes:
            try:
                reportclient.update_provider_aggregates(
                    uuid, add=[aggregate.uuid] if joined else (),
                    remove=() if joined else [aggregate.uuid])
            except placement_client.ProviderNotFound:
                LOG.warning('The compute node %s of host %s has no resource '
                            'provider yet to put %s the placement aggregate '
                            '%s (aggregate %s); once its compute has '
                            'reported, run nova-lite-manage placement '
                            'sync_aggregates', uuid, host, action,
                            aggregate.uuid, aggregate.name)
            except (placement_client.PlacementUnavailable,
                    placement_client.PlacementConflict) as e:
                LOG.warning('The provider of compute node %s of host %s was '
                            'not put %s the placement aggregate %s '
                            '(aggregate %s): %s; %s', uuid, host, action,
                            aggregate.uuid, aggregate.name, e, remedy)

    @staticmethod
    def get(context, aggregate_id):
        return objects.Aggregate.get_by_id(context, aggregate_id)

    @staticmethod
    def get_all(context):
        return objects.AggregateList.get_all(context)

    @staticmethod
    def create(context, name, availability_zone=None):
        """A new aggregate without hosts; AggregateNameExists."""
        metadata = {}
        if availability_zone is not None:
            check_zone_name(availability_zone)
            metadata[AZ_KEY] = availability_zone
        aggregate = objects.Aggregate(context, name=name, metadata=metadata,
                                      hosts=[])
        aggregate.create()
        return aggregate

    def update(self, context, aggregate_id, values):
        """Rename the aggregate and/or set its zone (``values`` has
        ``name`` and/or ``availability_zone``; a None zone removes it)."""
        aggregate = self.get(context, aggregate_id)
        if AZ_KEY in values:
            zone = values[AZ_KEY]
            if zone is not None:
                check_zone_name(zone)
            _check_zone_of_hosts(context, aggregate, aggregate.hosts, zone)
        if 'name' in values and values['name'] != aggregate.name:
            aggregate.name = values['name']
            aggregate.save()
        if AZ_KEY in values:
            aggregate.update_metadata({AZ_KEY: values[AZ_KEY]})
        return aggregate

    def delete(self, context, aggregate_id):
        """AggregateInUse while the aggregate has hosts."""
        self.get(context, aggregate_id).destroy()

    def add_host(self, context, aggregate_id, host):
        aggregate = self.get(context, aggregate_id)
        _check_compute_host(context, host)
        if host in aggregate.hosts:
            raise exception.AggregateHostExists(aggregate_id=aggregate.id,
                                                host=host)
        _check_zone_of_hosts(context, aggregate, [host],
                             aggregate.availability_zone)
        aggregate.add_host(host)
        self._mirror(context, aggregate, host, joined=True)
        return aggregate

    def remove_host(self, context, aggregate_id, host):
        aggregate = self.get(context, aggregate_id)
        aggregate.delete_host(host)
        self._mirror(context, aggregate, host, joined=False)
        return aggregate

    def update_metadata(self, context, aggregate_id, metadata):
        """Set keys; a None value removes its key."""
        aggregate = self.get(context, aggregate_id)
        if metadata.get(AZ_KEY) is not None:
            check_zone_name(metadata[AZ_KEY], 'metadata/' + AZ_KEY)
            _check_zone_of_hosts(context, aggregate, aggregate.hosts,
                                 metadata[AZ_KEY])
        aggregate.update_metadata(metadata)
        return aggregate


class MirrorReport:
    """What ``sync_placement_aggregates`` did and could not do."""

    def __init__(self):
        self.checked = 0
        self.changed = []          # [(provider uuid, host, added, removed)]
        self.hosts_without_nodes = set()
        self.providers_missing = {}    # {provider uuid: host}
        self.cells_down = {}           # {cell name: why}
        self.error = None              # (exit status, message): stopped


def sync_placement_aggregates(context, reportclient):
    """Mirror every host aggregate into placement again: each compute node
    provider of an aggregate's hosts goes into the placement aggregate of
    the same uuid, and out of those of the host aggregates its host is not
    in. Placement aggregates that are no host aggregate's (a sharing
    provider's, an operator's) are never touched, nor are providers that
    are no compute node of the cells that answered.

    For aggregates older than the mirroring, and for a mirror that missed
    a change (placement was away, a compute had not reported yet). One
    listing per aggregate tells which providers are already right; only
    the others are read and written."""
    report = MirrorReport()
    aggregates = list(objects.AggregateList.get_all(context))
    found = cells.scatter(
        context, lambda cctxt, cell: [
            (node.uuid, node.host)
            for node in objects.ComputeNodeList.get_all(cctxt)],
        'the compute nodes to mirror into placement aggregates',
        with_cell0=False)
    report.cells_down = found.down_by_name()
    host_of = {uuid: host for pairs in found.answers.values()
               for uuid, host in pairs}
    nodes_of = {}
    for uuid, host in host_of.items():
        nodes_of.setdefault(host, []).append(uuid)
    wanted = {uuid: set() for uuid in host_of}
    for aggregate in aggregates:
        for host in aggregate.hosts:
            if host not in nodes_of:
                report.hosts_without_nodes.add(host)
            for uuid in nodes_of.get(host, ()):
                wanted[uuid].add(aggregate.uuid)
    ours = {aggregate.uuid for aggregate in aggregates}
    present = {uuid: set() for uuid in host_of}
    try:
        for aggregate in aggregates:
            for uuid in reportclient.providers_in_aggregates(
                    [aggregate.uuid]):
                if uuid in present:
                    present[uuid].add(aggregate.uuid)
    except placement_client.PlacementUnavailable as e:
        report.error = (2, str(e))
        return report
    except placement_client.PlacementConflict as e:
        report.error = (3, str(e))
        return report
    for uuid in sorted(host_of):
        report.checked += 1
        add = wanted[uuid] - present[uuid]
        remove = (present[uuid] & ours) - wanted[uuid]
        if not add and not remove:
            continue
        try:
            reportclient.update_provider_aggregates(uuid, add=add,
                                                    remove=remove)
        except placement_client.ProviderNotFound:
            report.providers_missing[uuid] = host_of[uuid]
            continue
        except placement_client.PlacementUnavailable as e:
            report.error = (2, str(e))
            return report
        except placement_client.PlacementConflict as e:
            report.error = (3, 'the aggregates of provider %s (host %s): %s'
                            % (uuid, host_of[uuid], e))
            return report
        report.changed.append((uuid, host_of[uuid], sorted(add),
                               sorted(remove)))
    return report
