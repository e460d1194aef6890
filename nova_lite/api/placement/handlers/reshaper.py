"""POST /reshaper (1.30): inventories and allocations moved at once, e.g.
VGPU inventory moving from a compute node to new child providers with the
allocations that use it."""

from nova_lite.api import wsgi
from nova_lite.api.placement.handlers import allocation as allocation_handler
from nova_lite.api.placement import microversion as mv
from nova_lite.api.placement.schemas import reshaper as schema
from nova_lite.api.placement import util
from nova_lite.placement import allocations
from nova_lite.placement import inventories


@util.since(mv.RESHAPER)
def reshape(request):
    util.authorize(request, 'placement:reshaper:reshape')
    body = util.json_body(request, util.by_version(
        request, ((mv.CONSUMER_TYPES, schema.RESHAPE_TYPE),
                  (mv.MAPPINGS, schema.RESHAPE_MAPPINGS)), schema.RESHAPE))
    wanted_inventories = {
        rp_uuid: (part['resource_provider_generation'], {
            name: inventories.with_defaults(values)
            for name, values in part['inventories'].items()})
        for rp_uuid, part in body['inventories'].items()}
    wanted_allocations = [
        allocation_handler._consumer_request(request, consumer_uuid, part)
        for consumer_uuid, part in sorted(body['allocations'].items())]
    util.write(allocations.reshape, wanted_inventories, wanted_allocations)
    return wsgi.empty_response(204)
