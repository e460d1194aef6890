"""What every move of an existing server (evacuation, unshelve) does
before and after it asks the scheduler: a RequestSpec carrying the ports'
resource requests as request groups, and, once the scheduler has claimed
the destination, each group's provider taken from the allocation's
``mappings`` (seed 001: the destination compute binds each port with it).
"""

from oslo_log import log as logging

from nova_lite.compute import instance_actions
from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite import lifecycle
from nova_lite.network import api as network_api
from nova_lite import objects

LOG = logging.getLogger(__name__)


def run_in_cell(task, what, event, action, steps, rollback):
    """Run a move task's ``steps()`` in its server's cell, as the event
    ``event`` of ``action`` in the server's history; any failure is
    logged (a traceback only for the unexpected), recorded on the event
    and handed to ``rollback(error)``. The task gets ``cctxt``."""
    mapping = objects.InstanceMapping.get_by_instance_uuid(
        task.context, task.instance.uuid)
    with nova_context.target_cell(task.context,
                                  mapping.cell_mapping) as cctxt:
        task.cctxt = cctxt
        task.instance._context = cctxt
        with instance_actions.event(cctxt, task.instance.uuid, event,
                                    action=action) as step:
            try:
                steps()
            except Exception as error:
                if isinstance(error, exception.NovaLiteException):
                    LOG.warning('%s of %s failed: %s', what,
                                task.instance.uuid, error)
                else:
                    LOG.exception('%s of %s failed', what,
                                  task.instance.uuid)
                step.fail(lifecycle.fault_message(error), error)
                rollback(error)


def request_spec_for_move(context, instance, port_client, ignore_hosts=None,
                          requested_host=None, force=False):
    """The server's RequestSpec, made fit to schedule it again now: one
    instance, no retries, the ports' request groups read from the port
    service, the server group's current members.

    A ``requested_host`` is the requested destination: the only
    candidate, on which every filter still runs (group policy, zone,
    disabled or down compute) -- or, with ``force``, a forced host, which
    skips the filters (placement's claim still checks its room)."""
    try:
        spec = objects.RequestSpec.get_by_instance_uuid(context,
                                                        instance.uuid)
    except exception.RequestSpecNotFound:
        spec = objects.RequestSpec(instance_uuid=instance.uuid,
                                   flavor=instance.flavor)
    spec.project_id = instance.project_id
    spec.user_id = instance.user_id
    spec.num_instances = 1
    spec.retry = None
    spec.ignore_hosts = list(ignore_hosts) if ignore_hosts else None
    spec.force_hosts = [requested_host] if requested_host and force \
        else None
    spec.force_nodes = None
    spec.requested_destination = (
        objects.Destination(host=requested_host)
        if requested_host and not force else None)
    spec.requested_resources = network_api.request_groups(
        port_client.ports_of(instance))
    if spec.instance_group is not None:
        try:
            group = objects.InstanceGroup.get_by_uuid(
                context, spec.instance_group.uuid)
            spec.instance_group.members = list(group.members)
        except exception.InstanceGroupNotFound:
            spec.instance_group = None
    return spec


def fill_provider_mapping(spec, selection):
    """Each request group's provider, from the claimed allocation."""
    mappings = (selection.allocation or {}).get('mappings') or {}
    for group in spec.requested_resources:
        group.provider_uuids = list(mappings.get(group.suffix, []))
        if not group.provider_uuids:
            raise exception.PortUpdateFailed(
                port_id=group.requester_id,
                reason='the allocation on %s does not say which provider '
                       'satisfied its resource request' %
                       selection.service_host)
