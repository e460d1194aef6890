"""ComputeCapabilitiesFilter: the flavor's ``capabilities:`` extra specs
must match what the host reports.

``capabilities:hypervisor_type=s== fake`` reads the host state's
``hypervisor_type``; a longer path (``capabilities:a:b``) walks into it,
JSON text decoded on the way; a name the host state lacks is looked up in
the compute node's stats. A spec without a scope is checked the same way
when the host has such an attribute or stat, and ignored otherwise; specs
of any other scope (``hw:``, ``aggregate_instance_extra_specs:``) belong to
other filters. The requirement is matched as in extra_specs_ops; a host
that reports nothing under a path is refused.
"""

from oslo_serialization import jsonutils

from nova_lite.scheduler import extra_specs_ops
from nova_lite.scheduler import filters

SCOPE = 'capabilities'


def _wanted(spec, host_state):
    """[(path, requirement)] of the flavor's specs this filter checks."""
    wanted = []
    for key, requirement in (spec.flavor.extra_specs or {}).items():
        path = key.split(':')
        if len(path) == 1:
            if not hasattr(host_state, key) and key not in host_state.stats:
                continue
        elif path[0] != SCOPE:
            continue
        else:
            path = path[1:]
        wanted.append((path, requirement))
    return wanted


def capability(host_state, path):
    """What the host reports under ``path``; None if nothing."""
    found = host_state
    for name in path:
        if isinstance(found, str):
            try:
                found = jsonutils.loads(found)
            except ValueError:
                return None
        if isinstance(found, dict):
            found = found.get(name)
        else:
            value = getattr(found, name, None)
            if value is None:
                stats = getattr(found, 'stats', None)
                value = stats.get(name) if isinstance(stats, dict) else None
            found = value
        if found is None:
            return None
    return found


class ComputeCapabilitiesFilter(filters.BaseHostFilter):
    reason = 'host capabilities do not match the flavor'

    def applies(self, spec):
        return bool(spec.flavor.extra_specs)

    def _mismatch(self, host_state, spec):
        for path, requirement in _wanted(spec, host_state):
            found = capability(host_state, path)
            if found is None or not extra_specs_ops.match(str(found),
                                                          requirement):
                return ':'.join(path), requirement, found
        return None

    def host_passes(self, host_state, spec):
        return self._mismatch(host_state, spec) is None

    def refusal(self, host_state, spec):
        path, requirement, found = self._mismatch(host_state, spec)
        return '%s is %s, flavor wants %s' % (
            path, 'not reported' if found is None else found, requirement)
