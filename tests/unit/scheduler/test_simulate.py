"""``simulate.run()`` on JSON cases, and ``nova-lite-manage scheduler
simulate`` on the command line."""

import json
import os
import subprocess
import sys

import fixtures
import testtools

from nova_lite import conf as nova_conf
from nova_lite import exception
from nova_lite.scheduler import simulate
from tests.unit import fixtures as nova_fixtures
from tests.unit.scheduler.fakes import add_cases

CONF = nova_conf.CONF


def host(name, **fields):
    """A host of the case: 8 vCPUs, 4 GB of RAM, 100 GB of disk, all free
    but what the daemons' defaults reserve (512 MB of RAM)."""
    return dict({'host': name, 'vcpus': 8, 'memory_mb': 4096,
                 'local_gb': 100}, **fields)


def make_case(hosts=None, config=None, aggregates=None, **request):
    """A case placing one 512 MB instance on hosts ``a`` and ``b``."""
    case = {'hosts': hosts if hosts is not None else [host('a'), host('b')],
            'request': dict({'flavor': {'vcpus': 1, 'memory_mb': 512,
                                        'root_gb': 1}}, **request)}
    if config is not None:
        case['config'] = config
    if aggregates is not None:
        case['aggregates'] = aggregates
    return case


def filters_config(*names):
    return {'filter_scheduler': {'enabled_filters': list(names)}}


class SimulateTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.config = self.useFixture(nova_fixtures.Config())

    def chosen(self, case):
        answer = simulate.run(case)
        self.assertNotIn('error', answer)
        return answer['chosen_hosts']


class TestRun(SimulateTestCase):

    def test_equal_weights_keep_the_input_order(self):
        hosts = [host('c'), host('a'), host('b')]
        self.assertEqual(['c'], self.chosen(make_case(hosts)))

    def test_multi_create_spreads_over_equal_hosts_in_input_order(self):
        hosts = [host('c'), host('a'), host('b')]
        self.assertEqual(['c', 'a', 'b'],
                         self.chosen(make_case(hosts, num_instances=3)))

    def test_best_weighed_host_wins_over_input_order(self):
        hosts = [host('a', free_ram_mb=1024), host('b')]
        self.assertEqual(['b'], self.chosen(make_case(hosts)))

    def test_selection_gives_node_limits_and_alternates(self):
        hosts = [host('a', nodename='a-node', ram_allocation_ratio=1.5),
                 host('b')]
        answer = simulate.run(make_case(hosts, config=filters_config(
            'RamFilter', 'CoreFilter', 'DiskFilter')))
        self.assertEqual(
            [{'instance': 'instance-0', 'host': 'a', 'nodename': 'a-node',
              'limits': {'memory_mb': 6144, 'vcpu': 32, 'disk_gb': 100},
              'alternates': [{'host': 'b', 'nodename': 'b'}]}],
            answer['selections'])

    def test_alternates_are_capped_by_max_attempts(self):
        hosts = [host(name) for name in 'abcd']
        answer = simulate.run(make_case(
            hosts, config={'scheduler': {'max_attempts': 2}}))
        self.assertEqual([[{'host': 'b', 'nodename': 'b'}]],
                         [s['alternates'] for s in answer['selections']])

    def test_no_valid_host_is_the_answers_error(self):
        hosts = [host('a', memory_mb=256), host('b', service={'up': False})]
        answer = simulate.run(make_case(hosts))
        self.assertEqual(
            {'type': 'NoValidHost',
             'message': 'No valid host was found. 0/2 hosts available: '
                        '1 not enough free resources in placement, '
                        '1 compute service down or disabled'},
            answer['error'])

    def test_a_request_fails_as_a_whole(self):
        answer = simulate.run(make_case([host('a', memory_mb=512)],
                                        num_instances=2))
        self.assertEqual(([], [], 'NoValidHost'),
                         (answer['chosen_hosts'], answer['selections'],
                          answer['error']['type']))

    def test_unsupported_policy_is_the_answers_error(self):
        answer = simulate.run(make_case(
            config=filters_config('ComputeFilter'),
            server_group={'policy': 'affinity'}))
        self.assertEqual('UnsupportedPolicy', answer['error']['type'])

    def test_unknown_filter_in_the_config_is_a_configuration_error(self):
        self.assertRaises(exception.ConfigurationError, simulate.run,
                          make_case(config=filters_config('NoSuchFilter')))


