"""Taking over interrupted builds: the claim a conductor makes on each
build request it was cast, and ``recover.InterruptedBuilds`` (stale build
requests built again; servers stuck in BUILD in a cell failed to ERROR).

The databases (SQLite) and placement (the app, in this process) are real.
The scheduler and the compute RPC client are stand-ins passed to the
task: the scheduler claims in placement as the real one does, and records
what each server held when it was asked. The port service is the
in-memory stand-in. A dead daemon's work is aged by writing its
timestamps with SQL, as the clock would have.
"""

import datetime
import threading

import fixtures
from oslo_serialization import jsonutils
from oslo_utils import uuidutils
import sqlalchemy as sa
import testtools

from nova_lite.compute import instance_actions
from nova_lite.compute import states
from nova_lite.conductor import leases
from nova_lite.conductor.tasks import build
from nova_lite.conductor.tasks import recover
from nova_lite import context as nova_context
from nova_lite.db import api as db
from nova_lite.db import api_models
from nova_lite.db import main_models
from nova_lite import exception
from nova_lite import lifecycle
from nova_lite import objects
from nova_lite.objects import base
from nova_lite import servicegroup
from tests.unit import fixtures as nl_fixtures
from tests.unit.network import test_client_helpers as port_fakes
from tests.unit.objects import test_migration_and_groups as db_fixtures
from tests.unit.scheduler import test_report_groups as placement_fixtures

TIMEOUT = 300
FLAVOR_USAGE = {'VCPU': 1, 'MEMORY_MB': 512, 'DISK_GB': 1}


def ago(seconds):
    return base.utcnow() - datetime.timedelta(seconds=seconds)


class FakeScheduler:
    """Chooses ``hosts[0]`` for every server it is asked about, claiming
    its allocation in placement as the scheduler does (a claim for a
    consumer that already holds something fails, as placement refuses
    it). Records the servers asked about and what each held then."""

    def __init__(self, test, error=None):
        self.test = test
        self.error = error
        self.asked = []
        self.held_when_asked = {}
        self._lock = threading.Lock()

    def select_destinations(self, context, spec, uuids):
        with self._lock:
            self.asked.extend(uuids)
        for uuid in uuids:
            self.held_when_asked[uuid] = self.test.resources(uuid)
        if self.error is not None:
            raise self.error
        answer = []
        for uuid in uuids:
            selection = self.test.selection('h1')
            assert self.test.reportclient.claim_resources(
                uuid, selection.allocation, 'p', 'u'), \
                'placement refused the claim of %s' % uuid
            answer.append([selection])
        return answer


class RecordingCompute:
    def __init__(self):
        self.builds = []
        self._lock = threading.Lock()

    def build_and_run_instance(self, context, instance, host, **kwargs):
        with self._lock:
            self.builds.append((instance.uuid, host.service_host))


class RecoverTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.logs = self.useFixture(fixtures.FakeLogger())
        db_fixtures.use_migrated_databases(self)
        self.plane = self.useFixture(nl_fixtures.ControlPlane())
        self.cell0 = self.plane.databases.cell0
        self.cell1 = self.plane.databases.cell1
        self.context = nova_context.RequestContext(user_id='u',
                                                   project_id='p')
        self.admin = nova_context.get_admin_context()
        self.flavor = objects.Flavor(
            self.admin, flavorid='1', name='small', memory_mb=512, vcpus=1,
            root_gb=1, ephemeral_gb=0, swap=0)
        self.flavor.create()
        self.reportclient = self.useFixture(
            placement_fixtures.InProcessPlacement()).client()
        self.providers = {}
        for host in ('h1', 'h2'):
            self.providers[host] = uuidutils.generate_uuid()
            self.reportclient.ensure_resource_provider(self.providers[host],
                                                       host)
            self.reportclient.set_inventory(self.providers[host], {
                'VCPU': {'total': 4}, 'MEMORY_MB': {'total': 2048},
                'DISK_GB': {'total': 10}})
            # Its compute node record: the provider is this deployment's.
            with self.in_cell() as cctxt:
                objects.ComputeNode(
                    cctxt, uuid=self.providers[host], host=host,
                    hypervisor_hostname=host, hypervisor_type='fake',
                    hypervisor_version=1, vcpus=4, memory_mb=2048,
                    local_gb=10, vcpus_used=0, memory_mb_used=0,
                    local_gb_used=0, free_ram_mb=2048, free_disk_gb=10,
                    running_vms=0, current_workload=0,
                    cpu_allocation_ratio=1.0, ram_allocation_ratio=1.0,
                    disk_allocation_ratio=1.0).create()
        self.ports = port_fakes.FakePortService()
        self.scheduler = FakeScheduler(self)
        self.compute = RecordingCompute()

    # -- placement --------------------------------------------------------

    def selection(self, host):
        rp = self.providers[host]
        return objects.Selection(
            compute_node_uuid=rp, service_host=host, nodename=host,
            cell_uuid=self.cell1.uuid, limits=objects.SchedulerLimits(),
            allocation_request=jsonutils.dumps({'allocations': {
                rp: {'resources': dict(FLAVOR_USAGE)}}}))

    def allocate(self, consumer, host):
        self.reportclient.put_allocations(
            consumer, {self.providers[host]: {
                'resources': dict(FLAVOR_USAGE)}}, 'p', 'u')

    def resources(self, consumer):
        return {rp: a['resources'] for rp, a in self.reportclient
                .get_allocations(consumer)['allocations'].items()}

    # -- the API database ---------------------------------------------------

    def accepted(self, seconds_ago=0, claimed_seconds_ago=None):
        """What the API writes for one server (a BuildRequest, its spec
        and an unmapped mapping), accepted ``seconds_ago``; claimed by a
        conductor ``claimed_seconds_ago`` (None: by none)."""
        uuid = uuidutils.generate_uuid()
        instance = objects.Instance(
            self.context, uuid=uuid, display_name='vm', project_id='p',
            user_id='u', flavor=self.flavor, vm_state=states.BUILDING,
            task_state=states.SCHEDULING, power_state=0,
            created_at=base.utcnow())
        spec = objects.RequestSpec(self.context, instance_uuid=uuid,
                                   flavor=self.flavor, num_instances=1)
        spec.create()
        request = objects.BuildRequest(self.context, instance_uuid=uuid,
                                       project_id='p', instance=instance)
        request.create()
        objects.InstanceMapping(self.context, instance_uuid=uuid,
                                project_id='p', cell_mapping=None).create()
        values = {}
        if seconds_ago:
            values.update(created_at=ago(seconds_ago),
                          updated_at=ago(seconds_ago))
        if claimed_seconds_ago is not None:
            values['claimed_at'] = ago(claimed_seconds_ago)
        if values:
            with db.api_session() as session:
                session.execute(sa.update(api_models.BuildRequest).where(
                    api_models.BuildRequest.instance_uuid == uuid)
                    .values(**values))
        return request, spec

    def age_claim(self, uuid, seconds_ago):
        with db.api_session() as session:
            session.execute(sa.update(api_models.BuildRequest).where(
                api_models.BuildRequest.instance_uuid == uuid)
                .values(claimed_at=ago(seconds_ago)))

    def build_request_exists(self, uuid):
        try:
            objects.BuildRequest.get_by_instance_uuid(self.admin, uuid)
        except exception.BuildRequestNotFound:
            return False
        return True

    def mapped_cell(self, uuid):
        cell = objects.InstanceMapping.get_by_instance_uuid(
            self.admin, uuid).cell_mapping
        return cell.name if cell is not None else None

    # -- the cells ------------------------------------------------------------

    def in_cell(self, cell=None):
        return nova_context.target_cell(self.admin, cell or self.cell1)

    def instances_in(self, cell):
        with self.in_cell(cell) as cctxt:
            return list(objects.InstanceList.get_by_filters(
                cctxt, {}, expected_attrs=['fault']))

    def stored(self, uuid, cell=None):
        with self.in_cell(cell) as cctxt:
            return objects.Instance.get_by_uuid(cctxt, uuid,
                                                expected_attrs=['fault'])

    def building(self, host=None, task_state=states.SCHEDULING,
                 seconds_ago=TIMEOUT + 100, display_name='vm', restarts=0):
        """A server in BUILD in cell1, mapped there, holding its flavor on
        h1 and a port bound there, last changed ``seconds_ago``; its build
        was cut off and restarted ``restarts`` times before."""
        uuid = uuidutils.generate_uuid()
        with self.in_cell() as cctxt:
            instance = objects.Instance(
                cctxt, uuid=uuid, project_id='p', user_id='u',
                display_name=display_name, vm_state=states.BUILDING,
                task_state=task_state, power_state=0, host=host, node=host,
                flavor=self.flavor, system_metadata={
                    lifecycle.BUILD_RESTARTS: str(restarts)})
            instance.create()
        objects.InstanceMapping(self.admin, instance_uuid=uuid,
                                project_id='p',
                                cell_mapping=self.cell1).create()
        objects.RequestSpec(self.admin, instance_uuid=uuid,
                            flavor=self.flavor, num_instances=1,
                            project_id='p', user_id='u').create()
        self.allocate(uuid, 'h1')
        self.ports.add(port_fakes.port(device_id=uuid, host='h1',
                                       project_id='p'))
        self.age(uuid, seconds_ago)
        return instance

    def age(self, uuid, seconds_ago, cell=None):
        with self.in_cell(cell) as cctxt:
            with db.cell_session(cctxt) as session:
                session.execute(sa.update(main_models.Instance).where(
                    main_models.Instance.uuid == uuid).values(
                        updated_at=ago(seconds_ago)))

    def compute_service(self, host, down=False):
        with self.in_cell() as cctxt:
            service = objects.Service(cctxt, host=host,
                                      binary=servicegroup.COMPUTE_BINARY,
                                      topic='compute')
            service.create()
            if down:
                with db.cell_session(cctxt) as session:
                    session.execute(sa.update(main_models.Service).where(
                        main_models.Service.id == service.id).values(
                            last_seen_up=ago(600), updated_at=ago(600)))
        return service

    def bound_ports(self, uuid):
        return [p['id'] for p in self.ports.list_ports(device_id=uuid)
                if p.get('binding:host_id')]

    def events(self, uuid, cell=None):
        """{event name: event} of every action of ``uuid``."""
        found = {}
        with self.in_cell(cell) as cctxt:
            for action in objects.InstanceActionList.get_by_instance_uuid(
                    cctxt, uuid):
                for event in objects.InstanceActionEventList \
                        .get_by_action(cctxt, action.id):
                    found[event.event] = (action.action, event)
        return found

    def actions(self, uuid, cell=None):
        with self.in_cell(cell) as cctxt:
            return sorted(a.action for a in objects.InstanceActionList
                          .get_by_instance_uuid(cctxt, uuid))

    def recover(self, scheduler=None, compute=None):
        return recover.InterruptedBuilds(
            self.admin, TIMEOUT, scheduler or self.scheduler,
            compute or self.compute, self.reportclient,
            ports=self.ports).run()


