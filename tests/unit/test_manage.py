"""nova-lite-manage commands that read every cell, against real SQLite
API and cell databases: a cell whose database does not answer is named on
standard error with what it left undone, the other cells are still
served, and the exit status is 1 -- never a traceback.

And ``placement heal_allocations``, against the real placement
application in this process and the in-memory port service: what a
server on a host is missing (its whole allocation, a port's resource
request) is written, each port bound with its provider, and a server
that cannot be healed is left as it was."""

import io
import types

import fixtures
from oslo_utils import uuidutils
import testtools

from nova_lite import allocation_heal
from nova_lite.cmd import manage
from nova_lite.compute import states
from nova_lite import conf as nova_conf
from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite.network import placement_sync
from nova_lite import objects
from nova_lite import placement_client
from tests.unit import fixtures as nova_fixtures
from tests.unit.network import test_client_helpers as port_fakes
from tests.unit.objects import test_migration_and_groups as db_fixtures

CONF = nova_conf.CONF


class _ConfWithCommand:
    """CONF as ``nova-lite-manage`` leaves it: the chosen command's
    options in ``CONF.command``, the rest the configuration."""

    def __init__(self, **options):
        self.command = types.SimpleNamespace(**options)

    def __getattr__(self, name):
        return getattr(CONF, name)


class ManageTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(fixtures.FakeLogger())
        self.config = self.useFixture(nova_fixtures.Config())
        self.databases = self.useFixture(db_fixtures.MigratedDatabases())
        self.context = nova_context.get_admin_context()
        self.stdout = self.useFixture(fixtures.MonkeyPatch(
            'sys.stdout', io.StringIO())).new_value
        self.stderr = self.useFixture(fixtures.MonkeyPatch(
            'sys.stderr', io.StringIO())).new_value

    def manage(self, command, **options):
        """Run ``command`` (a function of manage) with ``options`` as its
        command-line options; its exit status."""
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.cmd.manage.CONF', _ConfWithCommand(**options)))
        return command() or 0

    def add_compute(self, host):
        with nova_context.target_cell(self.context,
                                      self.databases.cell1) as cctxt:
            objects.ComputeNode(
                cctxt, host=host, hypervisor_hostname=host,
                hypervisor_type='fake', hypervisor_version=1, vcpus=8,
                memory_mb=4096, local_gb=100, vcpus_used=0,
                memory_mb_used=0, local_gb_used=0, free_ram_mb=4096,
                free_disk_gb=100, running_vms=0, current_workload=0,
                cpu_allocation_ratio=1.0, ram_allocation_ratio=1.0,
                disk_allocation_ratio=1.0).create()

    def assertDownCellReported(self, consequence):
        self.assertIn('ERROR: cell cell9 did not answer (Cannot reach the '
                      'database', self.stderr.getvalue())
        self.assertIn('): %s. Run the command again when it is back.' %
                      consequence, self.stderr.getvalue())


class TestEveryCellAnswers(ManageTestCase):

    def test_discover_hosts_maps_and_exits_0(self):
        self.add_compute('compute1')
        self.assertEqual(0, self.manage(manage.discover_hosts,
                                        cell_uuid=None, verbose=False))
        self.assertEqual('Mapped host compute1 to cell cell1\n',
                         self.stdout.getvalue())
        self.assertEqual('', self.stderr.getvalue())


class TestADownCell(ManageTestCase):

    def setUp(self):
        super().setUp()
        nova_fixtures.map_unreachable_cell(self.context)

    def test_discover_hosts_maps_the_other_cells_hosts_and_exits_1(self):
        self.add_compute('compute1')
        self.assertEqual(1, self.manage(manage.discover_hosts,
                                        cell_uuid=None, verbose=False))
        self.assertEqual('Mapped host compute1 to cell cell1\n',
                         self.stdout.getvalue())
        self.assertDownCellReported('its hosts were not discovered')

    def test_db_sync_syncs_the_other_cells_and_exits_1(self):
        self.assertEqual(1, self.manage(manage.db_sync, version=None))
        self.assertIn('Synced cell cell0', self.stdout.getvalue())
        self.assertDownCellReported('its database was not synced')

    def test_heal_allocations_heals_the_other_cells_and_exits_1(self):
        self.assertEqual(1, self.manage(manage.placement_heal_allocations,
                                        **HEAL_OPTIONS))
        self.assertIn('0 instance(s) checked', self.stdout.getvalue())
        self.assertDownCellReported('its instances were not checked')

    def test_placement_audit_calls_nothing_orphaned_and_exits_1(self):
        # Nothing listens there: placement is not even asked.
        self.config.config(endpoint_override='http://127.0.0.1:9',
                           group='placement')
        self.assertEqual(1, self.manage(manage.placement_audit,
                                        delete=True))
        self.assertEqual('', self.stdout.getvalue())
        self.assertDownCellReported('its instances cannot be told from '
                                    'orphans, so no allocation was audited')


