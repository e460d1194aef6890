"""The client side of the port API: PortClient on the wire, and what the
API, the conductor and the computes do with ports through it (checking
the ports a create names, their request groups, which provider satisfied
each, binding, releasing and moving them).

The helpers are run against ``FakePortService``, an in-memory stand-in of
the port service with PortClient's methods; PortClient itself against the
real port API app in this process. Other test modules import
``FakePortService`` and ``port`` from here.
"""

import copy

import fixtures
from oslo_utils import uuidutils
import requests
import testtools
import webob

from nova_lite import exception
from nova_lite.network import api as network_api
from nova_lite import objects
from tests.unit.network import base

EGRESS = 'NET_BW_EGR_KILOBIT_PER_SEC'
INGRESS = 'NET_BW_IGR_KILOBIT_PER_SEC'
PHYSNET_TRAIT = 'CUSTOM_PHYSNET_PHYSNET0'
VNIC_TRAIT = 'CUSTOM_VNIC_TYPE_NORMAL'

objects.register_all()


def port(port_id=None, project_id='demo', device_id='', host=None,
         profile=None, egress=None, traits=(PHYSNET_TRAIT, VNIC_TRAIT),
         network_id='net-1'):
    """A port as the port API shows it to an administrator; ``egress``
    (kbps) gives it a minimum bandwidth resource request."""
    document = {
        'id': port_id or uuidutils.generate_uuid(),
        'project_id': project_id, 'network_id': network_id,
        'device_id': device_id,
        'device_owner': network_api.DEVICE_OWNER if device_id else '',
        'binding:host_id': host, 'binding:profile': dict(profile or {}),
        'binding:vif_type': 'ovs' if host else 'unbound',
        'resource_request': None,
    }
    if egress:
        document['resource_request'] = {'resources': {EGRESS: egress},
                                        'required': list(traits)}
    return document


class FakePortService:
    """The port service in memory, answering PortClient's methods.

    ``unbindable_hosts``: binding a port there answers vif_type
    binding_failed (no live agent). ``down``: every call raises
    NetworkUnavailable. ``extra_bindings``: {port id: [binding]} INACTIVE
    (or stray ACTIVE) bindings besides the port's own one;
    ``unreadable_bindings``: ports whose bindings cannot be read. ``calls``
    records each write as (method, port id, attributes).
    """

    def __init__(self, *ports, networks=('net-1',)):
        self.ports = {p['id']: copy.deepcopy(p) for p in ports}
        self.networks = {n: {'id': n, 'name': n} for n in networks}
        self.unbindable_hosts = set()
        self.extra_bindings = {}
        self.unreadable_bindings = set()
        self.down = False
        self.calls = []

    def add(self, document):
        self.ports[document['id']] = copy.deepcopy(document)
        return document

    def _reachable(self, what):
        if self.down:
            raise exception.NetworkUnavailable(reason='%s: refused' % what)

    def _port(self, port_id):
        if port_id not in self.ports:
            raise exception.PortNotFound(port_id=port_id)
        return self.ports[port_id]

    # -- PortClient's interface ----------------------------------------------

    def show_port(self, port_id):
        self._reachable('GET /ports/%s' % port_id)
        return copy.deepcopy(self._port(port_id))

    def list_ports(self, **filters):
        self._reachable('GET /ports')
        return [copy.deepcopy(p) for _id, p in sorted(self.ports.items())
                if all(p.get(k) == v for k, v in filters.items())]

    # The real rule (device and project), run on this fake's list_ports.
    ports_of = network_api.PortClient.ports_of

    def update_port(self, port_id, **attributes):
        self._reachable('PUT /ports/%s' % port_id)
        document = self._port(port_id)
        self.calls.append(('update_port', port_id, copy.deepcopy(attributes)))
        document.update(copy.deepcopy(attributes))
        if 'binding:host_id' in attributes:
            host = attributes['binding:host_id']
            if not host:
                document['binding:vif_type'] = 'unbound'
            elif host in self.unbindable_hosts:
                document['binding:vif_type'] = 'binding_failed'
            else:
                document['binding:vif_type'] = 'ovs'
        return copy.deepcopy(document)

    def create_port(self, network_id, project_id, **attributes):
        self._reachable('POST /ports')
        if network_id not in self.networks:
            raise exception.NetworkNotFound(network_id=network_id)
        document = port(project_id=project_id, network_id=network_id)
        document.update(attributes)
        self.calls.append(('create_port', document['id'],
                           copy.deepcopy(attributes)))
        return copy.deepcopy(self.add(document))

    def delete_port(self, port_id):
        self._reachable('DELETE /ports/%s' % port_id)
        self.calls.append(('delete_port', port_id, {}))
        self.ports.pop(port_id, None)

    def show_network(self, network_id):
        self._reachable('GET /networks/%s' % network_id)
        if network_id not in self.networks:
            raise exception.NetworkNotFound(network_id=network_id)
        return dict(self.networks[network_id])

    def bindings(self, port_id):
        self._reachable('GET /ports/%s/bindings' % port_id)
        if port_id in self.unreadable_bindings:
            raise exception.NetworkUnavailable(
                reason='GET /ports/%s/bindings answered 500' % port_id)
        document = self._port(port_id)
        own = {'host': document.get('binding:host_id') or '',
               'status': 'ACTIVE',
               'profile': dict(document.get('binding:profile') or {}),
               'vif_type': document.get('binding:vif_type')}
        return [own] + copy.deepcopy(self.extra_bindings.get(port_id, []))

    # -- what tests read back ------------------------------------------------

    def writes(self, method='update_port'):
        return [(port_id, attributes)
                for name, port_id, attributes in self.calls
                if name == method]


