"""Aggregate: a named set of compute hosts with metadata (API database).

Operators group hosts into aggregates through ``/os-aggregates``; the
scheduler reads them on every request to fill each host state's
``aggregates``. The metadata key ``availability_zone`` makes an aggregate
an availability zone; other keys (``ssd=true``) are matched against flavor
extra specs by AggregateInstanceExtraSpecsFilter. A host may be in several
aggregates.

The rows live in ``aggregates``, ``aggregate_hosts`` and
``aggregate_metadata``. ``hosts`` and ``metadata`` change only through
``add_host``, ``delete_host`` and ``update_metadata``, each one
transaction; ``save`` stores the name.
"""

from oslo_utils import uuidutils
from oslo_versionedobjects import fields
import sqlalchemy as sa

from nova_lite.db import api as db
from nova_lite.db import api_models as models
from nova_lite import exception
from nova_lite.objects import base

AZ_KEY = 'availability_zone'

_COLUMNS = ('id', 'uuid', 'name', 'created_at', 'updated_at')


def _row_by_id(session, aggregate_id):
    row = session.get(models.Aggregate, aggregate_id)
    if row is None:
        raise exception.AggregateNotFound(aggregate_id=aggregate_id)
    return row


def _hosts_and_metadata(session, aggregate_ids):
    """{aggregate id: ([host, ...], {key: value})}, hosts in the order
    they joined."""
    found = {aggregate_id: ([], {}) for aggregate_id in aggregate_ids}
    if not aggregate_ids:
        return found
    hosts = session.execute(
        sa.select(models.AggregateHost.aggregate_id,
                  models.AggregateHost.host)
        .where(models.AggregateHost.aggregate_id.in_(aggregate_ids))
        .order_by(models.AggregateHost.id))
    for aggregate_id, host in hosts:
        found[aggregate_id][0].append(host)
    metadata = session.execute(
        sa.select(models.AggregateMetadata.aggregate_id,
                  models.AggregateMetadata.key,
                  models.AggregateMetadata.value)
        .where(models.AggregateMetadata.aggregate_id.in_(aggregate_ids)))
    for aggregate_id, key, value in metadata:
        found[aggregate_id][1][key] = value
    return found


def _touch(session, aggregate_id, now):
    session.execute(sa.update(models.Aggregate).where(
        models.Aggregate.id == aggregate_id).values(updated_at=now))


