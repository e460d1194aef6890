"""The business layer behind the Compute API: servers and hosts.

No HTTP here: the REST handlers validate and authorize, then call this.
A server lives in one of three places, and every read or delete starts
from its InstanceMapping to find out which:

* no cell yet: a BuildRequest in the API database (being scheduled);
* cell0: it never got a host (ERROR, with a fault);
* a real cell: the Instance row in that cell's database.

A server booted with the scheduler hint ``group`` joins that server group
(API database) in the same all-or-nothing step as its other API database
records, and leaves it when it is deleted.
"""

import random
import re
import string

from oslo_log import log as logging
import oslo_messaging as messaging
from oslo_utils import timeutils
from oslo_utils import uuidutils

from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite import objects
from nova_lite import quota
from nova_lite import servicegroup
from nova_lite.compute import aggregates
from nova_lite.compute import instance_actions
from nova_lite.compute import states

LOG = logging.getLogger(__name__)

COMPUTE_BINARY = 'nova-lite-compute'
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


def _owned(context, instance):
    return context.is_admin or instance.project_id == context.project_id


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


def _key_pair(context, key_name):
    """The caller's key pair ``key_name``; InvalidKeyName without one.

    The instance copies its public key (key_data): deleting the key pair
    later does not change what the server was given.
    """
    try:
        return objects.KeyPair.get_by_name(context, context.user_id, key_name)
    except exception.KeypairNotFound:
        raise exception.InvalidKeyName(user_id=context.user_id,
                                       key_name=key_name)


