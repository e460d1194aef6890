"""What a compute reports as its host's Open vSwitch agent: the
[network] options it is built from, and the report itself, sent over HTTP
to the port API served on a loopback port."""

import threading
from wsgiref import simple_server

import webob.exc

from nova_lite import exception
from nova_lite.network import agent
from tests.unit.network import base


class TestParseOptions(base.NetworkTestCase):

    def test_bridge_mappings(self):
        self.assertEqual({'physnet0': 'br-ex', 'physnet1': 'br-1'},
                         agent.parse_bridge_mappings(
                             ['physnet0:br-ex', ' physnet1 : br-1 ']))

    def test_empty_bridge_mappings(self):
        self.assertEqual({}, agent.parse_bridge_mappings([]))

    def test_a_bridge_mapping_without_bridge_is_refused(self):
        error = self.assertRaises(exception.ConfigurationError,
                                  agent.parse_bridge_mappings, ['physnet0'])
        self.assertIn('[network] bridge_mappings', str(error))
        self.assertIn('"physnet:bridge"', str(error))

    def test_a_physnet_mapped_twice_is_refused(self):
        error = self.assertRaises(exception.ConfigurationError,
                                  agent.parse_bridge_mappings,
                                  ['p:br-a', 'p:br-b'])
        self.assertIn('mapped twice', str(error))

    def test_bandwidths(self):
        self.assertEqual({'physnet0': {'egress': 1000, 'ingress': 2000},
                          'physnet1': {'egress': 0, 'ingress': 5}},
                         agent.parse_bandwidths(['physnet0:1000:2000',
                                                 'physnet1::5']))

    def test_a_bandwidth_with_two_parts_is_refused(self):
        error = self.assertRaises(exception.ConfigurationError,
                                  agent.parse_bandwidths, ['physnet0:1000'])
        self.assertIn('"physnet:egress_kbps:ingress_kbps"', str(error))

    def test_a_bandwidth_that_is_not_a_number_is_refused(self):
        error = self.assertRaises(exception.ConfigurationError,
                                  agent.parse_bandwidths, ['p:fast:1'])
        self.assertIn('whole numbers', str(error))

    def test_a_negative_bandwidth_is_refused(self):
        error = self.assertRaises(exception.ConfigurationError,
                                  agent.parse_bandwidths, ['p:-1:1'])
        self.assertIn('negative', str(error))

    def test_validate_config_checks_both_options(self):
        self.conf.config(bandwidths=['p:1'], group='network')
        self.assertRaises(exception.ConfigurationError,
                          agent.validate_config)

    def test_the_report_carries_what_the_options_say(self):
        self.conf.config(bridge_mappings=['physnet0:br-ex'],
                         bandwidths=['physnet1:100:200'], group='network')
        body = agent.agent_state('host1', 'node1')['agent']
        self.assertEqual(('host1', 'Open vSwitch agent',
                          'nova-lite-compute'),
                         (body['host'], body['agent_type'], body['binary']))
        self.assertEqual({
            'bridge_mappings': {'physnet0': 'br-ex'},
            'resource_provider_bandwidths': {
                'physnet1': {'egress': 100, 'ingress': 200}},
            'resource_provider_hypervisors': {'physnet1': 'node1'}},
            body['configurations'])

    def test_the_default_serves_physnet0(self):
        body = agent.agent_state('host1', 'host1')['agent']
        self.assertEqual({'physnet0': 'br-ex'},
                         body['configurations']['bridge_mappings'])
        self.assertEqual({}, body['configurations'][
            'resource_provider_bandwidths'])


class TestReportState(base.NetworkTestCase):

    def setUp(self):
        super().setUp()
        agent._REPORTED.clear()
        self.addCleanup(agent._REPORTED.clear)

    def serve(self, app=None):
        server = simple_server.make_server(
            '127.0.0.1', 0, app or self.app,
            handler_class=_QuietHandler)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        self.addCleanup(server.server_close)
        self.addCleanup(server.shutdown)
        self.conf.config(endpoint_override='http://127.0.0.1:%d' %
                         server.server_port, group='network')

    def test_a_report_reaches_the_port_service(self):
        self.serve()
        self.conf.config(bandwidths=['physnet0:1000:1000'], group='network')
        self.placement.make_provider('host1')
        self.assertTrue(agent.report_state('host1', 'host1'))
        [listed] = self.get('/v2.0/agents?host=host1').json['agents']
        self.assertTrue(listed['alive'])
        self.assertTrue(listed['resources_synced'])

    def test_an_unreachable_service_is_false_not_an_error(self):
        self.conf.config(endpoint_override='http://127.0.0.1:9', timeout=2,
                         group='network')
        self.assertFalse(agent.report_state('host1', 'host1'))
        self.assertIn('Cannot report the network agent', self.logs.output)

    def test_a_refused_report_is_false(self):
        self.serve(webob.exc.HTTPForbidden())
        self.assertFalse(agent.report_state('host1', 'host1'))
        self.assertIn('refused the agent report', self.logs.output)

    def test_a_malformed_option_is_false_not_an_error(self):
        self.conf.config(bridge_mappings=['nobridge'], group='network')
        self.assertFalse(agent.report_state('host1', 'host1'))
        self.assertIn('bridge_mappings', self.logs.output)

    def test_the_first_report_says_the_agent_started(self):
        self.assertTrue(agent.agent_state('host1', 'n')['agent'][
            'start_flag'])
        self.serve()
        agent.report_state('host1', 'host1')
        self.assertFalse(agent.agent_state('host1', 'n')['agent'][
            'start_flag'])


class _QuietHandler(simple_server.WSGIRequestHandler):

    def log_message(self, *args):
        pass
