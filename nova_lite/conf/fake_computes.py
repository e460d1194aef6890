"""[fake_computes]: nova-lite-fake-computes, many simulated compute hosts
in one process (for benchmarks and scale tests)."""

from oslo_config import cfg

fake_computes_group = cfg.OptGroup(
    'fake_computes', title='Simulated compute hosts',
    help='The nova-lite-fake-computes daemon: one process hosting many '
         'fake compute hosts, each with its own service record, compute '
         'node, resource provider and RPC topic (compute.<host>), so that '
         'the conductor and the scheduler see as many computes. Every host '
         'reads the same [compute] fake_* capacity. For benchmarks and '
         'scale tests; a real hypervisor runs nova-lite-compute.')

fake_computes_opts = [
    cfg.IntOpt('hosts', default=10, min=1,
               help='How many simulated hosts this process runs, named '
                    '<host_prefix><first_index>, <host_prefix><first_index '
                    '+ 1>, ... Two processes on one deployment must not '
                    'share a name: give each its own first_index or '
                    'host_prefix.'),
    cfg.StrOpt('host_prefix', default='fake',
               help='The start of every simulated host\'s name (letters, '
                    'digits, "-" and "_", beginning with a letter).'),
    cfg.IntOpt('first_index', default=1, min=0,
               help='The number in the first simulated host\'s name.'),
    cfg.IntOpt('max_concurrent_builds', default=10, min=1,
               help='Builds, rebuilds and moves the whole process runs at '
                    'once, over all its hosts (one pool shared by them, '
                    'not [compute] max_concurrent_builds per host); more '
                    'wait.'),
    cfg.IntOpt('rpc_threads_per_host', default=2, min=1,
               help='Threads each host\'s RPC server runs its messages on '
                    '(oslo.messaging\'s executor_thread_pool_size, 64 by '
                    'default, made per host). A build only queues its work '
                    'on the shared pool, so a few are enough; with '
                    'thousands of hosts each thread counts.'),
    cfg.IntOpt('periodic_threads', default=2, min=1,
               help='Threads running the periodic tasks (audits, '
                    'recovery) of all the hosts, whose runs are spread '
                    'evenly over their interval. The heartbeats of all '
                    'hosts have a thread of their own and go to the '
                    'conductor as one call per [DEFAULT] report_interval.'),
    cfg.IntOpt('start_threads', default=4, min=1,
               help='Hosts started at once when the process starts (each '
                    'asks the conductor and placement a few dozen '
                    'questions first).'),
]


def register_opts(conf):
    conf.register_group(fake_computes_group)
    conf.register_opts(fake_computes_opts, group=fake_computes_group)


def list_opts():
    return {fake_computes_group: fake_computes_opts}
