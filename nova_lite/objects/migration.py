"""Migration: the record of one move of an instance between hosts.

An evacuation (and, later, a live migration) creates one in the instance's
cell. Its uuid doubles as a placement consumer: while the instance's own
consumer holds the destination's resources, the migration's holds what
the instance used on the source, until the source is cleaned up.

Status of an evacuation: ``accepted`` (conductor) -> ``pre-migrating``
(destination chosen) -> ``done`` (rebuilt on the destination) ->
``completed`` (the source compute came back and cleaned up); ``failed``
or ``error`` when it did not happen.

The compute working on a move records the steps of its flow on the
migration (``record_flow``, ``flow``; see ``nova_lite/flow.py``), so that
a takeover after a crash reads what to undo instead of guessing it.

``updated_at`` is the move's lease (``conductor/move_leases.py``): every
write here sets it by the database's clock (``db.clock``), and a
takeover (``end_if_stale``) judges it by that clock too, so the machines
of the conductor that renews it and of the daemon that takes it over
need not agree on the time.
"""

from oslo_serialization import jsonutils
from oslo_utils import uuidutils
from oslo_utils import versionutils
from oslo_versionedobjects import fields
import sqlalchemy as sa

from nova_lite.db import api as db
from nova_lite.db import clock
from nova_lite.db import main_models as models
from nova_lite import exception
from nova_lite.objects import base

EVACUATION = 'evacuation'
LIVE_MIGRATION = 'live-migration'
RESIZE = 'resize'
COLD_MIGRATION = 'migration'
# A live migration that has not reached its compute yet can be aborted by
# marking it cancelled; one that runs is aborted on its source.
QUEUED = ('accepted', 'queued', 'preparing')

# A move whose source side still holds something (resources in placement,
# remains on the source host) is in one of these.
IN_PROGRESS = models.MIGRATION_IN_PROGRESS
# An evacuation that the source must still clean up when it comes back.
EVACUATED = ('accepted', 'pre-migrating', 'done')

PROGRESS = ('memory_total', 'memory_processed', 'memory_remaining',
            'disk_total', 'disk_processed', 'disk_remaining')
_COLUMNS = ('id', 'uuid', 'instance_uuid', 'migration_type', 'status',
            'source_compute', 'source_node', 'dest_compute', 'dest_node',
            'dest_host', 'created_at', 'updated_at', 'deleted_at',
            'deleted', 'flow', 'old_instance_type_id',
            'new_instance_type_id') + PROGRESS


# In nova_lite.exception so that they cross RPC as themselves.
MigrationNotFound = exception.MigrationNotFound
MigrationStatusChanged = exception.MigrationStatusChanged


