"""[conductor]: the conductor daemon."""

from oslo_config import cfg

conductor_group = cfg.OptGroup(
    'conductor', title='Conductor',
    help='The nova-lite-conductor daemon, which orchestrates builds and '
         'moves and persists objects for computes.')

conductor_opts = [
    cfg.IntOpt('scheduler_call_timeout', default=60, min=1,
               help='Seconds the conductor waits for one answer to '
                    'select_destinations. A build asks again (the scheduler '
                    'keeps the claim it may have written) until '
                    '[DEFAULT] outage_wait is over, then fails with a '
                    'fault.'),
    cfg.IntOpt('interrupted_task_timeout', default=300, min=0,
               help='Seconds after which a conductor takes over a build '
                    'that no daemon has moved forward, because the '
                    'daemon doing it died (SIGKILL, a crashed host) or its '
                    'message was lost: a build request never claimed and '
                    'accepted that long ago, or whose conductor has not '
                    'renewed its lease for that long (a conductor renews '
                    'the leases of its builds every quarter of this), is '
                    'scheduled again, and a server that '
                    'long in BUILD with no compute working on it (never '
                    'sent to one, or its compute is down) goes to ERROR '
                    'with a fault, holding no allocation and no port '
                    'binding; an evacuation that long without its '
                    'destination taking the server over is undone (the '
                    'server back on its source, in ERROR) and an unshelve '
                    'that never reached a compute leaves the server '
                    'offloaded. Must exceed the longest a healthy build '
                    'or move takes (scheduler_call_timeout plus the '
                    'reschedules). '
                    '0 turns the takeover off. Only conductors with '
                    '[api_database] connection do it.'),
    cfg.IntOpt('build_workers', default=4, min=1,
               help='How many create requests (each a server or a '
                    'multi-create of several) this conductor builds at '
                    'once, on a pool of its own; the others wait their '
                    'turn there, their RPC messages received (the RPC '
                    'threads stay free for the computes\' calls). '
                    'Dozens of builds at once cost more CPU per server '
                    'than a few (their threads contend for the '
                    'interpreter); a few at once keep both cores busy '
                    'while each waits on the scheduler and the '
                    'databases. A build waiting its turn longer than '
                    'interrupted_task_timeout is taken over, as one '
                    'whose message was lost.'),
    cfg.IntOpt('recovery_interval', default=30, min=0,
               help='Seconds between two looks for interrupted builds and '
                    'moves and for allocations nobody holds (see '
                    'interrupted_task_timeout); 0 turns it off.'),
    cfg.IntOpt('orphan_reads_per_look', default=250, min=1,
               help='At most this many resource providers whose '
                    'allocations one look for allocations nobody holds '
                    'reads from placement (those never read first, then '
                    'those whose generation changed, the one read longest '
                    'ago first); the rest wait for the next looks. A '
                    'conductor started at a deployment of thousands of '
                    'hosts then spreads its first reading of every '
                    'provider over several looks.'),
]


def register_opts(conf):
    conf.register_group(conductor_group)
    conf.register_opts(conductor_opts, group=conductor_group)


def list_opts():
    return {conductor_group: conductor_opts}