def network_requests(*entries):
    """A NetworkRequestList from the API's ``networks`` entries."""
    return objects.NetworkRequestList.from_api(list(entries))


def group(port_id, egress=1000, traits=(), providers=()):
    return objects.RequestGroup(requester_id=port_id,
                                resources={EGRESS: egress},
                                required_traits=list(traits),
                                provider_uuids=list(providers))


class FakeInstance:
    """What the helpers read of an instance: uuid, project_id and
    system_metadata."""

    def __init__(self, uuid=None, project_id='demo', system_metadata=None):
        self.uuid = uuid or uuidutils.generate_uuid()
        self.project_id = project_id
        self.system_metadata = dict(system_metadata or {})


class HelpersTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.logs = self.useFixture(fixtures.FakeLogger())
        self.service = FakePortService()
        self.instance = FakeInstance()

    def stored(self, port_id):
        return self.service.ports[port_id]


# -- requested_ports ----------------------------------------------------------

class TestRequestedPorts(HelpersTestCase):

    def check(self, *entries, project_id='demo', is_admin=False):
        return network_api.requested_ports(
            self.service, network_requests(*entries), project_id, is_admin)

    def test_a_free_port_of_the_project_is_returned(self):
        free = self.service.add(port())
        self.assertEqual([free['id']],
                         [p['id'] for p in self.check({'port': free['id']})])

    def test_an_unknown_port_is_port_not_found_a_400(self):
        unknown = uuidutils.generate_uuid()
        error = self.assertRaises(exception.PortNotFound, self.check,
                                  {'port': unknown})
        self.assertEqual(400, error.code)
        self.assertIn(unknown, error.format_message())

    def test_another_projects_port_is_not_found_for_a_member(self):
        theirs = self.service.add(port(project_id='other'))
        self.assertRaises(exception.PortNotFound, self.check,
                          {'port': theirs['id']})

    def test_another_projects_port_is_not_usable_for_an_admin_a_400(self):
        # The server would never count it among its ports (they are its
        # project's), so it would be bound and then forgotten.
        theirs = self.service.add(port(project_id='other'))
        error = self.assertRaises(exception.PortNotUsable, self.check,
                                  {'port': theirs['id']}, is_admin=True)
        self.assertEqual(400, error.code)
        self.assertIn(theirs['id'], error.format_message())

    def test_a_port_bound_to_a_server_is_in_use_a_409(self):
        server = uuidutils.generate_uuid()
        taken = self.service.add(port(device_id=server, host='h1'))
        error = self.assertRaises(exception.PortInUse, self.check,
                                  {'port': taken['id']})
        self.assertEqual(409, error.code)
        self.assertIn(server, error.format_message())

    def test_a_port_named_twice_is_a_duplicate_request(self):
        free = self.service.add(port())
        self.assertRaises(exception.DuplicatePortRequest, self.check,
                          {'port': free['id']}, {'port': free['id']})

    def test_a_named_network_must_exist(self):
        self.assertRaises(exception.NetworkNotFound, self.check,
                          {'uuid': 'no-such-net'})

    def test_a_named_network_that_exists_adds_no_port(self):
        self.assertEqual([], self.check({'uuid': 'net-1'}))

    def test_another_projects_private_network_is_not_found(self):
        self.service.networks['net-1'].update(project_id='other',
                                              shared=False)
        self.assertRaises(exception.NetworkNotFound, self.check,
                          {'uuid': 'net-1'})

    def test_a_shared_network_or_ones_own_may_be_named(self):
        self.service.networks['net-1'].update(project_id='other',
                                              shared=True)
        self.assertEqual([], self.check({'uuid': 'net-1'}))
        self.service.networks['net-1'].update(project_id='demo',
                                              shared=False)
        self.assertEqual([], self.check({'uuid': 'net-1'}))

    def test_an_admin_may_name_any_network(self):
        self.service.networks['net-1'].update(project_id='other',
                                              shared=False)
        self.assertEqual([], self.check({'uuid': 'net-1'}, is_admin=True))

    def test_auto_and_none_are_not_looked_up(self):
        self.service.down = True
        for special in ('auto', 'none'):
            self.assertEqual([], network_api.requested_ports(
                self.service, objects.NetworkRequestList.from_api(special),
                'demo'))

    def test_no_networks_is_no_ports(self):
        self.assertEqual([], network_api.requested_ports(self.service, None,
                                                         'demo'))


