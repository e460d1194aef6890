"""What a server on a host is missing in placement, written again
(``nova-lite-manage placement heal_allocations``).

Two things can be missing. A server may hold no allocation at all: it is
written whole, its flavor on its compute node (its disk on a sharing
provider of the node's aggregates, as a claim puts it) and its ports'
resource requests as below. Or its allocation may lack a port's resource
request (minimum bandwidth): a port with a request is held when the
provider its binding profile's ``allocation`` names holds its resources in
the server's allocation; otherwise its resources are added on the
provider of the node's tree that has the request's traits and room for it
(the bandwidth provider of the port's physical network on that host), and
the port is bound with ``allocation`` naming that provider, as a build
binds it (``network.api.bind_port``).

One server is healed in two steps, each with its undo:

1. ``write_allocation``: the server's whole allocation, checked against
   the consumer generation read when the heal was planned (a change made
   since refuses it; placement refuses it too when a provider has no room
   left). Undo: the allocation it had, written back (removed if it had
   none).
2. ``bind_ports``: each port whose profile does not name its provider
   yet, bound with that provider. Undo: each port written, given its
   profile back.

A failure at step 2 undoes the ports written so far, then step 1: a
server is healed whole or not at all, never an allocation without the
binding profile naming it or the other way round. When step 1 finds the
allocation written since it was read (the compute's own audit writes
allocations its servers miss), the heal is planned again from what it
holds now.

Servers in a task (a build, a move, a delete) are left alone: their
operation claims or gives back what they hold.
"""

from nova_lite import cells
from nova_lite.compute import resource_tracker
from nova_lite import exception
from nova_lite.network import api as network_api
from nova_lite import objects
from nova_lite import placement_client
from nova_lite.scheduler import utils as scheduler_utils

# How many times a server is planned again when its allocation keeps
# changing under the heal.
REPLANS = 3


class CannotHeal(exception.NovaLiteException):
    msg_fmt = 'Instance %(instance)s not healed: %(reason)s'


def _resources(resources):
    return ', '.join('%s=%s' % item for item in sorted(resources.items()))


class Heal:
    """What one server is missing, and the allocation that gives it."""

    def __init__(self, instance, held, allocations, node_name=None):
        self.instance = instance
        # What placement answered when the heal was planned:
        # {'allocations', 'consumer_generation', 'project_id', ...}.
        self.held = held
        # The server's whole allocation once healed (PUT /allocations).
        self.allocations = allocations
        self.node_name = node_name
        # [(port, RequestGroup, provider uuid)]: the ports whose resource
        # requests the allocation gains.
        self.ports = []

    @property
    def whole(self):
        """Whether the server held nothing at all."""
        return not self.held.get('allocations')

    def ports_to_bind(self):
        """The healed ports whose profile does not name their provider."""
        return [(port, provider) for port, _group, provider in self.ports
                if _named_provider(port) != provider]

    def describe(self):
        """One line per thing written, for the operator."""
        lines = []
        if self.whole:
            lines.append('allocations of %s on %s' % (self.instance.uuid,
                                                      self.node_name))
        for port, group, provider in self.ports:
            lines.append('port %s\'s %s in the allocations of %s on %s' % (
                port['id'], _resources(group.resources),
                self.instance.uuid, provider))
        return lines


class Report:
    """What ``heal_all`` did (or, in a dry run, would do)."""

    def __init__(self):
        self.checked = 0
        self.in_task = 0
        self.healed = []       # [Heal]
        self.failed = []       # [(instance uuid, why)]
        self.cells_down = {}   # {cell name: why}

    @property
    def ports_healed(self):
        return sum(len(heal.ports) for heal in self.healed)


def _profile(port):
    return port.get('binding:profile') or {}


def _named_provider(port):
    """The provider the port's binding profile names (``allocation``).
    A profile naming several (request group -> provider) names none this
    heal can keep."""
    provider = _profile(port).get('allocation')
    return provider if isinstance(provider, str) else None


def _request_group(instance, port):
    """The port's request group, or None; CannotHeal for a resource
    request that is no {class: amount} with a list of traits."""
    try:
        return objects.RequestGroup.from_port(port)
    except (AttributeError, TypeError, ValueError) as e:
        raise CannotHeal(instance=instance.uuid, reason=(
            'port %s has a resource request that cannot be read (%r): %s' % (
                port['id'], port.get('resource_request'), e)))


