"""Schema-driven fuzzing of a REST service's route table, with hypothesis.

``RouteFuzzer`` takes a service's ``ROUTE_DECLARATIONS`` (path -> {method
-> handler}) and, for every path and method in it, builds hostile
requests: path parameters that name existing objects, look valid but name
nothing, or are garbage; bodies derived from the JSON schemas the handler
validates with (found by reading the handler, its decorators and its
helpers) with values swapped for wrong types, boundaries, nulls, missing
or unknown keys, or one list or map made longer than its bound (distinct
objects where a list is to hold unique items: the costliest to check);
non-JSON, deeply nested, empty or over-size bodies (past the services'
112 KiB body limit); random query
strings; odd tokens, microversion and Content-Type headers. Each answer
must be below 500, carry no traceback or internal names, and an error must
be the service's error document with a message.

A route added to a table is fuzzed without touching the tests. The number
of examples per route is small in the unit run; set
``NOVA_LITE_FUZZ_EXAMPLES`` (e.g. 2000) for a long run, and
``NOVA_LITE_FUZZ_SEED`` to replay a random run (the default run is
derandomized, so it is the same every time).
"""

import functools
import json
import os
import re
import types
import urllib.parse
import uuid as uuid_lib

import hypothesis
from hypothesis import strategies as st
from oslo_serialization import jsonutils
import webob

EXAMPLES = int(os.environ.get('NOVA_LITE_FUZZ_EXAMPLES') or 0)
SEED = os.environ.get('NOVA_LITE_FUZZ_SEED')
METHODS = ('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS')

# What an answer must never show a client: a traceback, our module paths,
# the database layer's names, Python object reprs.
LEAKS = ('Traceback', 'File "/', 'nova_lite.', 'sqlalchemy', 'sqlite3',
         'pymysql', ' object at 0x', "<class '", "<function ",
         'oslo_messaging', 'jsonschema.')

HOSTILE_STRINGS = (
    '', ' ', '  padded  ', '0', '-1', '1.5', '99999999999999999999999',
    'true', 'null', 'None', 'detail', '..', '.', '/', '\\', "'", '"',
    '%s', '%(name)s', '{0}', '{}', '[]', ',', ',,', 'a,b', '!', 'in:',
    '*', '\x00', 'a\x00b', '\n', '\t', '\x7f', '\u2603', '\u00e9t\u00e9',
    '\U0001f600', '\ud800', '\ufeff', 'x' * 256, 'x' * 4096, 'x' * 70000,
    'CUSTOM_', 'CUSTOM_X' * 40, 'admin', 'latest',
    '00000000-0000-0000-0000-000000000000',
    '00000000000000000000000000000000',
    '0000000g-0000-0000-0000-000000000000',
    'AAAAAAAA-BBBB-CCCC-DDDD-EEEEEEEEEEEE',
    '2001-02-03T04:05:06Z', '1970-01-01', 'ff:ff:ff:ff:ff:ff',
)
HOSTILE_NUMBERS = (0, -1, 1, 2, 2 ** 31 - 1, 2 ** 31, 2 ** 32, 2 ** 53 + 1,
                   2 ** 63 - 1, 2 ** 63, -2 ** 63 - 1, 10 ** 30, 0.5, -0.5,
                   1e308, -1e308, float('inf'), float('-inf'), float('nan'))
HOSTILE_BODIES = (
    b'', b' ', b'{', b'}', b'{"a":', b'[', b'null', b'true', b'0', b'-1',
    b'""', b'[]', b'{}', b'[{}]', b'[null]', b'1e999999', b'-1e999999',
    b'NaN', b'Infinity', b'"\\ud800"', b'{"\\u0000": 1}',
    b'\xff\xfe\x00', b'\xef\xbb\xbf{}', b'{"a": 1, "a": 2}',
    b'not json at all', b'<xml/>', b'a=1&b=2',
    b'9' * 5000, b'"' + b'x' * 100000 + b'"',
    # Past [oslo_middleware] max_request_body_size (112 KiB): a 413.
    b'{"a": "' + b'x' * 120000 + b'"}', b'[' + b'0,' * 70000 + b'0]',
    b' ' * 200000 + b'{}',
)
CONTENT_TYPES = ('application/json', 'application/json',
                 'application/json; charset=UTF-8', None, 'text/plain',
                 'application/x-www-form-urlencoded', 'application/xml',
                 'application/json; charset=latin-1', 'multipart/form-data',
                 'application/json-patch+json', '*/*', ';;;', '\u00e9/x')
