"""Who may do what: every operation of the Compute, Placement and port
APIs, called by an administrator, by the project that owns the resource,
by another project and without a token, against the real daemons.

The matrix is the specification. Each row is one operation (a route and
method of a service's route table, or a variant of one: a server action,
an aggregate action, a query that widens what is asked for) and the
outcome each caller must get:

``OK``    allowed: a 2xx answer (and, for writes, the change made);
``DENY``  403, the caller may not do this;
``HIDE``  404, the resource does not exist as far as the caller knows
          (the Compute API's answer for another project's server or
          server group, the Networking API's for another project's
          network, port or QoS policy);
``ANON``  401, no token;
an int    that exact status: policy let the caller through and the
          operation itself answered (the reason is next to the row).

The outcomes are what OpenStack's default policies give (Nova, Placement,
Neutron), with the administrator being ``admin`` and the owner a member
of the project; where that is a choice, the row says why. Hypervisors,
services, aggregates, migrations, agents and port bindings are for
administrators only; so is placement (or its services), but for a
project's own usages, which its readers see, and reshaping, which only
the service role may do.

``test_every_route_is_in_the_matrix`` fails when a route table has a
route (or the server/aggregate action tables an action) that no row
covers: a new operation cannot be added without deciding who may call it.

The owner's resources are created once for the class; writes by callers
who are refused go to them, and ``test_policy_matrix`` checks afterwards
that nothing of theirs changed. Writes that are allowed go to resources
made for the call (or put back what they changed), so every cell of a
row sees the same state.
"""

import collections
import uuid

import requests
import testtools

from nova_lite.api.compute import handler as compute_routes
from nova_lite.api.compute import server_actions
from nova_lite.api.compute.schemas import aggregates as aggregate_schema
from nova_lite.api.network import handler as network_routes
from nova_lite.api.placement import handler as placement_routes
from tests.functional import base
from tests.functional import fixtures

ADMIN, OWNER, OTHER, ANONYMOUS = 'admin', 'owner', 'other', 'anonymous'
# Rows list outcomes in this order.
CALLERS = (ADMIN, OWNER, OTHER, ANONYMOUS)
# Refused callers go first, so that an allowed write cannot hide what a
# refused one would have changed.
CALL_ORDER = (ANONYMOUS, OTHER, OWNER, ADMIN)
# Under noauth2 a token names the user and project; the other modes'
# matrices (tests/functional/test_auth_modes.py) log in as users of
# these names and read their ids back.
OWNER_USER_NAME, OWNER_PROJECT_NAME = 'alice', 'proj-a'
OTHER_USER_NAME, OTHER_PROJECT_NAME = 'bob', 'proj-b'
NOAUTH2_TOKENS = {
    ADMIN: 'admin',
    OWNER: '%s:%s' % (OWNER_USER_NAME, OWNER_PROJECT_NAME),
    OTHER: '%s:%s' % (OTHER_USER_NAME, OTHER_PROJECT_NAME),
    ANONYMOUS: None}


def owner_user_id(test, caller):
    """The owner's user id, in a row's query or body."""
    return test.owner_user


def owner_project_id(test, caller):
    """The owner's project id, in a row's query or body."""
    return test.owner_project


OK, DENY, HIDE, ANON = 'ok', 403, 404, 401
SKIP = None  # a variant row that means nothing for this caller

PUBLIC = (OK, OK, OK, OK)
ANY_USER = (OK, OK, OK, ANON)
OWNER_OR_ADMIN = (OK, OK, HIDE, ANON)
ADMIN_ONLY = (OK, DENY, DENY, ANON)
# Only an administrator may: the owner, who sees the resource, is refused;
# another project does not see it (the owner's server, a QoS policy).
ADMIN_ONLY_HIDDEN_FROM_OTHERS = (OK, DENY, HIDE, ANON)

COMPUTE_VERSION = 'compute 2.64'
PLACEMENT_VERSION = 'placement 1.36'

API_ROUTES = {'compute': compute_routes.ROUTE_DECLARATIONS,
              'placement': placement_routes.ROUTE_DECLARATIONS,
              'network': network_routes.ROUTE_DECLARATIONS}

Row = collections.namedtuple('Row', (
    'api', 'method', 'route', 'variant', 'expect', 'params', 'query',
    'body', 'fresh', 'after'))


def row(api, method, route, expect, variant='', params=None, query=None,
        body=None, fresh=None, after=None):
    """One operation. ``params`` override the class's resource ids in
    ``route``; ``query`` and ``body`` may be callables of (test, caller).
    ``fresh(test)`` gives params for cells expected to succeed (a
    resource made to be deleted, say); ``after(test, caller, response)``
    runs after each successful cell (to put back what it changed)."""
    return Row(api, method, route, variant, dict(zip(CALLERS, expect)),
               params or {}, query, body, fresh, after)


def by(text):
    """A body value naming the caller, so that what a refused caller
    would have written can be looked for afterwards."""
    return lambda test, caller: text % caller


def _render(value, test, caller):
    if callable(value):
        return value(test, caller)
    if isinstance(value, dict):
        return {k: _render(v, test, caller) for k, v in value.items()}
    if isinstance(value, list):
        return [_render(v, test, caller) for v in value]
    return value


# -- compute ------------------------------------------------------------------

S = '/v2.1/servers/{server_id}'
ACTION = S + '/action'


def _server_back_to_active(test, caller, response):
    test.wait_for_server_task_done()


def _stop_then_start(test, caller, response):
    test.wait_for_server_task_done('SHUTOFF')
    test.server_action({'os-start': None})
    test.wait_for_server_task_done()


def _stopped(test):
    test.server_action({'os-stop': None})
    test.wait_for_server_task_done('SHUTOFF')
    return {}


def _shelved(test):
    test.server_action({'shelve': None})
    test.wait_for_server_task_done('SHELVED_OFFLOADED')
    return {}


def _shelve_then_unshelve(test, caller, response):
    test.wait_for_server_task_done('SHELVED_OFFLOADED')
    test.server_action({'unshelve': None})
    test.wait_for_server_task_done()


def _paused(test):
    test.server_action({'pause': None})
    test.wait_for_server_task_done('PAUSED')
    return {}


def _pause_then_unpause(test, caller, response):
    test.wait_for_server_task_done('PAUSED')
    test.server_action({'unpause': None})
    test.wait_for_server_task_done()


def _suspended(test):
    test.server_action({'suspend': None})
    test.wait_for_server_task_done('SUSPENDED')
    return {}


def _suspend_then_resume(test, caller, response):
    test.wait_for_server_task_done('SUSPENDED')
    test.server_action({'resume': None})
    test.wait_for_server_task_done()


def _locked_by_its_owner(test):
    test.call('compute', 'POST', ACTION.format(**test.ids), OWNER,
              body={'lock': None}, expect=202)
    return {}


def _unlock(test, caller, response):
    test.server_action({'unlock': None})


def _server_name_back(test, caller, response):
    test.call('compute', 'PUT', S.format(**test.ids), ADMIN,
              body={'server': {'name': test.owners_server_name}}, expect=200)


def _server_metadata_back(test, caller, response):
    test.call('compute', 'PUT', S.format(**test.ids) + '/metadata', ADMIN,
              body={'metadata': {'keep': 'yes'}}, expect=200)


def _migration_confirmed(test, caller, response):
    test.wait_for_server_task_done('VERIFY_RESIZE')
    test.call('compute', 'POST', ACTION.format(**test.ids), ADMIN,
              body={'confirmResize': None}, expect=204)
    test.wait_for_server_task_done()


def _delete_new_server(test, caller, response):
    test.delete_server(response.json()['server']['id'])


def _server_tags_back(test, caller, response):
    test.call('compute', 'PUT', S.format(**test.ids) + '/tags', ADMIN,
              body={'tags': ['keep']}, expect=200)


