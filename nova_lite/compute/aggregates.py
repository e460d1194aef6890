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
"""

from nova_lite import cells
from nova_lite import conf as nova_conf
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import aggregate as aggregate_obj
from nova_lite import servicegroup

CONF = nova_conf.CONF

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


class AggregateAPI:
    """Create, change and delete aggregates; add and remove hosts."""

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
        return aggregate

    def remove_host(self, context, aggregate_id, host):
        aggregate = self.get(context, aggregate_id)
        aggregate.delete_host(host)
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
