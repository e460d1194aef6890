"""AvailabilityZoneFilter: the host is in the zone the request asks for (the
``availability_zone`` metadata of its aggregates, else the default zone)."""

from nova_lite.scheduler import filters


class AvailabilityZoneFilter(filters.BaseHostFilter):
    reason = 'not in the requested availability zone'

    def applies(self, spec):
        return bool(spec.availability_zone)

    def host_passes(self, host_state, spec):
        return host_state.availability_zone == spec.availability_zone

    def refusal(self, host_state, spec):
        return 'in zone %s, not %s' % (host_state.availability_zone,
                                       spec.availability_zone)
