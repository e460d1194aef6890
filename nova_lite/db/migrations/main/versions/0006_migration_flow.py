"""migrations: flow, the steps the move's compute flow has started (for a
takeover)

Revision ID: 0006
Revises: 0005
"""

from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import mysql

revision = '0006'
down_revision = '0005'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('migrations', schema=None) as batch_op:
        batch_op.add_column(sa.Column(
            'flow', sa.Text().with_variant(mysql.MEDIUMTEXT(), 'mysql'),
            nullable=True))