# -- request_groups, provider_by_port, port_allocations -----------------------

class TestRequestGroups(HelpersTestCase):

    def test_a_port_with_a_resource_request_is_one_group_named_by_it(self):
        bandwidth = port(egress=1000, traits=(VNIC_TRAIT, PHYSNET_TRAIT))
        [found] = network_api.request_groups([bandwidth])
        self.assertEqual(
            (bandwidth['id'], {EGRESS: 1000},
             [PHYSNET_TRAIT, VNIC_TRAIT], []),
            (found.requester_id, found.resources, found.required_traits,
             found.provider_uuids))

    def test_ports_without_a_resource_request_make_no_group(self):
        plain = port()
        empty = port()
        empty['resource_request'] = {'resources': {}, 'required': []}
        self.assertEqual([], network_api.request_groups([plain, empty]))


class TestProviderByPort(HelpersTestCase):

    def test_each_port_gets_the_first_provider_of_its_suffix(self):
        groups = [group('p1'), group('p2')]
        self.assertEqual({'p1': 'rp-a', 'p2': 'rp-b'},
                         network_api.provider_by_port(
                             groups, {'_p1': ['rp-a', 'rp-x'],
                                      '_p2': ['rp-b'], '': ['node']}))

    def test_a_group_already_allocated_keeps_its_provider(self):
        self.assertEqual({'p1': 'rp-a'}, network_api.provider_by_port(
            [group('p1', providers=['rp-a'])], None))

    def test_a_group_no_provider_satisfied_fails_naming_its_port(self):
        error = self.assertRaises(
            exception.PortUpdateFailed, network_api.provider_by_port,
            [group('p1'), group('p2')], {'_p1': ['rp-a']})
        self.assertIn('p2', error.format_message())

    def test_no_groups_is_no_mapping(self):
        self.assertEqual({}, network_api.provider_by_port(None, None))


