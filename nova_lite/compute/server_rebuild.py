"""Rebuilding a server, on the API side. A server with a host is rebuilt
there by its compute (``rebuild_instance``), keeping its flavor and
allocation; the fields the rebuild changes are put back if the cast cannot
be sent. A server buried in cell0 is taken out of it and scheduled and
built again by the conductor, same UUID (seed 003); if that cannot be
handed on, it is buried in cell0 again, intact.
"""

from oslo_log import log as logging
import oslo_messaging as messaging

from nova_lite.compute import server_common
from nova_lite.compute import instance_actions
from nova_lite.compute import server_create
from nova_lite.compute import server_updates
from nova_lite.compute import states
from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite import lifecycle
from nova_lite import objects
from nova_lite import quota

LOG = logging.getLogger(__name__)


def rebuild(api, context, instance, image_href, changes=None,
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
    if 'metadata' in changes:
        # As at create (Nova checks both): at most [quota] metadata_items.
        quota.check_metadata_items(changes['metadata'])
    mapping, instance = api.locate(context, instance.uuid)
    server_updates.check_not_locked(context, instance)
    if mapping.cell_mapping is None:
        raise exception.InstanceInvalidState(
            method='rebuild', instance_uuid=instance.uuid,
            attr='vm_state', state=instance.vm_state)
    image = _image_for_rebuild(context, instance, image_href)
    if image is not None:
        server_create.check_flavor_fits_image(instance.flavor, image)
    if 'key_name' in changes:
        changes['key_data'] = (
            server_create.key_pair(context, changes['key_name']).public_key
            if changes['key_name'] is not None else None)
    if mapping.cell_mapping.is_cell0:
        if not from_cell0:
            raise exception.InstanceInvalidState(
                method='rebuild', instance_uuid=instance.uuid,
                attr='vm_state', state=instance.vm_state)
        return _rebuild_from_cell0(api, context, mapping, instance, image,
                                   changes, personality)
    with nova_context.target_cell(context, mapping.cell_mapping) as cctxt:
        instance._context = cctxt
        return _rebuild_on_host(api, cctxt, instance, image, changes,
                                personality)


def _image_for_rebuild(context, instance, image_href):
    """The image to rebuild from (InvalidImageRef if there is no such
    image); None for a server that boots from an existing volume: the
    volume stays its root disk, as its block device mapping says."""
    image = server_create.image_for_create(context, image_href, None)
    if not instance.image_ref:
        return None
    return image


def _apply_rebuild_changes(instance, image, changes, personality):
    for name, value in changes.items():
        setattr(instance, name, value)
    instance.image_ref = image.id if image is not None else ''
    if personality:
        instance.system_metadata[server_create.PERSONALITY_USED] = 'True'


def _rebuild_on_host(api, context, instance, image, changes,
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
    api.check_compute_for(context, instance, 'rebuild')
    before = instance.obj_clone()
    orig_image_ref = instance.image_ref
    _apply_rebuild_changes(instance, image, changes, personality)
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
        api.compute_rpcapi.rebuild_instance(
            context, instance, image_meta, orig_image_ref)
    except messaging.MessagingException as e:
        _undo_rebuild(instance, before, list(changes) + [
            'image_ref', 'system_metadata', 'task_state'])
        raise exception.ServiceUnavailable(
            service='nova-lite-compute on %s' % instance.host,
            reason='the rebuild could not be sent (%s); the server is '
                   'unchanged' % e)
    return instance


def _undo_rebuild(instance, before, names):
    for name in names:
        setattr(instance, name, getattr(before, name))
    with server_common.logged_cleanup('rebuild of %s' % instance.uuid):
        instance.save()


def _rebuild_from_cell0(api, context, mapping, instance, image,
                        changes, personality):
    """Take the server out of cell0 and have the conductor schedule
    and build it again (seed 003).

    Order matters, so that the server is always listed exactly once
    and a racing delete wins cleanly: a new BuildRequest first, then
    the mapping moved off cell0 (only if no delete is queued), then
    the cell0 record hard-deleted, then the cast. If the cast cannot
    be sent the server is buried in cell0 again, intact.
    """
    if personality or instance.system_metadata.get(
            server_create.PERSONALITY_USED):
        raise exception.PersonalityNotKept(instance_uuid=instance.uuid)
    if not api.conductor_api.can_rebuild_in_cell0():
        raise exception.ConductorTooOld(
            action='rebuild a server from cell0', version='1.1',
            pinned=api.conductor_api.version_cap)
    try:
        spec = objects.RequestSpec.get_by_instance_uuid(context,
                                                        instance.uuid)
    except exception.RequestSpecNotFound:
        raise exception.InstanceNotFound(instance_id=instance.uuid)
    cell0 = mapping.cell_mapping
    fresh = _instance_to_build_again(context, instance, image, changes,
                                     personality)
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
        with server_common.logged_cleanup('build request of %s' %
                                          instance.uuid):
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
        api.conductor_api.rebuild_instance_in_cell0(
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
        lifecycle.bury_in_cell0(context, build_request, spec, error)
        raise error
    return fresh


def _instance_to_build_again(context, instance, image, changes,
                             personality):
    """The cell0 instance as a new build: same UUID, name, key pair,
    tags, networks (in its spec), devices and creation time."""
    fresh = instance.obj_clone()
    fresh._context = context
    for name in ('id', 'fault'):
        if fresh.obj_attr_is_set(name):
            delattr(fresh, name)
    _apply_rebuild_changes(fresh, image, changes, personality)
    fresh.vm_state = states.BUILDING
    fresh.task_state = states.SCHEDULING
    fresh.power_state = states.NOSTATE
    fresh.host = fresh.node = fresh.launched_on = None
    fresh.launched_at = fresh.terminated_at = None
    fresh.deleted = False
    fresh.deleted_at = None
    fresh.updated_at = None
    return fresh
