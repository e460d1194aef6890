"""Allocation candidates: every way a request can be satisfied right now.

A request is one or more groups. The unsuffixed group may spread over a
provider tree (each of its resource classes from one provider of the tree,
or from a sharing provider anchored to it); a suffixed ("granular") group
must be satisfied by a single provider. All providers of a candidate
belong to one tree, apart from sharing providers (trait
``MISC_SHARES_VIA_AGGREGATE``) that share an aggregate with a provider of
that tree.

The search is set-based: one SQL query per group returns, for each of its
resource classes, the providers that can take the amount now (capacity
minus usage computed in SQL), with the group's tree, aggregate and (for
granular groups) trait filters applied there too; Python then combines
those sets per tree. A
provider is never visited by a per-provider query.

With a limit, the candidates answered are those of the first trees by
provider id -- or, with ``[placement] randomize_allocation_candidates``
(``Request.randomize``), of trees drawn at random among all that fit.
"""

import collections
import itertools
import random

import sqlalchemy as sa

from nova_lite.placement import aggregates
from nova_lite.placement import capacity
from nova_lite.placement import db
from nova_lite.placement import traits as traits_db

P = db.PROVIDERS
INV = db.INVENTORIES
PT = db.PROVIDER_TRAITS
PA = db.PROVIDER_AGGREGATES


class RequestGroup:
    """One group of a request; ``suffix`` '' is the unsuffixed group."""

    def __init__(self, suffix='', resources=None, required=(), forbidden=(),
                 member_of=(), in_tree=None, any_of=()):
        self.suffix = suffix
        self.resources = dict(resources or {})   # {class id: amount}
        self.required = set(required)            # trait ids
        self.any_of = [set(ids) for ids in any_of]   # one of each set
        self.forbidden = set(forbidden)          # trait ids
        self.member_of = list(member_of)         # [(agg uuids, forbidden)]
        self.in_tree = in_tree                   # root provider id or None

    @property
    def use_same_provider(self):
        return self.suffix != ''


class Request:

    def __init__(self, groups, group_policy=None, limit=None,
                 root_required=(), root_forbidden=(), same_subtree=(),
                 randomize=False, max_candidates=None, breadth_first=False,
                 nested_aware=True):
        self.groups = groups
        self.group_policy = group_policy
        self.limit = limit
        # With a limit: a random sample of what fits, not the first.
        self.randomize = randomize
        # [placement] max_allocation_candidates: no request makes more,
        # whatever its limit (None: no cap).
        self.max_candidates = max_candidates
        # Take one candidate from each tree in turn rather than every
        # candidate of a tree before the next.
        self.breadth_first = breadth_first
        # Before 1.29 a candidate takes from one provider per tree: those
        # spread over a tree are left out.
        self.nested_aware = nested_aware
        self.root_required = set(root_required)
        self.root_forbidden = set(root_forbidden)
        self.same_subtree = [set(s) for s in same_subtree]

    @property
    def cap(self):
        """How many candidates to make at most (None: all)."""
        caps = [n for n in (self.limit, self.max_candidates) if n]
        return min(caps) if caps else None


class Result:
    """Candidates as provider ids, with what the summaries need."""

    def __init__(self):
        # [( {provider id: {class id: amount}}, {suffix: [provider ids]} )]
        self.allocation_requests = []
        # {id: TreeRow} of every provider of the candidate trees.
        self.tree_rows = {}
        # Filled when the search read them already (else summaries() does):
        # {id: {class id: (capacity, used, max_unit)}}, {id: {trait ids}}.
        self.capacities = None
        self.trait_ids = None


# -- SQL ---------------------------------------------------------------------

def _group_filters(connection, group, provider_id, with_traits,
                   flat=False):
    """WHERE clauses on ``provider_id`` for the group's tree, aggregates and
    (granular groups) traits. The unsuffixed group's aggregates are
    those of a provider's root too (``flat``: every provider is a root)."""
    clauses = []
    if group.in_tree is not None:
        clauses.append(provider_id.in_(
            sa.select(P.c.id).where(P.c.root_provider_id == group.in_tree)))
    clauses.extend(aggregates.member_of_clause(
        connection, provider_id, group.member_of,
        through_root=not (group.use_same_provider or flat)))
    if with_traits:
        for trait_id in sorted(group.required):
            clauses.append(provider_id.in_(
                sa.select(PT.c.resource_provider_id).where(
                    PT.c.trait_id == trait_id)))
        for trait_ids in group.any_of:
            clauses.append(provider_id.in_(
                sa.select(PT.c.resource_provider_id).where(
                    PT.c.trait_id.in_(sorted(trait_ids)))))
        if group.forbidden:
            clauses.append(provider_id.not_in(
                sa.select(PT.c.resource_provider_id).where(
                    PT.c.trait_id.in_(sorted(group.forbidden)))))
    return clauses


