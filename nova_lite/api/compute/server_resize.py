"""POST /servers/{server_id}/action: resize, migrate (cold), confirmResize
and revertResize.

A resize (owner or admin) and a cold migration (admin; a target ``host``
from 2.56, which the scheduler's filters still check) answer 202 and
leave the server in VERIFY_RESIZE on its destination; confirmResize
(204) keeps it there, revertResize (202) puts it back where it was at
its old flavor.
"""

from nova_lite.api import validation
from nova_lite.api import wsgi
from nova_lite.api.compute import microversion as mv
from nova_lite.api.compute import servers
from nova_lite.api.compute.schemas import server_resize as schema


def _instance(request, server_id, rule):
    instance = servers._compute_api().get(request.context, server_id)
    request.context.can(rule, {'project_id': instance.project_id,
                               'user_id': instance.user_id})
    return instance


def resize(request, server_id, document):
    validation.validate(schema.resize, document)
    instance = _instance(request, server_id,
                         'os_compute_api:servers:resize')
    flavor = servers._flavor(request.context,
                             document['resize']['flavorRef'])
    servers._compute_api().resize(request.context, instance, flavor)
    return wsgi.empty_response(202)


def migrate(request, server_id, document):
    validation.validate(schema.migrate_v256 if request.is_version(
        mv.MIGRATE_HOST) else schema.migrate, document)
    host = (document['migrate'] or {}).get('host')
    instance = _instance(request, server_id,
                         'os_compute_api:os-migrate-server:migrate')
    if host is not None:
        request.context.can('os_compute_api:os-migrate-server:migrate:host',
                            {'project_id': instance.project_id,
                             'user_id': instance.user_id})
    servers._compute_api().migrate(request.context, instance, host=host)
    return wsgi.empty_response(202)


def confirm_resize(request, server_id, document):
    validation.validate(schema.confirm_resize, document)
    instance = _instance(request, server_id,
                         'os_compute_api:servers:confirm_resize')
    servers._compute_api().confirm_resize(request.context, instance)
    return wsgi.empty_response(204)


def revert_resize(request, server_id, document):
    validation.validate(schema.revert_resize, document)
    instance = _instance(request, server_id,
                         'os_compute_api:servers:revert_resize')
    servers._compute_api().revert_resize(request.context, instance)
    return wsgi.empty_response(202)


ACTIONS = {'resize': resize, 'migrate': migrate,
           'confirmResize': confirm_resize, 'revertResize': revert_resize}