class TestPortAllocations(HelpersTestCase):

    def test_groups_on_one_provider_add_up(self):
        self.assertEqual(
            {'rp-a': {'resources': {EGRESS: 1500}}},
            network_api.port_allocations(
                [group('p1', egress=1000), group('p2', egress=500)],
                {'p1': 'rp-a', 'p2': 'rp-a'}))

    def test_groups_on_different_providers_stay_apart(self):
        self.assertEqual(
            {'rp-a': {'resources': {EGRESS: 1000}},
             'rp-b': {'resources': {EGRESS: 500}}},
            network_api.port_allocations(
                [group('p1', egress=1000), group('p2', egress=500)],
                {'p1': 'rp-a', 'p2': 'rp-b'}))

    def test_no_groups_is_nothing_to_allocate(self):
        self.assertEqual({}, network_api.port_allocations([], {}))


class TestBindPort(HelpersTestCase):

    def test_binds_to_the_server_on_the_host_with_its_provider(self):
        free = self.service.add(port(egress=1000))
        network_api.bind_port(self.service, free, self.instance, 'h2',
                              'rp-h2')
        stored = self.stored(free['id'])
        self.assertEqual(
            (self.instance.uuid, 'compute:nova', 'h2',
             {'allocation': 'rp-h2'}),
            (stored['device_id'], stored['device_owner'],
             stored['binding:host_id'], stored['binding:profile']))

    def test_other_keys_of_the_profile_are_kept(self):
        free = self.service.add(port(profile={'trusted': 'true',
                                              'allocation': 'rp-h1'}))
        network_api.bind_port(self.service, free, self.instance, 'h2',
                              'rp-h2')
        self.assertEqual({'trusted': 'true', 'allocation': 'rp-h2'},
                         self.stored(free['id'])['binding:profile'])

    def test_without_a_provider_the_allocation_is_dropped(self):
        free = self.service.add(port(profile={'allocation': 'rp-h1'}))
        network_api.bind_port(self.service, free, self.instance, 'h2')
        self.assertEqual({}, self.stored(free['id'])['binding:profile'])

    def test_a_binding_the_service_failed_is_port_binding_failed(self):
        free = self.service.add(port())
        self.service.unbindable_hosts.add('h2')
        error = self.assertRaises(exception.PortBindingFailed,
                                  network_api.bind_port, self.service, free,
                                  self.instance, 'h2')
        self.assertIn('binding_failed', error.format_message())


class TestBindForBuild(HelpersTestCase):

    def bind(self, requests_, provider_of_port=None):
        network_api.bind_for_build(self.service, self.instance, 'h1',
                                   requests_, provider_of_port or {})

    def test_each_named_port_is_bound_with_its_provider(self):
        bandwidth = self.service.add(port(egress=1000))
        plain = self.service.add(port())
        self.bind(network_requests({'port': bandwidth['id']},
                                   {'port': plain['id']}),
                  {bandwidth['id']: 'rp-h1'})
        self.assertEqual(
            [('h1', {'allocation': 'rp-h1'}), ('h1', {})],
            [(self.stored(p)['binding:host_id'],
              self.stored(p)['binding:profile'])
             for p in (bandwidth['id'], plain['id'])])

    def test_a_named_network_gets_a_new_port_recorded_as_created(self):
        self.bind(network_requests({'uuid': 'net-1'}))
        [(created, attributes)] = self.service.writes('create_port')
        self.assertEqual(self.instance.uuid, attributes['device_id'])
        self.assertEqual('h1', self.stored(created)['binding:host_id'])
        self.assertEqual(created, self.instance.system_metadata[
            network_api.CREATED_PORTS])

    def test_every_created_port_is_recorded(self):
        self.bind(network_requests({'uuid': 'net-1'}, {'uuid': 'net-1'}))
        created = [p for p, _a in self.service.writes('create_port')]
        self.assertEqual(','.join(created), self.instance.system_metadata[
            network_api.CREATED_PORTS])

    def test_a_port_another_server_took_meanwhile_is_in_use(self):
        taken = self.service.add(port(device_id=uuidutils.generate_uuid()))
        self.assertRaises(exception.PortInUse, self.bind,
                          network_requests({'port': taken['id']}))
        self.assertEqual([], self.service.writes())

    def test_a_port_of_another_project_is_not_bound(self):
        theirs = self.service.add(port(project_id='other'))
        self.assertRaises(exception.PortNotUsable, self.bind,
                          network_requests({'port': theirs['id']}))
        self.assertEqual([], self.service.writes())

    def test_a_port_already_this_servers_is_bound_again(self):
        mine = self.service.add(port(device_id=self.instance.uuid))
        self.bind(network_requests({'port': mine['id']}))
        self.assertEqual('h1', self.stored(mine['id'])['binding:host_id'])

    def test_a_failure_unbinds_the_port_it_was_binding(self):
        first = self.service.add(port())
        self.service.unbindable_hosts.add('h1')
        self.assertRaises(exception.PortBindingFailed, self.bind,
                          network_requests({'port': first['id']},
                                           {'uuid': 'net-1'}))
        stored = self.stored(first['id'])
        self.assertEqual(('', None), (stored['device_id'],
                                      stored['binding:host_id']))
        self.assertEqual([], self.service.writes('create_port'))

    def test_a_failed_created_port_is_deleted_and_forgotten(self):
        plain = self.service.add(port())
        self.service.networks.clear()
        self.service.networks['net-2'] = {'id': 'net-2'}
        self.service.unbindable_hosts.add('h1')
        self.assertRaises(exception.PortBindingFailed, self.bind,
                          network_requests({'uuid': 'net-2'},
                                           {'port': plain['id']}))
        [(created, _attributes)] = self.service.writes('create_port')
        self.assertEqual([(created, {})], self.service.writes('delete_port'))
        self.assertNotIn(network_api.CREATED_PORTS,
                         self.instance.system_metadata)

    def test_auto_and_none_bind_nothing(self):
        for special in ('auto', 'none'):
            self.bind(objects.NetworkRequestList.from_api(special))
        self.assertEqual([], self.service.calls)


