"""The placement service the oracle's Nova talks to, answered in-process.

Nova's scheduler reaches placement through its report client, which sends
``GET /allocation_candidates?<query>`` and claims with ``GET`` then ``PUT
/allocations/{consumer}``. ``EmulatedPlacement`` is handed to that client
as its HTTP adapter, so Nova builds its own query string (from its own
request filters and ``resources_from_request_spec``) and this module
answers it the way placement would for providers that are each a single
compute node (no nested providers, no sharing providers).

A host row of a case becomes one resource provider:

- uuid: the row's ``uuid`` (else one derived from host and node);
- inventory, each ``{total, reserved, allocation_ratio}``, with placement's
  capacity ``(total - reserved) * allocation_ratio`` and ``max_unit`` the
  total:

  - VCPU: total ``vcpus``, reserved ``reserved_host_cpus``, ratio
    ``cpu_allocation_ratio``;
  - MEMORY_MB: total ``memory_mb``, reserved ``reserved_host_memory_mb``,
    ratio ``ram_allocation_ratio``;
  - DISK_GB: total ``local_gb``, reserved ``reserved_host_disk_mb`` in GB
    rounded up, ratio ``disk_allocation_ratio``.

  A row without them has what a compute of Nova's default configuration
  reports: the reserved amounts of ``[DEFAULT] reserved_host_*`` (0 vCPUs,
  512 MB, 0 MB) and the ratios ``[DEFAULT] *_allocation_ratio``, else
  ``initial_*_allocation_ratio`` (4.0, 1.0, 1.0);
- usage, the instances' allocations: what the compute node counts as used
  less what it reserves -- VCPU ``vcpus_used - reserved``, MEMORY_MB
  ``memory_mb - free_ram_mb - reserved``, DISK_GB ``local_gb - free_disk_gb
  - reserved``. A row without ``vcpus_used``, ``free_ram_mb`` or
  ``free_disk_gb`` has no instances: the reserved amounts are its only use;
- traits: the row's ``traits``, plus ``OWNER_NOVA`` (every Nova 34 compute
  reports it) and ``COMPUTE_STATUS_DISABLED`` when the row's service is
  disabled (the compute sets it on its provider when its service is);
- aggregates: the uuids of the case's aggregates the host is in (Nova
  mirrors a host aggregate's membership into placement).

A provider is a candidate when every requested class has room
(``used + amount <= capacity`` and ``amount <= max_unit``), it has every
required trait and no forbidden one (``required``, ``root_required``, with
``in:`` any-of lists), it is in one of each ``member_of`` list's aggregates
and in none of a ``!``-forbidden one, and it is the ``in_tree`` provider if
one is named. Candidates come in the case's host order (placement's order
of creation), the first ``limit`` of them. A claim (``PUT
/allocations/{consumer}``) is refused with a 409, as placement refuses it,
when it no longer fits: claims of the same request add up.
"""

import functools
import json
import time
import urllib.parse
import uuid


class Provider:
    """One compute node's resource provider."""

    def __init__(self, uuid_, inventory, used, traits, aggregates):
        self.uuid = uuid_
        self.inventory = inventory  # {class: (total, reserved, ratio)}
        self.used = dict(used)
        self.initial_used = dict(used)
        self.traits = set(traits)
        self.aggregates = set(aggregates)

    def capacity(self, rc):
        # (Placement compares with the product itself, not rounded.)
        total, reserved, ratio = self.inventory[rc]
        return (total - reserved) * ratio

    def fits(self, resources):
        for rc, amount in resources.items():
            if rc not in self.inventory:
                return False
            total = self.inventory[rc][0]
            if amount > total or \
                    self.used.get(rc, 0) + amount > self.capacity(rc):
                return False
        return True


class Response:
    """What keystoneauth's adapter would hand the report client."""

    def __init__(self, status_code, body=None):
        self.status_code = status_code
        self._body = body
        self.text = json.dumps(body) if body is not None else ''
        self.headers = {}

    def json(self):
        return self._body


class UnsupportedQuery(Exception):
    """The query asks for something this emulation does not model."""


def _split_traits(value):
    """(all of, any-of lists, none of) from a required/root_required
    value: ``A,!B`` or ``in:A,C``."""
    required, any_of, forbidden = set(), [], set()
    if value.startswith('in:'):
        any_of.append(set(value[3:].split(',')))
        return required, any_of, forbidden
    for trait in value.split(','):
        if trait.startswith('!'):
            forbidden.add(trait[1:])
        elif trait:
            required.add(trait)
    return required, any_of, forbidden


