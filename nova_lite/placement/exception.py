"""Errors of the Placement service, each with a stable ``error_code``.

The codes are part of the public Placement API wire format (the ``code``
member of an error body from microversion 1.23): clients tell two 409s
apart by them, so their strings never change.
"""

from nova_lite import exception

DEFAULT = 'placement.undefined_code'
INVENTORY_INUSE = 'placement.inventory.inuse'
CONCURRENT_UPDATE = 'placement.concurrent_update'
DUPLICATE_NAME = 'placement.duplicate_name'
PROVIDER_IN_USE = 'placement.resource_provider.inuse'
PROVIDER_CANNOT_DELETE_PARENT = (
    'placement.resource_provider.cannot_delete_parent')
RESOURCE_PROVIDER_NOT_FOUND = 'placement.resource_provider.not_found'
ILLEGAL_DUPLICATE_QUERYPARAM = 'placement.query.duplicate_key'
QUERYPARAM_BAD_VALUE = 'placement.query.bad_value'
QUERYPARAM_MISSING_VALUE = 'placement.query.missing_value'


class PlacementError(exception.NovaLiteException):
    error_code = DEFAULT


class BadRequest(PlacementError):
    msg_fmt = '%(reason)s'
    code = 400


class NotFound(PlacementError):
    msg_fmt = '%(reason)s'
    code = 404


class Conflict(PlacementError):
    msg_fmt = '%(reason)s'
    code = 409


class QueryBadValue(BadRequest):
    error_code = QUERYPARAM_BAD_VALUE


class QueryMissingValue(BadRequest):
    error_code = QUERYPARAM_MISSING_VALUE


class QueryDuplicateKey(BadRequest):
    error_code = ILLEGAL_DUPLICATE_QUERYPARAM


class ResourceProviderNotFound(NotFound):
    msg_fmt = 'No resource provider with uuid %(uuid)s found'
    error_code = RESOURCE_PROVIDER_NOT_FOUND


class ResourceClassNotFound(NotFound):
    msg_fmt = 'No such resource class %(name)s.'


class TraitNotFound(NotFound):
    msg_fmt = 'No such trait(s): %(names)s.'


class ConcurrentUpdate(Conflict):
    """Someone else changed a provider or consumer since the caller read it
    (its generation moved on)."""
    error_code = CONCURRENT_UPDATE


class DuplicateName(Conflict):
    error_code = DUPLICATE_NAME


class InventoryInUse(Conflict):
    error_code = INVENTORY_INUSE


class ProviderInUse(Conflict):
    error_code = PROVIDER_IN_USE


class ProviderCannotDeleteParent(Conflict):
    error_code = PROVIDER_CANNOT_DELETE_PARENT


class CapacityExceeded(Conflict):
    """An allocation does not fit the provider's capacity or the
    inventory's min_unit/max_unit/step_size."""


class ProviderGenerationRace(Exception):
    """Internal: a provider's generation moved under an allocation write
    that did not name it; the write is retried (never sent to a client
    unless the retries run out)."""


class UnsupportedMediaType(PlacementError):
    msg_fmt = 'The media type %(media_type)s is not supported, use ' \
              'application/json'
    code = 415


class NotAcceptable(PlacementError):
    msg_fmt = '%(reason)s'
    code = 406


class UnacceptableVersion(NotAcceptable):
    """A microversion this placement does not serve (the error body also
    says which ones it does)."""
    msg_fmt = ('Invalid microversion: Unacceptable version header: '
               '%(requested)s (this service answers %(min_version)s to '
               '%(max_version)s).')


class MalformedVersion(BadRequest):
    msg_fmt = ('Invalid microversion: invalid version string: '
               '%(requested)s (expected "placement MAJOR.MINOR" or '
               '"placement latest").')
