"""Microversions of the Compute API that nova_lite honours.

We advertise as maximum only a version whose behaviour we implement;
clients negotiate down to it. Each version below changes only what is
listed; everything else behaves as at 2.1.

* 2.1  - the base API: flavors, images proxy, servers (create with
         min_count/max_count, list, detail, show, delete), os-hypervisors,
         os-services, os-server-groups (create with ``policies``, one of
         affinity and anti-affinity; list, show, delete), os-aggregates
         (admin: create, list, show, update, delete; add_host,
         remove_host and set_metadata actions), os-availability-zone
         (list; detail for admins), os-keypairs (import or generate,
         list, show, delete a user's own key pairs; servers take
         ``key_name``), os-quota-sets (show, detail, defaults; set and
         reset for admins), os-quota-class-sets (the ``default`` class,
         for admins), /limits (absolute limits and usage; ``rate`` is
         empty). Quota sets and limits never show the network-era keys
         (floating_ips, security_groups, ...) that Nova drops at 2.36.
         os-instance-actions lists and shows what was done to a server
         (create, delete, ...); the events of an action are for admins.
* 2.2  - key pairs have a ``type`` (ssh or x509); creating one answers
         201, deleting one 204.
* 2.3  - admins see more OS-EXT-SRV-ATTR:* server attributes
         (reservation_id, launch_index, hostname, user_data, ...).
* 2.9  - servers show ``locked`` (the lock and unlock actions set it at
         every microversion).
* 2.10 - administrators may list, show, create and delete the key pairs
         of another user (``?user_id=``, or ``user_id`` in the create
         body).
* 2.13 - server groups show ``project_id`` and ``user_id``.
* 2.15 - server groups may have the soft-affinity and soft-anti-affinity
         policies.
* 2.16 - servers show ``host_status`` to admins (UP, DOWN, MAINTENANCE,
         UNKNOWN, or "" before a host is chosen).
* 2.19 - servers take and show ``description``.
* 2.14 - evacuate no longer takes ``onSharedStorage`` and answers
         without a body.
* 2.21 - os-instance-actions also answers for a deleted server.
* 2.23 - ``/servers/{id}/migrations`` lists and shows a server's live
         migrations in progress; os-migrations shows ``migration_type``
         and ``links``.
* 2.24 - ``DELETE /servers/{id}/migrations/{id}`` aborts a running live
         migration.
* 2.25 - os-migrateLive takes ``block_migration: "auto"`` and no longer
         ``disk_over_commit``.
* 2.26 - servers show ``tags``; ``/servers/{id}/tags`` lists, checks,
         adds, replaces and removes them; the server list filters on
         ``tags``, ``tags-any``, ``not-tags`` and ``not-tags-any``.
* 2.35 - os-keypairs lists in pages: ``limit`` and ``marker`` (a key
         pair name; 400 if the user has none of that name), and a
         ``keypairs_links`` next link when a page is full. Before 2.35
         both parameters are ignored.
* 2.29 - evacuate takes ``force``.
* 2.30 - os-migrateLive takes ``force`` (the destination is still checked
         by the scheduler and placement).
* 2.37 - ``networks`` is required on server create: "auto", "none" or a
         list of networks/ports.
* 2.39 - /limits no longer shows ``maxImageMeta``.
* 2.41 - host aggregates show their ``uuid``.
* 2.47 - the server's flavor is embedded (vcpus, ram, disk, ephemeral,
         swap, original_name, extra_specs) instead of an id and links.
* 2.50 - quota class sets show and take ``server_groups`` and
         ``server_group_members``.
* 2.51 - a server's owner sees the events of its actions (without
         their tracebacks).
* 2.52 - servers take ``tags`` at create.
* 2.53 - os-services and os-hypervisors are identified by UUID;
         ``PUT /os-services/{id}`` sets status, disabled_reason and
         forced_down in one body.
* 2.55 - flavors take and show ``description``; ``PUT /flavors/{id}``
         (admin) changes it.
* 2.57 - servers no longer take ``personality`` at create; quota sets,
         quota class sets and /limits drop the injected-file limits
         (``injected_files``, ``injected_file_content_bytes``,
         ``injected_file_path_bytes``, ``maxPersonality``,
         ``maxPersonalitySize``).
* 2.58 - os-instance-actions lists in pages (``limit``, ``marker``: a
         request id; a ``links`` next link) and filters on
         ``changes-since``; actions show ``updated_at``.
* 2.59 - migrations (``/servers/{id}/migrations``, os-migrations) show
         their ``uuid``.
* 2.61 - flavor details (detail, show, create, update) embed
         ``extra_specs`` for callers allowed to read them.
* 2.62 - instance action events show ``hostId`` and, to admins,
         ``host``.
* 2.63 - servers take ``trusted_image_certificates`` at create and at
         rebuild, keep them and show them (the fake virt driver does not
         verify image signatures with them).
* 2.64 - server groups are created with one ``policy`` and ``rules``
         (``max_server_per_host``, anti-affinity only) and show
         ``policy`` and ``rules`` instead of ``policies`` and ``metadata``.
* 2.65 - nova_lite's own: rebuild of a server that never got a host
         (buried in cell0 in ERROR) schedules and builds it again with the
         same UUID, tags, key pair, networks, block devices and config
         drive (seed 003). Before 2.65 that rebuild answers 409 as it
         always did. A server created with personality files is refused
         (409): their content is not kept. As in upstream Nova, 2.65
         also lets an admin abort a live migration that is still queued.

Server actions (``POST /servers/{id}/action``): ``rebuild`` (2.19 with
``description``, 2.54 with ``key_name``, 2.57 with ``user_data`` and
without ``personality``, 2.63 with ``trusted_image_certificates``),
``os-stop``, ``os-start``, ``reboot`` (SOFT, HARD), ``pause``,
``unpause``, ``suspend``, ``resume``, ``lock``, ``unlock`` (without a
reason: that is 2.73), ``os-resetState``, ``evacuate``, ``shelve``,
``shelveOffload``, ``unshelve`` and ``os-migrateLive``. From 2.1 also
``PUT /servers/{id}`` (``name``; ``description`` from 2.19) and
``/servers/{id}/metadata`` (list, show, add, replace, set and remove
items).

Versions in between change only resources nova_lite does not serve:
2.56 (cold migrate to a host), 2.60 (multiattach volumes, which need a
volume service).
"""

