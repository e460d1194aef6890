"""What every move of an existing server (evacuation, unshelve) does
before and after it asks the scheduler: a RequestSpec carrying the ports'
resource requests as request groups, and, once the scheduler has claimed
the destination, each group's provider taken from the allocation's
``mappings`` (seed 001: the destination compute binds each port with it).
"""

from nova_lite import exception
from nova_lite.network import api as network_api
from nova_lite import objects


def request_spec_for_move(context, instance, port_client, ignore_hosts=None,
                          force_hosts=None):
    """The server's RequestSpec, made fit to schedule it again now: one
    instance, no retries, the ports' request groups read from the port
    service, the server group's current members."""
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
    spec.force_hosts = list(force_hosts) if force_hosts else None
    spec.force_nodes = None
    spec.requested_resources = network_api.request_groups(
        port_client.ports_of(instance.uuid))
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