# -- the claim on the cast path -----------------------------------------------

class TestCastPathClaims(RecoverTestCase):
    """What a conductor does with a schedule_and_build_instances cast: it
    builds only the build requests it claims."""

    def setUp(self):
        super().setUp()
        (self.taken, taken_spec), (self.ours, ours_spec) = \
            self.accepted(), self.accepted()
        # Another conductor took ``taken`` over while this cast waited.
        self.assertTrue(objects.BuildRequest.claim(
            self.admin, self.taken.instance_uuid, 'another-conductor'))
        build.ScheduleAndBuildTask(
            self.context, self.scheduler, self.compute,
            [self.taken, self.ours], [taken_spec, ours_spec], None,
            self.reportclient).execute()

    def test_the_request_another_conductor_claimed_is_not_scheduled(self):
        self.assertEqual([self.ours.instance_uuid], self.scheduler.asked)

    def test_nothing_is_created_or_sent_for_the_claimed_request(self):
        uuid = self.taken.instance_uuid
        self.assertEqual(([], [], True, None),
                         ([i.uuid for i in self.instances_in(self.cell1)
                           if i.uuid == uuid],
                          [i.uuid for i in self.instances_in(self.cell0)],
                          self.build_request_exists(uuid),
                          self.mapped_cell(uuid)))
        self.assertEqual({}, self.resources(uuid))

    def test_the_other_request_is_built(self):
        uuid = self.ours.instance_uuid
        self.assertEqual([(uuid, 'h1')], self.compute.builds)
        self.assertEqual(('cell1', False),
                         (self.mapped_cell(uuid),
                          self.build_request_exists(uuid)))


class TestCastPathGivesBackOnSchedulingFailure(RecoverTestCase):

    def test_a_claim_left_by_a_failed_scheduling_is_given_back(self):
        request, spec = self.accepted()
        # What a scheduler that claimed and then timed out leaves.
        self.allocate(request.instance_uuid, 'h2')
        self.scheduler.error = exception.NoValidHost(reason='timed out')
        build.ScheduleAndBuildTask(
            self.context, self.scheduler, self.compute, [request], [spec],
            None, self.reportclient).execute()
        self.assertEqual(({}, 'cell0'),
                         (self.resources(request.instance_uuid),
                          self.mapped_cell(request.instance_uuid)))


# -- stale build requests -----------------------------------------------------

class TestStaleBuildRequestRebuilt(RecoverTestCase):
    """A conductor died after claiming a build request: nothing else
    happened."""

    def setUp(self):
        super().setUp()
        self.request, _spec = self.accepted(seconds_ago=TIMEOUT + 200,
                                            claimed_seconds_ago=TIMEOUT + 100)
        self.uuid = self.request.instance_uuid
        self.counts = self.recover()

    def test_it_is_scheduled_again(self):
        self.assertEqual([self.uuid], self.scheduler.asked)

    def test_it_is_sent_to_the_chosen_compute(self):
        self.assertEqual([(self.uuid, 'h1')], self.compute.builds)

    def test_its_build_request_is_gone(self):
        self.assertFalse(self.build_request_exists(self.uuid))

    def test_it_is_in_the_cell_and_mapped_there(self):
        stored = self.stored(self.uuid)
        self.assertEqual((states.BUILDING, 'cell1'),
                         (stored.vm_state, self.mapped_cell(self.uuid)))

    def test_it_holds_the_chosen_hosts_allocation(self):
        self.assertEqual({self.providers['h1']: FLAVOR_USAGE},
                         self.resources(self.uuid))

    def test_its_history_shows_a_create(self):
        self.assertEqual(['create'], self.actions(self.uuid))

    def test_it_is_counted_as_rebuilt(self):
        self.assertEqual({'rebuilt': 1, 'stuck': 0}, self.counts)