def _id_pairs(connection, query):
    """{first column: second column} of a two-integer-column query."""
    return dict(db.packed_ints(connection, query))


def _providers_by_class(connection, group):
    """{class id: {provider id: root id}} of the providers able to take
    the group's amount of each of its classes (and, for a granular group,
    with its traits): one query for all of them, a row per class a
    provider has room for."""
    fits = sa.or_(*(sa.and_(INV.c.resource_class_id == class_id,
                            *capacity.fits_sql(amount))
                    for class_id, amount in sorted(group.resources.items())))
    query = (sa.select(INV.c.resource_class_id, INV.c.resource_provider_id,
                       P.c.root_provider_id)
             .select_from(INV.join(P, P.c.id == INV.c.resource_provider_id))
             .where(fits))
    for clause in _group_filters(connection, group, INV.c.resource_provider_id,
                                 group.use_same_provider):
        query = query.where(clause)
    found = {class_id: {} for class_id in group.resources}
    for class_id, provider_id, root_id in db.packed_ints(connection, query):
        found[class_id][provider_id] = root_id
    return found


def _providers_matching(connection, group):
    """{provider id: root id} for a resourceless group (traits etc.)."""
    query = sa.select(P.c.id, P.c.root_provider_id)
    for clause in _group_filters(connection, group, P.c.id, True):
        query = query.where(clause)
    return _id_pairs(connection, query)


def _sharing_anchors(connection, candidate_ids):
    """{sharing provider id: set of root ids it serves} among candidates."""
    trait_id = traits_db.ids_of(
        connection, [traits_db.SHARES_VIA_AGGREGATE])[
            traits_db.SHARES_VIA_AGGREGATE]
    sharing = {int(row[0]) for row in db.packed_rows(
        connection, sa.select(PT.c.resource_provider_id).where(
            PT.c.trait_id == trait_id))} & set(candidate_ids)
    if not sharing:
        return {}
    mine = PA.alias('mine')
    theirs = PA.alias('theirs')
    rows = db.packed_rows(
        connection,
        sa.select(mine.c.resource_provider_id, P.c.root_provider_id)
        .select_from(mine.join(theirs,
                               theirs.c.aggregate_id == mine.c.aggregate_id)
                     .join(P, P.c.id == theirs.c.resource_provider_id))
        .where(mine.c.resource_provider_id.in_(sorted(sharing)))
        .distinct())
    anchors = {provider_id: set() for provider_id in sharing}
    for sharing_id, root_id in rows:
        anchors[int(sharing_id)].add(int(root_id))
    return anchors


class TreeRow:
    __slots__ = ('id', 'uuid', 'parent_provider_id', 'root_provider_id')

    def __init__(self, id, uuid, parent_provider_id, root_provider_id):
        self.id = id
        self.uuid = uuid
        self.parent_provider_id = parent_provider_id
        self.root_provider_id = root_provider_id


def _tree_rows(connection, root_ids):
    """{id: TreeRow} of every provider in the trees of ``root_ids``."""
    rows = {}
    for chunk in db.chunks(sorted(root_ids), 5000):
        for pid, uuid, parent, root in db.packed_rows(
                connection,
                sa.select(P.c.id, P.c.uuid, P.c.parent_provider_id,
                          P.c.root_provider_id)
                .where(db.in_ids(P.c.root_provider_id, chunk)),
                cache=False):
            pid = int(pid)
            rows[pid] = TreeRow(pid, uuid, int(parent) if parent else None,
                                int(root))
    return rows


