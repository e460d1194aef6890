"""The conductor's live-migration task and its reschedule loop.

As in ``test_evacuate_unshelve_tasks``: real databases (SQLite) and real
placement (the app, in this process); the scheduler, the compute RPC
client and the port service are stand-ins handed to the task. The
stand-in scheduler picks the first of its hosts that the request does not
ignore (and forces, when it forces one) and claims it in placement with
the request group -> provider ``mappings`` of the candidate, as the real
one does.

The server is ACTIVE on ``src`` in task_state ``migrating`` (what the API
hands over) with one port that has a minimum bandwidth resource request;
``dst`` and ``dst2`` are the candidate destinations, tried in that
order. Each compute node has a bandwidth provider as its child.

Also home of ``BindingPortService``, the in-memory port service with the
multiple port bindings extension, which the other live-migration tests
import.
"""

import copy

import oslo_messaging as messaging

from nova_lite.compute import states
from nova_lite.conductor.tasks import live_migrate
from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite.network import api as network_api
from nova_lite import objects
from tests.unit.conductor import test_evacuate_unshelve_tasks as move_fakes
from tests.unit.network import test_client_helpers as port_fakes

DESTINATIONS = ('dst', 'dst2')


class BindingPortService(port_fakes.FakePortService):
    """``FakePortService`` with the multiple port bindings extension
    (``binding-extended``) as the port service serves it: a binding made
    for another host than the port's is INACTIVE (made for a port bound
    to no host, it becomes the port's own, ACTIVE); activating it makes
    the port's ACTIVE binding INACTIVE in its place; the ACTIVE binding
    cannot be deleted. ``extensions``: the aliases it answers for."""

    def __init__(self, *ports, extensions=('binding-extended',)):
        super().__init__(*ports)
        self.extensions = set(extensions)

    def has_extension(self, alias):
        self._reachable('GET /extensions/%s' % alias)
        return alias in self.extensions

    def _inactive(self, port_id, host):
        return next((b for b in self.extra_bindings.get(port_id, [])
                     if b['host'] == host), None)

    def create_binding(self, port_id, host, profile=None):
        self._reachable('POST /ports/%s/bindings' % port_id)
        document = self._port(port_id)
        if host == document.get('binding:host_id') or \
                self._inactive(port_id, host) is not None:
            raise exception.PortUpdateFailed(
                port_id=port_id, reason='409 binding for %s exists' % host)
        binding = {'host': host, 'status': 'INACTIVE',
                   'profile': dict(profile or {}),
                   'vif_type': 'binding_failed'
                   if host in self.unbindable_hosts else 'ovs'}
        self.calls.append(('create_binding', port_id,
                           {'host': host, 'profile': dict(profile or {})}))
        if not document.get('binding:host_id'):
            document.update({'binding:host_id': host,
                             'binding:profile': dict(binding['profile']),
                             'binding:vif_type': binding['vif_type']})
            return dict(binding, status='ACTIVE')
        self.extra_bindings.setdefault(port_id, []).append(binding)
        return copy.deepcopy(binding)

    def activate_binding(self, port_id, host):
        self._reachable('PUT /ports/%s/bindings/%s/activate' % (port_id,
                                                                host))
        document = self._port(port_id)
        binding = self._inactive(port_id, host)
        if binding is None or binding['vif_type'] == 'binding_failed':
            raise exception.PortUpdateFailed(
                port_id=port_id, reason='no working binding for %s' % host)
        self.extra_bindings[port_id].remove(binding)
        if document.get('binding:host_id'):
            self.extra_bindings[port_id].append({
                'host': document['binding:host_id'], 'status': 'INACTIVE',
                'profile': dict(document.get('binding:profile') or {}),
                'vif_type': document.get('binding:vif_type')})
        document.update({'binding:host_id': host,
                         'binding:profile': dict(binding['profile']),
                         'binding:vif_type': binding['vif_type']})
        self.calls.append(('activate_binding', port_id, {'host': host}))
        return dict(binding, status='ACTIVE')

    def delete_binding(self, port_id, host):
        self._reachable('DELETE /ports/%s/bindings/%s' % (port_id, host))
        if host == self._port(port_id).get('binding:host_id'):
            raise exception.PortUpdateFailed(
                port_id=port_id, reason='409 the active binding of %s '
                                        'cannot be deleted' % host)
        binding = self._inactive(port_id, host)
        self.calls.append(('delete_binding', port_id, {'host': host}))
        if binding is not None:
            self.extra_bindings[port_id].remove(binding)

    # -- what tests read back ------------------------------------------------

    def bindings_by_host(self, port_id):
        """{host: (status, profile)} of every binding of the port."""
        return {b['host']: (b['status'], b['profile'])
                for b in self.bindings(port_id)}

    def hosts_written(self, method):
        return [attributes['host'] for name, _port, attributes in self.calls
                if name == method]