@base.NovaLiteObjectRegistry.register
class Migration(base.NovaLiteObject):
    # Version 1.0: Initial version
    # Version 1.1: Added memory_* and disk_* (live migration progress)
    # Version 1.2: Added flow and record_flow()
    # Version 1.3: Added end_if_stale()
    # Version 1.4: Added old_instance_type_id and new_instance_type_id
    VERSION = '1.4'

    fields = dict(base.NovaLitePersistentObject.fields, **{
        'id': fields.IntegerField(),
        'uuid': fields.UUIDField(),
        'instance_uuid': fields.UUIDField(),
        'migration_type': fields.StringField(),
        'status': fields.StringField(),
        'source_compute': fields.StringField(nullable=True),
        'source_node': fields.StringField(nullable=True),
        'dest_compute': fields.StringField(nullable=True),
        'dest_node': fields.StringField(nullable=True),
        'dest_host': fields.StringField(nullable=True),
        # JSON: {'flow': its name, 'steps': [[step, arg], ...]}.
        'flow': fields.StringField(nullable=True),
        'old_instance_type_id': fields.IntegerField(nullable=True),
        'new_instance_type_id': fields.IntegerField(nullable=True),
    }, **{name: fields.IntegerField(nullable=True) for name in PROGRESS})

    lazy_defaults = dict({'source_compute': None, 'source_node': None,
                          'dest_compute': None, 'dest_node': None,
                          'dest_host': None, 'flow': None,
                          'old_instance_type_id': None,
                          'new_instance_type_id': None},
                         **{name: None for name in PROGRESS})

    def obj_make_compatible(self, primitive, target_version):
        super().obj_make_compatible(primitive, target_version)
        version = versionutils.convert_version_to_tuple(target_version)
        if version < (1, 1):
            for name in PROGRESS:
                primitive.pop(name, None)
        if version < (1, 2):
            primitive.pop('flow', None)
        if version < (1, 4):
            primitive.pop('old_instance_type_id', None)
            primitive.pop('new_instance_type_id', None)

    @classmethod
    def _from_db(cls, context, row):
        migration = base.copy_from_row(cls(), row, _COLUMNS)
        migration._context = context
        return migration

    @classmethod
    @base.remotable
    def get_by_uuid(cls, context, uuid):
        with db.cell_session(context) as session:
            row = session.execute(sa.select(models.Migration).where(
                models.Migration.uuid == uuid,
                models.Migration.deleted == 0)).scalar_one_or_none()
        if row is None:
            raise MigrationNotFound(migration_id=uuid)
        return cls._from_db(context, row)

    @base.remotable
    def create(self):
        if not self.obj_attr_is_set('uuid'):
            self.uuid = uuidutils.generate_uuid()
        values = base.changes_for_db(self)
        now = base.utcnow()
        values.update(created_at=now, updated_at=now, deleted=0)
        with db.cell_session(self._context) as session:
            row = models.Migration(**values)
            session.add(row)
            session.flush()
            base.copy_from_row(self, row, _COLUMNS)

    @base.remotable
    def save(self, expected_status=None):
        """Write the changed fields; with ``expected_status`` (a list) only
        while the row still has one of those statuses, else
        MigrationStatusChanged (an admin cancelled it meanwhile)."""
        values = base.changes_for_db(self, skip=('id', 'uuid'))
        if not values:
            return
        values['updated_at'] = clock.utc_now()
        query = sa.update(models.Migration).where(
            models.Migration.uuid == self.uuid)
        if expected_status is not None:
            query = query.where(
                models.Migration.status.in_(list(expected_status)))
        with db.cell_session(self._context) as session:
            result = session.execute(query.values(**values))
            if expected_status is not None and not result.rowcount:
                actual = session.execute(
                    sa.select(models.Migration.status).where(
                        models.Migration.uuid == self.uuid)).scalar()
                raise MigrationStatusChanged(migration_id=self.uuid,
                                             status=actual)
        # This machine's idea of what the database wrote.
        self.updated_at = base.utcnow()
        self.obj_reset_changes()

    @base.remotable
    def end_if_stale(self, statuses, timeout, status='error'):
        """A takeover's fence: the move becomes ``status`` only if it is
        still in one of ``statuses`` and has not been written (renewed)
        for ``timeout`` seconds by the database's clock. True if it did;
        False if its owner renewed it or it moved on meanwhile."""
        return base.end_if_stale(
            self, models.Migration, timeout,
            models.Migration.status.in_(list(statuses)), status=status)

    @base.remotable
    def record_flow(self, flow, steps):
        """Store the steps the compute flow ``flow`` has started
        (``[[step, arg], ...]``, JSON-able) for a takeover to read. Only
        that column is written (and ``updated_at``: the move is alive);
        the object's other changes stay unsaved."""
        self._write_flow(flow, steps, None)

    @db.retried
    def record_flow_while(self, flow, steps, statuses):
        """``record_flow``, only while the migration has one of
        ``statuses``, else MigrationStatusChanged: the conductor's own
        record, which fails once a takeover has ended the move
        (conductor/move_leases.py)."""
        self._write_flow(flow, steps, statuses)

    def _write_flow(self, flow, steps, statuses):
        value = jsonutils.dumps({'flow': flow, 'steps': steps})
        query = sa.update(models.Migration).where(
            models.Migration.uuid == self.uuid,
            models.Migration.deleted == 0)
        if statuses is not None:
            query = query.where(models.Migration.status.in_(list(statuses)))
        with db.cell_session(self._context) as session:
            result = session.execute(query.values(
                flow=value, updated_at=clock.utc_now()))
            if not result.rowcount:
                actual = session.execute(
                    sa.select(models.Migration.status).where(
                        models.Migration.uuid == self.uuid,
                        models.Migration.deleted == 0)).scalar()
                if actual is None:
                    raise MigrationNotFound(migration_id=self.uuid)
                raise MigrationStatusChanged(migration_id=self.uuid,
                                             status=actual)
        self.flow = value
        self.updated_at = base.utcnow()
        self.obj_reset_changes(['flow', 'updated_at'])

    @classmethod
    def renew(cls, context, uuids, statuses):
        """Mark these moves alive now (a takeover waits for a move that
        made no progress for its timeout), those still in one of
        ``statuses``; how many were."""
        return base.mark_alive(context, models.Migration, uuids,
                               models.Migration.status.in_(list(statuses)))

    def recorded_steps(self, flow):
        """The steps ``flow`` recorded here, or None: nothing recorded by
        that flow (another flow's record, or none: a move begun before
        the computes recorded their steps)."""
        recorded = jsonutils.loads(self.flow) if self.flow else {}
        if recorded.get('flow') != flow:
            return None
        return recorded.get('steps') or []

    @property
    def in_progress(self):
        return self.status in IN_PROGRESS


