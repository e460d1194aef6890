"""The port API on one page: path -> {method -> handler}.

Path parameters match any single segment; handlers check ids themselves
and answer a specific 404 (PortNotFound, NetworkNotFound, ...).
"""

from nova_lite.api.network.handlers import agents
from nova_lite.api.network.handlers import bindings
from nova_lite.api.network.handlers import extensions
from nova_lite.api.network.handlers import networks
from nova_lite.api.network.handlers import ports
from nova_lite.api.network.handlers import qos
from nova_lite.api.network.handlers import root
from nova_lite.api.network.handlers import tags

# Served without a token (clients discover versions before they log in).
PUBLIC_PATHS = ('/',)

_POLICY = '/v2.0/qos/policies/{policy_id}'

ROUTE_DECLARATIONS = {
    '/': {'GET': root.versions},
    '/v2.0': {'GET': root.v2},
    '/v2.0/extensions': {'GET': extensions.index},
    '/v2.0/extensions/{alias}': {'GET': extensions.show},
    '/v2.0/networks': {
        'GET': networks.index,
        'POST': networks.create,
    },
    '/v2.0/networks/{network_id}': {
        'GET': networks.show,
        'PUT': networks.update,
        'DELETE': networks.delete,
    },
    '/v2.0/networks/{resource_id}/tags': {
        'GET': tags.NETWORKS.index,
        'PUT': tags.NETWORKS.replace_all,
        'DELETE': tags.NETWORKS.remove_all,
    },
    '/v2.0/networks/{resource_id}/tags/{tag}': {
        'GET': tags.NETWORKS.show,
        'PUT': tags.NETWORKS.add,
        'DELETE': tags.NETWORKS.remove,
    },
    '/v2.0/ports': {
        'GET': ports.index,
        'POST': ports.create,
    },
    '/v2.0/ports/{port_id}': {
        'GET': ports.show,
        'PUT': ports.update,
        'DELETE': ports.delete,
    },
    '/v2.0/ports/{resource_id}/tags': {
        'GET': tags.PORTS.index,
        'PUT': tags.PORTS.replace_all,
        'DELETE': tags.PORTS.remove_all,
    },
    '/v2.0/ports/{resource_id}/tags/{tag}': {
        'GET': tags.PORTS.show,
        'PUT': tags.PORTS.add,
        'DELETE': tags.PORTS.remove,
    },
    '/v2.0/ports/{port_id}/bindings': {
        'GET': bindings.index,
        'POST': bindings.create,
    },
    '/v2.0/ports/{port_id}/bindings/{host}': {
        'GET': bindings.show,
        'DELETE': bindings.delete,
    },
    '/v2.0/ports/{port_id}/bindings/{host}/activate': {
        'PUT': bindings.activate,
    },
    '/v2.0/qos/rule-types': {'GET': qos.rule_types},
    '/v2.0/qos/policies': {
        'GET': qos.list_policies,
        'POST': qos.create_policy,
    },
    _POLICY: {
        'GET': qos.show_policy,
        'PUT': qos.update_policy,
        'DELETE': qos.delete_policy,
    },
    _POLICY + '/minimum_bandwidth_rules': {
        'GET': qos.list_rules,
        'POST': qos.create_rule,
    },
    _POLICY + '/minimum_bandwidth_rules/{rule_id}': {
        'GET': qos.show_rule,
        'PUT': qos.update_rule,
        'DELETE': qos.delete_rule,
    },
    '/v2.0/agents': {
        'GET': agents.index,
        'POST': agents.report,
    },
    '/v2.0/agents/{agent_id}': {
        'GET': agents.show,
        'PUT': agents.update,
        'DELETE': agents.delete,
    },
}
