"""RequestSpec, Selection and their parts: what the scheduler is asked, and
what it answers.

A RequestSpec is stored in the API database as one serialized blob per
instance (a multi-create shares one spec by value); later move operations
and reschedules reuse it.
"""

from oslo_serialization import jsonutils
from oslo_utils import versionutils
from oslo_versionedobjects import fields
import sqlalchemy as sa

from nova_lite.db import api as db
from nova_lite.db import api_models as models
from nova_lite import exception
from nova_lite.objects import base


@base.NovaLiteObjectRegistry.register
class ImageMeta(base.NovaLiteObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'id': fields.UUIDField(nullable=True),
        'name': fields.StringField(nullable=True),
        'min_disk': fields.IntegerField(default=0),
        'min_ram': fields.IntegerField(default=0),
        'properties': fields.DictOfNullableStringsField(default={}),
    }

    @classmethod
    def from_image(cls, image):
        return cls(id=image.id, name=image.name, min_disk=image.min_disk,
                   min_ram=image.min_ram, properties=dict(image.properties))


@base.NovaLiteObjectRegistry.register
class SchedulerRetries(base.NovaLiteObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'num_attempts': fields.IntegerField(default=0),
        # [host, node] pairs already tried for this request.
        'hosts': fields.ListOfListsOfStringsField(default=[]),
    }


@base.NovaLiteObjectRegistry.register
class SchedulerLimits(base.NovaLiteObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'memory_mb': fields.IntegerField(nullable=True),
        'vcpu': fields.IntegerField(nullable=True),
        'disk_gb': fields.IntegerField(nullable=True),
    }

    def to_dict(self):
        return {name: getattr(self, name) for name in self.fields
                if self.obj_attr_is_set(name) and
                getattr(self, name) is not None}


@base.NovaLiteObjectRegistry.register
class Selection(base.NovaLiteObject):
    """One host the scheduler chose (or an alternate for a retry)."""
    # Version 1.0: Initial version
    # Version 1.1: Added allocation_request
    VERSION = '1.1'

    fields = {
        'compute_node_uuid': fields.UUIDField(),
        'service_host': fields.StringField(),
        'nodename': fields.StringField(),
        'cell_uuid': fields.UUIDField(),
        'limits': fields.ObjectField('SchedulerLimits', nullable=True),
        # The placement allocation candidate for this host, as JSON: the
        # scheduler has claimed it for the chosen host; the conductor
        # claims an alternate's before a reschedule sends the instance
        # there. None from a scheduler that did not ask placement.
        'allocation_request': fields.StringField(nullable=True),
    }

    lazy_defaults = {'allocation_request': None}
    # SchedulerLimits version per Selection version, for backports
    # without a manifest.
    obj_relationships = {'limits': [('1.0', '1.0')]}

    def obj_make_compatible(self, primitive, target_version):
        super().obj_make_compatible(primitive, target_version)
        if versionutils.convert_version_to_tuple(target_version) < (1, 1):
            primitive.pop('allocation_request', None)

    @property
    def allocation(self):
        """The allocation request as a dict, or None."""
        if not self.allocation_request:
            return None
        return jsonutils.loads(self.allocation_request)


@base.NovaLiteObjectRegistry.register
class RequestGroup(base.NovaLiteObject):
    """Resources that must come from one provider: a port's resource
    request (minimum bandwidth), asked of placement as a suffixed group
    whose suffix is the ``requester_id`` (the port id)."""
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'requester_id': fields.StringField(),
        'resources': fields.DictOfIntegersField(default={}),
        'required_traits': fields.ListOfStringsField(default=[]),
        # Filled in once the group is allocated: the provider(s) that
        # satisfied it.
        'provider_uuids': fields.ListOfStringsField(default=[]),
    }

    lazy_defaults = {'resources': {}, 'required_traits': [],
                     'provider_uuids': []}

    @property
    def suffix(self):
        """The group's suffix in an allocation candidates query (and the
        key of its providers in the answer's ``mappings``)."""
        return '_' + self.requester_id

    @classmethod
    def from_port(cls, port):
        """The group of a port with a ``resource_request``, else None."""
        request = port.get('resource_request')
        if not request or not request.get('resources'):
            return None
        return cls(requester_id=port['id'],
                   resources=dict(request['resources']),
                   required_traits=sorted(request.get('required') or []))


@base.NovaLiteObjectRegistry.register
class Destination(base.NovaLiteObject):
    """The host (and, if named, the node) a move asks for. Unlike a forced
    host it is only the one candidate: the filters still run on it."""
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'host': fields.StringField(),
        'node': fields.StringField(nullable=True),
    }

    lazy_defaults = {'node': None}

    def holds(self, host_state):
        """Whether ``host_state`` is (a node of) the requested host."""
        return host_state.host == self.host and (
            self.node is None or host_state.nodename == self.node)