COMPUTE = [
    row('compute', 'GET', '/', PUBLIC),
    row('compute', 'GET', '/v2.1', PUBLIC),
    # flavors: everyone reads the public ones; only admins manage them.
    row('compute', 'GET', '/v2.1/flavors', ANY_USER),
    row('compute', 'POST', '/v2.1/flavors', ADMIN_ONLY,
        body={'flavor': {'name': by('matrix-by-%s'), 'ram': 64, 'vcpus': 1,
                         'disk': 1}},
        after=lambda t, c, r: t.call(
            'compute', 'DELETE', '/v2.1/flavors/%s' %
            r.json()['flavor']['id'], ADMIN, expect=202)),
    row('compute', 'GET', '/v2.1/flavors/detail', ANY_USER),
    row('compute', 'GET', '/v2.1/flavors/{flavor_id}', ANY_USER),
    # A private flavor no project was given access to is an admin's
    # (Nova: FlavorNotFound for everyone else).
    row('compute', 'GET', '/v2.1/flavors/{flavor_id}',
        (OK, HIDE, HIDE, ANON), variant='private flavor',
        params={'flavor_id': '{private_flavor_id}'}),
    row('compute', 'PUT', '/v2.1/flavors/{flavor_id}', ADMIN_ONLY,
        body={'flavor': {'description': by('set-by-%s')}}),
    row('compute', 'DELETE', '/v2.1/flavors/{flavor_id}', ADMIN_ONLY,
        fresh=lambda t: {'flavor_id': t.new_flavor()}),
    row('compute', 'GET', '/v2.1/flavors/{flavor_id}/os-extra_specs',
        ANY_USER),
    row('compute', 'GET', '/v2.1/flavors/{flavor_id}/os-extra_specs',
        (OK, HIDE, HIDE, ANON), variant='private flavor',
        params={'flavor_id': '{private_flavor_id}'}),
    # images (the minimal catalog is public)
    row('compute', 'GET', '/v2.1/images', ANY_USER),
    row('compute', 'GET', '/v2.1/images/detail', ANY_USER),
    row('compute', 'GET', '/v2.1/images/{image_id}', ANY_USER),
    # servers
    row('compute', 'GET', '/v2.1/servers', ANY_USER),
    row('compute', 'GET', '/v2.1/servers', ADMIN_ONLY,
        variant='all_tenants', query={'all_tenants': '1'}),
    row('compute', 'POST', '/v2.1/servers', ANY_USER,
        body=lambda t, c: t.server_body('by-' + c),
        after=_delete_new_server),
    # Another project's key pair, server group or port cannot be used:
    # each is answered as if it did not exist (400 at create).
    row('compute', 'POST', '/v2.1/servers', (SKIP, SKIP, 400, SKIP),
        variant="another project's key pair",
        body=lambda t, c: t.server_body('kp', key_name=t.ids['keypair_name'])),
    row('compute', 'POST', '/v2.1/servers', (SKIP, SKIP, 400, SKIP),
        variant="another project's server group",
        body=lambda t, c: dict(t.server_body('grp'), **{
            'os:scheduler_hints': {'group': t.ids['group_id']}})),
    row('compute', 'POST', '/v2.1/servers', (SKIP, SKIP, 400, SKIP),
        variant="another project's port",
        body=lambda t, c: t.server_body(
            'port', networks=[{'port': t.ids['port_id']}])),
    # A private flavor no project was given access to cannot be used
    # (Nova: the flavor is not found, 400).
    row('compute', 'POST', '/v2.1/servers', (SKIP, 400, 400, SKIP),
        variant='private flavor',
        body=lambda t, c: t.server_body(
            'private', flavorRef=t.ids['private_flavor_id'])),
    # Choosing the host (availability_zone "zone:host") is for admins.
    row('compute', 'POST', '/v2.1/servers', (202, DENY, DENY, SKIP),
        variant='forced host',
        body=lambda t, c: t.server_body(
            'forced', availability_zone='nova:compute1'),
        after=_delete_new_server),
    row('compute', 'GET', '/v2.1/servers/detail', ANY_USER),
    row('compute', 'GET', '/v2.1/servers/detail', ADMIN_ONLY,
        variant='all_tenants', query={'all_tenants': '1'}),
    row('compute', 'GET', S, OWNER_OR_ADMIN),
    row('compute', 'PUT', S, OWNER_OR_ADMIN,
        body={'server': {'name': by('set-by-%s')}},
        after=_server_name_back),
    row('compute', 'DELETE', S, OWNER_OR_ADMIN,
        fresh=lambda t: {'server_id': t.new_owner_server()},
        after=lambda t, c, r: t.fresh_servers_to_await.append(
            r.request.url.rsplit('/', 1)[-1])),
    row('compute', 'POST', ACTION, OWNER_OR_ADMIN, variant='rebuild',
        body=lambda t, c: {'rebuild': {'imageRef': t.plane.image_id}},
        after=_server_back_to_active),
    row('compute', 'POST', ACTION, OWNER_OR_ADMIN, variant='os-stop',
        body={'os-stop': None}, after=_stop_then_start),
    row('compute', 'POST', ACTION, OWNER_OR_ADMIN, variant='os-start',
        body={'os-start': None}, fresh=_stopped,
        after=_server_back_to_active),
    row('compute', 'POST', ACTION, OWNER_OR_ADMIN, variant='reboot',
        body={'reboot': {'type': 'SOFT'}}, after=_server_back_to_active),
    row('compute', 'POST', ACTION, OWNER_OR_ADMIN, variant='pause',
        body={'pause': None}, after=_pause_then_unpause),
    row('compute', 'POST', ACTION, OWNER_OR_ADMIN, variant='unpause',
        body={'unpause': None}, fresh=_paused,
        after=_server_back_to_active),
    row('compute', 'POST', ACTION, OWNER_OR_ADMIN, variant='suspend',
        body={'suspend': None}, after=_suspend_then_resume),
    row('compute', 'POST', ACTION, OWNER_OR_ADMIN, variant='resume',
        body={'resume': None}, fresh=_suspended,
        after=_server_back_to_active),
    # The administrator's lock is lifted by the administrator; the owner
    # lifts its own (lifting the other side's lock is an administrator's
    # unlock_override).
    row('compute', 'POST', ACTION, OWNER_OR_ADMIN, variant='lock',
        body={'lock': None}, after=_unlock),
    row('compute', 'POST', ACTION, OWNER_OR_ADMIN, variant='unlock',
        body={'unlock': None}, fresh=_locked_by_its_owner),
    # The server is ACTIVE without a task: resetting it to active changes
    # nothing.
    row('compute', 'POST', ACTION, ADMIN_ONLY_HIDDEN_FROM_OTHERS,
        variant='os-resetState', body={'os-resetState': {'state': 'active'}}),
    # The administrator gets past policy to the check that the server's
    # compute is down: it is up, 400.
    row('compute', 'POST', ACTION, (400, DENY, HIDE, ANON),
        variant='evacuate', body={'evacuate': {}}),
    row('compute', 'POST', ACTION, OWNER_OR_ADMIN, variant='shelve',
        body={'shelve': None}, after=_shelve_then_unshelve),
    # The server is not shelved: past policy the administrator gets 409.
    row('compute', 'POST', ACTION, (409, DENY, HIDE, ANON),
        variant='shelveOffload', body={'shelveOffload': None}),
    row('compute', 'POST', ACTION, OWNER_OR_ADMIN, variant='unshelve',
        body={'unshelve': None}, fresh=_shelved,
        after=_server_back_to_active),
    row('compute', 'POST', ACTION, ADMIN_ONLY_HIDDEN_FROM_OTHERS,
        variant='os-migrateLive',
        body={'os-migrateLive': {'host': None, 'block_migration': 'auto'}},
        after=_server_back_to_active),
    # A resize to the flavor the server has: past policy, 400.
    row('compute', 'POST', ACTION, (400, 400, HIDE, ANON), variant='resize',
        body={'resize': {'flavorRef': '2'}}),
    # The other compute takes the server (VERIFY_RESIZE); the migration
    # is confirmed before the next row.
    row('compute', 'POST', ACTION, ADMIN_ONLY_HIDDEN_FROM_OTHERS,
        variant='migrate', body={'migrate': None},
        after=_migration_confirmed),
    # The server was not resized: past policy, 409.
    row('compute', 'POST', ACTION, (409, 409, HIDE, ANON),
        variant='confirmResize', body={'confirmResize': None}),
    row('compute', 'POST', ACTION, (409, 409, HIDE, ANON),
        variant='revertResize', body={'revertResize': None}),
    row('compute', 'GET', S + '/migrations', ADMIN_ONLY_HIDDEN_FROM_OTHERS),
    # No live migration is in progress: past policy the administrator
    # gets 404 for the migration.
    row('compute', 'GET', S + '/migrations/{migration_id}',
        (404, DENY, HIDE, ANON)),
    row('compute', 'DELETE', S + '/migrations/{migration_id}',
        (404, DENY, HIDE, ANON)),
    row('compute', 'GET', '/v2.1/os-migrations', ADMIN_ONLY),
    row('compute', 'GET', S + '/os-instance-actions', OWNER_OR_ADMIN),
    row('compute', 'GET', S + '/os-instance-actions/{request_id}',
        OWNER_OR_ADMIN),
    row('compute', 'GET', S + '/metadata', OWNER_OR_ADMIN),
    row('compute', 'POST', S + '/metadata', OWNER_OR_ADMIN,
        body={'metadata': {'set-by': by('%s')}},
        after=_server_metadata_back),
    row('compute', 'PUT', S + '/metadata', OWNER_OR_ADMIN,
        body={'metadata': {'keep': by('set-by-%s')}},
        after=_server_metadata_back),
    row('compute', 'GET', S + '/metadata/{key}', OWNER_OR_ADMIN),
    row('compute', 'PUT', S + '/metadata/{key}', OWNER_OR_ADMIN,
        body={'meta': {'keep': by('set-by-%s')}},
        after=_server_metadata_back),
    row('compute', 'DELETE', S + '/metadata/{key}', OWNER_OR_ADMIN,
        after=_server_metadata_back),
    row('compute', 'GET', S + '/tags', OWNER_OR_ADMIN),
    row('compute', 'GET', S + '/tags/{tag}', OWNER_OR_ADMIN),
    row('compute', 'PUT', S + '/tags/{tag}', OWNER_OR_ADMIN,
        params={'tag': '{caller_tag}'}, after=_server_tags_back),
    row('compute', 'DELETE', S + '/tags/{tag}', OWNER_OR_ADMIN,
        after=_server_tags_back),
    row('compute', 'PUT', S + '/tags', OWNER_OR_ADMIN,
        body={'tags': ['keep', by('by-%s')]}, after=_server_tags_back),
    row('compute', 'DELETE', S + '/tags', OWNER_OR_ADMIN,
        after=_server_tags_back),
    # server groups
    row('compute', 'GET', '/v2.1/os-server-groups', ANY_USER),
    row('compute', 'GET', '/v2.1/os-server-groups', ADMIN_ONLY,
        variant='all_projects', query={'all_projects': 'True'}),
    row('compute', 'POST', '/v2.1/os-server-groups', ANY_USER,
        body={'server_group': {'name': by('by-%s'),
                               'policy': 'anti-affinity'}},
        after=lambda t, c, r: t.call(
            'compute', 'DELETE', '/v2.1/os-server-groups/%s' %
            r.json()['server_group']['id'], c, expect=204)),
    row('compute', 'GET', '/v2.1/os-server-groups/{group_id}',
        OWNER_OR_ADMIN),
    row('compute', 'DELETE', '/v2.1/os-server-groups/{group_id}',
        OWNER_OR_ADMIN, fresh=lambda t: {'group_id': t.new_owner_group()}),
    # host aggregates
    row('compute', 'GET', '/v2.1/os-aggregates', ADMIN_ONLY),
    row('compute', 'POST', '/v2.1/os-aggregates', ADMIN_ONLY,
        body={'aggregate': {'name': by('agg-by-%s')}},
        after=lambda t, c, r: t.call(
            'compute', 'DELETE', '/v2.1/os-aggregates/%s' %
            r.json()['aggregate']['id'], ADMIN, expect=200)),
    row('compute', 'GET', '/v2.1/os-aggregates/{aggregate_id}',
        ADMIN_ONLY),
    row('compute', 'PUT', '/v2.1/os-aggregates/{aggregate_id}', ADMIN_ONLY,
        body={'aggregate': {'name': lambda t, c: 'agg-set-by-%s-%s' % (
            c, t.ids['aggregate_id'])}}),
    row('compute', 'DELETE', '/v2.1/os-aggregates/{aggregate_id}',
        ADMIN_ONLY, fresh=lambda t: {'aggregate_id': t.new_aggregate()}),
    row('compute', 'POST', '/v2.1/os-aggregates/{aggregate_id}/action',
        ADMIN_ONLY, variant='add_host', body={'add_host': {'host':
                                                           'compute1'}}),
    row('compute', 'POST', '/v2.1/os-aggregates/{aggregate_id}/action',
        ADMIN_ONLY, variant='remove_host',
        body={'remove_host': {'host': 'compute1'}}),
    row('compute', 'POST', '/v2.1/os-aggregates/{aggregate_id}/action',
        ADMIN_ONLY, variant='set_metadata',
        body={'set_metadata': {'metadata': {'set-by': by('%s')}}}),
    # key pairs belong to a user. The owner is the user alice; "another
    # project" is bob, who has no key pair of that name (404), and may
    # not name alice (403); an administrator names her (2.10).
    row('compute', 'GET', '/v2.1/os-keypairs', ANY_USER),
    row('compute', 'GET', '/v2.1/os-keypairs', (OK, OK, DENY, ANON),
        variant='user_id of the owner', query={'user_id': owner_user_id}),
    row('compute', 'POST', '/v2.1/os-keypairs', (201, 201, 201, ANON),
        body={'keypair': {'name': by('kp-by-%s')}},
        after=lambda t, c, r: t.call(
            'compute', 'DELETE', '/v2.1/os-keypairs/kp-by-%s' % c, c,
            expect=204)),
    row('compute', 'POST', '/v2.1/os-keypairs', (201, 201, DENY, ANON),
        variant='for the owner',
        body={'keypair': {'name': by('kp-for-alice-by-%s'),
                          'user_id': owner_user_id}},
        after=lambda t, c, r: t.call(
            'compute', 'DELETE', '/v2.1/os-keypairs/kp-for-alice-by-%s' % c,
            OWNER, expect=204)),
    # Without user_id a name is looked up among the caller's own: the
    # administrator has no key pair of that name either.
    row('compute', 'GET', '/v2.1/os-keypairs/{keypair_name}',
        (404, OK, HIDE, ANON)),
    row('compute', 'GET', '/v2.1/os-keypairs/{keypair_name}',
        (OK, OK, DENY, ANON), variant='user_id of the owner',
        query={'user_id': owner_user_id}),
    row('compute', 'DELETE', '/v2.1/os-keypairs/{keypair_name}',
        (404, OK, HIDE, ANON),
        fresh=lambda t: {'keypair_name': t.new_owner_keypair()}),
    row('compute', 'DELETE', '/v2.1/os-keypairs/{keypair_name}',
        (OK, OK, DENY, ANON), variant='user_id of the owner',
        query={'user_id': owner_user_id},
        fresh=lambda t: {'keypair_name': t.new_owner_keypair()}),
    # availability zones: the list for everyone, details for admins
    row('compute', 'GET', '/v2.1/os-availability-zone', ANY_USER),
    row('compute', 'GET', '/v2.1/os-availability-zone/detail', ADMIN_ONLY),
    # hypervisors and services: admins only
    row('compute', 'GET', '/v2.1/os-hypervisors', ADMIN_ONLY),
    row('compute', 'GET', '/v2.1/os-hypervisors/detail', ADMIN_ONLY),
    row('compute', 'GET', '/v2.1/os-hypervisors/statistics', ADMIN_ONLY),
    row('compute', 'GET', '/v2.1/os-hypervisors/{hypervisor_id}',
        ADMIN_ONLY),
    row('compute', 'GET', '/v2.1/os-services', ADMIN_ONLY),
    row('compute', 'PUT', '/v2.1/os-services/{service_id}', ADMIN_ONLY,
        body={'status': 'enabled'}),
    # No service record is deleted here (the control plane needs them
    # all): past policy the administrator gets 404 for an unknown one.
    row('compute', 'DELETE', '/v2.1/os-services/{service_id}',
        (404, DENY, DENY, ANON),
        params={'service_id': '{unknown_uuid}'}),
    # quotas: a project reads its own; only admins change them or read
    # another's; the defaults are for everyone.
    row('compute', 'GET', '/v2.1/os-quota-sets/{project_id}',
        (OK, OK, DENY, ANON)),
    row('compute', 'PUT', '/v2.1/os-quota-sets/{project_id}', ADMIN_ONLY,
        body={'quota_set': {'key_pairs': 100}}),
    row('compute', 'DELETE', '/v2.1/os-quota-sets/{project_id}',
        (202, DENY, DENY, ANON)),
    row('compute', 'GET', '/v2.1/os-quota-sets/{project_id}/detail',
        (OK, OK, DENY, ANON)),
    row('compute', 'GET', '/v2.1/os-quota-sets/{project_id}/defaults',
        ANY_USER),
    row('compute', 'GET', '/v2.1/os-quota-class-sets/{class_name}',
        ADMIN_ONLY),
    row('compute', 'PUT', '/v2.1/os-quota-class-sets/{class_name}',
        ADMIN_ONLY,
        body=lambda t, c: {'quota_class_set': {
            'key_pairs': t.default_key_pairs}}),
    row('compute', 'GET', '/v2.1/limits', ANY_USER),
    row('compute', 'GET', '/v2.1/limits', (OK, OK, DENY, ANON),
        variant='tenant_id of the owner',
        query={'tenant_id': owner_project_id}),
]