class HostsScheduler(move_fakes.FakeScheduler):
    """Picks the first of ``hosts`` that the request neither ignores nor
    leaves out by forcing or requesting another (NoValidHost when none is
    left), and
    claims it as FakeScheduler does. ``held_at_each_request``: what the
    instance and the watched consumers held when each request came."""

    def __init__(self, hosts, selection_of, reportclient, watched=list):
        super().__init__(None, reportclient, watched)
        self.hosts = list(hosts)
        self.selection_of = selection_of
        self.held_at_each_request = []

    def select_destinations(self, context, spec, uuids,
                            return_alternates=True):
        left = [h for h in self.hosts
                if h not in (spec.ignore_hosts or []) and
                (not spec.force_hosts or h in spec.force_hosts) and
                (spec.requested_destination is None or
                 h == spec.requested_destination.host)]
        self.answer = (self.selection_of(left[0]) if left else
                       exception.NoValidHost(reason='0/%d hosts are left' %
                                             len(self.hosts)))
        try:
            return super().select_destinations(context, spec, uuids,
                                               return_alternates)
        finally:
            self.held_at_each_request.append(dict(self.held_when_asked))


class LiveMigrationComputeRPC:
    """The compute RPC client of the live-migration steps. The destination
    pre-check of each host in ``refusing`` raises MigrationPreCheckError;
    hosts in ``too_old`` cannot take compute RPC 1.4; the cast raises
    ``cast_error`` when set. Records the pre-checks (``checked``:
    (destination or source, destination host)) and the casts."""

    LIVE_MIGRATION_VERSION = '1.4'

    def __init__(self, refusing=(), too_old=(), cast_error=None):
        self.version_cap = None
        self.refusing = set(refusing)
        self.too_old = set(too_old)
        self.cast_error = cast_error
        self.checked = []
        self.live_migrations = []

    def can_live_migrate(self, context, host):
        return host not in self.too_old

    def check_can_live_migrate_destination(self, context, instance, host,
                                           migrate_data):
        self.checked.append(('destination', host))
        if host in self.refusing:
            raise exception.MigrationPreCheckError(
                reason='%s refuses live migrations' % host)
        return migrate_data

    def check_can_live_migrate_source(self, context, instance,
                                      migrate_data):
        self.checked.append(('source', migrate_data.dest_host))
        return migrate_data

    def live_migration(self, context, instance, migration, migrate_data):
        if self.cast_error is not None:
            raise self.cast_error
        self.live_migrations.append((instance.uuid, instance.host,
                                     migration.uuid, migrate_data))


