"""Errors nova_lite raises, each with an HTTP code and a message template.

An exception that crosses RPC arrives at the caller as the same class
(oslo.messaging re-raises exceptions from allowed modules), so the API can
turn a conductor's or scheduler's refusal into the right status code.
"""


class NovaLiteException(Exception):
    msg_fmt = 'An unknown error occurred.'
    code = 500

    def __init__(self, message=None, **kwargs):
        self.kwargs = kwargs
        if 'code' in kwargs:
            self.code = kwargs['code']
        if not message:
            try:
                message = self.msg_fmt % kwargs
            except (KeyError, TypeError):
                message = self.msg_fmt
        self.message = message
        super().__init__(message)

    def format_message(self):
        return self.message


class Invalid(NovaLiteException):
    msg_fmt = 'Bad request: %(reason)s'
    code = 400


class ValidationError(Invalid):
    msg_fmt = 'Invalid input for field/attribute %(attribute)s. %(reason)s'


class NotFound(NovaLiteException):
    msg_fmt = 'Resource could not be found.'
    code = 404


class Conflict(NovaLiteException):
    msg_fmt = 'Conflict: %(reason)s'
    code = 409


class Forbidden(NovaLiteException):
    msg_fmt = 'Policy does not allow this operation.'
    code = 403


class PolicyNotAuthorized(Forbidden):
    msg_fmt = 'Policy does not allow %(action)s to be performed.'


class ConfigurationError(NovaLiteException):
    msg_fmt = 'Configuration error: %(reason)s'


class DatabaseUnavailable(NovaLiteException):
    msg_fmt = 'Cannot reach the database at %(url)s: %(reason)s'
    code = 503


class DatabaseConnectionLost(DatabaseUnavailable):
    """A connection that was working died in the middle of a transaction
    (a server restart, a pooled connection past the server's idle
    timeout); the transaction is gone, and a new one may well work."""


class InvalidDatabaseURL(NovaLiteException):
    msg_fmt = 'Invalid database connection string %(url)s: %(reason)s'


class ServiceUnavailable(NovaLiteException):
    msg_fmt = '%(service)s did not answer: %(reason)s'
    code = 503


class CellUnavailable(ServiceUnavailable):
    msg_fmt = ('Cannot find %(what)s: it is in no cell that answered, and '
               '%(cells)s did not answer; try again when it is back.')


class FlavorNotFound(NotFound):
    msg_fmt = 'Flavor %(flavor_id)s could not be found.'


class FlavorExists(Conflict):
    msg_fmt = 'Flavor with %(field)s %(value)s already exists.'


class ImageNotFound(NotFound):
    msg_fmt = 'Image %(image_id)s could not be found.'


class ImageExists(Conflict):
    msg_fmt = 'Image %(name)s already exists.'


class InstanceNotFound(NotFound):
    msg_fmt = 'Instance %(instance_id)s could not be found.'


class InstanceMappingNotFound(NotFound):
    msg_fmt = 'Instance %(uuid)s has no mapping to a cell.'


class BuildRequestNotFound(NotFound):
    msg_fmt = 'BuildRequest not found for instance %(uuid)s'


class BuildTakenOver(NovaLiteException):
    msg_fmt = ('The build of %(uuid)s was taken over by %(owner)s: this '
               'conductor leaves it alone')
    code = 409


class RequestSpecNotFound(NotFound):
    msg_fmt = 'RequestSpec not found for instance %(instance_uuid)s'


class CellMappingNotFound(NotFound):
    msg_fmt = 'Cell %(uuid)s has no mapping.'


class HostMappingNotFound(NotFound):
    msg_fmt = 'Host %(name)s is not mapped to any cell.'


class ComputeHostNotFound(NotFound):
    msg_fmt = 'Compute host %(host)s could not be found.'


class ServiceNotFound(NotFound):
    msg_fmt = 'Service %(service_id)s could not be found.'


class HypervisorNotFound(NotFound):
    msg_fmt = 'Hypervisor %(hypervisor_id)s could not be found.'


class InstanceActionNotFound(NotFound):
    msg_fmt = ('Action for request_id %(request_id)s on instance '
               '%(instance_uuid)s not found.')


