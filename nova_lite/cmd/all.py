"""nova-lite-all: the whole control plane in one process (embedded mode).

For a first look on a machine without RabbitMQ or MariaDB: the conductor,
scheduler, N fake computes and the three REST services run as threads of
one process, on the in-memory ``fake://`` transport and SQLite databases
under ``[DEFAULT] state_path`` (unless the config names others). Each
service still talks to the others only through RPC and REST. Because they
share one process, the computes here use the database directly rather than
through the conductor; run the separate daemons for a real deployment.

Unless the config says otherwise it authenticates nobody (``[api]
auth_strategy = noauth2``) and so listens on 127.0.0.1 only.

What it chose that no config file said (the databases, noauth2) it writes
to ``<state_path>/nova-lite-manage.conf`` at start, and it prints the
``nova-lite-manage`` command line that reaches this control plane: its
own config files and that one.
"""

import configparser
import os
import shlex

from oslo_config import cfg

from nova_lite.cmd import common

CONF = common.CONF

cli_opts = [
    cfg.IntOpt('computes', default=2, min=1,
               help='Fake compute hosts to run (compute1, compute2, ...).'),
]


def _prepare(state_path):
    from nova_lite.cmd import manage
    from nova_lite import context
    from nova_lite.db import migration
    from nova_lite import objects
    os.makedirs(state_path, exist_ok=True)
    # oslo.messaging's own default ("rabbit://") counts as not configured.
    if not CONF.transport_url or CONF.transport_url == 'rabbit://':
        CONF.set_override('transport_url', 'fake://')
    if not CONF.api_database.connection:
        CONF.set_override('connection', 'sqlite:///%s' % os.path.join(
            state_path, 'nova_lite_api.sqlite'), 'api_database')
    if not CONF.database.connection:
        CONF.set_override('connection', 'sqlite:///%s' % os.path.join(
            state_path, 'nova_lite_cell1.sqlite'), 'database')
    migration.db_sync(CONF.api_database.connection, migration.API)
    migration.db_sync(CONF.database.connection, migration.MAIN)
    admin = context.get_admin_context()
    manage._map_cell0(admin)
    if len(objects.CellMappingList.get_all(admin)) < 2:
        manage._create_cell(admin, 'cell1', CONF.transport_url,
                            CONF.database.connection)
    _write_manage_config(state_path)


# What nova-lite-manage needs to reach this process's databases and
# services, which nova-lite-all may have chosen itself.
MANAGE_OPTIONS = (('api', 'auth_strategy'), ('api_database', 'connection'),
                  ('database', 'connection'))
MANAGE_CONFIG = 'nova-lite-manage.conf'


def _write_manage_config(state_path):
    """Write MANAGE_OPTIONS, as this process runs with them, to
    ``<state_path>/nova-lite-manage.conf``; print the nova-lite-manage
    command line for this control plane."""
    path = os.path.abspath(os.path.join(state_path, MANAGE_CONFIG))
    values = configparser.ConfigParser(interpolation=None)
    for group, name in MANAGE_OPTIONS:
        values.read_dict({group: {name: getattr(CONF[group], name)}})
    with open(path, 'w') as f:
        f.write('# Written by nova-lite-all at its start: the options it '
                'runs with that\n# nova-lite-manage needs and its config '
                'files may not say.\n')
        values.write(f)
    files = [os.path.abspath(p) for p in CONF.config_file] + [path]
    print('Operator commands for this control plane:\n  nova-lite-manage '
          '%s audit' % ' '.join('--config-file %s' % shlex.quote(f)
                                for f in files), flush=True)


def main():
    CONF.register_cli_opts(cli_opts)
    # A first look: no Keystone, so loopback only (api/auth.py).
    CONF.set_default('auth_strategy', 'noauth2', 'api')
    for group in ('api', 'placement', 'network'):
        CONF.set_default('bind_host', '127.0.0.1', group)

    def body():
        from nova_lite import rpc
        common.setup()
        _prepare(CONF.state_path)
        rpc.init(CONF)  # the transport URL may have been defaulted above
        from nova_lite.api import compute as compute_api
        from nova_lite.api import network
        from nova_lite.api import placement
        from nova_lite.compute import manager as compute_manager
        from nova_lite.compute import rpcapi as compute_rpcapi
        from nova_lite.conductor import manager as conductor_manager
        from nova_lite.scheduler import manager as scheduler_manager
        from nova_lite import service
        from nova_lite import servicegroup
        CONF.set_override('discover_hosts_in_cells_interval', 2,
                          'scheduler')
        # The REST services first: a compute reports to placement as soon
        # as it starts, and a report that finds no placement waits a whole
        # period (the demo boot would find no host).
        services = [
            service.WSGIService('nova-lite-placement', placement.make_app(),
                                CONF.placement.bind_host,
                                CONF.placement.bind_port,
                                CONF.api.wsgi_threads),
            service.WSGIService('nova-lite-network', network.make_app(),
                                CONF.network.bind_host,
                                CONF.network.bind_port,
                                CONF.api.wsgi_threads),
            service.Service('nova-lite-conductor', 'conductor',
                            conductor_manager.ConductorManager()),
            service.Service('nova-lite-scheduler', 'scheduler',
                            scheduler_manager.SchedulerManager()),
        ]
        for index in range(1, CONF.computes + 1):
            host = 'compute%d' % index
            services.append(service.Service(
                servicegroup.COMPUTE_BINARY, compute_rpcapi.topic_for(host),
                compute_manager.ComputeManager(host), host=host))
        # The Compute API last: when it answers, everything behind it runs.
        services.append(service.WSGIService(
            'nova-lite-api', compute_api.make_app(), CONF.api.bind_host,
            CONF.api.bind_port, CONF.api.wsgi_threads))
        service.serve(*services)
    common.run(body)


if __name__ == '__main__':
    main()
