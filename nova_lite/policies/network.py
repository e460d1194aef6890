"""Policy defaults of the port API (nova-lite-network).

The defaults follow the Networking service's: a project manages its own
networks and ports and uses shared networks; QoS policies, provider
attributes, port bindings and agents are for administrators. An
attribute rule (``network:get_port:binding:host_id``) decides whether the
caller sees, sets or changes that attribute; a refused attribute is left
out of what the caller sees, and setting it is a 403.

Targets carry the resource's ``project_id``, ``shared`` (networks, QoS
policies) and, for ports, ``network:project_id`` (the network's owner).
"""

from oslo_policy import policy

from nova_lite.policies import base

PREFIX = 'network:'
ADMIN_OWNER_OR_SHARED = base.ADMIN_OR_OWNER + ' or True:%(shared)s'
ADMIN_OR_NETWORK_OWNER = (base.ADMIN_API +
                          ' or project_id:%(network:project_id)s')
ADMIN_OWNER_OR_NETWORK_OWNER = (base.ADMIN_OR_OWNER +
                                ' or project_id:%(network:project_id)s')

_NETWORKS = '/v2.0/networks'
_NETWORK = '/v2.0/networks/{network_id}'
_PORTS = '/v2.0/ports'
_PORT = '/v2.0/ports/{port_id}'
_BINDINGS = '/v2.0/ports/{port_id}/bindings'
_POLICIES = '/v2.0/qos/policies'
_POLICY = '/v2.0/qos/policies/{policy_id}'
_RULES = _POLICY + '/minimum_bandwidth_rules'
_RULE = _RULES + '/{rule_id}'
_AGENTS = '/v2.0/agents'
_AGENT = '/v2.0/agents/{agent_id}'

PROVIDER_ATTRIBUTES = ('provider:network_type', 'provider:physical_network',
                       'provider:segmentation_id')
BINDING_ATTRIBUTES = ('binding:host_id', 'binding:profile',
                      'binding:vif_type', 'binding:vif_details')


def _rule(name, check, description, operations):
    return policy.DocumentedRuleDefault(PREFIX + name, check, description,
                                        operations)


def _ops(method, *paths):
    return [{'method': method, 'path': path} for path in paths]


rules = [
    # networks
    _rule('create_network', base.ANY_AUTHENTICATED, 'Create a network.',
          _ops('POST', _NETWORKS)),
    _rule('create_network:shared', base.ADMIN_API,
          'Create a shared network (usable by every project).',
          _ops('POST', _NETWORKS)),
    _rule('get_network', ADMIN_OWNER_OR_SHARED,
          'Show a network (list: the networks shown).',
          _ops('GET', _NETWORKS, _NETWORK)),
    _rule('update_network', base.ADMIN_OR_OWNER, 'Update a network.',
          _ops('PUT', _NETWORK)),
    _rule('update_network:shared', base.ADMIN_API,
          'Share a network, or stop sharing it.', _ops('PUT', _NETWORK)),
    _rule('delete_network', base.ADMIN_OR_OWNER, 'Delete a network.',
          _ops('DELETE', _NETWORK)),
]
for _attribute in PROVIDER_ATTRIBUTES:
    rules += [
        _rule('create_network:' + _attribute, base.ADMIN_API,
              'Set %s of a new network.' % _attribute,
              _ops('POST', _NETWORKS)),
        _rule('get_network:' + _attribute, base.ADMIN_API,
              'See %s of a network.' % _attribute,
              _ops('GET', _NETWORKS, _NETWORK)),
    ]

