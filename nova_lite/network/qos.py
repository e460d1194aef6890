"""QoS policies, their minimum bandwidth rules, and the resource request a
port's effective policy makes of placement.

A port's effective policy is its own ``qos_policy_id``, else its
network's. When that policy guarantees bandwidth and the network has a
physical network, the port asks placement for the bandwidth on a provider
with the physical network's and the vnic type's traits (the
``port-resource-request`` extension's format):

    {"resources": {"NET_BW_EGR_KILOBIT_PER_SEC": 1000},
     "required": ["CUSTOM_PHYSNET_PHYSNET0", "CUSTOM_VNIC_TYPE_NORMAL"]}
"""

import re

import sqlalchemy as sa

from nova_lite.db import api as db_api
from nova_lite.network import db
from nova_lite.network import exception

EGRESS, INGRESS = 'egress', 'ingress'
DIRECTIONS = (EGRESS, INGRESS)
RESOURCE_CLASSES = {EGRESS: 'NET_BW_EGR_KILOBIT_PER_SEC',
                    INGRESS: 'NET_BW_IGR_KILOBIT_PER_SEC'}
RULE_TYPE_MINIMUM_BANDWIDTH = 'minimum_bandwidth'

P = db.QOS_POLICIES
R = db.QOS_MIN_BW_RULES


def _trait_suffix(name):
    return re.sub('[^A-Z0-9_]', '_', name.upper())


def physnet_trait(physical_network):
    """CUSTOM_PHYSNET_<NAME>: non-alphanumerics become '_'."""
    return 'CUSTOM_PHYSNET_' + _trait_suffix(physical_network)


def vnic_type_trait(vnic_type):
    return 'CUSTOM_VNIC_TYPE_' + _trait_suffix(vnic_type)


def resource_request(physical_network, vnic_type, bandwidths):
    """The resource request of a port, or None; ``bandwidths`` is its
    effective policy's {direction: min_kbps}."""
    if not bandwidths or not physical_network:
        return None
    return {'resources': {RESOURCE_CLASSES[direction]: kbps
                          for direction, kbps in sorted(bandwidths.items())},
            'required': [physnet_trait(physical_network),
                         vnic_type_trait(vnic_type)]}


# -- policies -----------------------------------------------------------------

def _policy(row, rules):
    policy = dict(row._mapping)
    policy['rules'] = rules
    return policy


def _rule(row):
    return {'id': row.id, 'qos_policy_id': row.qos_policy_id,
            'min_kbps': row.min_kbps, 'direction': row.direction,
            'type': RULE_TYPE_MINIMUM_BANDWIDTH}


def _rules_of(connection, policy_ids):
    found = {policy_id: [] for policy_id in policy_ids}
    ids = sorted(set(policy_ids))
    for start in range(0, len(ids), 500):
        for row in connection.execute(
                sa.select(R).where(R.c.qos_policy_id.in_(
                    ids[start:start + 500])).order_by(R.c.direction)):
            found[row.qos_policy_id].append(_rule(row))
    return found


def bandwidths_of(connection, policy_ids):
    """{policy_id: {direction: min_kbps}} (an empty dict for a policy
    without minimum bandwidth rules)."""
    return {policy_id: {rule['direction']: rule['min_kbps']
                        for rule in rules}
            for policy_id, rules in _rules_of(connection, policy_ids).items()}


def create_policy(connection, project_id, name='', description=None,
                  shared=False):
    now = db.now()
    policy_id = db.new_id()
    connection.execute(P.insert().values(
        id=policy_id, project_id=project_id, name=name or '',
        description=description, shared=shared, revision_number=0,
        created_at=now, updated_at=now))
    return get_policy(connection, policy_id)


def get_policy(connection, policy_id):
    row = connection.execute(sa.select(P).where(P.c.id == policy_id)).first()
    if row is None:
        raise exception.QosPolicyNotFound(policy_id=policy_id)
    return _policy(row, _rules_of(connection, [policy_id])[policy_id])


def list_policies(connection, filters=None, visible_to=None, limit=None,
                  marker=None):
    query = sa.select(P)
    for column, values in (filters or {}).items():
        query = query.where(db.any_of(P.c[column], values))
    if visible_to is not None:
        query = query.where(sa.or_(P.c.project_id == visible_to,
                                   P.c.shared.is_(True)))
    if marker is not None:
        query = query.where(P.c.id > marker)
    query = query.order_by(P.c.id)
    if limit is not None:
        query = query.limit(limit)
    rows = list(connection.execute(query))
    rules = _rules_of(connection, [row.id for row in rows])
    return [_policy(row, rules[row.id]) for row in rows]


