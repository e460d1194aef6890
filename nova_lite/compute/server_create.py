"""Creating servers, on the API side: each server is checked (its image,
flavor, key pair, availability zone, server group hint, ports and quota),
then recorded in the API database as a RequestSpec, a BuildRequest and an
InstanceMapping (joining its server group in the same all-or-nothing
step), and one ``schedule_and_build_instances`` is cast to the conductor.
A failure before the cast went out removes the records again.
"""

import random
import re
import string

from oslo_log import log as logging
import oslo_messaging as messaging
from oslo_utils import timeutils
from oslo_utils import uuidutils

from nova_lite.compute import aggregates
from nova_lite.compute import server_common
from nova_lite.compute import states
from nova_lite import exception
from nova_lite import objects
from nova_lite import outage
from nova_lite import quota

LOG = logging.getLogger(__name__)

# system_metadata key: the server was created with personality files, whose
# content is not kept (seed 003, option 3).
PERSONALITY_USED = 'personality_used'


def _reservation_id():
    return 'r-' + ''.join(random.choice(string.ascii_lowercase +
                                        string.digits) for _ in range(8))


def _hints_as_lists(hints):
    """Scheduler hints as the spec stores them: name -> list of strings."""
    result = {}
    for name, value in (hints or {}).items():
        values = value if isinstance(value, (list, tuple)) else [value]
        result[name] = [str(v) for v in values]
    return result


def _hostname(display_name):
    """A DNS-safe host name derived from the display name."""
    name = re.sub(r'[^a-z0-9.-]+', '-', (display_name or '').lower())
    return name.strip('.-')[:63] or 'server'


def _requested_group(context, scheduler_hints):
    """The server group the ``group`` hint names, or None without one.

    InvalidServerGroupHint (400) unless it names a group of the caller's
    project; a group of another project is answered like a missing one.
    """
    if not scheduler_hints or 'group' not in scheduler_hints:
        return None
    hint = scheduler_hints['group']
    if not isinstance(hint, str):
        raise exception.InvalidServerGroupHint(
            group=hint, reason='the hint takes one server group UUID as a '
                               'string.')
    if not uuidutils.is_uuid_like(hint):
        raise exception.InvalidServerGroupHint(
            group=hint, reason='not a server group UUID.')
    try:
        group = objects.InstanceGroup.get_by_uuid(context, hint)
    except exception.InstanceGroupNotFound:
        group = None
    if group is None or group.project_id != context.project_id:
        raise exception.InvalidServerGroupHint(
            group=hint, reason='project %s has no server group with this '
                               'id.' % context.project_id)
    return group


def _group_for_scheduler(group, new_members):
    """What the scheduler needs of ``group``: its policy, its rules and
    every member, the new ones included; it works out ``hosts``."""
    members = list(group.members) + [uuid for uuid in new_members
                                     if uuid not in group.members]
    return objects.InstanceGroup(uuid=group.uuid, policy=group.policy,
                                 rules=dict(group.rules), members=members,
                                 hosts=[])


def key_pair(context, key_name):
    """The caller's key pair ``key_name``; InvalidKeyName without one.

    The instance copies its public key (key_data): deleting the key pair
    later does not change what the server was given.
    """
    try:
        return objects.KeyPair.get_by_name(context, context.user_id, key_name)
    except exception.KeypairNotFound:
        raise exception.InvalidKeyName(user_id=context.user_id,
                                       key_name=key_name)


def _requested_ports(api, context, networks, max_count):
    """The ports a create names, checked against the port service, and
    their request groups (resource requests) for the scheduler."""
    if networks is None or not any(
            n.port_id or n.network_id not in (None, 'auto', 'none')
            for n in networks):
        return []
    from nova_lite.network import api as network_api
    if max_count > 1 and any(n.port_id for n in networks):
        raise exception.Invalid(
            reason='Unable to launch multiple instances with a single '
                   'configured port ID. Please launch your instance '
                   'one by one with different ports.')
    ports = network_api.requested_ports(
        api.port_client, networks, context.project_id,
        context.is_admin)
    return network_api.request_groups(ports)


