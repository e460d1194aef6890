"""ComputeNode: one hypervisor's capacity and usage (cell databases).

The resource tracker of the owning compute creates and updates it through
the conductor; the scheduler builds its host states from it.
"""

from oslo_serialization import jsonutils
from oslo_utils import uuidutils
from oslo_versionedobjects import fields
import sqlalchemy as sa

from nova_lite.db import api as db
from nova_lite.db import main_models as models
from nova_lite.db import packed
from nova_lite import exception
from nova_lite.objects import base

_COLUMNS = (
    'id', 'uuid', 'host', 'hypervisor_hostname', 'hypervisor_type',
    'hypervisor_version', 'host_ip', 'vcpus', 'memory_mb', 'local_gb',
    'vcpus_used', 'memory_mb_used', 'local_gb_used', 'free_ram_mb',
    'free_disk_gb', 'running_vms', 'current_workload',
    'disk_available_least', 'cpu_allocation_ratio', 'ram_allocation_ratio',
    'disk_allocation_ratio', 'mapped', 'created_at', 'updated_at',
    'deleted_at', 'deleted')


_NODES = models.ComputeNode.__table__
# A compute's resource audit saves its node often: the statement is made
# once; it sets the columns its other parameters name.
_UPDATE_NODE = sa.update(_NODES).where(_NODES.c.id == sa.bindparam('b_id'))


