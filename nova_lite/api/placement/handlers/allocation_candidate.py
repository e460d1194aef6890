"""GET /allocation_candidates (1.10).

The query names request groups: the unsuffixed ``resources``,
``required``, ``member_of``, ``in_tree`` and, from 1.25, granular groups
``resourcesN`` / ``requiredN`` / ``member_ofN`` / ``in_treeN`` (from 1.33
any suffix such as ``resources_PORT1``), plus ``group_policy``, ``limit``,
``root_required`` (1.35) and ``same_subtree`` (1.36).
"""

import collections
import json
import re

from oslo_utils import uuidutils
import webob

from nova_lite.api.placement import microversion as mv
from nova_lite.api.placement import util
from nova_lite import conf as nova_conf
from nova_lite.placement import candidates
from nova_lite.placement import exception
from nova_lite.placement import resource_classes
from nova_lite.placement import traits

CONF = nova_conf.CONF

_GROUP_KEY = re.compile(
    r'^(resources|required|member_of|in_tree)([1-9][0-9]*|_[a-zA-Z0-9_-]+)?$')
_NUMBERED = re.compile(r'^[1-9][0-9]*$')
# 'in:A,B' traits and repeated required keys.
ANY_TRAITS = mv.ANY_TRAITS


def _raw_groups(request):
    """{suffix: {param: [values]}} and the other parameters."""
    groups = collections.defaultdict(lambda: collections.defaultdict(list))
    others = {}
    granular = request.is_version(mv.GRANULAR)
    strings = request.is_version(mv.STRING_SUFFIXES)
    allowed = {'group_policy', 'limit'}
    if request.is_version(mv.ROOT_REQUIRED):
        allowed.add('root_required')
    if request.is_version(mv.SAME_SUBTREE):
        allowed.add('same_subtree')
    for key in sorted(set(request.GET.keys())):
        match = _GROUP_KEY.match(key)
        values = request.GET.getall(key)
        if match:
            param, suffix = match.group(1), match.group(2) or ''
            if suffix and (not granular or (
                    not strings and not _NUMBERED.match(suffix))):
                match = None
            elif (param == 'required' and not request.is_version(
                    mv.CANDIDATES_TRAITS)) or (
                    param == 'member_of' and not request.is_version(
                        mv.CANDIDATES_MEMBER_OF)) or (
                    param == 'in_tree' and not request.is_version(
                        mv.CANDIDATES_IN_TREE)):
                match = None
        if match:
            if len(values) > 1 and param not in ('member_of', 'required'):
                raise exception.QueryDuplicateKey(
                    reason='Query parameter %r may be given only once.' %
                    key)
            groups[suffix][param].extend(values)
            continue
        if key not in allowed:
            raise exception.BadRequest(
                reason='Invalid query string parameters: Additional '
                       'properties are not allowed (%r was unexpected)' %
                       key)
        others[key] = values
    return groups, others


