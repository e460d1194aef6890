"""Flavor: the size of an instance (API database)."""

from oslo_versionedobjects import fields
import sqlalchemy as sa

from nova_lite.db import api as db
from nova_lite.db import api_models as models
from nova_lite import exception
from nova_lite.objects import base

_COLUMNS = ('id', 'flavorid', 'name', 'memory_mb', 'vcpus', 'root_gb',
            'ephemeral_gb', 'swap', 'rxtx_factor', 'is_public', 'disabled',
            'description', 'created_at', 'updated_at')


@base.NovaLiteObjectRegistry.register
class Flavor(base.NovaLiteObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = dict(base.NovaLiteTimestampObject.fields, **{
        'id': fields.IntegerField(),
        'flavorid': fields.StringField(),
        'name': fields.StringField(),
        'memory_mb': fields.IntegerField(),
        'vcpus': fields.IntegerField(),
        'root_gb': fields.IntegerField(),
        'ephemeral_gb': fields.IntegerField(),
        'swap': fields.IntegerField(),
        'rxtx_factor': fields.FloatField(default=1.0),
        'is_public': fields.BooleanField(default=True),
        'disabled': fields.BooleanField(default=False),
        'description': fields.StringField(nullable=True),
        'extra_specs': fields.DictOfStringsField(default={}),
        'projects': fields.ListOfStringsField(default=[]),
    })

    # A flavor built in code (not read from the database) has no extra
    # specs or project access unless given.
    lazy_defaults = {'extra_specs': {}, 'projects': [], 'description': None}

    @staticmethod
    def _from_db(context, flavor, row, session):
        base.copy_from_row(flavor, row, _COLUMNS)
        specs = session.execute(sa.select(models.FlavorExtraSpec).where(
            models.FlavorExtraSpec.flavor_id == row.id)).scalars()
        flavor.extra_specs = {s.key: s.value for s in specs}
        projects = session.execute(sa.select(models.FlavorProject).where(
            models.FlavorProject.flavor_id == row.id)).scalars()
        flavor.projects = [p.project_id for p in projects]
        flavor._context = context
        flavor.obj_reset_changes()
        return flavor

    @classmethod
    @db.retried
    def _get_by(cls, context, column, value):
        with db.api_session() as session:
            row = session.execute(sa.select(models.Flavor).where(
                column == value)).scalar_one_or_none()
            if row is None:
                raise exception.FlavorNotFound(flavor_id=value)
            return cls._from_db(context, cls(), row, session)

    @classmethod
    def get_by_id(cls, context, id):
        return cls._get_by(context, models.Flavor.id, id)

    @classmethod
    def get_by_flavor_id(cls, context, flavorid):
        return cls._get_by(context, models.Flavor.flavorid, flavorid)

    @classmethod
    def get_by_name(cls, context, name):
        return cls._get_by(context, models.Flavor.name, name)

    @db.retried
    def create(self):
        if self.obj_attr_is_set('id'):
            raise exception.ObjectActionError(action='create',
                                              reason='already created')
        values = base.changes_for_db(self, skip=('extra_specs', 'projects'))
        values['created_at'] = base.utcnow()
        try:
            with db.api_session() as session:
                row = models.Flavor(**values)
                session.add(row)
                session.flush()
                for key, value in (self.extra_specs
                                   if self.obj_attr_is_set('extra_specs')
                                   else {}).items():
                    session.add(models.FlavorExtraSpec(
                        flavor_id=row.id, key=key, value=value))
                for project in (self.projects
                                if self.obj_attr_is_set('projects') else []):
                    session.add(models.FlavorProject(flavor_id=row.id,
                                                     project_id=project))
                session.flush()
                self._from_db(self._context, self, row, session)
        except db.DBDuplicateEntry:
            if self._name_taken(self.name):
                raise exception.FlavorExists(field='name', value=self.name)
            raise exception.FlavorExists(field='ID', value=self.flavorid)

    @staticmethod
    def _name_taken(name):
        with db.api_session() as session:
            return session.execute(sa.select(models.Flavor.id).where(
                models.Flavor.name == name)).first() is not None

    @db.retried
    def save(self):
        """Write a changed description (the only mutable attribute: the
        sizes of a flavor are copied into instances, never changed)."""
        changed = self.obj_what_changed() - {'description'}
        if changed:
            raise exception.ObjectActionError(
                action='save',
                reason='only the description of a flavor can change, not '
                       '%s' % ', '.join(sorted(changed)))
        if 'description' not in self.obj_what_changed():
            return
        now = base.utcnow()
        with db.api_session() as session:
            result = session.execute(sa.update(models.Flavor).where(
                models.Flavor.id == self.id).values(
                    description=self.description, updated_at=now))
            if not result.rowcount:
                raise exception.FlavorNotFound(flavor_id=self.flavorid)
        self.updated_at = now
        self.obj_reset_changes()

    @db.retried
    def destroy(self):
        with db.api_session() as session:
            for table in (models.FlavorExtraSpec, models.FlavorProject):
                session.execute(sa.delete(table).where(
                    table.flavor_id == self.id))
            result = session.execute(sa.delete(models.Flavor).where(
                models.Flavor.id == self.id))
            if not result.rowcount:
                raise exception.FlavorNotFound(flavor_id=self.flavorid)


@base.NovaLiteObjectRegistry.register
class FlavorList(base.ObjectListBase, base.NovaLiteObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {'objects': fields.ListOfObjectsField('Flavor')}

    @classmethod
    @db.retried
    def get_all(cls, context, is_public=None, project_id=None,
                min_memory_mb=None, min_disk=None, sort_key='flavorid',
                sort_dir='asc', limit=None, marker=None):
        """Flavors visible under the given filters, sorted and paged.

        ``is_public`` None lists public and private ones; a ``project_id``
        adds the private flavors that project was given access to.
        """
        query = sa.select(models.Flavor).where(
            models.Flavor.disabled == sa.false())
        if is_public is not None:
            visible = models.Flavor.is_public == bool(is_public)
            if project_id and is_public:
                granted = sa.select(models.FlavorProject.flavor_id).where(
                    models.FlavorProject.project_id == project_id)
                visible = sa.or_(visible, models.Flavor.id.in_(granted))
            query = query.where(visible)
        if min_memory_mb is not None:
            query = query.where(models.Flavor.memory_mb >= min_memory_mb)
        if min_disk is not None:
            query = query.where(models.Flavor.root_gb >= min_disk)
        column = getattr(models.Flavor, sort_key)
        order = column.desc() if sort_dir == 'desc' else column.asc()
        query = query.order_by(order, models.Flavor.id.asc())
        with db.api_session() as session:
            rows = list(session.execute(query).scalars())
            if marker is not None:
                ids = [r.flavorid for r in rows]
                if marker not in ids:
                    raise exception.Invalid(
                        reason='marker [%s] not found' % marker)
                rows = rows[ids.index(marker) + 1:]
            if limit is not None:
                rows = rows[:limit]
            flavors = [Flavor._from_db(context, Flavor(), r, session)
                       for r in rows]
        return cls(context, objects=flavors)
