"""Every benchmark under tools/bench runs, at a tiny size, so that none
can rot between the runs that measure. Nothing here asserts a time: each
must exit 0 and print its report."""

import os
import re
import subprocess
import sys

import testtools
import testtools.content

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


class TestBenchmarksRun(testtools.TestCase):

    def bench(self, script, *args, expect):
        env = dict(os.environ, PYTHONPATH=ROOT)
        env.pop('NOTIFY_SOCKET', None)
        result = subprocess.run(
            [sys.executable, os.path.join(ROOT, 'tools', 'bench', script)] +
            list(args), capture_output=True, text=True, env=env, cwd=ROOT,
            timeout=600)
        self.addDetail('output', testtools.content.text_content(
            result.stdout + result.stderr))
        self.assertEqual(0, result.returncode, result.stderr[-2000:])
        self.assertIn(expect, result.stdout)
        return result.stdout

    def test_scheduler_bench(self):
        self.bench('scheduler_bench.py', '--sizes', '10', '--instances',
                   '1', '--runs', '3', expect='10 hosts')

    def test_scheduler_bench_side_by_side_with_nova(self):
        # Makes Nova 34's virtualenv (.peers/nova34) first if need be.
        self.bench('scheduler_bench.py', '--versus-nova', '--sizes', '20',
                   '--runs', '2',
                   expect='20 hosts, zone + anti-affinity request: Nova 34')

    def test_placement_bench(self):
        self.bench('placement_bench.py', '--sizes', '5', '--seconds', '1',
                   '--rounds', '1', '--runs', '1',
                   expect='allocation PUT+DELETE cycles/s')

    def test_placement_bench_side_by_side_with_openstack_placement(self):
        # Makes Placement 16's virtualenv (.peers/placement16) if need be.
        self.bench('placement_bench.py', '--openstack-placement',
                   '--compare-sizes', '5', '--sizes', '', '--seconds', '1',
                   '--rounds', '1', '--runs', '1',
                   expect='write rate ratio, 1 client thread')

    def test_boot_bench(self):
        output = self.bench('boot_bench.py', '--servers', '4',
                            '--computes', '1', '--pings', '5',
                            '--by-statement', expect='servers/s')
        self.assertIn('CPU per boot, by process', output)
        self.assertRegex(output, r'CPU per ping \(ms\): caller [0-9.]+, '
                                 r'conductor [0-9.]+, rabbitmq [0-9.]+')
        # Every boot inserts its instance in the cell database.
        self.assertRegex(output, r'conductor +INSERT INTO instances ')
        for line in ('cpu_ms_per_boot: ', 'boots_per_s: ',
                     'background_cpu_ms_per_s: '):
            self.assertIn(line, output)
        # A boot takes messages and statements: a zero means the
        # counting is broken, not that the boot was free.
        for name in ('rpc_messages_per_boot', 'db_statements_per_boot',
                     'db_commits_per_boot'):
            value = re.search(r'^%s: ([0-9.]+)$' % name, output, re.M)
            self.assertIsNotNone(value, name)
            self.assertGreater(float(value.group(1)), 0, name)

    def test_boot_bench_on_simulated_hosts(self):
        # Two nova-lite-fake-computes processes (3 hosts and 2).
        output = self.bench('boot_bench.py', '--servers', '4', '--hosts',
                            '5', '--hosts-per-process', '3', '--pings', '5',
                            '--idle-seconds', '2',
                            expect='servers: 4 on 5 simulated hosts')
        for line in ('simulated hosts up and mapped after ',
                     'idle_cpu_ms_per_s: ', 'broker: ', 'cpu_ms_per_boot: ',
                     'boots_per_s: ', 'rpc_messages_per_boot: ',
                     'db_statements_per_boot: '):
            self.assertIn(line, output)
        # Both processes' idle use, and their counters read through
        # SIGUSR2 like every daemon's.
        self.assertIn('fake-computes2 ', output)
        self.assertIn('fake-computes cast.build_and_run_instance', output)

    def test_save_bench(self):
        output = self.bench('save_bench.py', '--builds', '5', '--runs', '1',
                            expect='5 builds per run')
        self.assertRegex(output, r'save_cpu_ms_per_build: [0-9.]+ ')
        # The take-over and the last save, each with its action event:
        # an UPDATE of the server, and two statements for the event (the
        # conductor found the action and the event by the ids it kept).
        self.assertIn('statements_per_build: 6.0', output)

    def test_host_states_bench(self):
        output = self.bench('host_states_bench.py', '--hosts', '5',
                            '--reads', '2', expect='5 hosts, 2 reads')
        for name in ('service_states', 'written_by_uuid'):
            self.assertRegex(output, r'%s_cpu_ms: [0-9.]+  %s_wall_ms: '
                                     r'[0-9.]+  statements: 1.0  hosts '
                                     r'answered: 5\n' % (name, name))
        # (--nodes-read 30 of 5 hosts: all five.)
        self.assertRegex(output, r'nodes_by_uuid_cpu_ms: [0-9.]+  '
                                 r'nodes_by_uuid_wall_ms: [0-9.]+  '
                                 r'statements: 1.0  hosts answered: 5\n')
        # The pass over the nodes, with both getters, reads no row.
        for name in ('host_state_updates',
                     'host_state_updates_oslo_getters'):
            self.assertRegex(output, r'%s_cpu_ms: [0-9.]+  %s_wall_ms: '
                                     r'[0-9.]+  statements: 0.0  hosts '
                                     r'answered: 5\n' % (name, name))

    def test_wire_bench(self):
        output = self.bench('wire_bench.py', '--calls', '5',
                            expect='5 calls each')
        for name in ('save_wire_us_whole', 'save_wire_us_sent',
                     'obj_what_changed_us', 'obj_to_primitive_us'):
            self.assertRegex(output, r'%s: [0-9.]+\n' % name)
        # A save sends less than the whole instance.
        whole, sent = (int(re.search(r'save_wire_bytes_%s: (\d+)' % name,
                                     output).group(1))
                       for name in ('whole', 'sent'))
        self.assertLess(sent, whole)

    def test_list_bench(self):
        output = self.bench('list_bench.py', '--servers', '30', '--limit',
                            '10', '--repeat', '2', expect='pages of 10')
        for scope in ('all', 'project'):
            for position in ('first', 'middle', 'end') if scope == 'all' \
                    else ('first',):
                for name in ('list_page_p95_ms', 'list_page_median_ms'):
                    self.assertRegex(output, r'(?m)^%s %s %s: [0-9.]+$' % (
                        name, scope, position))

    def test_live_migration_bench(self):
        self.bench('live_migration_bench.py', '--migrations', '2',
                   expect='API call -> migration completed')
