"""The client side of the port API (Networking v2.0 wire format).

The API, the conductor and the computes use it to read ports' resource
requests and to bind ports to hosts, so ``[network] endpoint`` may name our
nova-lite-network or any service that speaks the same port API with the
multiple-port-bindings extension. An unreachable or failing service raises
NetworkUnavailable (503 to a caller of the Compute API).

Seed 001's rule lives here: a port with a resource request is bound with
``binding:profile.allocation`` naming the resource provider that satisfied
its request group in the instance's allocation, and every move updates it
to the destination's provider.

A server's ports are the ports that name it as their device *and* belong
to its project (``PortClient.ports_of``), as Nova lists them: a port's
owner may write any ``device_id`` (Neutron allows it), so a port of
another project naming a server is never bound, moved, released or
deleted with it, and a create may name only ports of the server's own
project (PortNotUsable otherwise, administrators included).
"""

from oslo_log import log as logging
import urllib.parse

from oslo_utils import uuidutils

from nova_lite import conf as nova_conf
from nova_lite import exception
from nova_lite import objects
from nova_lite import outage
from nova_lite import service_auth

CONF = nova_conf.CONF
LOG = logging.getLogger(__name__)

DEVICE_OWNER = 'compute:nova'
VIF_FAILED = ('binding_failed', 'unbound')
# The status of a port's own binding (the others of a move are INACTIVE).
ACTIVE = 'ACTIVE'
# system_metadata key listing ports the compute created for ``networks:
# [{"uuid": ...}]`` requests: deleted with the server, where ports the user
# brought are only unbound.
CREATED_PORTS = 'network_created_ports'


def _message(response):
    try:
        body = response.json()
        error = body.get('NeutronError') or body
        return error.get('message') or response.text[:200]
    except ValueError:
        return response.text[:200]


def _quoted(segment):
    """One path segment: '/', '..' or '?' in it cannot reach another
    path of the port service."""
    return urllib.parse.quote(str(segment), safe='')


def _port(port_id):
    """A port id as a path segment; PortNotFound for one that is not a
    UUID (no port has such an id)."""
    if not uuidutils.is_uuid_like(port_id):
        raise exception.PortNotFound(port_id=port_id)
    return port_id


class PortClient:

    def __init__(self, endpoint=None):
        """``endpoint`` overrides the configured one (tests)."""
        self.adapter = service_auth.adapter(
            'network', nova_conf.network.DEFAULT_ENDPOINT, endpoint)
        # The HTTP connections underneath (tests mount transports on it).
        self.session = self.adapter.session.session

    def _request(self, method, path, body=None, params=None):
        try:
            response = self.adapter.request(
                '/v2.0' + path, method, json=body, params=params,
                headers={'Accept': 'application/json'}, raise_exc=False,
                global_request_id=service_auth.global_request_id())
        except service_auth.ClientException as e:
            raise exception.NetworkUnavailable(
                reason='%s %s: %s' % (method, path, e))
        if response.status_code >= 500:
            raise exception.NetworkUnavailable(
                reason='%s %s answered %s: %s' % (
                    method, path, response.status_code, _message(response)))
        return response

    def _checked(self, response, what):
        if response.status_code >= 400:
            raise exception.PortUpdateFailed(
                port_id=what, reason='%s %s' % (response.status_code,
                                                _message(response)))
        return response

    def report_agent(self, body):
        """POST an agent's state (``network.agent``); the raw answer."""
        return self._request('POST', '/agents', body)

    # -- ports ----------------------------------------------------------------

    def show_port(self, port_id):
        response = self._request('GET', '/ports/%s' % _port(port_id))
        if response.status_code == 404:
            raise exception.PortNotFound(port_id=port_id)
        return self._checked(response, port_id).json()['port']

    def list_ports(self, **filters):
        response = self._request('GET', '/ports', params=filters)
        return self._checked(response, 'list').json()['ports']

    def ports_of(self, instance):
        """``instance``'s ports: those whose device it is, of its project.
        Another project's port naming the server is not one of them."""
        return self.list_ports(device_id=instance.uuid,
                               project_id=instance.project_id)

    def update_port(self, port_id, **attributes):
        response = self._request('PUT', '/ports/%s' % _port(port_id),
                                 {'port': attributes})
        if response.status_code == 404:
            raise exception.PortNotFound(port_id=port_id)
        return self._checked(response, port_id).json()['port']

    def create_port(self, network_id, project_id, **attributes):
        attributes.update(network_id=network_id, project_id=project_id)
        response = self._request('POST', '/ports', {'port': attributes})
        if response.status_code == 404:
            raise exception.NetworkNotFound(network_id=network_id)
        return self._checked(response, 'new port').json()['port']

    def delete_port(self, port_id):
        response = self._request('DELETE', '/ports/%s' % _port(port_id))
        if response.status_code not in (204, 404):
            self._checked(response, port_id)

    def show_network(self, network_id):
        if not uuidutils.is_uuid_like(network_id):
            raise exception.NetworkNotFound(network_id=network_id)
        response = self._request('GET', '/networks/%s' % network_id)
        if response.status_code == 404:
            raise exception.NetworkNotFound(network_id=network_id)
        return self._checked(response, network_id).json()['network']

    def has_extension(self, alias):
        response = self._request('GET', '/extensions/%s' % _quoted(alias))
        return response.status_code == 200

    # -- multiple port bindings -----------------------------------------------

    def bindings(self, port_id):
        response = self._request('GET', '/ports/%s/bindings' %
                                 _port(port_id))
        return self._checked(response, port_id).json()['bindings']

    def create_binding(self, port_id, host, profile=None):
        response = self._request(
            'POST', '/ports/%s/bindings' % _port(port_id),
            {'binding': {'host': host, 'profile': profile or {}}})
        return self._checked(response, port_id).json()['binding']

    def activate_binding(self, port_id, host):
        response = self._request(
            'PUT', '/ports/%s/bindings/%s/activate' % (_port(port_id),
                                                       _quoted(host)))
        return self._checked(response, port_id).json()['binding']

    def delete_binding(self, port_id, host):
        response = self._request('DELETE', '/ports/%s/bindings/%s' %
                                 (_port(port_id), _quoted(host)))
        if response.status_code not in (204, 404):
            self._checked(response, port_id)


