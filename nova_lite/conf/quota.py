"""[quota]: limits per project (and, for key pairs, per user)."""

from oslo_config import cfg

quota_group = cfg.OptGroup(
    'quota', title='Quotas',
    help='How much of each kind of resource one project may hold. -1 '
         'means no limit.')

quota_opts = [
    cfg.IntOpt('server_groups', default=10, min=-1,
               help='Server groups one project may have. Creating one more '
                    'is refused with 403.'),
    cfg.IntOpt('server_group_members', default=10, min=-1,
               help='Servers one server group may hold. A boot (or a '
                    'multi-create) that would put more in the group is '
                    'refused with 403 and creates nothing.'),
    cfg.IntOpt('key_pairs', default=100, min=-1,
               help='Key pairs one user may have (counted per user, not '
                    'per project). Creating or importing one more is '
                    'refused with 403.'),
]


def register_opts(conf):
    conf.register_group(quota_group)
    conf.register_opts(quota_opts, group=quota_group)


def list_opts():
    return {quota_group: quota_opts}
