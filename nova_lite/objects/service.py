"""Service: one running daemon's record and heartbeat (cell databases).

``SERVICE_VERSION`` goes up whenever a release changes an RPC API; the
history below maps each service version to the RPC API versions it
speaks, which is what ``[upgrade_levels] <service> = auto`` pins to.
"""

import collections
import datetime

from oslo_utils import timeutils
from oslo_utils import uuidutils
from oslo_versionedobjects import fields
import sqlalchemy as sa

from nova_lite import conf as nova_conf
from nova_lite.db import api as db
from nova_lite.db import main_models as models
from nova_lite.db import packed
from nova_lite import exception
from nova_lite.objects import base

CONF = nova_conf.CONF

# Version 1: conductor 1.0, scheduler 1.0, compute 1.0
# Version 2: scheduler 1.1 (select_destinations returns alternates)
# Version 3: scheduler 1.2 (RequestSpec 1.1 with the server group)
SERVICE_VERSION = 18

SERVICE_VERSION_HISTORY = (
    # Version 0: no version recorded
    {'conductor': '1.0', 'scheduler': '1.0', 'compute': '1.0'},
    # Version 1: initial release
    {'conductor': '1.0', 'scheduler': '1.0', 'compute': '1.0'},
    # Version 2: select_destinations with alternates
    {'conductor': '1.0', 'scheduler': '1.1', 'compute': '1.0'},
    # Version 3: RequestSpec 1.1 (instance_group) to select_destinations
    {'conductor': '1.0', 'scheduler': '1.2', 'compute': '1.0'},
    # Version 4: rebuild (compute rebuild_instance, stop/start), rebuild
    # from cell0 (conductor rebuild_instance_in_cell0), RequestSpec 1.2
    {'conductor': '1.1', 'scheduler': '1.3', 'compute': '1.1'},
    # Version 5: evacuation (conductor evacuate_instance, compute
    # rebuild_instance with recreate and request_spec), shelve/unshelve,
    # RequestSpec 1.3 (the ports' request groups)
    {'conductor': '1.2', 'scheduler': '1.4', 'compute': '1.3'},
    # Version 6: live migration (conductor live_migrate_instance, compute
    # RPC 1.4)
    {'conductor': '1.3', 'scheduler': '1.4', 'compute': '1.4'},
    # Version 7: conductor 1.4 (object calls carry an id; a repeat is
    # answered once)
    {'conductor': '1.4', 'scheduler': '1.4', 'compute': '1.4'},
    # Version 8: Migration 1.3 (end_if_stale, a compute's fence on a live
    # migration its conductor left: conductors first, as always)
    {'conductor': '1.4', 'scheduler': '1.4', 'compute': '1.4'},
    # Version 9: Instance 1.2 (end_task_if_stale), InstanceList 1.1
    # (stale_for: a compute judges its tasks by the database's clock)
    {'conductor': '1.4', 'scheduler': '1.4', 'compute': '1.4'},
    # Version 10: compute 1.5 (reboot_instance, pause_instance,
    # unpause_instance, suspend_instance, resume_instance)
    {'conductor': '1.4', 'scheduler': '1.4', 'compute': '1.5'},
    # Version 11: conductor 1.5 (live_migrate_instance and
    # evacuate_instance take force; unforced, a named host is filtered)
    {'conductor': '1.5', 'scheduler': '1.4', 'compute': '1.5'},
    # Version 12: resize and cold migration (conductor migrate_server,
    # compute RPC 1.6), Instance 1.3, Migration 1.4, MigrationList 1.1
    # (get_resizes_of_host: a compute looks after its resizes)
    {'conductor': '1.6', 'scheduler': '1.4', 'compute': '1.6'},
    # Version 13: scheduler 1.5 (RequestSpec 1.4: a move's
    # requested_destination, filtered like any host)
    {'conductor': '1.6', 'scheduler': '1.5', 'compute': '1.6'},
    # Version 14: compute 1.7 (set_host_enabled: the API tells a compute
    # its service was disabled or enabled, for COMPUTE_STATUS_DISABLED)
    {'conductor': '1.6', 'scheduler': '1.5', 'compute': '1.7'},
    # Version 15: Service 1.1 (heartbeat_many: nova-lite-fake-computes
    # heartbeats for all its hosts in one conductor call)
    {'conductor': '1.6', 'scheduler': '1.5', 'compute': '1.7'},
    # Version 16: Instance 1.4 (save records a compute's action event in
    # the same conductor call; conductors first, as always)
    {'conductor': '1.6', 'scheduler': '1.5', 'compute': '1.7'},
    # Version 17: MigrationList 1.2 (get_by_uuids: a compute's audit reads
    # the migrations among its node's stale consumers in one call)
    {'conductor': '1.6', 'scheduler': '1.5', 'compute': '1.7'},
    # Version 18: Instance 1.5 (save writes the changes of the compute
    # node's record too: an operation's last save carries its stats;
    # conductors first, as always)
    {'conductor': '1.6', 'scheduler': '1.5', 'compute': '1.7'},
)