class TestReleasePorts(HelpersTestCase):

    def test_the_servers_ports_are_unbound_and_lose_their_allocation(self):
        mine = self.service.add(port(
            device_id=self.instance.uuid, host='h1',
            profile={'allocation': 'rp-h1', 'trusted': 'true'}))
        network_api.release_ports(self.service, self.instance)
        stored = self.stored(mine['id'])
        self.assertEqual(('', '', None, {'trusted': 'true'}),
                         (stored['device_id'], stored['device_owner'],
                          stored['binding:host_id'],
                          stored['binding:profile']))

    def test_ports_the_compute_created_are_deleted(self):
        created = self.service.add(port(device_id=self.instance.uuid,
                                        host='h1'))
        brought = self.service.add(port(device_id=self.instance.uuid,
                                        host='h1'))
        self.instance.system_metadata[network_api.CREATED_PORTS] = \
            created['id']
        network_api.release_ports(self.service, self.instance)
        self.assertEqual([brought['id']], list(self.service.ports))
        self.assertNotIn(network_api.CREATED_PORTS,
                         self.instance.system_metadata)

    def test_other_servers_ports_are_left_alone(self):
        theirs = self.service.add(port(device_id=uuidutils.generate_uuid(),
                                       host='h1'))
        network_api.release_ports(self.service, self.instance)
        self.assertEqual('h1', self.stored(theirs['id'])['binding:host_id'])

    def test_another_projects_port_naming_the_server_is_left_alone(self):
        # Its owner wrote the server's uuid as its device_id: it is not
        # the server's, so it is neither unbound nor deleted with it.
        theirs = self.service.add(port(device_id=self.instance.uuid,
                                       project_id='other', host='h1'))
        self.instance.system_metadata[network_api.CREATED_PORTS] = \
            theirs['id']
        network_api.release_ports(self.service, self.instance)
        self.assertEqual([], self.service.calls)
        self.assertEqual(self.instance.uuid,
                         self.stored(theirs['id'])['device_id'])

    def test_an_unreachable_port_service_is_logged_not_raised(self):
        self.service.add(port(device_id=self.instance.uuid, host='h1'))
        self.service.down = True
        network_api.release_ports(self.service, self.instance)
        self.assertIn('Ports of %s not released' % self.instance.uuid,
                      self.logs.output)


