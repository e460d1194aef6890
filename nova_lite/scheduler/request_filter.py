"""Request pre-filters: what a request tells placement before the limit.

Placement answers at most ``[scheduler] max_placement_results`` allocation
candidates, the first providers that fit, and the scheduler's filters only
ever see those. So what rules out hosts wholesale -- another availability
zone, a disabled compute, the aggregates of other projects, hosts that
cannot run the image -- is put into the placement query itself, as Nova's
request filters do: a request for a zone whose hosts are not among the
first thousand providers still finds them. The filters still run after
(AvailabilityZoneFilter, ComputeFilter, ...); the pre-filters only make
sure the right hosts reach them.

Each pre-filter is a pure function ``(spec, aggregates, conf)``: the
request spec, the host aggregates (anything with ``uuid`` and
``metadata``) and the configuration. It answers a PlacementQuery of what
it adds, None when it does not apply, or raises NoValidHost when the
request can have no host at all. ``process`` runs them in Nova's order,
for the scheduler daemon and for anything else (``simulate``) that has the
aggregates at hand. ``placement_query`` is the daemon's glue: it reads the
aggregates (only when a pre-filter needs them) and lets a forced move
through untouched.

They rely on host aggregates being mirrored into placement aggregates of
the same uuid (``compute.aggregates`` does it as hosts join and leave;
``nova-lite-manage placement sync_aggregates`` repairs the mirror), and on
computes putting COMPUTE_STATUS_DISABLED and COMPUTE_IMAGE_TYPE_* on their
providers.
"""

import os_traits
from oslo_log import log as logging

from nova_lite import conf as nova_conf
from nova_lite import exception
from nova_lite import objects

CONF = nova_conf.CONF
LOG = logging.getLogger(__name__)

AZ_KEY = 'availability_zone'
# An aggregate whose metadata has a key starting with this and the
# project's id as value is dedicated to that project.
TENANT_METADATA_KEY = 'filter_tenant_id'
# Flavor extra specs, image properties and (isolated) aggregate metadata
# name traits as trait:<NAME> = required | forbidden.
TRAIT_PREFIX = 'trait:'
REQUIRED = 'required'
FORBIDDEN = 'forbidden'
STATUS_DISABLED = 'COMPUTE_STATUS_DISABLED'
IMAGE_TYPE_PREFIX = 'COMPUTE_IMAGE_TYPE_'
# The standard traits (os-traits, as Nova reads them; not our placement's
# tables, since placement may be another service).
STANDARD_TRAITS = frozenset(os_traits.get_traits())


class PlacementQuery:
    """What the pre-filters add to the unsuffixed group of a request's
    GET /allocation_candidates (the compute node's tree)."""

    def __init__(self, member_of=(), forbidden_aggregates=(), required=(),
                 forbidden=(), root_required=(), root_forbidden=(),
                 notes=()):
        # Each entry is one member_of=in:... parameter: a provider must be
        # in one of its aggregates, and every entry must hold.
        self.member_of = [sorted(set(uuids)) for uuids in member_of]
        self.forbidden_aggregates = set(forbidden_aggregates)
        self.required = set(required)
        self.forbidden = set(forbidden)
        self.root_required = set(root_required)
        self.root_forbidden = set(root_forbidden)
        # What each pre-filter asked for, in words.
        self.notes = list(notes)

    def add(self, other):
        """Also ask for what ``other`` (a PlacementQuery or None) asks."""
        if other is None:
            return self
        self.member_of += [uuids for uuids in other.member_of
                           if uuids not in self.member_of]
        self.forbidden_aggregates |= other.forbidden_aggregates
        self.required |= other.required
        self.forbidden |= other.forbidden
        self.root_required |= other.root_required
        self.root_forbidden |= other.root_forbidden
        self.notes += other.notes
        return self

    @property
    def narrows_by_aggregate(self):
        return bool(self.member_of or self.forbidden_aggregates)

    def placement_arguments(self):
        """Keyword arguments of PlacementClient.get_allocation_candidates."""
        return {'member_of': [list(uuids) for uuids in self.member_of],
                'forbidden_aggregates': sorted(self.forbidden_aggregates),
                'required': sorted(self.required),
                'forbidden': sorted(self.forbidden),
                'root_required': sorted(self.root_required),
                'root_forbidden': sorted(self.root_forbidden)}

    def describe(self):
        return '; '.join(self.notes) or 'nothing'

    def __repr__(self):
        return 'PlacementQuery(%s)' % ', '.join(
            '%s=%s' % item for item in self.placement_arguments().items()
            if item[1])


def _traits_named(items):
    """({required}, {forbidden}) trait names of ``trait:NAME = required |
    forbidden`` items; other values are ignored, as in Nova."""
    required, forbidden = set(), set()
    for key, value in items:
        if not key.startswith(TRAIT_PREFIX):
            continue
        name = key[len(TRAIT_PREFIX):]
        if value == REQUIRED:
            required.add(name)
        elif value == FORBIDDEN:
            forbidden.add(name)
    return required, forbidden