class LiveMigrateTestCase(move_fakes.MoveTaskTestCase):

    def setUp(self):
        super().setUp()
        self.nodes['dst2'], self.nics['dst2'] = self.compute_node('dst2')
        self.ports = BindingPortService()
        self.source_service = self.compute_service('src')
        self.instance = self.server(states.ACTIVE, states.MIGRATING,
                                    host='src')

    def compute_service(self, host):
        with nova_context.target_cell(self.admin,
                                      self.plane.databases.cell1) as cctxt:
            service = objects.Service(cctxt, host=host,
                                      binary='nova-lite-compute',
                                      topic='compute')
            service.create()
        return service

    def migrate(self, compute=None, host=None, block_migration=False,
                hosts=DESTINATIONS, scheduler=None, force=False):
        self.scheduler = scheduler or HostsScheduler(
            hosts, self.selection, self.reportclient,
            watched=lambda: [m.uuid for m in self.migrations()])
        self.compute = compute or LiveMigrationComputeRPC()
        self.task = live_migrate.LiveMigrationTask(
            self.context, self.instance, host, block_migration,
            self.scheduler, self.compute, self.reportclient, self.ports,
            force=force)
        self.task.execute()
        [self.migration] = self.migrations()

    def migrations(self):
        with nova_context.target_cell(self.admin,
                                      self.plane.databases.cell1) as cctxt:
            return list(objects.MigrationList.get_by_instance(
                cctxt, self.instance.uuid))

    def stored_migration(self):
        with nova_context.target_cell(self.admin,
                                      self.plane.databases.cell1) as cctxt:
            return objects.Migration.get_by_uuid(cctxt, self.migration.uuid)

    def cast(self):
        [(uuid, source, migration, migrate_data)] = \
            self.compute.live_migrations
        return uuid, source, migration, migrate_data

    def bindings(self):
        return self.ports.bindings_by_host(self.port['id'])

    def inactive_binding_on(self, host):
        return ('INACTIVE', {'allocation': self.nics[host]})

    def assertStillOnItsSource(self):
        """ACTIVE on src without a task, holding its source allocation,
        the migration's consumer empty, its port bound to src only."""
        stored = self.stored(self.instance)
        self.assertEqual((states.ACTIVE, None, 'src'),
                         (stored.vm_state, stored.task_state, stored.host))
        self.assertEqual((self.allocation_on('src', self.port_ids()), {}),
                         (self.resources(self.instance.uuid),
                          self.held(self.migration.uuid)))
        self.assertEqual({'src': ('ACTIVE',
                                  {'allocation': self.nics['src']})},
                         self.bindings())


# -- the way through ----------------------------------------------------------

class TestLiveMigrate(LiveMigrateTestCase):

    def test_a_live_migration_is_recorded_from_the_source(self):
        self.migrate()
        self.assertEqual(('live-migration', 'src', 'src'),
                         (self.migration.migration_type,
                          self.migration.source_compute,
                          self.migration.source_node))

    def test_the_source_allocation_moves_to_the_migration_first(self):
        self.migrate()
        [held] = self.scheduler.held_at_each_request
        self.assertEqual(
            ({}, sorted([self.nodes['src'], self.nics['src']])),
            (held[self.instance.uuid], sorted(held[self.migration.uuid])))

    def test_the_scheduler_is_asked_for_the_ports_groups_away_from_the_source(
            self):
        self.migrate()
        [spec] = self.scheduler.specs
        self.assertEqual(
            ([self.port['id']], ['src'], None, 1),
            ([g.requester_id for g in spec.requested_resources],
             spec.ignore_hosts, spec.force_hosts, spec.num_instances))

    def test_the_port_gets_an_inactive_binding_with_the_mapped_provider(
            self):
        self.migrate()
        self.assertEqual(
            {'src': ('ACTIVE', {'allocation': self.nics['src']}),
             'dst': self.inactive_binding_on('dst')},
            self.bindings())

    def test_the_server_holds_the_destination_and_the_migration_the_source(
            self):
        self.migrate()
        self.assertEqual(
            (self.allocation_on('dst', self.port_ids()),
             self.allocation_on('src', self.port_ids())),
            (self.resources(self.instance.uuid),
             self.resources(self.migration.uuid)))

    def test_the_migration_is_queued_for_the_destination(self):
        self.migrate()
        stored = self.stored_migration()
        self.assertEqual(('queued', 'dst', 'dst', 'dst'),
                         (stored.status, stored.dest_compute,
                          stored.dest_node, stored.dest_host))

    def test_both_computes_run_their_pre_checks_before_the_binding(self):
        self.migrate()
        self.assertEqual([('destination', 'dst'), ('source', 'dst')],
                         self.compute.checked)

    def test_the_source_compute_is_cast_the_migration_and_its_data(self):
        self.migrate()
        uuid, source, migration, migrate_data = self.cast()
        self.assertEqual((self.instance.uuid, 'src', self.migration.uuid),
                         (uuid, source, migration))
        self.assertEqual(
            ('src', 'src', 'dst', 'dst', False),
            (migrate_data.source_host, migrate_data.source_node,
             migrate_data.dest_host, migrate_data.dest_node,
             migrate_data.block_migration))

    def test_the_cast_names_the_bound_ports_and_their_providers(self):
        self.migrate()
        _uuid, _source, _migration, migrate_data = self.cast()
        self.assertEqual(
            ([self.port['id']], {self.port['id']: self.nics['dst']}),
            (migrate_data.bound_ports, migrate_data.port_providers))

    def test_block_migration_is_passed_on(self):
        self.migrate(block_migration=True)
        self.assertTrue(self.cast()[3].block_migration)

    def test_the_server_stays_migrating_on_its_source_for_the_compute(self):
        self.migrate()
        stored = self.stored(self.instance)
        self.assertEqual((states.ACTIVE, states.MIGRATING, 'src'),
                         (stored.vm_state, stored.task_state, stored.host))

    def test_the_conductor_event_succeeds(self):
        self.migrate()
        [event] = self.events(self.instance, 'conductor_live_migrate')
        self.assertEqual('Success', event.result)

    def test_a_requested_host_is_the_one_candidate_the_filters_judge(self):
        self.migrate(host='dst2')
        [spec] = self.scheduler.specs
        self.assertEqual(('dst2', None, None),
                         (spec.requested_destination.host,
                          spec.requested_destination.node, spec.force_hosts))
        self.assertEqual('dst2', self.cast()[3].dest_host)

    def test_a_forced_host_skips_the_filters(self):
        self.migrate(host='dst2', force=True)
        [spec] = self.scheduler.specs
        self.assertEqual((['dst2'], None),
                         (spec.force_hosts, spec.requested_destination))
        self.assertEqual('dst2', self.cast()[3].dest_host)

    def test_without_a_host_nothing_is_requested_or_forced(self):
        self.migrate(force=True)
        [spec] = self.scheduler.specs
        self.assertEqual((None, None),
                         (spec.force_hosts, spec.requested_destination))