VERSION_VALUES = ('latest', 'LATEST', ' latest ', '', ' ', '1', '2', '3',
                  '1.', '.1', '2.', '1.0', '0.9', '2.0', '3.0', '1.1.1',
                  '2.1.1', 'a.b', '2.x', 'x', '-1.0', '1.-1', '2.01',
                  '99999999999999999999.1', '1.99999999999999999999',
                  '1.0, 1.1', 'latest latest', '\u2603', 'x' * 300)
EXTRA_HEADERS = (
    ('X-OpenStack-Request-Id', 'req-not-a-uuid'),
    ('X-OpenStack-Request-Id', 'x' * 500),
    ('Accept', 'application/xml'),
    ('Accept', 'garbage;q=x'),
    ('Accept-Language', 'zz;q=abc'),
    ('X-Forwarded-Proto', 'gopher'),
    ('Host', 'evil:notaport'),
    ('X-Identity-Status', 'Confirmed'),
    ('X-Roles', 'admin'),
    ('X-Project-Id', 'admin'),
    ('If-None-Match', '*'),
)


def examples(default):
    """Examples per route: ``NOVA_LITE_FUZZ_EXAMPLES`` or ``default``."""
    return EXAMPLES or default


def settings(default_examples):
    """hypothesis settings for one route's run."""
    derandomize = SEED is None and not EXAMPLES
    return hypothesis.settings(
        max_examples=examples(default_examples), deadline=None,
        derandomize=derandomize, database=None, print_blob=False,
        suppress_health_check=list(hypothesis.HealthCheck),
        phases=[hypothesis.Phase.explicit, hypothesis.Phase.generate,
                hypothesis.Phase.shrink])


# -- routes and the schemas their handlers validate with ----------------------

_PARAM = re.compile(r'\{([a-zA-Z_][a-zA-Z0-9_]*)\}')
_SCHEMA_KEYS = ('type', 'properties', 'patternProperties', 'oneOf', 'anyOf',
                'allOf', 'enum')


def path_parameters(template):
    return _PARAM.findall(template)


def routes(declarations):
    """Every (path template, method, handler) of a route table."""
    return [(template, method, handler)
            for template, methods in sorted(declarations.items())
            for method, handler in sorted(methods.items())]


def _is_schema(value):
    return isinstance(value, dict) and any(k in value for k in _SCHEMA_KEYS)


def _code_objects(code):
    yield code
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            yield from _code_objects(constant)


class HandlerFacts:
    """What a handler's code tells about its input: the JSON schemas it (or
    a decorator, or a helper of its module) validates with, and the short
    string constants it uses (query parameter names among them)."""

    def __init__(self, handler):
        self.schemas = []
        self.words = set()
        self._seen = set()
        self._visit(handler, 0)

    def _add(self, schema):
        if all(schema is not known for known in self.schemas):
            self.schemas.append(schema)

    def _visit(self, function, depth):
        function = getattr(function, '__func__', function)
        if id(function) in self._seen or depth > 3:
            return
        self._seen.add(id(function))
        for cell in getattr(function, '__closure__', None) or ():
            try:
                value = cell.cell_contents
            except ValueError:
                continue
            if _is_schema(value):
                self._add(value)
            elif isinstance(value, types.FunctionType):
                self._visit(value, depth)
        wrapped = getattr(function, '__wrapped__', None)
        if wrapped is not None:
            self._visit(wrapped, depth)
        code = getattr(function, '__code__', None)
        if code is None:
            return
        module_globals = function.__globals__
        names = set()
        for each in _code_objects(code):
            names.update(each.co_names)
            self.words.update(
                c for c in each.co_consts
                if isinstance(c, str) and re.match(r'^[a-zA-Z_:.-]{1,40}$', c))
        for name in names:
            value = module_globals.get(name)
            if _is_schema(value):
                self._add(value)
            elif isinstance(value, types.ModuleType):
                if '.schemas' in value.__name__:
                    for attribute in names:
                        found = getattr(value, attribute, None)
                        if _is_schema(found):
                            self._add(found)
            elif isinstance(value, types.FunctionType):
                if value.__module__ == function.__module__:
                    self._visit(value, depth + 1)
            elif isinstance(value, dict):
                for item in value.values():
                    if (isinstance(item, types.FunctionType) and
                            item.__module__ == function.__module__):
                        self._visit(item, depth + 1)


