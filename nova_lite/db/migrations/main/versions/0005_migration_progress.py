"""migrations: progress of a live migration (memory and disk bytes)

Revision ID: 0005
Revises: 0004
"""

from alembic import op
import sqlalchemy as sa

revision = '0005'
down_revision = '0004'
branch_labels = None
depends_on = None

_COLUMNS = ('memory_total', 'memory_processed', 'memory_remaining',
            'disk_total', 'disk_processed', 'disk_remaining')


def upgrade():
    with op.batch_alter_table('migrations', schema=None) as batch_op:
        for name in _COLUMNS:
            batch_op.add_column(sa.Column(name, sa.BigInteger(),
                                          nullable=True))
