"""instances keep their key data, trusted certificates and block devices

Revision ID: 0002
Revises: 0001

A server buried in cell0 is built again from its record (seed 003), so
what it was created with must be on the record.
"""

from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import mysql

revision = '0002'
down_revision = '0001'
branch_labels = None
depends_on = None


def upgrade():
    op.add_column('instances', sa.Column('key_data', sa.Text(),
                                         nullable=True))
    op.add_column('instances', sa.Column('trusted_certs', sa.Text(),
                                         nullable=True))
    op.add_column('instances', sa.Column(
        'block_device_mapping',
        sa.Text().with_variant(mysql.LONGTEXT(), 'mysql'), nullable=True))