_COLUMNS = ('id', 'uuid', 'host', 'binary', 'topic', 'report_count',
            'disabled', 'disabled_reason', 'forced_down', 'last_seen_up',
            'version', 'created_at', 'updated_at', 'deleted_at', 'deleted')


@base.NovaLiteObjectRegistry.register
class Service(base.NovaLiteObject):
    # Version 1.0: Initial version
    # Version 1.1: heartbeat_many (one heartbeat for many services: a
    #              process hosting many simulated computes)
    VERSION = '1.1'

    fields = dict(base.NovaLitePersistentObject.fields, **{
        'id': fields.IntegerField(read_only=True),
        'uuid': fields.UUIDField(),
        'host': fields.StringField(),
        'binary': fields.StringField(),
        'topic': fields.StringField(nullable=True),
        'report_count': fields.IntegerField(default=0),
        'disabled': fields.BooleanField(default=False),
        'disabled_reason': fields.StringField(nullable=True),
        'forced_down': fields.BooleanField(default=False),
        'last_seen_up': fields.DateTimeField(nullable=True),
        'version': fields.IntegerField(),
    })

    @classmethod
    def _from_db(cls, context, row):
        service = base.copy_from_row(cls(), row, _COLUMNS)
        service._context = context
        return service

    @classmethod
    @db.retried
    def _get_one(cls, context, not_found, *where):
        with db.cell_session(context) as session:
            row = session.execute(sa.select(models.Service).where(
                models.Service.deleted == 0, *where)).scalar_one_or_none()
        if row is None:
            raise not_found
        return cls._from_db(context, row)

    @classmethod
    @base.remotable
    def get_by_host_and_binary(cls, context, host, binary):
        return cls._get_one(
            context, exception.ServiceNotFound(service_id='%s/%s' %
                                               (host, binary)),
            models.Service.host == host, models.Service.binary == binary)

    @classmethod
    def get_by_uuid(cls, context, uuid):
        return cls._get_one(context,
                            exception.ServiceNotFound(service_id=uuid),
                            models.Service.uuid == uuid)

    @classmethod
    def get_by_id(cls, context, id):
        return cls._get_one(context,
                            exception.ServiceNotFound(service_id=id),
                            models.Service.id == id)

    @base.remotable
    def create(self):
        if not self.obj_attr_is_set('uuid'):
            self.uuid = uuidutils.generate_uuid()
        if not self.obj_attr_is_set('version'):
            self.version = SERVICE_VERSION
        values = base.changes_for_db(self, skip=('id',))
        now = base.utcnow()
        values.update(created_at=now, updated_at=now, last_seen_up=now,
                      deleted=0)
        try:
            with db.cell_session(self._context) as session:
                row = models.Service(**values)
                session.add(row)
                session.flush()
        except db.DBDuplicateEntry:
            raise exception.Conflict(reason='service %s on %s exists' %
                                     (self.binary, self.host))
        base.copy_from_row(self, row, _COLUMNS)

    @base.remotable
    def save(self):
        values = base.changes_for_db(self, skip=('id',))
        if not values:
            return
        values['updated_at'] = base.utcnow()
        with db.cell_session(self._context) as session:
            session.execute(sa.update(models.Service).where(
                models.Service.id == self.id).values(**values))
        self.updated_at = values['updated_at']
        self.obj_reset_changes()

    @base.remotable
    def heartbeat(self):
        """Record that the service is alive; returns the stored record."""
        now = base.utcnow()
        with db.cell_session(self._context) as session:
            session.execute(sa.update(models.Service).where(
                models.Service.id == self.id).values(
                    report_count=models.Service.report_count + 1,
                    last_seen_up=now, updated_at=now))
            row = session.get(models.Service, self.id)
            base.copy_from_row(self, row, _COLUMNS)

    @classmethod
    @base.remotable
    def heartbeat_many(cls, context, ids):
        """Record that the services ``ids`` are alive, in one statement:
        the heartbeat of a process that hosts many of them
        (nova-lite-fake-computes), instead of one call each. Running it
        twice only counts a report twice. Returns how many live records
        it found; a deleted service is not brought back."""
        # It comes from a compute over RPC: a list of record ids, or a
        # refusal the caller can read.
        if not isinstance(ids, (list, tuple)) or not all(
                isinstance(i, int) and not isinstance(i, bool)
                for i in ids):
            raise exception.InvalidRPCMessage(
                reason='heartbeat_many: ids must be a list of service '
                       'record ids (integers)')
        if not ids:
            return 0
        now = base.utcnow()
        with db.cell_session(context) as session:
            result = session.execute(sa.update(models.Service).where(
                models.Service.id.in_(ids),
                models.Service.deleted == 0).values(
                    report_count=models.Service.report_count + 1,
                    last_seen_up=now, updated_at=now),
                execution_options=db.NO_SYNC)
        return result.rowcount

    @base.remotable
    def destroy(self):
        now = base.utcnow()
        with db.cell_session(self._context) as session:
            session.execute(sa.update(models.Service).where(
                models.Service.id == self.id).values(
                    deleted=models.Service.id, deleted_at=now))
        self.deleted = True

    @classmethod
    @base.remotable
    def get_minimum_version(cls, context, binary):
        with db.cell_session(context) as session:
            value = session.execute(sa.select(
                sa.func.min(models.Service.version)).where(
                    models.Service.binary == binary,
                    models.Service.deleted == 0,
                    models.Service.forced_down == sa.false())).scalar()
        return value or 0