def _capacities(connection, provider_ids):
    """{provider id: {class id: (capacity, used, max_unit)}}, the capacity
    worked out by the database (``capacity.capacity_sql``): five integers
    a row to read instead of seven numbers and a sum."""
    result = collections.defaultdict(dict)
    room = sa.cast(capacity.capacity_sql(INV), sa.Integer)
    for chunk in db.chunks(sorted(provider_ids), 5000):
        query = (sa.select(INV.c.resource_provider_id, INV.c.resource_class_id,
                           room, INV.c.used, INV.c.max_unit)
                 .where(db.in_ids(INV.c.resource_provider_id, chunk)))
        for pid, cid, capacity_, used, max_unit in db.packed_ints(
                connection, query, cache=False):
            result[pid][cid] = (capacity_, used, max_unit)
    return result


# -- search ------------------------------------------------------------------

def _world(connection, class_ids):
    """(whether some provider has a parent, whether some provider shares
    its resources, whether a provider with a parent has an inventory of
    any of ``class_ids``): with none of these every candidate is a single
    provider, and without sharing providers no tree is served from
    outside it. One statement."""
    shares = traits_db.ids_of(connection, [traits_db.SHARES_VIA_AGGREGATE])[
        traits_db.SHARES_VIA_AGGREGATE]
    nested = sa.exists().where(P.c.parent_provider_id.is_not(None))
    sharing = sa.exists().where(PT.c.trait_id == shares)
    below_roots = sa.exists().select_from(
        INV.join(P, P.c.id == INV.c.resource_provider_id)).where(
            INV.c.resource_class_id.in_(sorted(class_ids)),
            P.c.parent_provider_id.is_not(None))
    return tuple(bool(v) for v in connection.execute(
        sa.select(nested, sharing, below_roots)).one())


def _packed_inventory(inventories):
    """GROUP_CONCAT of 'class/capacity/used/max_unit' of ``inventories``'
    rows, ';' between them (``_inventory_of`` reads it back)."""
    return db.group_concat(db.as_text(
        inventories.c.resource_class_id,
        sa.cast(capacity.capacity_sql(inventories), sa.Integer),
        inventories.c.used, inventories.c.max_unit, sep='/'),
        db.separator(';'))


def _inventory_of(text):
    """{class id: (capacity, used, max_unit)} from ``_packed_inventory``'s
    text ('' for none)."""
    classes = {}
    for item in text.split(';') if text else ():
        cid, room, used, max_unit = item.split('/')
        classes[int(cid)] = (int(room), int(used), int(max_unit))
    return classes


def _packed_traits_of_provider():
    """The trait ids of the provider ``P.c.id`` (a correlated subquery),
    '/' between them (``_trait_ids_of`` reads them back)."""
    return (sa.select(db.group_concat(sa.cast(PT.c.trait_id, sa.String),
                                      db.separator('/')))
            .where(PT.c.resource_provider_id == P.c.id).scalar_subquery())


def _trait_ids_of(text):
    return {int(t) for t in text.split('/')}


def _find_single_providers(connection, request, group):
    """The whole search in one statement when every candidate is one
    provider: one pass over the requested classes' inventories (covered
    by ``inventories_class_capacity_idx``), grouped by provider, keeping
    the providers with room for every class (and the group's traits,
    aggregates and tree, and the root traits)."""
    amounts = group.resources
    wanted = lambda: sa.case(amounts, value=INV.c.resource_class_id)  # noqa
    per_provider = (
        sa.select(INV.c.resource_provider_id.label('id'),
                  _packed_inventory(INV).label('inventory'))
        .where(INV.c.resource_class_id.in_(sorted(amounts)),
               capacity.capacity_sql(INV) - INV.c.used >= wanted(),
               INV.c.min_unit <= wanted(), INV.c.max_unit >= wanted(),
               wanted() % INV.c.step_size == 0))
    root_group = RequestGroup(required=request.root_required,
                              forbidden=request.root_forbidden)
    for clause in (_group_filters(connection, group,
                                  INV.c.resource_provider_id, True,
                                  flat=True) +
                   _group_filters(connection, root_group,
                                  INV.c.resource_provider_id, True,
                                  flat=True)):
        per_provider = per_provider.where(clause)
    per_provider = (per_provider.group_by(INV.c.resource_provider_id)
                    .having(sa.func.count() == len(amounts)))
    # A flat answer is at most one candidate per provider: the cap is
    # applied in SQL only with a limit (else the first by provider, below).
    if request.limit:
        per_provider = per_provider.order_by(
            _random_order(connection) if request.randomize
            else INV.c.resource_provider_id).limit(request.cap)
    per_provider = per_provider.subquery()
    # The providers' other classes (for the summaries) and traits, as
    # correlated subqueries: the whole answer in one round trip.
    other = INV.alias('other')
    others = (sa.select(_packed_inventory(other))
              .where(other.c.resource_provider_id == P.c.id,
                     other.c.resource_class_id.not_in(sorted(amounts)))
              .scalar_subquery())
    query = (sa.select(P.c.id, P.c.uuid, per_provider.c.inventory, others,
                       _packed_traits_of_provider())
             .select_from(per_provider.join(P,
                                            P.c.id == per_provider.c.id)))
    result = Result()
    result.capacities = limits = {}
    result.trait_ids = traits = {}
    for pid, uuid, inventory, extra, trait_list in db.packed_rows(
            connection, query):
        pid = int(pid)
        result.tree_rows[pid] = TreeRow(pid, uuid, None, pid)
        limits[pid] = _inventory_of(inventory + ';' + extra if extra
                                    else inventory)
        if trait_list:
            traits[pid] = _trait_ids_of(trait_list)
    result.allocation_requests = [({pid: amounts}, {'': [pid]})
                                  for pid in sorted(limits)[:request.cap]]
    return result


