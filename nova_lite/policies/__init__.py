"""Default policy rules of the Compute API, declared in code.

One module per resource; ``list_rules()`` feeds them to the enforcer and to
oslopolicy-sample-generator. Operators override any rule in policy.yaml.
"""

import itertools

from nova_lite.policies import aggregates
from nova_lite.policies import availability_zones
from nova_lite.policies import base
from nova_lite.policies import flavors
from nova_lite.policies import hypervisors
from nova_lite.policies import images
from nova_lite.policies import instance_actions
from nova_lite.policies import keypairs
from nova_lite.policies import network
from nova_lite.policies import placement
from nova_lite.policies import quota_sets
from nova_lite.policies import server_groups
from nova_lite.policies import server_metadata
from nova_lite.policies import server_resize
from nova_lite.policies import server_tags
from nova_lite.policies import servers
from nova_lite.policies import services


def list_rules():
    return list(itertools.chain(base.list_rules(), flavors.list_rules(),
                                images.list_rules(), servers.list_rules(),
                                server_resize.list_rules(),
                                server_groups.list_rules(),
                                hypervisors.list_rules(),
                                services.list_rules(),
                                aggregates.list_rules(),
                                keypairs.list_rules(),
                                availability_zones.list_rules(),
                                quota_sets.list_rules(),
                                instance_actions.list_rules(),
                                server_tags.list_rules(),
                                server_metadata.list_rules(),
                                placement.list_rules(),
                                network.list_rules()))
