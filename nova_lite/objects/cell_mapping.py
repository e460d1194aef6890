"""Cell, host and instance mappings (API database): what lives in which cell.

cell0 has the fixed all-zero UUID and holds instances that never got a
host. A host mapping says which cell a compute host belongs to; an instance
mapping says which cell an instance is in (None while it is being
scheduled).
"""

from oslo_utils import uuidutils
from oslo_versionedobjects import fields
import sqlalchemy as sa

from nova_lite.db import api as db
from nova_lite.db import api_models as models
from nova_lite import exception
from nova_lite.objects import base
from nova_lite.objects import build_request as build_request_obj

CELL0_UUID = '00000000-0000-0000-0000-000000000000'

_CELL_COLUMNS = ('id', 'uuid', 'name', 'transport_url',
                 'database_connection', 'disabled', 'created_at',
                 'updated_at')


@base.NovaLiteObjectRegistry.register
class CellMapping(base.NovaLiteObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = dict(base.NovaLiteTimestampObject.fields, **{
        'id': fields.IntegerField(read_only=True),
        'uuid': fields.UUIDField(),
        'name': fields.StringField(nullable=True),
        'transport_url': fields.StringField(),
        'database_connection': fields.StringField(),
        'disabled': fields.BooleanField(default=False),
    })

    @property
    def is_cell0(self):
        return self.obj_attr_is_set('uuid') and self.uuid == CELL0_UUID

    @classmethod
    def _from_db(cls, context, row):
        mapping = base.copy_from_row(cls(), row, _CELL_COLUMNS)
        mapping._context = context
        return mapping

    @classmethod
    @db.retried
    def get_by_uuid(cls, context, uuid):
        with db.api_session() as session:
            row = session.execute(sa.select(models.CellMapping).where(
                models.CellMapping.uuid == uuid)).scalar_one_or_none()
        if row is None:
            raise exception.CellMappingNotFound(uuid=uuid)
        return cls._from_db(context, row)

    @classmethod
    @db.retried
    def get_by_id(cls, context, id):
        with db.api_session() as session:
            row = session.get(models.CellMapping, id)
        if row is None:
            raise exception.CellMappingNotFound(uuid=id)
        return cls._from_db(context, row)

    @db.retried
    def create(self):
        values = base.changes_for_db(self)
        values.setdefault('uuid', uuidutils.generate_uuid())
        values['created_at'] = base.utcnow()
        with db.api_session() as session:
            row = models.CellMapping(**values)
            session.add(row)
            session.flush()
        base.copy_from_row(self, row, _CELL_COLUMNS)

    @db.retried
    def save(self):
        values = base.changes_for_db(self)
        values['updated_at'] = base.utcnow()
        with db.api_session() as session:
            session.execute(sa.update(models.CellMapping).where(
                models.CellMapping.id == self.id).values(**values))
        self.obj_reset_changes()


@base.NovaLiteObjectRegistry.register
class CellMappingList(base.ObjectListBase, base.NovaLiteObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {'objects': fields.ListOfObjectsField('CellMapping')}

    @classmethod
    @db.retried
    def get_all(cls, context):
        with db.api_session() as session:
            rows = list(session.execute(sa.select(models.CellMapping)
                        .order_by(models.CellMapping.id)).scalars())
        return cls(context, objects=[CellMapping._from_db(context, r)
                                     for r in rows])


@base.NovaLiteObjectRegistry.register
class HostMapping(base.NovaLiteObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = dict(base.NovaLiteTimestampObject.fields, **{
        'id': fields.IntegerField(read_only=True),
        'host': fields.StringField(),
        'cell_mapping': fields.ObjectField('CellMapping'),
    })

    @classmethod
    def _from_db(cls, context, row, cell_row):
        mapping = cls(context, id=row.id, host=row.host,
                      created_at=row.created_at, updated_at=row.updated_at,
                      cell_mapping=CellMapping._from_db(context, cell_row))
        mapping.obj_reset_changes()
        return mapping

    @classmethod
    @db.retried
    def get_by_host(cls, context, host):
        with db.api_session() as session:
            found = session.execute(
                sa.select(models.HostMapping, models.CellMapping)
                .join(models.CellMapping,
                      models.HostMapping.cell_id == models.CellMapping.id)
                .where(models.HostMapping.host == host)).first()
        if found is None:
            raise exception.HostMappingNotFound(name=host)
        return cls._from_db(context, *found)

    @db.retried
    def create(self):
        try:
            with db.api_session() as session:
                row = models.HostMapping(host=self.host,
                                         cell_id=self.cell_mapping.id,
                                         created_at=base.utcnow())
                session.add(row)
                session.flush()
        except db.DBDuplicateEntry:
            raise exception.Conflict(
                reason='host %s is already mapped' % self.host)
        self.id = row.id
        self.obj_reset_changes()


@base.NovaLiteObjectRegistry.register
class HostMappingList(base.ObjectListBase, base.NovaLiteObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {'objects': fields.ListOfObjectsField('HostMapping')}

    @classmethod
    @db.retried
    def get_all(cls, context):
        with db.api_session() as session:
            found = session.execute(
                sa.select(models.HostMapping, models.CellMapping)
                .join(models.CellMapping,
                      models.HostMapping.cell_id == models.CellMapping.id)
                .order_by(models.HostMapping.host)).all()
        return cls(context, objects=[HostMapping._from_db(context, *f)
                                     for f in found])


@base.NovaLiteObjectRegistry.register
class InstanceMapping(base.NovaLiteObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = dict(base.NovaLiteTimestampObject.fields, **{
        'id': fields.IntegerField(read_only=True),
        'instance_uuid': fields.UUIDField(),
        'cell_mapping': fields.ObjectField('CellMapping', nullable=True),
        'project_id': fields.StringField(),
        'user_id': fields.StringField(nullable=True),
        'queued_for_delete': fields.BooleanField(default=False),
    })

    @classmethod
    def _from_db(cls, context, row, cell_row):
        mapping = cls(context, id=row.id, instance_uuid=row.instance_uuid,
                      project_id=row.project_id, user_id=row.user_id,
                      queued_for_delete=row.queued_for_delete,
                      created_at=row.created_at, updated_at=row.updated_at,
                      cell_mapping=(CellMapping._from_db(context, cell_row)
                                    if cell_row is not None else None))
        mapping.obj_reset_changes()
        return mapping

    @staticmethod
    def _query():
        return (sa.select(models.InstanceMapping, models.CellMapping)
                .outerjoin(models.CellMapping,
                           models.InstanceMapping.cell_id ==
                           models.CellMapping.id))

    @classmethod
    @db.retried
    def get_by_instance_uuid(cls, context, instance_uuid):
        with db.api_session() as session:
            found = session.execute(cls._query().where(
                models.InstanceMapping.instance_uuid == instance_uuid)).first()
        if found is None:
            raise exception.InstanceMappingNotFound(uuid=instance_uuid)
        return cls._from_db(context, *found)

    def _column_values(self):
        values = base.changes_for_db(self, skip=('cell_mapping',))
        if 'cell_mapping' in self.obj_what_changed():
            values['cell_id'] = (self.cell_mapping.id
                                 if self.cell_mapping is not None else None)
        return values

    def _new_row(self, now):
        """The column values of the row ``create`` adds."""
        values = self._column_values()
        values['created_at'] = now
        return values

    def _created(self, row_id):
        """This mapping as ``create`` leaves it, its row ``row_id``."""
        self.id = row_id
        if not self.obj_attr_is_set('cell_mapping'):
            self.cell_mapping = None
        self.obj_reset_changes()

    @db.retried
    def create(self):
        with db.api_session() as session:
            row = models.InstanceMapping(**self._new_row(base.utcnow()))
            session.add(row)
            session.flush()
        self._created(row.id)

    @db.retried
    def save(self, build_owner=None):
        """Write the mapping. With ``build_owner`` (a conductor's build
        task) only while that owner holds the server's build request, in
        the same UPDATE: BuildTakenOver or BuildRequestNotFound when it
        no longer does, so a build that lost its lease never points the
        mapping away from where its new owner put the server."""
        values = self._column_values()
        values['updated_at'] = base.utcnow()
        query = sa.update(models.InstanceMapping).where(
            models.InstanceMapping.instance_uuid == self.instance_uuid)
        if build_owner is not None:
            query = query.where(sa.exists().where(
                models.BuildRequest.instance_uuid == self.instance_uuid,
                models.BuildRequest.owner == build_owner))
        with db.api_session() as session:
            result = session.execute(query.values(**values),
                                     execution_options=db.NO_SYNC)
            if not result.rowcount and build_owner is not None and \
                    session.execute(sa.select(models.InstanceMapping.id).where(
                        models.InstanceMapping.instance_uuid ==
                        self.instance_uuid)).first() is not None:
                build_request_obj.raise_not_held(session, self.instance_uuid)
        if not result.rowcount:
            raise exception.InstanceMappingNotFound(uuid=self.instance_uuid)
        self.obj_reset_changes()

    @classmethod
    @db.retried
    def map_to_cell(cls, context, instance_uuid, cell_mapping, build_owner,
                    flow):
        """Point the mapping of ``instance_uuid`` at ``cell_mapping``, in
        the transaction that records the build's ``flow`` (its step
        map_to_cell) while ``build_owner`` holds its build request:
        BuildTakenOver or BuildRequestNotFound when it no longer does,
        InstanceMappingNotFound when its user deleted the server (and
        then nothing is written). A build's ``save(build_owner=...)``
        without reading the mapping first."""
        with db.api_session() as session:
            build_request_obj.record_flow_in(session, instance_uuid,
                                             build_owner, flow)
            result = session.execute(
                sa.update(models.InstanceMapping)
                .where(models.InstanceMapping.instance_uuid == instance_uuid)
                .values(cell_id=cell_mapping.id, updated_at=base.utcnow()),
                execution_options=db.NO_SYNC)
            if not result.rowcount:
                raise exception.InstanceMappingNotFound(uuid=instance_uuid)

    @classmethod
    @db.retried
    def map_all_to_cell(cls, context, instance_uuids, cell_mapping,
                        build_owner, flow):
        """``map_to_cell`` of several builds recording the same ``flow``,
        in one transaction, all or none: False, and nothing written,
        unless ``build_owner`` held every build and every mapping was
        there (the caller then maps each, which says why one could not
        be)."""
        uuids = sorted(instance_uuids)
        table = models.InstanceMapping
        try:
            with db.api_session() as session:
                if not build_request_obj.record_flows_in(
                        session, uuids, build_owner, flow):
                    raise build_request_obj.NotAll()
                result = session.execute(
                    sa.update(table)
                    .where(table.instance_uuid.in_(uuids))
                    .values(cell_id=cell_mapping.id,
                            updated_at=base.utcnow()),
                    execution_options=db.NO_SYNC)
                if result.rowcount != len(uuids):
                    raise build_request_obj.NotAll()
        except build_request_obj.NotAll:
            return False
        return True

    @db.retried
    def destroy(self):
        with db.api_session() as session:
            session.execute(sa.delete(models.InstanceMapping).where(
                models.InstanceMapping.instance_uuid == self.instance_uuid))

    @db.retried
    def unmap_from(self, cell_mapping):
        """Point the mapping at no cell, if it still points at
        ``cell_mapping`` and no delete is queued; False otherwise.

        The compare-and-swap lets a rebuild from cell0 and a delete race
        without both winning.
        """
        with db.api_session() as session:
            result = session.execute(
                sa.update(models.InstanceMapping).where(
                    models.InstanceMapping.instance_uuid ==
                    self.instance_uuid,
                    models.InstanceMapping.cell_id == cell_mapping.id,
                    models.InstanceMapping.queued_for_delete ==
                    sa.false()).values(cell_id=None,
                                       updated_at=base.utcnow()))
        if not result.rowcount:
            return False
        self.cell_mapping = None
        self.obj_reset_changes(['cell_mapping'])
        return True


@base.NovaLiteObjectRegistry.register
class InstanceMappingList(base.ObjectListBase, base.NovaLiteObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {'objects': fields.ListOfObjectsField('InstanceMapping')}

    @classmethod
    @db.retried
    def get_by_instance_uuids(cls, context, uuids):
        with db.api_session() as session:
            found = session.execute(InstanceMapping._query().where(
                models.InstanceMapping.instance_uuid.in_(list(uuids)))).all()
        return cls(context, objects=[InstanceMapping._from_db(context, *f)
                                     for f in found])
