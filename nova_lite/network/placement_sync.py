"""Bandwidth resource providers of the L2 agents, kept in placement.

When an agent reports ``resource_provider_bandwidths`` ({physnet:
{"egress": kbps, "ingress": kbps}}), each physical network becomes a child
provider of the host's compute node provider (the provider named after the
hypervisor in ``resource_provider_hypervisors``, else after the host),
named ``<host>:Open vSwitch agent:<physnet>``, with a uuid derived from
that name, NET_BW_EGR_KILOBIT_PER_SEC / NET_BW_IGR_KILOBIT_PER_SEC
inventory and the traits a port's resource request asks for. A port
bound to that host must carry the provider's uuid as its binding
profile's ``allocation``.

A sync writes only what differs from what placement has, so reports
after the first cost a few reads. Until the compute node provider exists
(the compute reports to placement on its own schedule) a sync does
nothing and answers False; the next report tries again.
"""

import threading
import uuid

from oslo_log import log as logging

from nova_lite.network import agents
from nova_lite.network import qos
from nova_lite import placement_client

LOG = logging.getLogger(__name__)

# uuid5 namespace of the bandwidth providers' uuids: a constant, so that
# every service derives the same uuid from a host and a physical network.
_NAMESPACE = uuid.UUID('7c3f5a8e-2f0d-4b8e-9a51-6c1d0e9b4f27')
TRAITS_VERSION = '1.6'


def bandwidth_provider_name(host, physical_network):
    return '%s:%s:%s' % (host, agents.OVS_AGENT, physical_network)


def bandwidth_provider_uuid(host, physical_network):
    """The uuid of the bandwidth provider of ``physical_network`` on
    ``host``: what a bound port's ``binding:profile`` ``allocation``
    must be."""
    return str(uuid.uuid5(_NAMESPACE,
                          bandwidth_provider_name(host, physical_network)))


_CLIENT = []
_CLIENT_LOCK = threading.Lock()


def report_client():
    """The port service's placement client: one per process, so a
    service user logs in once, not on every agent report; it caches the
    bandwidth providers it keeps (trusted for ``[compute]
    resource_provider_association_refresh`` seconds, as a compute trusts
    its node's), so a report that changes nothing asks placement
    nothing."""
    with _CLIENT_LOCK:
        if not _CLIENT:
            _CLIENT.append(placement_client.PlacementClient(
                cache_providers=True))
        return _CLIENT[0]


def inventories_for(bandwidths):
    """Placement inventories of one physical network's bandwidths
    ({"egress": kbps, "ingress": kbps}); a direction of 0 has none."""
    inventories = {}
    for direction, resource_class in sorted(qos.RESOURCE_CLASSES.items()):
        total = int((bandwidths or {}).get(direction) or 0)
        if total > 0:
            inventories[resource_class] = {
                'total': total, 'reserved': 0, 'min_unit': 1,
                'max_unit': total, 'step_size': 1, 'allocation_ratio': 1.0}
    return inventories


def traits_for(physical_network):
    return {qos.physnet_trait(physical_network),
            qos.vnic_type_trait('normal')}


def sync_agent(host, configurations, client=None):
    """Make placement hold the bandwidth providers of the agent on
    ``host``. True when it does; False (logged) when something is
    missing or failed, to be retried at the agent's next report. Never
    raises."""
    configurations = configurations or {}
    bandwidths = configurations.get('resource_provider_bandwidths') or {}
    if not bandwidths:
        return True
    hypervisors = configurations.get('resource_provider_hypervisors') or {}
    try:
        client = client or report_client()
    except Exception:
        LOG.exception('Cannot reach placement to sync the bandwidth '
                      'providers of %s', host)
        return False
    synced = True
    for physical_network in sorted(bandwidths):
        nodename = hypervisors.get(physical_network) or host
        try:
            done = _sync_one(client, host, physical_network, nodename,
                             bandwidths[physical_network])
        except (placement_client.PlacementUnavailable,
                placement_client.PlacementConflict) as e:
            LOG.warning('Bandwidth provider of %s on %s not synced with '
                        'placement (retried at the next report): %s',
                        physical_network, host, e)
            done = False
        except Exception:
            LOG.exception('Bandwidth provider of %s on %s not synced with '
                          'placement (retried at the next report)',
                          physical_network, host)
            done = False
        synced = synced and done
    return synced


def _compute_node_provider(client, nodename):
    response = client._request('GET', '/resource_providers',
                               params={'name': nodename})
    client._check(response, 'GET provider named %s' % nodename)
    found = response.json()['resource_providers']
    return found[0] if found else None


def _sync_one(client, host, physical_network, nodename, bandwidths):
    rp_uuid = bandwidth_provider_uuid(host, physical_network)
    name = bandwidth_provider_name(host, physical_network)
    # A provider the client knows names its compute node provider already.
    root_uuid = client.known_parent(rp_uuid)
    if root_uuid is None:
        root = _compute_node_provider(client, nodename)
        if root is None:
            LOG.info('No resource provider named %s in placement yet: the '
                     'bandwidth provider of %s on %s waits for the compute '
                     'to report its node', nodename, physical_network, host)
            return False
        root_uuid = root['uuid']
    provider = client.ensure_resource_provider(
        rp_uuid, name, parent_provider_uuid=root_uuid)
    if provider.get('parent_provider_uuid') != root_uuid:
        LOG.warning('Bandwidth provider %s (%s) is not a child of the '
                    'compute node provider %s (%s); delete it from '
                    'placement so that the next report recreates it',
                    name, rp_uuid, nodename, root_uuid)
        client.forget_provider(rp_uuid)
        return False
    client.set_inventory(rp_uuid, inventories_for(bandwidths))
    _ensure_traits(client, rp_uuid, traits_for(physical_network))
    return True


def _ensure_traits(client, rp_uuid, wanted):
    """Add ``wanted`` to the provider's traits (keeping others), each
    defined in placement first. A caching client that knows the provider
    has them asks nothing."""
    client.define_traits(wanted)
    return bool(client.update_provider_traits(rp_uuid, add=wanted))
