"""Version discovery: ``GET /`` lists versions, ``GET /v2.1[/]`` shows one.

Served without authentication: clients read them to negotiate before they
have a token.
"""

from nova_lite.api import wsgi
from nova_lite.api.compute import microversion

# When the maximum (2.64) was defined: the Rocky cycle, mid-2018.
UPDATED = '2018-07-01T00:00:00Z'


def _version(request):
    base = request.host_url.rstrip('/')
    if wsgi.CONF.api.public_endpoint:
        base = wsgi.CONF.api.public_endpoint.rstrip('/')
        if base.endswith('/v2.1'):
            base = base[:-len('/v2.1')]
    return {
        'id': 'v2.1',
        'status': 'CURRENT',
        'version': microversion.MAX_VERSION,
        'min_version': microversion.MIN_VERSION,
        'updated': UPDATED,
        'links': [{'rel': 'self', 'href': base + '/v2.1/'},
                  {'rel': 'describedby', 'type': 'text/html',
                   'href': 'https://docs.openstack.org/'}],
        'media-types': [{
            'base': 'application/json',
            'type': 'application/vnd.openstack.compute+json;version=2.1'}],
    }


def list_versions(request):
    return wsgi.json_response({'versions': [_version(request)]})


def show_version(request):
    return wsgi.json_response({'version': _version(request)})