class TestStaleBuildRequestUndone(RecoverTestCase):
    """What a dead conductor had done before it died is undone first."""

    def test_a_never_claimed_request_accepted_long_ago_is_built(self):
        # Its cast was lost: no conductor ever claimed it.
        request, _spec = self.accepted(seconds_ago=TIMEOUT + 100)
        self.recover()
        self.assertEqual([(request.instance_uuid, 'h1')],
                         self.compute.builds)

    def test_a_half_created_instance_is_removed_before_it_is_built(self):
        request, _spec = self.accepted(seconds_ago=TIMEOUT + 200,
                                       claimed_seconds_ago=TIMEOUT + 100)
        uuid = request.instance_uuid
        # The dead conductor had created it in cell1 and mapped it there.
        with self.in_cell() as cctxt:
            objects.Instance(
                cctxt, uuid=uuid, project_id='p', user_id='u',
                display_name='half-built', vm_state=states.BUILDING,
                task_state=states.SCHEDULING, power_state=0,
                flavor=self.flavor).create()
        mapping = objects.InstanceMapping.get_by_instance_uuid(self.admin,
                                                               uuid)
        mapping.cell_mapping = self.cell1
        mapping.save()
        self.recover()
        self.assertEqual(
            ([uuid], [], 'vm', 'cell1', [(uuid, 'h1')]),
            ([i.uuid for i in self.instances_in(self.cell1)],
             [i.uuid for i in self.instances_in(self.cell0)],
             self.stored(uuid).display_name, self.mapped_cell(uuid),
             self.compute.builds))

    def test_the_old_allocation_is_given_back_before_scheduling(self):
        request, _spec = self.accepted(seconds_ago=TIMEOUT + 200,
                                       claimed_seconds_ago=TIMEOUT + 100)
        uuid = request.instance_uuid
        # The dead conductor's scheduler had claimed h2 for it.
        self.allocate(uuid, 'h2')
        self.recover()
        self.assertEqual(({}, {self.providers['h1']: FLAVOR_USAGE}),
                         (self.scheduler.held_when_asked[uuid],
                          self.resources(uuid)))

    def test_a_rebuild_from_cell0_is_recorded_as_a_rebuild(self):
        request, _spec = self.accepted(seconds_ago=TIMEOUT + 200,
                                       claimed_seconds_ago=TIMEOUT + 100)
        uuid = request.instance_uuid
        # Its history in cell0: a create that found no host.
        create_request = nova_context.RequestContext(user_id='u',
                                                     project_id='p')
        with nova_context.target_cell(create_request, self.cell0) as c0ctxt:
            with instance_actions.event(
                    c0ctxt, uuid,
                    'conductor_schedule_and_build_instances',
                    action=instance_actions.CREATE) as step:
                step.fail('No valid host was found.')
        self.recover()
        self.assertEqual((['create', 'rebuild'], []),
                         (self.actions(uuid), self.actions(uuid,
                                                           self.cell0)))


class TestHalfBuriedInCell0(RecoverTestCase):
    """A conductor died while it buried a build that found no host: the
    instance is in cell0 (with its fault, its history and the mapping
    pointing there) but the build request was not deleted yet. The
    takeover builds it, and it must then exist only where it was built."""

    def setUp(self):
        super().setUp()
        self.request, spec = self.accepted(seconds_ago=TIMEOUT + 200,
                                           claimed_seconds_ago=TIMEOUT + 100)
        self.uuid = self.request.instance_uuid
        # What bury_in_cell0 had done before its conductor was killed.
        self.real_destroy = objects.BuildRequest.destroy

        def killed(request, owner=None):
            raise KeyboardInterrupt('SIGKILL')
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.objects.BuildRequest.destroy', killed))
        self.assertRaises(
            KeyboardInterrupt, lifecycle.bury_in_cell0, self.context,
            objects.BuildRequest.get_by_instance_uuid(self.admin, self.uuid),
            spec, exception.NoValidHost(reason='none'))
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.objects.BuildRequest.destroy', self.real_destroy))
        self.assertEqual(([self.uuid], 'cell0'),
                         ([i.uuid for i in self.instances_in(self.cell0)],
                          self.mapped_cell(self.uuid)))
        self.recover()

    def test_it_is_in_cell1_only(self):
        self.assertEqual(
            ([self.uuid], [], 'cell1', False),
            ([i.uuid for i in self.instances_in(self.cell1)],
             [i.uuid for i in self.instances_in(self.cell0)],
             self.mapped_cell(self.uuid),
             self.build_request_exists(self.uuid)))

    def test_it_is_sent_to_its_compute_once(self):
        self.assertEqual([(self.uuid, 'h1')], self.compute.builds)

    def test_the_burials_fault_goes_with_its_record(self):
        with self.in_cell(self.cell0) as c0ctxt:
            with db.cell_session(c0ctxt) as session:
                faults = session.execute(sa.select(
                    main_models.InstanceFault.message).where(
                        main_models.InstanceFault.instance_uuid ==
                        self.uuid)).scalars().all()
        self.assertEqual([], faults)


