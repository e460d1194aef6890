"""placement: consumer_types, and consumers.consumer_type_id (1.38)

Revision ID: 0011
Revises: 0010
"""

from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import mysql

revision = '0011'
down_revision = '0010'
branch_labels = None
depends_on = None

_DATETIME = sa.DateTime().with_variant(mysql.DATETIME(fsp=6), 'mysql')


def upgrade():
    op.create_table(
        'consumer_types',
        sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
        sa.Column('name', sa.String(length=255), nullable=False),
        sa.Column('created_at', _DATETIME, nullable=True),
        sa.Column('updated_at', _DATETIME, nullable=True),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('name'))
    # Existing consumers keep NULL: their type is 'unknown'.
    with op.batch_alter_table('consumers', schema=None) as batch_op:
        batch_op.add_column(sa.Column('consumer_type_id', sa.Integer(),
                                      nullable=True))
        batch_op.create_index('ix_consumers_consumer_type_id',
                              ['consumer_type_id'], unique=False)
        batch_op.create_foreign_key('consumers_consumer_type_id_fkey',
                                    'consumer_types', ['consumer_type_id'],
                                    ['id'])
