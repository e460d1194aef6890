"""What an instance needs from placement, shared by the scheduler (which
asks placement for candidates and claims them) and the compute's resource
tracker (which writes the same allocation at its claim)."""

from oslo_log import log as logging

from nova_lite import exception

LOG = logging.getLogger(__name__)

PCI_ALIAS_SPEC = 'pci_passthrough:alias'


def pci_devices_requested(flavor):
    """Generic PCI devices a flavor asks for ("alias:count,alias:count")."""
    spec = (flavor.extra_specs or {}).get(PCI_ALIAS_SPEC, '')
    total = 0
    for item in filter(None, (part.strip() for part in spec.split(','))):
        _alias, _sep, count = item.partition(':')
        total += int(count or 1)
    return total


def instance_usage(flavor, is_bfv=False):
    """(vcpus, memory_mb, disk_gb) one instance of ``flavor`` uses: the
    root disk counts nothing when it is a volume, swap (MB) is rounded up
    to whole GB."""
    root_gb = 0 if is_bfv else flavor.root_gb
    swap_gb = -(-flavor.swap // 1024)
    return flavor.vcpus, flavor.memory_mb, root_gb + flavor.ephemeral_gb \
        + swap_gb


def resources_from_flavor(flavor, is_bfv=False):
    """{resource class: amount} of one instance, zero amounts left out."""
    vcpus, memory_mb, disk_gb = instance_usage(flavor, is_bfv)
    resources = {'VCPU': vcpus, 'MEMORY_MB': memory_mb, 'DISK_GB': disk_gb,
                 'PCI_DEVICE': pci_devices_requested(flavor)}
    return {name: amount for name, amount in resources.items() if amount}


def resources_from_request_spec(spec):
    return resources_from_flavor(spec.flavor, spec.is_bfv)


# Scheduler hints whose filters look at hosts placement might have left
# out beyond its limit.
_HINTS_WITHOUT_LIMIT = ('group', 'same_host', 'different_host')


def unlimited_candidates(spec):
    """Whether placement is asked for every candidate, not the first
    ``[scheduler] max_placement_results``: as Nova, for a request in a
    server group or with a same_host / different_host hint, whose hosts
    must not be cut off by the limit."""
    hints = spec.scheduler_hints or {}
    return spec.instance_group is not None or any(
        name in hints for name in _HINTS_WITHOUT_LIMIT)


def mappings_from_allocations(request_groups, allocations,
                              provider_traits):
    """{port id: provider uuid} for a move whose allocation has no
    ``mappings`` (written by hand, or healed): each group goes to a
    provider of ``allocations`` that has its resource classes and its
    required traits (``provider_traits``: {provider uuid: set of
    traits}). ``nova-lite-manage placement heal_allocations`` asks the
    same of what each provider of a tree has free ({provider: {class:
    amount}}), to find where a port's missing request fits."""
    found = {}
    # What each provider has left for the groups not matched yet.
    left = {provider: dict(allocation.get('resources', allocation))
            for provider, allocation in allocations.items()}
    for group in request_groups or []:
        for provider, held in sorted(left.items()):
            if all(held.get(rc, 0) >= amount
                   for rc, amount in group.resources.items()) and \
                    set(group.required_traits) <= provider_traits.get(
                        provider, set()):
                found[group.requester_id] = provider
                for rc, amount in group.resources.items():
                    held[rc] -= amount
                break
        else:
            raise exception.PortUpdateFailed(
                port_id=group.requester_id,
                reason='its resource request is not in the allocation')
    return found


def aggregate_number(host_state, key, default, cast):
    """The lowest ``key`` of the host's aggregates' metadata, made a
    number by ``cast`` (int, float), else ``default`` -- also when one is
    not such a number, after a warning: per-aggregate weight multipliers
    and host ceilings, as in Nova."""
    values = {a.metadata[key] for a in host_state.aggregates
              if key in a.metadata}
    if not values:
        return default
    try:
        return min(cast(value) for value in values)
    except ValueError:
        LOG.warning('Aggregate metadata %s of host %s is not a number (%s); '
                    'using %s', key, host_state.host,
                    ', '.join(sorted(values)), default)
        return default
