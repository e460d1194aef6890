"""[database] and [api_database]: where the cell and API databases are."""

from oslo_config import cfg

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


def _db_opts():
    return [
        cfg.StrOpt('connection',
                   secret=True,
                   help='SQLAlchemy URL, for example '
                        'mysql+pymysql://root:@127.0.0.1/nova_lite?'
                        'charset=utf8mb4 or sqlite:////var/lib/nova-lite/'
                        'nova_lite.sqlite.'),
        cfg.IntOpt('max_pool_size',
                   default=10, min=1,
                   help='Connections kept open in the pool.'),
        cfg.IntOpt('max_overflow',
                   default=20, min=0,
                   help='Connections opened beyond max_pool_size under '
                        'load. Each daemon may hold max_pool_size + '
                        'max_overflow connections per database it uses '
                        '(the api, conductor and scheduler use the API '
                        'database and every cell\'s); the database '
                        'server\'s max_connections must cover the sum over '
                        'all daemons, or requests fail with 503 "Too many '
                        'connections" under load.'),
        cfg.IntOpt('pool_timeout',
                   default=30, min=1,
                   help='Seconds to wait for a pooled connection.'),
        cfg.IntOpt('connection_recycle_time',
                   default=3600, min=1,
                   help='Seconds after which a pooled connection is '
                        'replaced; keep it below the server wait_timeout.'),
        cfg.IntOpt('max_retries',
                   default=10, min=-1,
                   help='Attempts to reach the database server at start '
                        'before a daemon gives up (-1: forever).'),
        cfg.IntOpt('retry_interval',
                   default=2, min=1,
                   help='Seconds between two attempts to reach the database '
                        'server at start.'),
    ]


def register_opts(conf):
    conf.register_group(database_group)
    conf.register_opts(_db_opts(), group=database_group)
    conf.register_group(api_database_group)
    conf.register_opts(_db_opts(), group=api_database_group)


def list_opts():
    return {database_group: _db_opts(), api_database_group: _db_opts()}
