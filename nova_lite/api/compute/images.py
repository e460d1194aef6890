"""/images: the Compute API's read-only proxy onto the image catalog.

There is no image service; images are registered with
``nova-lite-manage image create`` and shown in the shape the Compute API's
image proxy uses, which is what the openstack CLI looks images up with.
"""

from nova_lite import exception
from nova_lite import objects
from nova_lite.api import wsgi
from nova_lite.api.compute import common

POLICY = 'os_compute_api:images:index'


def _links(request, image):
    result = common.links(request, 'images', image.id)
    result.append({'rel': 'alternate',
                   'type': 'application/vnd.openstack.image',
                   'href': '%s/images/%s' % (request.host_url, image.id)})
    return result


def _brief(request, image):
    return {'id': image.id, 'name': image.name,
            'links': _links(request, image)}


def view(request, image):
    body = _brief(request, image)
    body.update({
        'status': 'ACTIVE' if image.status == 'active'
        else image.status.upper(),
        'minDisk': image.min_disk,
        'minRam': image.min_ram,
        'progress': 100 if image.status == 'active' else 0,
        'metadata': dict(image.properties),
        'created': common.isotime(image.created_at),
        'updated': common.isotime(image.updated_at or image.created_at),
        'OS-EXT-IMG-SIZE:size': image.size,
    })
    return body


def _list(request):
    request.context.can(POLICY)
    limit, marker = common.paging(request)
    images = list(objects.ImageList.get_all(
        request.context, name=request.GET.get('name'),
        status=(request.GET.get('status') or '').lower() or None))
    if marker:
        ids = [i.id for i in images]
        if marker not in ids:
            raise exception.MarkerNotFound(marker=marker)
        images = images[ids.index(marker) + 1:]
    return images[:limit]


def index(request):
    return wsgi.json_response({'images': [_brief(request, i)
                                          for i in _list(request)]})


def detail(request):
    return wsgi.json_response({'images': [view(request, i)
                                          for i in _list(request)]})


def show(request, image_id):
    request.context.can(POLICY)
    image = objects.Image.get_by_id(request.context, image_id)
    return wsgi.json_response({'image': view(request, image)})