class TestLiveOwnerKeepsItsBuild(RecoverTestCase):
    """A conductor still working on a build renews its lease: however
    long ago it claimed the build, no other conductor takes it over."""

    def test_a_renewed_lease_is_left_alone(self):
        request, _spec = self.accepted(seconds_ago=TIMEOUT + 200)
        uuid = request.instance_uuid
        owner = leases.BuildLeases()
        self.assertTrue(owner.claim(self.admin, uuid))
        self.age_claim(uuid, TIMEOUT + 100)
        self.assertEqual(1, owner.renew(self.admin))
        self.recover()
        self.assertEqual(([], [], True),
                         (self.scheduler.asked, self.compute.builds,
                          self.build_request_exists(uuid)))

    def test_a_lease_nobody_renews_is_taken_over(self):
        request, _spec = self.accepted(seconds_ago=TIMEOUT + 200)
        uuid = request.instance_uuid
        owner = leases.BuildLeases()
        self.assertTrue(owner.claim(self.admin, uuid))
        self.age_claim(uuid, TIMEOUT + 100)
        self.recover()
        self.assertEqual(([(uuid, 'h1')], False, 0),
                         (self.compute.builds,
                          self.build_request_exists(uuid),
                          owner.renew(self.admin)))

    def test_a_stalled_task_of_the_taking_over_conductor_is_fenced_out(
            self):
        # One conductor process: a cast's build stalled past its lease
        # (its renewal could not run: the database was away), and that
        # same conductor takes it over. While the takeover waits for the
        # scheduler, the stalled task wakes up with its own NoValidHost:
        # it must not bury the server the takeover is building.
        request, spec = self.accepted(seconds_ago=TIMEOUT + 200)
        uuid = request.instance_uuid
        conductor = leases.BuildLeases()
        stalled = conductor.task()
        self.assertTrue(stalled.claim(self.admin, uuid))
        self.age_claim(uuid, TIMEOUT + 100)
        scheduler = self.scheduler
        answer = scheduler.select_destinations

        def stalled_task_wakes_up(context, spec_obj, uuids):
            late = FakeScheduler(self, exception.NoValidHost(reason='late'))
            build.ScheduleAndBuildTask(
                self.context, late, self.compute, [request], [spec], None,
                self.reportclient, claimed=True, leases=stalled).execute()
            return answer(context, spec_obj, uuids)
        scheduler.select_destinations = stalled_task_wakes_up
        recover.InterruptedBuilds(
            self.admin, TIMEOUT, scheduler, self.compute,
            self.reportclient, ports=self.ports, leases=conductor).run()
        self.assertEqual(
            ([uuid], [], 'cell1', {self.providers['h1']: FLAVOR_USAGE},
             [(uuid, 'h1')]),
            ([i.uuid for i in self.instances_in(self.cell1)],
             [i.uuid for i in self.instances_in(self.cell0)],
             self.mapped_cell(uuid), self.resources(uuid),
             self.compute.builds))

    def test_one_renewal_keeps_every_task_of_the_conductor(self):
        conductor = leases.BuildLeases()
        uuids = []
        for _ in range(2):
            request, _spec = self.accepted(seconds_ago=TIMEOUT + 200)
            uuids.append(request.instance_uuid)
            self.assertTrue(conductor.task().claim(self.admin, uuids[-1]))
            self.age_claim(uuids[-1], TIMEOUT + 100)
        self.assertEqual(2, conductor.renew(self.admin))
        self.assertEqual({'rebuilt': 0, 'stuck': 0}, self.recover())

    def test_the_owner_that_lost_its_build_changes_nothing(self):
        # It stalled past its lease; another conductor took the build
        # over and built it. Its own answer from the scheduler (NoValidHost)
        # then arrives: it must neither bury the server nor give back the
        # new owner's allocation.
        request, spec = self.accepted(seconds_ago=TIMEOUT + 200)
        uuid = request.instance_uuid
        stalled = leases.BuildLeases()
        self.assertTrue(stalled.claim(self.admin, uuid))
        self.age_claim(uuid, TIMEOUT + 100)
        self.recover()
        self.scheduler.error = exception.NoValidHost(reason='late')
        build.ScheduleAndBuildTask(
            self.context, self.scheduler, self.compute, [request], [spec],
            None, self.reportclient, claimed=True, leases=stalled).execute()
        self.assertEqual(
            ([uuid], [], 'cell1', {self.providers['h1']: FLAVOR_USAGE}),
            ([i.uuid for i in self.instances_in(self.cell1)],
             [i.uuid for i in self.instances_in(self.cell0)],
             self.mapped_cell(uuid), self.resources(uuid)))


class TestStaleBuildRequestFailures(RecoverTestCase):

    def test_no_valid_host_buries_it_in_cell0_holding_nothing(self):
        request, _spec = self.accepted(seconds_ago=TIMEOUT + 100)
        uuid = request.instance_uuid
        self.allocate(uuid, 'h2')
        self.scheduler.error = exception.NoValidHost(reason='full')
        self.recover()
        [buried] = self.instances_in(self.cell0)
        self.assertEqual((uuid, states.ERROR, 'cell0', {}, False),
                         (buried.uuid, buried.vm_state,
                          self.mapped_cell(uuid), self.resources(uuid),
                          self.build_request_exists(uuid)))

    def test_a_request_deleted_after_it_was_listed_is_not_built(self):
        request, _spec = self.accepted(seconds_ago=TIMEOUT + 100)
        get_stale = objects.BuildRequestList.get_stale

        def listed_then_deleted(cls, context, stale_before, limit=50):
            found = get_stale(context, stale_before, limit)
            # The user deletes the server as the API does.
            objects.BuildRequest.get_by_instance_uuid(
                self.admin, request.instance_uuid).destroy()
            objects.RequestSpec(self.admin, instance_uuid=request
                                .instance_uuid).destroy()
            return found
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.objects.build_request.BuildRequestList.get_stale',
            listed_then_deleted))
        self.assertEqual({'rebuilt': 0, 'stuck': 0}, self.recover())
        self.assertEqual(([], [], []),
                         (self.scheduler.asked, self.compute.builds,
                          self.instances_in(self.cell1)))

    def test_a_request_without_a_mapping_does_not_stop_the_others(self):
        # An API killed between writing the BuildRequest and the mapping
        # leaves one; it must not keep every other takeover from running.
        orphan, _spec = self.accepted(seconds_ago=TIMEOUT + 200)
        objects.InstanceMapping(
            self.admin, instance_uuid=orphan.instance_uuid).destroy()
        request, _spec = self.accepted(seconds_ago=TIMEOUT + 100)
        stuck = self.building(host=None)
        self.recover()
        self.assertIn((request.instance_uuid, 'h1'), self.compute.builds)
        self.assertIn((stuck.uuid, 'h1'), self.compute.builds)


