"""[upgrade_levels]: RPC version caps for rolling upgrades."""

from oslo_config import cfg

upgrade_group = cfg.OptGroup(
    'upgrade_levels', title='RPC upgrade levels',
    help='Caps on the RPC API versions a client sends to each service. '
         'During a rolling upgrade pin them to the oldest running version '
         'of that service, or set "auto" to use the lowest version the '
         'running services report in their service records.')


def _level(name):
    return cfg.StrOpt(name,
                      help='RPC version cap for the %s API: an "X.Y" '
                           'version, "auto", or unset for the newest this '
                           'release knows.' % name)


upgrade_opts = [_level('conductor'), _level('scheduler'), _level('compute')]


def register_opts(conf):
    conf.register_group(upgrade_group)
    conf.register_opts(upgrade_opts, group=upgrade_group)


def list_opts():
    return {upgrade_group: upgrade_opts}