# -- placement: OpenStack Placement 16's secure defaults ----------------------
# Every operation is for an administrator or the service role, but
# reshaping (the service role's) and a project's own usages (its readers').

RP = '/resource_providers/{uuid}'


def _delete_provider(test, caller, response):
    test.call('placement', 'DELETE', '/resource_providers/%s' %
              response.json()['uuid'], ADMIN, expect=204)


def _delete_fresh_provider(test, caller, response):
    test.call('placement', 'DELETE', '/resource_providers/%s' %
              test.fresh_provider, ADMIN, expect=204)


def _delete_consumer(test, caller, response):
    test.call('placement', 'DELETE', '/allocations/%s' %
              test.ids['consumer_uuid'], ADMIN, expect=204)


def _generation(test, caller):
    return test.provider_generation(test.ids['uuid'])


def _allocation(test, consumer_generation):
    return {'allocations': {test.ids['uuid']: {
        'resources': {'CUSTOM_MATRIX': 1}}},
        'project_id': test.owner_project, 'user_id': test.owner_user,
        'consumer_generation': consumer_generation}


PLACEMENT = [
    row('placement', 'GET', '/', PUBLIC),
    row('placement', 'GET', '/resource_providers', ADMIN_ONLY),
    row('placement', 'POST', '/resource_providers', ADMIN_ONLY,
        body={'name': by('rp-by-%s')}, after=_delete_provider),
    row('placement', 'GET', RP, ADMIN_ONLY),
    row('placement', 'PUT', RP, ADMIN_ONLY, body={
        'name': lambda t, c: 'rp-set-by-%s-%s' % (c, t.ids['uuid'])}),
    row('placement', 'DELETE', RP, ADMIN_ONLY,
        fresh=lambda t: {'uuid': t.new_provider()}),
    row('placement', 'GET', RP + '/inventories', ADMIN_ONLY),
    row('placement', 'POST', RP + '/inventories', ADMIN_ONLY,
        fresh=lambda t: {'uuid': t.new_provider()},
        body={'resource_class': 'CUSTOM_MATRIX', 'total': 10,
              'resource_provider_generation': 0},
        after=_delete_fresh_provider),
    row('placement', 'PUT', RP + '/inventories', ADMIN_ONLY,
        body={'resource_provider_generation': _generation,
              'inventories': {'CUSTOM_MATRIX': {'total': 10}}}),
    row('placement', 'DELETE', RP + '/inventories', ADMIN_ONLY,
        fresh=lambda t: {'uuid': t.new_provider(inventory=True)},
        after=_delete_fresh_provider),
    row('placement', 'GET', RP + '/inventories/{resource_class}',
        ADMIN_ONLY),
    row('placement', 'PUT', RP + '/inventories/{resource_class}',
        ADMIN_ONLY, body={'resource_provider_generation': _generation,
                          'total': 10}),
    row('placement', 'DELETE', RP + '/inventories/{resource_class}',
        ADMIN_ONLY, fresh=lambda t: {'uuid': t.new_provider(inventory=True)},
        after=_delete_fresh_provider),
    row('placement', 'GET', RP + '/usages', ADMIN_ONLY),
    row('placement', 'GET', RP + '/aggregates', ADMIN_ONLY),
    row('placement', 'PUT', RP + '/aggregates', ADMIN_ONLY,
        body={'resource_provider_generation': _generation,
              'aggregates': [str(uuid.uuid4())]}),
    row('placement', 'GET', RP + '/allocations', ADMIN_ONLY),
    row('placement', 'GET', RP + '/traits', ADMIN_ONLY),
    row('placement', 'PUT', RP + '/traits', ADMIN_ONLY,
        body={'resource_provider_generation': _generation,
              'traits': ['CUSTOM_MATRIX_TRAIT']}),
    row('placement', 'DELETE', RP + '/traits', ADMIN_ONLY),
    row('placement', 'GET', '/resource_classes', ADMIN_ONLY),
    row('placement', 'POST', '/resource_classes', ADMIN_ONLY,
        body={'name': lambda t, c: 'CUSTOM_MATRIX_BY_' + c.upper()},
        after=lambda t, c, r: t.call(
            'placement', 'DELETE', '/resource_classes/CUSTOM_MATRIX_BY_' +
            c.upper(), ADMIN, expect=204)),
    row('placement', 'GET', '/resource_classes/{name}', ADMIN_ONLY,
        params={'name': 'CUSTOM_MATRIX'}),
    # 1.7: PUT creates the class if need be.
    row('placement', 'PUT', '/resource_classes/{name}', ADMIN_ONLY,
        params={'name': 'CUSTOM_MATRIX_PUT'}),
    row('placement', 'DELETE', '/resource_classes/{name}', ADMIN_ONLY,
        params={'name': 'CUSTOM_MATRIX'},
        fresh=lambda t: {'name': t.new_resource_class()}),
    row('placement', 'GET', '/traits', ADMIN_ONLY),
    row('placement', 'GET', '/traits/{name}', ADMIN_ONLY,
        params={'name': 'CUSTOM_MATRIX_TRAIT'}),
    row('placement', 'PUT', '/traits/{name}', ADMIN_ONLY,
        params={'name': 'CUSTOM_MATRIX_TRAIT_PUT'}),
    row('placement', 'DELETE', '/traits/{name}', ADMIN_ONLY,
        params={'name': 'CUSTOM_MATRIX_TRAIT'},
        fresh=lambda t: {'name': t.new_trait()}),
    row('placement', 'PUT', '/allocations/{consumer_uuid}', ADMIN_ONLY,
        body=lambda t, c: _allocation(t, None), after=_delete_consumer),
    row('placement', 'GET', '/allocations/{consumer_uuid}', ADMIN_ONLY),
    row('placement', 'POST', '/allocations', ADMIN_ONLY,
        body=lambda t, c: {t.ids['consumer_uuid']: _allocation(t, None)},
        after=_delete_consumer),
    row('placement', 'DELETE', '/allocations/{consumer_uuid}', ADMIN_ONLY,
        fresh=lambda t: {'consumer_uuid': t.new_consumer()}),
    row('placement', 'GET', '/allocation_candidates', ADMIN_ONLY,
        query={'resources': 'CUSTOM_MATRIX:1'}),
    # A reader of the project (the owner, a member) sees its usages.
    row('placement', 'GET', '/usages', (OK, OK, DENY, ANON),
        query={'project_id': owner_project_id}),
    # Reshaping is the service role's alone (the daemons' service user):
    # refused to an administrator under the secure defaults.
    row('placement', 'POST', '/reshaper', (DENY, DENY, DENY, ANON),
        body=lambda t, c: {'inventories': {t.ids['uuid']: {
            'resource_provider_generation': _generation(t, c),
            'inventories': {'CUSTOM_MATRIX': {'total': 10}}}},
            'allocations': {}}),
]


