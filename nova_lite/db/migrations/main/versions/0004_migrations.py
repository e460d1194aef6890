"""migrations: the record of each move of an instance between hosts

Revision ID: 0004
Revises: 0003
"""

from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import mysql

revision = '0004'
down_revision = '0003'
branch_labels = None
depends_on = None

_DATETIME = sa.DateTime().with_variant(mysql.DATETIME(fsp=6), 'mysql')


def upgrade():
    op.create_table(
        'migrations',
        sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
        sa.Column('uuid', sa.String(length=36), nullable=False),
        sa.Column('instance_uuid', sa.String(length=36), nullable=False),
        sa.Column('migration_type', sa.String(length=32), nullable=False),
        sa.Column('status', sa.String(length=32), nullable=False),
        sa.Column('source_compute', sa.String(length=255), nullable=True),
        sa.Column('source_node', sa.String(length=255), nullable=True),
        sa.Column('dest_compute', sa.String(length=255), nullable=True),
        sa.Column('dest_node', sa.String(length=255), nullable=True),
        sa.Column('dest_host', sa.String(length=255), nullable=True),
        sa.Column('created_at', _DATETIME, nullable=True),
        sa.Column('updated_at', _DATETIME, nullable=True),
        sa.Column('deleted_at', _DATETIME, nullable=True),
        sa.Column('deleted', sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('uuid'),
    )
    with op.batch_alter_table('migrations', schema=None) as batch_op:
        batch_op.create_index('migrations_instance_uuid_idx',
                              ['instance_uuid'], unique=False)
        batch_op.create_index('migrations_source_compute_status_idx',
                              ['source_compute', 'status'], unique=False)