def create(api, context, flavor, image_href, name, min_count=1,
           max_count=None, description=None, metadata=None,
           key_name=None, availability_zone=None, user_data=None,
           config_drive=None, requested_networks=None,
           block_device_mapping=None, scheduler_hints=None, tags=None,
           forced_host=None, forced_node=None, trusted_certs=None,
           personality=None):
    """Accept a request to build servers; return (instances, resv_id).

    Writes a RequestSpec, a BuildRequest and an InstanceMapping per
    instance in the API database, then casts one
    ``schedule_and_build_instances`` to the conductor. If anything
    fails before the cast went out, the records are removed again.
    An ``availability_zone`` must be the default zone or the zone of
    a host aggregate (InvalidAvailabilityZone); a ``key_name`` must
    name a key pair of the calling user (InvalidKeyName). Only as
    many servers as the project's quota allows are created, fewer
    than ``max_count`` if need be; OverQuota (nothing created) when
    not even ``min_count`` fit.

    What a later rebuild from cell0 needs is kept with each instance:
    key data, trusted certificates, block device mappings, and whether
    personality files were given (their content is not kept, so such
    a server cannot be rebuilt from cell0).
    """
    max_count = max_count or min_count
    if min_count > max_count:
        raise exception.Invalid(reason='min_count (%d) must not exceed '
                                'max_count (%d)' % (min_count, max_count))
    aggregates.check_requested_zone(context, availability_zone)
    key_data = (key_pair(context, key_name).public_key
                if key_name is not None else None)
    image = image_for_create(context, image_href, block_device_mapping)
    image_meta = objects.ImageMeta.from_image(image) if image else None
    if image is not None:
        check_flavor_fits_image(flavor, image)
    group = _requested_group(context, scheduler_hints)
    networks = objects.NetworkRequestList.from_api(requested_networks)
    port_groups = _requested_ports(api, context, networks, max_count)
    quota.check_metadata_items(metadata)
    # As many as the quota allows, if that is at least min_count.
    max_count = quota.check_instances(context, flavor, min_count,
                                      max_count)
    reservation_id = _reservation_id()
    created_at = timeutils.utcnow()
    instances, specs = [], []
    for index in range(max_count):
        display_name = name if max_count == 1 else '%s-%d' % (name,
                                                              index + 1)
        instance = _new_instance(
            context, flavor, image, display_name, description,
            metadata, key_name, availability_zone, user_data,
            config_drive, tags, reservation_id, index, created_at)
        instance.key_data = key_data
        instance.trusted_certs = (list(trusted_certs)
                                  if trusted_certs else None)
        instance.block_device_mapping = [
            objects.BlockDeviceMapping.from_api(b)
            for b in block_device_mapping or []]
        if personality:
            instance.system_metadata[PERSONALITY_USED] = 'True'
        is_bfv = not image_href and bool(block_device_mapping)
        if is_bfv:
            # The compute's claims and audit need it; it has no spec.
            instance.system_metadata['boot_from_volume'] = 'True'
        spec = objects.RequestSpec(
            instance_uuid=instance.uuid, project_id=context.project_id,
            user_id=context.user_id, num_instances=max_count,
            flavor=flavor, image=image_meta,
            availability_zone=availability_zone,
            scheduler_hints=_hints_as_lists(scheduler_hints),
            is_bfv=is_bfv,
            ignore_hosts=None,
            force_hosts=[forced_host] if forced_host else None,
            force_nodes=[forced_node] if forced_node else None,
            retry=None, requested_networks=networks,
            requested_resources=port_groups)
        instances.append(instance)
        specs.append(spec)
    if group is not None:
        scheduled_group = _group_for_scheduler(
            group, [i.uuid for i in instances])
        for spec in specs:
            spec.instance_group = scheduled_group

    build_requests = _record_in_api_db(context, instances, specs, group)
    try:
        api.conductor_api.schedule_and_build_instances(
            context, build_requests=build_requests,
            request_specs=specs, image=image_meta,
            requested_networks=requested_networks,
            block_device_mapping=block_device_mapping, tags=tags)
    except (messaging.MessagingException,) + outage.BROKER_AWAY as e:
        LOG.error('Cannot send the build of %s to the conductor: %s',
                  [i.uuid for i in instances], e)
        _forget_in_api_db(context, instances, group)
        raise exception.ServiceUnavailable(
            service='nova-lite-conductor',
            reason='the build request could not be sent (%s); nothing '
                   'was created, try again later' % e)
    return instances, reservation_id