class TestLiveMigrateWithoutPortResources(LiveMigrateTestCase):

    def setUp(self):
        super().setUp()
        self.instance = self.server(states.ACTIVE, states.MIGRATING,
                                    host='src', with_port=False)
        self.plain = self.ports.add(port_fakes.port(
            device_id=self.instance.uuid,
            project_id=self.instance.project_id, host='src'))

    def test_the_port_service_needs_no_multiple_bindings_for_it(self):
        self.ports.extensions = set()
        self.migrate()
        self.assertEqual(([], 'dst'),
                         (self.scheduler.specs[0].requested_resources,
                          self.cast()[3].dest_host))

    def test_its_port_gets_an_inactive_binding_without_an_allocation(self):
        self.migrate()
        self.assertEqual(
            (('INACTIVE', {}), {}),
            (self.ports.bindings_by_host(self.plain['id'])['dst'],
             self.cast()[3].port_providers))


# -- the reschedule loop ------------------------------------------------------

class TestReschedule(LiveMigrateTestCase):

    def test_the_next_request_ignores_a_refusing_destination(self):
        self.migrate(LiveMigrationComputeRPC(refusing={'dst'}))
        self.assertEqual([['src'], ['src', 'dst']],
                         [s.ignore_hosts for s in self.scheduler.specs])
        self.assertEqual('dst2', self.cast()[3].dest_host)

    def test_the_refusing_hosts_claim_is_given_back_before_the_next_request(
            self):
        self.migrate(LiveMigrationComputeRPC(refusing={'dst'}))
        self.assertEqual({}, self.scheduler.held_at_each_request[1][
            self.instance.uuid])
        self.assertEqual(self.allocation_on('dst2', self.port_ids()),
                         self.resources(self.instance.uuid))

    def test_the_refusing_host_gets_no_binding(self):
        self.migrate(LiveMigrationComputeRPC(refusing={'dst'}))
        self.assertEqual(['dst2'], self.ports.hosts_written('create_binding'))
        self.assertEqual({'src', 'dst2'}, set(self.bindings()))

    def test_the_next_destination_binds_with_its_own_provider(self):
        self.migrate(LiveMigrationComputeRPC(refusing={'dst'}))
        self.assertEqual(self.inactive_binding_on('dst2'),
                         self.bindings()['dst2'])
        self.assertEqual({self.port['id']: self.nics['dst2']},
                         self.cast()[3].port_providers)

    def test_the_migration_names_the_host_that_took_it(self):
        self.migrate(LiveMigrationComputeRPC(refusing={'dst'}))
        self.assertEqual(('queued', 'dst2'),
                         (self.stored_migration().status,
                          self.stored_migration().dest_compute))

    def test_a_binding_that_fails_reschedules(self):
        self.ports.unbindable_hosts.add('dst')
        self.migrate()
        self.assertEqual('dst2', self.cast()[3].dest_host)
        self.assertEqual(self.allocation_on('dst2', self.port_ids()),
                         self.resources(self.instance.uuid))

    def test_the_failed_binding_is_deleted(self):
        self.ports.unbindable_hosts.add('dst')
        self.migrate()
        self.assertEqual(['dst'], self.ports.hosts_written('delete_binding'))
        self.assertEqual({'src', 'dst2'}, set(self.bindings()))

    def test_a_destination_too_old_for_live_migration_reschedules(self):
        self.migrate(LiveMigrationComputeRPC(too_old={'dst'}))
        self.assertEqual('dst2', self.cast()[3].dest_host)
        self.assertEqual([('destination', 'dst2'), ('source', 'dst2')],
                         self.compute.checked)

    def test_a_requested_host_that_refuses_is_not_rescheduled(self):
        self.migrate(LiveMigrationComputeRPC(refusing={'dst'}), host='dst')
        self.assertEqual(['dst'], [s.requested_destination.host
                                   for s in self.scheduler.specs])
        self.assertEqual(([], 'error'), (self.compute.live_migrations,
                                         self.stored_migration().status))
        self.assertStillOnItsSource()