class TestFreshBuildRequest(RecoverTestCase):

    def test_an_unclaimed_fresh_request_is_left_alone(self):
        request, _spec = self.accepted(seconds_ago=TIMEOUT - 100)
        self.assertEqual({'rebuilt': 0, 'stuck': 0}, self.recover())
        self.assertEqual(([], [], True),
                         (self.scheduler.asked, self.compute.builds,
                          self.build_request_exists(request.instance_uuid)))

    def test_a_request_claimed_recently_is_left_alone(self):
        # Accepted long ago, but its conductor is working on it.
        request, _spec = self.accepted(seconds_ago=TIMEOUT + 100,
                                       claimed_seconds_ago=10)
        self.recover()
        self.assertEqual(([], True),
                         (self.scheduler.asked,
                          self.build_request_exists(request.instance_uuid)))


class TestConcurrentTakeovers(RecoverTestCase):

    def test_two_runs_at_once_build_a_stale_request_once(self):
        request, _spec = self.accepted(seconds_ago=TIMEOUT + 200,
                                       claimed_seconds_ago=TIMEOUT + 100)
        # Both conductors list the request before either claims it.
        both_listed = threading.Barrier(2, timeout=20)
        get_stale = objects.BuildRequestList.get_stale

        def listed_by_both(cls, context, stale_before, limit=50):
            found = get_stale(context, stale_before, limit)
            both_listed.wait()
            return found
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.objects.build_request.BuildRequestList.get_stale',
            listed_by_both))
        counts, errors = [], []

        def conductor():
            try:
                counts.append(self.recover())
            except Exception as e:  # reported by the assertion below
                errors.append(e)
        threads = [threading.Thread(target=conductor) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        self.assertEqual([], errors)
        uuid = request.instance_uuid
        self.assertEqual(
            ([uuid], [(uuid, 'h1')], [1, 0], [uuid], []),
            (self.scheduler.asked, self.compute.builds,
             sorted((c['rebuilt'] for c in counts), reverse=True),
             [i.uuid for i in self.instances_in(self.cell1)],
             self.instances_in(self.cell0)))


# -- servers stuck in BUILD in a cell -----------------------------------------

class TestNeverSentToACompute(RecoverTestCase):
    """BUILD / scheduling with no host, long ago: its cast to a compute
    was lost. It is scheduled again, holding nothing but the new claim."""

    def setUp(self):
        super().setUp()
        self.instance = self.building(host=None)
        self.counts = self.recover()
        self.stored_instance = self.stored(self.instance.uuid)

    def test_it_is_scheduled_and_sent_to_a_compute_again(self):
        self.assertEqual(([self.instance.uuid],
                          [(self.instance.uuid, 'h1')]),
                         (self.scheduler.asked, self.compute.builds))
        self.assertEqual((states.BUILDING, states.SCHEDULING, None),
                         (self.stored_instance.vm_state,
                          self.stored_instance.task_state,
                          self.stored_instance.host))

    def test_the_scheduler_was_asked_holding_nothing(self):
        self.assertEqual({}, self.scheduler.held_when_asked[
            self.instance.uuid])
        self.assertEqual({self.providers['h1']: FLAVOR_USAGE},
                         self.resources(self.instance.uuid))

    def test_its_fault_says_why(self):
        self.assertIn('never started on a compute',
                      self.stored_instance.fault.details)

    def test_an_instance_action_event_records_the_failure(self):
        action, event = self.events(self.instance.uuid)[
            'conductor_recover_interrupted_build']
        self.assertEqual((instance_actions.CREATE, 'Error'),
                         (action, event.result))

    def test_its_ports_are_released(self):
        self.assertEqual([], self.bound_ports(self.instance.uuid))
        self.assertEqual([], self.ports.ports_of(self.instance))

    def test_it_is_counted(self):
        self.assertEqual({'rebuilt': 0, 'stuck': 1}, self.counts)


class TestInACellWhileItsBuildRequestIsLeased(RecoverTestCase):
    """Its conductor created it in cell1 long ago and still holds the
    build request's lease (it renewed it since): the server is that
    conductor's build, not one whose cast to a compute was lost."""

    def setUp(self):
        super().setUp()
        request, _spec = self.accepted(seconds_ago=TIMEOUT + 200,
                                       claimed_seconds_ago=1)
        self.uuid = request.instance_uuid
        with self.in_cell() as cctxt:
            objects.Instance(
                cctxt, uuid=self.uuid, project_id='p', user_id='u',
                display_name='vm', vm_state=states.BUILDING,
                task_state=states.SCHEDULING, power_state=0,
                flavor=self.flavor).create()
        self.age(self.uuid, TIMEOUT + 100)
        self.allocate(self.uuid, 'h1')
        self.counts = self.recover()

    def test_it_is_neither_rebuilt_nor_restarted(self):
        self.assertEqual(({'rebuilt': 0, 'stuck': 0}, [], []),
                         (self.counts, self.scheduler.asked,
                          self.compute.builds))

    def test_what_its_conductor_made_is_left_alone(self):
        stored = self.stored(self.uuid)
        self.assertEqual(
            (states.SCHEDULING, None, True,
             {self.providers['h1']: FLAVOR_USAGE}),
            (stored.task_state, stored.fault,
             self.build_request_exists(self.uuid),
             self.resources(self.uuid)))


class TestAStrayOfABuildTakenOver(RecoverTestCase):
    """A server in BUILD in cell1 long ago whose mapping points at another
    cell: a build that lost its lease made it after its new owner put the
    server elsewhere, and died before it removed it."""

    def test_only_the_stray_record_goes(self):
        instance = self.building(host=None)
        mapping = objects.InstanceMapping.get_by_instance_uuid(
            self.admin, instance.uuid)
        mapping.cell_mapping = self.cell0
        mapping.save()
        self.assertEqual({'rebuilt': 0, 'stuck': 0}, self.recover())
        self.assertEqual(
            ([], [], [], {self.providers['h1']: FLAVOR_USAGE}, 'cell0'),
            (self.instances_in(self.cell1), self.scheduler.asked,
             self.compute.builds, self.resources(instance.uuid),
             self.mapped_cell(instance.uuid)))


class TestRenewedBetweenTheLookAndTheRestart(RecoverTestCase):
    """The look read it stale; its conductor wrote it (renewed its build)
    before the takeover's restart: the restart is refused."""

    def _restart(self, instance):
        with self.in_cell() as cctxt:
            instance._context = cctxt
            return lifecycle.restart_interrupted_build(
                cctxt, instance, exception.BuildAbortException(
                    instance_uuid=instance.uuid, reason='test'),
                stale_for=TIMEOUT)

    def test_a_renewed_build_stays_its_conductors(self):
        instance = self.building(host=None)
        self.age(instance.uuid, 0)
        outcome = self._restart(instance)
        stored = self.stored(instance.uuid)
        self.assertEqual((None, None, '0'),
                         (outcome, stored.fault, stored.system_metadata[
                             lifecycle.BUILD_RESTARTS]))

    def test_a_stale_one_is_restarted(self):
        instance = self.building(host=None)
        self.assertEqual((lifecycle.RESCHEDULED, '1'),
                         (self._restart(instance),
                          self.stored(instance.uuid).system_metadata[
                              lifecycle.BUILD_RESTARTS]))


class TestRestartedTooOften(RecoverTestCase):
    """A build cut off [scheduler] max_attempts times already."""

    def setUp(self):
        super().setUp()
        self.instance = self.building(host=None, restarts=3)
        self.counts = self.recover()
        self.stored_instance = self.stored(self.instance.uuid)

    def test_it_goes_to_error_holding_nothing(self):
        self.assertEqual((states.ERROR, None, None, [], {}, []),
                         (self.stored_instance.vm_state,
                          self.stored_instance.task_state,
                          self.stored_instance.host, self.scheduler.asked,
                          self.resources(self.instance.uuid),
                          self.ports.ports_of(self.instance)))
        self.assertIn('never started on a compute',
                      self.stored_instance.fault.details)


class TestComputeDown(RecoverTestCase):
    """BUILD / spawning on h1, long ago, and h1's compute is down."""

    def setUp(self):
        super().setUp()
        self.compute_service('h1', down=True)
        self.instance = self.building(host='h1',
                                      task_state=states.SPAWNING)
        self.counts = self.recover()
        self.stored_instance = self.stored(self.instance.uuid)

    def test_it_is_scheduled_again_on_no_host(self):
        self.assertEqual((states.BUILDING, states.SCHEDULING, None, None),
                         (self.stored_instance.vm_state,
                          self.stored_instance.task_state,
                          self.stored_instance.host,
                          self.stored_instance.node))
        self.assertEqual([(self.instance.uuid, 'h1')], self.compute.builds)

    def test_its_fault_names_the_compute(self):
        self.assertIn('its compute h1 is down',
                      self.stored_instance.fault.details)

    def test_an_instance_action_event_records_the_failure(self):
        self.assertIn('conductor_recover_interrupted_build',
                      self.events(self.instance.uuid))

    def test_the_scheduler_was_asked_holding_nothing(self):
        self.assertEqual({}, self.scheduler.held_when_asked[
            self.instance.uuid])

    def test_its_ports_are_released(self):
        self.assertEqual([], self.ports.ports_of(self.instance))


class TestLeftAlone(RecoverTestCase):

    def assertUntouched(self, instance, task_state):
        stored = self.stored(instance.uuid)
        self.assertEqual((states.BUILDING, task_state, None,
                          {self.providers['h1']: FLAVOR_USAGE}, 1),
                         (stored.vm_state, stored.task_state, stored.fault,
                          self.resources(instance.uuid),
                          len(self.bound_ports(instance.uuid))))

    def test_a_build_on_a_compute_that_is_up(self):
        self.compute_service('h1')
        instance = self.building(host='h1', task_state=states.SPAWNING)
        self.assertEqual({'rebuilt': 0, 'stuck': 0}, self.recover())
        self.assertUntouched(instance, states.SPAWNING)

    def test_a_fresh_build_never_sent_to_a_compute(self):
        instance = self.building(host=None, seconds_ago=TIMEOUT - 100)
        self.recover()
        self.assertUntouched(instance, states.SCHEDULING)

    def test_a_fresh_build_on_a_compute_that_is_down(self):
        self.compute_service('h1', down=True)
        instance = self.building(host='h1', task_state=states.SPAWNING,
                                 seconds_ago=TIMEOUT - 100)
        self.recover()
        self.assertUntouched(instance, states.SPAWNING)

    def test_a_hostless_build_in_another_task_than_scheduling(self):
        instance = self.building(host=None, task_state=states.NETWORKING)
        self.recover()
        self.assertUntouched(instance, states.NETWORKING)

    def test_a_server_in_cell0(self):
        with self.in_cell(self.cell0) as cctxt:
            instance = objects.Instance(
                cctxt, uuid=uuidutils.generate_uuid(), project_id='p',
                user_id='u', display_name='vm', vm_state=states.BUILDING,
                task_state=states.SCHEDULING, power_state=0,
                flavor=self.flavor)
            instance.create()
        self.age(instance.uuid, TIMEOUT + 100, cell=self.cell0)
        self.assertEqual({'rebuilt': 0, 'stuck': 0}, self.recover())


class TestConcurrentStateChange(RecoverTestCase):
    """The build resumes between the takeover's read and its save (a
    queued cast reaching a restarted compute): the takeover backs off."""

    def setUp(self):
        super().setUp()
        self.instance = self.building(host=None)
        get_by_filters = objects.InstanceList.get_by_filters
        uuid = self.instance.uuid
        resumed = []

        def read_then_resumed(cls, context, filters, *args, **kwargs):
            found = get_by_filters(context, filters, *args, **kwargs)
            if uuid in [i.uuid for i in found] and not resumed:
                again = objects.Instance.get_by_uuid(context, uuid)
                again.host = again.node = 'h1'
                again.task_state = states.SPAWNING
                again.save(expected_task_state=[states.SCHEDULING])
                resumed.append(again)
            return found
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.objects.instance.InstanceList.get_by_filters',
            read_then_resumed))
        self.counts = self.recover()

    def test_the_resumed_build_keeps_its_state(self):
        stored = self.stored(self.instance.uuid)
        self.assertEqual((states.BUILDING, states.SPAWNING, 'h1', None),
                         (stored.vm_state, stored.task_state, stored.host,
                          stored.fault))

    def test_it_keeps_its_allocation_and_ports(self):
        self.assertEqual(({self.providers['h1']: FLAVOR_USAGE}, 1),
                         (self.resources(self.instance.uuid),
                          len(self.bound_ports(self.instance.uuid))))

    def test_nothing_is_counted_or_recorded(self):
        self.assertEqual(({'rebuilt': 0, 'stuck': 0}, {}),
                         (self.counts, self.events(self.instance.uuid)))