rules += [
    # ports
    _rule('create_port', base.ANY_AUTHENTICATED,
          'Create a port (on a network of the project, or a shared one).',
          _ops('POST', _PORTS)),
    _rule('create_port:mac_address', ADMIN_OR_NETWORK_OWNER,
          'Choose the MAC address of a new port.', _ops('POST', _PORTS)),
    _rule('create_port:binding:vnic_type', ADMIN_OWNER_OR_NETWORK_OWNER,
          'Choose the vnic type of a new port.', _ops('POST', _PORTS)),
    _rule('get_port', ADMIN_OWNER_OR_NETWORK_OWNER,
          'Show a port (list: the ports shown).',
          _ops('GET', _PORTS, _PORT)),
    _rule('get_port:binding:vnic_type', ADMIN_OWNER_OR_NETWORK_OWNER,
          'See the vnic type of a port.', _ops('GET', _PORTS, _PORT)),
    _rule('get_port:resource_request', base.ADMIN_API,
          'See the resources a port asks placement for.',
          _ops('GET', _PORTS, _PORT)),
    # The network's owner sees and deletes the ports other projects put
    # on it, but only the port's project changes them (Neutron's
    # update_port is admin_or_owner).
    _rule('update_port', base.ADMIN_OR_OWNER, 'Update a port.',
          _ops('PUT', _PORT)),
    _rule('update_port:mac_address', base.ADMIN_API,
          'Change the MAC address of a port.', _ops('PUT', _PORT)),
    _rule('update_port:binding:vnic_type', base.ADMIN_OR_OWNER,
          'Change the vnic type of a port.', _ops('PUT', _PORT)),
    _rule('delete_port', ADMIN_OWNER_OR_NETWORK_OWNER, 'Delete a port.',
          _ops('DELETE', _PORT)),
]
for _attribute in BINDING_ATTRIBUTES:
    rules.append(_rule('get_port:' + _attribute, base.ADMIN_API,
                       'See %s of a port.' % _attribute,
                       _ops('GET', _PORTS, _PORT)))
for _attribute in ('binding:host_id', 'binding:profile'):
    rules += [
        _rule('create_port:' + _attribute, base.ADMIN_API,
              'Set %s of a new port.' % _attribute, _ops('POST', _PORTS)),
        _rule('update_port:' + _attribute, base.ADMIN_API,
              'Change %s of a port (binds it again).' % _attribute,
              _ops('PUT', _PORT)),
    ]

rules += [
    # port bindings (binding-extended)
    _rule('get_port_binding', base.ADMIN_API,
          'List or show the bindings of a port.',
          _ops('GET', _BINDINGS, _BINDINGS + '/{host}')),
    _rule('create_port_binding', base.ADMIN_API,
          'Bind a port to one more host.', _ops('POST', _BINDINGS)),
    _rule('activate_port_binding', base.ADMIN_API,
          'Make a binding of a port the active one.',
          _ops('PUT', _BINDINGS + '/{host}/activate')),
    _rule('delete_port_binding', base.ADMIN_API,
          'Delete an inactive binding of a port.',
          _ops('DELETE', _BINDINGS + '/{host}')),
    # QoS
    _rule('get_policy', ADMIN_OWNER_OR_SHARED,
          'Show a QoS policy (list: the policies shown).',
          _ops('GET', _POLICIES, _POLICY)),
    _rule('create_policy', base.ADMIN_API, 'Create a QoS policy.',
          _ops('POST', _POLICIES)),
    _rule('update_policy', base.ADMIN_API, 'Update a QoS policy.',
          _ops('PUT', _POLICY)),
    _rule('delete_policy', base.ADMIN_API, 'Delete a QoS policy.',
          _ops('DELETE', _POLICY)),
    _rule('get_policy_minimum_bandwidth_rule', ADMIN_OWNER_OR_SHARED,
          'List or show the minimum bandwidth rules of a QoS policy.',
          _ops('GET', _RULES, _RULE)),
    _rule('create_policy_minimum_bandwidth_rule', base.ADMIN_API,
          'Add a minimum bandwidth rule to a QoS policy.',
          _ops('POST', _RULES)),
    _rule('update_policy_minimum_bandwidth_rule', base.ADMIN_API,
          'Change a minimum bandwidth rule.', _ops('PUT', _RULE)),
    _rule('delete_policy_minimum_bandwidth_rule', base.ADMIN_API,
          'Delete a minimum bandwidth rule.', _ops('DELETE', _RULE)),
    _rule('get_rule_type', base.ANY_AUTHENTICATED,
          'List the QoS rule types.', _ops('GET', '/v2.0/qos/rule-types')),
    # agents
    _rule('get_agent', base.ADMIN_API, 'List or show agents.',
          _ops('GET', _AGENTS, _AGENT)),
    _rule('create_agent', base.ADMIN_API,
          'Report the state of an agent (what each compute does).',
          _ops('POST', _AGENTS)),
    _rule('update_agent', base.ADMIN_API,
          'Change the admin state or description of an agent.',
          _ops('PUT', _AGENT)),
    _rule('delete_agent', base.ADMIN_API, 'Delete an agent.',
          _ops('DELETE', _AGENT)),
]


def list_rules():
    return rules
