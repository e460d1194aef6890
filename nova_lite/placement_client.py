"""The one client of the Placement API, for every service that talks to
placement: computes and the port service report providers, inventories
and allocations with it; the scheduler and the conductor find allocation
candidates and claim, move and give back allocations. It imports none of
them.

It speaks the public wire format over HTTP, so ``[placement] endpoint`` can
name our placement daemon or any other Placement service. Generation
conflicts are retried a bounded number of times; an unreachable or failing
service raises PlacementUnavailable, which callers treat as "try again
next period" rather than a crash.

A compute's client caches its providers (``cache_providers``), as Nova's
report client keeps a provider tree: what it last read or wrote of a
provider -- that it exists, its inventory, its traits, the sharing
providers of its aggregates -- is trusted for ``[compute]
resource_provider_association_refresh`` seconds, so that an idle audit
asks placement nothing about it and writes only what changed. Any request
about the provider that fails (placement away, a 404, a generation
conflict) forgets what is cached of it.
"""

import contextlib
import copy
import time

from oslo_log import log as logging
from nova_lite import conf as nova_conf
from nova_lite import exception
from nova_lite import service_auth

CONF = nova_conf.CONF
LOG = logging.getLogger(__name__)

MICROVERSION = '1.28'  # consumer generations
# The highest microversion any request here sends (root_required on
# allocation candidates): a Placement older than this cannot serve us.
REQUIRED_VERSION = '1.35'
# A consumer's generation after its first allocations are written.
NEW_CONSUMER_GENERATION = 1
CONFLICT_RETRIES = 4


class PlacementUnavailable(exception.NovaLiteException):
    msg_fmt = 'Placement is unavailable: %(reason)s'
    code = 503


class PlacementConflict(exception.NovaLiteException):
    msg_fmt = 'Placement refused the request: %(reason)s'
    code = 409


class PlacementBadRequest(PlacementConflict):
    """Placement refused a query as malformed (400), e.g. one naming a
    trait it does not know: asking again will not help."""
    msg_fmt = 'Placement refused the query: %(reason)s'


class ProviderNotFound(PlacementConflict):
    msg_fmt = 'Placement has no resource provider %(uuid)s'
    code = 404


class ConsumerExists(PlacementConflict):
    """A claim for a consumer that already holds allocations: an earlier
    request for it claimed them (its answer was lost, or it is still
    running). ``held`` is what it holds (GET /allocations/{consumer})."""
    msg_fmt = 'Consumer %(consumer)s holds allocations already'

    def __init__(self, held=None, **kwargs):
        super().__init__(**kwargs)
        self.held = held or {}


class PlacementTooOld(exception.ConfigurationError):
    msg_fmt = ('The Placement service at %(url)s offers microversions up '
               'to %(found)s; nova_lite needs %(needed)s or later '
               '(Placement 3.0.0, Ussuri, or any release since)')


def _version_tuple(text):
    major, minor = text.split('.')
    return int(major), int(minor)


class ConsumerChanged(PlacementConflict):
    """A write checked against a consumer generation that is no longer
    the consumer's: its allocations were written since they were read."""
    msg_fmt = 'The allocations of %(consumer)s changed since they were read'


class ProviderRecord:
    """What a caching client last read from placement, or wrote to it,
    about one resource provider, and when it read the provider itself.
    None (or absent from ``sharing``) is not known: placement is asked."""

    def __init__(self, provider, read_at):
        self.provider = provider  # as GET /resource_providers/{uuid} shows
        self.read_at = read_at  # the client's clock
        self.inventory = None  # {resource class: inventory}
        self.traits = None  # set
        # (resource class, amount) pairs asked for -> the providers sharing
        # them through the provider's aggregates, best first.
        self.sharing = {}


def _error_code(response):
    try:
        return response.json()['errors'][0].get('code')
    except (ValueError, KeyError, IndexError, TypeError):
        return None