def requested_traits(spec):
    """({required}, {forbidden}) traits the flavor's extra specs and the
    image's properties ask of the host (``trait:NAME``)."""
    required, forbidden = _traits_named(
        (spec.flavor.extra_specs or {}).items())
    if spec.image is not None:
        more_required, more_forbidden = _traits_named(
            (spec.image.properties or {}).items())
        required |= more_required
        forbidden |= more_forbidden
    return required, forbidden


# -- the pre-filters ----------------------------------------------------------

def flavor_and_image_traits(spec, aggregates=(), conf=CONF):
    """The traits the flavor and the image require or forbid, on the
    unsuffixed group (a provider of the tree that gives resources has
    them), as Nova's resource request carries them."""
    required, forbidden = requested_traits(spec)
    if not required and not forbidden:
        return None
    return PlacementQuery(required=required, forbidden=forbidden, notes=[
        'traits %s' % ', '.join(sorted(required) + ['!' + t for t in
                                                    sorted(forbidden)])])


def require_tenant_aggregate(spec, aggregates, conf=CONF):
    """With ``[scheduler] limit_tenants_to_placement_aggregate``: only
    hosts in an aggregate dedicated to the request's project (metadata
    ``filter_tenant_id*`` = the project). A project with none schedules
    anywhere -- or nowhere, with ``placement_aggregate_required_for_
    tenants``.

    (Nova takes an aggregate whose metadata has the project as any value
    and any key starting with filter_tenant_id; here the key with that
    prefix must be the one whose value is the project.)"""
    if not conf.scheduler.limit_tenants_to_placement_aggregate:
        return None
    project = spec.project_id
    dedicated = sorted(
        aggregate.uuid for aggregate in aggregates
        if any(key.startswith(TENANT_METADATA_KEY) and value == project
               for key, value in aggregate.metadata.items()))
    if dedicated:
        return PlacementQuery(member_of=[dedicated], notes=[
            'an aggregate of project %s' % project])
    if conf.scheduler.placement_aggregate_required_for_tenants:
        LOG.warning('Project %s has no host aggregate of its own', project)
        raise exception.NoValidHost(
            reason='project %s has no host aggregate of its own (metadata '
                   '%s=%s), and [scheduler] placement_aggregate_required_'
                   'for_tenants is set' % (project, TENANT_METADATA_KEY,
                                           project))
    return None


def map_az_to_placement_aggregate(spec, aggregates, conf=CONF):
    """A requested availability zone: only hosts in an aggregate that
    makes that zone. When no aggregate does (the default zone, whose hosts
    are in no zone aggregate), placement is not narrowed and
    AvailabilityZoneFilter alone decides."""
    zone = spec.availability_zone
    if not zone:
        return None
    in_zone = sorted(aggregate.uuid for aggregate in aggregates
                     if aggregate.metadata.get(AZ_KEY) == zone)
    if not in_zone:
        return None
    return PlacementQuery(member_of=[in_zone], notes=[
        'availability zone %s' % zone])


def require_image_type_support(spec, aggregates, conf=CONF):
    """With ``[scheduler] query_placement_for_image_type_support``: only
    hosts whose compute reports COMPUTE_IMAGE_TYPE_<FORMAT> for the
    image's disk format (its ``disk_format`` property). A boot from
    volume, an image without a disk format, or one no trait names, is not
    narrowed."""
    if not conf.scheduler.query_placement_for_image_type_support:
        return None
    if spec.is_bfv or spec.image is None:
        return None
    disk_format = (spec.image.properties or {}).get('disk_format')
    if not disk_format:
        return None
    trait = IMAGE_TYPE_PREFIX + disk_format.upper()
    if trait not in STANDARD_TRAITS:
        LOG.error('The image of request %s has the disk format %r, which '
                  'no trait names (no %s); hosts are not narrowed by image '
                  'type', spec.instance_uuid, disk_format, trait)
        return None
    return PlacementQuery(root_required={trait}, notes=[
        '%s images (%s)' % (disk_format, trait)])


def compute_status_filter(spec, aggregates, conf=CONF):
    """Never a disabled compute: its providers carry
    COMPUTE_STATUS_DISABLED (always on, as in Nova)."""
    return PlacementQuery(root_forbidden={STATUS_DISABLED}, notes=[
        'no %s' % STATUS_DISABLED])


def isolate_aggregates(spec, aggregates, conf=CONF):
    """With ``[scheduler] enable_isolated_aggregate_filtering``: not the
    hosts of an aggregate that requires a trait (metadata
    ``trait:NAME=required``) the request does not require (flavor extra
    specs, image properties, or a port's resource request)."""
    if not conf.scheduler.enable_isolated_aggregate_filtering:
        return None
    wanted, _forbidden = requested_traits(spec)
    for group in spec.requested_resources or ():
        wanted |= set(group.required_traits)
    isolated = sorted(
        aggregate.uuid for aggregate in aggregates
        if any(key.startswith(TRAIT_PREFIX) and value == REQUIRED and
               key[len(TRAIT_PREFIX):] not in wanted
               for key, value in aggregate.metadata.items()))
    if not isolated:
        return None
    return PlacementQuery(forbidden_aggregates=isolated, notes=[
        'not %d aggregate(s) requiring traits the request does not' %
        len(isolated)])


