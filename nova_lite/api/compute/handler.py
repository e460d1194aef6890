"""The Compute API v2.1 on one page: path -> {method -> handler}.

Path parameters match any single segment; handlers validate ids
themselves and answer a specific 404.
"""

from nova_lite.api.compute import aggregates
from nova_lite.api.compute import availability_zones
from nova_lite.api.compute import flavors
from nova_lite.api.compute import hypervisors
from nova_lite.api.compute import images
from nova_lite.api.compute import instance_actions
from nova_lite.api.compute import keypairs
from nova_lite.api.compute import limits
from nova_lite.api.compute import migrations
from nova_lite.api.compute import quota_class_sets
from nova_lite.api.compute import quota_sets
from nova_lite.api.compute import server_actions
from nova_lite.api.compute import server_groups
from nova_lite.api.compute import server_metadata
from nova_lite.api.compute import server_tags
from nova_lite.api.compute import servers
from nova_lite.api.compute import services
from nova_lite.api.compute import versions

# Served without a token (clients discover versions before they log in).
PUBLIC_PATHS = ('/', '/v2.1')

ROUTE_DECLARATIONS = {
    '/': {'GET': versions.list_versions},
    '/v2.1': {'GET': versions.show_version},
    '/v2.1/flavors': {'GET': flavors.index, 'POST': flavors.create},
    '/v2.1/flavors/detail': {'GET': flavors.detail},
    '/v2.1/flavors/{flavor_id}': {'GET': flavors.show,
                                  'PUT': flavors.update,
                                  'DELETE': flavors.delete},
    '/v2.1/flavors/{flavor_id}/os-extra_specs': {
        'GET': flavors.extra_specs},
    '/v2.1/images': {'GET': images.index},
    '/v2.1/images/detail': {'GET': images.detail},
    '/v2.1/images/{image_id}': {'GET': images.show},
    '/v2.1/servers': {'GET': servers.index, 'POST': servers.create},
    '/v2.1/servers/detail': {'GET': servers.detail},
    '/v2.1/servers/{server_id}': {'GET': servers.show,
                                  'PUT': servers.update,
                                  'DELETE': servers.delete},
    '/v2.1/servers/{server_id}/action': {'POST': server_actions.action},
    '/v2.1/servers/{server_id}/migrations': {'GET': migrations.index},
    '/v2.1/servers/{server_id}/migrations/{migration_id}': {
        'GET': migrations.show, 'DELETE': migrations.delete},
    '/v2.1/os-migrations': {'GET': migrations.os_migrations},
    '/v2.1/servers/{server_id}/os-instance-actions': {
        'GET': instance_actions.index},
    '/v2.1/servers/{server_id}/os-instance-actions/{request_id}': {
        'GET': instance_actions.show},
    '/v2.1/servers/{server_id}/metadata': {
        'GET': server_metadata.index, 'POST': server_metadata.create,
        'PUT': server_metadata.update_all},
    '/v2.1/servers/{server_id}/metadata/{key}': {
        'GET': server_metadata.show, 'PUT': server_metadata.update,
        'DELETE': server_metadata.delete},
    '/v2.1/servers/{server_id}/tags': {'GET': server_tags.index,
                                       'PUT': server_tags.update_all,
                                       'DELETE': server_tags.delete_all},
    '/v2.1/servers/{server_id}/tags/{tag}': {'GET': server_tags.show,
                                             'PUT': server_tags.update,
                                             'DELETE': server_tags.delete},
    '/v2.1/os-server-groups': {'GET': server_groups.index,
                               'POST': server_groups.create},
    '/v2.1/os-server-groups/{group_id}': {'GET': server_groups.show,
                                          'DELETE': server_groups.delete},
    '/v2.1/os-aggregates': {'GET': aggregates.index,
                            'POST': aggregates.create},
    '/v2.1/os-aggregates/{aggregate_id}': {'GET': aggregates.show,
                                           'PUT': aggregates.update,
                                           'DELETE': aggregates.delete},
    '/v2.1/os-aggregates/{aggregate_id}/action': {
        'POST': aggregates.action},
    '/v2.1/os-keypairs': {'GET': keypairs.index, 'POST': keypairs.create},
    '/v2.1/os-keypairs/{keypair_name}': {'GET': keypairs.show,
                                         'DELETE': keypairs.delete},
    '/v2.1/os-availability-zone': {'GET': availability_zones.index},
    '/v2.1/os-availability-zone/detail': {'GET': availability_zones.detail},
    '/v2.1/os-hypervisors': {'GET': hypervisors.index},
    '/v2.1/os-hypervisors/detail': {'GET': hypervisors.detail},
    '/v2.1/os-hypervisors/statistics': {'GET': hypervisors.statistics},
    '/v2.1/os-hypervisors/{hypervisor_id}': {'GET': hypervisors.show},
    '/v2.1/os-quota-sets/{project_id}': {'GET': quota_sets.show,
                                         'PUT': quota_sets.update,
                                         'DELETE': quota_sets.delete},
    '/v2.1/os-quota-sets/{project_id}/detail': {'GET': quota_sets.detail},
    '/v2.1/os-quota-sets/{project_id}/defaults': {
        'GET': quota_sets.defaults},
    '/v2.1/os-quota-class-sets/{class_name}': {
        'GET': quota_class_sets.show, 'PUT': quota_class_sets.update},
    '/v2.1/limits': {'GET': limits.index},
    '/v2.1/os-services': {'GET': services.index},
    '/v2.1/os-services/{service_id}': {'PUT': services.update,
                                       'DELETE': services.delete},
}