class TestTrace(SimulateTestCase):

    def test_each_instance_has_its_trace_in_order(self):
        answer = simulate.run(make_case(num_instances=2))
        self.assertEqual(
            [('instance-0', 'a'), ('instance-1', 'b')],
            [(step['instance'], step['chosen'])
             for step in answer['instances']])

    def test_trace_says_what_each_filter_removed_and_why(self):
        hosts = [host('a', service={'up': False}), host('b')]
        answer = simulate.run(make_case(
            hosts, config=filters_config('ComputeFilter', 'RamFilter')))
        self.assertEqual(
            [{'filter': 'ComputeFilter',
              'reason': 'compute service down or disabled',
              'removed': [{'host': 'a', 'nodename': 'a',
                           'why': 'compute service down or disabled'}]},
             {'filter': 'RamFilter', 'reason': 'insufficient RAM',
              'removed': []}],
            answer['instances'][0]['filters'])

    def test_trace_counts_the_hosts_placement_has_no_room_on(self):
        hosts = [host('a', memory_mb=1000), host('b')]
        answer = simulate.run(make_case(hosts, config=filters_config(
            'ComputeFilter')))
        self.assertEqual(
            (1, {'filter': 'placement',
                 'reason': 'not enough free resources in placement',
                 'removed': [{'host': 'a', 'nodename': 'a',
                              'why': 'not enough free resources in '
                                     'placement'}]}, 'b'),
            (answer['instances'][0]['candidates'],
             answer['instances'][0]['filters'][0],
             answer['instances'][0]['chosen']))

    def test_trace_ranks_the_hosts_that_passed_with_their_weights(self):
        hosts = [host('a', free_ram_mb=1024), host('b'),
                 host('c', free_ram_mb=3072)]
        answer = simulate.run(make_case(
            hosts,
            config={'filter_scheduler': {'weight_classes': ['RAMWeigher']}}))
        self.assertEqual(
            [{'host': 'b', 'nodename': 'b', 'weight': 1.0},
             {'host': 'c', 'nodename': 'c', 'weight': round(3072 / 3584, 6)},
             {'host': 'a', 'nodename': 'a', 'weight': round(1024 / 3584, 6)}],
            answer['instances'][0]['ranking'])

    def test_trace_of_the_instance_without_host(self):
        answer = simulate.run(make_case([host('a', memory_mb=256)]))
        [step] = answer['instances']
        self.assertEqual((0, None, []),
                         (step['candidates'], step['chosen'],
                          step['ranking']))

    def test_trace_lists_the_ignored_hosts(self):
        answer = simulate.run(make_case(ignore_hosts=['a']))
        [step] = answer['instances']
        self.assertEqual(
            (1, ['a'], False, 'b',
             {'filter': 'ignore_hosts', 'reason': 'ignored host',
              'removed': [{'host': 'a', 'nodename': 'a',
                           'why': 'ignored host'}]}),
            (step['candidates'], step['ignored'], step['forced'],
             step['chosen'], step['filters'][0]))

    def test_a_requested_destination_is_filtered_not_forced(self):
        answer = simulate.run(make_case(
            [host('a'), host('b', memory_mb=256)],
            requested_destination={'host': 'b'}))
        self.assertEqual(
            'No valid host was found. 0/2 hosts available: 1 not enough '
            'free resources in placement, 1 not the requested host',
            answer['error']['message'])
        [step] = answer['instances']
        self.assertEqual((False, ['a']), (step['forced'], step['ignored']))

    def test_a_requested_destination_needs_a_host(self):
        error = self.assertRaises(simulate.CaseError, simulate.run,
                                  make_case(requested_destination={
                                      'node': 'b'}))
        self.assertIn('request.requested_destination needs "host"',
                      error.format_message())

    def test_trace_says_when_hosts_were_forced(self):
        answer = simulate.run(make_case(force_hosts=['b']))
        [step] = answer['instances']
        self.assertEqual((True, 'b', ['force_hosts']),
                         (step['forced'], step['chosen'],
                          [f['filter'] for f in step['filters']]))