# Image properties that name a hardware capability, and the prefix of
# the trait a compute reports it under.
IMAGE_PROPERTY_TRAITS = (
    ('hw_cdrom_bus', 'COMPUTE_STORAGE_BUS'),
    ('hw_disk_bus', 'COMPUTE_STORAGE_BUS'),
    ('hw_video_model', 'COMPUTE_GRAPHICS_MODEL'),
    ('hw_vif_model', 'COMPUTE_NET_VIF_MODEL'),
    ('hw_architecture', 'HW_ARCH'),
    ('hw_emulation_architecture', 'COMPUTE_ARCH'),
    ('hw_viommu_model', 'COMPUTE_VIOMMU'),
)


def transform_image_metadata(spec, aggregates=(), conf=CONF):
    """With ``[scheduler] image_metadata_prefilter``: only hosts with the
    traits the image's hardware properties name (``hw_disk_bus=virtio``
    asks for COMPUTE_STORAGE_BUS_VIRTIO). As Nova, a value no standard
    trait names makes the whole pre-filter ask for nothing."""
    if not conf.scheduler.image_metadata_prefilter or spec.image is None:
        return None
    properties = spec.image.properties or {}
    wanted = []
    for name, prefix in IMAGE_PROPERTY_TRAITS:
        value = properties.get(name)
        if value is None:
            continue
        trait = '%s_%s' % (prefix, str(value).replace('-', '_').upper())
        if trait not in STANDARD_TRAITS:
            LOG.error('Image property %s=%s names no trait (%s); hosts are '
                      'not narrowed by the image\'s properties', name,
                      value, trait)
            return None
        wanted.append(trait)
    if not wanted:
        return None
    return PlacementQuery(root_required=wanted, notes=[
        'image properties: %s' % ', '.join(sorted(set(wanted)))])


# In Nova's order.
PRE_FILTERS = (require_tenant_aggregate, map_az_to_placement_aggregate,
               require_image_type_support, compute_status_filter,
               isolate_aggregates, transform_image_metadata)


def needs_aggregates(spec, conf=CONF):
    """Whether a pre-filter will look at the host aggregates."""
    return bool(spec.availability_zone or
                conf.scheduler.limit_tenants_to_placement_aggregate or
                conf.scheduler.enable_isolated_aggregate_filtering)


def process(spec, aggregates, conf=CONF):
    """The PlacementQuery of every pre-filter for ``spec``; NoValidHost
    when one says the request can have no host."""
    query = PlacementQuery().add(flavor_and_image_traits(spec, aggregates,
                                                         conf))
    for pre_filter in PRE_FILTERS:
        query.add(pre_filter(spec, aggregates, conf))
    for uuids in query.member_of:
        if set(uuids) <= query.forbidden_aggregates:
            # (Placement would refuse such a query as contradictory.)
            raise exception.NoValidHost(
                reason='the request must be in one of the aggregates %s, '
                       'and every one of them is isolated: it requires '
                       'traits the request does not (%s)' % (
                           ', '.join(uuids), query.describe()))
    return query


# -- the scheduler daemon's glue ----------------------------------------------

def _forced_move(context, spec):
    """Whether ``spec`` forces its host for a server that is in a cell
    already: an evacuation or live migration with ``force``. Nova sends
    those to no scheduler, so no pre-filter applies to them; a boot onto
    a forced host (``zone:host``) goes through the pre-filters, as in
    Nova."""
    if not (spec.force_hosts or spec.force_nodes):
        return False
    try:
        mapping = objects.InstanceMapping.get_by_instance_uuid(
            context, spec.instance_uuid)
    except exception.InstanceMappingNotFound:
        return False
    except exception.DatabaseUnavailable as e:
        raise exception.HostsUnread(
            reason='the cell mapping of %s could not be read (%s)' % (
                spec.instance_uuid, e))
    cell = mapping.cell_mapping
    return cell is not None and not cell.is_cell0


def placement_query(context, spec, conf=CONF):
    """The PlacementQuery the scheduler sends for ``spec``, reading the
    host aggregates from the API database when a pre-filter needs them.
    HostsUnread (asked again) when they cannot be read."""
    if _forced_move(context, spec):
        LOG.debug('Request %s forces the move of its server to %s: no '
                  'pre-filter', spec.instance_uuid,
                  ', '.join(spec.force_hosts or spec.force_nodes))
        return PlacementQuery(notes=['a forced move'])
    aggregates = []
    if needs_aggregates(spec, conf):
        try:
            aggregates = objects.AggregateList.get_all(context)
        except exception.DatabaseUnavailable as e:
            raise exception.HostsUnread(
                reason='the host aggregates could not be read for the '
                       'request pre-filters (%s)' % e)
    query = process(spec, aggregates, conf)
    LOG.debug('Request %s asks placement for %s', spec.instance_uuid,
              query.describe())
    return query
