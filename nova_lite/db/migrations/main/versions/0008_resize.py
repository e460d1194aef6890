"""resize and cold migration: the instance's old and new flavors while a
resize waits to be confirmed or reverted, and the flavors a migration
record moves between

Revision ID: 0008
Revises: 0007

Each column is added to the shadow table too.
"""

from alembic import op
import sqlalchemy as sa

revision = '0008'
down_revision = '0007'
branch_labels = None
depends_on = None

COLUMNS = {
    'instances': [('old_flavor', sa.Text), ('new_flavor', sa.Text)],
    'migrations': [('old_instance_type_id', sa.Integer),
                   ('new_instance_type_id', sa.Integer)],
}


def upgrade():
    for table, columns in COLUMNS.items():
        for name in (table, 'shadow_' + table):
            with op.batch_alter_table(name, schema=None) as batch_op:
                for column, column_type in columns:
                    batch_op.add_column(sa.Column(column, column_type(),
                                                  nullable=True))


def downgrade():
    for table, columns in COLUMNS.items():
        for name in (table, 'shadow_' + table):
            with op.batch_alter_table(name, schema=None) as batch_op:
                for column, _type in columns:
                    batch_op.drop_column(column)
