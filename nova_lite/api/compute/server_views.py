"""The server document of the Compute API, per microversion and role."""

import hashlib

from nova_lite.api.compute import common
from nova_lite.api.compute import microversion as mv
from nova_lite.compute import states

EXTENDED_ATTRS_POLICY = 'os_compute_api:os-extended-server-attributes'
HOST_STATUS_POLICY = 'os_compute_api:servers:show:host_status'

_STATUS_OF_VM_STATE = {
    states.BUILDING: 'BUILD',
    states.ACTIVE: 'ACTIVE',
    states.STOPPED: 'SHUTOFF',
    states.ERROR: 'ERROR',
    states.DELETED: 'DELETED',
    states.SHELVED: 'SHELVED',
    states.SHELVED_OFFLOADED: 'SHELVED_OFFLOADED',
    states.PAUSED: 'PAUSED',
    states.SUSPENDED: 'SUSPENDED',
    states.RESIZED: 'VERIFY_RESIZE',
}
VM_STATES_OF_STATUS = {status: [vm_state] for vm_state, status in
                       _STATUS_OF_VM_STATE.items()}


# A task that rebuilds a server shows as REBUILD whatever its vm_state,
# one that live migrates it as MIGRATING, as clients waiting for the move
# to finish expect.
_STATUS_OF_TASK_STATE = {
    states.REBUILDING: 'REBUILD',
    states.REBUILD_SPAWNING: 'REBUILD',
    states.MIGRATING: 'MIGRATING',
    states.RESIZE_PREP: 'RESIZE',
    states.RESIZE_MIGRATING: 'RESIZE',
    states.RESIZE_MIGRATED: 'RESIZE',
    states.RESIZE_FINISH: 'RESIZE',
}


# An ACTIVE server being rebooted shows it (one rebooted hard from
# SHUTOFF, PAUSED, SUSPENDED or ERROR keeps showing that until it is
# ACTIVE again, as in Nova).
_STATUS_OF_REBOOT = dict(
    [(task_state, 'REBOOT') for task_state in states.SOFT_REBOOT_STATES] +
    [(task_state, 'HARD_REBOOT') for task_state in states.HARD_REBOOT_STATES])


def status_of(instance):
    if instance.vm_state == states.ACTIVE and \
            instance.task_state in _STATUS_OF_REBOOT:
        return _STATUS_OF_REBOOT[instance.task_state]
    if instance.vm_state in (states.ACTIVE, states.STOPPED, states.ERROR):
        status = _STATUS_OF_TASK_STATE.get(instance.task_state)
        if status:
            return status
    if instance.vm_state == states.RESIZED and \
            instance.task_state == states.RESIZE_REVERTING:
        return 'REVERT_RESIZE'
    return _STATUS_OF_VM_STATE.get(instance.vm_state, 'UNKNOWN')


def host_id(instance):
    """An opaque per-project id of the host: equal ids, same host."""
    return hashed_host(instance.project_id, instance.host)


def hashed_host(project_id, host):
    """The ``hostId`` of ``host`` as the project ``project_id`` sees it
    ('' without a host); instance action events show it too."""
    if not host:
        return ''
    return hashlib.sha224(('%s%s' % (project_id, host))
                          .encode('utf-8')).hexdigest()


def brief(request, instance):
    return {'id': instance.uuid, 'name': instance.display_name,
            'links': common.links(request, 'servers', instance.uuid)}


def _bookmark(request, collection, ident):
    return [common.links(request, collection, ident)[1]]


def _flavor(request, flavor):
    if request.is_version(mv.FLAVOR_EMBEDDED):
        return {'vcpus': flavor.vcpus, 'ram': flavor.memory_mb,
                'disk': flavor.root_gb, 'ephemeral': flavor.ephemeral_gb,
                'swap': flavor.swap, 'original_name': flavor.name,
                'extra_specs': dict(flavor.extra_specs)}
    return {'id': flavor.flavorid,
            'links': _bookmark(request, 'flavors', flavor.flavorid)}


def _image(request, instance):
    if not instance.image_ref:
        return ''  # booted from a volume
    return {'id': instance.image_ref,
            'links': _bookmark(request, 'images', instance.image_ref)}


def _fault(request, instance, is_admin):
    fault = instance.fault if instance.obj_attr_is_set('fault') else None
    if fault is None:
        return None
    body = {'code': fault.code, 'message': fault.message,
            'created': common.isotime(fault.created_at)}
    if is_admin and fault.details:
        body['details'] = fault.details
    return body


