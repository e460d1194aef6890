"""Ports: a device's attachment to a network, with its MAC address, its
QoS policy and its bindings.

A port as the data functions return it carries, besides its columns, its
ACTIVE ``binding``, its network's ``physical_network``, the minimum
``bandwidths`` of its effective QoS policy and the ``resource_request``
they make (see ``nova_lite.network.qos``).
"""

import random

import sqlalchemy as sa

from nova_lite.db import api as db_api
from nova_lite.network import bindings
from nova_lite.network import db
from nova_lite.network import exception
from nova_lite.network import networks
from nova_lite.network import qos
from nova_lite.network import tags

P = db.PORTS
B = db.BINDINGS
N = db.NETWORKS
MAC_PREFIX = 'fa:16:3e'
_MAC_ATTEMPTS = 16


def _as_dict(row):
    port = dict(row._mapping)
    port['security_groups'] = db.loads(port['security_groups'], [])
    port['tags'] = db.loads(port['tags'], [])
    return port


def _details(connection, rows):
    ports = [_as_dict(row) for row in rows]
    if not ports:
        return []
    ids = [port['id'] for port in ports]
    active = bindings.active_of(connection, ids)
    nets = networks.get_many(connection, {p['network_id'] for p in ports})
    for port in ports:
        network = nets[port['network_id']]
        port['physical_network'] = network['physical_network']
        port['effective_qos_policy_id'] = (port['qos_policy_id'] or
                                           network['qos_policy_id'])
        port['network_project_id'] = network['project_id']
        port['binding'] = active.get(port['id']) or bindings.unbound()
    bandwidths = qos.bandwidths_of(
        connection, {p['effective_qos_policy_id'] for p in ports
                     if p['effective_qos_policy_id']})
    for port in ports:
        port['bandwidths'] = bandwidths.get(
            port['effective_qos_policy_id'], {})
        port['resource_request'] = qos.resource_request(
            port['physical_network'], port['binding']['vnic_type'],
            port['bandwidths'])
    return ports


def get(connection, port_id):
    row = connection.execute(sa.select(P).where(P.c.id == port_id)).first()
    if row is None:
        raise exception.PortNotFound(port_id=port_id)
    return _details(connection, [row])[0]


def lock(connection, port_id):
    """The port, its row locked for the rest of the transaction (the
    first statement writes it: its revision goes up)."""
    result = connection.execute(P.update().where(P.c.id == port_id).values(
        revision_number=P.c.revision_number + 1, updated_at=db.now()))
    if not result.rowcount:
        raise exception.PortNotFound(port_id=port_id)
    return get(connection, port_id)


def list_ports(connection, filters=None, binding_filters=None,
               visible_to=None, limit=None, marker=None, tag_filters=None):
    """Ports matching ``filters`` ({column: [values]}) and
    ``binding_filters`` (columns of their ACTIVE binding), by id;
    ``visible_to`` a project limits them to its ports and the ports on
    its networks; ``tag_filters`` as in ``tags.where``."""
    query = sa.select(P).where(*tags.where(P, tag_filters or {}))
    if binding_filters:
        query = query.join(B, sa.and_(B.c.port_id == P.c.id,
                                      B.c.status == bindings.ACTIVE))
        for column, values in binding_filters.items():
            query = query.where(db.any_of(B.c[column], values))
    for column, values in (filters or {}).items():
        query = query.where(db.any_of(P.c[column], values))
    if visible_to is not None:
        query = query.where(sa.or_(
            P.c.project_id == visible_to,
            P.c.network_id.in_(sa.select(N.c.id).where(
                N.c.project_id == visible_to))))
    if marker is not None:
        query = query.where(P.c.id > marker)
    query = query.order_by(P.c.id)
    if limit is not None:
        query = query.limit(limit)
    return _details(connection, list(connection.execute(query)))


def _mac_in_use(connection, network_id, mac):
    return connection.execute(sa.select(P.c.id).where(
        P.c.network_id == network_id, P.c.mac_address == mac)).first() \
        is not None


def _new_mac(connection, network_id):
    for attempt in range(_MAC_ATTEMPTS):
        mac = '%s:%02x:%02x:%02x' % (MAC_PREFIX, random.randint(0, 255),
                                     random.randint(0, 255),
                                     random.randint(0, 255))
        if not _mac_in_use(connection, network_id, mac):
            return mac
    raise exception.Conflict(reason='No free MAC address found on network '
                                    '%s; retry.' % network_id)


