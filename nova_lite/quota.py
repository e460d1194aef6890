"""Quotas: how much a project may hold, how much it holds, and the checks
that keep the one under the other. No HTTP here.

A project's limit of a resource is the one an administrator set for the
project (os-quota-sets), else the one of the ``default`` quota class
(os-quota-class-sets), else the ``[quota]`` option; -1 means no limit.

Usage is counted from the databases at each check, never tracked: servers
(``instances``, ``cores``, ``ram``) are the project's live instances in
every cell database, cell0 included, plus its BuildRequests (servers
being scheduled, in no cell yet); server groups are counted per project,
key pairs per user, server group members per group. A check and the
write it guards are not one transaction, so two requests may both pass;
the server builds are checked once more by the conductor (``recheck``),
key pairs and server groups once they are written.
"""

from nova_lite import cells
from nova_lite import conf as nova_conf
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import quotas as quotas_obj

CONF = nova_conf.CONF

UNLIMITED = -1
DEFAULT_CLASS = 'default'

SERVER_RESOURCES = ('instances', 'cores', 'ram')
# What a project's limits are set for (os-quota-sets, os-quota-class-sets).
RESOURCES = SERVER_RESOURCES + ('server_groups', 'server_group_members',
                                'key_pairs')
# Shown to clients but set by the operator only, in [quota].
CONFIG_ONLY_RESOURCES = ('metadata_items', 'injected_files',
                         'injected_file_content_bytes',
                         'injected_file_path_bytes')

# How an amount of each resource reads in a message.
_UNITS = {'instances': 'instances', 'cores': 'cores', 'ram': 'MB of RAM',
          'server_groups': 'server groups',
          'server_group_members': 'members of the server group',
          'key_pairs': 'key pairs'}


# -- limits ---------------------------------------------------------------

def config_limits():
    """The ``[quota]`` option of each resource in RESOURCES."""
    return {resource: getattr(CONF.quota, resource)
            for resource in RESOURCES}


def config_only_limits():
    """The ``[quota]`` options clients see but cannot set."""
    return {resource: getattr(CONF.quota, resource)
            for resource in CONFIG_ONLY_RESOURCES}


def _known(limits):
    # A row of a resource this version no longer has is ignored.
    return {r: v for r, v in limits.items() if r in RESOURCES}


def default_limits(context):
    """What a project without limits of its own may hold: the ``default``
    quota class over the ``[quota]`` options."""
    limits = config_limits()
    limits.update(_known(objects.QuotaClass.get_by_name(
        context, DEFAULT_CLASS).limits))
    return limits


def get_limits(context, project_id):
    """The effective limit of each resource in RESOURCES for
    ``project_id``: its own, else the defaults."""
    limits = default_limits(context)
    limits.update(_known(objects.ProjectQuotas.get_by_project(
        context, project_id).limits))
    return limits


def server_group_member_limit(context, group):
    """How many members ``group`` may have: the limit of its project."""
    return get_limits(context, group.project_id)['server_group_members']


# -- usage ----------------------------------------------------------------

def count_servers(context, project_id):
    """{'instances', 'cores', 'ram'} the servers of ``project_id`` use.

    BuildRequests are read first: a server that the conductor moves into
    a cell after that is left out of the cell counts (by its uuid), so it
    counts once whichever side of the move each read saw. A cell whose
    database does not answer is skipped with a warning.
    """
    build_requests = objects.BuildRequestList.get_all(context,
                                                      project_id=project_id)
    usage = {'instances': len(build_requests),
             'cores': sum(b.instance.flavor.vcpus for b in build_requests),
             'ram': sum(b.instance.flavor.memory_mb
                        for b in build_requests)}
    building = [b.instance_uuid for b in build_requests]
    in_cells = cells.scatter(
        context, lambda cctxt, cell: quotas_obj.count_instances(
            cctxt, project_id, excluding=building),
        'the quota usage of project %s' % project_id)
    for servers, vcpus, memory_mb in in_cells.answers.values():
        usage['instances'] += servers
        usage['cores'] += vcpus
        usage['ram'] += memory_mb
    return usage


def count_usage(context, project_id, resources=RESOURCES, user_id=None,
                group_uuid=None):
    """{resource: amount in use} for each of ``resources``.

    ``key_pairs`` are those of ``user_id`` and ``server_group_members``
    those of the group ``group_uuid``; without one, they count 0.
    """
    usage = {}
    if any(r in SERVER_RESOURCES for r in resources):
        usage.update(count_servers(context, project_id))
    if 'server_groups' in resources:
        usage['server_groups'] = objects.InstanceGroupList.count(
            context, project_id)
    if 'key_pairs' in resources:
        usage['key_pairs'] = (objects.KeyPairList.count(context, user_id)
                              if user_id is not None else 0)
    if 'server_group_members' in resources:
        usage['server_group_members'] = (len(
            objects.InstanceGroup.get_by_uuid(context, group_uuid).members)
            if group_uuid is not None else 0)
    return {resource: usage[resource] for resource in resources}


# -- checks ---------------------------------------------------------------

def _clause(resource, requested, used, limit):
    if requested:
        return '%s: requested %d, but already used %d of %d %s' % (
            resource, requested, used, limit, _UNITS[resource])
    return '%s: %d in use, over the limit of %d %s' % (
        resource, used, limit, _UNITS[resource])