class TestUnbindFromHost(HelpersTestCase):

    def test_the_port_stays_the_servers_bound_to_no_host(self):
        mine = self.service.add(port(device_id=self.instance.uuid,
                                     host='h1',
                                     profile={'allocation': 'rp-h1'}))
        network_api.unbind_from_host(self.service, mine)
        stored = self.stored(mine['id'])
        self.assertEqual((self.instance.uuid, None, {}),
                         (stored['device_id'], stored['binding:host_id'],
                          stored['binding:profile']))


class TestMoveBindings(HelpersTestCase):

    def test_every_port_points_at_the_new_host_with_its_provider(self):
        bandwidth = self.service.add(port(
            device_id=self.instance.uuid, host='h1', egress=1000,
            profile={'allocation': 'rp-h1'}))
        plain = self.service.add(port(device_id=self.instance.uuid,
                                      host='h1'))
        moved = network_api.move_bindings(self.service, self.instance, 'h2',
                                          {bandwidth['id']: 'rp-h2'})
        self.assertEqual(sorted([bandwidth['id'], plain['id']]),
                         sorted(p['id'] for p in moved))
        self.assertEqual(
            [('h2', {'allocation': 'rp-h2'}), ('h2', {})],
            [(self.stored(p)['binding:host_id'],
              self.stored(p)['binding:profile'])
             for p in (bandwidth['id'], plain['id'])])

    def test_only_the_ports_given_are_moved(self):
        mine = self.service.add(port(device_id=self.instance.uuid,
                                     host='h1'))
        other = self.service.add(port(device_id=self.instance.uuid,
                                      host='h1'))
        network_api.move_bindings(self.service, self.instance, 'h2', {},
                                  ports=[mine])
        self.assertEqual(('h2', 'h1'),
                         (self.stored(mine['id'])['binding:host_id'],
                          self.stored(other['id'])['binding:host_id']))

    def test_another_projects_port_naming_the_server_is_not_moved(self):
        mine = self.service.add(port(device_id=self.instance.uuid,
                                     host='h1'))
        theirs = self.service.add(port(device_id=self.instance.uuid,
                                       project_id='other', egress=1000))
        moved = network_api.move_bindings(self.service, self.instance, 'h2',
                                          {})
        self.assertEqual([mine['id']], [p['id'] for p in moved])
        self.assertIsNone(self.stored(theirs['id'])['binding:host_id'])

    def test_a_binding_failure_is_raised_for_the_caller_to_undo(self):
        self.service.add(port(device_id=self.instance.uuid, host='h1'))
        self.service.unbindable_hosts.add('h2')
        self.assertRaises(exception.PortBindingFailed,
                          network_api.move_bindings, self.service,
                          self.instance, 'h2', {})


# -- PortClient on the wire ---------------------------------------------------

NETWORK_URL = 'http://network.test'
PORT_ID = 'a0e1c5a4-6e2f-4b7e-9a7c-3f5f0d1c2b3a'


class _Recording(base.DownAdapter):
    """A transport that records each URL sent and answers 204."""

    def __init__(self):
        super().__init__()
        self.sent = []

    def send(self, request, **kwargs):
        self.sent.append(request.url)
        response = requests.Response()
        response.status_code = 204
        response.request = request
        response._content = b''
        return response


class _Blinking(base.WSGIAdapter):
    """The port API app behind a transport that refuses the first
    ``refused`` requests (the service restarting)."""

    def __init__(self, app, refused):
        super().__init__(app)
        self.refused = refused

    def send(self, request, **kwargs):
        if self.refused:
            self.refused -= 1
            raise requests.ConnectionError('Connection refused')
        return super().send(request, **kwargs)


class _Answering:
    """A WSGI app that answers every request with ``status``."""

    def __init__(self, status, body=b'{"NeutronError": {"message": "boom"}}'):
        self.status = status
        self.body = body

    def __call__(self, environ, start_response):
        return webob.Response(status=self.status, body=self.body,
                              content_type='application/json')(
            environ, start_response)


