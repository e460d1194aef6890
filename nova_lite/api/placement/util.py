"""Helpers shared by the Placement handlers: policy, version gates, JSON
bodies, transactions, query-string parsing and provider representations."""

import functools
import time

from oslo_serialization import jsonutils
from oslo_utils import uuidutils
import webob

from nova_lite.api import validation
from nova_lite.api.placement import microversion as mv
from nova_lite.placement import db
from nova_lite.placement import exception


_DECISIONS = {}
_DECISIONS_TTL = 10.0


def authorize(request, action, project_id=None):
    """Enforce ``action`` for the caller (403 if refused), on the
    caller's own project or on ``project_id`` (GET /usages names the
    project it is about).

    Placement's rules look only at who calls and that project, so an
    allowed decision is remembered for a few seconds per caller:
    enforcing costs about a millisecond, a noticeable part of an
    allocation write. A changed policy file takes effect within
    ``_DECISIONS_TTL``.
    """
    from nova_lite import policy
    context = request.context
    target = None
    if project_id is not None:
        target = {'project_id': project_id, 'user_id': context.user_id}
    key = (action, context.user_id, context.project_id,
           context.system_scope, context.domain_id, project_id,
           bool(context.is_admin), tuple(sorted(context.roles or ())),
           policy.init())
    now = time.monotonic()
    if _DECISIONS.get(key, 0) > now:
        return
    context.can(action, target)
    if len(_DECISIONS) > 4096:
        _DECISIONS.clear()
    _DECISIONS[key] = now + _DECISIONS_TTL


def since(version, status=404):
    """The route exists from microversion ``version``; 404 before it (or
    405 where OpenStack Placement says the method is not allowed)."""
    def decorator(handler):
        @functools.wraps(handler)
        def wrapper(request, *args, **kwargs):
            if not request.is_version(version):
                if status == 405:
                    raise webob.exc.HTTPMethodNotAllowed(
                        detail='The method specified is not allowed for '
                               'this resource.')
                raise exception.NotFound(
                    reason='The resource could not be found.')
            return handler(request, *args, **kwargs)
        # Read by checks that come after the route's own 404 (Accept).
        wrapper.since_version = version
        return wrapper
    return decorator


def json_body(request, schema):
    """The validated JSON body: 415 unless it is JSON, 400 if invalid."""
    content_type = (request.content_type or '').split(';')[0].strip()
    if content_type != 'application/json':
        raise exception.UnsupportedMediaType(
            media_type=content_type or None)
    # Worded as OpenStack Placement words them: clients and its own API
    # tests look for "Malformed JSON" and "JSON does not validate: <what
    # jsonschema said>".
    try:
        document = jsonutils.loads(request.body.decode('utf-8'))
    except (ValueError, UnicodeDecodeError) as e:
        raise exception.BadRequest(reason='Malformed JSON: %s' % e)
    except RecursionError:
        raise exception.BadRequest(
            reason='Malformed JSON: it is nested too deeply')
    validate_as_body(schema, document)
    return document


def validate_as_body(schema, document):
    """400 'JSON does not validate: ...' unless ``document`` (a body, or
    what a path names checked as a body would be) fits ``schema``."""
    error = validation.best_error(schema, document)
    if error is not None:
        raise exception.BadRequest(
            reason='JSON does not validate: %s' % ' '.join(
                str(error).split('\n')))


def validate_query(request, schema):
    """400 'Invalid query string parameters: ...' unless the query string,
    read as {name: last value}, fits ``schema``; that dict."""
    query = dict(request.GET.items())
    error = validation.best_error(schema, query)
    if error is not None:
        raise exception.BadRequest(
            reason='Invalid query string parameters: %s' % ' '.join(
                str(error).split('\n')))
    return query


def by_version(request, choices, default):
    """The value of the first (version, value) of ``choices`` (newest
    first) the request's microversion reaches, else ``default``: the body
    schema of a route that changed over the microversions."""
    for version, value in choices:
        if request.is_version(version):
            return value
    return default


def read(function, *args, **kwargs):
    """Run ``function(connection, ...)`` in a read transaction (again on
    a stale pooled connection)."""
    @db.retrying
    def attempt():
        with db.transaction() as connection:
            return function(connection, *args, **kwargs)
    attempt.__name__ = getattr(function, '__name__', 'read')
    return attempt()