def _add_descendants(connection, result):
    """Add to a ``result`` whose candidates are all roots the other
    providers of their trees -- their rows, inventories and traits --
    which the summaries describe (from 1.29): one read per 5,000 trees."""
    inventory = (sa.select(_packed_inventory(INV))
                 .where(INV.c.resource_provider_id == P.c.id)
                 .scalar_subquery())
    roots = {p for allocations, _m in result.allocation_requests
             for p in allocations}
    for chunk in db.chunks(sorted(roots), 5000):
        query = (sa.select(P.c.id, P.c.uuid, P.c.parent_provider_id,
                           P.c.root_provider_id, inventory,
                           _packed_traits_of_provider())
                 .where(db.in_ids(P.c.root_provider_id, chunk),
                        P.c.parent_provider_id.is_not(None)))
        for pid, uuid, parent, root, inventory_text, trait_list in \
                db.packed_rows(connection, query, cache=False):
            pid = int(pid)
            result.tree_rows[pid] = TreeRow(pid, uuid, int(parent),
                                            int(root))
            result.capacities[pid] = _inventory_of(inventory_text)
            if trait_list:
                result.trait_ids[pid] = _trait_ids_of(trait_list)
    return result


def _random_order(connection):
    return sa.func.rand() if db.is_mysql(connection) else sa.func.random()