class TestMigrateMaxRetries(LiveMigrateTestCase):

    def migrate_with(self, max_retries, refusing):
        self.plane.config.config(migrate_max_retries=max_retries)
        self.migrate(LiveMigrationComputeRPC(refusing=refusing))

    def test_0_gives_up_after_the_first_refusal(self):
        self.migrate_with(0, {'dst'})
        self.assertEqual((1, [], 'error'),
                         (len(self.scheduler.specs),
                          self.compute.live_migrations,
                          self.stored_migration().status))

    def test_n_tries_n_more_destinations(self):
        self.migrate_with(1, {'dst'})
        self.assertEqual((2, 'dst2'), (len(self.scheduler.specs),
                                       self.cast()[3].dest_host))

    def test_n_gives_up_after_n_more_refusals(self):
        self.migrate_with(1, set(DESTINATIONS))
        self.assertEqual((2, ['dst', 'dst2'], [], 'error'),
                         (len(self.scheduler.specs), self.task.tried,
                          self.compute.live_migrations,
                          self.stored_migration().status))

    def test_minus_1_tries_until_no_host_is_left(self):
        self.migrate_with(-1, set(DESTINATIONS))
        self.assertEqual((3, list(DESTINATIONS), 'error'),
                         (len(self.scheduler.specs), self.task.tried,
                          self.stored_migration().status))
        [event] = self.events(self.instance, 'conductor_live_migrate')
        self.assertIn('no host is left', event.details)


class TestGivingUp(LiveMigrateTestCase):
    """Every destination refuses; [DEFAULT] migrate_max_retries = 1."""

    def setUp(self):
        super().setUp()
        self.plane.config.config(migrate_max_retries=1)
        self.migrate(LiveMigrationComputeRPC(refusing=set(DESTINATIONS)))

    def test_the_server_stays_active_on_its_source_without_a_task(self):
        stored = self.stored(self.instance)
        self.assertEqual((states.ACTIVE, None, 'src', None),
                         (stored.vm_state, stored.task_state, stored.host,
                          stored.fault))

    def test_the_source_allocation_comes_back_from_the_migration(self):
        self.assertEqual((self.allocation_on('src', self.port_ids()), {}),
                         (self.resources(self.instance.uuid),
                          self.held(self.migration.uuid)))

    def test_the_migration_is_error(self):
        self.assertEqual('error', self.stored_migration().status)

    def test_the_conductor_event_fails_with_each_refusal(self):
        [event] = self.events(self.instance, 'conductor_live_migrate')
        self.assertEqual('Error', event.result)
        self.assertIn('gave up after 2 destination(s)', event.details)
        self.assertIn('dst refuses live migrations', event.details)
        self.assertIn('dst2 refuses live migrations', event.details)

    def test_nothing_is_cast_and_no_binding_is_made(self):
        self.assertEqual(([], []), (self.compute.live_migrations,
                                    self.ports.hosts_written(
                                        'create_binding')))
        self.assertStillOnItsSource()


