"""Helpers shared by the port API handlers: policy, request bodies, list
queries (filters, fields, pagination) and timestamps."""

from urllib import parse

from oslo_serialization import jsonutils
from oslo_utils import uuidutils

from nova_lite.api import validation
from nova_lite import exception as nova_exc
from nova_lite.network import exception

POLICY_PREFIX = 'network:'
# Query parameters of every list that are not filters.
LIST_PARAMETERS = ('fields', 'limit', 'marker', 'page_reverse', 'sort_key',
                   'sort_dir')
_TRUE = ('true', '1', 'yes', 'on')
_FALSE = ('false', '0', 'no', 'off')
MAX_LIMIT = 1000
# A binding profile is at most this long as JSON, as in the Networking
# service.
MAX_PROFILE_LENGTH = 4095
MAX_CONFIGURATIONS_LENGTH = 16000


# -- policy -------------------------------------------------------------------

def authorize(request, action, target=None):
    """Enforce ``network:<action>`` (403 if refused)."""
    context = request.context
    if target is None:
        target = {'project_id': context.project_id}
    context.can(POLICY_PREFIX + action, dict(target))


def allowed(request, action, target):
    """Whether ``network:<action>`` allows the caller ``target``,
    remembered for the rest of the request (a list asks the same few
    questions for every item)."""
    cache = request.environ.setdefault('nova_lite.network.policy', {})
    key = (action, tuple(sorted(target.items())))
    if key not in cache:
        cache[key] = bool(request.context.can(
            POLICY_PREFIX + action, dict(target), fatal=False))
    return cache[key]


def owner(request, body):
    """The project a new resource belongs to: the caller's, or the
    ``project_id``/``tenant_id`` an administrator names."""
    context = request.context
    named = {body.get(key) for key in ('project_id', 'tenant_id')
             if body.get(key) is not None}
    if len(named) > 1:
        raise exception.InvalidInput(
            reason='project_id and tenant_id differ; send one of them.')
    project_id = named.pop() if named else context.project_id
    if project_id != context.project_id and not is_admin(request):
        raise exception.BadRequest(
            reason="Specifying 'project_id' or 'tenant_id' other than the "
                   "authenticated project in request requires admin "
                   "privileges")
    if not project_id:
        raise exception.InvalidInput(
            reason='The caller has no project; send a project_id.')
    return project_id


def is_admin(request):
    return bool(request.context.is_admin)


# -- bodies -------------------------------------------------------------------

def body(request, key, schema):
    """``document[key]`` of a JSON body that fits ``schema`` (which
    describes the whole document); 400 otherwise."""
    try:
        document = request.json_body_or_fail()
    except nova_exc.MalformedRequestBody as e:
        raise exception.BadRequest(reason=e.kwargs.get('reason', str(e)))
    if not isinstance(document, dict) or key not in document:
        raise exception.BadRequest(
            reason='Resource body required: send {"%s": {...}}.' % key)
    try:
        validation.validate(schema, document)
    except nova_exc.ValidationError as e:
        raise exception.InvalidInput(reason=e.format_message())
    return document[key]


def check_json_size(name, value, limit):
    """400 when ``value`` takes more than ``limit`` characters as JSON
    (what its text column holds)."""
    if value is not None and len(jsonutils.dumps(value)) > limit:
        raise exception.InvalidInput(
            reason='%s is too large: at most %d characters of JSON.' % (
                name, limit))


# -- lists --------------------------------------------------------------------

def to_bool(name, value):
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise exception.InvalidInput(
        reason="'%s' is not a valid boolean value for %s." % (value, name))


def to_int(name, value):
    try:
        number = int(str(value).strip())
    except ValueError:
        number = None
    if number is None or abs(number) >= 2 ** 63:
        raise exception.InvalidInput(
            reason="'%s' is not an integer; %s takes one." % (value, name))
    return number


def to_str(name, value):
    return value


def to_tags(name, value):
    """'a,b' -> ['a', 'b'] (the tag filters take comma-separated tags)."""
    return [tag.strip() for tag in value.split(',') if tag.strip()]


TAG_FILTERS = {name: ('tags', name, to_tags)
               for name in ('tags', 'tags-any', 'not-tags', 'not-tags-any')}


def filters(request, spec, hidden=()):
    """The filters of a list request: {target: [values]} per group, from
    ``spec`` {query name: (group, target, convert)}. A name not in the
    spec is a 400 naming the ones that are; ``hidden`` names the caller
    may not filter on (attributes it cannot see): 403."""
    found = {}
    for name in request.GET.keys():
        if name in LIST_PARAMETERS:
            continue
        if name not in spec:
            raise exception.BadRequest(
                reason='%s is not a valid filter here; filter on %s.' % (
                    name, ', '.join(sorted(spec))))
        if name in hidden:
            raise nova_exc.PolicyNotAuthorized(action='filtering on ' +
                                               name)
        group, target, convert = spec[name]
        values = []
        for value in request.GET.getall(name):
            value = convert(name, value)
            values.extend(value if isinstance(value, list) else [value])
        found.setdefault(group, {}).setdefault(target, []).extend(values)
    return found


def requested_fields(request):
    fields = []
    for value in request.GET.getall('fields'):
        fields.extend(part.strip() for part in value.split(',')
                      if part.strip())
    return fields


def only_fields(view, fields):
    if not fields:
        return view
    return {name: value for name, value in view.items() if name in fields}


def pagination(request):
    """(limit, marker) of a list request; (None, None) when absent."""
    limit = request.GET.get('limit')
    if limit is not None:
        limit = to_int('limit', limit)
        if limit < 0:
            raise exception.InvalidInput(
                reason='limit must be 0 or more, not %d.' % limit)
        limit = min(limit, MAX_LIMIT) or None
    marker = request.GET.get('marker')
    if marker is not None and not uuidutils.is_uuid_like(marker):
        raise exception.InvalidInput(
            reason='marker %s is not the id of an item.' % marker)
    return limit, marker


def collection(request, name, items, limit, item_ids):
    """The list document, with a ``<name>_links`` next link when a full
    page was asked for and returned."""
    document = {name: items}
    if limit and len(item_ids) >= limit:
        params = [(key, value) for key, value in request.GET.items()
                  if key != 'marker']
        params.append(('marker', item_ids[-1]))
        document[name + '_links'] = [{
            'rel': 'next',
            'href': '%s%s?%s' % (request.host_url, request.path,
                                 parse.urlencode(params))}]
    return document


# -- views --------------------------------------------------------------------

def timestamp(value):
    """The Networking API's timestamps: ISO 8601 in UTC, to the second."""
    if value is None:
        return None
    return value.strftime('%Y-%m-%dT%H:%M:%SZ')


def require_id(value, not_found):
    if not uuidutils.is_uuid_like(value):
        raise not_found