# -- a cell that does not answer ----------------------------------------------

class TestACellThatDoesNotAnswer(RecoverTestCase):
    """A cell whose database is down is skipped and logged; the next run
    looks at it again."""

    def stops_answering(self, cell):
        """``cell``'s database goes down; a function that brings it back."""
        url = cell.database_connection
        cell.database_connection = nl_fixtures.UNREACHABLE_DB
        cell.save()

        def answers_again():
            cell.database_connection = url
            cell.save()
        return answers_again

    def test_a_stuck_build_in_another_cell_is_still_taken_over(self):
        nl_fixtures.map_unreachable_cell(self.admin)
        instance = self.building(host=None)
        self.assertEqual({'rebuilt': 0, 'stuck': 1}, self.recover())
        self.assertEqual([(instance.uuid, 'h1')], self.compute.builds)
        self.assertIn('Skipping cell cell9 in a look for interrupted builds',
                      self.logs.output)

    def test_a_stale_build_request_is_not_taken_over_meanwhile(self):
        # The dead conductor may have created it there.
        nl_fixtures.map_unreachable_cell(self.admin)
        request, _spec = self.accepted(seconds_ago=TIMEOUT + 100)
        uuid = request.instance_uuid
        self.assertEqual({'rebuilt': 0, 'stuck': 0}, self.recover())
        self.assertEqual(([], True, None),
                         (self.scheduler.asked,
                          self.build_request_exists(uuid),
                          self.mapped_cell(uuid)))
        self.assertIn('Not taking over the build of %s now' % uuid,
                      self.logs.output)

    def test_a_later_run_takes_it_over_once_the_cell_answers(self):
        request, _spec = self.accepted(seconds_ago=TIMEOUT + 100)
        uuid = request.instance_uuid
        answers_again = self.stops_answering(self.cell1)
        self.recover()
        answers_again()
        self.age_claim(uuid, TIMEOUT + 100)
        self.assertEqual({'rebuilt': 1, 'stuck': 0}, self.recover())
        self.assertEqual([(uuid, 'h1')], self.compute.builds)
