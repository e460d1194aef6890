"""Errors of the port service. The class name is the ``type`` a client
reads in the error body (``{"NeutronError": {"type": "PortNotFound",
...}}``), as in the Networking API, so names are part of the wire format."""

from nova_lite import exception


class NetworkError(exception.NovaLiteException):
    pass


class BadRequest(NetworkError):
    msg_fmt = 'Bad request: %(reason)s'
    code = 400


class InvalidInput(BadRequest):
    msg_fmt = 'Invalid input for operation: %(reason)s'


class Conflict(NetworkError):
    msg_fmt = '%(reason)s'
    code = 409


class NotFound(NetworkError):
    msg_fmt = '%(reason)s'
    code = 404


class NetworkNotFound(NotFound):
    msg_fmt = 'Network %(net_id)s could not be found.'


class PortNotFound(NotFound):
    msg_fmt = 'Port %(port_id)s could not be found.'


class QosPolicyNotFound(NotFound):
    msg_fmt = 'QoS policy %(policy_id)s could not be found.'


class QosRuleNotFound(NotFound):
    msg_fmt = ('Minimum bandwidth rule %(rule_id)s of QoS policy '
               '%(policy_id)s could not be found.')


class PortBindingNotFound(NotFound):
    msg_fmt = 'Port %(port_id)s has no binding for host %(host)s.'


class AgentNotFound(NotFound):
    msg_fmt = 'Agent %(id)s could not be found.'


class ExtensionNotFound(NotFound):
    msg_fmt = 'Extension with alias %(alias)s does not exist.'


class NetworkInUse(Conflict):
    msg_fmt = ('Unable to complete operation on network %(net_id)s. There '
               'are one or more ports still in use on the network: '
               '%(ports)s. Delete them first.')


class SegmentInUse(Conflict):
    msg_fmt = ('Unable to create the network: %(what)s is already used by '
               'network %(net_id)s.')


class NoSegmentAvailable(Conflict):
    msg_fmt = ('Unable to create the network: no free %(network_type)s '
               'segmentation id is left%(where)s.')


class MacAddressInUse(Conflict):
    msg_fmt = ('Unable to complete operation for network %(net_id)s. The '
               'mac address %(mac)s is in use.')


class QosPolicyInUse(Conflict):
    msg_fmt = ('QoS policy %(policy_id)s is used by %(object_type)s '
               '%(object_id)s; detach it first.')


class QosRuleDirectionExists(Conflict):
    msg_fmt = ('QoS policy %(policy_id)s already has a minimum bandwidth '
               'rule for direction %(direction)s (rule %(rule_id)s); update '
               'that one instead.')


class QosPlacementAllocationConflict(Conflict):
    """Changing a QoS policy would change the resources of a port that
    already holds an allocation in placement, which this service does not
    move."""
    msg_fmt = ('Cannot change the QoS of port %(port_id)s while it is '
               'bound to host %(host)s: its resource request would change '
               'from %(old)s to %(new)s, and the placement allocation made '
               'for it is not updated. Unbind the port (or move the server) '
               'first.')


class PortBindingAlreadyExists(Conflict):
    msg_fmt = 'Port %(port_id)s already has a binding for host %(host)s.'


class PortBindingAlreadyActive(Conflict):
    msg_fmt = ('The binding of port %(port_id)s for host %(host)s is '
               'already active.')


class PortBindingError(Conflict):
    msg_fmt = ('The binding of port %(port_id)s for host %(host)s cannot '
               'be activated: it failed (%(reason)s). Delete it and create '
               'it again once the host can bind the port.')


class ActivePortBindingDelete(Conflict):
    msg_fmt = ('The binding of port %(port_id)s for host %(host)s is the '
               'active one and cannot be deleted; activate another binding '
               'first, or unbind the port by setting its binding:host_id '
               'to "".')