class TestCaseDescription(SimulateTestCase):

    def test_host_in_a_zone(self):
        hosts = [host('a'), host('b', availability_zone='az1')]
        self.assertEqual(['b'], self.chosen(make_case(
            hosts, availability_zone='az1')))

    def test_host_without_zone_is_in_the_default_zone(self):
        # (With AvailabilityZoneFilter: placement alone does not keep a
        # request for the default zone off the other zones' hosts.)
        hosts = [host('a', availability_zone='az1'), host('b')]
        self.assertEqual(['b'], self.chosen(make_case(
            hosts, availability_zone='nova',
            config=filters_config('AvailabilityZoneFilter'))))

    def test_host_joins_the_aggregates_it_names(self):
        hosts = [host('a'), host('b', aggregates=['fast'])]
        self.assertEqual(['b'], self.chosen(make_case(
            hosts, aggregates=[{'name': 'fast', 'metadata': {'ssd': 'true'}}],
            flavor={'vcpus': 1, 'memory_mb': 512,
                    'extra_specs': {'ssd': 'true'}},
            config=filters_config('AggregateInstanceExtraSpecsFilter'))))

    def test_aggregate_lists_its_hosts(self):
        self.assertEqual(['b'], self.chosen(make_case(
            aggregates=[{'name': 'fast', 'metadata': {'ssd': 'true'},
                         'hosts': ['b']}],
            flavor={'vcpus': 1, 'memory_mb': 512,
                    'extra_specs': {'ssd': 'true'}},
            config=filters_config('AggregateInstanceExtraSpecsFilter'))))

    def test_host_service_state(self):
        hosts = [host('a', service={'disabled': True}), host('b')]
        self.assertEqual(['b'], self.chosen(make_case(hosts)))

    def test_used_resources(self):
        hosts = [host('a', vcpus_used=8), host('b')]
        self.assertEqual(['b'], self.chosen(make_case(
            hosts, config=filters_config('CoreFilter'))))

    def test_boot_from_volume_needs_no_local_root_disk(self):
        self.assertEqual(['a'], self.chosen(make_case(
            [host('a', local_gb=1)], boot_from_volume=True,
            flavor={'vcpus': 1, 'memory_mb': 512, 'root_gb': 20})))

    def test_image_properties(self):
        hosts = [host('a', supported_instances=[['x86_64', 'kvm', 'hvm']]),
                 host('b', supported_instances=[['aarch64', 'kvm', 'hvm']])]
        self.assertEqual(['b'], self.chosen(make_case(
            hosts, image={'properties': {'hw_architecture': 'aarch64'}})))

    def test_scheduler_hints_single_value(self):
        hosts = [host('a', instances=['web1']), host('b')]
        self.assertEqual(['b'], self.chosen(make_case(
            hosts, scheduler_hints={'different_host': 'web1'},
            config=filters_config('DifferentHostFilter'))))

    def test_server_group_members_on_hosts(self):
        self.assertEqual(['b'], self.chosen(make_case(
            server_group={'policy': 'anti-affinity',
                          'members_on_hosts': {'a': ['web1']}})))

    def test_server_group_counts_each_member_on_a_host(self):
        self.assertEqual(['b'], self.chosen(make_case(
            server_group={'policy': 'anti-affinity',
                          'rules': {'max_server_per_host': 2},
                          'members_on_hosts': {'a': ['web1', 'web2']}},
            config={'filter_scheduler': {'weight_classes': []}})))

    def test_server_group_rules(self):
        self.assertEqual(['a'], self.chosen(make_case(
            server_group={'policy': 'anti-affinity',
                          'rules': {'max_server_per_host': 2},
                          'members_on_hosts': {'a': ['web1']}},
            config={'filter_scheduler': {'weight_classes': []}})))


