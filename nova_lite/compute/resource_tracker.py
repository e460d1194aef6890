"""The compute resource tracker: what this host has and what its instances
use, kept in the host's ComputeNode record.

A claim reserves an instance's resources before it spawns and fails when
they would exceed the host's capacity times its allocation ratio (or the
scheduler's limits); a failed spawn aborts the claim. The periodic audit
(``update_available_resource``) recomputes usage from the instances that
are really on this host, so the record heals after a crash.
"""

import contextlib
import threading

from oslo_log import log as logging

from nova_lite.compute import states
from nova_lite import conf as nova_conf
from nova_lite import exception
from nova_lite import objects

CONF = nova_conf.CONF
LOG = logging.getLogger(__name__)


def is_boot_from_volume(instance):
    return instance.system_metadata.get('boot_from_volume') == 'True'


def instance_usage(flavor, is_bfv=False):
    """(vcpus, memory_mb, disk_gb) one instance of ``flavor`` uses."""
    root_gb = 0 if is_bfv else flavor.root_gb
    swap_gb = -(-flavor.swap // 1024)  # MB to GB, rounded up
    return flavor.vcpus, flavor.memory_mb, root_gb + flavor.ephemeral_gb \
        + swap_gb


class ResourceTracker:

    def __init__(self, host, driver):
        self.host = host
        self.driver = driver
        self.compute_nodes = {}  # nodename -> ComputeNode
        self.tracked = {}  # instance uuid -> (vcpus, memory_mb, disk_gb)
        # Instances between claim and the end of their spawn: the audit
        # must not drop them although their record is not ACTIVE yet.
        self._claiming = set()
        self._lock = threading.Lock()

    def _ensure_node(self, context, nodename, resources):
        node = self.compute_nodes.get(nodename)
        if node is None:
            try:
                node = objects.ComputeNode.get_by_host_and_nodename(
                    context, self.host, nodename)
            except exception.ComputeHostNotFound:
                node = objects.ComputeNode(
                    context, host=self.host, hypervisor_hostname=nodename,
                    hypervisor_type=resources['hypervisor_type'],
                    hypervisor_version=resources['hypervisor_version'],
                    cpu_info=resources['cpu_info'], vcpus=0, memory_mb=0,
                    local_gb=0, vcpus_used=0, memory_mb_used=0,
                    local_gb_used=0, free_ram_mb=0, free_disk_gb=0,
                    running_vms=0, current_workload=0,
                    cpu_allocation_ratio=CONF.cpu_allocation_ratio,
                    ram_allocation_ratio=CONF.ram_allocation_ratio,
                    disk_allocation_ratio=CONF.disk_allocation_ratio)
                self._apply(node, resources)
                node.create()
                LOG.info('Created compute node record for %s/%s',
                         self.host, nodename)
            self.compute_nodes[nodename] = node
        return node

    def _apply(self, node, resources):
        node.vcpus = resources['vcpus']
        node.memory_mb = resources['memory_mb']
        node.local_gb = resources['local_gb']
        node.cpu_allocation_ratio = CONF.cpu_allocation_ratio
        node.ram_allocation_ratio = CONF.ram_allocation_ratio
        node.disk_allocation_ratio = CONF.disk_allocation_ratio
        vcpus = memory_mb = disk_gb = 0
        for used in self.tracked.values():
            vcpus += used[0]
            memory_mb += used[1]
            disk_gb += used[2]
        node.vcpus_used = vcpus + CONF.reserved_host_cpus
        node.memory_mb_used = memory_mb + CONF.reserved_host_memory_mb
        node.local_gb_used = disk_gb + -(-CONF.reserved_host_disk_mb // 1024)
        node.free_ram_mb = node.memory_mb - node.memory_mb_used
        node.free_disk_gb = node.local_gb - node.local_gb_used
        node.running_vms = len(self.tracked)

    def update_available_resource(self, context, nodename):
        """Audit: recompute usage from the instances on this host."""
        resources = self.driver.get_available_resource(nodename)
        instances = objects.InstanceList.get_by_host_and_node(
            context, self.host, nodename)
        with self._lock:
            node = self._ensure_node(context, nodename, resources)
            in_flight = {uuid: usage for uuid, usage in self.tracked.items()
                         if uuid in self._claiming}
            self.tracked = {
                i.uuid: instance_usage(i.flavor, is_boot_from_volume(i))
                for i in instances
                if i.vm_state not in (states.DELETED,)}
            self.tracked.update(in_flight)
            self._apply(node, resources)
            node.save()
        return node

    def _check(self, node, usage, limits):
        vcpus, memory_mb, disk_gb = usage
        limits = limits.to_dict() if limits is not None else {}
        ceilings = {
            'memory_mb': limits.get('memory_mb',
                                    node.memory_mb *
                                    node.ram_allocation_ratio),
            'vcpu': limits.get('vcpu', node.vcpus *
                               node.cpu_allocation_ratio),
            'disk_gb': limits.get('disk_gb', node.local_gb *
                                  node.disk_allocation_ratio),
        }
        wanted = {'memory_mb': (node.memory_mb_used, memory_mb),
                  'vcpu': (node.vcpus_used, vcpus),
                  'disk_gb': (node.local_gb_used, disk_gb)}
        for name, (used, requested) in wanted.items():
            if used + requested > ceilings[name]:
                raise exception.ComputeResourcesUnavailable(
                    reason='%s: %s used + %s requested > limit %s on %s' %
                    (name, used, requested, int(ceilings[name]), self.host))

    @contextlib.contextmanager
    def instance_claim(self, context, instance, nodename, limits=None):
        """Reserve ``instance``'s resources for the duration of a spawn;
        the reservation stays on success and is undone on failure."""
        usage = instance_usage(instance.flavor,
                               is_boot_from_volume(instance))
        with self._lock:
            node = self._ensure_node(
                context, nodename,
                self.driver.get_available_resource(nodename))
            self._check(node, usage, limits)
            self.tracked[instance.uuid] = usage
            self._claiming.add(instance.uuid)
            self._apply(node, self.driver.get_available_resource(nodename))
            node.save()
        try:
            yield
        except BaseException:
            self.drop_instance(context, instance, nodename)
            raise
        finally:
            self._claiming.discard(instance.uuid)

    def drop_instance(self, context, instance, nodename):
        """Give back what ``instance`` used here (terminate, failed spawn)."""
        with self._lock:
            if self.tracked.pop(instance.uuid, None) is None:
                return
            node = self.compute_nodes.get(nodename)
            if node is not None:
                self._apply(node,
                            self.driver.get_available_resource(nodename))
                node.save()