def _ports_with_requests(ports_client, instance):
    """[(port, RequestGroup)] of the server's ports that have a resource
    request, each bound to the server's host."""
    try:
        ports = ports_client.ports_of(instance)
    except (exception.NetworkUnavailable, exception.PortUpdateFailed) as e:
        raise CannotHeal(instance=instance.uuid,
                         reason='its ports cannot be read: %s' % e)
    found = []
    for port in ports:
        group = _request_group(instance, port)
        if group is None:
            continue
        if not isinstance(port.get('binding:profile') or {}, dict):
            raise CannotHeal(instance=instance.uuid, reason=(
                'port %s has a binding:profile that is no object: %r' % (
                    port['id'], port['binding:profile'])))
        if port.get('binding:host_id') != instance.host:
            raise CannotHeal(instance=instance.uuid, reason=(
                'its port %s with a resource request is bound to %s, not '
                'to the server\'s host %s (nova-lite-manage audit tells '
                'more)' % (port['id'], port.get('binding:host_id') or
                           'no host', instance.host)))
        found.append((port, group))
    return found


def _not_held(requests, held):
    """The (port, group) of ``requests`` whose resources the provider
    their profile names does not hold for them in ``held`` ({rp:
    {'resources': ...}})."""
    left = {rp: dict(allocation['resources'])
            for rp, allocation in held.items()}
    missing = []
    for port, group in requests:
        there = left.get(_named_provider(port))
        if there is not None and all(
                there.get(rc, 0) >= amount
                for rc, amount in group.resources.items()):
            for rc, amount in group.resources.items():
                there[rc] -= amount
        else:
            missing.append((port, group))
    return missing


def _providers_for(placement, instance, node, missing):
    """{port id: provider uuid}: for each port's request, a provider of
    the node's tree with the request's traits and room for it (and for
    the other ports' requests placed before it)."""
    tree = [p['uuid'] for p in placement.provider_tree(node.uuid)]
    free = {rp: {rc: usable - used for rc, (usable, used) in
                 placement.provider_capacity(rp).items()} for rp in tree}
    traits = {rp: placement.provider_traits(rp) for rp in tree}
    groups = [group for _port, group in missing]
    try:
        # The matching a move uses to find which provider holds each
        # port's part, here asked of what each provider has free.
        return scheduler_utils.mappings_from_allocations(groups, free,
                                                         traits)
    except exception.PortUpdateFailed as e:
        [group] = [g for g in groups
                   if g.requester_id == e.kwargs.get('port_id')]
        raise CannotHeal(instance=instance.uuid, reason=(
            'no resource provider of compute node %s (%s) and its children '
            'has the traits %s and room for port %s\'s %s' % (
                node.hypervisor_hostname, node.uuid,
                ', '.join(group.required_traits) or '(none)',
                group.requester_id, _resources(group.resources))))


def plan(context, placement, ports_client, instance, with_ports=True):
    """The ``Heal`` of a server on a host (``context`` aimed at its
    cell), None when it is missing nothing; CannotHeal when it cannot be
    healed. With ``with_ports`` False its ports are not looked at (only a
    missing allocation is written, with the flavor's resources alone).
    Nothing is written."""
    held = placement.get_allocations(instance.uuid)
    allocations = {rp: {'resources': dict(a['resources'])}
                   for rp, a in (held.get('allocations') or {}).items()}
    requests = (_ports_with_requests(ports_client, instance)
                if with_ports else [])
    missing = _not_held(requests, allocations)
    if allocations and not missing:
        return None
    try:
        node = objects.ComputeNode.get_by_host_and_nodename(
            context, instance.host, instance.node)
    except exception.ComputeHostNotFound:
        raise CannotHeal(instance=instance.uuid, reason=(
            'its compute node %s/%s has no record' % (instance.host,
                                                      instance.node)))
    if not allocations:
        sharing = placement.sharing_providers(
            placement.get_aggregates(node.uuid), {'DISK_GB': 1})
        allocations = resource_tracker.build_allocations(
            instance, node.uuid, sharing[0] if sharing else None)
    provider_of_port = (_providers_for(placement, instance, node, missing)
                        if missing else {})
    heal = Heal(instance, held, resource_tracker.with_added(
        allocations, network_api.port_allocations(
            [group for _port, group in missing], provider_of_port)),
        node.hypervisor_hostname)
    heal.ports = [(port, group, provider_of_port[port['id']])
                  for port, group in missing]
    return heal


def write_allocation(placement, heal):
    """Step 1: the server's healed allocation, in place of what it held
    when the heal was planned. Its undo: ``give_back_allocation`` with
    the generation answered."""
    held = heal.held
    return placement.replace_allocations(
        heal.instance.uuid, heal.allocations,
        held.get('consumer_generation'),
        held.get('project_id') or heal.instance.project_id,
        held.get('user_id') or heal.instance.user_id)


def give_back_allocation(placement, heal, generation):
    """Undo step 1: the allocation the server held before (none: it is
    removed), if nobody wrote it since step 1."""
    held = heal.held
    placement.replace_allocations(
        heal.instance.uuid, {rp: {'resources': a['resources']} for rp, a in
                             (held.get('allocations') or {}).items()},
        generation, held.get('project_id') or heal.instance.project_id,
        held.get('user_id') or heal.instance.user_id)


