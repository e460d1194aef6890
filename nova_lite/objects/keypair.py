"""KeyPair: a public key a user registered (API database).

Users import or generate key pairs through ``/os-keypairs`` and name one
(``key_name``) when they boot a server. A key pair belongs to a user, not
to a project, and its name is unique among that user's key pairs. Key
pairs are never changed once created: they are created and destroyed.
"""

from oslo_versionedobjects import fields
import sqlalchemy as sa

from nova_lite.db import api as db
from nova_lite.db import api_models as models
from nova_lite import exception
from nova_lite.objects import base

TYPE_SSH = 'ssh'
TYPE_X509 = 'x509'
TYPES = (TYPE_SSH, TYPE_X509)

_COLUMNS = ('id', 'name', 'user_id', 'fingerprint', 'public_key', 'type',
            'created_at', 'updated_at')


@base.NovaLiteObjectRegistry.register
class KeyPair(base.NovaLiteObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = dict(base.NovaLiteTimestampObject.fields, **{
        'id': fields.IntegerField(read_only=True),
        'name': fields.StringField(),
        'user_id': fields.StringField(),
        'fingerprint': fields.StringField(),
        'public_key': fields.StringField(),
        'type': fields.EnumField(TYPES, default=TYPE_SSH),
    })

    @staticmethod
    def _from_db(context, keypair, row):
        base.copy_from_row(keypair, row, _COLUMNS)
        keypair._context = context
        keypair.obj_reset_changes()
        return keypair

    @classmethod
    @db.retried
    def get_by_name(cls, context, user_id, name):
        """The key pair ``name`` of ``user_id``; KeypairNotFound."""
        with db.api_session() as session:
            row = session.execute(sa.select(models.KeyPair).where(
                models.KeyPair.user_id == user_id,
                models.KeyPair.name == name)).scalar_one_or_none()
        if row is None:
            raise exception.KeypairNotFound(user_id=user_id, name=name)
        return cls._from_db(context, cls(), row)

    @db.retried
    def create(self):
        """Store a new key pair; KeyPairExists if the user has one of
        that name."""
        if self.obj_attr_is_set('id'):
            raise exception.ObjectActionError(action='create',
                                              reason='already created')
        if not self.obj_attr_is_set('type'):
            self.type = TYPE_SSH
        try:
            with db.api_session() as session:
                row = models.KeyPair(
                    name=self.name, user_id=self.user_id,
                    fingerprint=self.fingerprint,
                    public_key=self.public_key, type=self.type,
                    created_at=base.utcnow(), updated_at=None)
                session.add(row)
                session.flush()
        except db.DBDuplicateEntry:
            raise exception.KeyPairExists(key_name=self.name)
        self._from_db(self._context, self, row)

    @db.retried
    def destroy(self):
        """Delete the key pair; KeypairNotFound if it is gone already."""
        with db.api_session() as session:
            removed = session.execute(sa.delete(models.KeyPair).where(
                models.KeyPair.user_id == self.user_id,
                models.KeyPair.name == self.name)).rowcount
        if not removed:
            raise exception.KeypairNotFound(user_id=self.user_id,
                                            name=self.name)


@base.NovaLiteObjectRegistry.register
class KeyPairList(base.ObjectListBase, base.NovaLiteObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {'objects': fields.ListOfObjectsField('KeyPair')}

    @classmethod
    @db.retried
    def get_by_user(cls, context, user_id, limit=None, marker=None):
        """The key pairs of ``user_id``, by name: at most ``limit``, those
        after the one named ``marker``; MarkerNotFound if ``user_id`` has
        no key pair of that name."""
        query = (sa.select(models.KeyPair)
                 .where(models.KeyPair.user_id == user_id)
                 .order_by(models.KeyPair.name))
        if marker is not None:
            query = query.where(models.KeyPair.name > marker)
        if limit is not None:
            query = query.limit(limit)
        with db.api_session() as session:
            if marker is not None and session.execute(
                    sa.select(models.KeyPair.id).where(
                        models.KeyPair.user_id == user_id,
                        models.KeyPair.name == marker)).first() is None:
                raise exception.MarkerNotFound(marker=marker)
            rows = list(session.execute(query).scalars())
        return cls(context, objects=[
            KeyPair._from_db(context, KeyPair(), row) for row in rows])

    @classmethod
    @db.retried
    def count(cls, context, user_id):
        """How many key pairs ``user_id`` has."""
        with db.api_session() as session:
            return session.execute(
                sa.select(sa.func.count()).select_from(models.KeyPair)
                .where(models.KeyPair.user_id == user_id)).scalar()
