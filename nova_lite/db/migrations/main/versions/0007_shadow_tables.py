"""shadow tables: where archive_deleted_rows moves the rows of deleted
servers, services and compute nodes

Revision ID: 0007
Revises: 0006

Each shadow_<table> gets <table>'s columns as this database has them at
this revision, and its primary key; no foreign key, no unique constraint,
no default. A later migration that adds a column to one of these tables
adds it to the shadow table too.
"""

from alembic import op
import sqlalchemy as sa

revision = '0007'
down_revision = '0006'
branch_labels = None
depends_on = None

# {table: the column its shadow table indexes, or None}
TABLES = {'instance_actions_events': 'action_id',
          'instance_actions': 'instance_uuid',
          'instance_faults': 'instance_uuid',
          'migrations': 'instance_uuid',
          'instances': 'uuid',
          'services': None,
          'compute_nodes': None}


def upgrade():
    connection = op.get_bind()
    for name, indexed in TABLES.items():
        table = sa.Table(name, sa.MetaData(), autoload_with=connection)
        op.create_table('shadow_' + name, *[
            sa.Column(column.name, column.type,
                      primary_key=column.primary_key,
                      nullable=column.nullable, autoincrement=False)
            for column in table.columns])
        if indexed:
            op.create_index('shadow_%s_%s_idx' % (name, indexed),
                            'shadow_' + name, [indexed])


def downgrade():
    for name in TABLES:
        op.drop_table('shadow_' + name)