def update_policy(connection, policy_id, values):
    get_policy(connection, policy_id)
    connection.execute(P.update().where(P.c.id == policy_id).values(
        revision_number=P.c.revision_number + 1, updated_at=db.now(),
        **values))
    return get_policy(connection, policy_id)


def delete_policy(connection, policy_id):
    get_policy(connection, policy_id)
    for table, kind in ((db.PORTS, 'port'), (db.NETWORKS, 'network')):
        user = connection.execute(
            sa.select(table.c.id).where(table.c.qos_policy_id == policy_id)
            .limit(1)).first()
        if user is not None:
            raise exception.QosPolicyInUse(policy_id=policy_id,
                                           object_type=kind,
                                           object_id=user.id)
    connection.execute(R.delete().where(R.c.qos_policy_id == policy_id))
    connection.execute(P.delete().where(P.c.id == policy_id))


def _touch_policy(connection, policy_id):
    connection.execute(P.update().where(P.c.id == policy_id).values(
        revision_number=P.c.revision_number + 1, updated_at=db.now()))


# -- minimum bandwidth rules --------------------------------------------------

def get_rule(connection, policy_id, rule_id):
    get_policy(connection, policy_id)
    row = connection.execute(sa.select(R).where(
        R.c.id == rule_id, R.c.qos_policy_id == policy_id)).first()
    if row is None:
        raise exception.QosRuleNotFound(policy_id=policy_id, rule_id=rule_id)
    return _rule(row)


def list_rules(connection, policy_id, filters=None):
    get_policy(connection, policy_id)
    query = sa.select(R).where(R.c.qos_policy_id == policy_id)
    for column, values in (filters or {}).items():
        query = query.where(db.any_of(R.c[column], values))
    return [_rule(row) for row in connection.execute(
        query.order_by(R.c.direction))]


def _check_direction_free(connection, policy_id, direction, rule_id=None):
    query = sa.select(R.c.id).where(R.c.qos_policy_id == policy_id,
                                    R.c.direction == direction)
    if rule_id is not None:
        query = query.where(R.c.id != rule_id)
    other = connection.execute(query).first()
    if other is not None:
        raise exception.QosRuleDirectionExists(
            policy_id=policy_id, direction=direction, rule_id=other.id)


def create_rule(connection, policy_id, min_kbps, direction=EGRESS):
    get_policy(connection, policy_id)
    _check_direction_free(connection, policy_id, direction)
    rule_id = db.new_id()
    now = db.now()
    try:
        connection.execute(R.insert().values(
            id=rule_id, qos_policy_id=policy_id, min_kbps=min_kbps,
            direction=direction, created_at=now, updated_at=now))
    except db_api.DBDuplicateEntry:
        raise exception.Conflict(
            reason='Another rule for direction %s was added to QoS policy '
                   '%s at the same time.' % (direction, policy_id))
    _touch_policy(connection, policy_id)
    return get_rule(connection, policy_id, rule_id)


def update_rule(connection, policy_id, rule_id, values):
    get_rule(connection, policy_id, rule_id)
    if 'direction' in values:
        _check_direction_free(connection, policy_id, values['direction'],
                              rule_id)
    connection.execute(R.update().where(R.c.id == rule_id).values(
        updated_at=db.now(), **values))
    _touch_policy(connection, policy_id)
    return get_rule(connection, policy_id, rule_id)


def delete_rule(connection, policy_id, rule_id):
    get_rule(connection, policy_id, rule_id)
    connection.execute(R.delete().where(R.c.id == rule_id))
    _touch_policy(connection, policy_id)


def ports_using(connection, policy_id):
    """Ids of the ports whose effective policy may be ``policy_id``."""
    ports = db.PORTS
    networks = db.NETWORKS
    own = sa.select(ports.c.id).where(ports.c.qos_policy_id == policy_id)
    inherited = (sa.select(ports.c.id)
                 .join(networks, networks.c.id == ports.c.network_id)
                 .where(ports.c.qos_policy_id.is_(None),
                        networks.c.qos_policy_id == policy_id))
    return [row.id for row in connection.execute(sa.union(own, inherited))]