class TestConfig(SimulateTestCase):

    def test_overrides_apply_during_the_run(self):
        hosts = [host('a'), host('b', free_ram_mb=1024)]
        self.assertEqual(['b'], self.chosen(make_case(
            hosts, config={'filter_scheduler': {
                'weight_classes': ['RAMWeigher'],
                'ram_weight_multiplier': -1.0}})))

    def test_overrides_are_cleared_afterwards(self):
        simulate.run(make_case(config={'filter_scheduler': {
            'weight_classes': ['RAMWeigher'], 'ram_weight_multiplier': -1.0}}))
        self.assertEqual(
            (['all_weighers'], 1.0),
            (CONF.filter_scheduler.weight_classes,
             CONF.filter_scheduler.ram_weight_multiplier))

    def test_overrides_are_cleared_after_an_invalid_case(self):
        case = make_case(config={'filter_scheduler': {'host_subset_size': 3}})
        del case['request']
        self.assertRaises(simulate.CaseError, simulate.run, case)
        self.assertEqual(1, CONF.filter_scheduler.host_subset_size)

    def test_overrides_are_cleared_after_a_bad_option(self):
        self.assertRaises(simulate.CaseError, simulate.run, make_case(
            config={'filter_scheduler': {'host_subset_size': 3,
                                         'no_such_option': 1}}))
        self.assertEqual(1, CONF.filter_scheduler.host_subset_size)

    def test_default_group_options(self):
        self.assertEqual(['a'], self.chosen(make_case(
            [host('a')], availability_zone='az-default',
            config={'DEFAULT': {'default_availability_zone': 'az-default'}})))
        self.assertEqual('nova', CONF.default_availability_zone)


INVALID_CASES = [
    # name, case (or a change to the default case), message
    ('case_not_an_object', ['a', 'b'], 'the case must be a JSON object'),
    ('hosts_missing', {'hosts': None}, 'the case needs "hosts"'),
    ('request_missing', {'request': None}, 'the case needs "request"'),
    ('flavor_missing', {'request': {}}, 'request needs "flavor"'),
    ('host_name_missing', {'hosts': [{'vcpus': 1}]},
     'hosts[0] needs "host"'),
    ('host_vcpus_missing', {'hosts': [{'host': 'a', 'memory_mb': 1,
                                       'local_gb': 1}]},
     'hosts[0] needs "vcpus"'),
    ('host_memory_not_a_number', {'hosts': [host('a'),
                                            host('b', memory_mb='lots')]},
     'hosts[1]: "memory_mb" must be a number, not \'lots\''),
    ('host_ratio_not_a_number',
     {'hosts': [host('a', cpu_allocation_ratio='high')]},
     'hosts[0]: "cpu_allocation_ratio" must be a number, not \'high\''),
    ('host_twice', {'hosts': [host('a'), host('a')]},
     'hosts[1]: a/a appears twice'),
    ('flavor_vcpus_not_a_number',
     {'request': {'flavor': {'vcpus': 'two', 'memory_mb': 512}}},
     'request.flavor: "vcpus" must be a number, not \'two\''),
    ('flavor_memory_missing', {'request': {'flavor': {'vcpus': 1}}},
     'request.flavor needs "memory_mb"'),
    ('num_instances_not_a_number',
     {'request': {'flavor': {'vcpus': 1, 'memory_mb': 1},
                  'num_instances': 'few'}},
     'request: "num_instances" must be a number, not \'few\''),
    ('num_instances_zero',
     {'request': {'flavor': {'vcpus': 1, 'memory_mb': 1},
                  'num_instances': 0}},
     'request.num_instances must be at least 1'),
    ('unknown_aggregate', {'hosts': [host('a', aggregates=['ssd'])]},
     'hosts[0]: unknown aggregate ssd'),
    ('aggregate_without_name', {'aggregates': [{'metadata': {}}]},
     'aggregates[0] needs "name"'),
    ('group_without_policy',
     {'request': {'flavor': {'vcpus': 1, 'memory_mb': 1},
                  'server_group': {'rules': {}}}},
     'request.server_group needs "policy"'),
    ('unknown_policy',
     {'request': {'flavor': {'vcpus': 1, 'memory_mb': 1},
                  'server_group': {'policy': 'clustered'}}},
     "request.server_group.policy 'clustered' is not one of affinity, "
     "anti-affinity, soft-affinity, soft-anti-affinity"),
    ('unknown_host_in_members_on_hosts',
     {'request': {'flavor': {'vcpus': 1, 'memory_mb': 1},
                  'server_group': {'policy': 'anti-affinity',
                                   'members_on_hosts': {'ghost': ['m1']}}}},
     'request.server_group.members_on_hosts names unknown host ghost'),
    ('config_group_not_an_object', {'config': {'filter_scheduler': 3}},
     'config.filter_scheduler must be an object'),
    ('unknown_config_option',
     {'config': {'filter_scheduler': {'no_such_option': 1}}},
     'config.filter_scheduler.no_such_option: '),
    ('unknown_config_group', {'config': {'no_such_group': {'a': 1}}},
     'config.no_such_group.a: '),
    ('config_value_of_the_wrong_type',
     {'config': {'filter_scheduler': {'host_subset_size': 'many'}}},
     'config.filter_scheduler.host_subset_size: '),
]