def _parse_request(connection, request):
    raw, others = _raw_groups(request)
    if not any('resources' in params for params in raw.values()):
        raise exception.BadRequest(
            reason='At least one resources query parameter must be '
                   'specified.')
    forbidden_traits = request.is_version(mv.FORBIDDEN_TRAITS)
    groups = []
    for suffix, params in sorted(raw.items()):
        name = lambda p: p + suffix  # noqa: E731
        if 'resources' not in params and suffix and \
                not request.is_version(mv.SAME_SUBTREE):
            raise exception.BadRequest(
                reason='All traits parameters must be associated with '
                       'resources. Found the following suffixed traits '
                       'keys without associated resources: %s' % ', '.join(
                           sorted(name(p) for p in params)))
        resources = {}
        if 'resources' in params:
            wanted = util.parse_resources(params['resources'][0],
                                          name('resources'))
            try:
                resources = {resource_classes.id_of(connection, rc): amount
                             for rc, amount in wanted.items()}
            except exception.ResourceClassNotFound as e:
                raise exception.BadRequest(
                    reason='Invalid resource class in resources parameter: '
                           '%s' % e.kwargs['name'])
        required, any_of, forbidden = set(), [], set()
        if 'required' in params:
            required, any_of, forbidden = util.trait_term_ids(
                connection, util.parse_trait_terms(
                    params['required'], name('required'), forbidden_traits,
                    any_traits=request.is_version(ANY_TRAITS)))
        member_of = []
        if 'member_of' in params:
            if len(params['member_of']) > 1 and not request.is_version(
                    mv.MULTIPLE_MEMBER_OF):
                raise exception.QueryBadValue(
                    reason='Multiple member_of parameters are not '
                           'supported before microversion 1.24.')
            member_of = util.parse_member_of(
                params['member_of'],
                request.is_version(mv.FORBIDDEN_AGGREGATES),
                name('member_of'))
        in_tree = None
        if 'in_tree' in params:
            in_tree = _tree_root(connection, params['in_tree'][0],
                                 name('in_tree'))
        groups.append(candidates.RequestGroup(
            suffix, resources, required, forbidden, member_of, in_tree,
            any_of=any_of))

    numbered = [g for g in groups if g.suffix and g.resources]
    policy = others.get('group_policy', [None])[-1]
    if policy is not None and policy not in ('none', 'isolate'):
        raise exception.QueryBadValue(
            reason="Invalid query string parameters: 'group_policy' must "
                   "be 'none' or 'isolate'. Got: %s" % policy)
    if len(numbered) > 1 and policy is None:
        raise exception.BadRequest(
            reason='The "group_policy" parameter is required when '
                   'specifying more than one "resources{N}" parameter.')
    limit = None
    if 'limit' in others:
        if not request.is_version(mv.CANDIDATES_LIMIT):
            raise exception.BadRequest(
                reason="Invalid query string parameters: 'limit' is not "
                       "allowed before microversion 1.16")
        try:
            limit = int(others['limit'][-1])
            if limit < 1:
                raise ValueError()
        except ValueError:
            raise exception.QueryBadValue(
                reason="Invalid query string parameters: 'limit' must be a "
                       "positive integer. Got: %s" % others['limit'][-1])
    root_required = root_forbidden = ()
    if 'root_required' in others:
        need, avoid = set(), set()
        for value in others['root_required']:
            more_need, more_avoid = util.parse_traits(value, 'root_required',
                                                      True)
            need |= more_need
            avoid |= more_avoid
        ids = traits.ids_of(connection, need | avoid)
        root_required = {ids[t] for t in need}
        root_forbidden = {ids[t] for t in avoid}
    same_subtree = []
    known = {g.suffix for g in groups}
    for value in others.get('same_subtree', []):
        suffixes = {s.strip() for s in value.split(',')}
        unknown = sorted(s for s in suffixes if not s or s not in known)
        if unknown:
            raise exception.BadRequest(
                reason='Real suffixes should be specified in same_subtree: '
                       '%s not found in %s' % (', '.join(unknown), ', '.join(
                           sorted(k for k in known if k))))
        same_subtree.append(suffixes)
    return candidates.Request(
        groups, policy, limit, root_required, root_forbidden, same_subtree,
        randomize=CONF.placement.randomize_allocation_candidates,
        max_candidates=(CONF.placement.max_allocation_candidates
                        if CONF.placement.max_allocation_candidates > 0
                        else None),
        breadth_first=(CONF.placement.allocation_candidates_generation_strategy
                       == 'breadth-first'))


def _tree_root(connection, value, name):
    from nova_lite.placement import providers
    if not uuidutils.is_uuid_like(value):
        raise exception.QueryBadValue(
            reason='Invalid query string parameters: Expected %r parameter '
                   'to be a UUID. Got: %s' % (name, value))
    try:
        return providers.get(connection, value).root_provider_id
    except exception.ResourceProviderNotFound:
        raise exception.BadRequest(
            reason='No such resource provider %s.' % value) from None


