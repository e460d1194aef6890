"""/v2.0/extensions: the API extensions this service implements, which
clients check before they use one (binding-extended before the multiple
port bindings API, port-resource-request before reading resource_request,
...)."""

from nova_lite.api import wsgi
from nova_lite.network import exception

_UPDATED = '2024-01-01T00:00:00-00:00'

# alias -> (name, description)
EXTENSIONS = {
    'agent': ('agent', 'The L2 agents (each compute is its host\'s); '
                       'POST /v2.0/agents takes an agent\'s report.'),
    'agent-resources-synced': (
        'Agent\'s Resource View Synced to Placement',
        'An agent\'s resources_synced: whether its bandwidth providers are '
        'in placement.'),
    'binding': ('Port Binding', 'binding:host_id, binding:profile, '
                                'binding:vnic_type, binding:vif_type and '
                                'binding:vif_details of ports.'),
    'binding-extended': ('Port Bindings Extended',
                         'Several bindings of one port, one of them '
                         'active: /v2.0/ports/{id}/bindings.'),
    'filter-validation': ('Filter parameters validation',
                          'An unknown filter on a list is a 400.'),
    'net-mtu': ('Network MTU', 'The mtu of networks.'),
    'pagination': ('Pagination support', 'limit and marker on lists.'),
    'port-resource-request': (
        'Port Resource Request',
        'resource_request of ports: the bandwidth their QoS policy '
        'guarantees, for placement.'),
    'project-id': ('project_id field enabled',
                   'project_id as well as tenant_id.'),
    'provider': ('Provider Network', 'provider:network_type, '
                                     'provider:physical_network and '
                                     'provider:segmentation_id.'),
    'qos': ('Quality of Service', 'QoS policies and their rules.'),
    'qos-bw-minimum-ingress': ('QoS minimum bandwidth ingress',
                               'Minimum bandwidth rules of direction '
                               'ingress as well as egress.'),
    'qos-port-network-policy': ('QoS port network policy',
                                'qos_network_policy_id of ports.'),
    'standard-attr-description': ('standard-attr-description',
                                  'description of resources.'),
    'standard-attr-revisions': ('Resource revision numbers',
                                'revision_number of resources.'),
    'standard-attr-tag': ('Tag support for resources with standard '
                          'attribute', 'Tags of networks and ports: '
                          '/v2.0/{networks,ports}/{id}/tags and the tags, '
                          'tags-any, not-tags and not-tags-any filters.'),
    'standard-attr-timestamp': ('Resource timestamps',
                                'created_at and updated_at of resources.'),
}


def _view(alias):
    name, description = EXTENSIONS[alias]
    return {'alias': alias, 'name': name, 'description': description,
            'updated': _UPDATED, 'links': []}


def index(request):
    return wsgi.json_response({'extensions': [
        _view(alias) for alias in sorted(EXTENSIONS)]})


def show(request, alias):
    if alias not in EXTENSIONS:
        raise exception.ExtensionNotFound(alias=alias)
    return wsgi.json_response({'extension': _view(alias)})
