"""Options of the [DEFAULT] group that every daemon shares."""

import socket

from oslo_config import cfg

default_opts = [
    cfg.StrOpt('host',
               default=socket.gethostname(),
               sample_default='<current_hostname>',
               help='Name of this node. For a compute daemon this is the '
                    'hypervisor host name the scheduler places instances on '
                    'and the suffix of its RPC topic (compute.<host>). It '
                    'must be unique per compute daemon; several fake '
                    'computes on one machine each need their own.'),
    cfg.StrOpt('concurrency_backend',
               default='threading',
               choices=[('threading', 'Native threads. RPC servers use the '
                                      'threading executor. Recommended.'),
                        ('eventlet', 'Green threads: the process is '
                                     'monkey-patched before anything else is '
                                     'imported and RPC servers use the '
                                     'eventlet executor.')],
               help='How a daemon runs concurrent work. It is read from the '
                    'config files before any other module is imported, so '
                    'it cannot be changed by a reload.'),
    cfg.IntOpt('outage_wait',
               default=300, min=0,
               deprecated_opts=[cfg.DeprecatedOpt('placement_outage_wait',
                                                  group='conductor')],
               help='Seconds a daemon keeps trying again, after 1, 2, 4, 8, '
                    '8... seconds, a call to a peer that is away -- the '
                    'scheduler, placement, the port service or the '
                    'conductor restarting, RabbitMQ or a database '
                    'blinking -- before the build or move it is part of '
                    'fails (or, for a build whose database is away, waits '
                    'for a takeover). A fault shorter than this delays '
                    'work instead of failing it. 0 fails at once.'),
    cfg.IntOpt('report_interval',
               default=10, min=1,
               help='Seconds between two heartbeats of a service to its '
                    'service record. Must be well below service_down_time.'),
    cfg.IntOpt('service_down_time',
               default=60, min=1,
               help='Seconds without a heartbeat after which a service is '
                    'reported down: the scheduler stops placing instances on '
                    'a down compute and the API lists it as down.'),
    cfg.IntOpt('migrate_max_retries',
               default=-1, min=-1,
               help='How many other destinations a live migration tries '
                    'when the chosen one fails its pre-checks or cannot '
                    'bind the ports: -1 tries until no host is left, 0 '
                    'never reschedules. When it gives up the server stays '
                    'ACTIVE on its source and the migration is in error.'),
    cfg.BoolOpt('allow_resize_to_same_host', default=False,
                help='Whether a resize may keep the server on its own host '
                     '(the scheduler may then choose it like any other). '
                     'The host must have room for both flavors until the '
                     'resize is confirmed. A cold migration always leaves '
                     'its host.'),
    cfg.IntOpt('resize_confirm_window', default=0, min=0,
               help='Seconds after which a resize or cold migration that '
                    'waits to be confirmed (VERIFY_RESIZE) is confirmed '
                    'by its destination compute; 0 never confirms one '
                    'automatically.'),
    cfg.IntOpt('periodic_interval',
               default=60, min=1,
               help='Default spacing in seconds of periodic tasks that have '
                    'no interval of their own.'),
    cfg.IntOpt('graceful_shutdown_timeout',
               default=30, min=0,
               help='Seconds a daemon waits for in-flight requests to finish '
                    'after SIGTERM before it exits anyway. 0 waits forever.'),
    cfg.FloatOpt('cpu_allocation_ratio',
                 default=4.0, min=0.0,
                 help='Virtual CPUs per physical CPU the scheduler and the '
                      'compute resource tracker allow on a host.'),
    cfg.FloatOpt('ram_allocation_ratio',
                 default=1.0, min=0.0,
                 help='Virtual RAM per unit of physical RAM allowed on a '
                      'host. Values above 1.0 overcommit memory.'),
    cfg.FloatOpt('disk_allocation_ratio',
                 default=1.0, min=0.0,
                 help='Virtual disk per unit of physical disk allowed on a '
                      'host.'),
    cfg.IntOpt('reserved_host_memory_mb',
               default=512, min=0,
               help='Memory in MB kept back for the host itself; never given '
                    'to instances.'),
    cfg.IntOpt('reserved_host_disk_mb',
               default=0, min=0,
               help='Disk in MB kept back for the host itself.'),
    cfg.IntOpt('reserved_host_cpus',
               default=0, min=0,
               help='Physical CPUs kept back for the host itself.'),
    cfg.StrOpt('default_availability_zone',
               default='nova',
               help='Availability zone of a compute host that is in no '
                    'aggregate with an availability zone.'),
    cfg.FloatOpt('rpc_poll_backoff_start',
                 default=1.0, min=0.001, max=300.0,
                 help='Seconds an RPC listener first waits for its next '
                      'message, after each message, before it wakes up to '
                      'send the acknowledgements queued for it (the rabbit '
                      'driver of oslo.messaging); it then waits twice as '
                      'long each time, up to rpc_poll_backoff_max. The '
                      'driver starts at 0.001: thirteen wake-ups after '
                      'every message. An RPC server and a caller waiting for '
                      'replies acknowledge each message in the thread that '
                      'receives it and queue nothing, so for them those '
                      'wake-ups are only CPU. A message is received as '
                      'soon as it arrives whatever this is.'),
    cfg.FloatOpt('rpc_poll_backoff_max',
                 default=30.0, min=1.0, max=300.0,
                 help='Longest an idle RPC listener waits before it wakes '
                      'up (the driver has 5). With many listeners in one '
                      'process (nova-lite-fake-computes) their wake-ups are '
                      'most of its idle CPU. Above the connection\'s '
                      'heartbeat check interval (heartbeat_timeout_threshold'
                      ' / heartbeat_rate / 2 seconds, 10 by default) the '
                      'listener still wakes for that check, more cheaply. '
                      'A server being stopped notices it at its next '
                      'wake-up: within the smaller of this and that '
                      'interval (10 s by default; 5 s with the driver\'s '
                      'own value).'),
    cfg.StrOpt('state_path',
               default='/var/lib/nova-lite',
               help='Directory where nova_lite keeps local state (the '
                    'embedded SQLite databases of the quick start).'),
]


def register_opts(conf):
    conf.register_opts(default_opts)


def list_opts():
    return {'DEFAULT': default_opts}
