"""What a compute reports as its host's Open vSwitch agent.

nova_lite has no separate L2 agent: each nova-lite-compute reports, from
its periodic task, the state an Open vSwitch agent would (the physical
networks its host is wired to, from ``[network] bridge_mappings``, and the
bandwidth it guarantees on them, from ``[network] bandwidths``) to the
port service's ``POST /v2.0/agents``. The port service binds ports only
to hosts whose report is recent, and makes the bandwidth resource
providers in placement from it (``nova_lite.network.placement_sync``; the
receiving side's records are ``nova_lite.network.agents``).
"""

from oslo_log import log as logging

from nova_lite import conf as nova_conf
from nova_lite import exception
from nova_lite import servicegroup
from nova_lite.network import api as network_api

CONF = nova_conf.CONF
LOG = logging.getLogger(__name__)

AGENT_TYPE = 'Open vSwitch agent'

# Hosts this process has reported for: the first report of each says the
# agent (re)started.
_REPORTED = set()


def _error(option, value, expected, why=None):
    return exception.ConfigurationError(
        reason='[network] %s: %r is not %s%s' % (
            option, value, expected, ' (%s)' % why if why else ''))


def parse_bridge_mappings(values):
    """['physnet:bridge', ...] -> {physnet: bridge}."""
    mappings = {}
    for item in values or ():
        item = item.strip()
        if not item:
            continue
        physnet, sep, bridge = item.partition(':')
        physnet, bridge = physnet.strip(), bridge.strip()
        if not sep or not physnet or not bridge or ':' in bridge:
            raise _error('bridge_mappings', item, '"physnet:bridge"')
        if physnet in mappings:
            raise _error('bridge_mappings', item, '"physnet:bridge"',
                         'physical network %s is mapped twice' % physnet)
        mappings[physnet] = bridge
    return mappings


def parse_bandwidths(values):
    """['physnet:egress_kbps:ingress_kbps', ...] ->
    {physnet: {'egress': kbps, 'ingress': kbps}}."""
    expected = '"physnet:egress_kbps:ingress_kbps"'
    bandwidths = {}
    for item in values or ():
        item = item.strip()
        if not item:
            continue
        parts = [part.strip() for part in item.split(':')]
        if len(parts) != 3 or not parts[0]:
            raise _error('bandwidths', item, expected)
        physnet, egress, ingress = parts
        try:
            egress, ingress = int(egress or 0), int(ingress or 0)
        except ValueError:
            raise _error('bandwidths', item, expected,
                         'kbps must be whole numbers')
        if egress < 0 or ingress < 0:
            raise _error('bandwidths', item, expected,
                         'kbps cannot be negative')
        if physnet in bandwidths:
            raise _error('bandwidths', item, expected,
                         'physical network %s is listed twice' % physnet)
        bandwidths[physnet] = {'egress': egress, 'ingress': ingress}
    return bandwidths


def validate_config():
    """Raise ConfigurationError if [network] bridge_mappings or
    bandwidths is malformed (a compute checks this when it starts)."""
    parse_bridge_mappings(CONF.network.bridge_mappings)
    parse_bandwidths(CONF.network.bandwidths)


def agent_state(host, nodename):
    """The body of the report of ``host``'s agent; its bandwidth providers
    go under the compute node provider named ``nodename``."""
    bridge_mappings = parse_bridge_mappings(CONF.network.bridge_mappings)
    bandwidths = parse_bandwidths(CONF.network.bandwidths)
    return {'agent': {
        'host': host, 'agent_type': AGENT_TYPE,
        'binary': servicegroup.COMPUTE_BINARY,
        'configurations': {
            'bridge_mappings': bridge_mappings,
            'resource_provider_bandwidths': bandwidths,
            'resource_provider_hypervisors': {
                physnet: nodename for physnet in bandwidths},
        },
        'start_flag': host not in _REPORTED,
    }}


def report_state(host, nodename, ports=None):
    """Report ``host``'s agent to the port service through ``ports`` (a
    ``network.api.PortClient``; a new one if not given). True when it
    took the report; False (logged) when the configuration is malformed
    or the service is unreachable or refused it. Never raises."""
    try:
        body = agent_state(host, nodename)
        ports = ports or network_api.PortClient()
    except exception.ConfigurationError as e:
        LOG.error('Not reporting the network agent of %s: %s', host, e)
        return False
    try:
        response = ports.report_agent(body)
    except exception.NetworkUnavailable as e:
        LOG.warning('Cannot report the network agent of %s: %s', host, e)
        return False
    if response.status_code not in (200, 201):
        LOG.warning('The port service refused the agent report of %s: '
                    '%s %s', host, response.status_code,
                    response.text[:300])
        return False
    _REPORTED.add(host)
    return True
