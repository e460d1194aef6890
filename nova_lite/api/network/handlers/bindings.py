"""/v2.0/ports/{port_id}/bindings: a port's bindings to several hosts
(the binding-extended extension), for moving a port between hosts: bind
it on the destination (INACTIVE), activate that binding when the server
has moved, then delete the source's."""

from nova_lite.api import wsgi
from nova_lite.api.network.schemas import bindings as schema
from nova_lite.api.network import util
from nova_lite.network import bindings
from nova_lite.network import db
from nova_lite.network import exception
from nova_lite.network import ports

_S = util.to_str
FILTERS = {
    'host': ('binding', 'host', _S),
    'vif_type': ('binding', 'vif_type', _S),
    'vnic_type': ('binding', 'vnic_type', _S),
    'status': ('binding', 'status', _S),
}


def view(binding, fields=()):
    return util.only_fields({
        'host': binding['host'],
        'vif_type': binding['vif_type'],
        'vnic_type': binding['vnic_type'],
        'profile': binding['profile'],
        'vif_details': binding['vif_details'],
        'status': binding['status'],
    }, fields)


def _port(connection, port_id, lock=False):
    util.require_id(port_id, exception.PortNotFound(port_id=port_id))
    return (ports.lock if lock else ports.get)(connection, port_id)


def index(request, port_id):
    util.authorize(request, 'get_port_binding')
    found = util.filters(request, FILTERS).get('binding')

    def fetch(connection):
        _port(connection, port_id)
        return bindings.of_port(connection, port_id, found)
    fields = util.requested_fields(request)
    return wsgi.json_response({'bindings': [
        view(binding, fields) for binding in db.read(fetch)]})


def show(request, port_id, host):
    util.authorize(request, 'get_port_binding')

    def fetch(connection):
        _port(connection, port_id)
        return bindings.get(connection, port_id, host)
    return wsgi.json_response({'binding': view(
        db.read(fetch), util.requested_fields(request))})


def create(request, port_id):
    util.authorize(request, 'create_port_binding')
    body = util.body(request, 'binding', schema.CREATE)
    util.check_json_size('profile', body.get('profile'),
                         util.MAX_PROFILE_LENGTH)

    def make(connection):
        port = _port(connection, port_id, lock=True)
        return bindings.create(connection, port, body['host'],
                               vnic_type=body.get('vnic_type'),
                               profile=body.get('profile') or {})
    return wsgi.json_response({'binding': view(db.write(make))},
                              status=201)


def activate(request, port_id, host):
    util.authorize(request, 'activate_port_binding')

    def switch(connection):
        port = _port(connection, port_id, lock=True)
        return bindings.activate(connection, port, host)
    return wsgi.json_response({'binding': view(db.write(switch))})


def delete(request, port_id, host):
    util.authorize(request, 'delete_port_binding')

    def remove(connection):
        port = _port(connection, port_id, lock=True)
        bindings.delete(connection, port, host)
    db.write(remove)
    return wsgi.empty_response(204)
