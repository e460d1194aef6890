"""GET /allocation_candidates (1.10).

The query names request groups: the unsuffixed ``resources``,
``required``, ``member_of``, ``in_tree`` and, from 1.25, granular groups
``resourcesN`` / ``requiredN`` / ``member_ofN`` / ``in_treeN`` (from 1.33
any suffix such as ``resources_PORT1``), plus ``group_policy``, ``limit``,
``root_required`` (1.35) and ``same_subtree`` (1.36).
"""

import json
import re

from oslo_utils import uuidutils
import webob

from nova_lite.api.placement import microversion as mv
from nova_lite.api.placement.schemas import allocation_candidate as schema
from nova_lite.api.placement import util
from nova_lite import conf as nova_conf
from nova_lite.placement import candidates
from nova_lite.placement import exception
from nova_lite.placement import resource_classes
from nova_lite.placement import traits

CONF = nova_conf.CONF

_GROUP_KEY = re.compile(
    r'^(resources|required|member_of|in_tree)([a-zA-Z0-9_-]{1,64})?$')


def _request_wide(request):
    """limit, group_policy, root_required and same_subtree: each the
    first value given (root_required only once)."""
    limit = request.GET.getall('limit')
    policy = request.GET.getall('group_policy')
    root_required = request.GET.getall('root_required')
    if len(root_required) > 1:
        raise exception.QueryDuplicateKey(
            reason="Query parameter 'root_required' may be specified only "
                   "once.")
    same_subtree = []
    for value in request.GET.getall('same_subtree'):
        suffixes = {s.strip() for s in value.split(',')}
        if '' in suffixes:
            raise exception.QueryBadValue(
                reason='Empty string (unsuffixed group) can not be '
                       'specified in `same_subtree` ')
        same_subtree.append(suffixes)
    return (int(limit[0]) if limit else None, policy[0] if policy else None,
            root_required[0] if root_required else None, same_subtree)


def _group_params(request):
    """{suffix: {param: [values]}} of the group keys, in query order."""
    groups = {}
    for key in request.GET.keys():
        match = _GROUP_KEY.match(key)
        if match:
            param, suffix = match.group(1), match.group(2) or ''
            groups.setdefault(suffix, {})[param] = request.GET.getall(key)
    return groups


def _parse_group(connection, request, suffix, params):
    resources = {}
    if 'resources' in params:
        wanted = util.parse_resources(params['resources'][-1])
        try:
            resources = {resource_classes.id_of(connection, rc): amount
                         for rc, amount in wanted.items()}
        except exception.ResourceClassNotFound as e:
            raise exception.BadRequest(
                reason='Invalid resource class in resources parameter: '
                       '%s' % e)
    required, any_of, forbidden = set(), [], set()
    if 'required' in params:
        required, any_of, forbidden = util.parse_trait_terms(
            params['required'], 'required',
            request.is_version(mv.FORBIDDEN_TRAITS),
            any_traits=request.is_version(mv.ANY_TRAITS))
    member_of = []
    if 'member_of' in params:
        if len(params['member_of']) > 1 and not request.is_version(
                mv.MULTIPLE_MEMBER_OF):
            raise exception.QueryBadValue(
                reason='Multiple member_of%s parameters are not '
                       'supported' % suffix)
        member_of = util.parse_member_of(
            params['member_of'],
            request.is_version(mv.FORBIDDEN_AGGREGATES), 'member_of')
    in_tree = None
    if 'in_tree' in params:
        value = params['in_tree'][-1].strip()
        if not uuidutils.is_uuid_like(value):
            raise exception.QueryBadValue(
                reason="Invalid query string parameters: Expected 'in_tree' "
                       "parameter to be a format of uuid. Got: %s" %
                       params['in_tree'][-1])
        in_tree = value
    return dict(suffix=suffix, resources=resources, required=required,
                any_of=any_of, forbidden=forbidden, member_of=member_of,
                in_tree=in_tree)


