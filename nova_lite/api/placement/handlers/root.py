"""GET /: the version document clients discover the service with."""

from nova_lite.api import wsgi
from nova_lite.api.placement import microversion as mv


def home(request):
    return wsgi.json_response({'versions': [{
        'id': 'v1.0',
        'max_version': mv.MAX_VERSION,
        'min_version': mv.MIN_VERSION,
        'status': 'CURRENT',
        'links': [{'rel': 'self', 'href': ''}],
    }]})