def find(connection, request):
    """The Result for ``request`` (limited to ``request.limit``)."""
    group = request.groups[0] if len(request.groups) == 1 else None
    single = group is not None and not group.suffix and group.resources
    nested, sharing, below_roots = _world(
        connection, group.resources if single else ())
    if single and not (sharing or below_roots):
        # Only roots have what is asked for (in a nested world, say, a
        # flavor's classes where the children hold bandwidth): every
        # candidate is one root, found as in a flat world.
        found = _find_single_providers(connection, request, group)
        if nested and request.nested_aware:
            _add_descendants(connection, found)
        return found
    result = Result()
    # Per group: for granular ones {provider: root} satisfying the whole
    # group; for the unsuffixed one {class id: {provider: root}}.
    granular, spread = {}, {}
    candidates = {}
    for group in request.groups:
        if group.use_same_provider:
            if group.resources:
                # The providers with room for every class of the group.
                by_class = list(_providers_by_class(connection,
                                                    group).values())
                found = {k: v for k, v in by_class[0].items()
                         if all(k in ids for ids in by_class[1:])}
            else:
                found = _providers_matching(connection, group)
            if not found:
                return result
            granular[group.suffix] = found
            candidates.update(found)
        elif group.resources:
            spread = _providers_by_class(connection, group)
            if not all(spread.values()):
                return result
            for found in spread.values():
                candidates.update(found)
    unsuffixed = next((g for g in request.groups if not g.suffix), None)

    anchors = _sharing_anchors(connection, candidates) if sharing else {}
    # Which trees a provider can serve: its own, and for a sharing
    # provider every tree anchored to it.
    serves = {provider_id: {root_id} | anchors[provider_id]
              for provider_id, root_id in candidates.items()
              if provider_id in anchors}

    # Classes asked for by more than one group may land twice on one
    # provider: those combinations need their sum checked.
    class_groups = collections.Counter(
        class_id for g in request.groups for class_id in g.resources)
    shared_classes = {c for c, n in class_groups.items() if n > 1}
    limits = _capacities(connection, candidates) if shared_classes else {}

    tree_rows = _tree_rows(connection, set(candidates.values()))
    need_traits = bool(request.root_required or request.root_forbidden or
                       (unsuffixed and (unsuffixed.required or
                                        unsuffixed.any_of or
                                        unsuffixed.forbidden)))
    provider_traits = {}
    if need_traits:
        provider_traits = _trait_ids(connection, set(tree_rows))

    # An unsuffixed group without resources still names the tree.
    only_tree = unsuffixed.in_tree if unsuffixed is not None and \
        not unsuffixed.resources else None
    roots = set(candidates.values())
    for trees in serves.values():
        roots.update(trees)
    roots = sorted(roots)
    if request.limit and request.randomize:
        random.shuffle(roots)

    # What each choice of a candidate is: a granular group (its suffix and
    # all its resources) or one class of the unsuffixed group (suffix '');
    # with the providers able to take it in each tree, in id order.
    groups = {g.suffix: g for g in request.groups}
    option_sets = [((suffix, groups[suffix].resources), found)
                   for suffix, found in sorted(granular.items())]
    option_sets += [(('', {class_id: unsuffixed.resources[class_id]}), found)
                    for class_id, found in sorted(spread.items())]
    option_trees = []
    for (suffix, resources), found in option_sets:
        choices = collections.defaultdict(list)
        for provider_id in sorted(found):
            for root_id in serves.get(provider_id) or (found[provider_id],):
                choices[root_id].append(provider_id)
        option_trees.append((suffix, resources, choices))

    def tree_candidates(root_id):
        if root_id not in tree_rows or (only_tree is not None and
                                        root_id != only_tree):
            return
        if request.root_required or request.root_forbidden:
            root_traits = provider_traits.get(root_id, set())
            if not request.root_required <= root_traits or \
                    request.root_forbidden & root_traits:
                return
        options = []
        for suffix, resources, choices_by_tree in option_trees:
            choices = choices_by_tree.get(root_id)
            if not choices:
                return
            options.append((suffix, resources, choices))
        yield from _combinations(request, options, tree_rows, limits,
                                 shared_classes, unsuffixed, provider_traits)

    per_tree = (tree_candidates(root_id) for root_id in roots)
    made = _round_robin(list(per_tree)) if request.breadth_first else \
        itertools.chain.from_iterable(per_tree)
    # A sharing provider serves several trees: the same request may come
    # out of each of them.
    seen = set()
    cap = request.cap
    for candidate in made:
        if not request.nested_aware and _spread_in_a_tree(candidate,
                                                          tree_rows):
            continue
        if anchors:
            key = _key(candidate)
            if key in seen:
                continue
            seen.add(key)
        result.allocation_requests.append(candidate)
        if cap and len(result.allocation_requests) >= cap:
            break
    result.tree_rows = tree_rows
    return result


def _spread_in_a_tree(candidate, tree_rows):
    roots = [tree_rows[p].root_provider_id if p in tree_rows else p
             for p in candidate[0]]
    return len(roots) != len(set(roots))


def _round_robin(iterators):
    """One item of each iterator in turn, until all are spent."""
    while iterators:
        alive = []
        for iterator in iterators:
            item = next(iterator, _SPENT)
            if item is not _SPENT:
                alive.append(iterator)
                yield item
        iterators = alive


_SPENT = object()


def _trait_ids(connection, provider_ids):
    """{provider id: set of trait ids}."""
    found = collections.defaultdict(set)
    for chunk in db.chunks(sorted(provider_ids), 5000):
        for provider_id, trait_id in db.packed_ints(
                connection,
                sa.select(PT.c.resource_provider_id, PT.c.trait_id)
                .where(db.in_ids(PT.c.resource_provider_id, chunk)),
                cache=False):
            found[provider_id].add(trait_id)
    return found


