"""A test case that talks to the port API app in-process over SQLite, with
the Placement app in-process behind the placement client the port service
uses (both on the same API database, as in a deployment)."""

import datetime
import urllib.parse

import fixtures
from oslo_serialization import jsonutils
from oslo_utils import timeutils
import requests
import requests.adapters
import requests.structures
import testtools
import webob

from nova_lite.api import network as network_app
from nova_lite.api import placement as placement_app
from nova_lite.network import placement_sync
from nova_lite import placement_client
from tests.unit import fixtures as nova_fixtures
from tests.unit.placement import base as placement_base

ADMIN = 'admin'
DEMO = 'demo'
OTHER = 'other'
OVS = 'Open vSwitch agent'
PLACEMENT_URL = 'http://placement.test'


class WSGIAdapter(requests.adapters.BaseAdapter):
    """A requests transport that hands each request to a WSGI app."""

    def __init__(self, app):
        super().__init__()
        self.app = app

    def send(self, request, **kwargs):
        url = urllib.parse.urlsplit(request.url)
        path = url.path + ('?' + url.query if url.query else '')
        body = request.body or b''
        if isinstance(body, str):
            body = body.encode('utf-8')
        wsgi_request = webob.Request.blank(path, method=request.method,
                                           headers=dict(request.headers),
                                           body=body)
        answer = wsgi_request.get_response(self.app)
        response = requests.Response()
        response.status_code = answer.status_int
        response.headers = requests.structures.CaseInsensitiveDict(
            answer.headers)
        response._content = answer.body
        response.encoding = 'utf-8'
        response.url = request.url
        response.request = request
        return response

    def close(self):
        pass


class DownAdapter(requests.adapters.BaseAdapter):
    """A transport to a service that is not listening."""

    def send(self, request, **kwargs):
        raise requests.ConnectionError('Connection refused')

    def close(self):
        pass


class InProcessPlacement(fixtures.Fixture):
    """The port service's placement client talks to the Placement app;
    ``down = True`` makes placement unreachable."""

    def _setUp(self):
        self.app = placement_app.make_app()
        self.down = False
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.network.placement_sync.report_client', self.client))

    def client(self):
        client = placement_client.PlacementClient(endpoint=PLACEMENT_URL)
        client.session.mount(PLACEMENT_URL, DownAdapter() if self.down
                             else WSGIAdapter(self.app))
        return client

    def request(self, method, path, body=None, version='1.36'):
        request = webob.Request.blank(path, method=method)
        request.headers['X-Auth-Token'] = ADMIN
        request.headers['OpenStack-API-Version'] = 'placement ' + version
        if body is not None:
            request.body = jsonutils.dump_as_bytes(body)
            request.content_type = 'application/json'
        return request.get_response(self.app)

    def make_provider(self, name, uuid=None):
        body = {'name': name}
        if uuid:
            body['uuid'] = uuid
        response = self.request('POST', '/resource_providers', body)
        assert response.status_int == 200, response.body
        return response.json

    def provider(self, uuid):
        response = self.request('GET', '/resource_providers/%s' % uuid)
        return response.json if response.status_int == 200 else None


class NetworkTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.logs = self.useFixture(fixtures.FakeLogger())
        self.conf = self.useFixture(nova_fixtures.Config())
        self.useFixture(placement_base.PlacementDatabase())
        self.placement = self.useFixture(InProcessPlacement())
        self.app = network_app.make_app()

    # -- HTTP ----------------------------------------------------------------

    def request(self, method, path, body=None, token=ADMIN, raw_body=None,
                headers=None):
        request = webob.Request.blank(path, method=method)
        if token is not None:
            request.headers['X-Auth-Token'] = token
        for name, value in (headers or {}).items():
            request.headers[name] = value
        if raw_body is not None:
            request.body = raw_body
            request.content_type = 'application/json'
        elif body is not None:
            request.body = jsonutils.dump_as_bytes(body)
            request.content_type = 'application/json'
        return request.get_response(self.app)

    def get(self, path, **kwargs):
        return self.request('GET', path, **kwargs)

    def post(self, path, body=None, **kwargs):
        return self.request('POST', path, body, **kwargs)

    def put(self, path, body=None, **kwargs):
        return self.request('PUT', path, body, **kwargs)

    def delete(self, path, **kwargs):
        return self.request('DELETE', path, **kwargs)

    def assertStatus(self, status, response):
        self.assertEqual(status, response.status_int, response.body)

    def assertError(self, response, status, error_type=None, fragment=None):
        """A Networking API error body with ``status`` (and ``type``)."""
        self.assertStatus(status, response)
        error = response.json['NeutronError']
        self.assertTrue(error['message'])
        if error_type is not None:
            self.assertEqual(error_type, error['type'])
        if fragment is not None:
            self.assertIn(fragment, error['message'])
        return error

    # -- data ----------------------------------------------------------------

    def make_network(self, token=ADMIN, **attributes):
        attributes.setdefault('name', 'net')
        response = self.post('/v2.0/networks', {'network': attributes},
                             token=token)
        self.assertStatus(201, response)
        return response.json['network']

    def physnet_network(self, physnet='physnet0', network_type='flat',
                        **attributes):
        attributes['provider:network_type'] = network_type
        attributes['provider:physical_network'] = physnet
        return self.make_network(**attributes)

    def make_port(self, network_id, token=ADMIN, **attributes):
        attributes['network_id'] = network_id
        response = self.post('/v2.0/ports', {'port': attributes},
                             token=token)
        self.assertStatus(201, response)
        return response.json['port']

    def show_port(self, port_id, token=ADMIN):
        response = self.get('/v2.0/ports/%s' % port_id, token=token)
        self.assertStatus(200, response)
        return response.json['port']

    def update_port(self, port_id, token=ADMIN, **attributes):
        response = self.put('/v2.0/ports/%s' % port_id,
                            {'port': attributes}, token=token)
        self.assertStatus(200, response)
        return response.json['port']

    def make_policy(self, egress=None, ingress=None, **attributes):
        attributes.setdefault('name', 'bw')
        response = self.post('/v2.0/qos/policies', {'policy': attributes})
        self.assertStatus(201, response)
        policy = response.json['policy']
        for direction, kbps in (('egress', egress), ('ingress', ingress)):
            if kbps:
                self.make_rule(policy['id'], kbps, direction)
        return policy

    def make_rule(self, policy_id, min_kbps, direction='egress'):
        response = self.post(
            '/v2.0/qos/policies/%s/minimum_bandwidth_rules' % policy_id,
            {'minimum_bandwidth_rule': {'min_kbps': min_kbps,
                                        'direction': direction}})
        self.assertStatus(201, response)
        return response.json['minimum_bandwidth_rule']

    def report_agent(self, host, bridge_mappings=None, bandwidths=None,
                     hypervisors=None, agent_type=OVS, expect=None):
        configurations = {'bridge_mappings': bridge_mappings or {}}
        if bandwidths is not None:
            configurations['resource_provider_bandwidths'] = bandwidths
        if hypervisors is not None:
            configurations['resource_provider_hypervisors'] = hypervisors
        response = self.post('/v2.0/agents', {'agent': {
            'host': host, 'agent_type': agent_type,
            'binary': 'nova-lite-compute',
            'configurations': configurations}})
        if expect is not None:
            self.assertStatus(expect, response)
        self.assertIn(response.status_int, (200, 201), response.body)
        return response.json['agent']

    def freeze_time(self):
        """Stop the clock the service reads (advance it with
        ``self.advance(seconds)``)."""
        timeutils.set_time_override(timeutils.utcnow())
        self.addCleanup(timeutils.clear_time_override)

    def advance(self, seconds):
        timeutils.advance_time_delta(datetime.timedelta(seconds=seconds))


def allocation(host, physnet='physnet0'):
    """The binding profile that points at ``host``'s bandwidth provider."""
    return {'allocation': placement_sync.bandwidth_provider_uuid(host,
                                                                 physnet)}
