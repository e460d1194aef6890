"""/servers/{server_id}/os-instance-actions: what was done to a server.

An action is one request (create, delete, ...), named by its request id;
its events are the steps services ran for it. They are kept in the
server's cell; a server that is still only a BuildRequest has none yet.

Microversions: 2.21 reads the actions of a deleted server too; 2.51 shows
owners the events (without tracebacks), which before were for admins
only; 2.58 pages the list (``limit``, ``marker``, ``changes-since``) and
shows ``updated_at``; 2.62 shows each event's ``hostId`` and, to admins,
its ``host``.
"""

import copy

from oslo_utils import timeutils

from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite import objects
from nova_lite.api import wsgi
from nova_lite.api.compute import common
from nova_lite.api.compute import microversion as mv
from nova_lite.api.compute import server_views
from nova_lite.compute import api as compute_api

POLICY = 'os_compute_api:os-instance-actions:'
_API = compute_api.API()

_ACTION_KEYS = ('action', 'instance_uuid', 'request_id', 'user_id',
                'project_id', 'start_time', 'message')
_EVENT_KEYS = ('event', 'start_time', 'finish_time', 'result')


def _time(value):
    # The Compute API writes action times with microseconds and no zone.
    if value is None:
        return None
    return value.replace(tzinfo=None).strftime('%Y-%m-%dT%H:%M:%S.%f')


def _server(request, server_id, rule):
    """(instance, cell context) of a server the caller may read the
    actions of; the cell context is None while the server is only a
    BuildRequest."""
    context = request.context
    if request.is_version(mv.DELETED_SERVER_ACTIONS):
        context = copy.copy(context)
        context.read_deleted = 'yes'
    instance = _API.get(context, server_id)
    request.context.can(POLICY + rule, {'project_id': instance.project_id,
                                        'user_id': instance.user_id})
    mapping = objects.InstanceMapping.get_by_instance_uuid(context,
                                                           instance.uuid)
    if mapping.cell_mapping is None:
        return instance, None
    with nova_context.target_cell(request.context,
                                  mapping.cell_mapping) as cctxt:
        return instance, cctxt


def _action_view(request, action):
    body = {key: getattr(action, key) for key in _ACTION_KEYS}
    body['start_time'] = _time(action.start_time)
    if request.is_version(mv.INSTANCE_ACTIONS_PAGING):
        body['updated_at'] = _time(action.updated_at)
    return body


def _event_view(request, event, project_id, show_traceback, show_host):
    body = {key: getattr(event, key) for key in _EVENT_KEYS}
    body['start_time'] = _time(event.start_time)
    body['finish_time'] = _time(event.finish_time)
    if show_traceback:
        body['traceback'] = event.traceback
    if request.is_version(mv.ACTION_EVENT_HOST):
        if show_host:
            body['host'] = event.host
        body['hostId'] = server_views.hashed_host(project_id, event.host)
    return body


def _changes_since(request):
    value = request.GET.get('changes-since')
    if value is None:
        return None
    try:
        return timeutils.parse_isotime(value)
    except ValueError:
        raise exception.ValidationError(
            attribute='changes-since',
            reason='%r is not an ISO 8601 date and time.' % value)


def index(request, server_id):
    instance, cctxt = _server(request, server_id, 'list')
    paged = request.is_version(mv.INSTANCE_ACTIONS_PAGING)
    limit = marker = changes_since = None
    if paged:
        limit, marker = common.paging(request)
        changes_since = _changes_since(request)
    if cctxt is None:
        if marker is not None:
            raise exception.MarkerNotFound(marker=marker)
        actions = []
    else:
        actions = objects.InstanceActionList.get_by_instance_uuid(
            cctxt, instance.uuid, limit=limit, marker=marker,
            changes_since=changes_since)
    body = {'instanceActions': [_action_view(request, a) for a in actions]}
    if paged:
        links = common.next_link(
            request, 'servers/%s/os-instance-actions' % instance.uuid,
            actions, limit, actions[-1].request_id if actions else None)
        if links:
            body['links'] = links
    return wsgi.json_response(body)


def show(request, server_id, request_id):
    context = request.context
    instance, cctxt = _server(request, server_id, 'show')
    if cctxt is None:
        raise exception.InstanceActionNotFound(request_id=request_id,
                                               instance_uuid=instance.uuid)
    action = objects.InstanceAction.get_by_request_id(cctxt, instance.uuid,
                                                      request_id)
    body = _action_view(request, action)
    target = {'project_id': instance.project_id,
              'user_id': instance.user_id}
    is_admin = context.can(POLICY + 'events', target, fatal=False)
    if is_admin or request.is_version(mv.ACTION_EVENTS_FOR_OWNERS):
        # Events recorded by a service's own context may have no project;
        # their hostId is then hashed with the server's.
        project_id = action.project_id or instance.project_id
        body['events'] = [
            _event_view(request, event, project_id, show_traceback=is_admin,
                        show_host=is_admin)
            for event in objects.InstanceActionEventList.get_by_action(
                cctxt, action.id)]
    return wsgi.json_response({'instanceAction': body})
