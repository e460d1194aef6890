"""Every route of the port API, fuzzed (see ``tests.unit.fuzz``): no
hostile path, body, query string or token makes it answer 5xx or show a
traceback, and every error is a NeutronError with a message."""

from nova_lite.api.network import handler
from tests.unit import fuzz
from tests.unit.network import base


def check_neutron_error(status, document):
    """{"NeutronError": {"type": ..., "message": ..., "detail": ...}}."""
    error = document['NeutronError']
    assert isinstance(error['message'], str) and error['message'], document
    assert isinstance(error['type'], str) and error['type'], document


class TestFuzzNetworkAPI(fuzz.FuzzedAPI, base.NetworkTestCase):

    examples = 8

    def setUp(self):
        super().setUp()
        self.generation = 0
        self.start_fuzzing(
            self.app, handler.ROUTE_DECLARATIONS,
            good_tokens=(base.ADMIN, base.DEMO),
            tokens=(base.OTHER, None, '', ':'),
            check_error=check_neutron_error,
            strings=('host1', 'host2', 'physnet0', 'flat', 'vlan', 'normal',
                     'egress', 'ingress', base.OVS, 'compute:nova',
                     'ACTIVE', 'INACTIVE', 'red', 'fa:16:3e:00:00:01'))

    def make_state(self):
        """A physnet network and a bound port of the demo project with a
        bandwidth policy, tags, a second binding and two agents."""
        self.generation += 1
        agents = [self.report_agent(host, bridge_mappings={
            'physnet0': 'br-ex'}, bandwidths={'br-ex': {
                'egress': 100000, 'ingress': 100000}})
            for host in ('host1', 'host2')]
        network = self.physnet_network(
            'physnet0', network_type='vlan', shared=True,
            **{'provider:segmentation_id': 100 + self.generation})
        policy = self.make_policy(egress=1000, shared=True)
        [rule] = self.get('/v2.0/qos/policies/%s/minimum_bandwidth_rules' %
                          policy['id']).json['minimum_bandwidth_rules']
        port = self.make_port(network['id'], token=base.DEMO,
                              qos_policy_id=policy['id'])
        self.update_port(port['id'], **{'binding:host_id': 'host1'})
        self.post('/v2.0/ports/%s/bindings' % port['id'],
                  {'binding': {'host': 'host2'}})
        for kind, resource in (('networks', network), ('ports', port)):
            self.put('/v2.0/%s/%s/tags/red' % (kind, resource['id']))
        return {
            'network_id': [network['id']],
            'port_id': [port['id']],
            'resource_id': [network['id'], port['id']],
            'tag': ['red'],
            'host': ['host1', 'host2'],
            'policy_id': [policy['id']],
            'rule_id': [rule['id']],
            'agent_id': [agent['id'] for agent in agents],
            'alias': ['binding', 'qos', 'standard-attr-tag'],
        }

    def test_port_routes(self):
        self.fuzz(lambda template, method: template.startswith('/v2.0/ports'))

    def test_other_routes(self):
        self.fuzz(lambda template, method:
                  not template.startswith('/v2.0/ports'))