def check_invalid_case(self, change, message):
    if isinstance(change, dict):
        case = make_case()
        for key, value in change.items():
            if value is None:
                del case[key]
            else:
                case[key] = value
    else:
        case = change
    error = self.assertRaises(simulate.CaseError, simulate.run, case)
    self.assertTrue(
        error.format_message().startswith(
            'Invalid simulation case: ' + message),
        error.format_message())


@add_cases(INVALID_CASES, check_invalid_case)
class TestInvalidCases(SimulateTestCase):
    pass


class TestDaemonDefaults(SimulateTestCase):
    """A host of the case is what a compute of the daemons' configuration
    would report, and placement's part is played from its figures."""

    def test_allocation_ratios_default_as_the_daemons(self):
        # 8 vCPUs at the daemons' 4.0: 32 fit (at most 8 per instance,
        # placement's max_unit).
        answer = simulate.run(make_case(
            [host('a', vcpus_used=26)], flavor={'vcpus': 6,
                                                'memory_mb': 512}))
        self.assertEqual(['a'], answer['chosen_hosts'])
        # (No filter of Nova's defaults sets limits: placement bounds.)
        self.assertEqual({}, answer['selections'][0]['limits'])

    def test_ratio_options_of_the_case_apply(self):
        answer = simulate.run(make_case(
            [host('a', vcpus_used=26)], flavor={'vcpus': 6,
                                                'memory_mb': 512},
            config={'DEFAULT': {'cpu_allocation_ratio': 2.0}}))
        self.assertEqual('NoValidHost', answer['error']['type'])

    def test_reserved_memory_is_not_offered(self):
        # 4096 MB, 512 reserved: 3584 MB can be placed, not 4096.
        fits = simulate.run(make_case(
            [host('a')], flavor={'vcpus': 1, 'memory_mb': 3584}))
        too_big = simulate.run(make_case(
            [host('a')], flavor={'vcpus': 1, 'memory_mb': 3585}))
        self.assertEqual((['a'], 'NoValidHost'),
                         (fits['chosen_hosts'], too_big['error']['type']))

    def test_reserved_amounts_per_host(self):
        answer = simulate.run(make_case(
            [host('a', reserved_host_memory_mb=0)],
            flavor={'vcpus': 1, 'memory_mb': 4096}))
        self.assertEqual(['a'], answer['chosen_hosts'])

    def test_used_figures_count_in_placement(self):
        # 1 GB of the 3.5 GB placeable is used already.
        answer = simulate.run(make_case(
            [host('a', free_ram_mb=2560)],
            flavor={'vcpus': 1, 'memory_mb': 3000}))
        self.assertEqual('NoValidHost', answer['error']['type'])

    def test_only_the_first_max_placement_results_are_offered(self):
        hosts = [host('a', free_ram_mb=1024), host('b'), host('c')]
        answer = simulate.run(make_case(
            hosts, config={'scheduler': {'max_placement_results': 1}}))
        # b and c are emptier, but placement offered a alone.
        self.assertEqual(['a'], answer['chosen_hosts'])
        self.assertEqual([], answer['selections'][0]['alternates'])

    def test_repeat_gives_the_same_answer_and_a_timing(self):
        case = make_case([host(name) for name in 'abc'])
        plain, timed = simulate.run(case), simulate.run(case, repeat=2)
        self.assertEqual(plain['selections'], timed['selections'])
        self.assertNotIn('timing_ms', plain)
        self.assertGreater(timed['timing_ms'], 0)


class TestHostRows(SimulateTestCase):

    def test_a_simulated_host_state_has_every_slot_set(self):
        from nova_lite.scheduler import host_manager
        hosts, _aggregates = simulate.read_hosts(make_case())
        state = hosts[0].state(['member'])
        for name in host_manager.HostState.__slots__:
            getattr(state, name)  # AttributeError if one was forgotten
        self.assertEqual(({'member'}, 4096 - 512),
                         (state.instances, state.free_ram_mb))