def _volumes(request, instance):
    volumes = []
    for bdm in instance.block_device_mapping:
        if bdm.is_volume and bdm.uuid:
            volume = {'id': bdm.uuid}
            if request.is_version(mv.EXTENDED_ATTRS):
                volume['delete_on_termination'] = bdm.delete_on_termination
            volumes.append(volume)
    return volumes


def _usage_time(value):
    return value.replace(tzinfo=None).isoformat() if value else None


def _allowed(request, action):
    """Whether the caller may ``action`` (a rule with no target), asked
    once per request: every server of a page asks the same, and a page of
    a thousand spent most of its time asking."""
    answers = request.environ.setdefault('nova_lite.policy_answers', {})
    if action not in answers:
        answers[action] = request.context.can(action, fatal=False)
    return answers[action]


def detail(request, instance, host_status=None, extended=True):
    """The full server document; ``host_status`` is a callable (2.16).
    Without ``extended`` the document ``PUT /servers/{id}`` answers with
    (before 2.75, as in Nova): without the attributes of the extensions
    (zone, key name, config drive, security groups, OS-EXT-STS:*,
    OS-SRV-USG:*, volumes, OS-EXT-SRV-ATTR:*, host_status)."""
    status = status_of(instance)
    body = brief(request, instance)
    body.update({
        'status': status,
        'tenant_id': instance.project_id,
        'user_id': instance.user_id,
        'metadata': dict(instance.metadata),
        'hostId': host_id(instance),
        'image': _image(request, instance),
        'flavor': _flavor(request, instance.flavor),
        'created': common.isotime(instance.created_at),
        'updated': common.isotime(instance.updated_at or
                                  instance.created_at),
        'addresses': {},
        'accessIPv4': '',
        'accessIPv6': '',
        'progress': instance.progress or 0,
        'OS-DCF:diskConfig': 'MANUAL',
    })
    is_admin = _allowed(request, EXTENDED_ATTRS_POLICY)
    if extended:
        body.update(_extensions(request, instance))
        if is_admin:
            body.update(_extended_attributes(request, instance))
    fault = _fault(request, instance, is_admin)
    if fault is not None and status == 'ERROR':
        body['fault'] = fault
    if request.is_version(mv.LOCKED):
        body['locked'] = bool(instance.locked)
    if (extended and request.is_version(mv.HOST_STATUS) and
            host_status is not None and
            _allowed(request, HOST_STATUS_POLICY)):
        body['host_status'] = host_status(instance)
    if request.is_version(mv.DESCRIPTION):
        body['description'] = instance.display_description
    if request.is_version(mv.TAGS_SHOWN):
        body['tags'] = list(instance.tags)
    if request.is_version(mv.TRUSTED_CERTS):
        body['trusted_image_certificates'] = (
            list(instance.trusted_certs) if instance.trusted_certs
            else None)
    return body


def _extensions(request, instance):
    return {
        'key_name': instance.key_name,
        'config_drive': instance.config_drive or '',
        'security_groups': [{'name': 'default'}],
        'OS-EXT-AZ:availability_zone': instance.availability_zone or '',
        'OS-EXT-STS:vm_state': instance.vm_state,
        'OS-EXT-STS:task_state': instance.task_state,
        'OS-EXT-STS:power_state': instance.power_state or 0,
        'OS-SRV-USG:launched_at': _usage_time(instance.launched_at),
        'OS-SRV-USG:terminated_at': _usage_time(instance.terminated_at),
        'os-extended-volumes:volumes_attached': _volumes(request,
                                                         instance),
    }


def _extended_attributes(request, instance):
    has_id = instance.obj_attr_is_set('id')
    attrs = {
        'OS-EXT-SRV-ATTR:host': instance.host,
        'OS-EXT-SRV-ATTR:hypervisor_hostname': instance.node,
        'OS-EXT-SRV-ATTR:instance_name':
            'instance-%08x' % instance.id if has_id else '',
    }
    if request.is_version(mv.EXTENDED_ATTRS):
        attrs.update({
            'OS-EXT-SRV-ATTR:reservation_id': instance.reservation_id,
            'OS-EXT-SRV-ATTR:launch_index': instance.launch_index,
            'OS-EXT-SRV-ATTR:hostname': instance.hostname,
            'OS-EXT-SRV-ATTR:kernel_id': '',
            'OS-EXT-SRV-ATTR:ramdisk_id': '',
            'OS-EXT-SRV-ATTR:root_device_name': None,
            'OS-EXT-SRV-ATTR:user_data': instance.user_data,
        })
    return attrs
