"""AggregateInstanceExtraSpecsFilter: the flavor's unscoped extra specs (and
those scoped ``aggregate_instance_extra_specs:``) must match the metadata
of one of the host's aggregates (``ssd=true`` on the flavor lands on hosts
of an aggregate with ``ssd=true``). Other scopes (``hw:``, ``resources:``)
are left to the filters and services they belong to."""

from nova_lite.scheduler import extra_specs_ops
from nova_lite.scheduler import filters

SCOPE = 'aggregate_instance_extra_specs'


def _wanted(spec):
    wanted = {}
    for key, requirement in (spec.flavor.extra_specs or {}).items():
        scope, sep, name = key.partition(':')
        if not sep:
            wanted[key] = requirement
        elif scope == SCOPE and name:
            wanted[name] = requirement
    return wanted


class AggregateInstanceExtraSpecsFilter(filters.BaseHostFilter):
    reason = 'aggregate metadata does not match the flavor'

    def applies(self, spec):
        return bool(_wanted(spec))

    def _mismatch(self, host_state, spec):
        metadata = host_state.aggregate_metadata()
        for key, requirement in sorted(_wanted(spec).items()):
            values = metadata.get(key)
            if not values or not any(extra_specs_ops.match(v, requirement)
                                     for v in values):
                return key, requirement, values
        return None

    def host_passes(self, host_state, spec):
        return self._mismatch(host_state, spec) is None

    def refusal(self, host_state, spec):
        key, requirement, values = self._mismatch(host_state, spec)
        if not values:
            return 'no aggregate sets %s (flavor wants %s)' % (key,
                                                               requirement)
        return '%s is %s, flavor wants %s' % (
            key, ' or '.join(sorted(values)), requirement)
