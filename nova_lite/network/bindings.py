"""Port bindings: which host a port is plugged on, and whether that works.

Every port has exactly one ACTIVE binding (host '' while unbound); during
a move it also has INACTIVE bindings on other hosts (the multiple port
bindings API). Binding a port to a host is decided here, as the Open
vSwitch mechanism driver would: the host needs an alive, administratively
up Open vSwitch agent that serves the network's physical network, and a
port with a resource request needs the host's bandwidth provider as its
profile's ``allocation``. A port that cannot bind is not refused: its
binding's vif_type is ``binding_failed`` (with the reason in its
vif_details and the service's log), as in the Networking API.

Callers hold the port's row lock (``ports.lock``) while they change its
bindings, so at most one binding of a port is ever ACTIVE.
"""

from oslo_log import log as logging
import sqlalchemy as sa

from nova_lite.db import api as db_api
from nova_lite.network import agents
from nova_lite.network import db
from nova_lite.network import exception
from nova_lite.network import placement_sync
from nova_lite.network import qos

LOG = logging.getLogger(__name__)

ACTIVE, INACTIVE = 'ACTIVE', 'INACTIVE'
VIF_UNBOUND, VIF_FAILED, VIF_OVS = 'unbound', 'binding_failed', 'ovs'
VNIC_NORMAL = 'normal'
VNIC_TYPES = ('normal', 'direct', 'macvtap', 'baremetal', 'direct-physical',
              'virtio-forwarder', 'smart-nic', 'vdpa', 'remote-managed')
# What the Open vSwitch agent can plug.
SUPPORTED_VNIC_TYPES = (VNIC_NORMAL,)
OVS_VIF_DETAILS = {'port_filter': True, 'ovs_hybrid_plug': False,
                   'datapath_type': 'system', 'bridge_name': 'br-int',
                   'connectivity': 'l2'}
FAILURE_REASON = 'binding_failed_reason'

B = db.BINDINGS
PORTS = db.PORTS


def _as_dict(row):
    return {'host': row.host, 'vif_type': row.vif_type,
            'vnic_type': row.vnic_type,
            'profile': db.loads(row.profile, {}),
            'vif_details': db.loads(row.vif_details, {}),
            'status': row.status}


def unbound(vnic_type=VNIC_NORMAL):
    return {'host': '', 'vif_type': VIF_UNBOUND, 'vnic_type': vnic_type,
            'profile': {}, 'vif_details': {}, 'status': ACTIVE}


def is_bound(binding):
    """Bound to a host and not failed: the port (may) hold an allocation
    on that host."""
    return bool(binding['host']) and binding['vif_type'] != VIF_FAILED


# -- the decision -------------------------------------------------------------

def _allocated_providers(allocation):
    if isinstance(allocation, str):
        return {allocation}
    if isinstance(allocation, dict):  # request group -> provider
        return {value for value in allocation.values()
                if isinstance(value, str)}
    return set()


def _failure(connection, host, physical_network, vnic_type, profile,
             request):
    if vnic_type not in SUPPORTED_VNIC_TYPES:
        return ('vnic_type %s is not supported by the Open vSwitch agent '
                '(only %s)' % (vnic_type, ', '.join(SUPPORTED_VNIC_TYPES)))
    found = agents.on_host(connection, host)
    if not found:
        return 'no %s has reported from host %s' % (agents.OVS_AGENT, host)
    now = db.now()
    alive = [agent for agent in found if agents.is_alive(agent, now)]
    if not alive:
        return ('the %s of host %s is down (last report at %s)' % (
            agents.OVS_AGENT, host,
            max(a['heartbeat_timestamp'] for a in found).isoformat()))
    usable = [agent for agent in alive if agent['admin_state_up']]
    if not usable:
        return 'the %s of host %s is administratively down' % (
            agents.OVS_AGENT, host)
    if physical_network:
        serving = [agent for agent in usable
                   if physical_network in agents.physical_networks(agent)]
        if not serving:
            served = set().union(*(agents.physical_networks(agent)
                                   for agent in usable))
            return ('host %s is not connected to physical network %s '
                    '(its agent serves: %s)' % (
                        host, physical_network,
                        ', '.join(sorted(served)) or 'none'))
        usable = serving
    if request:
        expected = placement_sync.bandwidth_provider_uuid(host,
                                                          physical_network)
        allocation = (profile or {}).get('allocation')
        if not allocation:
            return ('the port has a resource request but its '
                    'binding:profile has no allocation (the resource '
                    'provider its bandwidth was allocated from)')
        if expected not in _allocated_providers(allocation):
            return ('binding:profile allocation %s is not the bandwidth '
                    'provider %s of physical network %s on host %s' % (
                        allocation, expected, physical_network, host))
        if not any(physical_network in agents.bandwidth_physical_networks(a)
                   for a in usable):
            return ('host %s guarantees no bandwidth on physical network '
                    '%s' % (host, physical_network))
    return None