def create(connection, network_id, project_id, name='', description=None,
           mac_address=None, admin_state_up=True, device_id='',
           device_owner='', security_groups=(), qos_policy_id=None,
           tag_list=(), host='', vnic_type=bindings.VNIC_NORMAL,
           profile=None):
    networks.get(connection, network_id)
    chosen = bool(mac_address)
    if chosen:
        mac_address = mac_address.lower()
        if _mac_in_use(connection, network_id, mac_address):
            raise exception.MacAddressInUse(net_id=network_id,
                                            mac=mac_address)
    else:
        mac_address = _new_mac(connection, network_id)
    port_id = db.new_id()
    now = db.now()
    try:
        connection.execute(P.insert().values(
            id=port_id, project_id=project_id, name=name or '',
            description=description, network_id=network_id,
            mac_address=mac_address, admin_state_up=admin_state_up,
            status='DOWN', device_id=device_id or '',
            device_owner=device_owner or '',
            security_groups=db.dumps(list(security_groups)),
            qos_policy_id=qos_policy_id, revision_number=0,
            tags=db.dumps(sorted(set(tag_list))), created_at=now,
            updated_at=now))
    except db_api.DBDuplicateEntry:
        if not chosen:  # another port took the generated one first
            raise db.RetryTransaction('MAC address of a new port')
        raise exception.MacAddressInUse(net_id=network_id, mac=mac_address)
    port = get(connection, port_id)
    bindings.create_active(connection, port, host, vnic_type, profile or {})
    return get(connection, port_id)


_UNSET = object()


def update(connection, port_id, values, host=_UNSET, vnic_type=_UNSET,
           profile=_UNSET):
    """Change the port's columns in ``values`` and, when any binding
    attribute is given (or its QoS policy changes while it has a host),
    bind its ACTIVE binding again."""
    port = lock(connection, port_id)
    values = dict(values)
    if 'mac_address' in values:
        values['mac_address'] = values['mac_address'].lower()
        if values['mac_address'] != port['mac_address'] and _mac_in_use(
                connection, port['network_id'], values['mac_address']):
            raise exception.MacAddressInUse(net_id=port['network_id'],
                                            mac=values['mac_address'])
    if 'security_groups' in values:
        values['security_groups'] = db.dumps(list(values['security_groups']))
    if 'tags' in values:
        values['tags'] = db.dumps(sorted(set(values['tags'])))
    for name in ('device_id', 'device_owner'):
        if name in values and values[name] is None:
            values[name] = ''
    qos_changed = 'qos_policy_id' in values and \
        values['qos_policy_id'] != port['qos_policy_id']
    before = bound_requests(connection, [port_id]) if qos_changed else {}
    if values:
        connection.execute(P.update().where(P.c.id == port_id).values(
            **values))
    binding = port['binding']
    rebind = any(value is not _UNSET for value in (host, vnic_type,
                                                   profile))
    if rebind or (qos_changed and binding['host']):
        bindings.rebind_active(
            connection, get(connection, port_id),
            binding['host'] if host is _UNSET else host,
            binding['vnic_type'] if vnic_type is _UNSET else vnic_type,
            binding['profile'] if profile is _UNSET else profile)
    elif 'admin_state_up' in values:
        bindings.refresh_port_status(connection, port_id)
    refuse_changed_requests(connection, before)
    return get(connection, port_id)


def delete(connection, port_id):
    lock(connection, port_id)
    bindings.delete_all(connection, port_id)
    connection.execute(P.delete().where(P.c.id == port_id))


# -- resource requests of bound ports -----------------------------------------

def bound_requests(connection, port_ids):
    """{port_id: (hosts, resource_request)} of the ports among
    ``port_ids`` that are bound to a host: what their placement
    allocations were made for."""
    hosts = bindings.bound_hosts(connection, port_ids)
    if not hosts:
        return {}
    found = {}
    ids = sorted(hosts)
    for start in range(0, len(ids), 500):
        rows = connection.execute(sa.select(P).where(
            P.c.id.in_(ids[start:start + 500])))
        for port in _details(connection, list(rows)):
            found[port['id']] = (hosts[port['id']],
                                 port['resource_request'])
    return found


def refuse_changed_requests(connection, before):
    """Raise QosPlacementAllocationConflict if a change made in this
    transaction changed the resource request of a port that was bound
    (``before`` from ``bound_requests``) and still has a host: its
    allocation would no longer match, and this service does not move
    allocations."""
    if not before:
        return
    ids = sorted(before)
    with_host = {row.port_id for row in connection.execute(
        sa.select(B.c.port_id).where(B.c.port_id.in_(ids), B.c.host != ''))}
    rows = list(connection.execute(sa.select(P).where(P.c.id.in_(ids))))
    now = {port['id']: port['resource_request']
           for port in _details(connection, rows)}
    for port_id in ids:
        hosts, old = before[port_id]
        if port_id in with_host and now.get(port_id) != old:
            raise exception.QosPlacementAllocationConflict(
                port_id=port_id, host=', '.join(hosts), old=old,
                new=now.get(port_id))


def ids_on_network(connection, network_id):
    return [row.id for row in connection.execute(
        sa.select(P.c.id).where(P.c.network_id == network_id))]