# -- placement heal_allocations ----------------------------------------------

EGRESS = port_fakes.EGRESS
FLAVOR_USAGE = {'VCPU': 1, 'MEMORY_MB': 512, 'DISK_GB': 1}
HEAL_OPTIONS = dict(verbose=False, dry_run=False,
                    skip_port_allocations=False, instance=None)


class HealAllocationsTestCase(ManageTestCase):
    """Host h1: a compute node in cell1, its provider, and the bandwidth
    provider of physnet0 under it (10000 kbps egress), as the port service
    makes it (``placement_sync``)."""

    def setUp(self):
        super().setUp()
        self.useFixture(nova_fixtures.PlacementServer())
        self.placement = placement_client.PlacementClient()
        self.ports = port_fakes.FakePortService()
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.network.api.PortClient', lambda: self.ports))
        self.node = self.compute_node('h1')
        self.bandwidth = placement_sync.bandwidth_provider_uuid('h1',
                                                                'physnet0')

    def compute_node(self, host):
        with nova_context.target_cell(self.context,
                                      self.databases.cell1) as cctxt:
            node = objects.ComputeNode(
                cctxt, host=host, hypervisor_hostname=host,
                hypervisor_type='fake', hypervisor_version=1, vcpus=8,
                memory_mb=4096, local_gb=100, cpu_allocation_ratio=1.0,
                ram_allocation_ratio=1.0, disk_allocation_ratio=1.0)
            node.create()
        self.placement.ensure_resource_provider(node.uuid, host)
        self.placement.set_inventory(node.uuid, {
            'VCPU': {'total': 8}, 'MEMORY_MB': {'total': 4096},
            'DISK_GB': {'total': 100}})
        self.assertTrue(placement_sync.sync_agent(host, {
            'resource_provider_bandwidths': {
                'physnet0': {'egress': 10000, 'ingress': 0}}},
            self.placement))
        return node.uuid

    def server(self, holds=FLAVOR_USAGE, task_state=None, host='h1'):
        """A server of cell1 on ``host``, holding ``holds`` on h1's node
        (None: nothing)."""
        with nova_context.target_cell(self.context,
                                      self.databases.cell1) as cctxt:
            instance = objects.Instance(
                cctxt, uuid=uuidutils.generate_uuid(), project_id='p',
                user_id='u', display_name='vm', vm_state=states.ACTIVE,
                task_state=task_state, host=host, node=host,
                flavor=objects.Flavor(
                    id=1, flavorid='1', name='small', memory_mb=512,
                    vcpus=1, root_gb=1, ephemeral_gb=0, swap=0))
            instance.create()
        if holds:
            self.placement.put_allocations(
                instance.uuid, {self.node: {'resources': dict(holds)}},
                'p', 'u')
        return instance

    def port_of(self, instance, egress=1000, named=True, **kwargs):
        """A port of ``instance`` bound to h1 with a bandwidth request;
        ``named``: its profile names h1's bandwidth provider (besides
        what ``profile`` holds)."""
        kwargs.setdefault('host', 'h1')
        profile = dict(kwargs.pop('profile', {}))
        if named:
            profile['allocation'] = self.bandwidth
        return self.ports.add(port_fakes.port(
            device_id=instance.uuid, project_id='p', egress=egress,
            profile=profile, **kwargs))

    def heal(self, **options):
        return self.manage(manage.placement_heal_allocations,
                           **dict(HEAL_OPTIONS, **options))

    def allocations(self, instance):
        return {rp: a['resources'] for rp, a in
                self.placement.get_allocations(instance.uuid)[
                    'allocations'].items()}

    def profile(self, port):
        return self.ports.ports[port['id']]['binding:profile']

    def assertSummary(self, text):
        self.assertIn(text, self.stdout.getvalue())

    def written_meanwhile(self, *holdings, task_state=None):
        """The n-th write of a heal finds the allocation written after
        the heal read it (``holdings[n]`` on h1's node), as the compute's
        audit may write it; with ``task_state``, the server starts that
        task meanwhile."""
        write = allocation_heal.write_allocation
        left = list(holdings)

        def written_first(placement, heal):
            if left:
                self.placement.put_allocations(
                    heal.instance.uuid,
                    {self.node: {'resources': left.pop(0)}}, 'p', 'u')
                if task_state is not None:
                    with nova_context.target_cell(
                            self.context, self.databases.cell1) as cctxt:
                        instance = objects.Instance.get_by_uuid(
                            cctxt, heal.instance.uuid)
                        instance.task_state = task_state
                        instance.save()
            return write(placement, heal)
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.allocation_heal.write_allocation', written_first))


