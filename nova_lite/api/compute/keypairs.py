"""/os-keypairs: the key pairs of a user, addressed by name.

A key pair belongs to the calling user; from microversion 2.10 an
administrator may name another user (``?user_id=`` on list, show and
delete, ``user_id`` in the create body). Create imports ``public_key``,
or without one generates a key pair and returns its ``private_key`` once
(generation is allowed at every version we serve: the Compute API drops
it only at 2.92).

Microversions: 2.2 shows and takes ``type`` and answers 201 to create and
204 to delete; 2.10 lets administrators act for another user; 2.35 lists
in pages of ``limit`` (at most ``[api] max_limit``) after ``marker``, a
key pair name, with a ``keypairs_links`` next link when a page is full.
"""

from nova_lite.api import validation
from nova_lite.api import wsgi
from nova_lite.api.compute import common
from nova_lite.api.compute import microversion as mv
from nova_lite.api.compute.schemas import keypairs as schema
from nova_lite.compute import keypairs as keypair_api
from nova_lite.objects import keypair as keypair_obj

POLICY = 'os_compute_api:os-keypairs:'


def _brief(request, keypair):
    body = {'name': keypair.name, 'public_key': keypair.public_key,
            'fingerprint': keypair.fingerprint}
    if request.is_version(mv.KEYPAIR_TYPE):
        body['type'] = keypair.type
    return body


def view(request, keypair):
    # Key pairs are never soft-deleted; deleted and deleted_at are there
    # because clients expect them.
    return dict(_brief(request, keypair), user_id=keypair.user_id,
                id=keypair.id,
                created_at=common.isotime(keypair.created_at),
                updated_at=common.isotime(keypair.updated_at),
                deleted=False, deleted_at=None)


def _authorized_user(request, rule, user_id=None):
    """The user whose key pairs the request is about, once policy allows
    the caller to act for them; before 2.10 always the caller."""
    context = request.context
    if user_id is None or not request.is_version(mv.KEYPAIR_USER_ID):
        user_id = context.user_id
    context.can(POLICY + rule, {'user_id': user_id,
                                'project_id': context.project_id})
    return user_id


def index(request):
    user_id = _authorized_user(request, 'index', request.GET.get('user_id'))
    if not request.is_version(mv.KEYPAIR_PAGING):
        # Before 2.35 limit and marker are ignored, as they always were.
        keypairs = keypair_api.get_all(request.context, user_id)
        return wsgi.json_response({'keypairs': [
            {'keypair': _brief(request, k)} for k in keypairs]})
    limit, marker = common.paging(request)
    keypairs = keypair_api.get_all(request.context, user_id, limit=limit,
                                   marker=marker)
    body = {'keypairs': [{'keypair': _brief(request, k)} for k in keypairs]}
    next_links = common.next_link(request, 'os-keypairs', keypairs, limit,
                                  keypairs[-1].name if keypairs else None)
    if next_links:
        body['keypairs_links'] = next_links
    return wsgi.json_response(body)


@validation.schema(schema.create, '2.1', '2.1')
@validation.schema(schema.create_v22, '2.2', '2.9')
@validation.schema(schema.create_v210, '2.10')
def create(request):
    spec = request.json_body_or_fail()['keypair']
    user_id = _authorized_user(request, 'create', spec.get('user_id'))
    keypair, private_key = keypair_api.create(
        request.context, user_id, spec['name'],
        key_type=spec.get('type', keypair_obj.TYPE_SSH),
        public_key=spec.get('public_key'))
    body = dict(_brief(request, keypair), user_id=keypair.user_id)
    if private_key is not None:
        body['private_key'] = private_key
    status = 201 if request.is_version(mv.KEYPAIR_TYPE) else 200
    return wsgi.json_response({'keypair': body}, status)


def show(request, keypair_name):
    user_id = _authorized_user(request, 'show', request.GET.get('user_id'))
    return wsgi.json_response({'keypair': view(
        request, keypair_api.get(request.context, user_id, keypair_name))})


def delete(request, keypair_name):
    user_id = _authorized_user(request, 'delete',
                               request.GET.get('user_id'))
    keypair_api.delete(request.context, user_id, keypair_name)
    return wsgi.empty_response(
        204 if request.is_version(mv.KEYPAIR_TYPE) else 202)