def decide(connection, port_id, host, physical_network, vnic_type, profile,
           bandwidths):
    """(vif_type, vif_details) of binding the port to ``host`` ('' for
    none) with ``vnic_type`` and ``profile``; ``bandwidths`` is what its
    effective QoS policy guarantees ({direction: kbps})."""
    if not host:
        return VIF_UNBOUND, {}
    request = qos.resource_request(physical_network, vnic_type, bandwidths)
    reason = _failure(connection, host, physical_network, vnic_type,
                      profile, request)
    if reason is not None:
        LOG.warning('Binding of port %s to host %s failed: %s', port_id,
                    host, reason)
        return VIF_FAILED, {FAILURE_REASON: reason}
    return VIF_OVS, dict(OVS_VIF_DETAILS)


# -- rows ---------------------------------------------------------------------

def active_of(connection, port_ids):
    """{port_id: its ACTIVE binding}."""
    found = {}
    ids = sorted(set(port_ids))
    for start in range(0, len(ids), 500):
        for row in connection.execute(sa.select(B).where(
                B.c.port_id.in_(ids[start:start + 500]),
                B.c.status == ACTIVE)):
            found[row.port_id] = _as_dict(row)
    return found


def bound_hosts(connection, port_ids):
    """{port_id: [hosts]} of the ports among ``port_ids`` with a binding
    (active or not) that is bound to a host and did not fail."""
    found = {}
    ids = sorted(set(port_ids))
    for start in range(0, len(ids), 500):
        for row in connection.execute(sa.select(B).where(
                B.c.port_id.in_(ids[start:start + 500]), B.c.host != '',
                B.c.vif_type != VIF_FAILED).order_by(B.c.host)):
            found.setdefault(row.port_id, []).append(row.host)
    return found


def of_port(connection, port_id, filters=None):
    query = sa.select(B).where(B.c.port_id == port_id)
    for column, values in (filters or {}).items():
        query = query.where(db.any_of(B.c[column], values))
    return [_as_dict(row) for row in connection.execute(
        query.order_by(B.c.status, B.c.host))]


def get(connection, port_id, host):
    row = connection.execute(sa.select(B).where(
        B.c.port_id == port_id, B.c.host == host)).first()
    if row is None:
        raise exception.PortBindingNotFound(port_id=port_id, host=host)
    return _as_dict(row)


def _insert(connection, port_id, host, vnic_type, profile, vif_type,
            vif_details, status):
    now = db.now()
    try:
        connection.execute(B.insert().values(
            port_id=port_id, host=host, vnic_type=vnic_type,
            profile=db.dumps(profile or {}), vif_type=vif_type,
            vif_details=db.dumps(vif_details or {}), status=status,
            created_at=now, updated_at=now))
    except db_api.DBDuplicateEntry:
        raise exception.PortBindingAlreadyExists(port_id=port_id, host=host)


def refresh_port_status(connection, port_id):
    """ACTIVE when the port is up and its active binding plugged a vif,
    else DOWN."""
    port = connection.execute(sa.select(PORTS.c.admin_state_up).where(
        PORTS.c.id == port_id)).first()
    active = active_of(connection, [port_id]).get(port_id)
    working = active is not None and active['vif_type'] not in (
        VIF_UNBOUND, VIF_FAILED)
    status = 'ACTIVE' if port is not None and port.admin_state_up and \
        working else 'DOWN'
    connection.execute(PORTS.update().where(PORTS.c.id == port_id).values(
        status=status))
    return status