# What a scheduler reads of every compute service for each request:
# whether it is enabled, and whether it is up, as plain rows. A thousand
# Service objects cost it more than the rest of its decision, and so did
# reading the three times servicegroup.service_is_up looks at (a
# thousand rows' datetimes to parse): the database compares them.
ServiceState = collections.namedtuple('ServiceState', (
    'host', 'disabled', 'disabled_reason', 'forced_down', 'up'))


def _up(table, now):
    """servicegroup.service_is_up as an SQL expression on ``table``'s
    columns at ``now`` (naive UTC): not forced down, and its last sign
    of life (last heartbeat, else last update, else creation) at most
    service_down_time away from now. (tests/unit/objects/
    test_service_states.py holds the two to the same answers.)"""
    last = sa.func.coalesce(table.c.last_seen_up, table.c.updated_at,
                            table.c.created_at)
    window = datetime.timedelta(seconds=CONF.service_down_time)
    # (No time at all: BETWEEN on NULL is not true, so down.)
    return sa.and_(table.c.forced_down == sa.false(),
                   last.between(now - window, now + window))


def service_states(context, binary):
    """{host: ServiceState} of the live services of ``binary`` in the
    cell ``context`` targets, up as of now."""
    table = models.Service.__table__
    up = _up(table, timeutils.utcnow().replace(tzinfo=None))
    columns = (table.c.host, table.c.disabled, table.c.forced_down,
               sa.case((up, 1), else_=0), table.c.disabled_reason)
    where = (table.c.deleted == 0, table.c.binary == binary)
    with db.cell_session(context) as session:
        found = packed.rows(session, packed.statement(columns, *where,
                                                      table=table))
        if found is None:
            found = session.execute(sa.select(*columns).where(*where)).all()
        else:
            # As text: '1' or '0', and '' for no reason.
            found = [(host, disabled == '1', forced_down == '1',
                      is_up == '1', reason or None)
                     for host, disabled, forced_down, is_up, reason in found]
    return {host: ServiceState(host, bool(disabled), reason,
                               bool(forced_down), bool(is_up))
            for host, disabled, forced_down, is_up, reason in found}


@base.NovaLiteObjectRegistry.register
class ServiceList(base.ObjectListBase, base.NovaLiteObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {'objects': fields.ListOfObjectsField('Service')}

    @classmethod
    @db.retried
    def get_all(cls, context, binary=None, host=None):
        query = sa.select(models.Service).where(
            models.Service.deleted == 0).order_by(models.Service.id)
        if binary is not None:
            query = query.where(models.Service.binary == binary)
        if host is not None:
            query = query.where(models.Service.host == host)
        with db.cell_session(context) as session:
            rows = list(session.execute(query).scalars())
        return cls(context, objects=[Service._from_db(context, r)
                                     for r in rows])