class TestHealPortRequests(HealAllocationsTestCase):

    def test_a_ports_missing_request_is_added_on_its_bandwidth_provider(
            self):
        instance = self.server()
        self.port_of(instance)
        self.assertEqual(0, self.heal())
        self.assertEqual({self.node: FLAVOR_USAGE,
                          self.bandwidth: {EGRESS: 1000}},
                         self.allocations(instance))
        # Its profile named the provider already: the port is not written.
        self.assertEqual([], self.ports.writes())
        self.assertSummary('1 instance(s) checked: 1 allocation(s) written '
                           '(0 written whole, 1 port resource request(s) '
                           'added), 0 skipped (in a task), 0 not healed.')
        self.assertEqual('', self.stderr.getvalue())

    def test_a_port_whose_profile_names_no_provider_is_bound_with_it(self):
        instance = self.server()
        port = self.port_of(instance, named=False,
                            profile={'kept': 'yes'})
        self.assertEqual(0, self.heal())
        self.assertEqual({self.node: FLAVOR_USAGE,
                          self.bandwidth: {EGRESS: 1000}},
                         self.allocations(instance))
        self.assertEqual({'allocation': self.bandwidth, 'kept': 'yes'},
                         self.profile(port))
        [(port_id, written)] = self.ports.writes()
        self.assertEqual('h1', written['binding:host_id'])

    def test_a_server_holding_nothing_gets_its_flavor_and_its_ports(self):
        instance = self.server(holds=None)
        self.port_of(instance)
        self.assertEqual(0, self.heal(verbose=True))
        self.assertEqual({self.node: FLAVOR_USAGE,
                          self.bandwidth: {EGRESS: 1000}},
                         self.allocations(instance))
        self.assertIn('Wrote allocations of %s on h1' % instance.uuid,
                      self.stdout.getvalue())
        self.assertSummary('1 allocation(s) written (1 written whole, 1 '
                           'port resource request(s) added)')

    def test_two_ports_on_one_provider_are_both_added(self):
        instance = self.server()
        self.port_of(instance, egress=1000)
        self.port_of(instance, egress=2500, named=False)
        self.assertEqual(0, self.heal())
        self.assertEqual({EGRESS: 3500},
                         self.allocations(instance)[self.bandwidth])

    def test_a_port_whose_request_is_held_is_left_alone(self):
        instance = self.server(holds=None)
        self.placement.put_allocations(instance.uuid, {
            self.node: {'resources': FLAVOR_USAGE},
            self.bandwidth: {'resources': {EGRESS: 1000}}}, 'p', 'u')
        self.port_of(instance)
        generation = self.placement.get_allocations(instance.uuid)[
            'consumer_generation']
        self.assertEqual(0, self.heal())
        self.assertEqual(generation, self.placement.get_allocations(
            instance.uuid)['consumer_generation'])
        self.assertSummary('0 allocation(s) written')

    def test_a_second_run_finds_nothing_missing(self):
        instance = self.server()
        self.port_of(instance, named=False)
        self.assertEqual(0, self.heal())
        self.assertEqual(0, self.heal())
        self.assertEqual(1, len(self.ports.writes()))
        self.assertSummary('1 instance(s) checked: 0 allocation(s) written')