@base.NovaLiteObjectRegistry.register
class MigrationList(base.ObjectListBase, base.NovaLiteObject):
    # Version 1.0: Initial version
    # Version 1.1: Added get_resizes_of_host()
    # Version 1.2: Added get_by_uuids()
    VERSION = '1.2'

    fields = {'objects': fields.ListOfObjectsField('Migration')}

    @classmethod
    @db.retried
    def _query(cls, context, *where):
        with db.cell_session(context) as session:
            rows = session.execute(sa.select(models.Migration).where(
                models.Migration.deleted == 0, *where).order_by(
                models.Migration.id)).scalars().all()
        return cls(context, objects=[Migration._from_db(context, row)
                                     for row in rows])

    @classmethod
    @base.remotable
    def get_evacuated_from(cls, context, host):
        """Evacuations away from ``host`` that it has not cleaned up."""
        return cls._query(
            context, models.Migration.source_compute == host,
            models.Migration.migration_type == EVACUATION,
            models.Migration.status.in_(EVACUATED))

    @classmethod
    @base.remotable
    def get_by_instance(cls, context, instance_uuid):
        return cls._query(context,
                          models.Migration.instance_uuid == instance_uuid)

    @classmethod
    @base.remotable
    def get_by_uuids(cls, context, uuids):
        """The migrations among ``uuids``; those with no record are left
        out. For a compute's audit of the allocations on its node."""
        if not uuids:
            return cls(context, objects=[])
        return cls._query(context, models.Migration.uuid.in_(sorted(uuids)))

    @classmethod
    @base.remotable
    def get_resizes_of_host(cls, context, host, statuses, stale_for=None):
        """The resizes and cold migrations from or to ``host`` in one of
        ``statuses``; with ``stale_for`` (seconds) only those not written
        for that long, by the database's clock. For a compute, which
        looks after its own."""
        M = models.Migration
        where = [M.migration_type.in_([RESIZE, COLD_MIGRATION]),
                 M.status.in_(list(statuses)),
                 sa.or_(M.source_compute == host, M.dest_compute == host)]
        if stale_for is not None:
            where.append(M.updated_at < clock.utc_now(-stale_for))
        return cls._query(context, *where)

    @classmethod
    def get_by_filters(cls, context, filters):
        """For os-migrations: ``instance_uuid``, ``migration_type``,
        ``status`` and ``host`` (source or destination); ``uuids``, a list
        of migration uuids; ``stale_for`` (seconds), only those not
        written for that long by the database's clock."""
        M = models.Migration
        where = []
        if filters.get('uuids') is not None:
            where.append(M.uuid.in_(list(filters['uuids'])))
        for name in ('instance_uuid', 'migration_type', 'status'):
            if filters.get(name):
                where.append(getattr(M, name) == filters[name])
        if filters.get('host'):
            where.append(sa.or_(M.source_compute == filters['host'],
                                M.dest_compute == filters['host']))
        if filters.get('stale_for') is not None:
            where.append(M.updated_at < clock.utc_now(-filters['stale_for']))
        return cls._query(context, *where)

    @classmethod
    def get_in_progress(cls, context):
        """Every move of this cell still holding a source side."""
        return cls._query(context,
                          models.Migration.status.in_(IN_PROGRESS))