# -- what the services do with ports ------------------------------------------

def requested_ports(client, requested_networks, project_id=None,
                    is_admin=False):
    """The ports a create names, checked: each exists (PortNotFound, a
    400), belongs to the project the server is made in (another project's
    port is PortNotFound to a member, who may not see it, and PortNotUsable
    to an admin, a 400: the server would not count it among its ports), is
    not bound to a server (PortInUse, 409) and is named once. A network
    named exists and the caller may use it: its own project's, shared,
    or any for an admin (NetworkNotFound otherwise, as for one that does
    not exist: another project's private network is not disclosed)."""
    ports = []
    seen = set()
    for request in (requested_networks or []):
        if request.port_id is None:
            if request.network_id not in (None, 'auto', 'none'):
                network = client.show_network(request.network_id)
                if not (is_admin or project_id is None or
                        network.get('shared') or
                        network.get('project_id') in (None, project_id)):
                    raise exception.NetworkNotFound(
                        network_id=request.network_id)
            continue
        if request.port_id in seen:
            raise exception.DuplicatePortRequest(port_id=request.port_id)
        seen.add(request.port_id)
        port = client.show_port(request.port_id)
        if project_id and port.get('project_id') != project_id:
            if not is_admin:
                raise exception.PortNotFound(port_id=request.port_id)
            raise exception.PortNotUsable(port_id=request.port_id,
                                          project_id=project_id)
        if port.get('device_id'):
            raise exception.PortInUse(port_id=request.port_id,
                                      device_id=port['device_id'])
        ports.append(port)
    return ports


def request_groups(ports):
    """A RequestGroup per port that has a resource request."""
    return [group for group in (objects.RequestGroup.from_port(p)
                                for p in ports) if group is not None]


def provider_by_port(request_groups_, mappings):
    """{port id: resource provider uuid} from an allocation request's
    ``mappings`` (group suffix -> [providers]); ports without a request
    group are not in it."""
    mappings = mappings or {}
    found = {}
    for group in request_groups_ or []:
        providers = mappings.get(group.suffix) or group.provider_uuids
        if not providers:
            raise exception.PortUpdateFailed(
                port_id=group.requester_id,
                reason='no resource provider in the allocation satisfied '
                       'its resource request')
        found[group.requester_id] = providers[0]
    return found


def port_allocations(request_groups_, provider_of_port):
    """The ports' part of a PUT /allocations body:
    {provider uuid: {'resources': {class: amount}}}."""
    allocations = {}
    for group in request_groups_ or []:
        provider = provider_of_port[group.requester_id]
        resources = allocations.setdefault(provider, {'resources': {}})[
            'resources']
        for resource_class, amount in group.resources.items():
            resources[resource_class] = resources.get(resource_class,
                                                      0) + amount
    return allocations


def profile_naming(port, provider):
    """``port``'s binding profile with ``allocation`` naming ``provider``
    (none when ``provider`` is None), the rest kept."""
    profile = dict(port.get('binding:profile') or {})
    if provider is None:
        profile.pop('allocation', None)
    else:
        profile['allocation'] = provider
    return profile


def bind_port(client, port, instance, host, provider=None):
    """Bind ``port`` to ``instance`` on ``host``; PortBindingFailed when the
    service could not bind it there."""
    bound = client.update_port(
        port['id'], device_id=instance.uuid, device_owner=DEVICE_OWNER,
        **{'binding:host_id': host,
           'binding:profile': profile_naming(port, provider)})
    if bound.get('binding:vif_type') in VIF_FAILED:
        raise exception.PortBindingFailed(
            port_id=port['id'], host=host,
            vif_type=bound.get('binding:vif_type'))
    return bound