class InstanceActionEventNotFound(NotFound):
    msg_fmt = ('Event %(event)s not found for the action of request '
               '%(request_id)s on instance %(instance_uuid)s.')


class InstanceTagNotFound(NotFound):
    msg_fmt = 'Server %(instance_uuid)s has no tag \'%(tag)s\'.'


class TooManyInstanceTags(Invalid):
    msg_fmt = ('Server %(instance_uuid)s would have %(count)d tags; a server '
               'has at most %(limit)d.')


class InstanceTagsWhileScheduling(Conflict):
    msg_fmt = ('Cannot change the tags of server %(instance_uuid)s while it '
               'is being scheduled; try again once it has left task state '
               '"scheduling".')


class InstanceWhileScheduling(Conflict):
    msg_fmt = ('Cannot %(action)s server %(instance_uuid)s while it is being '
               'scheduled; try again once it has left task state '
               '"scheduling".')


class InstanceIsLocked(Conflict):
    msg_fmt = 'Instance %(instance_uuid)s is locked'


class InstanceMetadataNotFound(NotFound):
    msg_fmt = 'Server %(instance_uuid)s has no metadata item \'%(key)s\'.'


class InstanceGroupNotFound(NotFound):
    msg_fmt = 'Server group %(group_uuid)s could not be found.'


class KeypairNotFound(NotFound):
    msg_fmt = 'Keypair %(name)s not found for user %(user_id)s.'


class KeyPairExists(Conflict):
    msg_fmt = "Key pair '%(key_name)s' already exists."


class InvalidKeypair(Invalid):
    msg_fmt = 'Keypair data is invalid: %(reason)s'


class KeypairGenerationUnsupported(Invalid):
    msg_fmt = ('This deployment cannot generate key pairs (%(reason)s); '
               'send the public_key of a key pair you made yourself.')


class InvalidKeyName(Invalid):
    msg_fmt = ('Invalid key_name provided. User %(user_id)s has no key '
               'pair named %(key_name)s.')


class AggregateNotFound(NotFound):
    msg_fmt = 'Aggregate %(aggregate_id)s could not be found.'


class AggregateNameExists(Conflict):
    msg_fmt = 'Aggregate %(aggregate_name)s already exists.'


class AggregateHostExists(Conflict):
    msg_fmt = 'Aggregate %(aggregate_id)s already has host %(host)s.'


class AggregateHostNotFound(NotFound):
    msg_fmt = 'Aggregate %(aggregate_id)s has no host %(host)s.'


class AggregateInUse(Invalid):
    msg_fmt = ('Cannot delete aggregate %(aggregate_id)s: it still has '
               'hosts %(hosts)s. Remove them first.')


class AvailabilityZoneConflict(Invalid):
    msg_fmt = ('Cannot put host %(host)s in availability zone %(zone)s '
               '(aggregate %(aggregate_id)s): conflicting availability zone '
               '%(other_zone)s of aggregate %(other_aggregate)s, which the '
               'host already belongs to. A host is in one zone only.')


class InvalidAvailabilityZone(Invalid):
    msg_fmt = ('The requested availability zone is not available: '
               '%(zone)s is neither the default zone nor the zone of an '
               'aggregate.')


class InstanceInvalidState(Conflict):
    msg_fmt = ('Cannot \'%(method)s\' instance %(instance_uuid)s while it is '
               'in %(attr)s %(state)s')


class UnexpectedTaskStateError(Conflict):
    msg_fmt = ('Conflict updating instance %(instance_uuid)s. Expected: '
               '%(expected)s. Actual: %(actual)s')


class UnexpectedDeletingTaskStateError(UnexpectedTaskStateError):
    pass


class ObjectActionError(NovaLiteException):
    msg_fmt = 'Object action %(action)s failed because: %(reason)s'


class NoValidHost(NovaLiteException):
    msg_fmt = 'No valid host was found. %(reason)s'
    code = 500
    # What a server's owner sees in its fault: the reason (how many hosts
    # each filter removed) is for administrators, in the fault details.
    summary = 'No valid host was found.'


class NoValidHostForNow(NoValidHost):
    """No host now because something the scheduler needs is away for the
    moment (a blink), not for want of room: the conductor asks again
    (``scheduler.rpcapi.select_destinations_patiently``)."""


