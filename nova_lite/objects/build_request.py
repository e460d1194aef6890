"""BuildRequest: an instance accepted by the API but not yet in a cell.

It holds the whole Instance object serialized, so the API can list and
show the server while it is being scheduled; the conductor deletes it once
the instance exists in a cell. A delete of the BuildRequest by the API
while the conductor works is how a user cancels a build.
"""

from oslo_serialization import jsonutils
from oslo_versionedobjects import fields
import sqlalchemy as sa
from sqlalchemy import exc as sa_exc

from nova_lite.db import api as db
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
    def get_by_instance_uuid(cls, context, instance_uuid):
        with db.api_session() as session:
            row = session.execute(sa.select(models.BuildRequest).where(
                models.BuildRequest.instance_uuid == instance_uuid)
            ).scalar_one_or_none()
        if row is None:
            raise exception.BuildRequestNotFound(uuid=instance_uuid)
        return cls._from_db(context, row)

    def create(self):
        now = base.utcnow()
        row = models.BuildRequest(
            instance_uuid=self.instance_uuid, project_id=self.project_id,
            instance=jsonutils.dumps(self.instance.obj_to_primitive()),
            created_at=now, updated_at=now)
        try:
            with db.api_session() as session:
                session.add(row)
                session.flush()
        except sa_exc.IntegrityError:
            raise exception.Conflict(reason='build request for %s exists' %
                                     self.instance_uuid)
        self.id = row.id
        self.created_at = self.updated_at = now
        self.obj_reset_changes()

    @classmethod
    def claim(cls, context, instance_uuid, stale_before=None):
        """Take the build of ``instance_uuid`` on; True when the caller now
        owns it. Nobody owns a request the API just wrote: the conductor
        that receives its cast claims it. With ``stale_before`` (a naive
        UTC time) a request is also taken over when its owner claimed it
        before that time -- or when nobody ever did and it was accepted
        before then: its conductor is gone, or its cast was lost.

        One UPDATE whose condition is the claim itself, so of several
        conductors trying at once exactly one wins.
        """
        table = models.BuildRequest
        taken = table.claimed_at.is_(None)
        if stale_before is not None:
            taken = sa.or_(
                sa.and_(table.claimed_at.is_(None),
                        table.created_at < stale_before),
                table.claimed_at < stale_before)
        with db.api_session() as session:
            result = session.execute(
                sa.update(table)
                .where(table.instance_uuid == instance_uuid, taken)
                .values(claimed_at=base.utcnow()))
        return result.rowcount == 1

    def destroy(self):
        """Delete the request; BuildRequestNotFound if someone else did."""
        with db.api_session() as session:
            result = session.execute(sa.delete(models.BuildRequest).where(
                models.BuildRequest.instance_uuid == self.instance_uuid))
        if not result.rowcount:
            raise exception.BuildRequestNotFound(uuid=self.instance_uuid)


@base.NovaLiteObjectRegistry.register
class BuildRequestList(base.ObjectListBase, base.NovaLiteObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {'objects': fields.ListOfObjectsField('BuildRequest')}

    @classmethod
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
    def get_stale(cls, context, stale_before, limit=50):
        """The requests that ``BuildRequest.claim(..., stale_before)``
        would take over: claimed before ``stale_before``, or never claimed
        and accepted before it. Oldest first."""
        table = models.BuildRequest
        query = (sa.select(table).where(sa.or_(
            sa.and_(table.claimed_at.is_(None),
                    table.created_at < stale_before),
            table.claimed_at < stale_before))
            .order_by(table.id).limit(limit))
        with db.api_session() as session:
            rows = list(session.execute(query).scalars())
        return cls(context, objects=[BuildRequest._from_db(context, r)
                                     for r in rows])
