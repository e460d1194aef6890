"""/os-hypervisors (admin): compute nodes with their capacity and usage.

Identified by the compute node's UUID (microversion 2.53); before 2.53
clients saw integer ids, which cannot be unique across cells, so older
microversions also get the UUID.
"""

from nova_lite import exception
from nova_lite import servicegroup
from nova_lite.api import wsgi
from nova_lite.api.compute import common
from nova_lite.compute import api as compute_api

POLICY = 'os_compute_api:os-hypervisors:'
_HOSTS = compute_api.HostAPI()

_USAGE_FIELDS = ('vcpus', 'memory_mb', 'local_gb', 'vcpus_used',
                 'memory_mb_used', 'local_gb_used', 'free_ram_mb',
                 'free_disk_gb', 'current_workload', 'running_vms',
                 'disk_available_least')


def _brief(node, service):
    up = service is not None and servicegroup.service_is_up(service)
    return {'id': node.uuid,
            'hypervisor_hostname': node.hypervisor_hostname,
            'state': 'up' if up else 'down',
            'status': ('disabled' if service is None or service.disabled
                       else 'enabled')}


def _detail(node, service):
    body = _brief(node, service)
    body.update({name: getattr(node, name) for name in _USAGE_FIELDS})
    body.update({
        'hypervisor_type': node.hypervisor_type,
        'hypervisor_version': node.hypervisor_version,
        'host_ip': node.host_ip,
        'cpu_info': node.cpu_info or '{}',
        'service': {
            'host': node.host,
            'id': service.uuid if service is not None else None,
            'disabled_reason': (service.disabled_reason
                                if service is not None else None),
        },
    })
    return body


def _nodes(request):
    limit, marker = common.paging(request)
    nodes = _HOSTS.compute_node_get_all(
        request.context,
        hostname_pattern=request.GET.get('hypervisor_hostname_pattern'))
    if marker is not None:
        ids = [n.uuid for n in nodes]
        if marker not in ids:
            raise exception.MarkerNotFound(marker=marker)
        nodes = nodes[ids.index(marker) + 1:]
    return limit, nodes[:limit]


def _respond(request, view, limit, nodes):
    services = {}
    documents = []
    for node in nodes:
        if node.host not in services:
            services[node.host] = _HOSTS.compute_service_of(node)
        documents.append(view(node, services[node.host]))
    body = {'hypervisors': documents}
    next_links = common.next_link(request, 'os-hypervisors', nodes, limit,
                                  nodes[-1].uuid if nodes else None)
    if next_links:
        body['hypervisors_links'] = next_links
    return wsgi.json_response(body)


def index(request):
    request.context.can(POLICY + 'list')
    limit, nodes = _nodes(request)
    return _respond(request, _brief, limit, nodes)


def detail(request):
    request.context.can(POLICY + 'list-detail')
    limit, nodes = _nodes(request)
    return _respond(request, _detail, limit, nodes)


def show(request, hypervisor_id):
    request.context.can(POLICY + 'show')
    node = _HOSTS.compute_node_get(request.context, hypervisor_id)
    return wsgi.json_response(
        {'hypervisor': _detail(node, _HOSTS.compute_service_of(node))})


def statistics(request):
    request.context.can(POLICY + 'statistics')
    nodes = _HOSTS.compute_node_get_all(request.context)
    totals = {name: sum(getattr(n, name) or 0 for n in nodes)
              for name in _USAGE_FIELDS}
    totals['count'] = len(nodes)
    return wsgi.json_response({'hypervisor_statistics': totals})
