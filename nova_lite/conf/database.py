"""[database] and [api_database]: where the cell and API databases are.

Both groups hold oslo.db's options (``connection``, the pool,
``mysql_sql_mode``, ``mysql_wsrep_sync_wait`` for Galera, ...), as in
every OpenStack service; [database] takes oslo.db's own option objects,
which its enginefacade registers there too, [api_database] copies.
"""

import copy

from oslo_config import cfg
from oslo_db import options as oslo_db_options

database_group = cfg.OptGroup(
    'database',
    title='Cell database',
    help='The database of the cell this daemon belongs to. The conductor '
         'uses it for objects persisted on behalf of computes (which hold '
         'no database credentials); cell_v2 simple_cell_setup registers it '
         'as cell1 and derives cell0 from it.')

api_database_group = cfg.OptGroup(
    'api_database',
    title='API database',
    help='The API database: flavors, request specs, build requests, cell, '
         'host and instance mappings, quotas, and the placement and network '
         'tables. Needed by the api, conductor, scheduler, placement and '
         'network daemons, never by computes.')

# Ours where they differ from oslo.db's. Each daemon may hold
# max_pool_size + max_overflow connections per database it uses (the api,
# conductor and scheduler use the API database and every cell's); the
# server's max_connections must cover the sum over all daemons, or
# requests fail with 503 "Too many connections" under load.
_DEFAULTS = {'max_pool_size': 10, 'max_overflow': 20, 'pool_timeout': 30,
             'retry_interval': 2}

_API_DATABASE_OPTS = [copy.deepcopy(opt)
                      for opt in oslo_db_options.database_opts]


def register_opts(conf):
    conf.register_group(database_group)
    conf.register_opts(oslo_db_options.database_opts, group=database_group)
    conf.register_group(api_database_group)
    conf.register_opts(_API_DATABASE_OPTS, group=api_database_group)
    for group in (database_group, api_database_group):
        for name, value in _DEFAULTS.items():
            conf.set_default(name, value, group=group.name)


def list_opts():
    return {database_group: oslo_db_options.database_opts,
            api_database_group: _API_DATABASE_OPTS}