class PortAppTestCase(base.NetworkTestCase):
    """PortClient against the port API app, in this process."""

    def setUp(self):
        super().setUp()
        self.network = self.make_network()

    def client(self, app=None, adapter=None):
        client = network_api.PortClient(endpoint=NETWORK_URL)
        client.session.mount(NETWORK_URL, adapter or base.WSGIAdapter(
            app or self.app))
        return client


class TestPortClient(PortAppTestCase):

    def test_show_port_answers_the_port(self):
        made = self.make_port(self.network['id'])
        self.assertEqual(made['id'], self.client().show_port(made['id'])['id'])

    def test_show_port_of_an_unknown_port_is_port_not_found(self):
        self.assertRaises(exception.PortNotFound, self.client().show_port,
                          uuidutils.generate_uuid())

    def test_ports_of_a_server_are_its_projects_ports_naming_it(self):
        server = FakeInstance(project_id=base.DEMO)
        own_network = self.make_network(token=base.DEMO)
        mine = self.make_port(own_network['id'], token=base.DEMO)
        self.make_port(own_network['id'], token=base.DEMO)
        # Another project's member writes the server's uuid into its port.
        theirs = self.make_port(self.make_network(token='other')['id'],
                                token='other', device_id=server.uuid)
        client = self.client()
        client.update_port(mine['id'], device_id=server.uuid,
                           device_owner=network_api.DEVICE_OWNER)
        self.assertEqual([mine['id']],
                         [p['id'] for p in client.ports_of(server)])
        self.assertEqual(server.uuid, client.show_port(
            theirs['id'])['device_id'])

    def test_update_of_an_unknown_port_is_port_not_found(self):
        self.assertRaises(exception.PortNotFound, self.client().update_port,
                          uuidutils.generate_uuid(), name='x')

    def test_an_update_the_service_refuses_is_port_update_failed(self):
        made = self.make_port(self.network['id'])
        error = self.assertRaises(exception.PortUpdateFailed,
                                  self.client().update_port, made['id'],
                                  **{'binding:profile': 'not-a-dict'})
        self.assertIn('400', error.format_message())

    def test_create_port_on_an_unknown_network_is_network_not_found(self):
        self.assertRaises(exception.NetworkNotFound,
                          self.client().create_port,
                          uuidutils.generate_uuid(), 'demo')

    def test_create_port_makes_it_in_the_project(self):
        created = self.client().create_port(self.network['id'], 'demo',
                                            name='eth0')
        self.assertEqual(('demo', 'eth0'), (created['project_id'],
                                            created['name']))

    def test_delete_of_a_port_already_gone_is_fine(self):
        client = self.client()
        created = client.create_port(self.network['id'], 'demo')
        client.delete_port(created['id'])
        client.delete_port(created['id'])
        self.assertRaises(exception.PortNotFound, client.show_port,
                          created['id'])

    def test_show_network_of_an_unknown_network_is_network_not_found(self):
        self.assertRaises(exception.NetworkNotFound,
                          self.client().show_network,
                          uuidutils.generate_uuid())

    def test_bindings_lists_the_ports_active_binding(self):
        made = self.make_port(self.network['id'])
        [binding] = self.client().bindings(made['id'])
        self.assertEqual('ACTIVE', binding['status'])

    def test_an_unreachable_service_is_network_unavailable(self):
        client = self.client(adapter=base.DownAdapter())
        error = self.assertRaises(exception.NetworkUnavailable,
                                  client.list_ports)
        self.assertEqual(503, error.code)

    def test_a_server_error_is_network_unavailable_with_its_message(self):
        client = self.client(app=_Answering('500 Internal Server Error'))
        error = self.assertRaises(exception.NetworkUnavailable,
                                  client.show_port, PORT_ID)
        self.assertIn('boom', error.format_message())

    def test_a_connection_error_names_the_request(self):
        class Refusing(base.DownAdapter):
            def send(self, request, **kwargs):
                raise requests.Timeout('read timed out')
        error = self.assertRaises(exception.NetworkUnavailable,
                                  self.client(adapter=Refusing()).show_port,
                                  PORT_ID)
        self.assertIn('GET /ports/' + PORT_ID, error.format_message())

    def test_an_id_that_is_not_a_uuid_is_not_sent(self):
        # '../agents' would reach another path of the port service.
        adapter = _Recording()
        client = self.client(adapter=adapter)
        for bad in ('../agents', 'p1', PORT_ID + '/bindings'):
            self.assertRaises(exception.PortNotFound, client.show_port, bad)
            self.assertRaises(exception.NetworkNotFound,
                              client.show_network, bad)
            self.assertRaises(exception.PortNotFound, client.bindings, bad)
        self.assertEqual([], adapter.sent)

    def test_a_host_is_one_quoted_path_segment(self):
        adapter = _Recording()
        client = self.client(adapter=adapter)
        client.delete_binding(PORT_ID, '../../agents?x=1')
        [url] = adapter.sent
        self.assertTrue(url.endswith(
            '/v2.0/ports/%s/bindings/..%%2F..%%2Fagents%%3Fx%%3D1' % PORT_ID),
            url)


