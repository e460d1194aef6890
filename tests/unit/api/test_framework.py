"""The shared REST framework: routing, bodies and error mapping."""

import fixtures
import testtools
import webob

from nova_lite.api import faults
from nova_lite.api import validation
from nova_lite.api import wsgi
from nova_lite import exception
from tests.unit.api import base


class TestRouting(base.APITestCase):

    def test_unknown_path_is_404_in_compute_format(self):
        response = self.request('GET', '/v2.1/no-such-thing')
        self.assertError(response, 404, 'itemNotFound')

    def test_known_path_wrong_method_is_405_with_allow(self):
        response = self.request('PUT', '/v2.1/flavors')
        self.assertError(response, 405, 'badMethod')
        self.assertEqual('GET, POST', response.headers['Allow'])

    def test_malformed_json_is_400(self):
        response = self.request('POST', '/v2.1/servers', raw_body=b'{"ser')
        self.assertError(response, 400, 'badRequest', 'not valid JSON')

    def test_missing_body_is_400(self):
        response = self.request('POST', '/v2.1/servers')
        self.assertError(response, 400, 'badRequest', 'no body')

    def test_json_nested_too_deeply_is_400_not_500(self):
        body = b'[' * 20000 + b']' * 20000  # under the body size limit
        response = self.request('POST', '/v2.1/servers', raw_body=body)
        self.assertError(response, 400, 'badRequest', 'nested too deeply')

    def test_a_path_that_is_not_utf8_is_400_not_500(self):
        for token in (base.DEMO, None):
            response = self.request('GET', '/v2.1/servers/%ff', token=token)
            self.assertError(response, 400, 'badRequest', 'not valid UTF-8')

    def test_a_query_string_that_is_not_utf8_is_400_not_500(self):
        response = self.request('GET', '/v2.1/servers?%ff=%ff')
        self.assertError(response, 400, 'badRequest', 'not valid UTF-8')

    def test_empty_accept_header_is_fine(self):
        response = self.request('GET', '/v2.1/flavors',
                                headers={'Accept': ''})
        self.assertEqual(200, response.status_int)

    def test_responses_carry_a_request_id(self):
        response = self.request('GET', '/v2.1/flavors')
        self.assertTrue(response.headers['X-OpenStack-Request-Id']
                        .startswith('req-'))


def _explode(request):
    raise RuntimeError('secret internals')


def _conflict(request):
    raise exception.Conflict(reason='busy')


def _peer_away(request):
    raise exception.NetworkUnavailable(
        reason="GET /ports: Unable to establish connection to "
               "http://10.0.0.7:9696/v2.0/ports: HTTPConnectionPool("
               "host='10.0.0.7', port=9696)")


