"""Policy defaults of /servers/{server_id}/os-instance-actions.

Actions are read by the server's project; their events say which host ran
what and, on failure, carry a traceback of the service's code, which is
for administrators: before microversion 2.51 only they see events at all,
from 2.51 owners see events without tracebacks; from 2.62 administrators
also see each event's ``host``.
"""

from oslo_policy import policy

from nova_lite.policies import base

PREFIX = 'os_compute_api:os-instance-actions:'
_ACTIONS = '/servers/{server_id}/os-instance-actions'
_ACTION = _ACTIONS + '/{request_id}'

rules = [
    policy.DocumentedRuleDefault(
        PREFIX + 'list', base.ADMIN_OR_OWNER,
        'List the actions of a server (from 2.21 also of a deleted one).',
        [{'method': 'GET', 'path': _ACTIONS}]),
    policy.DocumentedRuleDefault(
        PREFIX + 'show', base.ADMIN_OR_OWNER,
        'Show an action of a server, with its events from 2.51.',
        [{'method': 'GET', 'path': _ACTION}]),
    policy.DocumentedRuleDefault(
        PREFIX + 'events', base.ADMIN_API,
        'See the events of an action before microversion 2.51, their '
        'tracebacks at every version, and (from 2.62) the host of each.',
        [{'method': 'GET', 'path': _ACTION}]),
]


def list_rules():
    return rules
