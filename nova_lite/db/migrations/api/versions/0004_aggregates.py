"""host aggregates: aggregates, aggregate_hosts and aggregate_metadata

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
        'aggregates',
        sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
        sa.Column('uuid', sa.String(length=36), nullable=False),
        sa.Column('name', sa.String(length=255), nullable=False),
        sa.Column('created_at', _DATETIME, nullable=True),
        sa.Column('updated_at', _DATETIME, nullable=True),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('uuid'),
        sa.UniqueConstraint('name'),
    )

    op.create_table(
        'aggregate_hosts',
        sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
        sa.Column('aggregate_id', sa.Integer(), nullable=False),
        sa.Column('host', sa.String(length=255), nullable=False),
        sa.Column('created_at', _DATETIME, nullable=True),
        sa.Column('updated_at', _DATETIME, nullable=True),
        sa.ForeignKeyConstraint(['aggregate_id'], ['aggregates.id'], ),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('host', 'aggregate_id',
                            name='uniq_aggregate_hosts'),
    )

    op.create_table(
        'aggregate_metadata',
        sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
        sa.Column('aggregate_id', sa.Integer(), nullable=False),
        sa.Column('key', sa.String(length=255), nullable=False),
        sa.Column('value', sa.String(length=255), nullable=False),
        sa.Column('created_at', _DATETIME, nullable=True),
        sa.Column('updated_at', _DATETIME, nullable=True),
        sa.ForeignKeyConstraint(['aggregate_id'], ['aggregates.id'], ),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('aggregate_id', 'key',
                            name='uniq_aggregate_metadata'),
    )


def downgrade():
    op.drop_table('aggregate_metadata')
    op.drop_table('aggregate_hosts')
    op.drop_table('aggregates')