@base.NovaLiteObjectRegistry.register
class Aggregate(base.NovaLiteObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = dict(base.NovaLiteTimestampObject.fields, **{
        'id': fields.IntegerField(read_only=True),
        'uuid': fields.UUIDField(),
        'name': fields.StringField(),
        'hosts': fields.ListOfStringsField(default=[]),
        'metadata': fields.DictOfStringsField(default={}),
    })

    lazy_defaults = {'hosts': [], 'metadata': {}, 'created_at': None,
                     'updated_at': None}

    @property
    def availability_zone(self):
        """The zone this aggregate makes of its hosts, or None."""
        return self.metadata.get(AZ_KEY)

    @staticmethod
    def _from_db(context, aggregate, row, hosts, metadata):
        base.copy_from_row(aggregate, row, _COLUMNS)
        aggregate.hosts = list(hosts)
        aggregate.metadata = dict(metadata)
        aggregate._context = context
        aggregate.obj_reset_changes()
        return aggregate

    def _refresh(self, session):
        row = _row_by_id(session, self.id)
        hosts, metadata = _hosts_and_metadata(session, [row.id])[row.id]
        self._from_db(self._context, self, row, hosts, metadata)

    @classmethod
    @db.retried
    def get_by_id(cls, context, aggregate_id):
        """The aggregate ``aggregate_id``; AggregateNotFound."""
        with db.api_session() as session:
            row = _row_by_id(session, aggregate_id)
            hosts, metadata = _hosts_and_metadata(session, [row.id])[row.id]
        return cls._from_db(context, cls(), row, hosts, metadata)

    @classmethod
    @db.retried
    def get_by_uuid(cls, context, uuid):
        """The aggregate ``uuid``; AggregateNotFound."""
        with db.api_session() as session:
            row = session.execute(sa.select(models.Aggregate).where(
                models.Aggregate.uuid == uuid)).scalar_one_or_none()
            if row is None:
                raise exception.AggregateNotFound(aggregate_id=uuid)
            hosts, metadata = _hosts_and_metadata(session, [row.id])[row.id]
        return cls._from_db(context, cls(), row, hosts, metadata)

    @db.retried
    def create(self):
        """Store a new aggregate with the metadata and hosts it was given
        (a uuid is generated when none is set); AggregateNameExists."""
        if self.obj_attr_is_set('id'):
            raise exception.ObjectActionError(action='create',
                                              reason='already created')
        if not self.obj_attr_is_set('uuid'):
            self.uuid = uuidutils.generate_uuid()
        now = base.utcnow()
        try:
            with db.api_session() as session:
                row = models.Aggregate(uuid=self.uuid, name=self.name,
                                       created_at=now, updated_at=None)
                session.add(row)
                session.flush()
                for key, value in self.metadata.items():
                    session.add(models.AggregateMetadata(
                        aggregate_id=row.id, key=key, value=value,
                        created_at=now))
                for host in dict.fromkeys(self.hosts):
                    session.add(models.AggregateHost(
                        aggregate_id=row.id, host=host, created_at=now))
                session.flush()
        except db.DBDuplicateEntry:
            raise exception.AggregateNameExists(aggregate_name=self.name)
        self._from_db(self._context, self, row,
                      dict.fromkeys(self.hosts), self.metadata)

    @db.retried
    def save(self):
        """Store a new name; AggregateNameExists."""
        changed = self.obj_what_changed()
        if changed & {'hosts', 'metadata'}:
            raise exception.ObjectActionError(
                action='save', reason='hosts and metadata change through '
                                      'add_host, delete_host and '
                                      'update_metadata')
        if 'name' not in changed:
            return
        try:
            with db.api_session() as session:
                _row_by_id(session, self.id)
                session.execute(sa.update(models.Aggregate).where(
                    models.Aggregate.id == self.id).values(
                        name=self.name, updated_at=base.utcnow()))
                self._refresh(session)
        except db.DBDuplicateEntry:
            raise exception.AggregateNameExists(aggregate_name=self.name)

    @db.retried
    def destroy(self):
        """Delete the aggregate and its metadata; AggregateInUse while it
        still has hosts (checked in the same transaction, so a host added
        meanwhile is not dropped silently)."""
        with db.api_session() as session:
            _row_by_id(session, self.id)
            hosts = _hosts_and_metadata(session, [self.id])[self.id][0]
            if hosts:
                raise exception.AggregateInUse(aggregate_id=self.id,
                                               hosts=', '.join(hosts))
            session.execute(sa.delete(models.AggregateMetadata).where(
                models.AggregateMetadata.aggregate_id == self.id))
            session.execute(sa.delete(models.Aggregate).where(
                models.Aggregate.id == self.id))

    @db.retried
    def add_host(self, host):
        """Make ``host`` a member; AggregateHostExists if it is one."""
        now = base.utcnow()
        try:
            with db.api_session() as session:
                _row_by_id(session, self.id)
                present = session.execute(
                    sa.select(models.AggregateHost.id).where(
                        models.AggregateHost.aggregate_id == self.id,
                        models.AggregateHost.host == host)).first()
                if present is not None:
                    raise exception.AggregateHostExists(
                        aggregate_id=self.id, host=host)
                session.add(models.AggregateHost(
                    aggregate_id=self.id, host=host, created_at=now))
                _touch(session, self.id, now)
                session.flush()
                self._refresh(session)
        except (db.DBDuplicateEntry, db.DBReferenceError):
            # Someone added it (or deleted the aggregate) since we looked.
            self.get_by_id(self._context, self.id)
            raise exception.AggregateHostExists(aggregate_id=self.id,
                                                host=host)

    @db.retried
    def delete_host(self, host):
        """Drop ``host``; AggregateHostNotFound if it is no member."""
        now = base.utcnow()
        with db.api_session() as session:
            _row_by_id(session, self.id)
            removed = session.execute(sa.delete(models.AggregateHost).where(
                models.AggregateHost.aggregate_id == self.id,
                models.AggregateHost.host == host)).rowcount
            if not removed:
                raise exception.AggregateHostNotFound(aggregate_id=self.id,
                                                      host=host)
            _touch(session, self.id, now)
            self._refresh(session)

    @db.retried
    def update_metadata(self, updates):
        """Set each key of ``updates`` to its value, or remove it where
        the value is None (removing an absent key is no error)."""
        now = base.utcnow()
        with db.api_session() as session:
            _row_by_id(session, self.id)
            current = _hosts_and_metadata(session, [self.id])[self.id][1]
            removed = [key for key, value in updates.items()
                       if value is None]
            if removed:
                session.execute(sa.delete(models.AggregateMetadata).where(
                    models.AggregateMetadata.aggregate_id == self.id,
                    models.AggregateMetadata.key.in_(removed)))
            for key, value in updates.items():
                if value is None:
                    continue
                if key in current:
                    session.execute(sa.update(models.AggregateMetadata).where(
                        models.AggregateMetadata.aggregate_id == self.id,
                        models.AggregateMetadata.key == key).values(
                            value=value, updated_at=now))
                else:
                    session.add(models.AggregateMetadata(
                        aggregate_id=self.id, key=key, value=value,
                        created_at=now))
            _touch(session, self.id, now)
            session.flush()
            self._refresh(session)


@base.NovaLiteObjectRegistry.register
class AggregateList(base.ObjectListBase, base.NovaLiteObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {'objects': fields.ListOfObjectsField('Aggregate')}

    @classmethod
    @db.retried
    def _get(cls, context, query):
        with db.api_session() as session:
            rows = list(session.execute(
                query.order_by(models.Aggregate.id)).scalars())
            details = _hosts_and_metadata(session, [r.id for r in rows])
        return cls(context, objects=[
            Aggregate._from_db(context, Aggregate(), row, *details[row.id])
            for row in rows])

    @classmethod
    def get_all(cls, context):
        """Every aggregate, oldest first (three queries)."""
        return cls._get(context, sa.select(models.Aggregate))

    @classmethod
    def get_by_host(cls, context, host):
        """The aggregates ``host`` is a member of, oldest first."""
        member_of = sa.select(models.AggregateHost.aggregate_id).where(
            models.AggregateHost.host == host)
        return cls._get(context, sa.select(models.Aggregate).where(
            models.Aggregate.id.in_(member_of)))
