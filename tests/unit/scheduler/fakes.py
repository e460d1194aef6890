"""Request specs, host states and server groups built by hand for the
scheduler tests, and the table decorator that turns rows into tests."""

from oslo_utils import uuidutils

from nova_lite import objects
from nova_lite.scheduler import host_manager

objects.register_all()

# The filters these tests of the pipeline's mechanics run unless they name
# others: Nova 34's defaults plus the filters that refuse a host for want of
# a resource or for its zone, so that an explanation has a reason per host.
PIPELINE_FILTERS = ['ComputeFilter', 'RetryFilter', 'AvailabilityZoneFilter',
                    'RamFilter', 'CoreFilter', 'DiskFilter',
                    'ComputeCapabilitiesFilter', 'ImagePropertiesFilter',
                    'ServerGroupAntiAffinityFilter',
                    'ServerGroupAffinityFilter']

CELL1 = uuidutils.generate_uuid()
CELL2 = uuidutils.generate_uuid()


def make_spec(memory_mb=512, vcpus=1, root_gb=1, ephemeral_gb=0, swap=0,
              is_bfv=False, extra_specs=None, image_props=None, group=None,
              hints=None, **kwargs):
    """A RequestSpec for one instance of a small flavor."""
    flavor = objects.Flavor(id=1, flavorid='1', name='f', memory_mb=memory_mb,
                            vcpus=vcpus, root_gb=root_gb,
                            ephemeral_gb=ephemeral_gb, swap=swap,
                            extra_specs=dict(extra_specs or {}))
    spec = objects.RequestSpec(instance_uuid=uuidutils.generate_uuid(),
                               flavor=flavor, is_bfv=is_bfv, **kwargs)
    if image_props is not None:
        spec.image = objects.ImageMeta(properties=dict(image_props))
    if group is not None:
        spec.instance_group = group
    if hints is not None:
        spec.scheduler_hints = hints
    return spec


def make_host(host, cell_uuid=CELL1, ram_mb=4096, free_ram_mb=None,
              disk_gb=100, free_disk_mb=None, vcpus=8, vcpus_used=0,
              up=True, disabled=False, forced_down=False, nodename=None,
              aggregates=(), instances=(), **attrs):
    """A HostState of an up and enabled compute with everything free.

    ``aggregates`` is a list of metadata dicts, one aggregate each; any
    other keyword sets the HostState attribute of that name.
    """
    state = host_manager.HostState(host, nodename or host, cell_uuid)
    state.uuid = uuidutils.generate_uuid()
    state.total_usable_ram_mb = ram_mb
    state.free_ram_mb = ram_mb if free_ram_mb is None else free_ram_mb
    state.total_usable_disk_gb = disk_gb
    state.free_disk_mb = (disk_gb * 1024 if free_disk_mb is None
                          else free_disk_mb)
    state.vcpus_total = vcpus
    state.vcpus_used = vcpus_used
    state.service = {'up': up, 'disabled': disabled,
                     'forced_down': forced_down, 'disabled_reason': None}
    state.aggregates = [
        host_manager.Aggregate('agg%d' % index, metadata, [host])
        for index, metadata in enumerate(aggregates)]
    state.instances = set(instances)
    for name, value in attrs.items():
        if not hasattr(state, name):
            raise AttributeError('HostState has no %s' % name)
        setattr(state, name, value)
    return state


def make_group(policy, rules=None):
    """An empty server group with ``policy``."""
    return objects.InstanceGroup(uuid=uuidutils.generate_uuid(),
                                 policy=policy, rules=dict(rules or {}),
                                 members=[], hosts=[])


def add_members(group, host_state, count=1):
    """Put ``count`` new members of ``group`` on ``host_state``."""
    for _ in range(count):
        member = uuidutils.generate_uuid()
        host_state.instances.add(member)
        group.add_placement(host_state.host, member)


def add_cases(table, check):
    """Class decorator: one test_<name> per row, calling check(self, *row)."""
    def decorate(cls):
        for name, *row in table:
            test_name = 'test_' + name
            if hasattr(cls, test_name):
                raise ValueError('two rows are named %s' % name)

            def test(self, row=row):
                check(self, *row)
            test.__name__ = test_name
            setattr(cls, test_name, test)
        return cls
    return decorate


def hosts_of(states):
    return [state.host for state in states]
