"""/v2.0/ports and /v2.0/ports/{port_id}.

Who may see or set the ``binding:*`` attributes and ``resource_request``
is decided per attribute (``network:get_port:binding:host_id``, ...): by
default only administrators (the services) see where a port is bound and
what it asks placement for, and only they bind it.
"""

from nova_lite.api import wsgi
from nova_lite.api.network.handlers import networks as network_handlers
from nova_lite.api.network.schemas import ports as schema
from nova_lite.api.network import util
from nova_lite.network import bindings
from nova_lite.network import db
from nova_lite.network import exception
from nova_lite.network import ports
from nova_lite.policies import network as policies

_S, _B, _I = util.to_str, util.to_bool, util.to_int


def _mac(name, value):
    return value.strip().lower().replace('-', ':')


FILTERS = {
    'id': ('port', 'id', _S),
    'name': ('port', 'name', _S),
    'description': ('port', 'description', _S),
    'network_id': ('port', 'network_id', _S),
    'project_id': ('port', 'project_id', _S),
    'tenant_id': ('port', 'project_id', _S),
    'mac_address': ('port', 'mac_address', _mac),
    'admin_state_up': ('port', 'admin_state_up', _B),
    'status': ('port', 'status', _S),
    'device_id': ('port', 'device_id', _S),
    'device_owner': ('port', 'device_owner', _S),
    'qos_policy_id': ('port', 'qos_policy_id', _S),
    'revision_number': ('port', 'revision_number', _I),
    'binding:host_id': ('binding', 'host', _S),
    'binding:vif_type': ('binding', 'vif_type', _S),
    'binding:vnic_type': ('binding', 'vnic_type', _S),
}
FILTERS.update(util.TAG_FILTERS)
# Attributes a caller sees only if policy allows it.
GUARDED = policies.BINDING_ATTRIBUTES + ('binding:vnic_type',
                                         'resource_request')
BINDING_ARGUMENTS = {'binding:host_id': 'host',
                     'binding:vnic_type': 'vnic_type',
                     'binding:profile': 'profile'}


def target(port):
    return {'project_id': port['project_id'],
            'network:project_id': port['network_project_id']}


def view(request, port, fields=()):
    binding = port['binding']
    document = {
        'id': port['id'],
        'name': port['name'],
        'description': port['description'] or '',
        'network_id': port['network_id'],
        'project_id': port['project_id'],
        'tenant_id': port['project_id'],
        'mac_address': port['mac_address'],
        'admin_state_up': port['admin_state_up'],
        'status': port['status'],
        'device_id': port['device_id'],
        'device_owner': port['device_owner'],
        'fixed_ips': [],
        'security_groups': port['security_groups'],
        'qos_policy_id': port['qos_policy_id'],
        'qos_network_policy_id': (None if port['qos_policy_id'] else
                                  port['effective_qos_policy_id']),
        'binding:host_id': binding['host'],
        'binding:vif_type': binding['vif_type'],
        'binding:vnic_type': binding['vnic_type'],
        'binding:profile': binding['profile'],
        'binding:vif_details': binding['vif_details'],
        'resource_request': port['resource_request'],
        'tags': port['tags'],
        'revision_number': port['revision_number'],
        'created_at': util.timestamp(port['created_at']),
        'updated_at': util.timestamp(port['updated_at']),
    }
    owner = target(port)
    for attribute in GUARDED:
        if not util.allowed(request, 'get_port:' + attribute, owner):
            del document[attribute]
    return util.only_fields(document, fields)


def get_visible(request, connection, port_id, lock=False):
    """The port (locked if asked), or PortNotFound when the caller may not
    see it."""
    util.require_id(port_id, exception.PortNotFound(port_id=port_id))
    port = (ports.lock if lock else ports.get)(connection, port_id)
    if not util.allowed(request, 'get_port', target(port)):
        raise exception.PortNotFound(port_id=port_id)
    return port


def _binding_arguments(body):
    arguments = {}
    for attribute, argument in BINDING_ARGUMENTS.items():
        if attribute in body:
            value = body[attribute]
            if argument == 'profile':
                value = value or {}
            elif argument == 'host':
                value = value or ''
            arguments[argument] = value
    return arguments