class TestNoValidHost(LiveMigrateTestCase):

    def test_no_host_at_all_leaves_the_server_on_its_source(self):
        self.migrate(hosts=())
        self.assertStillOnItsSource()
        self.assertEqual('error', self.stored_migration().status)
        [event] = self.events(self.instance, 'conductor_live_migrate')
        self.assertEqual('Error', event.result)
        self.assertIn('No valid host', event.details)

    def test_a_requested_host_the_filters_refuse_leaves_it_on_its_source(
            self):
        self.migrate(host='dst2', hosts=['dst'])
        self.assertStillOnItsSource()
        self.assertEqual(([], 'error'), (self.compute.checked,
                                         self.stored_migration().status))
        [event] = self.events(self.instance, 'conductor_live_migrate')
        self.assertIn('No valid host', event.details)


# -- refused before anything moves --------------------------------------------

class TestRefusedUpFront(LiveMigrateTestCase):

    def assertNothingMoved(self, fragment):
        self.assertEqual(([], [], 'error'),
                         (self.scheduler.specs, self.compute.checked,
                          self.stored_migration().status))
        self.assertStillOnItsSource()
        [event] = self.events(self.instance, 'conductor_live_migrate')
        self.assertIn(fragment, event.details)

    def test_a_source_compute_that_is_down(self):
        self.source_service.forced_down = True
        self.source_service.save()
        self.migrate()
        self.assertNothingMoved('the compute of the source host src is down')

    def test_a_source_without_a_compute_service(self):
        self.source_service.destroy()
        self.migrate()
        self.assertNothingMoved('src is down')

    def test_a_source_compute_too_old_for_live_migration(self):
        self.migrate(LiveMigrationComputeRPC(too_old={'src'}))
        self.assertNothingMoved('compute RPC API 1.4')

    def test_resource_request_ports_without_multiple_bindings(self):
        self.ports.extensions = set()
        self.migrate()
        self.assertNothingMoved('binding-extended')


# -- an admin cancels while it is accepted ------------------------------------