class PlacementUnreachable(NoValidHostForNow):
    """The scheduler could not ask placement for hosts, or write a
    claim: nothing is known about the hosts, and a retry may well work
    once placement is back."""


class ComputesUnheardFrom(NoValidHostForNow):
    """Every host was refused only because its compute service has not
    reported in time, though none is disabled: what a broker or database
    blink looks like (every heartbeat late at once) -- a retry may well
    work once they report again."""


class HostsUnread(NoValidHostForNow):
    """No host that was read would do, and some could not be read: a
    cell's database, or the API database's host aggregates, did not
    answer (a database blink) -- a retry may well work once it answers."""


class UnsupportedPolicy(NoValidHost):
    msg_fmt = ('The scheduler cannot honour the %(policy)s policy of '
               'server group %(group)s: %(reason)s')
    summary = ('The scheduler cannot honour the policy of the server '
               'group.')


class MaxRetriesExceeded(NoValidHost):
    msg_fmt = 'Exceeded maximum number of retries. %(reason)s'
    # Which builds failed is the owner's business: the whole message.
    summary = None


class RescheduledException(NovaLiteException):
    msg_fmt = ('Build of instance %(instance_uuid)s was re-scheduled: '
               '%(reason)s')


class BuildAbortException(NovaLiteException):
    msg_fmt = 'Build of instance %(instance_uuid)s aborted: %(reason)s'


class InstanceTaskInterrupted(NovaLiteException):
    msg_fmt = ('The %(task)s of instance %(instance_uuid)s was interrupted '
               '(%(reason)s); the server is in ERROR: try the action again, '
               'rebuild or delete it.')


class ComputeResourcesUnavailable(NovaLiteException):
    msg_fmt = 'Insufficient compute resources: %(reason)s'


class RPCPinnedTooOld(NovaLiteException):
    msg_fmt = ('%(service)s RPC API is pinned to %(pinned)s, which cannot '
               'send %(method)s (needs %(needed)s).')
    code = 409


class InvalidRPCMessage(Invalid):
    """An RPC message a daemon refuses before running any of its code: no
    such method for it, arguments that do not fit the method, an object
    it cannot read. The sender gets this class back (for a call)."""
    msg_fmt = 'Malformed RPC message: %(reason)s'


class UnreadableObject(InvalidRPCMessage):
    """A versioned object primitive this process cannot turn into an
    object: unknown class or namespace, a version it has no compatible
    class for, or fields that do not fit."""
    msg_fmt = 'Cannot read object %(objtype)s: %(reason)s'


class DBNotAllowed(NovaLiteException):
    msg_fmt = ('%(binary)s holds no database credentials and must not use '
               'the database directly; objects go through the conductor '
               '(attempted: %(attempted)s)')


class QuotaError(NovaLiteException):
    msg_fmt = 'Quota exceeded: %(reason)s'
    code = 403


class OverQuota(QuotaError):
    """A request would take a project (or a user's key pairs) past a
    limit. ``nova_lite.quota`` writes the message, one clause per
    resource; ``overs`` lists those resources."""
    msg_fmt = 'Quota exceeded for %(overs)s.'


class ServerGroupMemberQuotaExceeded(QuotaError):
    msg_fmt = ('Quota exceeded for server_group_members, too many servers '
               'in group %(group)s: %(used)d members + %(requested)d '
               'requested > %(limit)d.')


class QuotaLimitBelowUsage(Invalid):
    msg_fmt = ('Cannot set quota limits of project %(project)s below what '
               'it already uses: %(details)s. Free some first, or send '
               '"force": true to set them anyway.')


class QuotaClassNotFound(NotFound):
    msg_fmt = ('Quota class %(class_name)s could not be found: the only '
               'quota class is "default", which holds the defaults of '
               'every project.')


# -- REST API -----------------------------------------------------------------

class NotAuthenticated(NovaLiteException):
    msg_fmt = 'Authentication required.'
    code = 401


class InvalidAPIVersion(NovaLiteException):
    msg_fmt = ('Version %(requested)s is not supported by the API. Minimum '
               'is %(min_version)s and maximum is %(max_version)s.')
    code = 406


class InvalidAPIVersionString(Invalid):
    msg_fmt = ('API version string %(version)s format is invalid. Must be in '
               'format MajorNum.MinorNum.')