def image_for_create(context, image_href, block_device_mapping):
    """The image to boot: imageRef, else an image-sourced boot BDM."""
    if not image_href:
        for bdm in block_device_mapping or []:
            if (bdm.get('source_type') == 'image' and
                    str(bdm.get('boot_index', '0')) == '0'):
                image_href = bdm.get('uuid')
                break
    if not image_href:
        if block_device_mapping:
            return None  # boot from an existing volume
        raise exception.Invalid(reason='imageRef is required to boot '
                                'a server without a block device '
                                'mapping.')
    # Clients may send the image's link instead of its id.
    image_id = str(image_href).rstrip('/').rsplit('/', 1)[-1]
    try:
        return objects.Image.get_by_id(context, image_id)
    except exception.ImageNotFound:
        raise exception.InvalidImageRef(image_href=image_href)


def check_flavor_fits_image(flavor, image):
    if image.min_ram and flavor.memory_mb < image.min_ram:
        raise exception.Invalid(
            reason='Flavor\'s memory is too small for requested image '
                   '(%d MB < %d MB).' % (flavor.memory_mb, image.min_ram))
    if image.min_disk and flavor.root_gb and (flavor.root_gb <
                                              image.min_disk):
        raise exception.Invalid(
            reason='Flavor\'s disk is too small for requested image '
                   '(%d GB < %d GB).' % (flavor.root_gb, image.min_disk))


def _new_instance(context, flavor, image, display_name, description,
                  metadata, key_name, availability_zone, user_data,
                  config_drive, tags, reservation_id, launch_index,
                  created_at):
    # Not created in any database: it travels inside its BuildRequest
    # until the conductor creates it in the chosen cell.
    return objects.Instance(
        context=context, uuid=uuidutils.generate_uuid(),
        user_id=context.user_id, project_id=context.project_id,
        display_name=display_name, display_description=description,
        hostname=_hostname(display_name), host=None, node=None,
        launched_on=None, vm_state=states.BUILDING,
        task_state=states.SCHEDULING, power_state=states.NOSTATE,
        image_ref=image.id if image is not None else '',
        flavor=flavor, memory_mb=flavor.memory_mb, vcpus=flavor.vcpus,
        root_gb=flavor.root_gb, ephemeral_gb=flavor.ephemeral_gb,
        availability_zone=availability_zone, key_name=key_name,
        user_data=user_data, metadata=dict(metadata or {}),
        system_metadata={}, tags=list(tags or []), locked=False,
        config_drive='True' if config_drive else '',
        launch_index=launch_index, reservation_id=reservation_id,
        progress=0, launched_at=None, terminated_at=None,
        created_at=created_at, updated_at=None, deleted_at=None,
        deleted=False, fault=None)


def _record_in_api_db(context, instances, specs, group=None):
    try:
        if group is not None:
            _join_group(context, group, instances)
        build_requests = [objects.BuildRequest(
            context, instance_uuid=instance.uuid,
            project_id=instance.project_id, instance=instance)
            for instance in instances]
        # All the servers' records at once, all or nothing.
        objects.BuildRequest.create_all(context, build_requests, specs, [
            objects.InstanceMapping(
                context, instance_uuid=instance.uuid, cell_mapping=None,
                project_id=instance.project_id,
                user_id=instance.user_id, queued_for_delete=False)
            for instance in instances])
    except Exception:
        with server_common.logged_cleanup('API database records of a failed '
                                          'create'):
            _forget_in_api_db(context, instances, group)
        raise
    return build_requests


def _join_group(context, group, instances):
    try:
        objects.InstanceGroup.add_members(
            context, group.uuid, [i.uuid for i in instances],
            max_members=quota.server_group_member_limit(context,
                                                        group))
    except exception.InstanceGroupNotFound:
        # Deleted since we checked the hint.
        raise exception.InvalidServerGroupHint(
            group=group.uuid, reason='the server group was deleted '
                                     'while the servers were created.')


def _forget_in_api_db(context, instances, group=None):
    if group is not None:
        objects.InstanceGroup.remove_members(
            context, group.uuid, [i.uuid for i in instances])
    for instance in instances:
        objects.RequestSpec(context, instance_uuid=instance.uuid).destroy()
        try:
            objects.BuildRequest(context,
                                 instance_uuid=instance.uuid).destroy()
        except exception.BuildRequestNotFound:
            pass
        objects.InstanceMapping(context,
                                instance_uuid=instance.uuid).destroy()