# -- network ------------------------------------------------------------------

N = '/v2.0/networks/{network_id}'
P = '/v2.0/ports/{port_id}'
Q = '/v2.0/qos/policies/{policy_id}'
B = P + '/bindings'


SHARED_NET_PORT = "another project's port on the owner's shared network"
# What each caller's update of the owner's bandwidth rule asks for.
RULE_KBPS_SET_BY = {ADMIN: 200, OWNER: 300, OTHER: 400, ANONYMOUS: 500}


def _tags_back(kind):
    def put_back(test, caller, response):
        test.call('network', 'PUT', '/v2.0/%s/%s/tags' % (
            kind, test.ids['%s_id' % kind[:-1]]), ADMIN,
            body={'tags': ['keep']}, expect=200)
    return put_back


def _tag_rows(kind):
    """The tag routes of networks or ports, on the owner's one."""
    path = '/v2.0/%s/{resource_id}/tags' % kind
    params = {'resource_id': '{%s_id}' % kind[:-1]}
    back = _tags_back(kind)
    return [
        row('network', 'GET', path, OWNER_OR_ADMIN, params=params),
        row('network', 'PUT', path, OWNER_OR_ADMIN, params=params,
            body={'tags': ['keep', by('by-%s')]}, after=back),
        row('network', 'DELETE', path, OWNER_OR_ADMIN, params=params,
            after=back),
        row('network', 'GET', path + '/{tag}', OWNER_OR_ADMIN,
            params=params),
        row('network', 'PUT', path + '/{tag}', OWNER_OR_ADMIN,
            params=dict(params, tag='{caller_tag}'), after=back),
        row('network', 'DELETE', path + '/{tag}', OWNER_OR_ADMIN,
            params=params, after=back),
    ]