class TestAsTheDaemonAsksPlacement(SimulateTestCase):
    """Claims, the limit and a named host, as the daemon deals with
    placement."""

    def test_each_instance_is_claimed(self):
        # a has room for one 12000 MB instance only; b is fuller but has
        # room for one too.
        hosts = [host('a', memory_mb=16896),
                 host('b', memory_mb=16896, vcpus_used=8)]
        answer = simulate.run(make_case(
            hosts, num_instances=2, flavor={'vcpus': 1, 'memory_mb': 12000},
            config={'filter_scheduler': {'weight_classes': ['CPUWeigher'],
                                         'enabled_filters': []}}))
        self.assertEqual(['a', 'b'], answer['chosen_hosts'])

    def test_a_claim_that_no_longer_fits_anywhere_fails_the_request(self):
        answer = simulate.run(make_case(
            [host('a', memory_mb=16896)], num_instances=2,
            flavor={'vcpus': 1, 'memory_mb': 12000}))
        self.assertEqual('NoValidHost', answer['error']['type'])

    def test_a_named_host_is_asked_of_placement_before_the_limit(self):
        answer = simulate.run(make_case(
            [host('a'), host('b')], requested_destination={'host': 'b'},
            config={'scheduler': {'max_placement_results': 1}}))
        self.assertEqual(['b'], answer['chosen_hosts'])

    def test_host_hints_lift_the_limit(self):
        # Only a would be offered, and it holds the instance to avoid.
        answer = simulate.run(make_case(
            [host('a', instances=['vm-1']), host('b')],
            scheduler_hints={'different_host': ['vm-1']},
            config={'scheduler': {'max_placement_results': 1},
                    'filter_scheduler': {'enabled_filters':
                                         ['DifferentHostFilter']}}))
        self.assertEqual(['b'], answer['chosen_hosts'])


class TestPreFilters(SimulateTestCase):
    """The request's pre-filters narrow what placement is asked for, as
    the daemon's do, before the limit."""

    def test_a_zone_is_asked_of_placement_before_the_limit(self):
        # Only 2 hosts are offered, and the zone's host is the third.
        hosts = [host('a'), host('b'), host('c', availability_zone='far')]
        answer = simulate.run(make_case(
            hosts, availability_zone='far',
            config={'scheduler': {'max_placement_results': 2},
                    'filter_scheduler': {'enabled_filters':
                                         ['ComputeFilter']}}))
        self.assertEqual(['c'], answer['chosen_hosts'])

    def test_a_zone_no_aggregate_makes_narrows_nothing(self):
        # As in Nova: the default zone is no aggregate's.
        hosts = [host('a', availability_zone='az1'), host('b')]
        answer = simulate.run(make_case(
            hosts, availability_zone='nova',
            config=filters_config('ComputeFilter')))
        self.assertEqual(['a'], answer['chosen_hosts'])

    def test_hosts_outside_the_zone_are_counted_in_no_valid_host(self):
        hosts = [host('a', availability_zone='az1', memory_mb=256),
                 host('b', availability_zone='az2')]
        answer = simulate.run(make_case(
            hosts, availability_zone='az1',
            config=filters_config('ComputeFilter')))
        self.assertEqual(
            'No valid host was found. 0/2 hosts available: 1 not what the '
            'request pre-filters ask placement for (availability zone az1; '
            'no COMPUTE_STATUS_DISABLED), 1 not enough free resources in '
            'placement', answer['error']['message'])

    def test_a_disabled_compute_is_not_offered(self):
        hosts = [host('a', service={'disabled': True}), host('b')]
        answer = simulate.run(make_case(
            hosts, config=filters_config('RamFilter')))
        self.assertEqual(['b'], answer['chosen_hosts'])
        self.assertEqual([], answer['selections'][0]['alternates'])

    def test_tenant_isolation(self):
        hosts = [host('a'), host('b', aggregates=['mine'])]
        aggregates = [{'name': 'mine',
                       'metadata': {'filter_tenant_id': 'p1'}}]
        config = {'scheduler': {'limit_tenants_to_placement_aggregate':
                                True}}
        mine = simulate.run(make_case(hosts, config=config,
                                      aggregates=aggregates,
                                      project_id='p1'))
        other = simulate.run(make_case(hosts, config=config,
                                       aggregates=aggregates,
                                       project_id='p2'))
        self.assertEqual((['b'], ['a']),
                         (mine['chosen_hosts'], other['chosen_hosts']))


