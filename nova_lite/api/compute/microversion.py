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
         ``key_name``).
* 2.2  - key pairs have a ``type`` (ssh or x509); creating one answers
         201, deleting one 204.
* 2.3  - admins see more OS-EXT-SRV-ATTR:* server attributes
         (reservation_id, launch_index, hostname, user_data, ...).
* 2.9  - servers show ``locked``.
* 2.10 - administrators may list, show, create and delete the key pairs
         of another user (``?user_id=``, or ``user_id`` in the create
         body).
* 2.13 - server groups show ``project_id`` and ``user_id``.
* 2.15 - server groups may have the soft-affinity and soft-anti-affinity
         policies.
* 2.16 - servers show ``host_status`` to admins (UP, DOWN, MAINTENANCE,
         UNKNOWN, or "" before a host is chosen).
* 2.19 - servers take and show ``description``.
* 2.26 - servers show ``tags``.
* 2.37 - ``networks`` is required on server create: "auto", "none" or a
         list of networks/ports.
* 2.41 - host aggregates show their ``uuid``.
* 2.47 - the server's flavor is embedded (vcpus, ram, disk, ephemeral,
         swap, original_name, extra_specs) instead of an id and links.
* 2.52 - servers take ``tags`` at create.
* 2.53 - os-services and os-hypervisors are identified by UUID;
         ``PUT /os-services/{id}`` sets status, disabled_reason and
         forced_down in one body.
* 2.55 - flavors take and show ``description``; ``PUT /flavors/{id}``
         (admin) changes it.
* 2.57 - servers no longer take ``personality`` at create.
* 2.61 - flavor details (detail, show, create, update) embed
         ``extra_specs`` for callers allowed to read them.
* 2.63 - servers take ``trusted_image_certificates`` at create (refused
         with a 400 unless null: nothing here verifies image signatures)
         and show it (always null).
* 2.64 - server groups are created with one ``policy`` and ``rules``
         (``max_server_per_host``, anti-affinity only) and show
         ``policy`` and ``rules`` instead of ``policies`` and ``metadata``.

Versions in between change only resources nova_lite does not serve:
2.54 (rebuild with key_name) and 2.56 (cold migrate to a host), 2.58 and
2.62 (instance actions), 2.59 (migrations), 2.60 (multiattach volumes,
which need a volume service).
"""

from nova_lite.api import microversion

SERVICE_TYPE = 'compute'
LEGACY_HEADER = 'X-OpenStack-Nova-API-Version'
MIN_VERSION = '2.1'
MAX_VERSION = '2.64'

SPEC = microversion.MicroversionSpec(SERVICE_TYPE, MIN_VERSION, MAX_VERSION,
                                     legacy_header=LEGACY_HEADER)

KEYPAIR_TYPE = '2.2'
EXTENDED_ATTRS = '2.3'
LOCKED = '2.9'
KEYPAIR_USER_ID = '2.10'
SERVER_GROUP_OWNER = '2.13'
SOFT_POLICIES = '2.15'
HOST_STATUS = '2.16'
DESCRIPTION = '2.19'
TAGS_SHOWN = '2.26'
NETWORKS_REQUIRED = '2.37'
AGGREGATE_UUID = '2.41'
FLAVOR_EMBEDDED = '2.47'
TAGS_AT_CREATE = '2.52'
UUID_IDS = '2.53'
FLAVOR_DESCRIPTION = '2.55'
NO_PERSONALITY = '2.57'
FLAVOR_EXTRA_SPECS = '2.61'
TRUSTED_CERTS = '2.63'
SERVER_GROUP_POLICY = '2.64'