def bind_ports(ports_client, heal, written):
    """Step 2: bind each port of ``heal.ports_to_bind`` on the server's
    host with its provider as ``allocation``; each port about to be
    written goes into ``written`` first (a refused binding is written
    too), for the undo."""
    for port, provider in heal.ports_to_bind():
        written.append(port)
        network_api.bind_port(ports_client, port, heal.instance,
                              heal.instance.host, provider)


def unbind_ports(ports_client, written):
    """Undo step 2: each port written gets its profile back."""
    for port in reversed(written):
        ports_client.update_port(port['id'], **{
            'binding:profile': dict(_profile(port))})


def apply(placement, ports_client, heal):
    """Write ``heal`` (the module's steps); CannotHeal, after undoing
    what was written, when a step fails. ConsumerChanged, nothing
    written, when the allocation was written since the heal read it."""
    instance = heal.instance.uuid
    try:
        generation = write_allocation(placement, heal)
    except placement_client.ConsumerChanged:
        raise
    except exception.NovaLiteException as e:
        raise CannotHeal(instance=instance, reason=(
            'placement did not take its allocation (%s): %s' % (
                _resources_by_rp(heal.allocations), e)))
    written = []
    try:
        bind_ports(ports_client, heal, written)
    except Exception as e:
        undone = _undo(placement, ports_client, heal, generation, written)
        if not isinstance(e, exception.NovaLiteException):
            raise
        raise CannotHeal(instance=instance, reason=(
            'a port could not be bound with its allocation: %s; %s' % (
                e.format_message(), undone)))


def _undo(placement, ports_client, heal, generation, written):
    """Undo both steps; what that left, in words."""
    left = []
    try:
        unbind_ports(ports_client, written)
    except exception.NovaLiteException as e:
        left.append('the binding profile of port(s) %s may still name '
                    'the new provider (%s)' % (
                        ', '.join(p['id'] for p in written), e))
    try:
        give_back_allocation(placement, heal, generation)
    except exception.NovaLiteException as e:
        left.append('the allocation written is still there (%s)' % e)
    if not left:
        return 'nothing was changed'
    return ('undoing failed: %s; nova-lite-manage audit shows what is '
            'left' % '; '.join(left))


def _resources_by_rp(allocations):
    return '; '.join('%s: %s' % (rp, _resources(a['resources']))
                     for rp, a in sorted(allocations.items()))


def _placed_instances(context, instance_uuid=None):
    """([(cell context, instance)] of every live server on a host (or the
    one ``instance_uuid``) in the cells that answered, {cell name: why}
    of those that did not)."""
    def read(cctxt, cell):
        filters = {'uuid': [instance_uuid]} if instance_uuid else {}
        return [(cctxt, instance) for instance in
                objects.InstanceList.get_by_filters(cctxt, filters)
                if instance.host and instance.node]

    found = cells.scatter(context, read, 'a list of servers',
                          with_cell0=False)
    return ([pair for pairs in found.answers.values() for pair in pairs],
            found.down_by_name())


def heal(context, placement, ports_client, instance, with_ports=True,
         dry_run=False):
    """Plan and (unless ``dry_run``) write the heal of one server; the
    ``Heal``, None when it is missing nothing. Planned again when its
    allocation changed meanwhile -- from the server read again, which
    may have started a task (a move gives its allocation to the
    migration) or gone since."""
    for attempt in range(REPLANS):
        if attempt:
            try:
                instance = objects.Instance.get_by_uuid(context,
                                                        instance.uuid)
            except exception.InstanceNotFound:
                return None
            if instance.task_state is not None or not instance.host:
                return None
        planned = plan(context, placement, ports_client, instance,
                       with_ports)
        if planned is None or dry_run:
            return planned
        try:
            apply(placement, ports_client, planned)
        except placement_client.ConsumerChanged:
            continue
        return planned
    raise CannotHeal(instance=instance.uuid, reason=(
        'its allocation changed each of the %d times it was about to be '
        'written; run the command again' % REPLANS))


def heal_all(context, placement, ports_client, with_ports=True,
             dry_run=False, instance_uuid=None):
    """Heal every server on a host (or the one ``instance_uuid``) of the
    cells that answer; with ``dry_run`` plan only. The ``Report``."""
    report = Report()
    instances, report.cells_down = _placed_instances(context,
                                                     instance_uuid)
    for cctxt, instance in instances:
        report.checked += 1
        if instance.task_state is not None:
            report.in_task += 1
            continue
        try:
            healed = heal(cctxt, placement, ports_client, instance,
                          with_ports, dry_run)
        except CannotHeal as e:
            report.failed.append((instance.uuid, e.format_message()))
            continue
        except exception.NovaLiteException as e:
            # Placement or the port service failing while the heal was
            # planned: nothing was written.
            report.failed.append((instance.uuid, CannotHeal(
                instance=instance.uuid, reason=e.format_message()
            ).format_message()))
            continue
        if healed is not None:
            report.healed.append(healed)
    return report