def write(function, *args, **kwargs):
    """Run ``function(connection, ...)`` in a write transaction, retried on
    a deadlock or an internal generation race."""
    @db.retrying
    def attempt():
        with db.transaction() as connection:
            return function(connection, *args, **kwargs)
    attempt.__name__ = getattr(function, '__name__', 'write')
    return attempt()


def require_provider_uuid(value):
    """A provider uuid from the path: 404 naming it if malformed."""
    if not uuidutils.is_uuid_like(value):
        raise exception.ResourceProviderNotFound(uuid=value)


def links(request, uuid):
    base = '%s/resource_providers/%s' % (request.script_name, uuid)
    found = [{'rel': 'self', 'href': base},
             {'rel': 'inventories', 'href': base + '/inventories'},
             {'rel': 'usages', 'href': base + '/usages'}]
    if request.is_version(mv.AGGREGATES):
        found.append({'rel': 'aggregates', 'href': base + '/aggregates'})
    if request.is_version(mv.TRAITS):
        found.append({'rel': 'traits', 'href': base + '/traits'})
    if request.is_version(mv.ALLOCATIONS_LINK):
        found.append({'rel': 'allocations', 'href': base + '/allocations'})
    return found


def provider_view(request, provider):
    view = {'uuid': provider.uuid, 'name': provider.name,
            'generation': provider.generation,
            'links': links(request, provider.uuid)}
    if request.is_version(mv.NESTED):
        view['parent_provider_uuid'] = provider.parent_provider_uuid
        view['root_provider_uuid'] = provider.root_provider_uuid
    return view


def single_query_value(request, name):
    values = request.GET.getall(name)
    if len(values) > 1:
        raise exception.QueryDuplicateKey(
            reason='Query parameter %r may be given only once.' % name)
    return values[0] if values else None


def parse_resources(value, name='resources'):
    """'VCPU:1,MEMORY_MB:512' -> {'VCPU': 1, 'MEMORY_MB': 512}.

    Read as OpenStack Placement reads it (``name`` is the key it came
    from; the messages say 'resources' whatever it is, as Placement's
    do): a class named twice counts once, with its last amount.
    """
    def badly_formed(got):
        return exception.QueryBadValue(
            reason='Badly formed resources parameter. Expected resources '
                   'query string parameter in form: '
                   '?resources=VCPU:2,MEMORY_MB:1024. Got: %s.' % got)
    if not value.strip():
        raise badly_formed('empty string')
    result = {}
    for item in value.split(','):
        parts = item.split(':')
        if len(parts) != 2:
            raise badly_formed(item)
        class_name, amount = parts
        try:
            amount = int(amount)
        except ValueError:
            raise exception.QueryBadValue(
                reason='Requested resource %s expected positive integer '
                       'amount. Got: %s.' % (class_name, amount))
        if amount < 1:
            raise exception.QueryBadValue(
                reason='Requested resource %s requires amount >= 1. '
                       'Got: %d.' % (class_name, amount))
        result[class_name] = amount
    return result


def parse_traits(value, name='required', allow_forbidden=False,
                 conflicts_message=None):
    """'A,!B' -> ({'A'}, {'B'}); forbidden ones only when allowed."""
    required, forbidden = set(), set()
    items = [item.strip() for item in (value or '').split(',')]
    if not value or any(not item.lstrip('!') for item in items):
        raise exception.QueryBadValue(
            reason="Invalid query string parameters: Expected '%s' "
                   "parameter value of the form: HW_CPU_X86_VMX,%sCUSTOM_"
                   "MAGIC. Got an empty trait in: %s" % (
                       name, '!' if allow_forbidden else '', value))
    if not allow_forbidden and any(i.startswith('!') for i in items):
        raise exception.QueryBadValue(
            reason="Invalid query string parameters: Expected '%s' "
                   "parameter value of the form: HW_CPU_X86_VMX,"
                   "CUSTOM_MAGIC. Got: %s" % (name, value))
    for item in items:
        if allow_forbidden and item.startswith('!'):
            # Any number of '!' reads as one, as OpenStack Placement does.
            forbidden.add(item.lstrip('!'))
        else:
            required.add(item)
    conflict = required & forbidden
    if conflict and conflicts_message:
        raise exception.QueryBadValue(
            reason=conflicts_message % ', '.join(sorted(conflict)))
    if conflict:
        raise exception.QueryBadValue(
            reason='Conflicting required and forbidden traits found in the '
                   'following traits keys: %s: (%s)' % (
                       name, ', '.join(sorted(conflict))))
    return required, forbidden