from nova_lite.api import microversion

SERVICE_TYPE = 'compute'
LEGACY_HEADER = 'X-OpenStack-Nova-API-Version'
MIN_VERSION = '2.1'
MAX_VERSION = '2.65'

SPEC = microversion.MicroversionSpec(SERVICE_TYPE, MIN_VERSION, MAX_VERSION,
                                     legacy_header=LEGACY_HEADER)

KEYPAIR_TYPE = '2.2'
EXTENDED_ATTRS = '2.3'
LOCKED = '2.9'
KEYPAIR_USER_ID = '2.10'
SERVER_GROUP_OWNER = '2.13'
EVACUATE_NO_SHARED_STORAGE = '2.14'
SOFT_POLICIES = '2.15'
HOST_STATUS = '2.16'
DESCRIPTION = '2.19'
DELETED_SERVER_ACTIONS = '2.21'
SERVER_MIGRATIONS = '2.23'
ABORT_LIVE_MIGRATION = '2.24'
BLOCK_MIGRATION_AUTO = '2.25'
EVACUATE_FORCE = '2.29'
LIVE_MIGRATE_FORCE = '2.30'
TAGS_SHOWN = '2.26'
KEYPAIR_PAGING = '2.35'
NETWORKS_REQUIRED = '2.37'
NO_IMAGE_META_LIMIT = '2.39'
AGGREGATE_UUID = '2.41'
FLAVOR_EMBEDDED = '2.47'
QUOTA_CLASS_SERVER_GROUPS = '2.50'
ACTION_EVENTS_FOR_OWNERS = '2.51'
TAGS_AT_CREATE = '2.52'
UUID_IDS = '2.53'
REBUILD_KEY_NAME = '2.54'
FLAVOR_DESCRIPTION = '2.55'
MIGRATE_HOST = '2.56'
NO_PERSONALITY = '2.57'
INSTANCE_ACTIONS_PAGING = '2.58'
FLAVOR_EXTRA_SPECS = '2.61'
ACTION_EVENT_HOST = '2.62'
TRUSTED_CERTS = '2.63'
SERVER_GROUP_POLICY = '2.64'
REBUILD_FROM_CELL0 = '2.65'
# Upstream 2.65 lets an admin abort a queued live migration: the same
# number here does both.
ABORT_QUEUED_LIVE_MIGRATION = '2.65'
