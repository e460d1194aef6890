"""The figures a compute node's stats give the scheduler."""

from oslo_serialization import jsonutils
import testtools

from nova_lite.compute import states
from nova_lite.compute import stats


def doing(vm_state=states.ACTIVE, task_state=None, project_id='p'):
    return stats.Activity(vm_state, task_state, project_id)


class TestIoWorkload(testtools.TestCase):

    def io_workload(self, *activities):
        return int(stats.node_stats(activities, 0, [])['io_workload'])

    def test_a_building_instance_is_io_heavy(self):
        self.assertEqual(1, self.io_workload(
            doing(states.BUILDING, states.SPAWNING)))

    def test_resizes_rebuilds_unshelves_snapshots_and_rescues_are(self):
        for task in (states.RESIZE_PREP, states.RESIZE_MIGRATING,
                     states.REBUILDING, states.UNSHELVING,
                     stats.IMAGE_SNAPSHOT, stats.IMAGE_BACKUP,
                     stats.RESCUING):
            self.assertEqual(1, self.io_workload(doing(task_state=task)),
                             task)

    def test_other_tasks_and_idle_instances_are_not(self):
        self.assertEqual(0, self.io_workload(
            doing(), doing(task_state=states.POWERING_OFF),
            doing(task_state=states.RESIZE_FINISH),
            doing(task_state=states.MIGRATING),
            doing(states.STOPPED, states.SHELVING)))

    def test_they_add_up(self):
        self.assertEqual(3, self.io_workload(
            doing(states.BUILDING, states.SPAWNING),
            doing(task_state=states.REBUILDING),
            doing(task_state=states.RESIZE_PREP), doing()))


class TestCurrentWorkload(testtools.TestCase):

    def test_it_counts_every_task_in_progress(self):
        self.assertEqual(2, stats.current_workload([
            doing(task_state=states.POWERING_OFF),
            doing(states.BUILDING, states.SPAWNING), doing()]))


class TestNodeStats(testtools.TestCase):

    def test_counts_by_vm_state_task_state_and_project(self):
        reported = stats.node_stats(
            [doing(project_id='a'), doing(project_id='a'),
             doing(states.BUILDING, states.SPAWNING, 'b')], 0, [])
        self.assertEqual(
            {'num_instances': '3', 'num_vm_active': '2',
             'num_vm_building': '1', 'num_task_None': '2',
             'num_task_spawning': '1', 'num_proj_a': '2',
             'num_proj_b': '1'},
            {k: v for k, v in reported.items()
             if k.startswith('num_')})

    def test_failed_builds_and_supported_instances_are_reported(self):
        reported = stats.node_stats([], 3, [('x86_64', 'fake', 'hvm')])
        self.assertEqual('3', reported['failed_builds'])
        self.assertEqual([['x86_64', 'fake', 'hvm']],
                         jsonutils.loads(reported['supported_instances']))

    def test_every_value_is_a_string_as_the_record_stores_them(self):
        reported = stats.node_stats([doing()], 0, [('x86_64', 'fake', 'hvm')])
        self.assertEqual({str}, {type(v) for v in reported.values()})