def _delete_created(path, key):
    return lambda t, c, r: t.call('network', 'DELETE', path %
                                  r.json()[key]['id'], ADMIN, expect=204)


NETWORK = [
    row('network', 'GET', '/', PUBLIC),
    row('network', 'GET', '/v2.0', ANY_USER),
    row('network', 'GET', '/v2.0/extensions', ANY_USER),
    row('network', 'GET', '/v2.0/extensions/{alias}', ANY_USER),
    row('network', 'GET', '/v2.0/networks', ANY_USER),
    row('network', 'POST', '/v2.0/networks', (201, 201, 201, ANON),
        body={'network': {'name': by('net-by-%s')}},
        after=_delete_created('/v2.0/networks/%s', 'network')),
    # Sharing a network and its provider attributes are for admins; a
    # project creates in its own project only (Neutron: 400 otherwise).
    row('network', 'POST', '/v2.0/networks', (201, DENY, DENY, ANON),
        variant='shared', body={'network': {'name': by('shared-by-%s'),
                                            'shared': True}},
        after=_delete_created('/v2.0/networks/%s', 'network')),
    row('network', 'POST', '/v2.0/networks', (201, DENY, DENY, ANON),
        variant='provider attributes',
        body={'network': {'name': by('flat-by-%s'),
                          'provider:network_type': 'flat',
                          'provider:physical_network': by('phys-%s')}},
        after=_delete_created('/v2.0/networks/%s', 'network')),
    row('network', 'POST', '/v2.0/networks', (201, 201, 400, ANON),
        variant="in the owner's project",
        body={'network': {'name': by('for-owner-by-%s'),
                          'project_id': owner_project_id}},
        after=_delete_created('/v2.0/networks/%s', 'network')),
    row('network', 'GET', '/v2.0/networks', (OK, DENY, DENY, ANON),
        variant='provider filter',
        query={'provider:physical_network': 'physnet0'}),
    row('network', 'GET', N, OWNER_OR_ADMIN),
    # Every project sees a shared network; only its owner changes it.
    row('network', 'GET', N, ANY_USER, variant='shared',
        params={'network_id': '{shared_network_id}'}),
    row('network', 'PUT', N, (OK, OK, DENY, ANON), variant='shared',
        params={'network_id': '{shared_network_id}'},
        body={'network': {'name': by('set-by-%s')}}),
    row('network', 'DELETE', N, (SKIP, SKIP, DENY, ANON), variant='shared',
        params={'network_id': '{shared_network_id}'}),
    row('network', 'PUT', N, (OK, DENY, HIDE, ANON), variant='shared',
        body={'network': {'shared': True}},
        after=lambda t, c, r: t.call(
            'network', 'PUT', N.format(**t.ids), ADMIN,
            body={'network': {'shared': False}}, expect=200)),
    row('network', 'PUT', N, OWNER_OR_ADMIN,
        body={'network': {'name': by('set-by-%s')}}),
    row('network', 'DELETE', N, OWNER_OR_ADMIN,
        fresh=lambda t: {'network_id': t.new_owner_network()}),
] + _tag_rows('networks') + [
    row('network', 'GET', '/v2.0/ports', ANY_USER),
    # On the owner's network: another project does not see it (404).
    row('network', 'POST', '/v2.0/ports', (201, 201, HIDE, ANON),
        body=lambda t, c: {'port': {'network_id': t.ids['network_id'],
                                    'name': 'port-by-' + c}},
        after=_delete_created('/v2.0/ports/%s', 'port')),
    # Where a port is bound is the services' business (admins).
    row('network', 'POST', '/v2.0/ports', (201, DENY, HIDE, ANON),
        variant='binding:host_id',
        body=lambda t, c: {'port': {'network_id': t.ids['network_id'],
                                    'binding:host_id': 'compute1'}},
        after=_delete_created('/v2.0/ports/%s', 'port')),
    # Another project's QoS policy is not found for a port of one's own.
    row('network', 'POST', '/v2.0/ports', (SKIP, SKIP, HIDE, SKIP),
        variant="another project's QoS policy",
        body=lambda t, c: {'port': {
            'network_id': t.ids['others_network_id'],
            'qos_policy_id': t.ids['policy_id']}}),
    row('network', 'GET', '/v2.0/ports', (OK, DENY, DENY, ANON),
        variant='binding filter', query={'binding:host_id': 'compute1'}),
    row('network', 'GET', P, OWNER_OR_ADMIN),
    row('network', 'PUT', P, (OK, DENY, HIDE, ANON),
        variant='binding:host_id',
        body={'port': {'binding:host_id': 'compute1'}},
        after=lambda t, c, r: t.call(
            'network', 'PUT', P.format(**t.ids), ADMIN,
            body={'port': {'binding:host_id': ''}}, expect=200)),
    row('network', 'PUT', P, OWNER_OR_ADMIN,
        body={'port': {'name': by('set-by-%s')}}),
    row('network', 'DELETE', P, OWNER_OR_ADMIN,
        fresh=lambda t: {'port_id': t.new_owner_port()}),
] + _tag_rows('ports') + [
    # The owner's network is shared; another project's port on it: the
    # network owner sees and deletes it, only the port's project changes
    # it (Neutron: update_port is admin_or_owner).
    row('network', 'GET', P, ANY_USER, variant=SHARED_NET_PORT,
        params={'port_id': '{others_port_id}'}),
    row('network', 'PUT', P, (OK, DENY, OK, ANON), variant=SHARED_NET_PORT,
        params={'port_id': '{others_port_id}'},
        body={'port': {'name': by('set-by-%s')}}),
    row('network', 'PUT', '/v2.0/ports/{resource_id}/tags',
        (OK, DENY, OK, ANON), variant=SHARED_NET_PORT,
        params={'resource_id': '{others_port_id}'},
        body={'tags': [by('by-%s')]}),
    row('network', 'DELETE', P, ANY_USER, variant=SHARED_NET_PORT,
        params={'port_id': '{others_port_id}'},
        fresh=lambda t: {'port_id': t.new_others_port()}),
    # Port bindings are the services' (admins only) in every project.
    row('network', 'GET', B, ADMIN_ONLY,
        params={'port_id': '{binding_port_id}'}),
    row('network', 'POST', B, ADMIN_ONLY,
        params={'port_id': '{binding_port_id}'},
        body={'binding': {'host': 'compute1'}}),
    row('network', 'GET', B + '/{host}', ADMIN_ONLY,
        params={'port_id': '{binding_port_id}', 'host': 'compute1'}),
    row('network', 'PUT', B + '/{host}/activate', ADMIN_ONLY,
        params={'port_id': '{binding_port_id}', 'host': 'compute2'},
        fresh=lambda t: t.new_inactive_binding('compute2')),
    row('network', 'DELETE', B + '/{host}', ADMIN_ONLY,
        params={'port_id': '{binding_port_id}', 'host': 'compute1'},
        fresh=lambda t: t.new_inactive_binding('matrix-host')),
    # QoS policies are made by admins; a project sees its own (and
    # shared ones).
    row('network', 'GET', '/v2.0/qos/rule-types', ANY_USER),
    row('network', 'GET', '/v2.0/qos/policies', ANY_USER),
    row('network', 'POST', '/v2.0/qos/policies', ADMIN_ONLY,
        body={'policy': {'name': by('qos-by-%s')}},
        after=_delete_created('/v2.0/qos/policies/%s', 'policy')),
    row('network', 'GET', Q, OWNER_OR_ADMIN),
    row('network', 'PUT', Q, ADMIN_ONLY_HIDDEN_FROM_OTHERS,
        body={'policy': {'name': by('set-by-%s')}}),
    row('network', 'DELETE', Q, ADMIN_ONLY_HIDDEN_FROM_OTHERS,
        fresh=lambda t: {'policy_id': t.new_owner_qos_policy()}),
    row('network', 'GET', Q + '/minimum_bandwidth_rules', OWNER_OR_ADMIN),
    row('network', 'POST', Q + '/minimum_bandwidth_rules',
        ADMIN_ONLY_HIDDEN_FROM_OTHERS,
        body={'minimum_bandwidth_rule': {'min_kbps': 100,
                                         'direction': 'ingress'}},
        after=lambda t, c, r: t.call(
            'network', 'DELETE', Q.format(**t.ids) +
            '/minimum_bandwidth_rules/%s' %
            r.json()['minimum_bandwidth_rule']['id'], ADMIN, expect=204)),
    row('network', 'GET', Q + '/minimum_bandwidth_rules/{rule_id}',
        OWNER_OR_ADMIN),
    row('network', 'PUT', Q + '/minimum_bandwidth_rules/{rule_id}',
        ADMIN_ONLY_HIDDEN_FROM_OTHERS,
        body={'minimum_bandwidth_rule': {
            'min_kbps': lambda t, c: RULE_KBPS_SET_BY[c]}}),
    row('network', 'DELETE', Q + '/minimum_bandwidth_rules/{rule_id}',
        ADMIN_ONLY_HIDDEN_FROM_OTHERS,
        fresh=lambda t: {'rule_id': t.new_qos_rule()}),
    # agents: admins (and the computes, which report as admin) only
    row('network', 'GET', '/v2.0/agents', ADMIN_ONLY),
    row('network', 'POST', '/v2.0/agents', (201, DENY, DENY, ANON),
        body={'agent': {'host': by('matrix-%s'),
                        'agent_type': 'Open vSwitch agent',
                        'binary': 'neutron-openvswitch-agent'}},
        after=_delete_created('/v2.0/agents/%s', 'agent')),
    row('network', 'GET', '/v2.0/agents/{agent_id}', ADMIN_ONLY),
    row('network', 'PUT', '/v2.0/agents/{agent_id}', ADMIN_ONLY,
        body={'agent': {'description': by('set-by-%s')}}),
    row('network', 'DELETE', '/v2.0/agents/{agent_id}', ADMIN_ONLY,
        fresh=lambda t: {'agent_id': t.new_agent()}),
]

