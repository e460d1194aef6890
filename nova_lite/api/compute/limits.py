"""/limits: the caller's project's absolute limits and what it uses.

The Compute API's names (maxTotalInstances, totalCoresUsed, ...); an
administrator may ask about another project with ``?tenant_id=``.
``reserved`` is accepted and ignored (nothing is reserved ahead). There
are no rate limits: ``rate`` is always empty.

Microversions: ``maxImageMeta`` (the metadata_items limit, like
``maxServerMeta``) until 2.38; ``maxPersonality`` and
``maxPersonalitySize`` until 2.56. Network-era limits (floating IPs,
security groups) are never shown.
"""

from nova_lite import quota
from nova_lite.api import wsgi
from nova_lite.api.compute import microversion as mv

POLICY = 'os_compute_api:limits'


def index(request):
    context = request.context
    context.can(POLICY)
    project_id = request.GET.get('tenant_id') or context.project_id
    if project_id != context.project_id:
        context.can(POLICY + ':other_project', {'project_id': project_id})
    limits = dict(quota.config_only_limits(),
                  **quota.get_limits(context, project_id))
    usage = quota.count_usage(context, project_id,
                              quota.SERVER_RESOURCES + ('server_groups',))
    absolute = {
        'maxTotalInstances': limits['instances'],
        'maxTotalCores': limits['cores'],
        'maxTotalRAMSize': limits['ram'],
        'maxServerGroups': limits['server_groups'],
        'maxServerGroupMembers': limits['server_group_members'],
        'maxTotalKeypairs': limits['key_pairs'],
        'maxServerMeta': limits['metadata_items'],
        'totalInstancesUsed': usage['instances'],
        'totalCoresUsed': usage['cores'],
        'totalRAMUsed': usage['ram'],
        'totalServerGroupsUsed': usage['server_groups'],
    }
    if not request.is_version(mv.NO_IMAGE_META_LIMIT):
        absolute['maxImageMeta'] = limits['metadata_items']
    if not request.is_version(mv.NO_PERSONALITY):
        absolute['maxPersonality'] = limits['injected_files']
        absolute['maxPersonalitySize'] = limits[
            'injected_file_content_bytes']
    return wsgi.json_response({'limits': {'absolute': absolute,
                                          'rate': []}})
