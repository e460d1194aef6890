"""BuildRequest: an instance accepted by the API but not yet in a cell.

It holds the whole Instance object serialized, so the API can list and
show the server while it is being scheduled; the conductor deletes it once
the instance exists in a cell. A delete of the BuildRequest by the API
while the conductor works is how a user cancels a build.
"""

from oslo_serialization import jsonutils
from oslo_versionedobjects import fields
import sqlalchemy as sa

from nova_lite.db import api as db
from nova_lite.db import clock
from nova_lite.db import api_models as models
from nova_lite import exception
from nova_lite.objects import base
from nova_lite.objects import instance as instance_obj


@base.NovaLiteObjectRegistry.register
class BuildRequest(base.NovaLiteObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = dict(base.NovaLiteTimestampObject.fields, **{
        'id': fields.IntegerField(),
        'instance_uuid': fields.UUIDField(),
        'project_id': fields.StringField(),
        'instance': fields.ObjectField('Instance'),
    })

    @classmethod
    def _from_db(cls, context, row):
        instance = instance_obj.Instance.obj_from_primitive(
            jsonutils.loads(row.instance))
        instance._context = context
        instance.obj_reset_changes(recursive=True)
        request = cls(context, id=row.id, instance_uuid=row.instance_uuid,
                      project_id=row.project_id, instance=instance,
                      created_at=row.created_at, updated_at=row.updated_at)
        request.obj_reset_changes()
        return request

    @classmethod
    @db.retried
    def get_by_instance_uuid(cls, context, instance_uuid):
        with db.api_session() as session:
            row = session.execute(sa.select(models.BuildRequest).where(
                models.BuildRequest.instance_uuid == instance_uuid)
            ).scalar_one_or_none()
        if row is None:
            raise exception.BuildRequestNotFound(uuid=instance_uuid)
        return cls._from_db(context, row)

    @db.retried
    def create(self):
        now = base.utcnow()
        row = models.BuildRequest(**self._new_row(now))
        try:
            with db.api_session() as session:
                session.add(row)
                session.flush()
        except db.DBDuplicateEntry:
            raise exception.Conflict(reason='build request for %s exists' %
                                     self.instance_uuid)
        self._created(row.id, now)

    def _new_row(self, now):
        """The column values of the row ``create`` adds."""
        return dict(
            instance_uuid=self.instance_uuid, project_id=self.project_id,
            instance=jsonutils.dumps(self.instance.obj_to_primitive()),
            created_at=now, updated_at=now)

    def _created(self, row_id, now):
        self.id = row_id
        self.created_at = self.updated_at = now
        self.obj_reset_changes()

    @classmethod
    @db.retried
    def create_all(cls, context, build_requests, specs, mappings):
        """The API database's records of new servers -- the ``create``
        of each of their request specs, build requests and instance
        mappings -- in one transaction: a multi-row INSERT into each
        table and a read of the rows' ids. Nothing is written if any of
        it fails (Conflict: a server of these has records already)."""
        if not build_requests:
            return
        now = base.utcnow()
        uuids = [request.instance_uuid for request in build_requests]
        tables = [(models.RequestSpec.__table__, specs),
                  (models.BuildRequest.__table__, build_requests),
                  (models.InstanceMapping.__table__, mappings)]
        ids = []
        try:
            with db.api_session() as session:
                for table, records in tables:
                    session.execute(sa.insert(table),
                                    [r._new_row(now) for r in records])
                    ids.append(dict(session.execute(
                        sa.select(table.c.instance_uuid, table.c.id)
                        .where(table.c.instance_uuid.in_(uuids))).all()))
        except db.DBDuplicateEntry:
            raise exception.Conflict(
                reason='records of %s exist' % ', '.join(uuids))
        spec_ids, request_ids, mapping_ids = ids
        for spec in specs:
            spec._created(spec_ids[spec.instance_uuid])
        for request in build_requests:
            request._created(request_ids[request.instance_uuid], now)
        for mapping in mappings:
            mapping._created(mapping_ids[mapping.instance_uuid])

    @classmethod
    @db.retried
    def claim(cls, context, instance_uuid, owner, timeout=None):
        """Take the build of ``instance_uuid`` on for ``owner``; True when
        ``owner`` now holds its lease. Nobody owns a request the API just
        wrote: the conductor that receives its cast claims it. With
        ``timeout`` (seconds) a request is also taken over when its owner
        has not renewed its lease for that long by the database's clock --
        or when nobody ever claimed it and it was accepted that long ago:
        its conductor is gone, or its cast was lost.

        One UPDATE whose condition is the claim itself, so of several
        conductors trying at once exactly one wins; the loser's later
        steps, conditional on the owner (``holds``, ``destroy``), fail.
        """
        table = models.BuildRequest
        taken = table.claimed_at.is_(None)
        if timeout is not None:
            cutoff = clock.utc_now(-timeout)
            taken = sa.or_(
                sa.and_(table.claimed_at.is_(None),
                        table.created_at < cutoff),
                table.claimed_at < cutoff)
        with db.api_session() as session:
            result = session.execute(
                sa.update(table)
                .where(table.instance_uuid == instance_uuid, taken)
                .values(claimed_at=clock.utc_now(), owner=owner),
                execution_options=db.NO_SYNC)
        return result.rowcount == 1

    @classmethod
    @db.retried
    def claim_new(cls, context, instance_uuids, owner):
        """``claim`` (without a timeout) of several builds at once: the
        uuids of those ``owner`` now holds. One UPDATE claims every one
        nobody holds yet, as ``claim`` would each; when it did not claim
        them all, a SELECT in the same transaction reads which are
        ``owner``'s (an owner name is one task's only). So a run again
        after a lost connection (``db.retried``) whose first run did
        commit answers what that run claimed."""
        if not instance_uuids:
            return set()
        table = models.BuildRequest
        uuids = sorted(instance_uuids)
        with db.api_session() as session:
            result = session.execute(
                sa.update(table)
                .where(table.instance_uuid.in_(uuids),
                       table.claimed_at.is_(None))
                .values(claimed_at=clock.utc_now(), owner=owner),
                execution_options=db.NO_SYNC)
            return _held(session, result, uuids, owner)

    @classmethod
    def holds(cls, context, instance_uuid, owner):
        """Renew ``owner``'s lease on the build of ``instance_uuid``; False
        when it no longer has one (taken over, or deleted by its user).
        Called before each step of a build that changes a record, so a
        conductor that lost the build changes nothing of its new owner's.
        """
        return cls.renew(context, [instance_uuid], owner) == 1

    @classmethod
    @db.retried
    def renew(cls, context, instance_uuids, owner):
        """Renew ``owner``'s leases on these builds; how many it held."""
        if not instance_uuids:
            return 0
        table = models.BuildRequest
        with db.api_session() as session:
            result = session.execute(
                sa.update(table)
                .where(table.instance_uuid.in_(sorted(instance_uuids)),
                       table.owner == owner)
                .values(claimed_at=clock.utc_now()),
                execution_options=db.NO_SYNC)
        return result.rowcount

    @db.retried
    def destroy(self, owner=None):
        """Delete the request; BuildRequestNotFound if someone else did.
        With ``owner``, only while ``owner`` holds it: BuildTakenOver if
        another conductor has it now."""
        table = models.BuildRequest
        query = sa.delete(table).where(
            table.instance_uuid == self.instance_uuid)
        if owner is not None:
            query = query.where(table.owner == owner)
        with db.api_session() as session:
            if session.execute(query,
                               execution_options=db.NO_SYNC).rowcount:
                return
            raise_not_held(session, self.instance_uuid)

    @classmethod
    @db.retried
    def record_flow(cls, context, instance_uuid, owner, flow):
        """Store ``flow`` (JSON-able: the build's action and the steps
        its owner has started) and renew the owner's lease, in one
        UPDATE that holds only while ``owner`` owns the build:
        BuildTakenOver or BuildRequestNotFound otherwise."""
        with db.api_session() as session:
            record_flow_in(session, instance_uuid, owner, flow)

    @classmethod
    @db.retried
    def record_flows(cls, context, instance_uuids, owner, flow):
        """``record_flow`` of the same ``flow`` for several builds, in one
        UPDATE: the uuids of those ``owner`` holds, whose flow it
        recorded (as ``claim_new``, a SELECT reads which when it did not
        record them all)."""
        if not instance_uuids:
            return set()
        table = models.BuildRequest
        uuids = sorted(instance_uuids)
        with db.api_session() as session:
            result = session.execute(
                sa.update(table)
                .where(table.instance_uuid.in_(uuids),
                       table.owner == owner)
                .values(flow=jsonutils.dumps(flow),
                        claimed_at=clock.utc_now()),
                execution_options=db.NO_SYNC)
            return _held(session, result, uuids, owner)

    @classmethod
    @db.retried
    def destroy_all(cls, context, instance_uuids, owner):
        """``destroy(owner=owner)`` of several build requests in one
        DELETE, all or none: False, and nothing deleted, unless ``owner``
        held every one (the caller then destroys each, which says why one
        could not be)."""
        table = models.BuildRequest
        uuids = sorted(instance_uuids)
        try:
            with db.api_session() as session:
                result = session.execute(
                    sa.delete(table).where(table.instance_uuid.in_(uuids),
                                           table.owner == owner),
                    execution_options=db.NO_SYNC)
                if result.rowcount != len(uuids):
                    raise NotAll()
        except NotAll:
            return False
        return True

    @classmethod
    @db.retried
    def get_flow(cls, context, instance_uuid):
        """The flow its owner recorded (None: nothing recorded)."""
        table = models.BuildRequest
        with db.api_session() as session:
            value = session.execute(sa.select(table.flow).where(
                table.instance_uuid == instance_uuid)).scalar_one_or_none()
        return jsonutils.loads(value) if value else None


def _held(session, result, uuids, owner):
    """Which of ``uuids`` ``owner`` holds, after ``result``, an UPDATE of
    theirs conditional on it: all when it changed every one, else read in
    its transaction."""
    if result.rowcount == len(uuids):
        return set(uuids)
    table = models.BuildRequest
    return set(session.execute(
        sa.select(table.instance_uuid)
        .where(table.instance_uuid.in_(uuids),
               table.owner == owner)).scalars())


def record_flow_in(session, instance_uuid, owner, flow):
    """``BuildRequest.record_flow`` in the caller's transaction on the API
    database: until it ends, the build request's row is locked, so the
    build stays ``owner``'s for the rest of the transaction."""
    table = models.BuildRequest
    result = session.execute(
        sa.update(table)
        .where(table.instance_uuid == instance_uuid, table.owner == owner)
        .values(flow=jsonutils.dumps(flow), claimed_at=clock.utc_now()),
        execution_options=db.NO_SYNC)
    if not result.rowcount:
        raise_not_held(session, instance_uuid)


def record_flows_in(session, instance_uuids, owner, flow):
    """``record_flow_in`` of the same ``flow`` for several builds, in one
    UPDATE: whether ``owner`` held every one (if not, the caller rolls
    the transaction back)."""
    table = models.BuildRequest
    result = session.execute(
        sa.update(table)
        .where(table.instance_uuid.in_(sorted(instance_uuids)),
               table.owner == owner)
        .values(flow=jsonutils.dumps(flow), claimed_at=clock.utc_now()),
        execution_options=db.NO_SYNC)
    return result.rowcount == len(instance_uuids)


class NotAll(Exception):
    """Raised in a transaction to roll it back: a statement meant for
    several builds did not apply to every one."""


def raise_not_held(session, instance_uuid):
    table = models.BuildRequest
    found = session.execute(sa.select(table.owner).where(
        table.instance_uuid == instance_uuid)).first()
    if found is not None:
        raise exception.BuildTakenOver(uuid=instance_uuid, owner=found.owner)
    raise exception.BuildRequestNotFound(uuid=instance_uuid)


@base.NovaLiteObjectRegistry.register
class BuildRequestList(base.ObjectListBase, base.NovaLiteObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {'objects': fields.ListOfObjectsField('BuildRequest')}

    @classmethod
    @db.retried
    def get_all(cls, context, project_id=None):
        query = sa.select(models.BuildRequest).order_by(
            models.BuildRequest.id)
        if project_id is not None:
            query = query.where(models.BuildRequest.project_id == project_id)
        with db.api_session() as session:
            rows = list(session.execute(query).scalars())
        return cls(context, objects=[BuildRequest._from_db(context, r)
                                     for r in rows])

    @classmethod
    @db.retried
    def pending_among(cls, context, instance_uuids):
        """Which of ``instance_uuids`` still have a build request: their
        build belongs to its conductor (and its lease), even once the
        instance exists in a cell."""
        if not instance_uuids:
            return set()
        table = models.BuildRequest
        with db.api_session() as session:
            return set(session.execute(sa.select(table.instance_uuid).where(
                table.instance_uuid.in_(sorted(instance_uuids)))).scalars())

    @classmethod
    @db.retried
    def get_stale(cls, context, timeout, limit=50):
        """The requests that ``BuildRequest.claim(..., timeout=timeout)``
        would take over: a lease not renewed for ``timeout`` seconds, or
        never claimed and accepted that long ago. Oldest first."""
        table = models.BuildRequest
        cutoff = clock.utc_now(-timeout)
        query = (sa.select(table).where(sa.or_(
            sa.and_(table.claimed_at.is_(None),
                    table.created_at < cutoff),
            table.claimed_at < cutoff))
            .order_by(table.id).limit(limit))
        with db.api_session() as session:
            rows = list(session.execute(query).scalars())
        return cls(context, objects=[BuildRequest._from_db(context, r)
                                     for r in rows])