class API:
    """Servers: create, read, list and delete across the cells."""

    def __init__(self):
        self._ports = None
        self._conductor = None
        self._compute_rpc = None

    # RPC clients are created on first use: rpc.init() must have run.
    @property
    def port_client(self):
        if self._ports is None:
            from nova_lite.network import api as network_api
            self._ports = network_api.PortClient()
        return self._ports

    def _requested_ports(self, context, networks, max_count):
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
            self.port_client, networks, context.project_id,
            context.is_admin)
        return network_api.request_groups(ports)

    @property
    def conductor_api(self):
        if self._conductor is None:
            from nova_lite.conductor import rpcapi as conductor_rpcapi
            self._conductor = conductor_rpcapi.ConductorAPI()
        return self._conductor

    @property
    def compute_rpcapi(self):
        if self._compute_rpc is None:
            from nova_lite.compute import rpcapi as compute_rpcapi
            self._compute_rpc = compute_rpcapi.ComputeAPI()
        return self._compute_rpc

    # -- create ----------------------------------------------------------

    def create(self, context, flavor, image_href, name, min_count=1,
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
        key_data = (_key_pair(context, key_name).public_key
                    if key_name is not None else None)
        image = self._image_for_create(context, image_href,
                                       block_device_mapping)
        image_meta = objects.ImageMeta.from_image(image) if image else None
        if image is not None:
            self._check_flavor_fits_image(flavor, image)
        group = _requested_group(context, scheduler_hints)
        networks = objects.NetworkRequestList.from_api(requested_networks)
        port_groups = self._requested_ports(context, networks, max_count)
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
            instance = self._new_instance(
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

        build_requests = self._record_in_api_db(context, instances, specs,
                                                group)
        try:
            self.conductor_api.schedule_and_build_instances(
                context, build_requests=build_requests,
                request_specs=specs, image=image_meta,
                requested_networks=requested_networks,
                block_device_mapping=block_device_mapping, tags=tags)
        except messaging.MessagingException as e:
            LOG.error('Cannot send the build of %s to the conductor: %s',
                      [i.uuid for i in instances], e)
            self._forget_in_api_db(context, instances, group)
            raise exception.ServiceUnavailable(
                service='nova-lite-conductor',
                reason='the build request could not be sent (%s); nothing '
                       'was created, try again later' % e)
        return instances, reservation_id

    def _image_for_create(self, context, image_href, block_device_mapping):
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

    @staticmethod
    def _check_flavor_fits_image(flavor, image):
        if image.min_ram and flavor.memory_mb < image.min_ram:
            raise exception.Invalid(
                reason='Flavor\'s memory is too small for requested image '
                       '(%d MB < %d MB).' % (flavor.memory_mb, image.min_ram))
        if image.min_disk and flavor.root_gb and (flavor.root_gb <
                                                  image.min_disk):
            raise exception.Invalid(
                reason='Flavor\'s disk is too small for requested image '
                       '(%d GB < %d GB).' % (flavor.root_gb, image.min_disk))

    @staticmethod
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

    def _record_in_api_db(self, context, instances, specs, group=None):
        build_requests = []
        try:
            if group is not None:
                self._join_group(context, group, instances)
            for instance, spec in zip(instances, specs):
                spec.create()
                build_request = objects.BuildRequest(
                    context, instance_uuid=instance.uuid,
                    project_id=instance.project_id, instance=instance)
                build_request.create()
                build_requests.append(build_request)
                objects.InstanceMapping(
                    context, instance_uuid=instance.uuid, cell_mapping=None,
                    project_id=instance.project_id,
                    user_id=instance.user_id,
                    queued_for_delete=False).create()
        except Exception:
            with _logged_cleanup('API database records of a failed create'):
                self._forget_in_api_db(context, instances, group)
            raise
        return build_requests

    @staticmethod
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

    @staticmethod
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

    # -- read ------------------------------------------------------------

    def _locate(self, context, uuid):
        """(mapping, instance) for ``uuid``; InstanceNotFound if none.

        A server moves from its BuildRequest to a cell while we look; so a
        BuildRequest that vanished under an unmapped mapping means "read
        the mapping again", once.
        """
        if not uuidutils.is_uuid_like(uuid):
            raise exception.InstanceNotFound(instance_id=uuid)
        for attempt in (1, 2):
            try:
                mapping = objects.InstanceMapping.get_by_instance_uuid(
                    context, uuid)
            except exception.InstanceMappingNotFound:
                raise exception.InstanceNotFound(instance_id=uuid)
            if mapping.cell_mapping is None:
                try:
                    build_request = objects.BuildRequest.get_by_instance_uuid(
                        context, uuid)
                    return mapping, build_request.instance
                except exception.BuildRequestNotFound:
                    continue
            with nova_context.target_cell(context,
                                          mapping.cell_mapping) as cctxt:
                try:
                    instance = objects.Instance.get_by_uuid(
                        cctxt, uuid, expected_attrs=['fault'])
                except exception.InstanceNotFound:
                    if attempt == 1 and not mapping.queued_for_delete:
                        continue
                    raise
            return mapping, instance
        raise exception.InstanceNotFound(instance_id=uuid)

    def get(self, context, uuid):
        """The server ``uuid`` if the caller may see it; else 404."""
        _mapping, instance = self._locate(context, uuid)
        if not _owned(context, instance):
            raise exception.InstanceNotFound(instance_id=uuid)
        return instance

    def get_all(self, context, search_opts=None, limit=None, marker=None):
        """Servers matching ``search_opts``, newest first, paged.

        search_opts: ``project_id`` (None lists every project), ``name``
        (a regular expression), ``vm_state`` (a list), ``host``.
        Build requests and the instances of every cell (cell0 included)
        are merged; a cell whose database is unreachable is skipped with a
        warning rather than failing the whole list.
        """
        search_opts = dict(search_opts or {})
        project_id = search_opts.get('project_id')
        build_requests = objects.BuildRequestList.get_all(
            context, project_id=project_id)
        by_uuid = {}
        for build_request in build_requests:
            instance = build_request.instance
            # The serialized instance keeps created_at to the second only;
            # the BuildRequest row has the precise time (unless the server
            # is built again from cell0: then it was created long before).
            if build_request.created_at is not None and (
                    instance.created_at is None or abs(
                        (build_request.created_at.replace(tzinfo=None) -
                         instance.created_at.replace(tzinfo=None))
                        .total_seconds()) < 2):
                instance.created_at = build_request.created_at
            by_uuid[build_request.instance_uuid] = instance
        cell_filters = {'project_id': project_id,
                        'host': search_opts.get('host'),
                        'vm_state': search_opts.get('vm_state')}
        for cell in objects.CellMappingList.get_all(context):
            with nova_context.target_cell(context, cell) as cctxt:
                try:
                    found = objects.InstanceList.get_by_filters(
                        cctxt, cell_filters, expected_attrs=['fault'])
                except exception.DatabaseUnavailable as e:
                    LOG.warning('Skipping cell %s in a server list: %s',
                                cell.name or cell.uuid, e)
                    continue
            # An instance already in a cell wins over its BuildRequest,
            # which the conductor deletes just after.
            by_uuid.update((i.uuid, i) for i in found)
        building = {b.instance_uuid for b in build_requests}
        instances = [i for i in by_uuid.values()
                     if self._matches(i, search_opts)]
        instances.sort(key=lambda i: (i.created_at, i.uuid in building,
                                      i.uuid), reverse=True)
        if marker is not None:
            uuids = [i.uuid for i in instances]
            if marker not in uuids:
                raise exception.MarkerNotFound(marker=marker)
            instances = instances[uuids.index(marker) + 1:]
        if limit is not None:
            instances = instances[:limit]
        return instances

    @staticmethod
    def _matches(instance, search_opts):
        """Whether ``instance`` fits ``search_opts``; tag filters (lists)
        as Nova's: ``tags`` has them all, ``tags-any`` has one of them,
        ``not-tags`` lacks one of them, ``not-tags-any`` has none."""
        if search_opts.get('vm_state') and (instance.vm_state not in
                                            search_opts['vm_state']):
            return False
        if search_opts.get('host') and instance.host != search_opts['host']:
            return False
        tags = set(instance.tags)
        for option, wanted in (('tags', all), ('tags-any', any),
                               ('not-tags', lambda has: not all(has)),
                               ('not-tags-any', lambda has: not any(has))):
            asked = search_opts.get(option)
            if asked and not wanted([tag in tags for tag in asked]):
                return False
        name = search_opts.get('name')
        if name:
            try:
                return re.search(name, instance.display_name or '') is not None
            except re.error:
                return name == instance.display_name
        return True

    # -- rebuild, stop, start --------------------------------------------

    def rebuild(self, context, instance, image_href, changes=None,
                personality=None, from_cell0=False):
        """Rebuild a server from ``image_href``; return the instance.

        ``changes``: instance fields the rebuild also sets (display_name,
        display_description, metadata, key_name, user_data,
        trusted_certs). A server with a host is rebuilt there by its
        compute, keeping its flavor and allocation. A server buried in
        cell0 is scheduled and built again, same UUID, when ``from_cell0``
        (the microversion allows it); otherwise that is a 409 as before.
        """
        changes = dict(changes or {})
        mapping, instance = self._locate(context, instance.uuid)
        if mapping.cell_mapping is None:
            raise exception.InstanceInvalidState(
                method='rebuild', instance_uuid=instance.uuid,
                attr='vm_state', state=instance.vm_state)
        image = self._image_for_rebuild(context, instance, image_href)
        if image is not None:
            self._check_flavor_fits_image(instance.flavor, image)
        if 'key_name' in changes:
            changes['key_data'] = (
                _key_pair(context, changes['key_name']).public_key
                if changes['key_name'] is not None else None)
        if mapping.cell_mapping.is_cell0:
            if not from_cell0:
                raise exception.InstanceInvalidState(
                    method='rebuild', instance_uuid=instance.uuid,
                    attr='vm_state', state=instance.vm_state)
            return self._rebuild_from_cell0(context, mapping, instance,
                                            image, changes, personality)
        with nova_context.target_cell(context, mapping.cell_mapping) as cctxt:
            instance._context = cctxt
            return self._rebuild_on_host(cctxt, instance, image, changes,
                                         personality)

    def _image_for_rebuild(self, context, instance, image_href):
        """The image to rebuild from (InvalidImageRef if there is no such
        image); None for a server that boots from an existing volume: the
        volume stays its root disk, as its block device mapping says."""
        image = self._image_for_create(context, image_href, None)
        if not instance.image_ref:
            return None
        return image

    @staticmethod
    def _apply_rebuild_changes(instance, image, changes, personality):
        for name, value in changes.items():
            setattr(instance, name, value)
        instance.image_ref = image.id if image is not None else ''
        if personality:
            instance.system_metadata[PERSONALITY_USED] = 'True'

    def _rebuild_on_host(self, context, instance, image, changes,
                         personality):
        if instance.vm_state not in (states.ACTIVE, states.STOPPED,
                                     states.ERROR):
            raise exception.InstanceInvalidState(
                method='rebuild', instance_uuid=instance.uuid,
                attr='vm_state', state=instance.vm_state)
        if instance.task_state is not None:
            raise exception.InstanceInvalidState(
                method='rebuild', instance_uuid=instance.uuid,
                attr='task_state', state=instance.task_state)
        self._check_compute_for(context, instance, 'rebuild')
        before = instance.obj_clone()
        orig_image_ref = instance.image_ref
        self._apply_rebuild_changes(instance, image, changes, personality)
        instance.task_state = states.REBUILDING
        try:
            instance.save(expected_task_state=[None])
        except exception.UnexpectedTaskStateError as e:
            raise exception.InstanceInvalidState(
                method='rebuild', instance_uuid=instance.uuid,
                attr='task_state', state=e.kwargs.get('actual'))
        instance_actions.record_action(context, instance.uuid,
                                       instance_actions.REBUILD)
        image_meta = (objects.ImageMeta.from_image(image)
                      if image is not None else None)
        try:
            self.compute_rpcapi.rebuild_instance(
                context, instance, image_meta, orig_image_ref)
        except messaging.MessagingException as e:
            self._undo_rebuild(instance, before, list(changes) + [
                'image_ref', 'system_metadata', 'task_state'])
            raise exception.ServiceUnavailable(
                service='nova-lite-compute on %s' % instance.host,
                reason='the rebuild could not be sent (%s); the server is '
                       'unchanged' % e)
        return instance

    @staticmethod
    def _undo_rebuild(instance, before, names):
        for name in names:
            setattr(instance, name, getattr(before, name))
        with _logged_cleanup('rebuild of %s' % instance.uuid):
            instance.save()

    def _check_compute_for(self, context, instance, action):
        """409 unless the server's compute is up and speaks compute RPC
        1.1: the server would otherwise wait in a task state."""
        if not instance.host:
            raise exception.InstanceInvalidState(
                method=action, instance_uuid=instance.uuid,
                attr='host', state='None')
        if not self._compute_is_up(context, instance.host):
            raise exception.ServiceUnavailable(
                service='nova-lite-compute on %s' % instance.host,
                reason='the compute is down; nothing was changed. Try '
                       'again when it is back')
        if not self.compute_rpcapi.can_send_version(context, instance.host,
                                                    '1.1'):
            raise exception.ComputeTooOld(
                host=instance.host, action=action, version='1.1',
                pinned=self.compute_rpcapi.version_cap)

    def _rebuild_from_cell0(self, context, mapping, instance, image,
                            changes, personality):
        """Take the server out of cell0 and have the conductor schedule
        and build it again (seed 003).

        Order matters, so that the server is always listed exactly once
        and a racing delete wins cleanly: a new BuildRequest first, then
        the mapping moved off cell0 (only if no delete is queued), then
        the cell0 record hard-deleted, then the cast. If the cast cannot
        be sent the server is buried in cell0 again, intact.
        """
        if personality or instance.system_metadata.get(PERSONALITY_USED):
            raise exception.PersonalityNotKept(instance_uuid=instance.uuid)
        if not self.conductor_api.can_rebuild_in_cell0():
            raise exception.ConductorTooOld(
                action='rebuild a server from cell0', version='1.1',
                pinned=self.conductor_api.version_cap)
        try:
            spec = objects.RequestSpec.get_by_instance_uuid(context,
                                                            instance.uuid)
        except exception.RequestSpecNotFound:
            raise exception.InstanceNotFound(instance_id=instance.uuid)
        cell0 = mapping.cell_mapping
        fresh = self._instance_to_build_again(context, instance, image,
                                              changes, personality)
        build_request = objects.BuildRequest(
            context, instance_uuid=fresh.uuid, project_id=fresh.project_id,
            instance=fresh)
        try:
            build_request.create()
        except exception.Conflict:
            raise exception.InstanceInvalidState(
                method='rebuild', instance_uuid=instance.uuid,
                attr='task_state', state=states.SCHEDULING)
        if not mapping.unmap_from(cell0):
            # Deleted (or rebuilt) meanwhile: leave the winner alone.
            with _logged_cleanup('build request of %s' % instance.uuid):
                build_request.destroy()
            raise exception.InstanceNotFound(instance_id=instance.uuid)
        # From here the server exists only as the BuildRequest: if a step
        # fails it goes back to cell0, never left in BUILD.
        try:
            with nova_context.target_cell(context, cell0) as cctxt:
                instance._context = cctxt
                try:
                    instance.destroy(hard_delete=True)
                except exception.InstanceNotFound:
                    pass
            spec.image = (objects.ImageMeta.from_image(image)
                          if image is not None else None)
            spec.retry = None
            spec.num_instances = 1
            spec.save()
            LOG.info('Rebuilding %s from cell0: it is scheduled again',
                     instance.uuid)
            self.conductor_api.rebuild_instance_in_cell0(
                context, build_request=build_request, request_spec=spec,
                image=spec.image)
        except Exception as e:
            LOG.error('The rebuild of %s from cell0 failed before the '
                      'conductor had it (%s); burying it again', instance.uuid,
                      e)
            error = e
            if isinstance(e, messaging.MessagingException):
                error = exception.ServiceUnavailable(
                    service='nova-lite-conductor',
                    reason='the rebuild could not be sent (%s); the server '
                           'is back in cell0 as it was, try again later' % e)
            from nova_lite.conductor.tasks import build as build_task
            build_task.bury_in_cell0(context, build_request, spec, error)
            raise error
        return fresh

    @staticmethod
    def _instance_to_build_again(context, instance, image, changes,
                                 personality):
        """The cell0 instance as a new build: same UUID, name, key pair,
        tags, networks (in its spec), devices and creation time."""
        fresh = instance.obj_clone()
        fresh._context = context
        for name in ('id', 'fault'):
            if fresh.obj_attr_is_set(name):
                delattr(fresh, name)
        API._apply_rebuild_changes(fresh, image, changes, personality)
        fresh.vm_state = states.BUILDING
        fresh.task_state = states.SCHEDULING
        fresh.power_state = states.NOSTATE
        fresh.host = fresh.node = fresh.launched_on = None
        fresh.launched_at = fresh.terminated_at = None
        fresh.deleted = False
        fresh.deleted_at = None
        fresh.updated_at = None
        return fresh

    def stop(self, context, instance):
        self._power(context, instance, instance_actions.STOP,
                    [states.ACTIVE, states.ERROR], states.POWERING_OFF,
                    self.compute_rpcapi.stop_instance)

    def start(self, context, instance):
        self._power(context, instance, instance_actions.START,
                    [states.STOPPED], states.POWERING_ON,
                    self.compute_rpcapi.start_instance)

    def _power(self, context, instance, action, vm_states, task_state,
               cast):
        self._cast_to_host(context, instance, action, vm_states, task_state,
                           cast)

    # -- shelve, offload, unshelve -----------------------------------------

    def shelve(self, context, instance):
        """Power the server off and keep a snapshot reference; the compute
        offloads it per [compute] shelved_offload_time."""
        image_id = uuidutils.generate_uuid()
        self._cast_to_host(
            context, instance, instance_actions.SHELVE,
            [states.ACTIVE, states.STOPPED], states.SHELVING,
            lambda cctxt, i: self.compute_rpcapi.shelve_instance(
                cctxt, i, image_id), version='1.3')

    def shelve_offload(self, context, instance):
        self._cast_to_host(
            context, instance, instance_actions.SHELVE_OFFLOAD,
            [states.SHELVED], states.SHELVING_OFFLOADING,
            self.compute_rpcapi.shelve_offload_instance, version='1.3')

    def unshelve(self, context, instance):
        """A shelved server is powered on where it is; an offloaded one is
        scheduled again by the conductor (with its ports' resource
        requests) and spawned on the chosen host."""
        mapping, instance = self._locate(context, instance.uuid)
        if instance.vm_state == states.SHELVED:
            self._cast_to_host(
                context, instance, instance_actions.UNSHELVE,
                [states.SHELVED], states.UNSHELVING,
                lambda cctxt, i: self.compute_rpcapi.unshelve_instance(
                    cctxt, i, i.host), version='1.3')
            return
        self._start_task(
            context, instance, instance_actions.UNSHELVE,
            [states.SHELVED_OFFLOADED], states.UNSHELVING,
            check=lambda cctxt, i: self._check_conductor(
                'unshelve', '1.2', self.conductor_api.can_evacuate),
            send=lambda cctxt, i: self.conductor_api.unshelve_instance(
                context, i),
            service=lambda i: 'nova-lite-conductor')

    def _check_conductor(self, action, version, can):
        if not can():
            raise exception.ConductorTooOld(
                action=action, version=version,
                pinned=self.conductor_api.version_cap)

    def _cast_to_host(self, context, instance, action, vm_states, task_state,
                      cast, version='1.1'):
        """An action the server's compute does: it must be up and speak
        compute RPC ``version``."""
        def check(cctxt, instance):
            self._check_compute_for(cctxt, instance, action)
            if not self.compute_rpcapi.can_send_version(
                    cctxt, instance.host, version):
                raise exception.ComputeTooOld(
                    host=instance.host, action=action, version=version,
                    pinned=self.compute_rpcapi.version_cap)
        self._start_task(
            context, instance, action, vm_states, task_state, check=check,
            send=cast,
            service=lambda i: 'nova-lite-compute on %s' % i.host)

    def _start_task(self, context, instance, action, vm_states, task_state,
                    check, send, service, needs_host=False, method=None):
        """The shape of every server action the API hands on. The server
        must be in one of ``vm_states`` in a real cell (with a host if
        ``needs_host``) and in no task; ``check(cctxt, instance)`` refuses
        what cannot be done before anything changes; then the task state
        is set (a racing task wins: 409), the action recorded and
        ``send(cctxt, instance)`` hands it on. If sending fails the task
        state is put back; a message that could not be sent is a 503
        naming ``service(instance)``."""
        method = method or action
        mapping, instance = self._locate(context, instance.uuid)
        if mapping.cell_mapping is None or mapping.cell_mapping.is_cell0 \
                or (needs_host and not instance.host) \
                or instance.vm_state not in vm_states:
            raise exception.InstanceInvalidState(
                method=method, instance_uuid=instance.uuid,
                attr='vm_state', state=instance.vm_state)
        if instance.task_state is not None:
            raise exception.InstanceInvalidState(
                method=method, instance_uuid=instance.uuid,
                attr='task_state', state=instance.task_state)
        with nova_context.target_cell(context, mapping.cell_mapping) as cctxt:
            instance._context = cctxt
            check(cctxt, instance)
            instance.task_state = task_state
            try:
                instance.save(expected_task_state=[None])
            except exception.UnexpectedTaskStateError as e:
                raise exception.InstanceInvalidState(
                    method=method, instance_uuid=instance.uuid,
                    attr='task_state', state=e.kwargs.get('actual'))
            instance_actions.record_action(cctxt, instance.uuid, action)
            try:
                send(cctxt, instance)
            except Exception as e:
                LOG.error('%s of %s not sent: %s', action, instance.uuid, e)
                with _logged_cleanup('%s of %s' % (action, instance.uuid)):
                    instance.task_state = None
                    instance.save()
                if isinstance(e, messaging.MessagingException):
                    raise exception.ServiceUnavailable(
                        service=service(instance),
                        reason='the %s could not be sent (%s); nothing was '
                               'changed' % (action, e))
                raise

    # -- live migration ---------------------------------------------------

    def live_migrate(self, context, instance, host=None,
                     block_migration=False):
        """Checks, task_state ``migrating``, the cast to the conductor's
        live-migration task (which records the migration, finds a
        destination with its reschedule loop and hands the server to the
        source compute). Refused before anything changes: a server not
        ACTIVE or in a task (409), an unknown or same target host (404,
        400), a source compute that is down (409), computes too old for
        live migration -- or for the port bindings of a server with
        resource-request ports -- (409), a port service without multiple
        bindings for such a server (409)."""
        self._start_task(
            context, instance, instance_actions.LIVE_MIGRATION,
            [states.ACTIVE], states.MIGRATING,
            check=lambda cctxt, i: self._check_live_migration(cctxt, i,
                                                             host),
            send=lambda cctxt, i: self.conductor_api.live_migrate_instance(
                context, i, host=host, block_migration=block_migration),
            service=lambda i: 'nova-lite-conductor', needs_host=True,
            method='os-migrateLive')

    def _check_live_migration(self, context, instance, host):
        if host is not None:
            if host == instance.host:
                raise exception.Invalid(
                    reason='The target host can\'t be the same one.')
            try:
                objects.Service.get_by_host_and_binary(context, host,
                                                       COMPUTE_BINARY)
            except exception.ServiceNotFound:
                raise exception.ComputeHostNotFound(host=host)
        if not self._compute_is_up(context, instance.host):
            raise exception.InstanceInvalidState(
                method='os-migrateLive', instance_uuid=instance.uuid,
                attr='host', state='%s (its compute is down)' %
                instance.host)
        self._check_conductor('live migrate', '1.3',
                              self.conductor_api.can_live_migrate)
        from nova_lite.network import api as network_api
        groups = network_api.request_groups(
            self.port_client.ports_of(instance.uuid))
        need = self.compute_rpcapi.LIVE_MIGRATION_VERSION
        for probe in filter(None, (instance.host, host)):
            if not self.compute_rpcapi.can_send_version(context, probe,
                                                        need):
                if groups:
                    raise exception.ComputeTooOldForPortResources(
                        action='live migrate', instance_uuid=instance.uuid,
                        host=probe, have=self.compute_rpcapi.version_cap,
                        need=need)
                raise exception.ComputeTooOld(
                    host=probe, action='live migrate', version=need,
                    pinned=self.compute_rpcapi.version_cap)
        if groups and not self.port_client.has_extension('binding-extended'):
            raise exception.MultipleBindingsUnsupported(
                instance_uuid=instance.uuid)

    def server_migrations(self, context, instance):
        """The server's live migrations that are not over."""
        mapping, instance = self._locate(context, instance.uuid)
        if mapping.cell_mapping is None:
            return []
        with nova_context.target_cell(context, mapping.cell_mapping) as cctxt:
            return [m for m in objects.MigrationList.get_by_instance(
                cctxt, instance.uuid)
                if m.migration_type == 'live-migration' and
                m.status in ('accepted', 'queued', 'preparing', 'running')]

    def abort_live_migration(self, context, instance, migration_id,
                             allow_queued):
        """A running live migration is aborted on its source compute; one
        still queued (from 2.65) is cancelled where it waits."""
        mapping, instance = self._locate(context, instance.uuid)
        migration = next((m for m in self.server_migrations(context, instance)
                          if str(m.id) == str(migration_id)), None)
        if migration is None:
            from nova_lite.objects import migration as migration_obj
            raise migration_obj.MigrationNotFound(migration_id=migration_id)
        with nova_context.target_cell(context, mapping.cell_mapping) as cctxt:
            migration._context = cctxt
            if migration.status in ('accepted', 'queued'):
                if not allow_queued:
                    raise exception.InstanceInvalidState(
                        method='abort live migration',
                        instance_uuid=instance.uuid, attr='migration status',
                        state=migration.status)
                from nova_lite.objects import migration as migration_obj
                migration.status = 'cancelled'
                try:
                    migration.save(expected_status=['accepted', 'queued'])
                    return
                except migration_obj.MigrationStatusChanged:
                    migration = migration_obj.Migration.get_by_uuid(
                        cctxt, migration.uuid)
            if migration.status not in ('preparing', 'running'):
                raise exception.InstanceInvalidState(
                    method='abort live migration',
                    instance_uuid=instance.uuid, attr='migration status',
                    state=migration.status)
            instance._context = cctxt
            self.compute_rpcapi.live_migration_abort(cctxt, instance,
                                                     migration.id)

    # -- evacuate ----------------------------------------------------------

    def evacuate(self, context, instance, host=None):
        """Rebuild a server whose compute is down on another host (seed
        001): checks, task_state ``rebuilding`` and the cast to the
        conductor, which records the migration, schedules and hands the
        server to the destination. Nothing changes unless every check
        passes."""
        self._start_task(
            context, instance, instance_actions.EVACUATE,
            [states.ACTIVE, states.STOPPED, states.ERROR],
            states.REBUILDING,
            check=lambda cctxt, i: self._check_evacuation(cctxt, i, host),
            send=lambda cctxt, i: self.conductor_api.evacuate_instance(
                context, i, host=host),
            service=lambda i: 'nova-lite-conductor', needs_host=True)

    def _check_evacuation(self, context, instance, host):
        if self._compute_is_up(context, instance.host):
            raise exception.Invalid(
                reason='Compute service of %s is still in use. Evacuate a '
                       'server only when its host is down (stopped, or '
                       'forced down with PUT /os-services/{id} '
                       '{"forced_down": true}).' % instance.host)
        if host is not None:
            if host == instance.host:
                raise exception.Invalid(
                    reason='The target host can\'t be the same one.')
            try:
                objects.Service.get_by_host_and_binary(context, host,
                                                       COMPUTE_BINARY)
            except exception.ServiceNotFound:
                raise exception.ComputeHostNotFound(host=host)
        self._check_conductor('evacuate', '1.2',
                              self.conductor_api.can_evacuate)
        from nova_lite.network import api as network_api
        groups = network_api.request_groups(
            self.port_client.ports_of(instance.uuid))
        probe = host or instance.host
        need = '1.3' if groups else '1.2'
        if not self.compute_rpcapi.can_send_version(context, probe, need):
            if groups:
                raise exception.ComputeTooOldForPortResources(
                    action='evacuate', instance_uuid=instance.uuid,
                    host=host or 'the destination',
                    have=self.compute_rpcapi.version_cap, need=need)
            raise exception.ComputeTooOld(
                host=host or 'the destination', action='evacuate',
                version=need, pinned=self.compute_rpcapi.version_cap)

    # -- delete ----------------------------------------------------------

    def delete(self, context, instance):
        """Delete a server wherever it is; see the module docstring."""
        uuid = instance.uuid
        mapping, instance = self._locate(context, uuid)
        if mapping.cell_mapping is None:
            try:
                objects.BuildRequest(context, instance_uuid=uuid).destroy()
            except exception.BuildRequestNotFound:
                # The conductor mapped it to a cell in the meantime.
                mapping, instance = self._locate(context, uuid)
                if mapping.cell_mapping is not None:
                    instance_actions.record_action(
                        context, uuid, instance_actions.DELETE,
                        cell_mapping=mapping.cell_mapping)
                    self._delete_in_cell(context, mapping, instance)
            # Otherwise the conductor notices the missing BuildRequest and
            # cleans up whatever it has started; a server that never left
            # the API database has no action history.
        else:
            # Before the compute is asked: its event joins this action.
            instance_actions.record_action(
                context, uuid, instance_actions.DELETE,
                cell_mapping=mapping.cell_mapping)
            self._delete_in_cell(context, mapping, instance)
        mapping.queued_for_delete = True
        mapping.save()
        if mapping.cell_mapping is not None:
            # A rebuild from cell0 may have just put up a BuildRequest;
            # without it the conductor will not build the server.
            try:
                objects.BuildRequest(context, instance_uuid=uuid).destroy()
            except exception.BuildRequestNotFound:
                pass
        objects.RequestSpec(context, instance_uuid=uuid).destroy()
        self._leave_group(context, uuid)

    @staticmethod
    def _leave_group(context, instance_uuid):
        group = objects.InstanceGroup.get_by_instance_uuid(context,
                                                           instance_uuid)
        if group is not None:
            objects.InstanceGroup.remove_members(context, group.uuid,
                                                 [instance_uuid])

    def _delete_in_cell(self, context, mapping, instance):
        with nova_context.target_cell(context, mapping.cell_mapping) as cctxt:
            instance._context = cctxt
            if mapping.cell_mapping.is_cell0 or not instance.host:
                self._local_delete(instance)
            elif self._compute_is_up(cctxt, instance.host):
                self._terminate_on_compute(cctxt, instance)
            else:
                LOG.warning('Compute %s of instance %s is down; deleting it '
                            'locally. Its allocation is left to the '
                            'compute\'s audit when it returns.',
                            instance.host, instance.uuid)
                self._local_delete(instance)

    def _local_delete(self, instance):
        # Its compute is down, or it has none (offloaded): no one else
        # will give its ports back.
        has_ports = bool(instance.host) or \
            instance.vm_state == states.SHELVED_OFFLOADED
        try:
            instance.destroy()
        except exception.InstanceNotFound:
            pass  # deleted concurrently: the outcome is the same
        if has_ports:
            from nova_lite.network import api as network_api
            network_api.release_ports(self.port_client, instance)

    @staticmethod
    def _compute_is_up(context, host):
        try:
            service = objects.Service.get_by_host_and_binary(
                context, host, COMPUTE_BINARY)
        except exception.ServiceNotFound:
            return False
        return servicegroup.service_is_up(service)

    def _terminate_on_compute(self, context, instance):
        previous = instance.task_state
        if previous == states.DELETING:
            return  # a delete is already on its way
        instance.task_state = states.DELETING
        try:
            instance.save(expected_task_state=[previous])
        except exception.UnexpectedDeletingTaskStateError:
            return
        except exception.UnexpectedTaskStateError:
            # The compute moved the task on (e.g. spawning finished); the
            # delete still wins, from whatever state it moved to.
            instance.refresh()
            current = instance.task_state
            if current == states.DELETING:
                return
            instance.task_state = states.DELETING
            instance.save(expected_task_state=[current])
        try:
            self.compute_rpcapi.terminate_instance(context, instance)
        except messaging.MessagingException as e:
            instance.task_state = previous
            instance.save()
            raise exception.ServiceUnavailable(
                service='nova-lite-compute on %s' % instance.host,
                reason='the delete could not be sent (%s)' % e)


class HostAPI:
    """Services and compute nodes of every cell (cell0 has none)."""

    @staticmethod
    def _cells(context):
        return [c for c in objects.CellMappingList.get_all(context)
                if not c.is_cell0]

    def _each_cell(self, context):
        for cell in self._cells(context):
            with nova_context.target_cell(context, cell) as cctxt:
                yield cell, cctxt

    def service_get_all(self, context, host=None, binary=None):
        services = []
        for cell, cctxt in self._each_cell(context):
            try:
                services.extend(objects.ServiceList.get_all(
                    cctxt, binary=binary, host=host))
            except exception.DatabaseUnavailable as e:
                LOG.warning('Skipping cell %s in a service list: %s',
                            cell.name or cell.uuid, e)
        return services

    def service_get_by_uuid(self, context, service_uuid):
        if not uuidutils.is_uuid_like(service_uuid):
            raise exception.ServiceNotFound(service_id=service_uuid)
        for _cell, cctxt in self._each_cell(context):
            try:
                return objects.Service.get_by_uuid(cctxt, service_uuid)
            except exception.ServiceNotFound:
                continue
        raise exception.ServiceNotFound(service_id=service_uuid)

    def service_update(self, context, service_uuid, values):
        """Set status fields (disabled, disabled_reason, forced_down)."""
        service = self.service_get_by_uuid(context, service_uuid)
        for name, value in values.items():
            setattr(service, name, value)
        service.save()
        return service

    def service_delete(self, context, service_uuid):
        """Delete a service record and, for a compute, its nodes."""
        service = self.service_get_by_uuid(context, service_uuid)
        if service.binary == COMPUTE_BINARY:
            for node in objects.ComputeNodeList.get_by_host(service._context,
                                                            service.host):
                node.destroy()
        service.destroy()

    def compute_node_get_all(self, context, hostname_pattern=None):
        nodes = []
        for cell, cctxt in self._each_cell(context):
            try:
                nodes.extend(objects.ComputeNodeList.get_all(cctxt))
            except exception.DatabaseUnavailable as e:
                LOG.warning('Skipping cell %s in a hypervisor list: %s',
                            cell.name or cell.uuid, e)
        if hostname_pattern:
            nodes = [n for n in nodes
                     if hostname_pattern in n.hypervisor_hostname]
        return nodes

    def compute_node_get(self, context, node_uuid):
        if not uuidutils.is_uuid_like(node_uuid):
            raise exception.HypervisorNotFound(hypervisor_id=node_uuid)
        for _cell, cctxt in self._each_cell(context):
            try:
                return objects.ComputeNode.get_by_uuid(cctxt, node_uuid)
            except exception.HypervisorNotFound:
                continue
        raise exception.HypervisorNotFound(hypervisor_id=node_uuid)

    @staticmethod
    def compute_service_of(node):
        """The compute service on the node's host, or None."""
        try:
            return objects.Service.get_by_host_and_binary(
                node._context, node.host, COMPUTE_BINARY)
        except exception.ServiceNotFound:
            return None


class _logged_cleanup:
    """Run an undo step, logging (not raising) if it fails itself."""

    def __init__(self, what):
        self.what = what

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc is not None:
            LOG.warning('Could not remove the %s: %s', self.what, exc)
        return True