# -- values -------------------------------------------------------------------

# Strategies are built once: building and validating one costs more than
# drawing from it.
_PERCENT = st.integers(0, 99)
_UUID_TEXT = st.one_of(st.uuids().map(str), st.uuids().map(lambda u: u.hex),
                       st.uuids().map(lambda u: str(u).upper()))
_HOSTILE_STRING = st.one_of(st.sampled_from(HOSTILE_STRINGS),
                            st.text(max_size=30), st.uuids().map(str))
_HOSTILE_SCALAR = st.one_of(st.sampled_from(HOSTILE_NUMBERS),
                            st.sampled_from(HOSTILE_STRINGS),
                            st.sampled_from((None, True, False)),
                            st.integers(), st.floats())
_ANY_JSON = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(),
              st.text(max_size=20), st.sampled_from(HOSTILE_NUMBERS)),
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.one_of(st.text(max_size=10),
                                  st.sampled_from(HOSTILE_STRINGS[:40])),
                        children, max_size=4)),
    max_leaves=12)
_QUERY_VALUE = st.one_of(st.sampled_from(HOSTILE_STRINGS[:46]),
                         st.integers().map(str), st.text(max_size=12))
_INTEGERS = st.integers()
_FLOATS = st.floats(allow_nan=False, allow_infinity=False)
_RAW_ESCAPES = ('%00', '%ff', '%c0%af', '%2F', '%25', '%E2%98%83', '%',
                '%zz', 'a%00b')
_RAW_QUERIES = ('%ff=%ff', '&&&', '=', 'a=%00', 'limit=1&limit=2',
                'a=1;b=2', '%', 'x' * 5000)


@functools.lru_cache(maxsize=None)
def _below(count):
    return st.integers(0, count - 1)


@functools.lru_cache(maxsize=None)
def _text(low, high):
    return st.text(min_size=low, max_size=high)


@functools.lru_cache(maxsize=None)
def _integers(low, high):
    return st.integers(min_value=low, max_value=high)


@functools.lru_cache(maxsize=None)
def _regex_text(pattern):
    try:
        return st.from_regex(pattern, fullmatch=True)
    except Exception:
        return _text(0, 20)