def _check_groups(request, groups, same_subtree):
    """The groups' shape: which may lack resources, as OpenStack Placement
    checks it."""
    if request.is_version(mv.SAME_SUBTREE):
        resourceless = {g['suffix'] for g in groups if not g['resources']}
        if len(resourceless) == len(groups):
            raise exception.QueryMissingValue(
                reason='There must be at least one resources or '
                       'resources[$S] parameter.')
        in_subtrees = set().union(*same_subtree)
        bad = [s for s in sorted(resourceless) if s not in in_subtrees]
        if bad:
            raise exception.QueryBadValue(
                reason='Resourceless suffixed group request should be '
                       'specified in `same_subtree` query param: bad '
                       'group(s) - %s.' % bad)
        known = [g['suffix'] for g in groups]
        bad = sorted(s for s in in_subtrees if s not in known)
        if bad:
            raise exception.QueryBadValue(
                reason='Real suffixes should be specified in '
                       '`same_subtree`: %s not found in %s.' % (bad, known))
        return
    orphans = ['required' + g['suffix'] for g in groups
               if (g['required'] or g['any_of']) and not g['resources']]
    if orphans:
        raise exception.BadRequest(
            reason='All traits parameters must be associated with '
                   'resources.  Found the following orphaned traits keys: '
                   '%s' % ', '.join(orphans))
    orphans = ['member_of' + g['suffix'] for g in groups
               if g['member_of'] and not g['resources']]
    if orphans:
        raise exception.BadRequest(
            reason='All member_of parameters must be associated with '
                   'resources. Found the following orphaned member_of '
                   'keys: %s' % ', '.join(orphans))
    if not all(g['resources'] for g in groups):
        raise exception.BadRequest(
            reason='All request groups must specify resources.')
    if not groups:
        raise exception.BadRequest(
            reason='At least one request group (`resources` or '
                   '`resources{$S}`) is required.')


def _parse_request(connection, request):
    util.validate_query(request, schema.query_schema(request))
    limit, policy, root_required_value, same_subtree = \
        _request_wide(request)
    root_required = root_forbidden = ()
    if root_required_value is not None:
        root_required, root_forbidden = util.parse_traits(
            root_required_value, 'root_required', True,
            conflicts_message='Conflicting required and forbidden traits '
                              'found in root_required: %s')
    groups = [_parse_group(connection, request, suffix, params)
              for suffix, params in _group_params(request).items()]
    _check_groups(request, groups, same_subtree)
    conflicts = sorted(
        'required%s: (%s)' % (g['suffix'], ', '.join(sorted(names)))
        for g in groups for names in g['any_of'] + [
            {n} for n in g['required']] if names <= g['forbidden'])
    if conflicts:
        raise exception.BadRequest(
            reason='Conflicting required and forbidden traits found in '
                   'the following traits keys: %s' % ', '.join(conflicts))
    if policy is None and len([g for g in groups if g['suffix']]) > 1:
        raise exception.BadRequest(
            reason='The "group_policy" parameter is required when '
                   'specifying more than one "resources{N}" parameter.')

    request_groups = []
    for group in sorted(groups, key=lambda g: g['suffix']):
        required, any_of, forbidden = util.trait_term_ids(
            connection, (group['required'], group['any_of'],
                         group['forbidden']))
        in_tree = None
        if group['in_tree'] is not None:
            in_tree = _tree_root(connection, group['in_tree'])
        request_groups.append(candidates.RequestGroup(
            group['suffix'], group['resources'], required, forbidden,
            group['member_of'], in_tree, any_of=any_of))
    if root_required or root_forbidden:
        ids = traits.ids_of(connection, set(root_required) |
                            set(root_forbidden))
        root_required = {ids[t] for t in root_required}
        root_forbidden = {ids[t] for t in root_forbidden}
    cap = CONF.placement.max_allocation_candidates
    return candidates.Request(
        request_groups, policy, limit, root_required, root_forbidden,
        same_subtree,
        randomize=CONF.placement.randomize_allocation_candidates,
        max_candidates=cap if cap > 0 else None,
        breadth_first=(CONF.placement.allocation_candidates_generation_strategy
                       == 'breadth-first'),
        nested_aware=request.is_version(mv.NESTED_CANDIDATES))


def _tree_root(connection, uuid):
    """The root of ``uuid``'s tree; no candidates (an empty answer) when
    there is no such provider, as in OpenStack Placement."""
    from nova_lite.placement import providers
    try:
        return providers.get(connection, uuid).root_provider_id
    except exception.ResourceProviderNotFound:
        raise _NoSuchTree() from None


class _NoSuchTree(Exception):
    pass


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
    # One format per class: '"VCPU": {"capacity": %d, "used": %d}'.
    summary_of = {c: name + ': {"capacity": %d, "used": %d}'
                  for c, name in quoted.items()}
    for provider_id, classes in summaries.items():
        text = '"%s": {"resources": {%s}' % (
            uuid_of[provider_id], ', '.join([
                summary_of[c] % (room, used)
                for c, (room, used, _max_unit) in classes.items()]))
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
        try:
            wanted = _parse_request(connection, request)
        except _NoSuchTree:
            return '{"allocation_requests": [], "provider_summaries": {}}'
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