def create_active(connection, port, host, vnic_type, profile):
    """The first binding of a new port."""
    vif_type, vif_details = decide(
        connection, port['id'], host, port['physical_network'], vnic_type,
        profile, port['bandwidths'])
    _insert(connection, port['id'], host or '', vnic_type, profile,
            vif_type, vif_details, ACTIVE)
    refresh_port_status(connection, port['id'])


def rebind_active(connection, port, host, vnic_type, profile):
    """Bind the port's ACTIVE binding again, with what changed (``port``
    is its state before the change, locked)."""
    host = host or ''
    current = port['binding']
    if host != current['host'] and host:
        other = connection.execute(sa.select(B.c.status).where(
            B.c.port_id == port['id'], B.c.host == host)).first()
        if other is not None:
            raise exception.Conflict(
                reason='Port %s already has an inactive binding for host '
                       '%s; activate it (PUT /v2.0/ports/%s/bindings/%s/'
                       'activate) instead of changing binding:host_id.' % (
                           port['id'], host, port['id'], host))
    vif_type, vif_details = decide(
        connection, port['id'], host, port['physical_network'], vnic_type,
        profile, port['bandwidths'])
    connection.execute(B.update().where(
        B.c.port_id == port['id'], B.c.status == ACTIVE).values(
            host=host, vnic_type=vnic_type, profile=db.dumps(profile or {}),
            vif_type=vif_type, vif_details=db.dumps(vif_details),
            updated_at=db.now()))
    refresh_port_status(connection, port['id'])


def create(connection, port, host, vnic_type=None, profile=None):
    """A binding for ``host`` (POST .../bindings): INACTIVE when the port
    is bound elsewhere, else it becomes the port's ACTIVE binding."""
    current = port['binding']
    vnic_type = vnic_type or current['vnic_type']
    profile = profile or {}
    existing = connection.execute(sa.select(B.c.id).where(
        B.c.port_id == port['id'], B.c.host == host)).first()
    if existing is not None:
        raise exception.PortBindingAlreadyExists(port_id=port['id'],
                                                 host=host)
    if not current['host']:
        rebind_active(connection, port, host, vnic_type, profile)
    else:
        vif_type, vif_details = decide(
            connection, port['id'], host, port['physical_network'],
            vnic_type, profile, port['bandwidths'])
        _insert(connection, port['id'], host, vnic_type, profile, vif_type,
                vif_details, INACTIVE)
    return get(connection, port['id'], host)


def activate(connection, port, host):
    """Make the port's binding for ``host`` the ACTIVE one; the one that
    was active becomes INACTIVE (or goes, if it was the unbound one)."""
    binding = get(connection, port['id'], host)
    if binding['status'] == ACTIVE:
        raise exception.PortBindingAlreadyActive(port_id=port['id'],
                                                 host=host)
    if binding['vif_type'] == VIF_FAILED:
        raise exception.PortBindingError(
            port_id=port['id'], host=host,
            reason=binding['vif_details'].get(FAILURE_REASON,
                                              'binding_failed'))
    now = db.now()
    previous = port['binding']
    if previous['host']:
        connection.execute(B.update().where(
            B.c.port_id == port['id'], B.c.status == ACTIVE).values(
                status=INACTIVE, updated_at=now))
    else:
        connection.execute(B.delete().where(
            B.c.port_id == port['id'], B.c.status == ACTIVE))
    connection.execute(B.update().where(
        B.c.port_id == port['id'], B.c.host == host).values(
            status=ACTIVE, updated_at=now))
    refresh_port_status(connection, port['id'])
    return get(connection, port['id'], host)


def delete(connection, port, host):
    binding = get(connection, port['id'], host)
    if binding['status'] == ACTIVE:
        raise exception.ActivePortBindingDelete(port_id=port['id'],
                                                host=host)
    connection.execute(B.delete().where(B.c.port_id == port['id'],
                                        B.c.host == host))


def delete_all(connection, port_id):
    connection.execute(B.delete().where(B.c.port_id == port_id))