class TestHealOptions(HealAllocationsTestCase):

    def test_skip_port_allocations_leaves_the_ports_alone(self):
        instance = self.server()
        port = self.port_of(instance, named=False)
        self.assertEqual(0, self.heal(skip_port_allocations=True))
        self.assertEqual({self.node: FLAVOR_USAGE},
                         self.allocations(instance))
        self.assertEqual({}, self.profile(port))
        self.assertSummary('0 allocation(s) written')

    def test_skip_port_allocations_still_writes_a_missing_flavor(self):
        instance = self.server(holds=None)
        self.port_of(instance)
        self.assertEqual(0, self.heal(skip_port_allocations=True))
        self.assertEqual({self.node: FLAVOR_USAGE},
                         self.allocations(instance))

    def test_a_dry_run_says_what_it_would_write_and_writes_nothing(self):
        instance = self.server()
        port = self.port_of(instance, named=False)
        self.assertEqual(0, self.heal(dry_run=True))
        self.assertEqual({self.node: FLAVOR_USAGE},
                         self.allocations(instance))
        self.assertEqual([], self.ports.writes())
        self.assertIn('Would write port %s\'s %s=1000 in the allocations '
                      'of %s on %s' % (port['id'], EGRESS, instance.uuid,
                                       self.bandwidth),
                      self.stdout.getvalue())
        self.assertSummary('1 allocation(s) to write (0 written whole, 1 '
                           'port resource request(s) added), 0 skipped (in '
                           'a task), 0 not healed. Dry run: nothing was '
                           'written.')

    def test_instance_heals_that_server_only(self):
        healed, other = self.server(), self.server()
        self.port_of(healed)
        self.port_of(other)
        self.assertEqual(0, self.heal(instance=healed.uuid))
        self.assertIn(self.bandwidth, self.allocations(healed))
        self.assertNotIn(self.bandwidth, self.allocations(other))

    def test_an_instance_that_is_no_uuid_is_refused_with_exit_2(self):
        self.assertEqual(2, self.heal(instance='vm1'))
        self.assertIn("--instance takes a server's UUID, got 'vm1'",
                      self.stderr.getvalue())

    def test_an_instance_on_no_host_is_refused_with_exit_2(self):
        missing = uuidutils.generate_uuid()
        self.assertEqual(2, self.heal(instance=missing))
        self.assertIn('no server %s on a host' % missing,
                      self.stderr.getvalue())

    def test_a_server_in_a_task_is_left_alone(self):
        instance = self.server(holds=None, task_state='migrating')
        self.port_of(instance)
        self.assertEqual(0, self.heal())
        self.assertEqual({}, self.allocations(instance))
        self.assertSummary('1 skipped (in a task)')


