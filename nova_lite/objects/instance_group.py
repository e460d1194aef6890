"""InstanceGroup: a server group, the unit of affinity policies.

A group has exactly one policy -- ``affinity`` and ``anti-affinity`` (hard:
filters refuse hosts that break them) or ``soft-affinity`` and
``soft-anti-affinity`` (weighers prefer hosts that keep them) -- and may
carry rules (``max_server_per_host`` for anti-affinity). ``members`` are
instance uuids; ``hosts`` is filled by the scheduler with the hosts the
members run on, and grows as a multi-create places its instances.

Groups and their members live in the API database (``instance_groups``,
``instance_group_members``); ``hosts`` is never stored, the scheduler
computes it. A group travels to the scheduler inside the RequestSpec.
"""

from oslo_serialization import jsonutils
from oslo_utils import uuidutils
from oslo_versionedobjects import fields
import sqlalchemy as sa

from nova_lite.db import api as db
from nova_lite.db import api_models as models
from nova_lite import exception
from nova_lite.objects import base

AFFINITY = 'affinity'
ANTI_AFFINITY = 'anti-affinity'
SOFT_AFFINITY = 'soft-affinity'
SOFT_ANTI_AFFINITY = 'soft-anti-affinity'
POLICIES = (AFFINITY, ANTI_AFFINITY, SOFT_AFFINITY, SOFT_ANTI_AFFINITY)


@base.NovaLiteObjectRegistry.register
class InstanceGroup(base.NovaLiteObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'id': fields.IntegerField(),
        'uuid': fields.UUIDField(),
        'name': fields.StringField(nullable=True),
        'user_id': fields.StringField(nullable=True),
        'project_id': fields.StringField(nullable=True),
        'policy': fields.StringField(),
        'rules': fields.DictOfStringsField(default={}),
        'members': fields.ListOfStringsField(default=[]),
        'hosts': fields.ListOfStringsField(default=[]),
    }

    lazy_defaults = {'rules': {}, 'members': [], 'hosts': [], 'name': None,
                     'user_id': None, 'project_id': None}

    @property
    def max_server_per_host(self):
        """The anti-affinity rule (1 when not set)."""
        try:
            return max(1, int(self.rules.get('max_server_per_host', 1)))
        except (TypeError, ValueError):
            return 1

    def add_placement(self, host, instance_uuid=None):
        """Record that a member now runs on ``host`` (a multi-create's
        next instance must see it)."""
        if host not in self.hosts:
            self.hosts = self.hosts + [host]
        if instance_uuid and instance_uuid not in self.members:
            self.members = self.members + [instance_uuid]

    # -- persistence (API database) ----------------------------------------

    @staticmethod
    def _from_db(context, group, row, members):
        base.copy_from_row(group, row, ('id', 'uuid', 'name', 'user_id',
                                        'project_id', 'policy'))
        group.rules = jsonutils.loads(row.rules) if row.rules else {}
        group.members = list(members)
        group._context = context
        group.obj_reset_changes()
        return group

    @staticmethod
    def _members_of(session, group_ids):
        """{group id: [instance uuid, ...]} in the order they joined."""
        found = {group_id: [] for group_id in group_ids}
        if not group_ids:
            return found
        rows = session.execute(
            sa.select(models.InstanceGroupMember.group_id,
                      models.InstanceGroupMember.instance_uuid)
            .where(models.InstanceGroupMember.group_id.in_(group_ids))
            .order_by(models.InstanceGroupMember.id))
        for group_id, instance_uuid in rows:
            found[group_id].append(instance_uuid)
        return found

    @staticmethod
    def _row_by_uuid(session, uuid, lock=False):
        query = sa.select(models.InstanceGroup).where(
            models.InstanceGroup.uuid == uuid)
        if lock:
            query = query.with_for_update()
        row = session.execute(query).scalar_one_or_none()
        if row is None:
            raise exception.InstanceGroupNotFound(group_uuid=uuid)
        return row

    @classmethod
    @db.retried
    def get_by_uuid(cls, context, uuid):
        """The group ``uuid`` with its members; InstanceGroupNotFound."""
        if not uuidutils.is_uuid_like(uuid):
            raise exception.InstanceGroupNotFound(group_uuid=uuid)
        with db.api_session() as session:
            row = cls._row_by_uuid(session, uuid)
            members = cls._members_of(session, [row.id])[row.id]
        return cls._from_db(context, cls(), row, members)

    @classmethod
    @db.retried
    def get_by_instance_uuid(cls, context, instance_uuid):
        """The group the server ``instance_uuid`` is a member of, or
        None."""
        with db.api_session() as session:
            group_id = session.execute(
                sa.select(models.InstanceGroupMember.group_id).where(
                    models.InstanceGroupMember.instance_uuid ==
                    instance_uuid)
                .order_by(models.InstanceGroupMember.id)).scalars().first()
            if group_id is None:
                return None
            row = session.get(models.InstanceGroup, group_id)
            members = cls._members_of(session, [group_id])[group_id]
        return cls._from_db(context, cls(), row, members)

    @db.retried
    def create(self):
        """Store a new group (a uuid is generated when none is set) and
        the members it was given."""
        if self.obj_attr_is_set('id'):
            raise exception.ObjectActionError(action='create',
                                              reason='already created')
        if self.policy not in POLICIES:
            raise exception.ObjectActionError(
                action='create', reason='unknown policy %r' % self.policy)
        if not self.obj_attr_is_set('uuid'):
            self.uuid = uuidutils.generate_uuid()
        now = base.utcnow()
        with db.api_session() as session:
            row = models.InstanceGroup(
                uuid=self.uuid, name=self.name, user_id=self.user_id,
                project_id=self.project_id, policy=self.policy,
                rules=jsonutils.dumps(dict(self.rules)) if self.rules
                else None,
                created_at=now, updated_at=now)
            session.add(row)
            session.flush()
            for instance_uuid in self.members:
                session.add(models.InstanceGroupMember(
                    group_id=row.id, instance_uuid=instance_uuid,
                    created_at=now))
            session.flush()
        self._from_db(self._context, self, row, self.members)

    @db.retried
    def destroy(self):
        """Delete the group and its memberships (not the servers)."""
        with db.api_session() as session:
            row = self._row_by_uuid(session, self.uuid)
            session.execute(sa.delete(models.InstanceGroupMember).where(
                models.InstanceGroupMember.group_id == row.id))
            session.execute(sa.delete(models.InstanceGroup).where(
                models.InstanceGroup.id == row.id))

    @classmethod
    @db.retried
    def add_members(cls, context, group_uuid, instance_uuids,
                    max_members=-1):
        """Make the servers members of the group; return the uuids that
        were not members yet. InstanceGroupNotFound if the group is gone;
        ServerGroupMemberQuotaExceeded (nothing added) if the group would
        hold more than ``max_members`` (-1: no limit). The group row is
        locked meanwhile, so concurrent boots into one group are counted
        one after the other."""
        now = base.utcnow()
        try:
            with db.api_session() as session:
                row = cls._row_by_uuid(session, group_uuid, lock=True)
                present = set(cls._members_of(session, [row.id])[row.id])
                new = [u for u in dict.fromkeys(instance_uuids)
                       if u not in present]
                if 0 <= max_members < len(present) + len(new):
                    raise exception.ServerGroupMemberQuotaExceeded(
                        group=group_uuid, used=len(present),
                        requested=len(new), limit=max_members)
                added = []
                for instance_uuid in new:
                    session.add(models.InstanceGroupMember(
                        group_id=row.id, instance_uuid=instance_uuid,
                        created_at=now))
                    added.append(instance_uuid)
                session.flush()
        except db.DBReferenceError:
            # The group was deleted between our read and our insert.
            raise exception.InstanceGroupNotFound(group_uuid=group_uuid)
        except db.DBDuplicateEntry:
            raise exception.Conflict(
                reason='another request added the same members to server '
                       'group %s at the same time' % group_uuid)
        return added

    @classmethod
    @db.retried
    def remove_members(cls, context, group_uuid, instance_uuids):
        """Drop the servers from the group (no error for non-members or
        a group that is already gone)."""
        if not instance_uuids:
            return
        with db.api_session() as session:
            group_ids = sa.select(models.InstanceGroup.id).where(
                models.InstanceGroup.uuid == group_uuid)
            session.execute(sa.delete(models.InstanceGroupMember).where(
                models.InstanceGroupMember.group_id.in_(group_ids),
                models.InstanceGroupMember.instance_uuid.in_(
                    list(instance_uuids))))


