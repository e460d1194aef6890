"""/v2.0/networks and /v2.0/networks/{network_id}."""

from nova_lite.api import wsgi
from nova_lite.api.network.schemas import networks as schema
from nova_lite.api.network import util
from nova_lite.network import db
from nova_lite.network import exception
from nova_lite.network import networks
from nova_lite.network import ports
from nova_lite.network import qos
from nova_lite.policies import network as policies

# API attribute -> column, for the provider extension's attributes.
PROVIDER_COLUMNS = {'provider:network_type': 'network_type',
                    'provider:physical_network': 'physical_network',
                    'provider:segmentation_id': 'segmentation_id'}

_S, _B, _I = util.to_str, util.to_bool, util.to_int
FILTERS = {
    'id': ('network', 'id', _S),
    'name': ('network', 'name', _S),
    'description': ('network', 'description', _S),
    'status': ('network', 'status', _S),
    'admin_state_up': ('network', 'admin_state_up', _B),
    'shared': ('network', 'shared', _B),
    'mtu': ('network', 'mtu', _I),
    'project_id': ('network', 'project_id', _S),
    'tenant_id': ('network', 'project_id', _S),
    'qos_policy_id': ('network', 'qos_policy_id', _S),
    'revision_number': ('network', 'revision_number', _I),
    'provider:network_type': ('network', 'network_type', _S),
    'provider:physical_network': ('network', 'physical_network', _S),
    'provider:segmentation_id': ('network', 'segmentation_id', _I),
}
FILTERS.update(util.TAG_FILTERS)


def target(network):
    return {'project_id': network['project_id'],
            'shared': bool(network['shared'])}


def view(request, network, fields=()):
    document = {
        'id': network['id'],
        'name': network['name'],
        'description': network['description'] or '',
        'status': network['status'],
        'admin_state_up': network['admin_state_up'],
        'shared': network['shared'],
        'project_id': network['project_id'],
        'tenant_id': network['project_id'],
        'mtu': network['mtu'],
        'subnets': [],
        'qos_policy_id': network['qos_policy_id'],
        'provider:network_type': network['network_type'],
        'provider:physical_network': network['physical_network'],
        'provider:segmentation_id': network['segmentation_id'],
        'tags': network['tags'],
        'revision_number': network['revision_number'],
        'created_at': util.timestamp(network['created_at']),
        'updated_at': util.timestamp(network['updated_at']),
    }
    for attribute in policies.PROVIDER_ATTRIBUTES:
        if not util.allowed(request, 'get_network:' + attribute,
                            target(network)):
            del document[attribute]
    return util.only_fields(document, fields)


def visible(request, network):
    return util.allowed(request, 'get_network', target(network))


def get_visible(request, connection, net_id):
    """The network, or NetworkNotFound when the caller may not see it."""
    util.require_id(net_id, exception.NetworkNotFound(net_id=net_id))
    network = networks.get(connection, net_id)
    if not visible(request, network):
        raise exception.NetworkNotFound(net_id=net_id)
    return network


def check_qos_policy(request, connection, policy_id):
    """404 unless the caller may see QoS policy ``policy_id``."""
    if policy_id is None:
        return
    policy = qos.get_policy(connection, policy_id)
    if not util.allowed(request, 'get_policy',
                        {'project_id': policy['project_id'],
                         'shared': bool(policy['shared'])}):
        raise exception.QosPolicyNotFound(policy_id=policy_id)


def create(request):
    body = util.body(request, 'network', schema.CREATE)
    project_id = util.owner(request, body)
    new_target = {'project_id': project_id,
                  'shared': bool(body.get('shared'))}
    util.authorize(request, 'create_network', new_target)
    # As in the Networking API, an attribute sent with its default value
    # is not "set" and needs no permission.
    if body.get('shared'):
        util.authorize(request, 'create_network:shared', new_target)
    for attribute in PROVIDER_COLUMNS:
        if body.get(attribute) is not None:
            util.authorize(request, 'create_network:' + attribute,
                           new_target)
    if body.get('provider:physical_network') or body.get(
            'provider:segmentation_id') is not None:
        if not body.get('provider:network_type'):
            raise exception.InvalidInput(
                reason='provider:network_type is required with '
                       'provider:physical_network or '
                       'provider:segmentation_id.')

    def make(connection):
        check_qos_policy(request, connection, body.get('qos_policy_id'))
        return networks.create(
            connection, project_id, name=body.get('name', ''),
            description=body.get('description'),
            admin_state_up=body.get('admin_state_up', True),
            shared=body.get('shared', False), mtu=body.get('mtu'),
            network_type=body.get('provider:network_type'),
            physical_network=body.get('provider:physical_network'),
            segmentation_id=body.get('provider:segmentation_id'),
            qos_policy_id=body.get('qos_policy_id'),
            tag_list=body.get('tags', ()))
    network = db.write(make)
    return wsgi.json_response({'network': view(request, network)},
                              status=201)


def index(request):
    util.authorize(request, 'get_network')
    hidden = [] if util.is_admin(request) else list(
        policies.PROVIDER_ATTRIBUTES)
    found = util.filters(request, FILTERS, hidden=hidden)
    limit, marker = util.pagination(request)
    visible_to = None if util.is_admin(request) else \
        request.context.project_id
    rows = db.read(networks.list_networks, found.get('network'),
                   visible_to=visible_to, limit=limit, marker=marker,
                   tag_filters=found.get('tags'))
    fields = util.requested_fields(request)
    items = [view(request, network, fields) for network in rows
             if visible(request, network)]
    return wsgi.json_response(util.collection(
        request, 'networks', items, limit, [n['id'] for n in rows]))


def show(request, network_id):
    network = db.read(lambda c: get_visible(request, c, network_id))
    return wsgi.json_response({'network': view(
        request, network, util.requested_fields(request))})


def update(request, network_id):
    body = util.body(request, 'network', schema.UPDATE)

    def change(connection):
        network = get_visible(request, connection, network_id)
        util.authorize(request, 'update_network', target(network))
        if 'shared' in body and body['shared'] != network['shared']:
            util.authorize(request, 'update_network:shared',
                           target(network))
        values = dict(body)
        before = {}
        if values.get('qos_policy_id', network['qos_policy_id']) != \
                network['qos_policy_id']:
            check_qos_policy(request, connection, values['qos_policy_id'])
            before = ports.bound_requests(
                connection, ports.ids_on_network(connection, network_id))
        changed = networks.update(connection, network_id, values)
        ports.refuse_changed_requests(connection, before)
        return changed
    network = db.write(change)
    return wsgi.json_response({'network': view(request, network)})


def delete(request, network_id):
    def remove(connection):
        network = get_visible(request, connection, network_id)
        util.authorize(request, 'delete_network', target(network))
        networks.delete(connection, network_id)
    db.write(remove)
    return wsgi.empty_response(204)