class TestServersThatCannotBeHealed(HealAllocationsTestCase):
    """Exit status 3, the server named on standard error with why, and
    nothing of it written; the other servers are healed."""

    def assertNotHealed(self, instance, *fragments):
        errors = self.stderr.getvalue()
        self.assertIn('ERROR: Instance %s not healed: ' % instance.uuid,
                      errors)
        for fragment in fragments:
            self.assertIn(fragment, errors)
        self.assertSummary('1 not healed.')

    def test_a_request_too_big_for_the_bandwidth_provider(self):
        instance = self.server()
        port = self.port_of(instance, egress=20000, named=False)
        healed = self.server()
        self.port_of(healed)
        self.assertEqual(3, self.heal())
        self.assertNotHealed(
            instance, 'no resource provider of compute node h1 (%s) and '
            'its children has the traits CUSTOM_PHYSNET_PHYSNET0, '
            'CUSTOM_VNIC_TYPE_NORMAL and room for port %s\'s %s=20000' % (
                self.node, port['id'], EGRESS))
        self.assertEqual({self.node: FLAVOR_USAGE},
                         self.allocations(instance))
        self.assertEqual({}, self.profile(port))
        self.assertIn(self.bandwidth, self.allocations(healed))

    def test_a_request_for_a_physical_network_the_host_lacks(self):
        instance = self.server()
        self.port_of(instance, traits=('CUSTOM_PHYSNET_PHYSNET9',
                                       port_fakes.VNIC_TRAIT))
        self.assertEqual(3, self.heal())
        self.assertNotHealed(instance, 'traits CUSTOM_PHYSNET_PHYSNET9')
        self.assertEqual({self.node: FLAVOR_USAGE},
                         self.allocations(instance))

    def test_a_port_that_cannot_be_bound_gives_the_allocation_back(self):
        instance = self.server()
        port = self.port_of(instance, named=False, profile={'kept': 1})
        self.ports.unbindable_hosts.add('h1')
        self.assertEqual(3, self.heal())
        self.assertNotHealed(instance, 'Binding port %s to h1 failed' %
                             port['id'], 'nothing was changed')
        self.assertEqual({self.node: FLAVOR_USAGE},
                         self.allocations(instance))
        self.assertEqual({'kept': 1}, self.profile(port))

    def test_a_server_holding_nothing_holds_nothing_after_a_failed_bind(
            self):
        instance = self.server(holds=None)
        self.port_of(instance, named=False)
        self.ports.unbindable_hosts.add('h1')
        self.assertEqual(3, self.heal())
        self.assertEqual({}, self.allocations(instance))

    def test_a_second_port_failing_undoes_the_first_and_the_allocation(
            self):
        instance = self.server()
        first = self.port_of(instance, port_id='1' * 8, named=False)
        second = self.port_of(instance, port_id='2' * 8, named=False)
        update_port = self.ports.update_port

        def refusing_the_second(port_id, **attributes):
            if port_id == second['id'] and 'binding:host_id' in attributes:
                raise exception.PortUpdateFailed(
                    port_id=port_id, reason='409 refused')
            return update_port(port_id, **attributes)
        self.ports.update_port = refusing_the_second
        self.assertEqual(3, self.heal())
        self.assertNotHealed(instance, 'Updating port %s failed: 409 '
                             'refused' % second['id'], 'nothing was changed')
        self.assertEqual({self.node: FLAVOR_USAGE},
                         self.allocations(instance))
        self.assertEqual(({}, {}), (self.profile(first),
                                    self.profile(second)))

    def test_an_undo_that_fails_says_what_is_left(self):
        instance = self.server()
        self.port_of(instance, named=False)
        self.ports.unbindable_hosts.add('h1')

        def placement_gone(*args):
            raise placement_client.PlacementUnavailable(reason='refused')
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.allocation_heal.give_back_allocation',
            placement_gone))
        self.assertEqual(3, self.heal())
        self.assertNotHealed(instance, 'undoing failed: the allocation '
                             'written is still there', 'nova-lite-manage '
                             'audit shows what is left')

    def test_a_resource_request_that_cannot_be_read(self):
        instance = self.server()
        port = self.port_of(instance)
        port['resource_request']['resources'][EGRESS] = 'lots'
        self.ports.add(port)
        self.assertEqual(3, self.heal())
        self.assertNotHealed(instance, 'port %s has a resource request that '
                             'cannot be read' % port['id'])

    def test_a_port_bound_to_another_host(self):
        instance = self.server()
        self.port_of(instance, host='h2')
        self.assertEqual(3, self.heal())
        self.assertNotHealed(instance, 'is bound to h2, not to the '
                             'server\'s host h1')
        self.assertEqual({self.node: FLAVOR_USAGE},
                         self.allocations(instance))

    def test_ports_that_cannot_be_read(self):
        instance = self.server()
        self.ports.down = True
        self.assertEqual(3, self.heal())
        self.assertNotHealed(instance, 'its ports cannot be read')

    def test_a_node_without_a_record(self):
        instance = self.server(holds=None, host='ghost')
        self.assertEqual(3, self.heal())
        self.assertNotHealed(instance, 'its compute node ghost/ghost has '
                             'no record')

    def test_an_allocation_that_keeps_changing(self):
        instance = self.server()
        self.port_of(instance)
        self.written_meanwhile(*({'VCPU': vcpus} for vcpus in
                                 range(2, 2 + allocation_heal.REPLANS)))
        self.assertEqual(3, self.heal())
        self.assertNotHealed(instance, 'its allocation changed each of the '
                             '3 times it was about to be written')
        self.assertEqual({self.node: {'VCPU': 4}},
                         self.allocations(instance))


class TestAllocationsWrittenMeanwhile(HealAllocationsTestCase):
    """The heal reads a server's allocation, then writes against that
    reading: one written in between is read again, never overwritten."""

    def test_one_the_compute_healed_meanwhile_is_left_as_it_is(self):
        instance = self.server(holds=None)
        self.written_meanwhile(FLAVOR_USAGE)
        self.assertEqual(0, self.heal())
        self.assertEqual({self.node: FLAVOR_USAGE},
                         self.allocations(instance))
        self.assertSummary('1 instance(s) checked: 0 allocation(s) written')

    def test_one_still_missing_a_port_is_healed_from_the_new_reading(self):
        instance = self.server()
        self.port_of(instance)
        self.written_meanwhile({'VCPU': 2, 'MEMORY_MB': 256})
        self.assertEqual(0, self.heal())
        self.assertEqual({self.node: {'VCPU': 2, 'MEMORY_MB': 256},
                          self.bandwidth: {EGRESS: 1000}},
                         self.allocations(instance))

    def test_a_server_that_started_a_task_meanwhile_is_left_to_it(self):
        instance = self.server(holds=None)
        self.port_of(instance)
        self.written_meanwhile({'VCPU': 1}, task_state='migrating')
        self.assertEqual(0, self.heal())
        self.assertEqual({self.node: {'VCPU': 1}},
                         self.allocations(instance))