def create(request):
    body = util.body(request, 'port', schema.CREATE)
    util.check_json_size('binding:profile', body.get('binding:profile'),
                         util.MAX_PROFILE_LENGTH)
    project_id = util.owner(request, body)

    def make(connection):
        network = network_handlers.get_visible(request, connection,
                                               body['network_id'])
        new_target = {'project_id': project_id,
                      'network:project_id': network['project_id']}
        util.authorize(request, 'create_port', new_target)
        # An attribute sent with its default value needs no permission.
        for attribute, default in (('mac_address', None),
                                   ('binding:host_id', ''),
                                   ('binding:profile', {}),
                                   ('binding:vnic_type',
                                    bindings.VNIC_NORMAL)):
            if body.get(attribute) not in (None, default):
                util.authorize(request, 'create_port:' + attribute,
                               new_target)
        network_handlers.check_qos_policy(request, connection,
                                          body.get('qos_policy_id'))
        return ports.create(
            connection, network['id'], project_id,
            name=body.get('name', ''), description=body.get('description'),
            mac_address=body.get('mac_address'),
            admin_state_up=body.get('admin_state_up', True),
            device_id=body.get('device_id') or '',
            device_owner=body.get('device_owner') or '',
            security_groups=body.get('security_groups') or (),
            qos_policy_id=body.get('qos_policy_id'),
            tag_list=body.get('tags', ()),
            host=body.get('binding:host_id') or '',
            vnic_type=body.get('binding:vnic_type', bindings.VNIC_NORMAL),
            profile=body.get('binding:profile') or {})
    port = db.write(make)
    return wsgi.json_response({'port': view(request, port)}, status=201)


def _hidden_filters(request):
    own = {'project_id': request.context.project_id,
           'network:project_id': request.context.project_id}
    return [name for name in FILTERS if name.startswith('binding:') and
            not util.allowed(request, 'get_port:' + name, own)]


def index(request):
    util.authorize(request, 'get_port')
    found = util.filters(request, FILTERS, hidden=_hidden_filters(request))
    limit, marker = util.pagination(request)
    visible_to = None if util.is_admin(request) else \
        request.context.project_id
    rows = db.read(ports.list_ports, found.get('port'), found.get('binding'),
                   visible_to=visible_to, limit=limit, marker=marker,
                   tag_filters=found.get('tags'))
    fields = util.requested_fields(request)
    items = [view(request, port, fields) for port in rows
             if util.allowed(request, 'get_port', target(port))]
    return wsgi.json_response(util.collection(
        request, 'ports', items, limit, [p['id'] for p in rows]))


def show(request, port_id):
    port = db.read(lambda c: get_visible(request, c, port_id))
    return wsgi.json_response({'port': view(
        request, port, util.requested_fields(request))})


def update(request, port_id):
    body = util.body(request, 'port', schema.UPDATE)
    util.check_json_size('binding:profile', body.get('binding:profile'),
                         util.MAX_PROFILE_LENGTH)

    def change(connection):
        port = get_visible(request, connection, port_id)
        owner = target(port)
        util.authorize(request, 'update_port', owner)
        for attribute in ('mac_address', 'binding:host_id',
                          'binding:profile', 'binding:vnic_type'):
            if attribute in body:
                util.authorize(request, 'update_port:' + attribute, owner)
        values = {name: value for name, value in body.items()
                  if name not in BINDING_ARGUMENTS and name != 'fixed_ips'}
        if values.get('qos_policy_id') is not None:
            network_handlers.check_qos_policy(request, connection,
                                              values['qos_policy_id'])
        if 'security_groups' in values:
            values['security_groups'] = values['security_groups'] or []
        return ports.update(connection, port_id, values,
                            **_binding_arguments(body))
    port = db.write(change)
    return wsgi.json_response({'port': view(request, port)})


def delete(request, port_id):
    def remove(connection):
        port = get_visible(request, connection, port_id)
        util.authorize(request, 'delete_port', target(port))
        ports.delete(connection, port_id)
    db.write(remove)
    return wsgi.empty_response(204)
