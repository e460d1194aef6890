"""What a compute node's ``stats`` say about the work on the host, for the
scheduler's filters and weighers.

The resource tracker keeps each instance it counts as ``Activity`` (its
vm_state, task_state and project) and writes the figures below to the
ComputeNode record, the way Nova's computes do:

- ``num_instances``, ``num_vm_<vm_state>``, ``num_task_<task_state>``
  and ``num_proj_<project>``: counts of the instances on the node;
- ``io_workload``: the instances in an I/O-heavy operation -- building,
  or in one of ``IO_TASK_STATES`` (IoOpsFilter and IoOpsWeigher read it);
- ``failed_builds``: consecutive builds that failed here
  (BuildFailureWeigher);
- ``supported_instances``: JSON list of the driver's [architecture,
  hypervisor type, VM mode] (ImagePropertiesFilter).

The record's ``current_workload`` is, as in Nova, the number of instances
with any task in progress.
"""

import collections

from oslo_serialization import jsonutils

from nova_lite.compute import states

# Nova's names for the tasks that move disks or images around; nova_lite
# does not snapshot, back up or rescue (yet), but counts them if it does.
IMAGE_SNAPSHOT = 'image_snapshot'
IMAGE_BACKUP = 'image_backup'
RESCUING = 'rescuing'

IO_TASK_STATES = frozenset([
    states.RESIZE_MIGRATING, states.RESIZE_PREP, states.REBUILDING,
    IMAGE_SNAPSHOT, IMAGE_BACKUP, RESCUING, states.UNSHELVING])

Activity = collections.namedtuple('Activity',
                                  'vm_state task_state project_id')


def activity_of(instance):
    return Activity(instance.vm_state, instance.task_state,
                    instance.project_id)


def is_io_heavy(activity):
    return (activity.vm_state == states.BUILDING or
            activity.task_state in IO_TASK_STATES)


def current_workload(activities):
    """Instances with a task in progress."""
    return sum(1 for a in activities if a.task_state is not None)


def node_stats(activities, failed_builds, supported_instances):
    """The ComputeNode ``stats`` (strings, as the record stores them) for
    the instances doing ``activities`` on a node."""
    activities = list(activities)
    counts = collections.Counter()
    for activity in activities:
        counts['num_vm_%s' % activity.vm_state] += 1
        counts['num_task_%s' % activity.task_state] += 1
        counts['num_proj_%s' % activity.project_id] += 1
    stats = {key: str(value) for key, value in counts.items()}
    stats.update(
        num_instances=str(len(activities)),
        io_workload=str(sum(1 for a in activities if is_io_heavy(a))),
        failed_builds=str(failed_builds),
        supported_instances=jsonutils.dumps(
            [list(item) for item in supported_instances]))
    return stats