class TestCommandLine(testtools.TestCase):
    """``nova-lite-manage scheduler simulate`` in a process of its own,
    reading no configuration but an empty file."""

    def setUp(self):
        super().setUp()
        self.tmp = self.useFixture(fixtures.TempDir()).path
        self.conf_file = os.path.join(self.tmp, 'nova-lite.conf')
        open(self.conf_file, 'w').close()

    def manage(self, *args, stdin=''):
        env = dict(os.environ, HOME=self.tmp)
        command = [sys.executable, '-m', 'nova_lite.cmd.manage',
                   '--config-file', self.conf_file, 'scheduler',
                   'simulate'] + list(args)
        return subprocess.run(command, input=stdin, capture_output=True,
                              text=True, env=env, timeout=60)

    def test_prints_the_answer_as_json_and_exits_0(self):
        done = self.manage('-', stdin=json.dumps(make_case()))
        self.assertEqual(0, done.returncode, done.stderr)
        self.assertEqual(['a'], json.loads(done.stdout)['chosen_hosts'])

    def test_exits_4_when_there_is_no_valid_host(self):
        done = self.manage('-', stdin=json.dumps(make_case(
            [host('a', memory_mb=256)])))
        self.assertEqual(4, done.returncode, done.stderr)
        self.assertIn('"type": "NoValidHost"', done.stdout)

    def test_no_valid_host_answer_on_stdout_is_json(self):
        done = self.manage('-', stdin=json.dumps(make_case(
            [host('a', memory_mb=256)])))
        self.assertEqual('NoValidHost',
                         json.loads(done.stdout)['error']['type'])

    def test_reads_the_case_from_a_file(self):
        path = os.path.join(self.tmp, 'case.json')
        with open(path, 'w') as f:
            json.dump(make_case(), f)
        done = self.manage(path)
        self.assertEqual(0, done.returncode, done.stderr)
        self.assertEqual(['a'], json.loads(done.stdout)['chosen_hosts'])

    def test_pretty_indents_the_answer(self):
        done = self.manage('-', '--pretty', stdin=json.dumps(make_case()))
        self.assertEqual(0, done.returncode, done.stderr)
        self.assertTrue(done.stdout.startswith('{\n  "chosen_hosts": [\n'),
                        done.stdout)

    def test_input_that_is_not_json_exits_1(self):
        done = self.manage('-', stdin='{"hosts": [')
        self.assertEqual((1, ''), (done.returncode, done.stdout))
        self.assertIn('ERROR: Invalid simulation case: - is not JSON',
                      done.stderr)

    def test_invalid_case_exits_1_saying_why(self):
        case = make_case()
        del case['request']
        done = self.manage('-', stdin=json.dumps(case))
        self.assertEqual((1, ''), (done.returncode, done.stdout))
        self.assertIn('ERROR: Invalid simulation case: the case needs '
                      '"request"', done.stderr)

    def test_repeat_adds_the_median_time_of_the_decision(self):
        done = self.manage('-', '--repeat', '3',
                           stdin=json.dumps(make_case()))
        self.assertEqual(0, done.returncode, done.stderr)
        answer = json.loads(done.stdout)
        self.assertEqual(['a'], answer['chosen_hosts'])
        self.assertIsInstance(answer['timing_ms'], float)
        self.assertGreater(answer['timing_ms'], 0)

    def test_without_repeat_there_is_no_timing(self):
        done = self.manage('-', stdin=json.dumps(make_case()))
        self.assertNotIn('timing_ms', json.loads(done.stdout))

    def test_negative_repeat_exits_1(self):
        done = self.manage('-', '--repeat', '-1',
                           stdin=json.dumps(make_case()))
        self.assertEqual((1, ''), (done.returncode, done.stdout))
        self.assertIn('--repeat must be 0 or more', done.stderr)

    def test_missing_case_file_exits_1(self):
        missing = os.path.join(self.tmp, 'missing.json')
        done = self.manage(missing)
        self.assertEqual((1, ''), (done.returncode, done.stdout))
        self.assertIn('ERROR: Invalid simulation case: cannot read %s'
                      % missing, done.stderr)
