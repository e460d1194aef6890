"""POST /servers/{server_id}/action: rebuild, os-stop, os-start, reboot,
pause, unpause, suspend, resume, lock, unlock, os-resetState, evacuate,
shelve, shelveOffload, unshelve and os-migrateLive.

The body names exactly one action; each has its schema per microversion
and its policy rule. Rebuild of a server that never got a host (buried in
cell0) is honoured from microversion 2.65; before, it answers 409 as it
always did. A locked server refuses the actions that change it (all but
lock, unlock and os-resetState) to anyone but an administrator (409).
"""

from nova_lite import exception
from nova_lite.api import validation
from nova_lite.api import wsgi
from nova_lite.api.compute import microversion as mv
from nova_lite.api.compute import server_resize
from nova_lite.api.compute import server_views
from nova_lite.api.compute import servers
from nova_lite.api.compute.schemas import server_actions as schema

POLICY = 'os_compute_api:servers:'

# Rebuild arguments -> Instance fields they set.
_REBUILD_FIELDS = {'name': 'display_name',
                   'description': 'display_description',
                   'metadata': 'metadata', 'key_name': 'key_name',
                   'user_data': 'user_data',
                   'trusted_image_certificates': 'trusted_certs'}


def _rebuild_schema(request):
    for version, body_schema in ((mv.TRUSTED_CERTS, schema.rebuild_v263),
                                 (mv.NO_PERSONALITY, schema.rebuild_v257),
                                 (mv.REBUILD_KEY_NAME, schema.rebuild_v254),
                                 (mv.DESCRIPTION, schema.rebuild_v219)):
        if request.is_version(version):
            return body_schema
    return schema.rebuild


def _instance(request, server_id, rule):
    instance = servers._compute_api().get(request.context, server_id)
    request.context.can(POLICY + rule, {'project_id': instance.project_id,
                                        'user_id': instance.user_id})
    return instance


def rebuild(request, server_id, document):
    validation.validate(_rebuild_schema(request), document)
    arguments = document['rebuild']
    instance = _instance(request, server_id, 'rebuild')
    if arguments.get('trusted_image_certificates'):
        request.context.can(POLICY + 'rebuild:trusted_certs',
                            {'project_id': instance.project_id,
                             'user_id': instance.user_id})
    changes = {field: arguments[name]
               for name, field in _REBUILD_FIELDS.items()
               if name in arguments}
    if 'user_data' in changes:
        changes['user_data'] = servers._user_data(changes['user_data'])
    if 'trusted_certs' in changes:
        changes['trusted_certs'] = changes['trusted_certs'] or None
    rebuilt = servers._compute_api().rebuild(
        request.context, instance, arguments['imageRef'], changes,
        personality=arguments.get('personality'),
        from_cell0=request.is_version(mv.REBUILD_FROM_CELL0))
    body = server_views.detail(request, rebuilt, servers._HostStatus())
    if arguments.get('adminPass'):
        body['adminPass'] = arguments['adminPass']
    return wsgi.json_response({'server': body}, 202)


def stop(request, server_id, document):
    validation.validate(schema.stop, document)
    instance = _instance(request, server_id, 'stop')
    servers._compute_api().stop(request.context, instance)
    return wsgi.empty_response(202)


def start(request, server_id, document):
    validation.validate(schema.start, document)
    instance = _instance(request, server_id, 'start')
    servers._compute_api().start(request.context, instance)
    return wsgi.empty_response(202)


def _authorized(request, server_id, rule):
    """The server, once ``rule`` allows the caller to act on it."""
    instance = servers._compute_api().get(request.context, server_id)
    request.context.can(rule, {'project_id': instance.project_id,
                               'user_id': instance.user_id})
    return instance


def reboot(request, server_id, document):
    """SOFT or HARD, in any case; a hard reboot also brings back a server
    that is stopped, paused, suspended or in ERROR (409 otherwise)."""
    validation.validate(schema.reboot, document)
    instance = _instance(request, server_id, 'reboot')
    servers._compute_api().reboot(request.context, instance,
                                  document['reboot']['type'].upper())
    return wsgi.empty_response(202)


