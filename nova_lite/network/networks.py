"""Networks and their single segment (network type, physical network,
segmentation id).

A network created without provider attributes is a VXLAN network with the
lowest free VNI; flat and VLAN networks name their physical network, which
is what decides on which hosts their ports can be bound.
"""

import sqlalchemy as sa

from nova_lite import conf as nova_conf
from nova_lite.db import api as db_api
from nova_lite.network import db
from nova_lite.network import exception
from nova_lite.network import tags

CONF = nova_conf.CONF

FLAT, VLAN, VXLAN, LOCAL = 'flat', 'vlan', 'vxlan', 'local'
NETWORK_TYPES = (FLAT, VLAN, VXLAN, LOCAL)
DEFAULT_NETWORK_TYPE = VXLAN
SEGMENTATION_RANGES = {VLAN: (1, 4094), VXLAN: (1, 2 ** 24 - 1)}

N = db.NETWORKS


def _as_dict(row):
    network = dict(row._mapping)
    network['physical_network'] = network['physical_network'] or None
    network['tags'] = db.loads(network['tags'], [])
    return network


def check_segment(network_type, physical_network, segmentation_id):
    """Raise InvalidInput unless the segment's parts fit its type."""
    def invalid(reason):
        raise exception.InvalidInput(reason=reason)
    if network_type not in NETWORK_TYPES:
        invalid('provider:network_type %s is not supported; use one of %s.'
                % (network_type, ', '.join(NETWORK_TYPES)))
    if network_type in (FLAT, VLAN):
        if not physical_network:
            invalid('provider:physical_network is required for a %s '
                    'network.' % network_type)
    elif physical_network:
        invalid('A %s network has no provider:physical_network.' %
                network_type)
    if network_type in (FLAT, LOCAL):
        if segmentation_id is not None:
            invalid('A %s network has no provider:segmentation_id.' %
                    network_type)
    elif segmentation_id is not None:
        low, high = SEGMENTATION_RANGES[network_type]
        if not low <= segmentation_id <= high:
            invalid('provider:segmentation_id %s is out of the %s range '
                    '%d-%d.' % (segmentation_id, network_type, low, high))


def _free_segmentation_id(connection, network_type, physical_network):
    low, high = SEGMENTATION_RANGES[network_type]
    used = {row.segmentation_id for row in connection.execute(
        sa.select(N.c.segmentation_id).where(
            N.c.network_type == network_type,
            N.c.physical_network == physical_network))}
    for candidate in range(low, high + 1):
        if candidate not in used:
            return candidate
    where = ' on physical network %s' % physical_network \
        if physical_network else ''
    raise exception.NoSegmentAvailable(network_type=network_type,
                                       where=where)


def _check_segment_free(connection, network_type, physical_network,
                        segmentation_id):
    query = sa.select(N.c.id).where(N.c.network_type == network_type,
                                    N.c.physical_network == physical_network)
    if network_type == FLAT:
        what = 'flat physical network %s' % physical_network
    elif network_type == LOCAL:
        return
    else:
        query = query.where(N.c.segmentation_id == segmentation_id)
        what = '%s segmentation id %s%s' % (
            network_type, segmentation_id,
            ' on physical network %s' % physical_network
            if physical_network else '')
    other = connection.execute(query.limit(1)).first()
    if other is not None:
        raise exception.SegmentInUse(what=what, net_id=other.id)


def create(connection, project_id, name='', description=None,
           admin_state_up=True, shared=False, mtu=None, network_type=None,
           physical_network=None, segmentation_id=None, qos_policy_id=None,
           tag_list=()):
    network_type = network_type or DEFAULT_NETWORK_TYPE
    check_segment(network_type, physical_network, segmentation_id)
    physical_network = physical_network or ''
    allocated = segmentation_id is None
    if network_type in SEGMENTATION_RANGES and allocated:
        segmentation_id = _free_segmentation_id(connection, network_type,
                                                physical_network)
    else:
        _check_segment_free(connection, network_type, physical_network,
                            segmentation_id)
    now = db.now()
    net_id = db.new_id()
    try:
        connection.execute(N.insert().values(
            id=net_id, project_id=project_id, name=name or '',
            description=description, status='ACTIVE',
            admin_state_up=admin_state_up, shared=shared,
            mtu=mtu or CONF.network.default_mtu, network_type=network_type,
            physical_network=physical_network,
            segmentation_id=segmentation_id, qos_policy_id=qos_policy_id,
            revision_number=0, tags=db.dumps(sorted(set(tag_list))),
            created_at=now,
            updated_at=now))
    except db_api.DBDuplicateEntry:
        if allocated:  # another network took the free id first
            raise db.RetryTransaction('segment of a new %s network' %
                                      network_type)
        raise exception.Conflict(
            reason='Another network took %s segmentation id %s at the same '
                   'time.' % (network_type, segmentation_id))
    return get(connection, net_id)


def get(connection, net_id):
    row = connection.execute(sa.select(N).where(N.c.id == net_id)).first()
    if row is None:
        raise exception.NetworkNotFound(net_id=net_id)
    return _as_dict(row)


def get_many(connection, net_ids):
    """{id: network} of those of ``net_ids`` that exist."""
    found = {}
    ids = sorted(set(net_ids))
    for start in range(0, len(ids), 500):
        for row in connection.execute(sa.select(N).where(
                N.c.id.in_(ids[start:start + 500]))):
            found[row.id] = _as_dict(row)
    return found


def list_networks(connection, filters=None, visible_to=None, limit=None,
                  marker=None, tag_filters=None):
    """Networks matching ``filters`` ({column: [values]}: any value) and
    ``tag_filters`` (see ``tags.where``), by id; ``visible_to`` a project
    id limits them to that project's and the shared ones."""
    query = sa.select(N).where(*tags.where(N, tag_filters or {}))
    for column, values in (filters or {}).items():
        if column == 'physical_network':
            values = [v or '' for v in values]
        query = query.where(db.any_of(N.c[column], values))
    if visible_to is not None:
        query = query.where(sa.or_(N.c.project_id == visible_to,
                                   N.c.shared.is_(True)))
    if marker is not None:
        query = query.where(N.c.id > marker)
    query = query.order_by(N.c.id)
    if limit is not None:
        query = query.limit(limit)
    return [_as_dict(row) for row in connection.execute(query)]


def update(connection, net_id, values):
    """Change the columns in ``values``; the revision goes up."""
    get(connection, net_id)
    values = dict(values)
    if 'tags' in values:
        values['tags'] = db.dumps(sorted(set(values['tags'])))
    connection.execute(N.update().where(N.c.id == net_id).values(
        revision_number=N.c.revision_number + 1, updated_at=db.now(),
        **values))
    return get(connection, net_id)


def delete(connection, net_id):
    get(connection, net_id)
    ports = [row.id for row in connection.execute(
        sa.select(db.PORTS.c.id).where(db.PORTS.c.network_id == net_id)
        .order_by(db.PORTS.c.id).limit(6))]
    if ports:
        shown = ', '.join(ports[:5]) + (', ...' if len(ports) > 5 else '')
        raise exception.NetworkInUse(net_id=net_id, ports=shown)
    connection.execute(N.delete().where(N.c.id == net_id))