@base.NovaLiteObjectRegistry.register
class InstanceGroupList(base.ObjectListBase, base.NovaLiteObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {'objects': fields.ListOfObjectsField('InstanceGroup')}

    @classmethod
    @db.retried
    def count(cls, context, project_id):
        """How many groups ``project_id`` has."""
        with db.api_session() as session:
            return session.execute(
                sa.select(sa.func.count()).select_from(models.InstanceGroup)
                .where(models.InstanceGroup.project_id == project_id)
            ).scalar()

    @classmethod
    @db.retried
    def get_all(cls, context, project_id=None, limit=None, offset=None,
                marker=None):
        """The groups of ``project_id`` (None: every project), oldest
        first: those after the group ``marker`` (MarkerNotFound if it is
        not among them), ``offset`` skipped, at most ``limit``."""
        query = sa.select(models.InstanceGroup).order_by(
            models.InstanceGroup.id)
        if project_id is not None:
            query = query.where(models.InstanceGroup.project_id ==
                                project_id)
        with db.api_session() as session:
            if marker is not None:
                after = session.execute(query.with_only_columns(
                    models.InstanceGroup.id).where(
                        models.InstanceGroup.uuid == marker)).scalar()
                if after is None:
                    raise exception.MarkerNotFound(marker=marker)
                query = query.where(models.InstanceGroup.id > after)
            if offset:
                query = query.offset(offset)
            if limit is not None:
                query = query.limit(limit)
            rows = list(session.execute(query).scalars())
            members = InstanceGroup._members_of(session,
                                                [r.id for r in rows])
        return cls(context, objects=[
            InstanceGroup._from_db(context, InstanceGroup(), row,
                                   members[row.id]) for row in rows])