def bind_for_build(client, instance, host, requested_networks,
                   provider_of_port):
    """Bind the ports a create named (and create ports on the networks it
    named) to ``instance`` on ``host``. Ports created are recorded in the
    instance's system_metadata. On failure what was bound here is unbound
    (or deleted) again before the error is raised."""
    bound = []
    try:
        for request in (requested_networks or []):
            if request.port_id is not None:
                port = client.show_port(request.port_id)
                if port.get('project_id') != instance.project_id:
                    raise exception.PortNotUsable(
                        port_id=port['id'], project_id=instance.project_id)
                if port.get('device_id') not in (None, '', instance.uuid):
                    raise exception.PortInUse(port_id=port['id'],
                                              device_id=port['device_id'])
                bound.append(port)
                bind_port(client, port, instance, host,
                          provider_of_port.get(port['id']))
            elif request.network_id not in (None, 'auto', 'none'):
                port = client.create_port(
                    request.network_id, instance.project_id,
                    name='', device_id=instance.uuid,
                    device_owner=DEVICE_OWNER)
                created = instance.system_metadata.get(CREATED_PORTS)
                instance.system_metadata[CREATED_PORTS] = ','.join(
                    filter(None, [created, port['id']]))
                bound.append(port)
                bind_port(client, port, instance, host)
    except Exception:
        release_ports(client, instance, ports=bound)
        raise


def release_ports(client, instance, ports=None):
    """Unbind the instance's ports (delete those the compute created):
    after a failed build, or when the server is deleted. Errors are logged,
    never raised; ``nova-lite-manage audit`` reports what is left."""
    created = set(filter(None, (instance.system_metadata or {}).get(
        CREATED_PORTS, '').split(',')))
    try:
        if ports is None:
            ports = client.ports_of(instance)
        for port in ports:
            if port['id'] in created:
                client.delete_port(port['id'])
                continue
            client.update_port(
                port['id'], device_id='', device_owner='',
                **{'binding:host_id': None,
                   'binding:profile': profile_naming(port, None)})
    except (exception.NetworkUnavailable, exception.PortUpdateFailed,
            exception.PortNotFound) as e:
        LOG.warning('Ports of %s not released: %s', instance.uuid, e)
    if created and instance.system_metadata:
        instance.system_metadata.pop(CREATED_PORTS, None)


def point_back(client, instance, host, held, ports=None):
    """Bind each of ``instance``'s ports to ``host`` again, a port with a
    resource request with ``allocation`` naming the provider of ``held``
    (the server's allocations, {rp: {'resources': ...}}) that has its
    resource classes: after a move to another host was undone. Raises
    what the port service raises."""
    if ports is None:
        ports = client.ports_of(instance)
    for port in ports:
        wanted = objects.RequestGroup.from_port(port)
        provider = None
        if wanted is not None:
            provider = next((
                rp for rp, allocation in sorted(held.items())
                if set(wanted.resources) <= set(allocation['resources'])),
                None)
        client.update_port(port['id'], **{
            'binding:host_id': host,
            'binding:profile': profile_naming(port, provider)})


def unbind_from_host(client, port):
    """Bind ``port`` to no host, dropping its ``allocation``; it stays the
    server's (an offloaded server keeps its ports)."""
    return client.update_port(port['id'], **{
        'binding:host_id': None,
        'binding:profile': profile_naming(port, None)})


def drop_binding(client, port_id, host):
    """Delete the binding a move made for ``port_id`` on ``host`` (its
    undo). A port released after the move read it (its server deleted,
    or the port detached) was bound to no host when that binding was
    made, so the binding became its ACTIVE one, which cannot be deleted:
    the port is then bound to no host again, unless a server took it
    since. Safe to repeat: while the port service does not answer it is
    asked again, until [DEFAULT] outage_wait is over. Raises what the
    port service raises otherwise."""
    def drop():
        try:
            client.delete_binding(port_id, host)
        except exception.PortUpdateFailed:
            try:
                port = client.show_port(port_id)
            except exception.PortNotFound:
                return
            if port.get('device_id') or port.get('binding:host_id') != host:
                raise
            LOG.info('Port %s was released during a move; its binding on '
                     '%s became the active one and is unbound', port_id,
                     host)
            unbind_from_host(client, port)
    outage.ride_out(drop, exception.NetworkUnavailable,
                    'Dropping the binding of port %s on %s' % (port_id, host))


def move_bindings(client, instance, host, provider_of_port, ports=None):
    """Point each of the instance's ports at ``host`` (evacuation,
    unshelve): binding host and ``allocation`` key together. Raises
    PortBindingFailed / PortUpdateFailed; the caller undoes."""
    if ports is None:
        ports = client.ports_of(instance)
    for port in ports:
        bind_port(client, port, instance, host,
                  provider_of_port.get(port['id']))
    return ports