def _over_quota(overs, requested, usage, limits):
    message = 'Quota exceeded for %s.' % '; '.join(
        _clause(r, requested[r], usage[r], limits[r]) for r in overs)
    return exception.OverQuota(message, overs=overs, requested=requested,
                               usage=usage, limits=limits)


def check_deltas(context, project_id, deltas, user_id=None,
                 group_uuid=None):
    """OverQuota unless ``project_id`` can take ``deltas`` ({resource:
    amount}) more of each resource. ``key_pairs`` needs the ``user_id``
    whose key pairs count, ``server_group_members`` the ``group_uuid``.
    A delta of 0 checks that usage is not over the limit already.
    """
    if 'key_pairs' in deltas and user_id is None:
        raise ValueError('key_pairs are counted per user: pass user_id')
    if 'server_group_members' in deltas and group_uuid is None:
        raise ValueError('server_group_members are counted per group: '
                         'pass group_uuid')
    limits = get_limits(context, project_id)
    limited = [r for r in deltas if limits[r] != UNLIMITED]
    if not limited:
        return
    usage = count_usage(context, project_id, limited, user_id=user_id,
                        group_uuid=group_uuid)
    overs = [r for r in limited if usage[r] + deltas[r] > limits[r]]
    if overs:
        raise _over_quota(overs, deltas, usage, limits)


def recheck(context, project_id):
    """OverQuota if the servers of ``project_id`` (those being built
    included) already use more instances, cores or RAM than it may.

    For the conductor, before it builds a server or rebuilds one from
    cell0: the API checked before it accepted the request, but requests
    racing each other may all have passed that check.
    """
    check_deltas(context, project_id,
                 {resource: 0 for resource in SERVER_RESOURCES})


def check_instances(context, flavor, min_count, max_count,
                    project_id=None):
    """How many servers of ``flavor``, at most ``max_count``, the project
    (``context``'s unless given) may still create; OverQuota when fewer
    than ``min_count`` fit, naming the resources that are short."""
    project_id = project_id or context.project_id
    per_server = {'instances': 1, 'cores': flavor.vcpus or 0,
                  'ram': flavor.memory_mb or 0}
    limits = get_limits(context, project_id)
    limited = [r for r in SERVER_RESOURCES
               if limits[r] != UNLIMITED and per_server[r] > 0]
    if not limited:
        return max_count
    usage = count_servers(context, project_id)
    fits = max_count
    for resource in limited:
        room = max(0, limits[resource] - usage[resource])
        fits = min(fits, room // per_server[resource])
    if fits >= min_count:
        return fits
    requested = {r: min_count * per_server[r] for r in SERVER_RESOURCES}
    overs = [r for r in limited if usage[r] + requested[r] > limits[r]]
    raise _over_quota(overs, requested, usage, limits)


def check_metadata_items(metadata):
    """OverQuota if a server has more metadata items than ``[quota]
    metadata_items`` allows."""
    limit = CONF.quota.metadata_items
    count = len(metadata or {})
    if limit != UNLIMITED and count > limit:
        raise exception.OverQuota(
            'Quota exceeded for metadata_items: requested %d, but a server '
            'may have at most %d metadata items.' % (count, limit),
            overs=['metadata_items'])


# -- changing limits ------------------------------------------------------

def _below_usage(context, project_id, limits):
    """{resource: in use} of the resources ``limits`` would set below
    what the project uses. Key pairs (per user) and server group members
    (per group) have no project-wide usage to compare with."""
    compared = [r for r, limit in limits.items()
                if limit != UNLIMITED and r not in ('key_pairs',
                                                    'server_group_members')]
    if not compared:
        return {}
    usage = count_usage(context, project_id, compared)
    return {r: usage[r] for r in compared if limits[r] < usage[r]}


def set_project_limits(context, project_id, limits, force=False):
    """Give ``project_id`` its own ``limits`` ({resource: limit}); others
    keep theirs. Unless ``force``, QuotaLimitBelowUsage if a limit is
    lower than what the project already uses. Returns the effective
    limits afterwards."""
    if not force:
        below = _below_usage(context, project_id, limits)
        if below:
            raise exception.QuotaLimitBelowUsage(
                project=project_id, details='; '.join(
                    '%s %d < %d in use' % (r, limits[r], used)
                    for r, used in sorted(below.items())))
    objects.ProjectQuotas(context, project_id=project_id,
                          limits={}).update_limits(limits)
    return get_limits(context, project_id)


def reset_project_limits(context, project_id):
    """Forget the limits of ``project_id``: the defaults apply again."""
    objects.ProjectQuotas(context, project_id=project_id,
                          limits={}).destroy()


def get_class_limits(context, class_name):
    """The limits of the quota class ``class_name``; only ``default``
    exists (QuotaClassNotFound)."""
    if class_name != DEFAULT_CLASS:
        raise exception.QuotaClassNotFound(class_name=class_name)
    return default_limits(context)


def set_class_limits(context, class_name, limits):
    """Change limits of the quota class ``class_name`` (``default``: the
    defaults of every project); returns its limits afterwards."""
    if class_name != DEFAULT_CLASS:
        raise exception.QuotaClassNotFound(class_name=class_name)
    objects.QuotaClass(context, name=class_name,
                       limits={}).update_limits(limits)
    return default_limits(context)