@base.NovaLiteObjectRegistry.register
class RequestSpec(base.NovaLiteObject):
    # Version 1.0: Initial version
    # Version 1.1: Added instance_group
    # Version 1.2: Added requested_networks
    # Version 1.3: Added requested_resources
    # Version 1.4: Added requested_destination
    VERSION = '1.4'

    fields = {
        'id': fields.IntegerField(),
        'instance_uuid': fields.UUIDField(),
        'project_id': fields.StringField(nullable=True),
        'user_id': fields.StringField(nullable=True),
        'num_instances': fields.IntegerField(default=1),
        'flavor': fields.ObjectField('Flavor'),
        'image': fields.ObjectField('ImageMeta', nullable=True),
        'availability_zone': fields.StringField(nullable=True),
        'scheduler_hints': fields.DictOfListOfStringsField(default={}),
        'ignore_hosts': fields.ListOfStringsField(nullable=True),
        'force_hosts': fields.ListOfStringsField(nullable=True),
        'force_nodes': fields.ListOfStringsField(nullable=True),
        'retry': fields.ObjectField('SchedulerRetries', nullable=True),
        'is_bfv': fields.BooleanField(default=False),
        'instance_group': fields.ObjectField('InstanceGroup', nullable=True),
        # The networks the create asked for: the compute binds them, and
        # a rebuild from cell0 asks for them again.
        'requested_networks': fields.ObjectField('NetworkRequestList',
                                                 nullable=True),
        # What the instance's ports need from one provider each (their
        # resource requests), on top of the flavor.
        'requested_resources': fields.ListOfObjectsField('RequestGroup',
                                                         default=[]),
        # A move to a named host that did not ask to force it: only that
        # host is a candidate, and it must pass the filters (force_hosts
        # skips them).
        'requested_destination': fields.ObjectField('Destination',
                                                    nullable=True),
    }

    def obj_make_compatible(self, primitive, target_version):
        super().obj_make_compatible(primitive, target_version)
        target = versionutils.convert_version_to_tuple(target_version)
        if target < (1, 1):
            primitive.pop('instance_group', None)
        if target < (1, 2):
            primitive.pop('requested_networks', None)
        if target < (1, 3):
            primitive.pop('requested_resources', None)
        if target < (1, 4):
            primitive.pop('requested_destination', None)

    # Optional parts of a spec default to "not asked for".
    lazy_defaults = {'image': None, 'availability_zone': None,
                     'scheduler_hints': {}, 'ignore_hosts': None,
                     'force_hosts': None, 'force_nodes': None,
                     'retry': None, 'is_bfv': False, 'num_instances': 1,
                     'project_id': None, 'user_id': None,
                     'instance_group': None, 'requested_networks': None,
                     'requested_resources': [],
                     'requested_destination': None}

    def get_scheduler_hint(self, name, default=None):
        values = self.scheduler_hints.get(name)
        if not values:
            return default
        return values[0] if len(values) == 1 else values

    def _blob(self):
        spec = self.obj_clone()
        if spec.obj_attr_is_set('id'):
            del spec.id
        return jsonutils.dumps(spec.obj_to_primitive())

    @classmethod
    def _from_db(cls, context, row):
        spec = cls.obj_from_primitive(jsonutils.loads(row.spec))
        spec.id = row.id
        spec._context = context
        spec.obj_reset_changes(recursive=True)
        return spec

    @classmethod
    @db.retried
    def get_by_instance_uuid(cls, context, instance_uuid):
        with db.api_session() as session:
            row = session.execute(sa.select(models.RequestSpec).where(
                models.RequestSpec.instance_uuid == instance_uuid)
            ).scalar_one_or_none()
        if row is None:
            raise exception.RequestSpecNotFound(instance_uuid=instance_uuid)
        return cls._from_db(context, row)

    def _new_row(self, now):
        """The column values of the row ``create`` adds."""
        return dict(instance_uuid=self.instance_uuid, spec=self._blob(),
                    created_at=now, updated_at=now)

    @db.retried
    def create(self):
        with db.api_session() as session:
            row = models.RequestSpec(**self._new_row(base.utcnow()))
            session.add(row)
            session.flush()
        self._created(row.id)

    def _created(self, row_id):
        """This spec as ``create`` leaves it, its row ``row_id``."""
        self.id = row_id
        self.obj_reset_changes()

    @db.retried
    def save(self):
        with db.api_session() as session:
            session.execute(sa.update(models.RequestSpec).where(
                models.RequestSpec.instance_uuid == self.instance_uuid)
                .values(spec=self._blob(), updated_at=base.utcnow()))
        self.obj_reset_changes()

    @db.retried
    def destroy(self):
        with db.api_session() as session:
            session.execute(sa.delete(models.RequestSpec).where(
                models.RequestSpec.instance_uuid == self.instance_uuid))
