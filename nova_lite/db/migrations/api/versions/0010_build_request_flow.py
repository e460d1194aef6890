"""build_requests: flow, the steps its owner has started (for a takeover)

Revision ID: 0010
Revises: 0009
"""

from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import mysql

revision = '0010'
down_revision = '0009'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('build_requests', schema=None) as batch_op:
        batch_op.add_column(sa.Column(
            'flow', sa.Text().with_variant(mysql.MEDIUMTEXT(), 'mysql'),
            nullable=True))