def pause(request, server_id, document):
    validation.validate(schema.pause, document)
    instance = _authorized(request, server_id,
                           'os_compute_api:os-pause-server:pause')
    servers._compute_api().pause(request.context, instance)
    return wsgi.empty_response(202)


def unpause(request, server_id, document):
    validation.validate(schema.unpause, document)
    instance = _authorized(request, server_id,
                           'os_compute_api:os-pause-server:unpause')
    servers._compute_api().unpause(request.context, instance)
    return wsgi.empty_response(202)


def suspend(request, server_id, document):
    validation.validate(schema.suspend, document)
    instance = _authorized(request, server_id,
                           'os_compute_api:os-suspend-server:suspend')
    servers._compute_api().suspend(request.context, instance)
    return wsgi.empty_response(202)


def resume(request, server_id, document):
    validation.validate(schema.resume, document)
    instance = _authorized(request, server_id,
                           'os_compute_api:os-suspend-server:resume')
    servers._compute_api().resume(request.context, instance)
    return wsgi.empty_response(202)


def lock(request, server_id, document):
    """The owner's lock, or an administrator's (which the owner may not
    lift); locking a locked server again is no error."""
    validation.validate(schema.lock, document)
    instance = _authorized(request, server_id,
                           'os_compute_api:os-lock-server:lock')
    servers._compute_api().lock(request.context, instance)
    return wsgi.empty_response(202)


def unlock(request, server_id, document):
    """Lifting the other side's lock needs the unlock_override rule too
    (administrators only, by default)."""
    validation.validate(schema.unlock, document)
    instance = _authorized(request, server_id,
                           'os_compute_api:os-lock-server:unlock')
    if servers._compute_api().unlock_needs_override(request.context,
                                                    instance):
        request.context.can(
            'os_compute_api:os-lock-server:unlock:unlock_override',
            {'project_id': instance.project_id,
             'user_id': instance.user_id})
    servers._compute_api().unlock(request.context, instance)
    return wsgi.empty_response(202)


def reset_state(request, server_id, document):
    """Admin only: the server's state set to ``active`` or ``error``, its
    task ended."""
    validation.validate(schema.reset_state, document)
    instance = _authorized(request, server_id,
                           'os_compute_api:os-admin-actions:reset_state')
    servers._compute_api().reset_state(
        request.context, instance, document['os-resetState']['state'])
    return wsgi.empty_response(202)


def _forced(request, arguments, since):
    """``force`` as the request gives it from microversion ``since``
    (before, a named host is never forced); forcing needs a host (400)."""
    force = request.is_version(since) and arguments.get('force', False)
    if force and not arguments.get('host'):
        raise exception.Invalid(
            reason='Can\'t force to a non-provided destination')
    return force


def evacuate(request, server_id, document):
    """Admin only; the server's compute must be down (400 otherwise).
    ``host`` is optional (the scheduler picks one); a named host must pass
    the scheduler's filters unless ``force`` (2.29) is true. Placement
    still checks a forced host's room, so a forced host that cannot take
    the server fails the evacuation rather than overcommit it."""
    if request.is_version(mv.EVACUATE_FORCE):
        body_schema = schema.evacuate_v229
    elif request.is_version(mv.EVACUATE_NO_SHARED_STORAGE):
        body_schema = schema.evacuate_v214
    else:
        body_schema = schema.evacuate
    validation.validate(body_schema, document)
    arguments = document['evacuate']
    instance = servers._compute_api().get(request.context, server_id)
    request.context.can('os_compute_api:os-evacuate',
                        {'project_id': instance.project_id,
                         'user_id': instance.user_id})
    force = _forced(request, arguments, mv.EVACUATE_FORCE)
    servers._compute_api().evacuate(request.context, instance,
                                    host=arguments.get('host'), force=force)
    if request.is_version(mv.EVACUATE_NO_SHARED_STORAGE):
        return wsgi.empty_response(200)
    # Before 2.14 the answer carried the admin password the rebuilt guest
    # was given; nova_lite's guests have none to give.
    return wsgi.json_response({'adminPass': arguments.get('adminPass', '')})