class Query:
    """A parsed ``GET /allocation_candidates`` query string (one unnumbered
    request group only)."""

    def __init__(self, querystring):
        self.resources = {}
        self.required, self.any_of, self.forbidden = set(), [], set()
        self.member_of = []  # [set of aggregate uuids], each must match one
        self.not_member_of = set()
        self.in_tree = None
        self.limit = None
        for key, value in urllib.parse.parse_qsl(querystring):
            if key == 'limit':
                self.limit = int(value)
            elif key == 'resources':
                for part in value.split(','):
                    rc, amount = part.split(':')
                    self.resources[rc] = int(amount)
            elif key in ('required', 'root_required'):
                # Single providers: root and group traits are the same.
                required, any_of, forbidden = _split_traits(value)
                self.required |= required
                self.any_of += any_of
                self.forbidden |= forbidden
            elif key == 'member_of':
                if value.startswith('!'):
                    value = value[1:]
                    if value.startswith('in:'):
                        value = value[3:]
                    self.not_member_of |= set(value.split(','))
                else:
                    if value.startswith('in:'):
                        value = value[3:]
                    self.member_of.append(set(value.split(',')))
            elif key == 'in_tree':
                self.in_tree = value
            elif key == 'group_policy':
                pass
            else:
                raise UnsupportedQuery('allocation candidates query '
                                       'parameter %s=%s' % (key, value))

    def admits(self, provider):
        if self.in_tree is not None and provider.uuid != self.in_tree:
            return False
        if not self.required <= provider.traits or \
                self.forbidden & provider.traits:
            return False
        if any(not (choice & provider.traits) for choice in self.any_of):
            return False
        if any(not (aggs & provider.aggregates) for aggs in self.member_of):
            return False
        if self.not_member_of & provider.aggregates:
            return False
        return provider.fits(self.resources)


def _timed(method):
    """Count the time spent in ``method`` into ``self.seconds``."""
    @functools.wraps(method)
    def timed(self, *args, **kwargs):
        began = time.perf_counter()
        try:
            return method(self, *args, **kwargs)
        finally:
            self.seconds += time.perf_counter() - began
    return timed


class EmulatedPlacement:
    """A keystoneauth-adapter look-alike that answers the report client.
    ``seconds`` is the time spent answering since the last ``reset()``."""

    def __init__(self, providers):
        self.providers = providers  # in the case's order
        self.by_uuid = {p.uuid: p for p in providers}
        self.consumers = {}
        self.queries = []
        self.seconds = 0.0

    def reset(self):
        """Forget the claims: every run starts from the case's usage."""
        for provider in self.providers:
            provider.used = dict(provider.initial_used)
        self.consumers = {}
        self.queries = []
        self.seconds = 0.0

    # -- the HTTP verbs the report client calls ---------------------------

    @_timed
    def get(self, url, microversion=None, global_request_id=None, **kw):
        path, _sep, querystring = url.partition('?')
        if path == '/allocation_candidates':
            return Response(200, self._candidates(querystring))
        if path.startswith('/allocations/'):
            consumer = path[len('/allocations/'):]
            held = self.consumers.get(consumer)
            if held is None:
                return Response(200, {'allocations': {}})
            return Response(200, {
                'allocations': {rp: {'resources': res}
                                for rp, res in held.items()},
                'consumer_generation': 1})
        raise UnsupportedQuery('GET %s' % url)

    @_timed
    def put(self, url, json=None, microversion=None, global_request_id=None,
            **kw):
        if not url.startswith('/allocations/'):
            raise UnsupportedQuery('PUT %s' % url)
        consumer = url[len('/allocations/'):]
        wanted = {rp: dict(alloc['resources'])
                  for rp, alloc in json['allocations'].items()}
        self._release(consumer)
        for rp, resources in wanted.items():
            if not self.by_uuid[rp].fits(resources):
                return Response(409, {'errors': [{
                    'status': 409, 'code': 'placement.undefined_code',
                    'title': 'Conflict',
                    'detail': 'Unable to allocate inventory: the '
                              'provider %s has no room left' % rp}]})
        for rp, resources in wanted.items():
            provider = self.by_uuid[rp]
            for rc, amount in resources.items():
                provider.used[rc] = provider.used.get(rc, 0) + amount
        self.consumers[consumer] = wanted
        return Response(204)

    @_timed
    def delete(self, url, microversion=None, global_request_id=None, **kw):
        if not url.startswith('/allocations/'):
            raise UnsupportedQuery('DELETE %s' % url)
        self._release(url[len('/allocations/'):])
        return Response(204)

    def post(self, url, json=None, microversion=None, global_request_id=None,
             **kw):
        raise UnsupportedQuery('POST %s' % url)

    # -- placement's answers ----------------------------------------------

    def _release(self, consumer):
        for rp, resources in self.consumers.pop(consumer, {}).items():
            provider = self.by_uuid[rp]
            for rc, amount in resources.items():
                provider.used[rc] -= amount

    def _candidates(self, querystring):
        query = Query(querystring)
        self.queries.append(querystring)
        chosen = [p for p in self.providers if query.admits(p)]
        if query.limit is not None:
            chosen = chosen[:query.limit]
        requests, summaries = [], {}
        for provider in chosen:
            requests.append({
                'allocations': {provider.uuid: {
                    'resources': dict(query.resources)}},
                'mappings': {'': [provider.uuid]}})
            summaries[provider.uuid] = {
                'resources': {rc: {'capacity': int(provider.capacity(rc)),
                                   'used': provider.used.get(rc, 0)}
                              for rc in provider.inventory},
                'traits': sorted(provider.traits),
                'parent_provider_uuid': None,
                'root_provider_uuid': provider.uuid}
        return {'allocation_requests': requests,
                'provider_summaries': summaries}


def provider_uuid(host, node):
    """A stable uuid for a host row that names none."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL,
                          'nova-oracle:%s:%s' % (host, node)))
