"""What a server was asked to boot with, beyond flavor and image: its
networks and its block devices.

Both are kept so that a server buried in cell0 can be built again exactly
as asked (seed 003): block device mappings travel with the instance, the
requested networks in its RequestSpec. Volume ids are opaque here: there is
no volume service to check them against.
"""

from oslo_utils import strutils
from oslo_versionedobjects import fields

from nova_lite import exception
from nova_lite.objects import base


def _whole_number(entry, name):
    value = entry.get(name)
    if value in (None, ''):
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        raise exception.Invalid(
            reason='block_device_mapping_v2 %s must be a whole number, '
                   'not %r.' % (name, value))


@base.NovaLiteObjectRegistry.register
class NetworkRequest(base.NovaLiteObject):
    """One entry of a server create's ``networks``."""
    # Version 1.0: Initial version
    VERSION = '1.0'

    # The two special values of 2.37: "auto" allocates a network, "none"
    # boots without one.
    AUTO = 'auto'
    NONE = 'none'

    fields = {
        'network_id': fields.StringField(nullable=True),
        'port_id': fields.UUIDField(nullable=True),
        'address': fields.StringField(nullable=True),
        'tag': fields.StringField(nullable=True),
    }

    lazy_defaults = {'network_id': None, 'port_id': None, 'address': None,
                     'tag': None}

    @classmethod
    def from_api(cls, entry):
        """From one ``{"uuid"|"port", "fixed_ip", "tag"}`` of the API."""
        return cls(network_id=entry.get('uuid'), port_id=entry.get('port'),
                   address=entry.get('fixed_ip'), tag=entry.get('tag'))

    def to_api(self):
        entry = {}
        for key, name in (('uuid', 'network_id'), ('port', 'port_id'),
                          ('fixed_ip', 'address'), ('tag', 'tag')):
            if getattr(self, name) is not None:
                entry[key] = getattr(self, name)
        return entry


@base.NovaLiteObjectRegistry.register
class NetworkRequestList(base.ObjectListBase, base.NovaLiteObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {'objects': fields.ListOfObjectsField('NetworkRequest')}

    @classmethod
    def from_api(cls, networks):
        """From the API's ``networks``: a list, "auto" or "none" (one
        request whose network_id says which), or None."""
        if networks is None:
            return None
        if isinstance(networks, str):
            return cls(objects=[NetworkRequest(network_id=networks)])
        return cls(objects=[NetworkRequest.from_api(n) for n in networks])

    def to_api(self):
        """The API's ``networks`` again: a list, "auto" or "none"."""
        if (len(self.objects) == 1 and self.objects[0].network_id in
                (NetworkRequest.AUTO, NetworkRequest.NONE) and
                self.objects[0].port_id is None):
            return self.objects[0].network_id
        return [n.to_api() for n in self.objects]


@base.NovaLiteObjectRegistry.register
class BlockDeviceMapping(base.NovaLiteObject):
    """One entry of ``block_device_mapping_v2``."""
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'boot_index': fields.IntegerField(nullable=True),
        'source_type': fields.StringField(nullable=True),
        'destination_type': fields.StringField(nullable=True),
        'uuid': fields.StringField(nullable=True),
        'volume_size': fields.IntegerField(nullable=True),
        'volume_type': fields.StringField(nullable=True),
        'device_name': fields.StringField(nullable=True),
        'delete_on_termination': fields.BooleanField(default=False),
        'tag': fields.StringField(nullable=True),
    }

    lazy_defaults = {'boot_index': None, 'source_type': None,
                     'destination_type': None, 'uuid': None,
                     'volume_size': None, 'volume_type': None,
                     'device_name': None, 'delete_on_termination': False,
                     'tag': None}

    @classmethod
    def from_api(cls, entry):
        """From one entry of ``block_device_mapping_v2``; Invalid (400)
        for a boot_index or volume_size that is not a whole number."""
        return cls(
            boot_index=_whole_number(entry, 'boot_index'),
            source_type=entry.get('source_type'),
            destination_type=entry.get('destination_type'),
            uuid=entry.get('uuid'),
            volume_size=_whole_number(entry, 'volume_size'),
            volume_type=entry.get('volume_type'),
            device_name=entry.get('device_name'),
            delete_on_termination=strutils.bool_from_string(
                entry.get('delete_on_termination', False)),
            tag=entry.get('tag'))

    def to_api(self):
        entry = {}
        for name in self.fields:
            value = getattr(self, name)
            if value is not None:
                entry[name] = value
        return entry

    @property
    def is_volume(self):
        return self.destination_type == 'volume'