class TestErrorMapping(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.logs = self.useFixture(fixtures.FakeLogger())

    def _get(self, handler):
        app = wsgi.Application({'/thing': {'GET': handler}})
        return webob.Request.blank('/thing').get_response(app)

    def test_unexpected_exception_is_a_generic_500(self):
        response = self._get(_explode)
        self.assertEqual(500, response.status_int)
        fault = response.json['computeFault']
        self.assertNotIn('secret internals', fault['message'])
        self.assertNotIn(b'Traceback', response.body)
        self.assertIn('secret internals', self.logs.output)

    def test_nova_lite_exception_answers_its_code(self):
        response = self._get(_conflict)
        self.assertEqual(409, response.status_int)
        self.assertEqual('Conflict: busy',
                         response.json['conflictingRequest']['message'])

    def test_a_peers_address_is_logged_not_told_to_the_client(self):
        response = self._get(_peer_away)
        self.assertEqual(503, response.status_int)
        [fault] = response.json.values()
        message = fault['message']
        self.assertNotIn('10.0.0.7', message)
        self.assertIn('The port service is unavailable: GET /ports', message)
        self.assertIn('http://10.0.0.7:9696/v2.0/ports', self.logs.output)

    def test_urls_and_addresses_are_redacted(self):
        for text, told in (
                ('rabbit://guest:secret@rmq1:5672,guest:secret@rmq2:5672/',
                 '<address>'),
                ('mysql+pymysql://root:pw@db.example/nova_cell1?x=1',
                 '<address>'),
                ('AMQP server on controller.example:5672 is away',
                 'AMQP server on <address> is away'),
                ('host [fd00::7]:8778 refused', 'host <address> refused'),
                ('GET /resource_providers/abc answered 502', None),
                ('at 2026-11-26 12:30:01 it failed', None)):
            self.assertEqual(told or text, wsgi.redact_addresses(text))

    def test_error_formatter_is_pluggable(self):
        def placement_style(status, message, error_code=None):
            return {'errors': [{'status': status, 'detail': message}]}
        app = wsgi.Application({'/thing': {'GET': _conflict}},
                               error_formatter=placement_style)
        response = webob.Request.blank('/thing').get_response(app)
        self.assertEqual(409, response.json['errors'][0]['status'])

    def test_compute_fault_names(self):
        self.assertIn('badRequest', faults.compute_fault_body(400, 'x'))
        self.assertIn('computeFault', faults.compute_fault_body(500, 'x'))


class TestValidation(testtools.TestCase):

    def test_error_names_the_field(self):
        schema = {'type': 'object',
                  'properties': {'name': {'type': 'string',
                                          'maxLength': 3}}}
        error = self.assertRaises(exception.ValidationError,
                                  validation.validate, schema,
                                  {'name': 'toolong'})
        self.assertIn('name', error.format_message())
        self.assertEqual(400, error.code)

    def refusal(self, schema, document):
        return self.assertRaises(exception.ValidationError,
                                 validation.validate, schema,
                                 document).format_message()

    def test_a_list_over_its_bound_is_refused_saying_how_long_it_is(self):
        schema = {'type': 'object', 'properties': {'tags': {
            'type': 'array', 'maxItems': 3, 'items': {'type': 'string'}}}}
        message = self.refusal(schema, {'tags': list(range(5000))})
        self.assertIn('tags', message)
        self.assertIn('It has 5000 items; at most 3 are allowed.', message)
        # Neither the list nor an error per item is quoted back.
        self.assertLess(len(message), 200)

    def test_a_map_over_its_bound_is_refused_saying_how_many_keys(self):
        schema = {'type': 'object', 'maxProperties': 2,
                  'additionalProperties': {'type': 'string'}}
        message = self.refusal(schema, {'k%d' % i: i for i in range(10)})
        self.assertIn('It has 10 keys; at most 2 are allowed.', message)

    def test_unique_items_of_a_long_list_of_objects_is_linear(self):
        # jsonschema's own check compares every pair of unhashable items
        # (minutes for the ~9000 a body may hold); ours hashes them. A
        # list over its bound is not looked at, and within it repeats
        # are still found.
        schema = {'type': 'array', 'maxItems': 20000, 'uniqueItems': True}
        validation.validate(schema, [{'a': i} for i in range(20000)])
        message = self.refusal(schema, [{'a': 1}, [1, {'b': None}],
                                        {'a': 1.0}])
        self.assertIn("has non-unique elements (item 2, {'a': 1.0}, is "
                      "given more than once)", message)

    def test_unique_items_tells_true_from_one_as_json_schema_does(self):
        schema = {'type': 'array', 'uniqueItems': True}
        validation.validate(schema, [True, 1, False, 0, None, '1'])
        self.refusal(schema, [1, 1.0])

    def test_a_long_value_is_quoted_short(self):
        schema = {'type': 'object', 'properties': {'name': {
            'type': 'string', 'maxLength': 3}, 'n': {'type': 'integer'}}}
        message = self.refusal(schema, {'name': 'x' * 70000})
        self.assertIn('It has 70000 characters; at most 3', message)
        self.assertLess(len(message), 300)
        message = self.refusal(schema, {'n': 'y' * 70000})
        self.assertIn("is not of type 'integer'", message)
        self.assertLess(len(message), 400)