class MalformedRequestBody(Invalid):
    msg_fmt = 'Malformed request body: %(reason)s'


class InvalidImageRef(Invalid):
    msg_fmt = 'Cannot find requested image %(image_href)s.'


class InvalidFlavorRef(Invalid):
    msg_fmt = 'Flavor %(flavor_ref)s could not be found.'


class MarkerNotFound(Invalid):
    msg_fmt = 'Marker %(marker)s could not be found.'


class InvalidServerGroupHint(Invalid):
    msg_fmt = 'Invalid scheduler hint group=%(group)s: %(reason)s'


class ConductorTooOld(Conflict):
    msg_fmt = ('The conductors cannot %(action)s yet: it needs conductor '
               'RPC API %(version)s and they are pinned to %(pinned)s '
               '([upgrade_levels] conductor, or the oldest running '
               'conductor). Upgrade every nova-lite-conductor first.')


class ComputeTooOld(Conflict):
    msg_fmt = ('The compute on %(host)s cannot %(action)s: it needs compute '
               'RPC API %(version)s and computes are pinned to %(pinned)s '
               '([upgrade_levels] compute). Upgrade that compute first.')


class PersonalityNotKept(Conflict):
    msg_fmt = ('Server %(instance_uuid)s was created with personality '
               'files, which are not kept, so it cannot be rebuilt from '
               'cell0 as created. Delete it and create it again without '
               'personality files (use user_data or a config drive).')


class NetworkUnavailable(ServiceUnavailable):
    msg_fmt = 'The port service is unavailable: %(reason)s'


class PortNotFound(Invalid):
    # 400, as the Compute API answers a server create naming an unknown
    # port: the request is wrong, not the server.
    msg_fmt = 'Port %(port_id)s could not be found.'


class NetworkNotFound(Invalid):
    msg_fmt = 'Network %(network_id)s could not be found.'


class PortInUse(Conflict):
    msg_fmt = 'Port %(port_id)s is still in use by %(device_id)s.'


class PortNotUsable(Invalid):
    # A server's ports are those of its own project: one of another
    # project would be bound but never counted among them.
    msg_fmt = ('Port %(port_id)s not usable for a server of project '
               '%(project_id)s: it belongs to another project.')


class DuplicatePortRequest(Invalid):
    msg_fmt = 'Port %(port_id)s is requested more than once.'


class PortBindingFailed(NovaLiteException):
    msg_fmt = ('Binding port %(port_id)s to %(host)s failed (vif_type '
               '%(vif_type)s); check the host\'s network agent and its '
               'physical networks.')


class PortReleasedDuringMove(NovaLiteException):
    msg_fmt = ('Port %(port_id)s was released while the move of '
               '%(instance_uuid)s to %(host)s was prepared (the server was '
               'deleted, or the port detached); the move is undone.')


class PortUpdateFailed(NovaLiteException):
    msg_fmt = 'Updating port %(port_id)s failed: %(reason)s'


class ComputeTooOldForPortResources(Conflict):
    msg_fmt = ('Cannot %(action)s server %(instance_uuid)s: it has ports '
               'with resource requests (minimum bandwidth), and the compute '
               'on %(host)s speaks compute RPC API %(have)s, which cannot '
               'update their port bindings\' allocation (needs %(need)s). '
               'Upgrade that compute first, or check [upgrade_levels] '
               'compute.')


class MigrationPreCheckError(NovaLiteException):
    code = 400
    msg_fmt = 'Migration pre-check error: %(reason)s'


class LiveMigrationAborted(NovaLiteException):
    msg_fmt = 'The live migration of %(instance_uuid)s was aborted.'


class MultipleBindingsUnsupported(Conflict):
    msg_fmt = ('Cannot live migrate server %(instance_uuid)s: it has ports '
               'with resource requests and the port service does not serve '
               'the multiple port bindings extension (binding-extended), '
               'so the destination\'s binding cannot be prepared.')


class MigrationNotFound(NotFound):
    msg_fmt = 'Migration %(migration_id)s could not be found.'


class MigrationStatusChanged(Conflict):
    msg_fmt = 'Migration %(migration_id)s is %(status)s now.'
