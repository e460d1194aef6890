"""/v2.0/agents: the L2 agents (each compute reports as its host's Open
vSwitch agent).

``POST /v2.0/agents`` is nova_lite's own: an agent's state report (the
Networking service takes these over RPC). It records the heartbeat and
configurations, creating the agent on its first report, and then syncs
the agent's bandwidth providers with placement; a failed sync only leaves
``resources_synced`` false (it is tried again at the next report).
"""

from nova_lite.api import wsgi
from nova_lite.api.network.schemas import agents as schema
from nova_lite.api.network import util
from nova_lite.network import agents
from nova_lite.network import db
from nova_lite.network import exception
from nova_lite.network import placement_sync

_S, _B = util.to_str, util.to_bool
FILTERS = {
    'id': ('agent', 'id', _S),
    'host': ('agent', 'host', _S),
    'agent_type': ('agent', 'agent_type', _S),
    'binary': ('agent', 'binary', _S),
    'topic': ('agent', 'topic', _S),
    'admin_state_up': ('agent', 'admin_state_up', _B),
    'availability_zone': ('agent', 'availability_zone', _S),
    'description': ('agent', 'description', _S),
    'alive': ('alive', 'alive', _B),
}


def _time(value):
    # The agent extension's timestamps have a space, not a T.
    return value.strftime('%Y-%m-%d %H:%M:%S') if value else None


def view(agent, now=None, fields=()):
    return util.only_fields({
        'id': agent['id'],
        'agent_type': agent['agent_type'],
        'binary': agent['binary'],
        'host': agent['host'],
        'topic': agent['topic'],
        'admin_state_up': agent['admin_state_up'],
        'alive': agents.is_alive(agent, now),
        'configurations': agent['configurations'],
        'heartbeat_timestamp': _time(agent['heartbeat_timestamp']),
        'created_at': _time(agent['created_at']),
        'started_at': _time(agent['started_at']),
        'resources_synced': agent['resources_synced'],
        'availability_zone': agent['availability_zone'],
        'description': agent['description'] or '',
    }, fields)


def _agent_id(agent_id):
    util.require_id(agent_id, exception.AgentNotFound(id=agent_id))


def report(request):
    util.authorize(request, 'create_agent')
    body = util.body(request, 'agent', schema.REPORT)
    util.check_json_size('configurations', body.get('configurations'),
                         util.MAX_CONFIGURATIONS_LENGTH)
    agent, created = db.write(
        agents.report, body['host'], body['agent_type'], body['binary'],
        body.get('configurations') or {},
        topic=body.get('topic') or agents.OVS_TOPIC,
        availability_zone=body.get('availability_zone'),
        start_flag=body.get('start_flag', False))
    synced = None  # nothing to sync: no bandwidth providers
    if agent['agent_type'] == agents.OVS_AGENT and agent[
            'configurations'].get('resource_provider_bandwidths'):
        synced = placement_sync.sync_agent(agent['host'],
                                           agent['configurations'])
    if synced != agent['resources_synced']:
        db.write(agents.set_resources_synced, agent['id'], synced)
        agent['resources_synced'] = synced
    return wsgi.json_response({'agent': view(agent)},
                              status=201 if created else 200)


def index(request):
    util.authorize(request, 'get_agent')
    found = util.filters(request, FILTERS)
    limit, marker = util.pagination(request)
    rows = db.read(agents.list_agents, found.get('agent'), limit=limit,
                   marker=marker)
    now = db.now()
    alive = found.get('alive', {}).get('alive')
    if alive:
        rows = [row for row in rows if agents.is_alive(row, now) in alive]
    fields = util.requested_fields(request)
    return wsgi.json_response(util.collection(
        request, 'agents', [view(agent, now, fields) for agent in rows],
        limit, [agent['id'] for agent in rows]))


def show(request, agent_id):
    util.authorize(request, 'get_agent')
    _agent_id(agent_id)
    agent = db.read(agents.get, agent_id)
    return wsgi.json_response({'agent': view(
        agent, fields=util.requested_fields(request))})


def update(request, agent_id):
    util.authorize(request, 'update_agent')
    _agent_id(agent_id)
    body = util.body(request, 'agent', schema.UPDATE)
    agent = db.write(agents.update, agent_id, body)
    return wsgi.json_response({'agent': view(agent)})


def delete(request, agent_id):
    util.authorize(request, 'delete_agent')
    _agent_id(agent_id)
    db.write(agents.delete, agent_id)
    return wsgi.empty_response(204)
