"""Microversion negotiation, shared by the REST services.

A service describes itself with ``MicroversionSpec`` (its service type,
the header names clients may use, min and max); ``negotiate()`` reads the
requested version from a request and ``response_headers()`` says which one
was used. The versions each service honours, and what each changes, are
documented next to the service (e.g. ``nova_lite.api.compute.microversion``).
"""

import functools

import microversion_parse

from nova_lite import exception

LATEST = 'latest'


class MicroversionSpec:

    def __init__(self, service_type, min_version, max_version,
                 legacy_header=None, vary=None):
        self.service_type = service_type
        self.min_version = parse(min_version)
        self.max_version = parse(max_version)
        # e.g. X-OpenStack-Nova-API-Version, read when the standard
        # OpenStack-API-Version header does not name our service type.
        self.legacy_header = legacy_header
        # The Vary value as the service's clients know it (placement's
        # names its header in lower case, and clients match it so).
        self._vary = vary

    def negotiate(self, headers):
        """The Version a request asks for; the minimum when it asks none.

        Raises InvalidAPIVersionString (400) for a malformed value and
        InvalidAPIVersion (406) for one outside [min, max].
        """
        legacy = [self.legacy_header] if self.legacy_header else None
        requested = microversion_parse.get_version(
            headers, self.service_type, legacy_headers=legacy)
        if requested is None or not requested.strip():
            return self.min_version
        requested = requested.strip()
        if requested.lower() == LATEST:
            return self.max_version
        version = parse(requested)
        if not version.matches(self.min_version, self.max_version):
            raise exception.InvalidAPIVersion(
                requested=requested, min_version=str(self.min_version),
                max_version=str(self.max_version))
        return version

    def response_headers(self, version):
        headers = {'Vary': self.vary}
        if version is not None:
            headers['OpenStack-API-Version'] = '%s %s' % (self.service_type,
                                                          version)
            if self.legacy_header:
                headers[self.legacy_header] = str(version)
        return headers

    @property
    def vary(self):
        if self._vary:
            return self._vary
        names = ['OpenStack-API-Version']
        if self.legacy_header:
            names.append(self.legacy_header)
        return ', '.join(names)


@functools.lru_cache(maxsize=512)
def parse(version_string):
    """'2.53' -> Version(2, 53); InvalidAPIVersionString if malformed.

    Cached: handlers compare against the same few version strings on
    every request (Version is an immutable tuple)."""
    try:
        version = microversion_parse.parse_version_string(version_string)
    except TypeError:
        raise exception.InvalidAPIVersionString(version=version_string)
    if version.major < 0 or version.minor < 0:
        raise exception.InvalidAPIVersionString(version=version_string)
    return version
