"""Quota limits kept in the API database, and what a cell holds of them.

``ProjectQuotas`` are the limits an administrator set for one project
(``quotas``); ``QuotaClass`` those of a quota class (``quota_classes``),
of which only ``default`` is used: it holds the defaults of every
project. Both carry only the resources that have a row; what a limit is
when there is none is ``nova_lite.quota``'s business. ``count_instances``
adds up a project's servers in one cell database.
"""

from oslo_versionedobjects import fields
import sqlalchemy as sa

from nova_lite.db import api as db
from nova_lite.db import api_models as models
from nova_lite.db import main_models
from nova_lite import exception
from nova_lite.objects import base


@db.retried
def _read_limits(model, owner_column, owner):
    with db.api_session() as session:
        rows = session.execute(sa.select(model.resource, model.hard_limit)
                               .where(owner_column == owner))
        return {resource: hard_limit for resource, hard_limit in rows}


@db.retried
def _write_limits(model, owner_column, owner, limits):
    """Insert or update the rows of ``limits`` (resource -> limit) of
    ``owner`` in one transaction; Conflict if another writer inserted
    the same row meanwhile."""
    now = base.utcnow()
    try:
        with db.api_session() as session:
            present = set(session.execute(
                sa.select(model.resource).where(
                    owner_column == owner,
                    model.resource.in_(list(limits)))).scalars())
            for resource, hard_limit in limits.items():
                if resource in present:
                    session.execute(
                        sa.update(model).where(owner_column == owner,
                                               model.resource == resource)
                        .values(hard_limit=hard_limit, updated_at=now))
                else:
                    session.add(model(**{owner_column.key: owner,
                                         'resource': resource,
                                         'hard_limit': hard_limit,
                                         'created_at': now}))
            session.flush()
    except db.DBDuplicateEntry:
        raise exception.Conflict(
            reason='the quota of %s was changed by another request at the '
                   'same time; send the update again.' % owner)


@base.NovaLiteObjectRegistry.register
class ProjectQuotas(base.NovaLiteObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'project_id': fields.StringField(),
        # resource -> hard limit (-1: unlimited), only those with a row.
        'limits': fields.DictOfIntegersField(default={}),
    }

    @classmethod
    def get_by_project(cls, context, project_id):
        """The limits set for ``project_id`` (none set: empty limits)."""
        quotas = cls(context, project_id=project_id,
                     limits=_read_limits(models.Quota,
                                         models.Quota.project_id,
                                         project_id))
        quotas.obj_reset_changes()
        return quotas

    def update_limits(self, limits):
        """Set (insert or change) the limits of ``limits``; the others
        stay as they are."""
        _write_limits(models.Quota, models.Quota.project_id,
                      self.project_id, limits)
        self.limits = dict(self.limits, **limits)
        self.obj_reset_changes()

    @db.retried
    def destroy(self):
        """Forget every limit of the project: its defaults apply again."""
        with db.api_session() as session:
            session.execute(sa.delete(models.Quota).where(
                models.Quota.project_id == self.project_id))
        self.limits = {}
        self.obj_reset_changes()


@base.NovaLiteObjectRegistry.register
class QuotaClass(base.NovaLiteObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'name': fields.StringField(),
        # resource -> hard limit (-1: unlimited), only those with a row.
        'limits': fields.DictOfIntegersField(default={}),
    }

    @classmethod
    def get_by_name(cls, context, name):
        """The limits of the class ``name`` (none set: empty limits)."""
        quota_class = cls(context, name=name,
                          limits=_read_limits(models.QuotaClass,
                                              models.QuotaClass.class_name,
                                              name))
        quota_class.obj_reset_changes()
        return quota_class

    def update_limits(self, limits):
        """Set (insert or change) the limits of ``limits``; the others
        stay as they are."""
        _write_limits(models.QuotaClass, models.QuotaClass.class_name,
                      self.name, limits)
        self.limits = dict(self.limits, **limits)
        self.obj_reset_changes()


@db.retried
def count_instances(context, project_id, excluding=()):
    """(servers, vcpus, memory_mb) of ``project_id``'s live instances in
    the cell database ``context`` is aimed at, leaving out the uuids in
    ``excluding``; one aggregate query. DatabaseUnavailable."""
    instances = main_models.Instance
    query = sa.select(
        sa.func.count(instances.id),
        sa.func.coalesce(sa.func.sum(instances.vcpus), 0),
        sa.func.coalesce(sa.func.sum(instances.memory_mb), 0),
    ).where(instances.project_id == project_id, instances.deleted == 0)
    if excluding:
        query = query.where(instances.uuid.not_in(list(excluding)))
    with db.cell_session(context) as session:
        count, vcpus, memory_mb = session.execute(query).one()
    return int(count), int(vcpus), int(memory_mb)
