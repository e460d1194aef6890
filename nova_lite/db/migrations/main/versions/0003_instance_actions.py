"""instance actions: instance_actions, instance_actions_events

Revision ID: 0003
Revises: 0002
"""

from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import mysql

revision = '0003'
down_revision = '0002'
branch_labels = None
depends_on = None

_DATETIME = sa.DateTime().with_variant(mysql.DATETIME(fsp=6), 'mysql')
_LONGTEXT = sa.Text().with_variant(mysql.LONGTEXT(), 'mysql')


def upgrade():
    op.create_table(
        'instance_actions',
        sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
        sa.Column('action', sa.String(length=255), nullable=True),
        sa.Column('instance_uuid', sa.String(length=36), nullable=False),
        sa.Column('request_id', sa.String(length=255), nullable=True),
        sa.Column('user_id', sa.String(length=255), nullable=True),
        sa.Column('project_id', sa.String(length=255), nullable=True),
        sa.Column('start_time', _DATETIME, nullable=True),
        sa.Column('finish_time', _DATETIME, nullable=True),
        sa.Column('message', sa.String(length=255), nullable=True),
        sa.Column('created_at', _DATETIME, nullable=True),
        sa.Column('updated_at', _DATETIME, nullable=True),
        sa.PrimaryKeyConstraint('id'),
    )
    with op.batch_alter_table('instance_actions', schema=None) as batch_op:
        batch_op.create_index('instance_actions_instance_uuid_idx',
                              ['instance_uuid'], unique=False)

    op.create_table(
        'instance_actions_events',
        sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
        sa.Column('action_id', sa.Integer(), nullable=False),
        sa.Column('event', sa.String(length=255), nullable=True),
        sa.Column('start_time', _DATETIME, nullable=True),
        sa.Column('finish_time', _DATETIME, nullable=True),
        sa.Column('result', sa.String(length=255), nullable=True),
        sa.Column('traceback', _LONGTEXT, nullable=True),
        sa.Column('host', sa.String(length=255), nullable=True),
        sa.Column('details', _LONGTEXT, nullable=True),
        sa.Column('created_at', _DATETIME, nullable=True),
        sa.Column('updated_at', _DATETIME, nullable=True),
        sa.ForeignKeyConstraint(['action_id'], ['instance_actions.id']),
        sa.PrimaryKeyConstraint('id'),
    )
    with op.batch_alter_table('instance_actions_events',
                              schema=None) as batch_op:
        batch_op.create_index('instance_actions_events_action_id_idx',
                              ['action_id'], unique=False)


def downgrade():
    op.drop_table('instance_actions_events')
    op.drop_table('instance_actions')