def _render(request, connection, result, summaries, trait_names):
    """The response body as JSON text, written directly.

    A response describes thousands of providers; building it as dicts and
    encoding them cost more than finding the candidates. Everything
    written unescaped here is a uuid, a resource class or trait name
    (``[A-Z0-9_]``), a group suffix (``[a-zA-Z0-9_-]``) or an integer;
    names still go through ``json.dumps`` once each.
    """
    rows = result.tree_rows
    uuid_of = {p: row.uuid for p, row in rows.items()}
    quoted = {c: json.dumps(n) for c, n in
              resource_classes.names_by_id(connection).items()}

    resources_cache = {}

    def resources_text(resources):
        key = tuple(sorted(resources.items()))
        text = resources_cache.get(key)
        if text is None:
            text = resources_cache[key] = '{%s}' % ', '.join(
                '%s: %d' % (quoted[c], a) for c, a in key)
        return text

    dict_format = request.is_version(mv.ALLOCATIONS_DICT)
    with_mappings = request.is_version(mv.MAPPINGS)
    suffixes = {}
    requests_text = []
    append = requests_text.append
    for allocations, groups in result.allocation_requests:
        if dict_format:
            if len(allocations) == 1:
                (p, resources), = allocations.items()
                text = '{"allocations": {"%s": {"resources": %s}}' % (
                    uuid_of[p], resources_text(resources))
            else:
                text = '{"allocations": {%s}' % ', '.join(
                    '"%s": {"resources": %s}' % (uuid_of[p],
                                                 resources_text(resources))
                    for p, resources in allocations.items())
            if with_mappings:
                parts = []
                for suffix, ps in groups.items():
                    name = suffixes.get(suffix)
                    if name is None:
                        name = suffixes[suffix] = json.dumps(suffix)
                    parts.append('%s: ["%s"]' % (name, '", "'.join(
                        uuid_of[p] for p in ps)))
                text += ', "mappings": {%s}' % ', '.join(parts)
            append(text + '}')
        else:
            requests_text.append('{"allocations": [%s]}' % ', '.join(
                '{"resource_provider": {"uuid": "%s"}, "resources": %s}' % (
                    uuid_of[p], resources_text(resources))
                for p, resources in sorted(allocations.items())))

    with_traits = request.is_version(mv.CANDIDATES_TRAITS)
    with_tree = request.is_version(mv.NESTED_CANDIDATES)
    traits_cache = {(): '[]'}
    summaries_text = []
    for provider_id, classes in summaries.items():
        text = '"%s": {"resources": {%s}' % (
            uuid_of[provider_id], ', '.join(
                '%s: {"capacity": %d, "used": %d}' % (quoted[c], room, used)
                for c, (room, used) in classes.items()))
        if with_traits:
            names = tuple(trait_names.get(provider_id, ()))
            listed = traits_cache.get(names)
            if listed is None:
                listed = traits_cache[names] = json.dumps(list(names))
            text += ', "traits": ' + listed
        if with_tree:
            row = rows[provider_id]
            parent = uuid_of.get(row.parent_provider_id)
            text += ', "parent_provider_uuid": %s, "root_provider_uuid": ' \
                '"%s"' % ('"%s"' % parent if parent else 'null',
                          uuid_of[row.root_provider_id])
        summaries_text.append(text + '}')
    return '{"allocation_requests": [%s], "provider_summaries": {%s}}' % (
        ', '.join(requests_text), ', '.join(summaries_text))


@util.since(mv.ALLOCATION_CANDIDATES)
def index(request):
    util.authorize(request, 'placement:allocation_candidates:list')

    def search(connection):
        wanted = _parse_request(connection, request)
        result = candidates.find(connection, wanted)
        if not result.allocation_requests:
            return '{"allocation_requests": [], "provider_summaries": {}}'
        requested = {c for g in wanted.groups for c in g.resources}
        summaries, trait_names = candidates.summaries(
            connection, result,
            all_classes=request.is_version(mv.ALL_CLASSES_IN_SUMMARIES),
            requested_classes=requested,
            whole_trees=request.is_version(mv.NESTED_CANDIDATES))
        return _render(request, connection, result, summaries, trait_names)

    body = util.read(search)
    response = webob.Response(status=200, charset='utf-8',
                              content_type='application/json')
    response.body = body.encode('utf-8')
    return response
