"""The L2 agents of the port service, as they last reported themselves.

Each nova-lite-compute is its host's Open vSwitch agent: it reports (see
``nova_lite.network.agent``, the sending side) the physical networks it is
wired to and the bandwidth it guarantees on them. An agent is alive while
its last report is younger than ``[network] agent_down_time``; ports bind
only to hosts with an alive, administratively up agent.
"""

import datetime

import sqlalchemy as sa

from nova_lite import conf as nova_conf
from nova_lite.db import api as db_api
from nova_lite.network import db
from nova_lite.network import exception

CONF = nova_conf.CONF

OVS_AGENT = 'Open vSwitch agent'
OVS_TOPIC = 'N/A'

A = db.AGENTS


def _as_dict(row):
    agent = dict(row._mapping)
    agent['configurations'] = db.loads(agent['configurations'], {})
    return agent


def is_alive(agent, now=None):
    now = now or db.now()
    limit = datetime.timedelta(seconds=CONF.network.agent_down_time)
    return now - agent['heartbeat_timestamp'] <= limit


def physical_networks(agent):
    """The physical networks an agent serves: those of its bridge
    mappings and those it guarantees bandwidth on."""
    configurations = agent['configurations'] or {}
    served = set()
    for key in ('bridge_mappings', 'resource_provider_bandwidths'):
        value = configurations.get(key) or {}
        if isinstance(value, dict):
            served.update(value)
    return served


def bandwidth_physical_networks(agent):
    value = (agent['configurations'] or {}).get(
        'resource_provider_bandwidths') or {}
    return set(value) if isinstance(value, dict) else set()


def report(connection, host, agent_type, binary, configurations,
           topic=OVS_TOPIC, availability_zone=None, start_flag=False):
    """Record a report: a new agent, or the heartbeat (and the
    configurations) of a known one. Returns (agent, created)."""
    now = db.now()
    row = connection.execute(sa.select(A).where(
        A.c.host == host, A.c.agent_type == agent_type)).first()
    values = dict(binary=binary, topic=topic,
                  configurations=db.dumps(configurations),
                  availability_zone=availability_zone,
                  heartbeat_timestamp=now, updated_at=now)
    if row is None:
        agent_id = db.new_id()
        try:
            connection.execute(A.insert().values(
                id=agent_id, host=host, agent_type=agent_type,
                admin_state_up=True, description=None,
                resources_synced=None, started_at=now, created_at=now,
                **values))
        except db_api.DBDuplicateEntry:  # its first two reports raced
            raise db.RetryTransaction('agent %s on %s' % (agent_type, host))
        return get(connection, agent_id), True
    if start_flag:
        values['started_at'] = now
    connection.execute(A.update().where(A.c.id == row.id).values(**values))
    return get(connection, row.id), False


def get(connection, agent_id):
    row = connection.execute(sa.select(A).where(A.c.id == agent_id)).first()
    if row is None:
        raise exception.AgentNotFound(id=agent_id)
    return _as_dict(row)


def list_agents(connection, filters=None, limit=None, marker=None):
    query = sa.select(A)
    for column, values in (filters or {}).items():
        query = query.where(db.any_of(A.c[column], values))
    if marker is not None:
        query = query.where(A.c.id > marker)
    query = query.order_by(A.c.id)
    if limit is not None:
        query = query.limit(limit)
    return [_as_dict(row) for row in connection.execute(query)]


def on_host(connection, host, agent_type=OVS_AGENT):
    return list_agents(connection, {'host': [host],
                                    'agent_type': [agent_type]})


def update(connection, agent_id, values):
    get(connection, agent_id)
    connection.execute(A.update().where(A.c.id == agent_id).values(
        updated_at=db.now(), **values))
    return get(connection, agent_id)


def set_resources_synced(connection, agent_id, synced):
    connection.execute(A.update().where(A.c.id == agent_id).values(
        resources_synced=synced))


def delete(connection, agent_id):
    get(connection, agent_id)
    connection.execute(A.delete().where(A.c.id == agent_id))
