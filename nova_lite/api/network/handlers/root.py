"""The version documents: / (without a token) and /v2.0."""

from nova_lite.api import wsgi

_RESOURCES = ('networks', 'ports', 'agents')


def _v2(request):
    return {'id': 'v2.0', 'status': 'CURRENT',
            'links': [{'rel': 'self',
                       'href': request.host_url.rstrip('/') + '/v2.0/'}]}


def versions(request):
    return wsgi.json_response({'versions': [_v2(request)]})


def v2(request):
    base = request.host_url.rstrip('/') + '/v2.0/'
    return wsgi.json_response({'resources': [
        {'name': name[:-1], 'collection': name,
         'links': [{'rel': 'self', 'href': base + name}]}
        for name in _RESOURCES]})
