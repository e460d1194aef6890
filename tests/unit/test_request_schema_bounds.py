"""Every list and every open-ended map a client may send the three REST
services has a bound: each ``array`` in a request schema has
``maxItems``, and each ``object`` that takes keys it does not list
(``patternProperties``, or ``additionalProperties`` not False) has
``maxProperties``. A schema node that takes any JSON at all counts as
both. The body size limit caps the bytes; these caps keep the work per
item (a lookup per network, a row per allocation, uniqueItems'
comparisons) small as well.

The schemas walked are those each route's handler validates with (as the
fuzzer finds them) and every schema-shaped constant of the services'
modules, fragments included, so a new schema is checked when it is
added, before any route uses it.
"""

import importlib
import pkgutil

import testtools

from nova_lite.api.compute import handler as compute_handler
from nova_lite.api.network import handler as network_handler
from nova_lite.api.placement import handler as placement_handler
from nova_lite.api import validation
from nova_lite import exception
from tests.unit import fuzz

SERVICES = {
    'nova_lite.api.compute': compute_handler.ROUTE_DECLARATIONS,
    'nova_lite.api.placement': placement_handler.ROUTE_DECLARATIONS,
    'nova_lite.api.network': network_handler.ROUTE_DECLARATIONS,
}
_COMBINATORS = ('oneOf', 'anyOf', 'allOf')


def _types(schema):
    """The JSON types ``schema`` itself admits; None when it leaves that
    to its combinators."""
    if 'enum' in schema:
        return set()  # literal values: nothing open-ended
    kind = schema.get('type')
    if kind is None:
        if any(c in schema for c in _COMBINATORS):
            return None
        return {'array', 'object'}  # any JSON at all
    return {kind} if isinstance(kind, str) else set(kind)


def _takes_any_key(schema):
    return bool(schema.get('patternProperties') or
                schema.get('additionalProperties', True) is not False)


def nodes(schema, where):
    """(where, node) of ``schema`` and every schema inside it."""
    if not isinstance(schema, dict):
        return
    yield where, schema
    for name, sub in sorted(schema.get('properties', {}).items()):
        yield from nodes(sub, '%s.%s' % (where, name))
    for pattern, sub in sorted(schema.get('patternProperties', {}).items()):
        yield from nodes(sub, '%s[/%s/]' % (where, pattern))
    yield from nodes(schema.get('additionalProperties'), where + '[*]')
    items = schema.get('items')
    if isinstance(items, list):
        for index, sub in enumerate(items):
            yield from nodes(sub, '%s[%d]' % (where, index))
    else:
        yield from nodes(items, where + '[]')
    yield from nodes(schema.get('additionalItems'), where + '[+]')
    for combinator in _COMBINATORS:
        for index, sub in enumerate(schema.get(combinator, ())):
            yield from nodes(sub, '%s/%s[%d]' % (where, combinator, index))


def unbounded(schema, where):
    """[(where, what is missing)] for ``schema`` and every node in it."""
    found = []
    for place, node in nodes(schema, where):
        kinds = _types(node) or set()
        if 'array' in kinds and 'maxItems' not in node:
            found.append((place, 'an array without maxItems'))
        if 'object' in kinds and _takes_any_key(node) and \
                'maxProperties' not in node:
            found.append((place, 'an object taking any keys without '
                                 'maxProperties'))
    return found


def all_schemas():
    """{id: (name, schema)} of every schema of the three services, by a
    module's name where one has it."""
    named = {}
    for package, declarations in sorted(SERVICES.items()):
        for source in (module_schemas(package),
                       route_schemas(declarations)):
            for name, schema in sorted(source.items()):
                named.setdefault(id(schema), (name, schema))
    return named


def module_schemas(package_name):
    """{'module.NAME': schema} of every schema-shaped module constant in
    ``package_name`` and its subpackages."""
    package = importlib.import_module(package_name)
    found = {}
    for info in pkgutil.walk_packages(package.__path__,
                                      package_name + '.'):
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            # A mapping that merely has a 'type' key (of a Python type,
            # say) is not a schema.
            if fuzz._is_schema(value) and isinstance(
                    value.get('type', ''), (str, list)):
                found['%s.%s' % (info.name, name)] = value
    return found


def route_schemas(declarations):
    """{'METHOD path #n': schema} of what each route's handler validates
    with."""
    found = {}
    for template, method, handler in fuzz.routes(declarations):
        for index, schema in enumerate(
                fuzz.HandlerFacts(handler).schemas):
            found['%s %s #%d' % (method, template, index)] = schema
    return found


class TestRequestSchemasAreBounded(testtools.TestCase):

    def test_every_list_and_open_map_of_every_request_schema_is_bounded(
            self):
        problems = []
        for name, schema in sorted(all_schemas().values()):
            problems += unbounded(schema, name)
        self.assertEqual([], ['%s: %s' % problem for problem in problems])

    def test_one_item_or_key_more_than_a_bound_is_refused_for_it(self):
        # Validation enforces each bound, and says so, whatever the items
        # are (they are not looked at: no error per item, no uniqueness
        # check over the whole list).
        checked = 0
        for name, schema in sorted(all_schemas().values()):
            for where, node in nodes(schema, name):
                kinds = _types(node) or set()
                if 'array' in kinds and 'maxItems' in node:
                    bound = node['maxItems']
                    too_many = [{'i': i} for i in range(bound + 1)]
                elif 'object' in kinds and 'maxProperties' in node and \
                        _takes_any_key(node):
                    bound = node['maxProperties']
                    too_many = {'k%d' % i: None for i in range(bound + 1)}
                else:
                    continue
                error = self.assertRaises(
                    exception.ValidationError, validation.validate, node,
                    too_many)
                self.assertIn('at most %d are allowed' % bound,
                              error.format_message(), where)
                checked += 1
        self.assertGreater(checked, 50)

    def test_the_routes_schemas_are_found(self):
        # Not a vacuous pass: the handlers' schemas are reached, the
        # bodies that take lists and maps among them.
        for package, declarations in SERVICES.items():
            self.assertGreater(len(route_schemas(declarations)), 5, package)
        found = route_schemas(compute_handler.ROUTE_DECLARATIONS)
        self.assertIn('POST /v2.1/servers #0', found)

    def test_the_walk_sees_a_missing_bound_however_deep(self):
        schema = {'type': 'object', 'properties': {'a': {'oneOf': [
            {'type': 'null'},
            {'type': 'array', 'maxItems': 3, 'items': {
                'type': 'object', 'additionalProperties': {'type': [
                    'string', 'array']}}}]}},
            'additionalProperties': False}
        self.assertEqual(
            [('s.a/oneOf[1][]', 'an object taking any keys without '
                                'maxProperties'),
             ('s.a/oneOf[1][][*]', 'an array without maxItems')],
            unbounded(schema, 's'))

    def test_a_node_taking_any_json_is_unbounded(self):
        self.assertEqual(2, len(unbounded({}, 's')))
        self.assertEqual([], unbounded({'enum': [[1], {}]}, 's'))