class TestDropBinding(PortAppTestCase):
    """The undo of a move's binding on a destination, against the port
    API app: the rules of multiple bindings are the service's own."""

    SERVER = uuidutils.generate_uuid()
    PROVIDER = uuidutils.generate_uuid()

    def bound_port(self, host='src', device_id=SERVER):
        made = self.make_port(self.network['id'])
        return self.client().update_port(
            made['id'], device_id=device_id,
            device_owner=network_api.DEVICE_OWNER,
            **{'binding:host_id': host})

    def hosts(self, port_id):
        return {b['host']: b['status']
                for b in self.client().bindings(port_id)}

    def test_the_inactive_binding_of_a_bound_port_is_deleted(self):
        made = self.bound_port()
        client = self.client()
        self.assertEqual('INACTIVE', client.create_binding(
            made['id'], 'dst')['status'])
        network_api.drop_binding(client, made['id'], 'dst')
        self.assertEqual({'src': 'ACTIVE'}, self.hosts(made['id']))

    def test_a_port_released_before_the_binding_is_unbound_again(self):
        # The server was deleted after the move read its port: the
        # destination's binding, made on a port bound nowhere, became
        # the port's own, with the move's allocation in its profile.
        made = self.bound_port()
        client = self.client()
        client.update_port(made['id'], device_id='', device_owner='',
                           **{'binding:host_id': None})
        self.assertEqual('ACTIVE', client.create_binding(
            made['id'], 'dst', {'allocation': self.PROVIDER})['status'])
        network_api.drop_binding(client, made['id'], 'dst')
        self.assertEqual({'': 'ACTIVE'}, self.hosts(made['id']))
        left = client.show_port(made['id'])
        self.assertFalse(left['binding:host_id'])
        self.assertNotIn('allocation', left['binding:profile'])

    def test_a_port_another_server_took_on_that_host_is_left_alone(self):
        other = uuidutils.generate_uuid()
        made = self.bound_port(host='dst', device_id=other)
        client = self.client()
        self.assertRaises(exception.PortUpdateFailed,
                          network_api.drop_binding, client, made['id'],
                          'dst')
        left = client.show_port(made['id'])
        self.assertEqual((other, 'dst'), (left['device_id'],
                                          left['binding:host_id']))

    def test_a_port_service_that_blinks_costs_a_pause(self):
        # Its first request (the DELETE) is refused; asked again once the
        # service is back, the binding goes.
        made = self.bound_port()
        self.client().create_binding(made['id'], 'dst')
        pauses = []
        self.useFixture(fixtures.MonkeyPatch('nova_lite.outage.sleep',
                                             pauses.append))
        blinking = _Blinking(self.app, refused=1)
        network_api.drop_binding(self.client(adapter=blinking), made['id'],
                                 'dst')
        self.assertEqual((1, 0), (len(pauses), blinking.refused))
        self.assertEqual({'src': 'ACTIVE'}, self.hosts(made['id']))

    def test_a_port_deleted_meanwhile_is_nothing_to_undo(self):
        made = self.bound_port()
        client = self.client()
        client.create_binding(made['id'], 'dst')
        client.delete_port(made['id'])
        network_api.drop_binding(client, made['id'], 'dst')
