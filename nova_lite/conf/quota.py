"""[quota]: limits per project (and, for key pairs, per user).

These are the defaults. An administrator overrides them for every project
through the ``default`` quota class (``PUT /os-quota-class-sets/default``)
and for one project through ``PUT /os-quota-sets/{project_id}``; both are
kept in the API database and win over the options here.
"""

from oslo_config import cfg

quota_group = cfg.OptGroup(
    'quota', title='Quotas',
    help='How much of each kind of resource one project may hold. -1 '
         'means no limit. These are defaults: limits set through '
         'os-quota-class-sets (class "default") or os-quota-sets (one '
         'project) take precedence.')

quota_opts = [
    cfg.IntOpt('instances', default=10, min=-1,
               help='Servers one project may have, counted in every cell '
                    '(cell0 included: a server that failed to schedule '
                    'still counts until it is deleted) and while they are '
                    'being scheduled. A boot that would exceed it is '
                    'refused with 403; a multi-create is cut down to what '
                    'fits if that is at least its min_count.'),
    cfg.IntOpt('cores', default=20, min=-1,
               help='Virtual CPUs (the sum of the flavors\' vcpus) the '
                    'servers of one project may have. A boot that would '
                    'exceed it is refused with 403.'),
    cfg.IntOpt('ram', default=51200, min=-1,
               help='RAM in MB (the sum of the flavors\' ram) the servers '
                    'of one project may have. A boot that would exceed it '
                    'is refused with 403.'),
    cfg.IntOpt('server_groups', default=10, min=-1,
               help='Server groups one project may have. Creating one more '
                    'is refused with 403.'),
    cfg.IntOpt('server_group_members', default=10, min=-1,
               help='Servers one server group may hold. A boot (or a '
                    'multi-create) that would put more in the group is '
                    'refused with 403 and creates nothing.'),
    cfg.IntOpt('key_pairs', default=100, min=-1,
               help='Key pairs one user may have (counted per user, not '
                    'per project; the limit is that of the project the '
                    'user works in). Creating or importing one more is '
                    'refused with 403.'),
    cfg.IntOpt('metadata_items', default=128, min=-1,
               help='Metadata items (key/value pairs) one server may be '
                    'created with; more is refused with 403. Not '
                    'settable per project: clients see it in quota sets '
                    'and as maxServerMeta in /limits.'),
    cfg.IntOpt('injected_files', default=5, min=-1,
               help='Reported to clients before microversion 2.57 only '
                    '(quota sets, maxPersonality in /limits). nova_lite '
                    'injects no personality files, so nothing is counted '
                    'against it.'),
    cfg.IntOpt('injected_file_content_bytes', default=10240, min=-1,
               help='Reported to clients before microversion 2.57 only '
                    '(quota sets, maxPersonalitySize in /limits); see '
                    'injected_files.'),
    cfg.IntOpt('injected_file_path_bytes', default=255, min=-1,
               help='Reported to clients before microversion 2.57 only '
                    '(quota sets); see injected_files.'),
]


def register_opts(conf):
    conf.register_group(quota_group)
    conf.register_opts(quota_opts, group=quota_group)


def list_opts():
    return {quota_group: quota_opts}
