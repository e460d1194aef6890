"""Microversions of the Placement API that nova_lite honours.

Requests name one with ``OpenStack-API-Version: placement X.Y`` (or
``latest``); without the header a request is served as 1.0. A version
outside [MIN, MAX] is 406, a malformed one 400. Each version changes only
what is listed; everything else behaves as in the version before.

* 1.0  - resource providers (create, list, show, rename, delete),
         inventories, usages of a provider, allocations of a consumer
         (list format in PUT) and of a provider.
* 1.1  - provider aggregates (``GET/PUT .../aggregates``, body a list).
* 1.2  - custom resource classes (``/resource_classes``).
* 1.3  - ``member_of=in:agg1,agg2`` on the provider list.
* 1.4  - ``resources=VCPU:1,DISK_GB:10`` on the provider list.
* 1.5  - ``DELETE /resource_providers/{uuid}/inventories`` (all of them).
* 1.6  - traits (``/traits``, ``/resource_providers/{uuid}/traits``).
* 1.7  - ``PUT /resource_classes/{name}`` creates the class if absent
         (201/204, no body) instead of renaming it.
* 1.8  - ``project_id`` and ``user_id`` required in ``PUT /allocations``.
* 1.9  - ``GET /usages?project_id=&user_id=``.
* 1.10 - ``GET /allocation_candidates`` (allocation requests as lists).
* 1.11 - providers link to their allocations.
* 1.12 - ``PUT /allocations`` takes the dict format
         ``{rp_uuid: {"resources": {...}}}``; ``GET`` shows project/user;
         candidates' allocation requests in the dict format.
* 1.13 - ``POST /allocations``: several consumers in one transaction.
* 1.14 - nested providers: ``parent_provider_uuid``,
         ``root_provider_uuid``, ``in_tree=`` on the provider list.
* 1.15 - ``cache-control: no-cache`` and ``last-modified`` on GETs.
* 1.16 - ``limit=`` on allocation candidates.
* 1.17 - ``required=`` traits on candidates; summaries show traits.
* 1.18 - ``required=`` traits on the provider list.
* 1.19 - aggregates carry ``resource_provider_generation`` (GET and PUT
         with a dict body); a stale one is 409.
* 1.20 - ``POST /resource_providers`` answers the provider (200).
* 1.21 - ``member_of=`` on allocation candidates.
* 1.22 - forbidden traits (``required=!TRAIT``).
* 1.23 - error bodies carry a ``code`` (``placement.concurrent_update``,
         ``placement.inventory.inuse``, ...).
* 1.24 - ``member_of`` may be repeated (all must hold).
* 1.25 - granular request groups on candidates (``resources1=``,
         ``required1=``, ``member_of1=``, ``group_policy=none|isolate``).
* 1.26 - an inventory may have ``reserved`` equal to ``total``.
* 1.27 - summaries show every class of a provider, not only requested.
* 1.28 - consumer generations (``consumer_generation`` in PUT/POST
         allocations, null for a new consumer; a stale one is 409); a PUT
         with empty ``allocations`` removes them.
* 1.29 - candidates spread the unnumbered group over a provider tree;
         summaries show ``parent_provider_uuid``/``root_provider_uuid``
         and every provider of the trees involved.
* 1.30 - ``POST /reshaper``: inventories and allocations moved at once.
* 1.31 - ``in_tree=`` (and ``in_treeN=``) on allocation candidates.
* 1.32 - forbidden aggregates (``member_of=!agg``, ``!in:a,b``).
* 1.33 - group suffixes may be strings (``resources_PORT1=``).
* 1.34 - allocation requests carry ``mappings`` (group -> providers).
* 1.35 - ``root_required=`` traits of the root of each candidate tree.
* 1.36 - ``same_subtree=_A,_B``; resourceless request groups.
* 1.37 - ``PUT /resource_providers/{uuid}`` may give a provider another
         parent or none (a loop is refused).
* 1.38 - consumer types: ``consumer_type`` required in ``PUT`` and
         ``POST /allocations`` and in the reshaper, shown by ``GET
         /allocations/{consumer}``; ``GET /usages`` groups by type (with a
         ``consumer_count``) and takes ``consumer_type=``.
* 1.39 - ``required=in:T1,T2`` (any of the traits) on the provider list
         and on allocation candidates.
"""

from nova_lite.api import microversion

SERVICE_TYPE = 'placement'
MIN_VERSION = '1.0'
MAX_VERSION = '1.39'

SPEC = microversion.MicroversionSpec(SERVICE_TYPE, MIN_VERSION, MAX_VERSION,
                                     vary='openstack-api-version')

AGGREGATES = '1.1'
RESOURCE_CLASSES = '1.2'
MEMBER_OF_LIST = '1.3'
RESOURCES_FILTER = '1.4'
DELETE_ALL_INVENTORIES = '1.5'
TRAITS = '1.6'
RESOURCE_CLASS_PUT_CREATES = '1.7'
CONSUMER_OWNER_REQUIRED = '1.8'
USAGES = '1.9'
ALLOCATION_CANDIDATES = '1.10'
ALLOCATIONS_LINK = '1.11'
ALLOCATIONS_DICT = '1.12'
POST_ALLOCATIONS = '1.13'
NESTED = '1.14'
CACHE_HEADERS = '1.15'
CANDIDATES_LIMIT = '1.16'
CANDIDATES_TRAITS = '1.17'
PROVIDERS_REQUIRED = '1.18'
AGGREGATES_GENERATION = '1.19'
CREATE_RETURNS_BODY = '1.20'
CANDIDATES_MEMBER_OF = '1.21'
FORBIDDEN_TRAITS = '1.22'
ERROR_CODES = '1.23'
MULTIPLE_MEMBER_OF = '1.24'
GRANULAR = '1.25'
RESERVED_EQUALS_TOTAL = '1.26'
ALL_CLASSES_IN_SUMMARIES = '1.27'
CONSUMER_GENERATION = '1.28'
NESTED_CANDIDATES = '1.29'
RESHAPER = '1.30'
CANDIDATES_IN_TREE = '1.31'
FORBIDDEN_AGGREGATES = '1.32'
STRING_SUFFIXES = '1.33'
MAPPINGS = '1.34'
ROOT_REQUIRED = '1.35'
SAME_SUBTREE = '1.36'
REPARENT = '1.37'
CONSUMER_TYPES = '1.38'
ANY_TRAITS = '1.39'