def parse_trait_terms(values, name='required', allow_forbidden=False,
                      any_traits=False):
    """The values of one ``required`` key -> (names all needed, [sets of
    names of which one is needed], names forbidden).

    Each value is 'A,!B' (A needed, B forbidden when allowed). With
    ``any_traits`` (1.39) a value may also be 'in:A,B' (A or B) and the key
    may repeat, every value holding; before, the last value is the one
    that counts, as in OpenStack Placement.
    """
    if not any_traits:
        values = values[-1:]
    required, any_of, forbidden = set(), [], set()
    for value in values:
        if value.startswith('in:'):
            if not any_traits:
                raise exception.QueryBadValue(
                    reason="Invalid query string parameters: The format "
                           "'in:HW_CPU_X86_VMX,CUSTOM_MAGIC' only supported "
                           "since microversion 1.39. Got: %s" % value)
            names = {item.strip() for item in value[3:].split(',')}
            if not all(names):
                raise exception.QueryBadValue(
                    reason="Invalid query string parameters: Expected '%s' "
                           "parameter value of the form: in:HW_CPU_X86_VMX,"
                           "CUSTOM_MAGIC. Got an empty trait in: %s" % (
                               name, value))
            if any(n.startswith('!') for n in names):
                raise exception.QueryBadValue(
                    reason="Invalid query string parameters: The format "
                           "'in:HW_CPU_X86_VMX,CUSTOM_MAGIC' does not "
                           "support forbidden traits. Got: %s" % value)
            if len(names) == 1:
                required |= names
            else:
                any_of.append(names)
            continue
        need, avoid = parse_traits(value, name, allow_forbidden)
        required |= need
        forbidden |= avoid
    conflict = required & forbidden
    if conflict:
        raise exception.QueryBadValue(
            reason='Conflicting required and forbidden traits found in the '
                   'following traits keys: %s: (%s)' % (
                       name, ', '.join(sorted(conflict))))
    return required, any_of, forbidden


def trait_term_ids(connection, terms):
    """parse_trait_terms' names -> the same shape in trait ids (400 for a
    trait that does not exist)."""
    from nova_lite.placement import traits
    required, any_of, forbidden = terms
    ids = traits.ids_of(connection, required.union(forbidden, *any_of))
    return ({ids[n] for n in required},
            [{ids[n] for n in names} for names in any_of],
            {ids[n] for n in forbidden})


def parse_member_of(values, allow_forbidden=False, name='member_of'):
    """Each value 'uuid', 'in:u1,u2', or (when allowed) '!uuid' or
    '!in:u1,u2' -> a list of (set of aggregate uuids, forbidden).

    A provider in an aggregate both required and forbidden simply does
    not match (no error), as in OpenStack Placement.
    """
    result = []
    for value in values:
        if ',' in value and not value.startswith(('in:', '!in:')):
            raise exception.QueryBadValue(
                reason="Multiple values for '%s' must be prefixed with the "
                       "'in:' or '!in:' keyword using the valid "
                       "microversion. Got: %s" % (name, value))
        forbidden = value.startswith('!')
        text = value[1:] if forbidden else value
        uuids = text[3:].split(',') if text.startswith('in:') else [text]
        for uuid in uuids:
            if not uuidutils.is_uuid_like(uuid):
                raise exception.QueryBadValue(
                    reason="Invalid query string parameters: Expected '%s' "
                           "parameter to contain valid UUID(s). Got: %s" % (
                               name, uuid))
        if forbidden and not allow_forbidden:
            raise exception.QueryBadValue(
                reason='Forbidden %s parameters are not supported in the '
                       'specified microversion' % name)
        result.append((set(uuids), forbidden))
    return result