def _key(candidate):
    allocations, mappings = candidate
    return (tuple(sorted((p, tuple(sorted(r.items())))
                         for p, r in allocations.items())),
            tuple(sorted((s, tuple(ps)) for s, ps in mappings.items())))


def _is_ancestor_or_self(tree_rows, ancestor, provider):
    while provider is not None:
        if provider == ancestor:
            return True
        row = tree_rows.get(provider)
        provider = row.parent_provider_id if row is not None else None
    return False


def _combinations(request, options, tree_rows, limits, shared_classes,
                  unsuffixed, provider_traits):
    """Every acceptable (allocations, mappings) from one tree's options:
    [(suffix, resources, providers able to take them)]."""
    isolate = request.group_policy == 'isolate'
    trait_bound = unsuffixed is not None and bool(
        unsuffixed.required or unsuffixed.any_of or unsuffixed.forbidden)
    for choice in itertools.product(*(c for _s, _r, c in options)):
        allocations = {}
        mappings = {}
        for (suffix, resources, _c), provider_id in zip(options, choice):
            chosen = mappings.get(suffix)
            if chosen is None:
                mappings[suffix] = [provider_id]
            elif suffix or provider_id not in chosen:
                chosen.append(provider_id)
            if not resources:
                continue   # a resourceless group names a provider only
            held = allocations.get(provider_id)
            if held is None:
                allocations[provider_id] = dict(resources)
            else:
                for class_id, amount in resources.items():
                    held[class_id] = held.get(class_id, 0) + amount
        if isolate:
            granular_providers = [p for suffix, ps in mappings.items()
                                  if suffix for p in ps]
            if len(set(granular_providers)) != len(granular_providers):
                continue
        if shared_classes and not _fits_merged(allocations, limits,
                                               shared_classes):
            continue
        if trait_bound:
            used = mappings.get('') or list(allocations)
            present = set().union(*(provider_traits.get(p, set())
                                    for p in used))
            if not unsuffixed.required <= present or \
                    unsuffixed.forbidden & present or \
                    not all(ids & present for ids in unsuffixed.any_of):
                continue
        if request.same_subtree and not _same_subtree_holds(
                request, mappings, tree_rows):
            continue
        yield allocations, mappings


def _fits_merged(allocations, limits, shared_classes):
    for provider_id, resources in allocations.items():
        for class_id, amount in resources.items():
            if class_id not in shared_classes:
                continue
            room, used, max_unit = limits.get(provider_id, {}).get(
                class_id, (0, 0, 0))
            if used + amount > room or amount > max_unit:
                return False
    return True


def _same_subtree_holds(request, mappings, tree_rows):
    for suffixes in request.same_subtree:
        chosen = [p for s in suffixes for p in mappings.get(s, [])]
        if not chosen:
            continue
        if not any(all(_is_ancestor_or_self(tree_rows, top, p)
                       for p in chosen) for top in chosen):
            return False
    return True


def summaries(connection, result, all_classes, requested_classes,
              whole_trees):
    """{provider id: {class id: (capacity, used, max_unit)}} and {id:
    trait names} for the providers the response describes."""
    involved = {p for allocations, _m in result.allocation_requests
                for p in allocations}
    involved |= {p for _a, mappings in result.allocation_requests
                 for ps in mappings.values() for p in ps}
    if whole_trees:
        roots = {result.tree_rows[p].root_provider_id for p in involved
                 if p in result.tree_rows}
        involved |= {p for p, row in result.tree_rows.items()
                     if row.root_provider_id in roots}
    limits = result.capacities
    if limits is None:
        limits = _capacities(connection, involved)
    # The capacities' own maps where every class is shown (no copy of a
    # thousand small dicts per request).
    if all_classes:
        view = {p: limits.get(p, {}) for p in involved}
    else:
        view = {p: {c: v for c, v in limits.get(p, {}).items()
                    if c in requested_classes} for p in involved}
    trait_ids = result.trait_ids
    if trait_ids is None:
        trait_ids = _trait_ids(connection, involved)
    by_id = traits_db.names_by_id(connection, set().union(
        *trait_ids.values()) if trait_ids else set())
    # In the order the traits were made (standard ones first), as
    # OpenStack Placement lists them.
    names = {p: [by_id[t] for t in sorted(ids) if t in by_id]
             for p, ids in trait_ids.items()}
    return view, names