def _error_detail(response):
    try:
        return response.json()['errors'][0].get('detail')
    except (ValueError, KeyError, IndexError, TypeError):
        return response.text[:200]


class PlacementClient:

    def __init__(self, endpoint=None, cache_providers=False):
        """``endpoint`` overrides the configured one (tests).
        ``cache_providers``: keep a ProviderRecord of each provider this
        client ensures, trusted until it is ``[compute]
        resource_provider_association_refresh`` seconds old (a compute's
        audit); otherwise every call asks placement."""
        self.adapter = service_auth.adapter(
            'placement', nova_conf.placement.DEFAULT_ENDPOINT, endpoint)
        # The HTTP connections underneath (tests mount transports on it).
        self.session = self.adapter.session.session
        self.headers = {
            'OpenStack-API-Version': 'placement %s' % MICROVERSION,
            'Accept': 'application/json'}
        # Provider generations we last saw, to send with updates.
        self._generations = {}
        # uuid -> ProviderRecord; None when this client caches nothing.
        self._providers = {} if cache_providers else None
        # Ages the records (tests turn it by hand).
        self.clock = time.monotonic
        # The custom traits this client has defined (define_traits).
        self._defined_traits = set()

    # -- transport -----------------------------------------------------------

    def _request(self, method, path, body=None, version=None, **kwargs):
        headers = self.headers
        if version:
            headers = dict(headers, **{
                'OpenStack-API-Version': 'placement %s' % version})
        try:
            response = self.adapter.request(
                path, method, json=body, headers=headers, raise_exc=False,
                global_request_id=service_auth.global_request_id(), **kwargs)
        except service_auth.ClientException as e:
            raise PlacementUnavailable(reason='%s %s: %s' %
                                       (method, path, e))
        if response.status_code >= 500:
            raise PlacementUnavailable(reason='%s %s answered %s: %s' % (
                method, path, response.status_code,
                _error_detail(response)))
        return response

    # -- the service itself ---------------------------------------------------

    def check_version(self):
        """Raise PlacementTooOld when placement answers its version
        document with a maximum below REQUIRED_VERSION, so that a daemon
        pointed at an old Placement stops at once with one clear line
        instead of failing every scheduling with a 406. Placement not
        answering yet (it may be starting beside us) is not an error:
        its requests will say so when they are made."""
        try:
            response = self.adapter.request(
                '/', 'GET', raise_exc=False, connect_retries=0,
                headers={'Accept': 'application/json'})
        except service_auth.ClientException as e:
            LOG.warning('Placement did not answer its version document '
                        '(%s); its version is not checked', e)
            return None
        try:
            versions = response.json()['versions']
            found_tuple, found = max(
                (_version_tuple(v['max_version']), v['max_version'])
                for v in versions)
        except (ValueError, KeyError, TypeError):
            LOG.warning('Placement answered its version document with %s '
                        'and no versions; its version is not checked',
                        response.status_code)
            return None
        if found_tuple < _version_tuple(REQUIRED_VERSION):
            raise PlacementTooOld(url=self.adapter.get_endpoint(),
                                  found=found, needed=REQUIRED_VERSION)
        return found

    # -- the provider cache ---------------------------------------------------

    def _cached(self, uuid):
        """The provider's record while it may be trusted, else None (a
        record too old is dropped: everything is read again)."""
        if self._providers is None:
            return None
        record = self._providers.get(uuid)
        if record is None:
            return None
        refresh = CONF.compute.resource_provider_association_refresh
        if refresh and self.clock() - record.read_at >= refresh:
            self._providers.pop(uuid, None)
            return None
        return record

    def known_parent(self, uuid):
        """The parent's uuid of a provider this (caching) client knows,
        while its record may be trusted; else None."""
        record = self._cached(uuid)
        if record is None:
            return None
        return record.provider.get('parent_provider_uuid')

    def forget_provider(self, uuid):
        """Trust nothing known of the provider ``uuid``: the next call
        about it asks placement."""
        if self._providers is not None:
            self._providers.pop(uuid, None)
        self._generations.pop(uuid, None)

    @contextlib.contextmanager
    def _about(self, uuid):
        """Requests about the provider ``uuid``, given its record (None
        when nothing may be trusted): when one fails, what is cached of
        the provider may be what made it fail, and is forgotten."""
        try:
            yield self._cached(uuid)
        except (PlacementUnavailable, PlacementConflict):
            self.forget_provider(uuid)
            raise

    # -- providers -----------------------------------------------------------

    def get_provider(self, uuid):
        response = self._request('GET', '/resource_providers/%s' % uuid)
        if response.status_code == 404:
            self.forget_provider(uuid)
            return None
        self._check(response, 'GET provider %s' % uuid)
        provider = response.json()
        self._generations[uuid] = provider['generation']
        return provider

    def ensure_resource_provider(self, uuid, name,
                                 parent_provider_uuid=None):
        """Create the provider unless it exists; return it. A caching
        client that knows it exists asks nothing."""
        with self._about(uuid) as record:
            if record is not None:
                return dict(record.provider)
            provider = self._ensure_resource_provider(
                uuid, name, parent_provider_uuid)
            if self._providers is not None:
                self._providers[uuid] = ProviderRecord(dict(provider),
                                                       self.clock())
            return provider

    def _ensure_resource_provider(self, uuid, name, parent_provider_uuid):
        provider = self.get_provider(uuid)
        if provider is not None:
            return provider
        body = {'uuid': uuid, 'name': name}
        if parent_provider_uuid:
            body['parent_provider_uuid'] = parent_provider_uuid
        response = self._request('POST', '/resource_providers', body,
                                 version='1.20')
        if response.status_code == 409:
            # Created concurrently, or a stale provider holds the name.
            provider = self.get_provider(uuid)
            if provider is not None:
                return provider
        self._check(response, 'create provider %s' % name)
        provider = response.json()
        self._generations[uuid] = provider['generation']
        LOG.info('Created resource provider %s (%s)', name, uuid)
        return provider

    def set_inventory(self, uuid, inventories):
        """Replace the provider's inventory, retrying generation races;
        True when written. A caching client that knows the provider holds
        ``inventories`` already asks nothing."""
        with self._about(uuid) as record:
            if record is not None and record.inventory == inventories:
                return False
            written = self._replace_inventory(uuid, inventories)
            if record is not None:
                record.inventory = copy.deepcopy(inventories)
            return written

    def _replace_inventory(self, uuid, inventories):
        for attempt in range(CONFLICT_RETRIES):
            current = self._request(
                'GET', '/resource_providers/%s/inventories' % uuid)
            self._check(current, 'GET inventory of %s' % uuid)
            if current.json()['inventories'] == inventories:
                self._generations[uuid] = current.json()[
                    'resource_provider_generation']
                return False
            response = self._request(
                'PUT', '/resource_providers/%s/inventories' % uuid,
                {'resource_provider_generation': current.json()[
                    'resource_provider_generation'],
                 'inventories': inventories})
            if response.status_code == 409 and \
                    _error_code(response) == 'placement.concurrent_update':
                self._generations.pop(uuid, None)
                continue
            self._check(response, 'PUT inventory of %s' % uuid)
            self._generations[uuid] = response.json()[
                'resource_provider_generation']
            return True
        raise PlacementConflict(reason='inventory of %s kept changing' %
                                uuid)

    def get_aggregates(self, uuid):
        response = self._request(
            'GET', '/resource_providers/%s/aggregates' % uuid,
            version='1.19')
        self._check(response, 'GET aggregates of %s' % uuid)
        return response.json()['aggregates']

    def update_provider_aggregates(self, uuid, add=(), remove=()):
        """Put the provider in the aggregates ``add`` and take it out of
        ``remove``, keeping it in every other one (a sharing provider's,
        an operator's). True when something was written;
        ProviderNotFound when placement has no such provider."""
        with self._about(uuid):
            changed = self._update_provider_set(uuid, 'aggregates', add,
                                                remove, version='1.19')
        return True if changed else None

    def _update_provider_set(self, uuid, kind, add, remove, version=None):
        """Add ``add`` to and take ``remove`` from the provider's
        ``kind`` ('traits', 'aggregates'), keeping the rest: read, change,
        write back with the generation read, and again on a generation
        race. (put on, taken off) when something was written, else None;
        ProviderNotFound when placement has no such provider."""
        add, remove = set(add), set(remove)
        path = '/resource_providers/%s/%s' % (uuid, kind)
        for attempt in range(CONFLICT_RETRIES):
            response = self._request('GET', path, version=version)
            if response.status_code == 404:
                raise ProviderNotFound(uuid=uuid)
            self._check(response, 'GET %s of %s' % (kind, uuid))
            body = response.json()
            current = set(body[kind])
            wanted = (current | add) - remove
            if wanted == current:
                self._note(uuid, kind, current)
                return None
            response = self._request(
                'PUT', path, {kind: sorted(wanted),
                              'resource_provider_generation':
                                  body['resource_provider_generation']},
                version=version)
            if response.status_code == 404:
                raise ProviderNotFound(uuid=uuid)
            if response.status_code == 409 and \
                    _error_code(response) == 'placement.concurrent_update':
                time.sleep(0.01 * (attempt + 1))
                continue
            self._check(response, 'PUT %s of %s' % (kind, uuid))
            self._generations[uuid] = response.json()[
                'resource_provider_generation']
            self._note(uuid, kind, wanted)
            return wanted - current, current - wanted
        raise PlacementConflict(reason='%s of %s kept changing' % (kind,
                                                                   uuid))

    def _note(self, uuid, kind, values):
        """The provider's ``kind`` ('traits', 'aggregates') are
        ``values`` now: its record says so (the sharing providers of other
        aggregates are asked again)."""
        record = self._cached(uuid)
        if record is None:
            return
        if kind == 'traits':
            record.traits = set(values)
        else:
            record.sharing = {}

    def providers_in_aggregates(self, aggregates):
        """The uuids of the providers in any of ``aggregates``."""
        if not aggregates:
            return set()
        return {provider['uuid'] for provider in self.list_providers(
            member_of='in:' + ','.join(sorted(aggregates)))}

    def sharing_providers(self, aggregates, resources):
        """Providers that share ``resources`` with members of
        ``aggregates`` (trait MISC_SHARES_VIA_AGGREGATE), best first."""
        if not aggregates:
            return []
        query = {'member_of': 'in:' + ','.join(aggregates),
                 'required': 'MISC_SHARES_VIA_AGGREGATE',
                 'resources': ','.join('%s:%d' % item
                                       for item in sorted(resources.items())
                                       if item[1])}
        response = self._request('GET', '/resource_providers',
                                 params=query, version='1.18')
        self._check(response, 'GET sharing providers')
        return [p['uuid'] for p in response.json()['resource_providers']]

    def sharing_providers_of(self, uuid, resources):
        """Providers that share ``resources`` with the provider ``uuid``
        through its aggregates, best first. A caching client asks again
        only when the provider's record is refreshed."""
        key = tuple(sorted(resources.items()))
        with self._about(uuid) as record:
            if record is not None and key in record.sharing:
                return list(record.sharing[key])
            sharing = self.sharing_providers(self.get_aggregates(uuid),
                                             resources)
            if record is not None:
                record.sharing[key] = list(sharing)
            return sharing

    # -- allocations ---------------------------------------------------------

    def get_allocations(self, consumer_uuid):
        """{'allocations': {rp: {'resources': {...}}}, 'consumer_generation'
        ...} for one consumer ({} allocations when it has none)."""
        response = self._request('GET', '/allocations/%s' % consumer_uuid)
        self._check(response, 'GET allocations of %s' % consumer_uuid)
        return response.json()

    def _update_consumer(self, consumer_uuid, new_body):
        """Read the consumer, PUT ``new_body(current)`` with its consumer
        generation, and retry on a generation race. ``new_body`` returning
        None means there is nothing to write."""
        for attempt in range(CONFLICT_RETRIES):
            current = self.get_allocations(consumer_uuid)
            body = new_body(current)
            if body is None:
                return
            body['consumer_generation'] = current.get('consumer_generation')
            response = self._request('PUT', '/allocations/%s' %
                                     consumer_uuid, body)
            if response.status_code == 204:
                return
            if response.status_code == 409 and \
                    _error_code(response) == 'placement.concurrent_update':
                time.sleep(0.01 * (attempt + 1))
                continue
            if response.status_code == 409:
                raise PlacementConflict(reason=_error_detail(response))
            self._check(response, 'PUT allocations of %s' % consumer_uuid)
        raise PlacementConflict(reason='allocations of %s kept changing' %
                                consumer_uuid)

    def put_allocations(self, consumer_uuid, allocations, project_id,
                        user_id):
        """Write the consumer's allocations (all providers at once),
        unless it holds exactly these already (the scheduler's claim)."""
        def wanted(current):
            held = {rp: {'resources': a['resources']} for rp, a in
                    current.get('allocations', {}).items()}
            if held == allocations and \
                    current.get('project_id') == project_id and \
                    current.get('user_id') == user_id:
                return None
            return {'allocations': allocations, 'project_id': project_id,
                    'user_id': user_id}
        self._update_consumer(consumer_uuid, wanted)

    def claim_resources(self, consumer_uuid, allocation_request, project_id,
                        user_id):
        """Write ``allocation_request`` (an allocation candidate) for a
        consumer that holds nothing yet; its consumer generation is then
        NEW_CONSUMER_GENERATION. True when written; False when placement
        refused it (the provider filled up meanwhile): the caller tries
        another candidate. ConsumerExists when the consumer holds
        allocations already."""
        response = self._request('PUT', '/allocations/%s' % consumer_uuid, {
            'allocations': allocation_request['allocations'],
            'project_id': project_id, 'user_id': user_id,
            'consumer_generation': None})
        if response.status_code == 204:
            return True
        if response.status_code == 409:
            if _error_code(response) == 'placement.concurrent_update':
                held = self.get_allocations(consumer_uuid)
                if held.get('allocations'):
                    raise ConsumerExists(consumer=consumer_uuid, held=held)
            LOG.info('Placement refused the claim of %s: %s', consumer_uuid,
                     _error_detail(response))
            return False
        self._check(response, 'claim for %s' % consumer_uuid)

    def claim_all(self, requests, project_id, user_id):
        """``claim_resources`` of several new consumers ({consumer:
        allocation request}) in one POST /allocations, which placement
        writes whole or not at all: True when written; False when it
        refused them (a provider filled up meanwhile, or a consumer holds
        allocations already), and nothing was written."""
        response = self._request('POST', '/allocations', {
            consumer: {'allocations': request['allocations'],
                       'project_id': project_id, 'user_id': user_id,
                       'consumer_generation': None}
            for consumer, request in requests.items()})
        if response.status_code == 204:
            return True
        if response.status_code == 409:
            LOG.info('Placement refused the claims of %d instances together '
                     '(each is claimed alone): %s', len(requests),
                     _error_detail(response))
            return False
        self._check(response, 'claims of %s' % ', '.join(requests))

    def adopt_allocations(self, consumer_uuid, held):
        """Make the allocations ``held`` (as GET /allocations/{consumer}
        read them) this caller's: they are written again unchanged, which
        moves the consumer generation on, so that a give-back by whoever
        wrote them (checked against the generation it wrote) no longer
        applies. The new generation; ConsumerExists with what it holds
        now when it changed meanwhile."""
        generation = held.get('consumer_generation')
        response = self._request('PUT', '/allocations/%s' % consumer_uuid, {
            'allocations': {rp: {'resources': a['resources']}
                            for rp, a in held['allocations'].items()},
            'project_id': held.get('project_id'),
            'user_id': held.get('user_id'),
            'consumer_generation': generation})
        if response.status_code == 204:
            return generation + 1
        if response.status_code == 409:
            raise ConsumerExists(consumer=consumer_uuid,
                                 held=self.get_allocations(consumer_uuid))
        self._check(response, 'adopt allocations of %s' % consumer_uuid)

    def _post_consumer(self, consumer_uuid, allocations, generation,
                       project_id, user_id):
        """POST /allocations of one consumer: ``allocations`` ({}: none)
        in place of what it holds, if its generation is still
        ``generation``; placement's answer."""
        return self._request('POST', '/allocations', {consumer_uuid: {
            'allocations': allocations, 'consumer_generation': generation,
            'project_id': project_id, 'user_id': user_id}},
            version='1.28')

    def give_back_claim(self, consumer_uuid, generation, project_id,
                        user_id):
        """Remove the consumer's allocations if its generation is still
        ``generation`` (nobody wrote them since): True when removed,
        False when they are someone else's now (or gone)."""
        response = self._post_consumer(consumer_uuid, {}, generation,
                                       project_id, user_id)
        if response.status_code == 204:
            return True
        if response.status_code == 409:
            LOG.info('Not giving back the allocations of %s: written by '
                     'someone else since (%s)', consumer_uuid,
                     _error_detail(response))
            return False
        self._check(response, 'give back the claim of %s' % consumer_uuid)

    def replace_allocations(self, consumer_uuid, allocations, generation,
                            project_id, user_id):
        """Write ``allocations`` ({}: remove them) as the consumer's
        whole allocation if its generation is still ``generation`` (None:
        it holds nothing), without reading it again: the caller decided
        from what it read. The consumer's new generation (None once it
        holds nothing); ConsumerChanged when they were written since
        ``generation``, PlacementConflict with placement's reason when
        refused otherwise (no room, say)."""
        response = self._post_consumer(consumer_uuid, allocations,
                                       generation, project_id, user_id)
        if response.status_code == 204:
            if not allocations:
                return None
            return (NEW_CONSUMER_GENERATION if generation is None
                    else generation + 1)
        if response.status_code == 409 and \
                _error_code(response) == 'placement.concurrent_update':
            raise ConsumerChanged(consumer=consumer_uuid)
        if response.status_code == 409:
            raise PlacementConflict(reason='allocations of %s: %s' % (
                consumer_uuid, _error_detail(response)))
        self._check(response, 'write the allocations of %s' % consumer_uuid)

    def get_allocation_candidates(self, resources, limit=None, groups=(),
                                  in_tree=None, member_of=(),
                                  forbidden_aggregates=(), required=(),
                                  forbidden=(), root_required=(),
                                  root_forbidden=()):
        """Allocation candidates for ``resources`` ({class: amount}) plus
        one suffixed group per RequestGroup in ``groups`` (a port's
        resource request, which one provider must satisfy), within the
        tree of the provider ``in_tree`` if given:
        ([allocation request], {provider uuid: summary}), where each
        summary names its ``root_provider_uuid`` and each request its
        ``mappings`` (group suffix -> providers).

        The unsuffixed group may be narrowed (the scheduler's request
        pre-filters): ``member_of`` is a list of aggregate uuid lists, the
        tree in one aggregate of each; none of its providers in
        ``forbidden_aggregates``; the traits ``required`` and none of
        ``forbidden`` among the providers that give its resources; its
        root provider with every trait of ``root_required`` and none of
        ``root_forbidden``. PlacementBadRequest when placement refuses
        the query itself (a trait it does not know, say)."""
        params = {'resources': ','.join(
            '%s:%d' % item for item in sorted(resources.items()))}
        if in_tree:
            params['in_tree'] = in_tree
        if required or forbidden:
            params['required'] = ','.join(
                sorted(required) + ['!' + t for t in sorted(forbidden)])
        if root_required or root_forbidden:
            params['root_required'] = ','.join(
                sorted(root_required) +
                ['!' + t for t in sorted(root_forbidden)])
        for group in groups:
            suffix = group.suffix
            params['resources' + suffix] = ','.join(
                '%s:%d' % item for item in sorted(group.resources.items()))
            if group.required_traits:
                params['required' + suffix] = ','.join(
                    sorted(group.required_traits))
        if groups:
            params['group_policy'] = 'none'
        if limit:
            params['limit'] = str(limit)
        # member_of may be repeated (every one must hold).
        query = sorted(params.items())
        query += [('member_of', 'in:' + ','.join(sorted(uuids)))
                  for uuids in member_of]
        if forbidden_aggregates:
            query.append(('member_of', '!in:' + ','.join(
                sorted(forbidden_aggregates))))
        response = self._request('GET', '/allocation_candidates',
                                 params=query, version='1.35')
        if response.status_code == 400:
            raise PlacementBadRequest(reason=_error_detail(response))
        self._check(response, 'GET allocation candidates')
        body = response.json()
        return body['allocation_requests'], body['provider_summaries']

    def delete_allocations(self, consumer_uuid, if_on=None):
        """Remove a consumer's allocations, never blindly: the removal is
        checked against the consumer generation read just before, so a
        claim written in between (a takeover's, a retried scheduler
        call's) is someone else's and stays. With ``if_on`` (a provider:
        the compute node the caller's claim was on) they are removed only
        while they include it -- held elsewhere only, they are someone
        else's claim now. True when removed; absent is fine."""
        current = self.get_allocations(consumer_uuid)
        held = current.get('allocations') or {}
        if not held:
            return False
        if if_on is not None and if_on not in held:
            LOG.info('Not removing the allocations of %s: they are on %s '
                     'now, not on %s', consumer_uuid,
                     ', '.join(sorted(held)), if_on)
            return False
        return self.give_back_claim(consumer_uuid,
                                    current.get('consumer_generation'),
                                    current.get('project_id'),
                                    current.get('user_id'))

    def move_allocations(self, source_consumer, target_consumer):
        """Give everything ``source_consumer`` holds to
        ``target_consumer`` (which must hold nothing) in one POST
        /allocations: a move's source side goes to its migration record,
        or back to the instance when the move is undone. False when the
        source holds nothing."""
        for attempt in range(CONFLICT_RETRIES):
            source = self.get_allocations(source_consumer)
            held = source.get('allocations') or {}
            if not held:
                return False
            target = self.get_allocations(target_consumer)
            body = {
                source_consumer: {
                    'allocations': {},
                    'project_id': source.get('project_id'),
                    'user_id': source.get('user_id'),
                    'consumer_generation': source.get('consumer_generation')},
                target_consumer: {
                    'allocations': {rp: {'resources': a['resources']}
                                    for rp, a in held.items()},
                    'project_id': source.get('project_id'),
                    'user_id': source.get('user_id'),
                    'consumer_generation': target.get(
                        'consumer_generation')},
            }
            response = self._request('POST', '/allocations', body,
                                     version='1.28')
            if response.status_code == 204:
                return True
            if response.status_code == 409 and \
                    _error_code(response) == 'placement.concurrent_update':
                time.sleep(0.01 * (attempt + 1))
                continue
            self._check(response, 'move allocations of %s to %s' % (
                source_consumer, target_consumer))
        raise PlacementConflict(reason='allocations of %s kept changing' %
                                source_consumer)

    def remove_provider_from_consumer(self, consumer_uuid, rp_uuid):
        """Drop only ``rp_uuid``'s part of a consumer's allocations."""
        self.remove_providers_from_consumer(consumer_uuid, {rp_uuid})

    def remove_providers_from_consumer(self, consumer_uuid, rp_uuids):
        """Drop the parts of a consumer's allocations on ``rp_uuids`` (a
        compute node's tree: the node and its bandwidth providers)."""
        rp_uuids = set(rp_uuids)

        def without_providers(current):
            allocations = current.get('allocations', {})
            if not rp_uuids & set(allocations):
                return None
            return {'allocations': {rp: {'resources': a['resources']}
                                    for rp, a in allocations.items()
                                    if rp not in rp_uuids},
                    'project_id': current.get('project_id'),
                    'user_id': current.get('user_id')}
        self._update_consumer(consumer_uuid, without_providers)

    def get_provider_allocations(self, rp_uuid):
        """{consumer_uuid: {resource_class: amount}} on one provider."""
        with self._about(rp_uuid):
            response = self._request(
                'GET', '/resource_providers/%s/allocations' % rp_uuid)
            if response.status_code == 404:
                self.forget_provider(rp_uuid)
                return {}
            self._check(response, 'GET allocations on %s' % rp_uuid)
        return {consumer: item['resources'] for consumer, item in
                response.json()['allocations'].items()}

    def provider_capacity(self, uuid):
        """{resource_class: (usable, used)} of one provider: usable is
        (total - reserved) * allocation_ratio, what placement may hand
        out; used is what its consumers hold."""
        inventories = self._request(
            'GET', '/resource_providers/%s/inventories' % uuid)
        usages = self._request('GET', '/resource_providers/%s/usages' % uuid)
        if inventories.status_code == 404 or usages.status_code == 404:
            return {}
        self._check(inventories, 'GET inventory of %s' % uuid)
        self._check(usages, 'GET usages of %s' % uuid)
        used = usages.json()['usages']
        return {rc: (int((inv['total'] - inv['reserved']) *
                         inv['allocation_ratio']), used.get(rc, 0))
                for rc, inv in inventories.json()['inventories'].items()}

    def list_providers(self, **filters):
        response = self._request('GET', '/resource_providers',
                                 params=filters or None, version='1.14')
        self._check(response, 'GET providers')
        return response.json()['resource_providers']

    def provider_tree(self, root_uuid):
        """The providers of the tree rooted at ``root_uuid`` (a compute
        node and its children, such as bandwidth providers)."""
        return self.list_providers(in_tree=root_uuid)

    def provider_traits(self, uuid):
        response = self._request('GET', '/resource_providers/%s/traits' %
                                 uuid, version='1.6')
        self._check(response, 'GET traits of %s' % uuid)
        return set(response.json()['traits'])

    def define_traits(self, names):
        """Define the custom traits ``names`` in placement (PUT
        /traits/{name}: nothing happens to one that exists), each once
        per client."""
        for name in sorted(set(names) - self._defined_traits):
            response = self._request('PUT', '/traits/%s' % name,
                                     version='1.6')
            self._check(response, 'PUT trait %s' % name)
            self._defined_traits.add(name)

    def update_provider_traits(self, uuid, add=(), remove=(),
                               trust_cache=True):
        """Put the traits ``add`` on the provider and take ``remove`` off,
        keeping every other trait it has (an operator's CUSTOM_ ones).
        (traits put on, traits taken off) when something was written,
        else None. A caching client whose record says the provider has
        them so already asks nothing, unless told not to
        (``trust_cache``: an administrator's change must reach placement
        whatever the record says)."""
        add, remove = set(add), set(remove)
        with self._about(uuid) as record:
            if trust_cache and record is not None and \
                    record.traits is not None and \
                    add <= record.traits and not remove & record.traits:
                return None
            try:
                return self._update_provider_set(uuid, 'traits', add,
                                                 remove)
            except PlacementConflict:
                # It may name a trait undefined since: the next
                # define_traits defines it again.
                self._defined_traits -= add
                raise

    @staticmethod
    def _check(response, what):
        if response.status_code >= 400:
            raise PlacementConflict(reason='%s: %s %s' % (
                what, response.status_code, _error_detail(response)))
