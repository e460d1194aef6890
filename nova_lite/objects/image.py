"""Image: an entry of the minimal image catalog (API database).

There is no image service; operators register images with
``nova-lite-manage image create`` so that clients that look images up
(the openstack CLI does, even for a UUID) find them.
"""

from oslo_serialization import jsonutils
from oslo_utils import uuidutils
from oslo_versionedobjects import fields
import sqlalchemy as sa

from nova_lite.db import api as db
from nova_lite.db import api_models as models
from nova_lite import exception
from nova_lite.objects import base


@base.NovaLiteObjectRegistry.register
class Image(base.NovaLiteObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = dict(base.NovaLiteTimestampObject.fields, **{
        'id': fields.UUIDField(),
        'name': fields.StringField(),
        'status': fields.StringField(default='active'),
        'min_disk': fields.IntegerField(default=0),
        'min_ram': fields.IntegerField(default=0),
        'size': fields.IntegerField(default=0),
        'properties': fields.DictOfNullableStringsField(default={}),
    })

    @staticmethod
    def _from_db(context, image, row):
        image.id = row.uuid
        base.copy_from_row(image, row, ('name', 'status', 'min_disk',
                                        'min_ram', 'size', 'created_at',
                                        'updated_at'))
        image.properties = jsonutils.loads(row.properties or '{}')
        image._context = context
        image.obj_reset_changes()
        return image

    @classmethod
    @db.retried
    def get_by_id(cls, context, image_id):
        if not uuidutils.is_uuid_like(image_id):
            raise exception.ImageNotFound(image_id=image_id)
        with db.api_session() as session:
            row = session.execute(sa.select(models.Image).where(
                models.Image.uuid == image_id)).scalar_one_or_none()
        if row is None:
            raise exception.ImageNotFound(image_id=image_id)
        return cls._from_db(context, cls(), row)

    @db.retried
    def create(self):
        if not self.obj_attr_is_set('id'):
            self.id = uuidutils.generate_uuid()
        now = base.utcnow()
        row = models.Image(
            uuid=self.id, name=self.name,
            status=self.status if self.obj_attr_is_set('status')
            else 'active',
            min_disk=self.min_disk if self.obj_attr_is_set('min_disk') else 0,
            min_ram=self.min_ram if self.obj_attr_is_set('min_ram') else 0,
            size=self.size if self.obj_attr_is_set('size') else 0,
            properties=jsonutils.dumps(
                self.properties if self.obj_attr_is_set('properties')
                else {}),
            created_at=now, updated_at=now)
        try:
            with db.api_session() as session:
                session.add(row)
        except db.DBDuplicateEntry:
            raise exception.ImageExists(name=self.name)
        self._from_db(self._context, self, row)

    @db.retried
    def destroy(self):
        with db.api_session() as session:
            result = session.execute(sa.delete(models.Image).where(
                models.Image.uuid == self.id))
        if not result.rowcount:
            raise exception.ImageNotFound(image_id=self.id)


@base.NovaLiteObjectRegistry.register
class ImageList(base.ObjectListBase, base.NovaLiteObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {'objects': fields.ListOfObjectsField('Image')}

    @classmethod
    @db.retried
    def get_all(cls, context, name=None, status=None):
        query = sa.select(models.Image).order_by(models.Image.name)
        if name is not None:
            query = query.where(models.Image.name == name)
        if status is not None:
            query = query.where(models.Image.status == status)
        with db.api_session() as session:
            rows = list(session.execute(query).scalars())
        return cls(context, objects=[Image._from_db(context, Image(), r)
                                     for r in rows])