def shelve(request, server_id, document):
    validation.validate(schema.shelve, document)
    instance = servers._compute_api().get(request.context, server_id)
    request.context.can('os_compute_api:os-shelve:shelve',
                        {'project_id': instance.project_id,
                         'user_id': instance.user_id})
    servers._compute_api().shelve(request.context, instance)
    return wsgi.empty_response(202)


def shelve_offload(request, server_id, document):
    validation.validate(schema.shelve_offload, document)
    instance = servers._compute_api().get(request.context, server_id)
    request.context.can('os_compute_api:os-shelve:shelve_offload',
                        {'project_id': instance.project_id,
                         'user_id': instance.user_id})
    servers._compute_api().shelve_offload(request.context, instance)
    return wsgi.empty_response(202)


def unshelve(request, server_id, document):
    validation.validate(schema.unshelve, document)
    instance = servers._compute_api().get(request.context, server_id)
    request.context.can('os_compute_api:os-shelve:unshelve',
                        {'project_id': instance.project_id,
                         'user_id': instance.user_id})
    servers._compute_api().unshelve(request.context, instance)
    return wsgi.empty_response(202)


def migrate_live(request, server_id, document):
    """Admin only; 202. The conductor picks the destination, rescheduling
    when a destination refuses; a named ``host`` is the only candidate
    and must pass the scheduler's filters unless ``force`` (2.30) is true.
    Progress is under /servers/{id}/migrations."""
    if request.is_version(mv.LIVE_MIGRATE_FORCE):
        body_schema = schema.migrate_live_v230
    elif request.is_version(mv.BLOCK_MIGRATION_AUTO):
        body_schema = schema.migrate_live_v225
    else:
        body_schema = schema.migrate_live
    validation.validate(body_schema, document)
    arguments = document['os-migrateLive']
    instance = servers._compute_api().get(request.context, server_id)
    request.context.can('os_compute_api:os-migrate-server:migrate_live',
                        {'project_id': instance.project_id,
                         'user_id': instance.user_id})
    block = arguments['block_migration']
    block = block if block == 'auto' else str(block).lower() == 'true'
    force = _forced(request, arguments, mv.LIVE_MIGRATE_FORCE)
    servers._compute_api().live_migrate(
        request.context, instance, host=arguments.get('host'),
        block_migration=block is True, force=force)
    return wsgi.empty_response(202)


# Every server action, by the name the request body gives it; resize,
# migrate, confirmResize and revertResize are in server_resize.
ACTIONS = {'rebuild': rebuild, 'os-stop': stop, 'os-start': start,
           'reboot': reboot, 'pause': pause, 'unpause': unpause,
           'suspend': suspend, 'resume': resume, 'lock': lock,
           'unlock': unlock, 'os-resetState': reset_state,
           'evacuate': evacuate, 'shelve': shelve,
           'shelveOffload': shelve_offload, 'unshelve': unshelve,
           'os-migrateLive': migrate_live, **server_resize.ACTIONS}


def action(request, server_id):
    document = request.json_body_or_fail()
    if not isinstance(document, dict) or len(document) != 1:
        raise exception.ValidationError(
            attribute='request body',
            reason='A server action is exactly one of %s.' %
                   ', '.join(sorted(ACTIONS)))
    (name, _argument), = document.items()
    if name not in ACTIONS:
        raise exception.ValidationError(
            attribute=name,
            reason='There is no such server action; this deployment '
                   'serves %s.' % ', '.join(sorted(ACTIONS)))
    return ACTIONS[name](request, server_id, document)
