"""build_requests: claimed_at, when a conductor took the build on

Revision ID: 0008
Revises: 0007
"""

from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import mysql

revision = '0008'
down_revision = '0007'
branch_labels = None
depends_on = None

_DATETIME = sa.DateTime().with_variant(mysql.DATETIME(fsp=6), 'mysql')


def upgrade():
    with op.batch_alter_table('build_requests', schema=None) as batch_op:
        batch_op.add_column(sa.Column('claimed_at', _DATETIME,
                                      nullable=True))
