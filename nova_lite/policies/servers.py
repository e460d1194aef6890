"""Policy defaults of /servers."""

from oslo_policy import policy

from nova_lite.policies import base

PREFIX = 'os_compute_api:servers:'

rules = [
    policy.DocumentedRuleDefault(
        PREFIX + 'index', base.ADMIN_OR_OWNER,
        'List the servers of the caller\'s project.',
        [{'method': 'GET', 'path': '/servers'},
         {'method': 'GET', 'path': '/servers/detail'}]),
    policy.DocumentedRuleDefault(
        PREFIX + 'index:get_all_tenants', base.ADMIN_API,
        'List the servers of every project (all_tenants=1), or filter by '
        'another project.',
        [{'method': 'GET', 'path': '/servers'},
         {'method': 'GET', 'path': '/servers/detail'}]),
    policy.DocumentedRuleDefault(
        PREFIX + 'show', base.ADMIN_OR_OWNER, 'Show a server.',
        [{'method': 'GET', 'path': '/servers/{server_id}'}]),
    policy.DocumentedRuleDefault(
        PREFIX + 'create', base.ADMIN_OR_OWNER, 'Create servers.',
        [{'method': 'POST', 'path': '/servers'}]),
    policy.DocumentedRuleDefault(
        PREFIX + 'create:forced_host', base.ADMIN_API,
        'Place a server on a named host with availability_zone "az:host" '
        'or "az:host:node", bypassing the scheduler filters.',
        [{'method': 'POST', 'path': '/servers'}]),
    policy.DocumentedRuleDefault(
        PREFIX + 'update', base.ADMIN_OR_OWNER,
        'Change the name of a server (and, from microversion 2.19, its '
        'description).',
        [{'method': 'PUT', 'path': '/servers/{server_id}'}]),
    policy.DocumentedRuleDefault(
        PREFIX + 'delete', base.ADMIN_OR_OWNER, 'Delete a server.',
        [{'method': 'DELETE', 'path': '/servers/{server_id}'}]),
    policy.DocumentedRuleDefault(
        PREFIX + 'rebuild', base.ADMIN_OR_OWNER,
        'Rebuild a server from an image; from microversion 2.65 also a '
        'server that never got a host (in cell0).',
        [{'method': 'POST', 'path': '/servers/{server_id}/action (rebuild)'}]),
    policy.DocumentedRuleDefault(
        PREFIX + 'rebuild:trusted_certs', base.ADMIN_OR_OWNER,
        'Rebuild a server with trusted_image_certificates.',
        [{'method': 'POST', 'path': '/servers/{server_id}/action (rebuild)'}]),
    policy.DocumentedRuleDefault(
        PREFIX + 'stop', base.ADMIN_OR_OWNER, 'Stop (power off) a server.',
        [{'method': 'POST', 'path': '/servers/{server_id}/action (os-stop)'}]),
    policy.DocumentedRuleDefault(
        PREFIX + 'start', base.ADMIN_OR_OWNER, 'Start a stopped server.',
        [{'method': 'POST',
          'path': '/servers/{server_id}/action (os-start)'}]),
    policy.DocumentedRuleDefault(
        PREFIX + 'reboot', base.ADMIN_OR_OWNER,
        'Reboot a server, soft or hard.',
        [{'method': 'POST', 'path': '/servers/{server_id}/action (reboot)'}]),
    policy.DocumentedRuleDefault(
        'os_compute_api:os-pause-server:pause', base.ADMIN_OR_OWNER,
        'Pause a server: its guest stays in memory, stopped.',
        [{'method': 'POST', 'path': '/servers/{server_id}/action (pause)'}]),
    policy.DocumentedRuleDefault(
        'os_compute_api:os-pause-server:unpause', base.ADMIN_OR_OWNER,
        'Unpause a paused server.',
        [{'method': 'POST',
          'path': '/servers/{server_id}/action (unpause)'}]),
    policy.DocumentedRuleDefault(
        'os_compute_api:os-suspend-server:suspend', base.ADMIN_OR_OWNER,
        'Suspend a server: its guest\'s memory is saved and it stops.',
        [{'method': 'POST',
          'path': '/servers/{server_id}/action (suspend)'}]),
    policy.DocumentedRuleDefault(
        'os_compute_api:os-suspend-server:resume', base.ADMIN_OR_OWNER,
        'Resume a suspended server.',
        [{'method': 'POST', 'path': '/servers/{server_id}/action (resume)'}]),
    policy.DocumentedRuleDefault(
        'os_compute_api:os-lock-server:lock', base.ADMIN_OR_OWNER,
        'Lock a server: then only an administrator may act on it (delete, '
        'rebuild, stop, reboot, ... or change its metadata).',
        [{'method': 'POST', 'path': '/servers/{server_id}/action (lock)'}]),
    policy.DocumentedRuleDefault(
        'os_compute_api:os-lock-server:unlock', base.ADMIN_OR_OWNER,
        'Unlock a server locked by the caller\'s side (its owner, or an '
        'administrator).',
        [{'method': 'POST', 'path': '/servers/{server_id}/action (unlock)'}]),
    policy.DocumentedRuleDefault(
        'os_compute_api:os-lock-server:unlock:unlock_override',
        base.ADMIN_API,
        'Unlock a server locked by the other side: its owner\'s lock, by '
        'an administrator of another project, or an administrator\'s, by '
        'the owner.',
        [{'method': 'POST', 'path': '/servers/{server_id}/action (unlock)'}]),
    policy.DocumentedRuleDefault(
        'os_compute_api:os-admin-actions:reset_state', base.ADMIN_API,
        'Reset the state of a server to active or error, ending its task.',
        [{'method': 'POST',
          'path': '/servers/{server_id}/action (os-resetState)'}]),
    policy.DocumentedRuleDefault(
        'os_compute_api:os-evacuate', base.ADMIN_API,
        'Evacuate a server from a host that is down to another host.',
        [{'method': 'POST',
          'path': '/servers/{server_id}/action (evacuate)'}]),
    policy.DocumentedRuleDefault(
        'os_compute_api:os-shelve:shelve', base.ADMIN_OR_OWNER,
        'Shelve a server: power it off and keep a snapshot.',
        [{'method': 'POST', 'path': '/servers/{server_id}/action (shelve)'}]),
    policy.DocumentedRuleDefault(
        'os_compute_api:os-shelve:shelve_offload', base.ADMIN_API,
        'Offload a shelved server: free its host.',
        [{'method': 'POST',
          'path': '/servers/{server_id}/action (shelveOffload)'}]),
    policy.DocumentedRuleDefault(
        'os_compute_api:os-shelve:unshelve', base.ADMIN_OR_OWNER,
        'Unshelve a server (an offloaded one is scheduled again).',
        [{'method': 'POST',
          'path': '/servers/{server_id}/action (unshelve)'}]),
    policy.DocumentedRuleDefault(
        'os_compute_api:os-migrate-server:migrate_live', base.ADMIN_API,
        'Live migrate a server to another host.',
        [{'method': 'POST',
          'path': '/servers/{server_id}/action (os-migrateLive)'}]),
    policy.DocumentedRuleDefault(
        PREFIX + 'migrations:index', base.ADMIN_API,
        'List the live migrations of a server in progress.',
        [{'method': 'GET', 'path': '/servers/{server_id}/migrations'}]),
    policy.DocumentedRuleDefault(
        PREFIX + 'migrations:show', base.ADMIN_API,
        'Show a live migration of a server in progress.',
        [{'method': 'GET',
          'path': '/servers/{server_id}/migrations/{migration_id}'}]),
    policy.DocumentedRuleDefault(
        PREFIX + 'migrations:delete', base.ADMIN_API,
        'Abort a live migration of a server.',
        [{'method': 'DELETE',
          'path': '/servers/{server_id}/migrations/{migration_id}'}]),
    policy.DocumentedRuleDefault(
        'os_compute_api:os-migrations:index', base.ADMIN_API,
        'List the migration records of every cell.',
        [{'method': 'GET', 'path': '/os-migrations'}]),
    policy.DocumentedRuleDefault(
        'os_compute_api:os-extended-server-attributes', base.ADMIN_API,
        'See the OS-EXT-SRV-ATTR:* attributes (host, hypervisor, '
        'reservation id, user data) and the details of a fault.',
        [{'method': 'GET', 'path': '/servers/{server_id}'},
         {'method': 'GET', 'path': '/servers/detail'}]),
    policy.DocumentedRuleDefault(
        PREFIX + 'show:host_status', base.ADMIN_API,
        'See host_status (microversion 2.16): whether the server\'s compute '
        'is UP, DOWN, in MAINTENANCE or UNKNOWN.',
        [{'method': 'GET', 'path': '/servers/{server_id}'},
         {'method': 'GET', 'path': '/servers/detail'}]),
]


def list_rules():
    return rules