@base.NovaLiteObjectRegistry.register
class ComputeNode(base.NovaLiteObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = dict(base.NovaLitePersistentObject.fields, **{
        'id': fields.IntegerField(read_only=True),
        'uuid': fields.UUIDField(),
        'host': fields.StringField(),
        'hypervisor_hostname': fields.StringField(),
        'hypervisor_type': fields.StringField(),
        'hypervisor_version': fields.IntegerField(),
        'host_ip': fields.StringField(nullable=True),
        'vcpus': fields.IntegerField(),
        'memory_mb': fields.IntegerField(),
        'local_gb': fields.IntegerField(),
        'vcpus_used': fields.IntegerField(),
        'memory_mb_used': fields.IntegerField(),
        'local_gb_used': fields.IntegerField(),
        'free_ram_mb': fields.IntegerField(),
        'free_disk_gb': fields.IntegerField(),
        'running_vms': fields.IntegerField(),
        'current_workload': fields.IntegerField(),
        'disk_available_least': fields.IntegerField(nullable=True),
        'cpu_allocation_ratio': fields.FloatField(),
        'ram_allocation_ratio': fields.FloatField(),
        'disk_allocation_ratio': fields.FloatField(),
        'cpu_info': fields.StringField(nullable=True),
        'stats': fields.DictOfNullableStringsField(default={}),
        'mapped': fields.BooleanField(default=False),
    })

    # A save writes the changed fields of the row with this id.
    obj_sent_for = {'save': ('id',)}

    @classmethod
    def _from_db(cls, context, node, row):
        base.copy_from_row(node, row, _COLUMNS)
        node.cpu_info = row.cpu_info
        node.stats = jsonutils.loads(row.stats or '{}')
        node._context = context
        node.obj_reset_changes()
        return node

    def _db_values(self):
        values = base.changes_for_db(self, skip=('stats', 'id'))
        if 'stats' in self.obj_what_changed():
            values['stats'] = jsonutils.dumps(self.stats)
        return values

    @classmethod
    @base.remotable
    def get_by_host_and_nodename(cls, context, host, nodename):
        with db.cell_session(context) as session:
            row = session.execute(sa.select(models.ComputeNode).where(
                models.ComputeNode.host == host,
                models.ComputeNode.hypervisor_hostname == nodename,
                models.ComputeNode.deleted == 0)).scalar_one_or_none()
        if row is None:
            raise exception.ComputeHostNotFound(host='%s/%s' %
                                                (host, nodename))
        return cls._from_db(context, cls(), row)

    @classmethod
    @db.retried
    def get_by_uuid(cls, context, uuid):
        with db.cell_session(context) as session:
            row = session.execute(sa.select(models.ComputeNode).where(
                models.ComputeNode.uuid == uuid,
                models.ComputeNode.deleted == 0)).scalar_one_or_none()
        if row is None:
            raise exception.HypervisorNotFound(hypervisor_id=uuid)
        return cls._from_db(context, cls(), row)

    @base.remotable
    def create(self):
        if not self.obj_attr_is_set('uuid'):
            self.uuid = uuidutils.generate_uuid()
        values = self._db_values()
        values['created_at'] = values['updated_at'] = base.utcnow()
        values['deleted'] = 0
        with db.cell_session(self._context) as session:
            row = models.ComputeNode(**values)
            session.add(row)
            session.flush()
        self._from_db(self._context, self, row)

    @base.remotable
    def save(self):
        if not self.obj_what_changed():
            return
        with db.cell_session(self._context) as session:
            written_at = self.save_in(session)
        if written_at is not None:
            self.updated_at = written_at
            self.obj_reset_changes()

    def save_in(self, session):
        """The UPDATE of ``save``, in the caller's transaction
        (``Instance.save`` with ``node``: a compute's last save of an
        operation writes its node's record too); when it was written, or
        None for nothing to write. The changes stay marked: a transaction
        that fails to commit is run again (``db.retried``) with them."""
        values = self._db_values()
        if not values:
            return None
        values['updated_at'] = base.utcnow()
        session.execute(_UPDATE_NODE, dict(values, b_id=self.id))
        return values['updated_at']

    @base.remotable
    def destroy(self):
        now = base.utcnow()
        with db.cell_session(self._context) as session:
            session.execute(sa.update(models.ComputeNode).where(
                models.ComputeNode.id == self.id).values(
                    deleted=models.ComputeNode.id, deleted_at=now))
        self.deleted = True


@base.NovaLiteObjectRegistry.register
class ComputeNodeList(base.ObjectListBase, base.NovaLiteObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {'objects': fields.ListOfObjectsField('ComputeNode')}

    @classmethod
    @db.retried
    def _get(cls, context, *where):
        query = sa.select(models.ComputeNode).where(
            models.ComputeNode.deleted == 0, *where).order_by(
                models.ComputeNode.id)
        with db.cell_session(context) as session:
            rows = list(session.execute(query).scalars())
        return cls(context, objects=[
            ComputeNode._from_db(context, ComputeNode(), r) for r in rows])

    @classmethod
    def get_all(cls, context):
        return cls._get(context)

    @classmethod
    def get_by_uuids(cls, context, uuids):
        return cls._get(context, models.ComputeNode.uuid.in_(sorted(uuids)))

    @staticmethod
    def written_by_uuid(context, uuids):
        """{uuid: when it was last written} of the live compute nodes
        among ``uuids``, as the database's text of its updated_at (every
        write of a node sets it, to the microsecond): enough to tell
        which a reader has already read as they are, without a thousand
        datetimes to parse for each question (None: never written)."""
        table = models.ComputeNode.__table__
        columns = (table.c.uuid, table.c.updated_at)
        where = (table.c.deleted == 0, packed.uuids_in(table.c.uuid, uuids))
        with db.cell_session(context) as session:
            found = packed.rows(session, packed.statement(
                columns, *where, table=table), options=packed.ONCE)
            if found is not None:
                return {uuid: written or None for uuid, written in found}
            return dict(session.execute(
                sa.select(table.c.uuid,
                          sa.cast(table.c.updated_at, sa.String)).where(
                    *where), execution_options=packed.ONCE).all())

    @classmethod
    @base.remotable
    def get_by_host(cls, context, host):
        return cls._get(context, models.ComputeNode.host == host)

    @classmethod
    def get_unmapped(cls, context):
        return cls._get(context, models.ComputeNode.mapped == sa.false())