MATRIX = COMPUTE + PLACEMENT + NETWORK


class TestPolicyMatrix(base.ControlPlaneTestCase):
    """The matrix under noauth2; subclasses run it in the other auth
    modes by saying how each caller authenticates."""

    owner_user, owner_project = OWNER_USER_NAME, OWNER_PROJECT_NAME

    @classmethod
    def auth_headers(cls, caller):
        """The headers by which ``caller`` says who it is."""
        token = NOAUTH2_TOKENS[caller]
        return {'X-Auth-Token': token} if token else {}

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        try:
            cls._create_owner_resources()
        except Exception:
            cls.plane.stop()
            raise

    def setUp(self):
        # Only the matrix changes anything; the audit after the read-only
        # tests would cost seconds each and could find nothing new.
        self.audit_after_each_test = (
            self._testMethodName == 'test_policy_matrix')
        super().setUp()

    # -- the owner's resources ------------------------------------------------

    @classmethod
    def _create_owner_resources(cls):
        cls.urls = {'compute': cls.plane.api_url,
                    'placement': cls.plane.placement_url,
                    'network': cls.plane.network_url}
        call = cls._call
        ids = cls.ids = {'tag': 'keep', 'key': 'keep',
                         'unknown_uuid': str(uuid.uuid4()),
                         'class_name': 'default',
                         'project_id': cls.owner_project,
                         'image_id': cls.plane.image_id,
                         'migration_id': '1', 'alias': 'binding-extended'}
        server = call('compute', 'POST', '/v2.1/servers', OWNER,
                      body=cls.server_body('owners', tags=['keep'],
                                           metadata={'keep': 'yes'})).json()
        ids['server_id'] = server['server']['id']
        ids['flavor_id'] = call(
            'compute', 'POST', '/v2.1/flavors', ADMIN,
            body={'flavor': {'name': 'matrix-%s' % uuid.uuid4().hex,
                             'ram': 64, 'vcpus': 1, 'disk': 1}}
        ).json()['flavor']['id']
        ids['private_flavor_id'] = call(
            'compute', 'POST', '/v2.1/flavors', ADMIN,
            body={'flavor': {'name': 'private-%s' % uuid.uuid4().hex,
                             'ram': 64, 'vcpus': 1, 'disk': 1,
                             'os-flavor-access:is_public': False}},
        ).json()['flavor']['id']
        ids['group_id'] = cls.new_owner_group()
        ids['keypair_name'] = 'alice-%s' % uuid.uuid4().hex[:8]
        call('compute', 'POST', '/v2.1/os-keypairs', OWNER,
             body={'keypair': {'name': ids['keypair_name']}})
        ids['aggregate_id'] = cls.new_aggregate()
        ids['hypervisor_id'] = [
            h['id'] for h in call('compute', 'GET', '/v2.1/os-hypervisors',
                                  ADMIN).json()['hypervisors']
            if h['hypervisor_hostname'] == 'compute1'][0]
        ids['service_id'] = [
            s['id'] for s in call('compute', 'GET', '/v2.1/os-services',
                                  ADMIN).json()['services']
            if s['host'] == 'compute1'][0]
        cls.default_key_pairs = call(
            'compute', 'GET', '/v2.1/os-quota-class-sets/default', ADMIN,
        ).json()['quota_class_set']['key_pairs']
        # placement: a provider of a class no flavor asks for, so the
        # scheduler never offers it
        call('placement', 'PUT', '/resource_classes/CUSTOM_MATRIX', ADMIN)
        call('placement', 'PUT', '/traits/CUSTOM_MATRIX_TRAIT', ADMIN)
        ids['uuid'] = cls.new_provider(inventory=True)
        ids['resource_class'] = 'CUSTOM_MATRIX'
        ids['consumer_uuid'] = str(uuid.uuid4())
        # network
        ids['network_id'] = cls.new_owner_network()
        call('network', 'PUT', '/v2.0/networks/%s/tags' % ids['network_id'],
             OWNER, body={'tags': ['keep']})
        ids['port_id'] = cls.new_owner_port()
        call('network', 'PUT', '/v2.0/ports/%s/tags' % ids['port_id'],
             OWNER, body={'tags': ['keep']})
        ids['binding_port_id'] = cls.new_owner_port()
        ids['shared_network_id'] = call(
            'network', 'POST', '/v2.0/networks', ADMIN,
            body={'network': {'name': 'owners-shared', 'shared': True,
                              'project_id': cls.owner_project}},
        ).json()['network']['id']
        ids['others_port_id'] = cls.new_others_port()
        ids['others_network_id'] = call(
            'network', 'POST', '/v2.0/networks', OTHER,
            body={'network': {'name': 'others'}}).json()['network']['id']
        ids['policy_id'] = cls.new_owner_qos_policy()
        ids['rule_id'] = call(
            'network', 'POST', '/v2.0/qos/policies/%s/minimum_bandwidth_rules'
            % ids['policy_id'], ADMIN,
            body={'minimum_bandwidth_rule': {'min_kbps': 1000}},
        ).json()['minimum_bandwidth_rule']['id']
        ids['agent_id'] = call('network', 'GET', '/v2.0/agents', ADMIN,
                               query={'host': 'compute1'}).json()[
            'agents'][0]['id']
        server = cls._wait_for_server(ids['server_id'])
        ids['request_id'] = call(
            'compute', 'GET', '/v2.1/servers/%s/os-instance-actions' %
            ids['server_id'], OWNER).json()['instanceActions'][0][
            'request_id']
        cls.owners_server_name = server['name']

    @classmethod
    def _call(cls, api, method, path, caller, body=None, query=None,
              expect=None):
        headers = cls.auth_headers(caller)
        if api == 'compute':
            headers['OpenStack-API-Version'] = COMPUTE_VERSION
        elif api == 'placement':
            headers['OpenStack-API-Version'] = PLACEMENT_VERSION
        response = requests.request(
            method, cls.urls[api] + path, headers=headers, params=query,
            json=body, timeout=30)
        wanted = expect or range(200, 300)
        if isinstance(wanted, int):
            wanted = (wanted,)
        if response.status_code not in wanted:
            raise AssertionError('%s %s as %s: %d %s' % (
                method, path, caller, response.status_code,
                response.text[:500]))
        return response

    def call(self, *args, **kwargs):
        return self._call(*args, **kwargs)

    @classmethod
    def server_body(cls, name, **extra):
        return {'server': dict({'name': name, 'flavorRef': '2',
                                'imageRef': cls.plane.image_id,
                                'networks': 'none'}, **extra)}

    @classmethod
    def _wait_for_server(cls, server_id, status='ACTIVE'):
        def done():
            found = cls._call('compute', 'GET', '/v2.1/servers/%s' %
                              server_id, ADMIN).json()['server']
            if found['status'] == 'ERROR':
                raise AssertionError('server %s went ERROR: %s' % (
                    server_id, found.get('fault')))
            return found if (found['status'] == status and
                             not found['OS-EXT-STS:task_state']) else None
        return fixtures.wait_for(done, 60, 0.1, 'server %s %s' % (
            server_id, status))

    def wait_for_server_task_done(self, status='ACTIVE'):
        return self._wait_for_server(self.ids['server_id'], status)

    def server_action(self, body):
        self.call('compute', 'POST', S.format(**self.ids) + '/action', ADMIN,
                  body=body, expect=202)

    def delete_server(self, server_id):
        self.call('compute', 'DELETE', '/v2.1/servers/%s' % server_id,
                  ADMIN, expect=204)
        self.fresh_servers_to_await.append(server_id)

    def new_owner_server(self):
        return self.call('compute', 'POST', '/v2.1/servers', OWNER,
                         body=self.server_body('to-delete')).json()[
            'server']['id']

    @classmethod
    def new_owner_group(cls):
        return cls._call('compute', 'POST', '/v2.1/os-server-groups', OWNER,
                         body={'server_group': {
                             'name': 'owners', 'policy': 'affinity'}}
                         ).json()['server_group']['id']

    def new_owner_keypair(self):
        name = 'kp-%s' % uuid.uuid4().hex[:8]
        self.call('compute', 'POST', '/v2.1/os-keypairs', OWNER,
                  body={'keypair': {'name': name}})
        return name

    def new_flavor(self):
        return self.call('compute', 'POST', '/v2.1/flavors', ADMIN,
                         body={'flavor': {'name': uuid.uuid4().hex,
                                          'ram': 64, 'vcpus': 1,
                                          'disk': 1}}).json()['flavor']['id']

    @classmethod
    def new_aggregate(cls):
        return cls._call('compute', 'POST', '/v2.1/os-aggregates', ADMIN,
                         body={'aggregate': {'name': uuid.uuid4().hex}}
                         ).json()['aggregate']['id']

    @classmethod
    def new_provider(cls, inventory=False):
        provider = cls._call('placement', 'POST', '/resource_providers',
                             ADMIN, body={'name': uuid.uuid4().hex}).json()
        if inventory:
            cls._call('placement', 'PUT', '/resource_providers/%s/'
                      'inventories' % provider['uuid'], ADMIN,
                      body={'resource_provider_generation':
                            provider['generation'],
                            'inventories': {'CUSTOM_MATRIX': {'total': 10}}})
        cls.fresh_provider = provider['uuid']
        return provider['uuid']

    def provider_generation(self, provider_uuid):
        return self.call('placement', 'GET', '/resource_providers/%s' %
                         provider_uuid, ADMIN).json()['generation']

    def new_resource_class(self):
        name = 'CUSTOM_MATRIX_%s' % uuid.uuid4().hex[:8].upper()
        self.call('placement', 'PUT', '/resource_classes/%s' % name, ADMIN)
        return name

    def new_trait(self):
        name = 'CUSTOM_MATRIX_%s' % uuid.uuid4().hex[:8].upper()
        self.call('placement', 'PUT', '/traits/%s' % name, ADMIN)
        return name

    def new_consumer(self):
        consumer = str(uuid.uuid4())
        self.call('placement', 'PUT', '/allocations/%s' % consumer, ADMIN,
                  body=_allocation(self, None), expect=204)
        return consumer

    @classmethod
    def new_owner_network(cls):
        return cls._call('network', 'POST', '/v2.0/networks', OWNER,
                         body={'network': {'name': 'owners'}}
                         ).json()['network']['id']

    @classmethod
    def new_owner_port(cls):
        return cls._call('network', 'POST', '/v2.0/ports', OWNER,
                         body={'port': {'network_id': cls.ids['network_id'],
                                        'name': 'owners'}}
                         ).json()['port']['id']

    @classmethod
    def new_others_port(cls):
        return cls._call('network', 'POST', '/v2.0/ports', OTHER,
                         body={'port': {
                             'network_id': cls.ids['shared_network_id'],
                             'name': 'others'}}).json()['port']['id']

    @classmethod
    def new_owner_qos_policy(cls):
        return cls._call('network', 'POST', '/v2.0/qos/policies', ADMIN,
                         body={'policy': {'name': 'owners',
                                          'project_id': cls.owner_project}}
                         ).json()['policy']['id']

    def new_qos_rule(self):
        return self.call(
            'network', 'POST', Q.format(**self.ids) +
            '/minimum_bandwidth_rules', ADMIN,
            body={'minimum_bandwidth_rule': {'min_kbps': 10,
                                             'direction': 'ingress'}},
        ).json()['minimum_bandwidth_rule']['id']

    def new_inactive_binding(self, host):
        self.call('network', 'POST', B.format(**dict(
            self.ids, port_id=self.ids['binding_port_id'])), ADMIN,
            body={'binding': {'host': host}}, expect=201)
        return {'host': host}

    def new_agent(self):
        return self.call('network', 'POST', '/v2.0/agents', ADMIN, body={
            'agent': {'host': 'matrix-%s' % uuid.uuid4().hex[:8],
                      'agent_type': 'Open vSwitch agent',
                      'binary': 'neutron-openvswitch-agent'}}
        ).json()['agent']['id']

    # -- the matrix -----------------------------------------------------------

    def _path(self, matrix_row, caller, extra):
        params = dict(self.ids, caller_tag='by-' + caller)
        for name, value in dict(matrix_row.params, **extra).items():
            params[name] = value.format(**params) if isinstance(
                value, str) else value
        return matrix_row.route.format(**params)

    def _run_cell(self, matrix_row, caller):
        wanted = matrix_row.expect[caller]
        extra = matrix_row.fresh(self) if (
            wanted == OK or isinstance(wanted, int) and wanted < 300
        ) and matrix_row.fresh else {}
        path = self._path(matrix_row, caller, extra or {})
        response = self.call(
            matrix_row.api, matrix_row.method, path, caller,
            body=_render(matrix_row.body, self, caller),
            query=_render(matrix_row.query, self, caller),
            expect=range(100, 600))
        status = response.status_code
        matched = (200 <= status < 300) if wanted == OK else (
            status == wanted)
        if 200 <= status < 300 and matrix_row.after:
            matrix_row.after(self, caller, response)
        return matched, status, response

    def test_policy_matrix(self):
        self.fresh_servers_to_await = []
        wrong = []
        cells = 0
        for matrix_row in MATRIX:
            for caller in CALL_ORDER:
                if matrix_row.expect[caller] is SKIP:
                    continue
                cells += 1
                matched, status, response = self._run_cell(matrix_row,
                                                           caller)
                if not matched:
                    wanted = matrix_row.expect[caller]
                    wrong.append('%-9s %-6s %s%s as %s: expected %s, got '
                                 '%d %s' % (
                                     matrix_row.api, matrix_row.method,
                                     matrix_row.route,
                                     ' [%s]' % matrix_row.variant
                                     if matrix_row.variant else '',
                                     caller, '2xx' if wanted == OK else
                                     wanted, status,
                                     response.text[:200]))
        for server_id in self.fresh_servers_to_await:
            self.admin.wait_for_gone(server_id)
        self.addDetail('cells', testtools.content.text_content(str(cells)))
        self.assertEqual([], wrong, '%d of %d cells are wrong:\n%s' % (
            len(wrong), cells, '\n'.join(wrong)))
        self._assert_owners_resources_untouched()

    def _assert_owners_resources_untouched(self):
        """What refused callers were refused did not happen anyway."""
        refused = [template % caller for caller in (OTHER, ANONYMOUS)
                   for template in ('set-by-%s', 'by-%s')]
        server = self.wait_for_server_task_done()
        self.assertEqual(self.owners_server_name, server['name'])
        self.assertEqual(['keep'], server['tags'])
        self.assertEqual({'keep': 'yes'}, server['metadata'])
        self.assertFalse(server['locked'])
        self.call('compute', 'GET', '/v2.1/os-server-groups/%s' %
                  self.ids['group_id'], OWNER)
        self.call('compute', 'GET', '/v2.1/os-keypairs/%s' %
                  self.ids['keypair_name'], OWNER)
        for path in (N, P, Q):
            (document,) = self.call('network', 'GET', path.format(
                **self.ids), ADMIN).json().values()
            self.assertNotIn(document['name'], refused, path)
            self.assertEqual([], [t for t in document.get('tags', ())
                                  if t in refused], path)
        rule = self.call('network', 'GET', (
            Q + '/minimum_bandwidth_rules/{rule_id}').format(**self.ids),
            ADMIN).json()['minimum_bandwidth_rule']
        self.assertEqual(RULE_KBPS_SET_BY[ADMIN], rule['min_kbps'])

    def test_every_route_is_in_the_matrix(self):
        covered = {(r.api, r.method, r.route) for r in MATRIX}
        routes = {(api, method, route)
                  for api, table in API_ROUTES.items()
                  for route, methods in table.items() for method in methods}
        self.assertEqual(set(), routes - covered,
                         'routes no row of the policy matrix covers')
        self.assertEqual(set(), covered - routes,
                         'rows of the policy matrix for no route')
        variants = collections.defaultdict(set)
        for r in MATRIX:
            variants[r.route].add(r.variant)
        self.assertEqual(set(), set(server_actions.ACTIONS) -
                         variants[ACTION], 'server actions not covered')
        self.assertEqual(set(), set(aggregate_schema.ACTIONS) - variants[
            '/v2.1/os-aggregates/{aggregate_id}/action'],
            'aggregate actions not covered')

    # -- lists ----------------------------------------------------------------

    def _listed(self, api, path, caller, collection, key='id', query=None):
        items = self.call(api, 'GET', path, caller,
                          query=_render(query, self, caller)).json()[
            collection]
        # Key pairs come wrapped: [{"keypair": {...}}].
        return {(item.get('keypair') or item)[key] for item in items}

    # (api, path, collection, the owner's item, key, admin's query that
    # widens the list to every project)
    LISTS = [
        ('compute', '/v2.1/servers', 'servers', 'server_id', 'id',
         {'all_tenants': '1'}),
        ('compute', '/v2.1/servers/detail', 'servers', 'server_id', 'id',
         {'all_tenants': '1'}),
        ('compute', '/v2.1/os-server-groups', 'server_groups', 'group_id',
         'id', {'all_projects': 'True'}),
        ('compute', '/v2.1/os-keypairs', 'keypairs', 'keypair_name', 'name',
         {'user_id': owner_user_id}),
        ('network', '/v2.0/networks', 'networks', 'network_id', 'id', None),
        ('network', '/v2.0/ports', 'ports', 'port_id', 'id', None),
        ('network', '/v2.0/qos/policies', 'policies', 'policy_id', 'id',
         None),
    ]

    def test_another_project_lists_none_of_the_owners_resources(self):
        for api, path, collection, owned, key, _query in self.LISTS:
            mine = self.ids[owned]
            self.assertIn(mine, self._listed(api, path, OWNER, collection,
                                             key), path)
            self.assertNotIn(mine, self._listed(api, path, OTHER,
                                                collection, key), path)

    def test_another_project_cannot_list_the_owners_by_naming_it(self):
        # Nova ignores tenant_id/project_id without all_tenants for a
        # non-admin; refusing (403) hides as much.
        for path in ('/v2.1/servers', '/v2.1/servers/detail'):
            for name in ('project_id', 'tenant_id'):
                response = self.call('compute', 'GET', path, OTHER,
                                     query={name: self.owner_project},
                                     expect=(200, 403))
                if response.status_code == 200:
                    self.assertNotIn(self.ids['server_id'], {
                        s['id'] for s in response.json()['servers']})
        # Of the owner's networks another project sees the shared one.
        for path, collection in (('/v2.0/ports', 'ports'),
                                 ('/v2.0/networks', 'networks')):
            listed = self.call('network', 'GET', path, OTHER,
                               query={'project_id': self.owner_project}
                               ).json()[
                collection]
            self.assertEqual([], [item['id'] for item in listed
                                  if not item.get('shared')], path)
        hidden = self.call('compute', 'GET', '/v2.1/flavors', OTHER,
                           query={'is_public': 'none'}).json()['flavors']
        self.assertNotIn(self.ids['private_flavor_id'],
                         {f['id'] for f in hidden})

    def test_admin_lists_every_projects_resources_when_asked(self):
        for api, path, collection, owned, key, query in self.LISTS:
            self.assertIn(self.ids[owned], self._listed(
                api, path, ADMIN, collection, key, query), path)

    def test_admin_lists_only_its_own_project_unless_asked(self):
        # As in Nova: all_tenants / all_projects widen the list.
        for api, path, collection, owned, key, query in self.LISTS:
            if api == 'compute':
                self.assertNotIn(self.ids[owned], self._listed(
                    api, path, ADMIN, collection, key), path)

    # -- attributes -----------------------------------------------------------

    def test_the_owner_does_not_see_admin_only_attributes(self):
        server = self.call('compute', 'GET', S.format(**self.ids),
                           OWNER).json()['server']
        self.assertEqual([], [k for k in server if
                              k.startswith('OS-EXT-SRV-ATTR:') or
                              k == 'host_status'])
        port = self.call('network', 'GET', P.format(**self.ids),
                         OWNER).json()['port']
        self.assertEqual([], [k for k in port if k in (
            'binding:host_id', 'binding:profile', 'binding:vif_type',
            'binding:vif_details', 'resource_request')])
        network = self.call('network', 'GET', N.format(**self.ids),
                            OWNER).json()['network']
        self.assertEqual([], [k for k in network
                              if k.startswith('provider:')])
        # ... which an administrator sees.
        server = self.call('compute', 'GET', S.format(**self.ids),
                           ADMIN).json()['server']
        self.assertIn('OS-EXT-SRV-ATTR:host', server)
        self.assertIn('host_status', server)
        port = self.call('network', 'GET', P.format(**self.ids),
                         ADMIN).json()['port']
        self.assertIn('binding:host_id', port)
