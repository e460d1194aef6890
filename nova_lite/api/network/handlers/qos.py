"""/v2.0/qos/policies, their minimum bandwidth rules, and
/v2.0/qos/rule-types.

A change to a policy's rules that would change the resource request of a
port bound to a host is refused (409): the port's placement allocation
was made for the old request, and this service does not move it.
"""

from nova_lite.api import wsgi
from nova_lite.api.network.schemas import qos as schema
from nova_lite.api.network import util
from nova_lite.network import db
from nova_lite.network import exception
from nova_lite.network import ports
from nova_lite.network import qos

_S, _B, _I = util.to_str, util.to_bool, util.to_int
POLICY_FILTERS = {
    'id': ('policy', 'id', _S),
    'name': ('policy', 'name', _S),
    'description': ('policy', 'description', _S),
    'shared': ('policy', 'shared', _B),
    'project_id': ('policy', 'project_id', _S),
    'tenant_id': ('policy', 'project_id', _S),
    'revision_number': ('policy', 'revision_number', _I),
}
RULE_FILTERS = {
    'id': ('rule', 'id', _S),
    'min_kbps': ('rule', 'min_kbps', _I),
    'direction': ('rule', 'direction', _S),
}


def target(policy):
    return {'project_id': policy['project_id'],
            'shared': bool(policy['shared'])}


def rule_view(rule, fields=()):
    return util.only_fields({'id': rule['id'], 'min_kbps': rule['min_kbps'],
                             'direction': rule['direction']}, fields)


def policy_view(policy, fields=()):
    return util.only_fields({
        'id': policy['id'],
        'name': policy['name'],
        'description': policy['description'] or '',
        'shared': policy['shared'],
        'is_default': False,
        'project_id': policy['project_id'],
        'tenant_id': policy['project_id'],
        'rules': [dict(rule_view(rule), type=rule['type'],
                       qos_policy_id=policy['id'])
                  for rule in policy['rules']],
        'tags': [],
        'revision_number': policy['revision_number'],
        'created_at': util.timestamp(policy['created_at']),
        'updated_at': util.timestamp(policy['updated_at']),
    }, fields)


def get_visible(request, connection, policy_id):
    util.require_id(policy_id,
                    exception.QosPolicyNotFound(policy_id=policy_id))
    policy = qos.get_policy(connection, policy_id)
    if not util.allowed(request, 'get_policy', target(policy)):
        raise exception.QosPolicyNotFound(policy_id=policy_id)
    return policy


# -- policies -----------------------------------------------------------------

def create_policy(request):
    body = util.body(request, 'policy', schema.CREATE_POLICY)
    project_id = util.owner(request, body)
    util.authorize(request, 'create_policy',
                   {'project_id': project_id,
                    'shared': bool(body.get('shared'))})
    policy = db.write(qos.create_policy, project_id,
                      name=body.get('name', ''),
                      description=body.get('description'),
                      shared=body.get('shared', False))
    return wsgi.json_response({'policy': policy_view(policy)}, status=201)


def list_policies(request):
    util.authorize(request, 'get_policy', {'project_id':
                                           request.context.project_id,
                                           'shared': False})
    found = util.filters(request, POLICY_FILTERS).get('policy')
    limit, marker = util.pagination(request)
    visible_to = None if util.is_admin(request) else \
        request.context.project_id
    rows = db.read(qos.list_policies, found, visible_to=visible_to,
                   limit=limit, marker=marker)
    fields = util.requested_fields(request)
    items = [policy_view(policy, fields) for policy in rows
             if util.allowed(request, 'get_policy', target(policy))]
    return wsgi.json_response(util.collection(
        request, 'policies', items, limit, [p['id'] for p in rows]))


def show_policy(request, policy_id):
    policy = db.read(lambda c: get_visible(request, c, policy_id))
    return wsgi.json_response({'policy': policy_view(
        policy, util.requested_fields(request))})


def update_policy(request, policy_id):
    body = util.body(request, 'policy', schema.UPDATE_POLICY)

    def change(connection):
        policy = get_visible(request, connection, policy_id)
        util.authorize(request, 'update_policy', target(policy))
        return qos.update_policy(connection, policy_id, body)
    return wsgi.json_response({'policy': policy_view(db.write(change))})


def delete_policy(request, policy_id):
    def remove(connection):
        policy = get_visible(request, connection, policy_id)
        util.authorize(request, 'delete_policy', target(policy))
        qos.delete_policy(connection, policy_id)
    db.write(remove)
    return wsgi.empty_response(204)


# -- minimum bandwidth rules --------------------------------------------------

def _rule_id(rule_id, policy_id):
    util.require_id(rule_id, exception.QosRuleNotFound(
        policy_id=policy_id, rule_id=rule_id))


def _changing_rules(request, connection, policy_id, action, change):
    """Run ``change()`` on the rules of a policy the caller may change,
    refusing it if it changes the resource request of a bound port."""
    policy = get_visible(request, connection, policy_id)
    util.authorize(request, action, target(policy))
    before = ports.bound_requests(connection,
                                  qos.ports_using(connection, policy_id))
    result = change()
    ports.refuse_changed_requests(connection, before)
    return result


def list_rules(request, policy_id):
    found = util.filters(request, RULE_FILTERS).get('rule')

    def fetch(connection):
        policy = get_visible(request, connection, policy_id)
        util.authorize(request, 'get_policy_minimum_bandwidth_rule',
                       target(policy))
        return qos.list_rules(connection, policy_id, found)
    fields = util.requested_fields(request)
    return wsgi.json_response({'minimum_bandwidth_rules': [
        rule_view(rule, fields) for rule in db.read(fetch)]})


def show_rule(request, policy_id, rule_id):
    def fetch(connection):
        policy = get_visible(request, connection, policy_id)
        util.authorize(request, 'get_policy_minimum_bandwidth_rule',
                       target(policy))
        _rule_id(rule_id, policy_id)
        return qos.get_rule(connection, policy_id, rule_id)
    return wsgi.json_response({'minimum_bandwidth_rule': rule_view(
        db.read(fetch), util.requested_fields(request))})


def create_rule(request, policy_id):
    body = util.body(request, 'minimum_bandwidth_rule', schema.CREATE_RULE)

    def make(connection):
        return _changing_rules(
            request, connection, policy_id,
            'create_policy_minimum_bandwidth_rule',
            lambda: qos.create_rule(connection, policy_id, body['min_kbps'],
                                    body.get('direction', qos.EGRESS)))
    return wsgi.json_response({'minimum_bandwidth_rule': rule_view(
        db.write(make))}, status=201)


def update_rule(request, policy_id, rule_id):
    body = util.body(request, 'minimum_bandwidth_rule', schema.UPDATE_RULE)

    def change(connection):
        _rule_id(rule_id, policy_id)
        return _changing_rules(
            request, connection, policy_id,
            'update_policy_minimum_bandwidth_rule',
            lambda: qos.update_rule(connection, policy_id, rule_id, body))
    return wsgi.json_response({'minimum_bandwidth_rule': rule_view(
        db.write(change))})


def delete_rule(request, policy_id, rule_id):
    def remove(connection):
        _rule_id(rule_id, policy_id)
        _changing_rules(
            request, connection, policy_id,
            'delete_policy_minimum_bandwidth_rule',
            lambda: qos.delete_rule(connection, policy_id, rule_id))
    db.write(remove)
    return wsgi.empty_response(204)


def rule_types(request):
    util.authorize(request, 'get_rule_type')
    return wsgi.json_response({'rule_types': [
        {'type': qos.RULE_TYPE_MINIMUM_BANDWIDTH}]})