class CancellingScheduler(HostsScheduler):
    """An admin cancels the (still accepted) migration while the scheduler
    is asked, as DELETE /servers/{id}/migrations/{id} does from 2.65."""

    def __init__(self, migrations, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.migrations = migrations

    def select_destinations(self, context, spec, uuids,
                            return_alternates=True):
        [migration] = self.migrations()
        migration.status = 'cancelled'
        migration.save(expected_status=['accepted', 'queued'])
        return super().select_destinations(context, spec, uuids,
                                           return_alternates)


class TestCancelledWhileAccepted(LiveMigrateTestCase):

    def setUp(self):
        super().setUp()
        self.migrate(scheduler=CancellingScheduler(
            self.migrations, DESTINATIONS, self.selection,
            self.reportclient))

    def test_the_migration_stays_cancelled(self):
        self.assertEqual('cancelled', self.stored_migration().status)

    def test_nothing_is_cast(self):
        self.assertEqual([], self.compute.live_migrations)

    def test_it_stops_before_binding_and_its_claim_is_undone(self):
        # The cancel is seen at the next step's record (bind_destination).
        self.assertEqual([], self.ports.hosts_written('create_binding'))
        self.assertStillOnItsSource()


# -- the server is deleted while the scheduler is asked -----------------------

class DeletingScheduler:
    """The server's user deletes it while the scheduler is asked (the
    soak's delete racing a live migration): the API marks it DELETING;
    then, unless ``compute_waits``, its compute gives back everything the
    server holds -- nothing, its source being the migration's now -- and
    deletes its record. No host is found."""

    def __init__(self, stored, reportclient, compute_waits=False):
        self.stored = stored
        self.reportclient = reportclient
        self.compute_waits = compute_waits

    def select_destinations(self, context, spec, uuids,
                            return_alternates=True):
        self.stored.task_state = states.DELETING
        self.stored.save()
        if not self.compute_waits:
            self.reportclient.delete_allocations(self.stored.uuid)
            self.stored.destroy()
        raise exception.NoValidHost(reason='0/2 hosts are left')


class TestDeletedWhileScheduling(LiveMigrateTestCase):

    def test_the_source_allocation_goes_back_to_nobody(self):
        self.migrate(scheduler=DeletingScheduler(
            self.stored(self.instance), self.reportclient))
        self.assertEqual(({}, {}), (self.held(self.instance.uuid),
                                    self.held(self.migration.uuid)))
        self.assertEqual('error', self.stored_migration().status)

    def test_a_delete_its_compute_has_not_run_yet_finds_nothing_held(self):
        self.migrate(scheduler=DeletingScheduler(
            self.stored(self.instance), self.reportclient,
            compute_waits=True))
        self.assertEqual(({}, {}), (self.held(self.instance.uuid),
                                    self.held(self.migration.uuid)))
        self.assertEqual(states.DELETING,
                         self.stored(self.instance).task_state)


class TestUnsentCast(LiveMigrateTestCase):

    def test_the_claim_and_the_source_allocation_are_given_back(self):
        self.migrate(LiveMigrationComputeRPC(
            cast_error=messaging.MessageDeliveryFailure('broker down')))
        self.assertEqual((self.allocation_on('src', self.port_ids()), {},
                          'error'),
                         (self.resources(self.instance.uuid),
                          self.held(self.migration.uuid),
                          self.stored_migration().status))
        stored = self.stored(self.instance)
        self.assertEqual((states.ACTIVE, None),
                         (stored.vm_state, stored.task_state))

    def test_the_destination_bindings_made_for_it_are_deleted(self):
        self.migrate(LiveMigrationComputeRPC(
            cast_error=messaging.MessageDeliveryFailure('broker down')))
        self.assertNotIn('dst', self.bindings())


# -- the server is deleted while its destination checks ----------------------

class DeletingDestination(LiveMigrationComputeRPC):
    """The server's user deletes it while the destination runs its
    pre-check: its compute gives back what the server holds (nothing,
    its source being the migration's), releases its ports and deletes
    its record, before the conductor binds the ports on the
    destination."""

    def __init__(self, test):
        super().__init__()
        self.test = test

    def check_can_live_migrate_destination(self, context, instance, host,
                                           migrate_data):
        stored = self.test.stored(self.test.instance)
        self.test.reportclient.delete_allocations(stored.uuid)
        network_api.release_ports(self.test.ports, stored)
        stored.destroy()
        return super().check_can_live_migrate_destination(
            context, instance, host, migrate_data)


class TestDeletedWhileTheDestinationChecks(LiveMigrateTestCase):

    def setUp(self):
        super().setUp()
        self.migrate(DeletingDestination(self))

    def test_the_released_port_is_left_bound_to_no_host(self):
        # Its binding on the destination, made on a port bound nowhere,
        # became the port's own; the undo binds it to no host again.
        self.assertEqual({'': ('ACTIVE', {})}, self.bindings())
        self.assertEqual(('', None), (
            self.ports.ports[self.port['id']]['device_id'],
            self.ports.ports[self.port['id']]['binding:host_id']))

    def test_nothing_is_held_and_nothing_is_cast(self):
        self.assertEqual(({}, {}, []), (self.held(self.instance.uuid),
                                        self.held(self.migration.uuid),
                                        self.compute.live_migrations))

    def test_the_migration_is_error_naming_the_released_port(self):
        self.assertEqual('error', self.stored_migration().status)
        self.assertIn('Port %s was released' % self.port['id'],
                      self.logs.output)