class Values:
    """Draws values for one request from ``data`` (hypothesis' st.data()).

    ``known`` maps a path parameter name to the ids of existing objects;
    ``strings`` are other strings worth trying (names, hosts, classes).
    With ``oversize`` set, a document drawn from a schema has one list
    or open map (one of its ``maxItems`` / ``maxProperties`` bounds,
    picked at random) made longer than its bound.
    """

    def __init__(self, data, known, strings=()):
        self.data = data
        self.known = known
        self.strings = list(strings)
        self.oversize = False
        self._known_values = [v for ids in known.values() for v in ids]
        self._known_values.extend(self.strings)

    def draw(self, strategy, label=None):
        return self.data.draw(strategy, label=label)

    def chance(self, percent):
        return self.draw(_PERCENT) < percent

    def pick(self, items, label=None):
        """One of ``items`` (a non-empty sequence)."""
        items = tuple(items)
        return items[self.draw(_below(len(items)), label=label)]

    def number(self, low, high, label=None):
        return self.draw(_integers(low, high), label=label)

    def known_values(self):
        return self._known_values

    def hostile_string(self):
        return self.draw(_HOSTILE_STRING)

    def hostile_value(self):
        kind = self.number(0, 5)
        if kind == 0:
            return self.hostile_string()
        if kind == 1:
            return self.draw(_HOSTILE_SCALAR)
        if kind == 2:
            return self.draw(_ANY_JSON)
        if kind == 3 and self._known_values:
            return self.pick(self._known_values)
        if kind == 4:
            return self.pick(([], {}, [None], {'': None}))
        return nested(self.pick((20, 200, 600)))

    def from_schema(self, schema, mutate, depth=0):
        """A document near ``schema``: conforming, except that each node is
        replaced by a hostile value with ``mutate`` percent chance."""
        if mutate and self.chance(mutate):
            return self.hostile_value()
        if depth > 12 or not isinstance(schema, dict):
            return self.hostile_value()
        for combinator in ('oneOf', 'anyOf'):
            if combinator in schema:
                merged = dict(schema)
                merged.update(self.pick(merged.pop(combinator)))
                return self.from_schema(merged, mutate, depth + 1)
        if 'allOf' in schema:
            merged = dict(schema)
            for part in merged.pop('allOf'):
                merged.update(part)
            return self.from_schema(merged, mutate, depth + 1)
        if 'enum' in schema:
            return self.pick(schema['enum'])
        kind = schema.get('type')
        if isinstance(kind, list):
            kind = self.pick(kind)
        if kind is None:
            if 'properties' in schema or 'patternProperties' in schema:
                kind = 'object'
            else:
                return self.hostile_value()
        return getattr(self, '_' + kind)(schema, mutate, depth)

    def _overflows(self, schema, bound):
        """Whether this node is the one made longer than its bound."""
        if self.oversize and bound in schema and self.chance(50):
            self.oversize = False
            return True
        return False

    def _object(self, schema, mutate, depth):
        open_keys = (schema.get('patternProperties') or
                     schema.get('additionalProperties', True) is not False)
        if open_keys and self._overflows(schema, 'maxProperties'):
            return self._too_many_keys(schema, mutate, depth)
        document = {}
        required = set(schema.get('required', ()))
        for name, sub in sorted(schema.get('properties', {}).items()):
            if name in required:
                if mutate and self.chance(mutate // 2):
                    continue  # a missing required key
            elif not self.chance(50):
                continue
            document[name] = self.from_schema(sub, mutate, depth + 1)
        for pattern, sub in sorted(schema.get('patternProperties',
                                              {}).items()):
            for _ in range(self.number(0, 2)):
                key = self._pattern_key(pattern)
                document[key] = self.from_schema(sub, mutate, depth + 1)
        extra = schema.get('additionalProperties', True)
        if isinstance(extra, dict):
            for _ in range(self.number(0, 2)):
                if self.strings and self.chance(50):
                    key = self.pick(self.strings)
                else:
                    key = self.draw(_text(1, 12))
                document[key] = self.from_schema(extra, mutate, depth + 1)
        elif mutate and self.chance(mutate // 2):
            document[self.hostile_string()] = self.hostile_value()
        return document

    def _too_many_keys(self, schema, mutate, depth):
        count = schema['maxProperties'] + self.pick((1, 1, 50))
        patterns = sorted(schema.get('patternProperties', {}).items())
        if patterns:
            pattern, sub = self.pick(patterns)
        else:
            pattern, sub = None, schema.get('additionalProperties')
        # One value for every key: the bound is what is under test.
        value = self.from_schema(sub if isinstance(sub, dict) else {},
                                 mutate, depth + 1)
        return {key: value for key in _distinct_keys(pattern, count)}

    def _pattern_key(self, pattern):
        fitting = [v for v in self._known_values
                   if isinstance(v, str) and re.search(pattern, v)]
        if fitting and self.chance(60):
            return self.pick(fitting)
        return self.draw(_regex_text(pattern))

    def _array(self, schema, mutate, depth):
        if self._overflows(schema, 'maxItems'):
            return self._too_many_items(schema, mutate, depth)
        items = schema.get('items', {})
        if isinstance(items, list):
            return [self.from_schema(sub, mutate, depth + 1) for sub in items]
        low = schema.get('minItems', 0)
        high = min(schema.get('maxItems', low + 3), low + 3)
        return [self.from_schema(items, mutate, depth + 1)
                for _ in range(self.number(low, max(low, high)))]

    def _too_many_items(self, schema, mutate, depth):
        count = schema['maxItems'] + self.pick((1, 1, schema['maxItems'] + 1))
        kind = self.number(0, 2)
        if kind == 0:
            # Distinct objects: what uniqueItems takes longest over.
            return [{'i': index} for index in range(count)]
        if kind == 1:
            return ['x%d' % index for index in range(count)]
        items = schema.get('items', {})
        item = self.from_schema(items if isinstance(items, dict) else {},
                                mutate, depth + 1)
        return [item] * count

    def _string(self, schema, mutate, depth):
        pattern = schema.get('pattern', '')
        if schema.get('format') == 'uuid' or pattern.startswith(
                '^[0-9a-fA-F]{8}'):
            return self._uuid()
        choice = self.number(0, 9)
        low = schema.get('minLength', 0)
        high = schema.get('maxLength')
        if choice < 3 and self._known_values:
            return str(self.pick(self._known_values))
        if choice < 5 and high is not None:
            return 'x' * self.pick((low, high, high + 1))
        if pattern:
            return self.draw(_regex_text(pattern))
        return self.draw(_text(low, max(low, min(high or 30, 30))))

    def _uuid(self):
        ids = [v for v in self._known_values
               if isinstance(v, str) and _is_uuid(v)]
        if ids and self.chance(60):
            return self.pick(ids)
        return self.draw(_UUID_TEXT)

    def _integer(self, schema, mutate, depth):
        low = schema.get('minimum')
        high = schema.get('maximum')
        edges = [v for v in (low, high, 0, 1, 2 ** 31 - 1)
                 if v is not None and (low is None or v >= low) and
                 (high is None or v <= high)]
        if edges and self.chance(50):
            return self.pick(edges)
        if low is None and high is None:
            return self.draw(_INTEGERS)
        return self.draw(_integers(low, high))

    def _number(self, schema, mutate, depth):
        value = self.draw(_FLOATS)
        low, high = schema.get('minimum'), schema.get('maximum')
        if low is not None and value < low or high is not None and (
                value > high):
            return low if low is not None else high
        return value

    def _boolean(self, schema, mutate, depth):
        return self.chance(50)

    def _null(self, schema, mutate, depth):
        return None

    # -- request parts --------------------------------------------------------

    def path_value(self, name, plausible=False):
        ids = self.known.get(name, ())
        kind = self.number(0, 9, label='path %s kind' % name)
        if ids and (kind < 5 or plausible and kind < 9):
            return urllib.parse.quote(str(self.pick(ids)), safe='')
        if kind < 7:
            return self.draw(_UUID_TEXT)
        if kind == 7:
            # Raw percent escapes, as a client may send them.
            return self.pick(_RAW_ESCAPES)
        return urllib.parse.quote(self.hostile_string(), safe='',
                                  errors='surrogatepass') or 'x'

    def query(self, words, plausible=False):
        if plausible and self.chance(70):
            return ''
        names = sorted(words) + ['limit', 'marker', 'offset', 'sort_key',
                                 'sort_dir', 'fields', 'all_tenants',
                                 'all_projects', 'name', 'changes-since']
        known = [str(v) for v in self._known_values]
        pairs = []
        for _ in range(self.number(0, 3)):
            name = (self.pick(names) if self.chance(80)
                    else self.draw(_text(0, 8)))
            value = (self.pick(known) if known and self.chance(30)
                     else self.draw(_QUERY_VALUE))
            pairs.append((name, value))
        query = urllib.parse.urlencode(pairs, errors='surrogatepass')
        if not plausible and self.chance(5):
            query = self.pick(_RAW_QUERIES)
        return query


# Families of distinct keys, for a map made longer than its bound: the
# first whose keys fit the map's key pattern is used.
_KEY_FAMILIES = (lambda i: 'k%d' % i, lambda i: 'K%d' % i,
                 lambda i: 'CUSTOM_K%d' % i,
                 lambda i: str(uuid_lib.UUID(int=i + 1)))


def _distinct_keys(pattern, count):
    for family in _KEY_FAMILIES:
        if pattern is None or all(re.search(pattern, family(i))
                                  for i in (0, count)):
            return [family(i) for i in range(count)]
    return ['k%d' % i for i in range(count)]


def nested(depth, leaf='1'):
    """A JSON text nested ``depth`` levels deep."""
    text = '[' * depth + leaf + ']' * depth
    return json.loads(text) if depth < 500 else RawJSON(text)


class RawJSON(str):
    """JSON text to splice into a document as is (too deep to build)."""


def _is_uuid(value):
    try:
        uuid_lib.UUID(value)
    except (ValueError, AttributeError, TypeError):
        return False
    return True


def dump(document):
    """JSON bytes of ``document``, with RawJSON texts spliced in."""
    raws = []

    def replace(value):
        if isinstance(value, RawJSON):
            raws.append(str(value))
            return '\x01RAW%d\x01' % (len(raws) - 1)
        if isinstance(value, dict):
            return {k: replace(v) for k, v in value.items()}
        if isinstance(value, list):
            return [replace(v) for v in value]
        return value
    text = jsonutils.dumps(replace(document))
    for index, raw in enumerate(raws):
        text = text.replace('"\\u0001RAW%d\\u0001"' % index, raw)
    return text.encode('utf-8')


# -- the fuzzer ---------------------------------------------------------------

class RouteFuzzer:
    """Fuzzes one WSGI app's routes.

    ``state()`` returns {path parameter name: [ids of existing objects]}
    (and may create them again after a DELETE removed them);
    ``good_tokens`` are X-Auth-Token values of callers that may act (an
    administrator, the owner of the objects), ``tokens`` any to try (None:
    no header);
    ``version_header(value)`` gives the microversion headers for a value
    (None for a service without microversions); ``check_error(document)``
    asserts an error document is the service's format with a message.
    """

    def __init__(self, app, declarations, state, good_tokens, tokens,
                 check_error, version_header=None, versions=(),
                 strings=()):
        self.app = app
        self.declarations = declarations
        self.state = state
        self.good_tokens = list(good_tokens)
        self.tokens = list(good_tokens) + list(tokens)
        self.check_error = check_error
        self.version_header = version_header
        self.versions = list(versions)
        self.strings = list(strings)
        self.requests = 0
        self.statuses = {}

    def routes(self):
        return routes(self.declarations)

    def build(self, data, template, method, handler, facts):
        """One request: (method, path, headers, body, content type).

        Half the requests are plausible (a good token and microversion,
        existing ids, JSON near the schema) so that the handlers' own
        logic is reached, not only the checks in front of it; the other
        half are hostile in every part.
        """
        values = Values(data, self.state(), self.strings)
        plausible = values.chance(50)
        path = template
        for name in path_parameters(template):
            path = path.replace('{%s}' % name,
                                values.path_value(name, plausible), 1)
        if not plausible and values.chance(10):
            path += '/'
        query = values.query(facts.words, plausible)
        if query:
            path += '?' + query
        if not plausible and values.chance(5):
            method = values.pick(METHODS)
        headers = {}
        tokens = self.good_tokens if plausible else self.tokens
        token = values.pick(tokens, label='token')
        if token is not None:
            headers['X-Auth-Token'] = token
        if self.version_header is not None and values.chance(80):
            versions = self.versions
            if not plausible:
                versions = versions + list(VERSION_VALUES)
            version = values.pick(versions, label='version')
            headers.update(self.version_header(values, version))
        if not plausible and values.chance(10):
            name, value = values.pick(EXTRA_HEADERS)
            headers[name] = value
        body = self._body(values, method, facts, plausible)
        content_type = 'application/json' if plausible else values.pick(
            CONTENT_TYPES, label='content type')
        return method, path, headers, body, content_type

    def _body(self, values, method, facts, plausible):
        wants_body = method in ('POST', 'PUT', 'PATCH')
        if plausible:
            if not wants_body:
                return None
            if facts.schemas:
                schema = values.pick(facts.schemas)
                mutate = values.pick((0, 0, 2, 5), label='mutate %')
                values.oversize = values.chance(25)
                return dump(values.from_schema(schema, mutate))
        kind = values.number(0, 9, label='body kind')
        if not wants_body and kind < 7:
            return None
        if facts.schemas and kind < 6:
            schema = values.pick(facts.schemas)
            mutate = values.pick((0, 5, 15, 40), label='mutate %')
            values.oversize = values.chance(25)
            return dump(values.from_schema(schema, mutate))
        if kind < 7:
            return dump(values.draw(_ANY_JSON))
        if kind == 7:
            return dump(nested(values.pick((50, 900, 5000, 100000))))
        return values.pick(HOSTILE_BODIES)

    def send(self, method, path, headers, body, content_type):
        request = webob.Request.blank(path, method=method)
        for name, value in headers.items():
            # What a WSGI server hands on: the header's bytes as latin-1.
            request.headers[name] = value.encode(
                'utf-8', 'surrogatepass').decode('latin-1')
        if body is not None:
            request.body = body
        if content_type is not None and (body is not None or
                                         method in ('POST', 'PUT')):
            request.headers['Content-Type'] = content_type
        self.requests += 1
        return request.get_response(self.app)

    def check(self, response, method):
        status = response.status_int
        self.statuses[status] = self.statuses.get(status, 0) + 1
        assert status < 500, 'answered %s: %r' % (response.status,
                                                  response.body[:2000])
        text = response.body.decode('utf-8', 'replace')
        for leak in LEAKS:
            assert leak not in text, 'the answer shows %r: %s' % (
                leak, text[:2000])
        if status >= 400 and method != 'HEAD':
            try:
                document = jsonutils.loads(text)
            except ValueError:
                raise AssertionError('error %d is not JSON: %r' % (
                    status, text[:2000]))
            self.check_error(status, document)

    def fuzz_route(self, template, method, handler, default_examples):
        """Run hypothesis on one route; return the failure text or None."""
        facts = HandlerFacts(handler)

        @settings(default_examples)
        @hypothesis.given(st.data())
        def run(data):
            request = self.build(data, template, method, handler, facts)
            hypothesis.note('request: %s %s headers=%r content-type=%r '
                            'body=%r' % (request[0], request[1], request[2],
                                         request[4],
                                         (request[3] or b'')[:1000]))
            response = self.send(*request)
            self.check(response, request[0])

        if SEED is not None:
            run = hypothesis.seed(int(SEED))(run)
        try:
            run()
        except Exception as error:  # report every route, not just the first
            notes = '\n'.join(getattr(error, '__notes__', ()))
            return '%s %s: %s\n%s' % (method, template, error, notes)
        return None

    def fuzz(self, default_examples, select=None):
        """Fuzz every route (or those ``select(template, method)`` takes);
        a list of failures."""
        failures = []
        for template, method, handler in self.routes():
            if select is not None and not select(template, method):
                continue
            failure = self.fuzz_route(template, method, handler,
                                      default_examples)
            if failure:
                failures.append(failure)
        return failures


def microversions(module):
    """Every microversion from ``module.MIN_VERSION`` to
    ``module.MAX_VERSION``, and one past the last."""
    low, high = module.MIN_VERSION.split('.'), module.MAX_VERSION.split('.')
    return ['%s.%d' % (low[0], minor)
            for minor in range(int(low[1]), int(high[1]) + 2)]


class FuzzedAPI:
    """What a test case fuzzing one route table needs besides its objects.

    The test case calls ``start_fuzzing`` (RouteFuzzer's arguments) in
    setUp and defines ``make_state()``, which creates an object for every
    path parameter of the table and returns {name: [ids]}; after a DELETE
    that worked the next example makes them again.
    """

    examples = 12

    def start_fuzzing(self, app, declarations, **kwargs):
        self.known = None
        self.fuzzer = RouteFuzzer(app, declarations, self.state, **kwargs)
        send = self.fuzzer.send

        def sending(method, path, headers, body, content_type):
            response = send(method, path, headers, body, content_type)
            if method == 'DELETE' and response.status_int < 300:
                self.known = None  # make the objects again
            return response
        self.fuzzer.send = sending

    def state(self):
        if self.known is None:
            self.known = self.make_state()
        return self.known

    def fuzz(self, select):
        failures = self.fuzzer.fuzz(self.examples, select)
        if failures:
            self.fail('\n\n'.join(failures))

    def test_every_path_parameter_names_an_existing_object(self):
        # A new route whose parameter has no existing object here would
        # only ever be fuzzed with ids that name nothing.
        known = self.state()
        for template, _method, _handler in self.fuzzer.routes():
            for name in path_parameters(template):
                self.assertIn(name, known, template)
